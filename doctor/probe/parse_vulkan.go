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
