package probe

import (
	"regexp"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

var (
	reVkGPU = regexp.MustCompile(`^GPU(\d+):\s*$`)
	reVkKV  = regexp.MustCompile(`^\s+(\w+)\s*=\s*(.*)$`)
)

// ParseVulkanSummary reads the "Devices:" section of `vulkaninfo --summary`.
func ParseVulkanSummary(out string) []machine.VulkanDevice {
	var devs []machine.VulkanDevice
	var cur *machine.VulkanDevice
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if reVkGPU.MatchString(strings.TrimSpace(line)) && !strings.HasPrefix(line, " ") {
			devs = append(devs, machine.VulkanDevice{})
			cur = &devs[len(devs)-1]
			continue
		}
		if cur == nil {
			continue
		}
		m := reVkKV.FindStringSubmatch(line)
		if m == nil {
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
				cur = nil // a new top-level section
			}
			continue
		}
		v := strings.TrimSpace(m[2])
		switch m[1] {
		case "deviceName":
			cur.Name = v
		case "deviceType":
			cur.Type = strings.TrimPrefix(v, "PHYSICAL_DEVICE_TYPE_")
		case "apiVersion":
			cur.APIVersion = v
		case "driverName":
			cur.Driver = v
		case "driverInfo":
			if cur.Driver != "" && v != "" {
				cur.Driver += " " + v
			}
		case "vendorID":
			cur.VendorID = v
		}
	}
	out2 := devs[:0]
	for _, d := range devs {
		if d.Name != "" {
			out2 = append(out2, d)
		}
	}
	return out2
}

var (
	reVkHeaderVersion  = regexp.MustCompile(`(?m)^\s*#define\s+VK_HEADER_VERSION\s+(\d{1,6})\s*$`)
	reVkHeaderComplete = regexp.MustCompile(`(?m)^\s*#define\s+VK_HEADER_VERSION_COMPLETE\s+VK_MAKE_(?:API_)?VERSION\(\s*(?:\d+\s*,\s*)?(\d+)\s*,\s*(\d+)\s*,\s*VK_HEADER_VERSION\s*\)`)
	reCMakePkgVersion  = regexp.MustCompile(`(?m)^\s*set\(\s*PACKAGE_VERSION\s+"([0-9][0-9A-Za-z.+-]{0,40})"\s*\)`)
	reLoaderSoVersion  = regexp.MustCompile(`^libvulkan\.so\.(\d+\.\d+\.\d+)$`)
	reDottedVersion    = regexp.MustCompile(`\b\d+\.\d+\.\d+(?:\.\d+)?\b`)
)

// ParseVulkanHeaderVersion reads VK_HEADER_VERSION (239) and the whole
// version (1.3.239) from vulkan_core.h; 0 when the file has none.
func ParseVulkanHeaderVersion(h string) (int, string) {
	m := reVkHeaderVersion.FindStringSubmatch(h)
	if m == nil {
		return 0, ""
	}
	n := 0
	for _, c := range m[1] {
		n = n*10 + int(c-'0')
	}
	complete := ""
	if c := reVkHeaderComplete.FindStringSubmatch(h); c != nil {
		complete = c[1] + "." + c[2] + "." + m[1]
	}
	return n, complete
}

// ParseCMakePackageVersion reads PACKAGE_VERSION from a CMake package's
// *ConfigVersion.cmake.
func ParseCMakePackageVersion(s string) string {
	if m := reCMakePkgVersion.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// LoaderVersionFromName reads the loader's version from its real file name
// (libvulkan.so.1.3.239 -> 1.3.239).
func LoaderVersionFromName(name string) string {
	if m := reLoaderSoVersion.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}
