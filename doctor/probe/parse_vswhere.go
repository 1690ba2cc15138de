package probe

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

type vswhereInstance struct {
	InstanceID          string `json:"instanceId"`
	InstallationPath    string `json:"installationPath"`
	InstallationVersion string `json:"installationVersion"`
	DisplayName         string `json:"displayName"`
	IsPrerelease        bool   `json:"isPrerelease"`
	Catalog             struct {
		ProductDisplayVersion string `json:"productDisplayVersion"`
	} `json:"catalog"`
}

var reVswhereField = regexp.MustCompile(`"(instanceId|installationPath|installationVersion|displayName|productDisplayVersion)"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// ParseVswhere reads `vswhere -format json` (an array; a single object is
// accepted too). Output cut short (an excerpt, a crashed vswhere) is read
// field by field so the instances it names are still found; ok is false
// when the JSON was not complete.
func ParseVswhere(out string) (insts []machine.MSVCInstall, ok bool) {
	out = strings.TrimSpace(strings.TrimPrefix(out, "\ufeff"))
	var arr []vswhereInstance
	err := json.Unmarshal([]byte(out), &arr)
	if err != nil {
		var one vswhereInstance
		if json.Unmarshal([]byte(out), &one) == nil && one.InstallationPath != "" {
			arr, err = []vswhereInstance{one}, nil
		}
	}
	if err == nil {
		for _, v := range arr {
			if v.InstallationPath == "" {
				// Nothing to look in: an entry without a path (`[{}]`,
				// found by FuzzParseVswhere) is no instance.
				continue
			}
			insts = append(insts, machine.MSVCInstall{
				InstanceID: v.InstanceID, DisplayName: v.DisplayName, Path: v.InstallationPath,
				InstallVersion: v.InstallationVersion, ProductVersion: v.Catalog.ProductDisplayVersion,
			})
		}
		return insts, true
	}
	// Lenient pass: every installationPath starts a new instance.
	var cur *machine.MSVCInstall
	pending := map[string]string{}
	for _, m := range reVswhereField.FindAllStringSubmatch(out, -1) {
		var val string
		if err := json.Unmarshal([]byte(`"`+m[2]+`"`), &val); err != nil {
			continue
		}
		if m[1] == "instanceId" {
			cur = nil
			pending = map[string]string{"instanceId": val}
			continue
		}
		if m[1] == "installationPath" {
			insts = append(insts, machine.MSVCInstall{Path: val, InstanceID: pending["instanceId"]})
			cur = &insts[len(insts)-1]
			for k, v := range pending {
				setVSField(cur, k, v)
			}
			pending = map[string]string{}
			continue
		}
		if cur == nil {
			pending[m[1]] = val
			continue
		}
		setVSField(cur, m[1], val)
	}
	return insts, false
}

func setVSField(i *machine.MSVCInstall, k, v string) {
	switch k {
	case "installationVersion":
		i.InstallVersion = v
	case "displayName":
		i.DisplayName = v
	case "productDisplayVersion":
		i.ProductVersion = v
	case "instanceId":
		i.InstanceID = v
	}
}
