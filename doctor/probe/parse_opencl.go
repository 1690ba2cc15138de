package probe

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

// clinfo comes in two layouts (testdata/doctor/recordings/fixtures/opencl-vulkan):
// the Khronos-style clinfo (Debian, Ubuntu, WSL) aligns "  Platform Name    X"
// with spaces, AMD's Windows clinfo writes "  Platform Name:   X". Both list
// the platforms first, then one "Platform Name" + "Number of devices"
// section per platform with its devices.
var reCLKV = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9 ()/_.#-]*?)(?::\s*|\s{2,})(\S.*)?$`)

// ParseClinfo reads the raw output of `clinfo`.
func ParseClinfo(out string) []machine.OpenCLPlatform {
	var plats []machine.OpenCLPlatform
	amd := regexp.MustCompile(`(?m)^Number of platforms:`).MatchString(out)
	inDevices := false
	cur := -1 // platform whose devices are being read
	var dev *machine.OpenCLDevice
	flush := func() {
		if dev != nil && cur >= 0 && cur < len(plats) {
			plats[cur].Devices = append(plats[cur].Devices, *dev)
		}
		dev = nil
	}
	// clinfo's trailing sections repeat platform/device names as test results.
	for _, end := range []string{"\nNULL platform behavior", "\nICD loader properties"} {
		if i := strings.Index(out, end); i >= 0 {
			out = out[:i]
		}
	}
	type kv struct{ key, val string }
	var kvs []kv
	for _, raw := range strings.Split(out, "\n") {
		if m := reCLKV.FindStringSubmatch(strings.TrimRight(raw, "\r")); m != nil {
			kvs = append(kvs, kv{strings.TrimSpace(m[1]), strings.TrimSpace(m[2])})
		}
	}
	platIdx := 0 // device sections come in platform order (names may repeat)
	for i, e := range kvs {
		key, val := e.key, e.val
		switch {
		case key == "Number of devices":
			inDevices = true
			continue
		case key == "Platform Name" && i+1 < len(kvs) && kvs[i+1].key == "Number of devices":
			flush()
			inDevices = false
			cur = platIdx
			platIdx++
			continue
		case key == "Platform Name" && platIdx == 0:
			plats = append(plats, machine.OpenCLPlatform{Name: val})
			continue
		}
		if !inDevices {
			if len(plats) > 0 && platIdx == 0 {
				p := &plats[len(plats)-1]
				switch key {
				case "Platform Vendor":
					p.Vendor = val
				case "Platform Version":
					p.Version = val
				}
			}
			continue
		}
		newDev := (!amd && key == "Device Name") || (amd && key == "Device Type")
		if newDev {
			flush()
			dev = &machine.OpenCLDevice{}
		}
		if dev == nil {
			continue
		}
		switch key {
		case "Device Name":
			dev.Name = val
		case "Board name":
			dev.Name = val // AMD: the marketing name; "Name" is gfx1100
		case "Name":
			if dev.Name == "" {
				dev.Name = val
			}
		case "Device Vendor", "Vendor":
			dev.Vendor = val
		case "Device Type":
			dev.Type = clDeviceType(val)
		case "Device Version", "Version":
			dev.Version = val
		case "Driver Version", "Driver version":
			dev.DriverVersion = val
		case "Device OpenCL C Version", "Device OpenCL C version":
			dev.OpenCLCVersion = val
		case "Global memory size":
			f := strings.Fields(val)
			if len(f) > 0 {
				if n, err := strconv.ParseUint(f[0], 10, 64); err == nil {
					dev.GlobalMemMiB = n >> 20
				}
			}
		}
	}
	flush()
	// AMD's layout prints the header fields of a platform before its name;
	// fill them from the order they appeared when the Khronos pass found none.
	if amd {
		fillAMDPlatformHeaders(out, plats)
	}
	return plats
}

func fillAMDPlatformHeaders(out string, plats []machine.OpenCLPlatform) {
	var versions, vendors []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "Number of devices") {
			break
		}
		m := reCLKV.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		switch strings.TrimSpace(m[1]) {
		case "Platform Version":
			versions = append(versions, strings.TrimSpace(m[2]))
		case "Platform Vendor":
			vendors = append(vendors, strings.TrimSpace(m[2]))
		}
	}
	for i := range plats {
		if i < len(versions) {
			plats[i].Version = versions[i]
		}
		if i < len(vendors) {
			plats[i].Vendor = vendors[i]
		}
	}
}

func clDeviceType(v string) string {
	v = strings.ToUpper(strings.TrimPrefix(strings.TrimSpace(v), "CL_DEVICE_TYPE_"))
	switch {
	case strings.Contains(v, "GPU"):
		return "GPU"
	case strings.Contains(v, "CPU"):
		return "CPU"
	case strings.Contains(v, "ACCELERATOR"):
		return "ACCELERATOR"
	}
	return v
}

var (
	reCLListPlat = regexp.MustCompile(`^Platform #\d+:\s*(.*)$`)
	reCLListDev  = regexp.MustCompile("^\\s*[`+|]--\\s*Device #\\d+:\\s*(.*)$")
)

// ParseClinfoList reads `clinfo -l`: platform and device names only.
func ParseClinfoList(out string) []machine.OpenCLPlatform {
	var plats []machine.OpenCLPlatform
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := reCLListPlat.FindStringSubmatch(line); m != nil {
			plats = append(plats, machine.OpenCLPlatform{Name: strings.TrimSpace(m[1])})
			continue
		}
		if m := reCLListDev.FindStringSubmatch(line); m != nil && len(plats) > 0 {
			p := &plats[len(plats)-1]
			p.Devices = append(p.Devices, machine.OpenCLDevice{Name: strings.TrimSpace(m[1])})
		}
	}
	return plats
}
