// Package enginefacts holds facts about llama.cpp itself that several
// packages apply (doctor's checks, build's planner, the kernels probe), so
// each fact lives in one place.
package enginefacts

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

//go:embed opencl.json
var openclJSON []byte

var openCL = func() (f struct {
	Source          string   `json:"source"`
	VendorMarkers   []string `json:"vendor_markers"`
	MinOpenCLCMajor int      `json:"min_opencl_c_major"`
}) {
	if err := json.Unmarshal(openclJSON, &f); err != nil {
		panic("enginefacts: opencl.json: " + err.Error())
	}
	return f
}()

// OpenCLVendorSupported says whether llama.cpp's OpenCL backend keeps a
// device of this name/vendor (Adreno/Qualcomm or Intel), whatever its type.
func OpenCLVendorSupported(name, vendor string) bool {
	id := strings.ToLower(name + " " + vendor)
	for _, m := range openCL.VendorMarkers {
		if strings.Contains(id, m) {
			return true
		}
	}
	return false
}

var reOpenCLC = regexp.MustCompile(`OpenCL C (\d+)\.(\d+)`)

// OpenCLAccepts says whether llama.cpp's OpenCL backend would use a device,
// and why: a GPU of a supported vendor with a new enough OpenCL C.
func OpenCLAccepts(name, vendor, typ, openCLC string) (bool, string) {
	if !strings.Contains(strings.ToUpper(typ), "GPU") {
		return false, fmt.Sprintf("it is not a GPU (%s)", typ)
	}
	if !OpenCLVendorSupported(name, vendor) {
		return false, "only Qualcomm Adreno and Intel GPUs are supported"
	}
	m := reOpenCLC.FindStringSubmatch(openCLC)
	if m == nil {
		return false, fmt.Sprintf("unknown OpenCL C version %q (%d.0 or newer is required)", openCLC, openCL.MinOpenCLCMajor)
	}
	major, _ := strconv.Atoi(m[1])
	if major < openCL.MinOpenCLCMajor {
		return false, fmt.Sprintf("OpenCL C %s.%s is older than the required %d.0", m[1], m[2], openCL.MinOpenCLCMajor)
	}
	return true, fmt.Sprintf("%s GPU with OpenCL C %s.%s", strings.TrimSpace(vendor), m[1], m[2])
}
