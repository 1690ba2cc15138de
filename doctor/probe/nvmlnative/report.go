// Package nvmlnative asks the NVIDIA driver's NVML library about the driver
// and GPUs. It runs only inside the `llamactl __probe nvml` child process:
// a driver library that crashes or hangs takes the child down, not doctor.
package nvmlnative

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// Report is what the child prints as JSON. Status is "ok" or NVML's return
// code name without the NVML_ prefix (ERROR_DRIVER_NOT_LOADED...).
type Report struct {
	Schema        int    `json:"schema"`
	Status        string `json:"status"`
	Code          int    `json:"code"`
	Call          string `json:"call,omitempty"` // the NVML call that failed
	Library       string `json:"library,omitempty"`
	DriverVersion string `json:"driver_version,omitempty"`
	// CUDADriverVersion is nvmlSystemGetCudaDriverVersion_v2: 12060 = 12.6.
	CUDADriverVersion int    `json:"cuda_driver_version,omitempty"`
	GPUs              []GPU  `json:"gpus,omitempty"`
	Error             string `json:"error,omitempty"`
}

type GPU struct {
	Index    int    `json:"index"`
	Name     string `json:"name"`
	UUID     string `json:"uuid,omitempty"`
	PCIBusID string `json:"pci_bus_id,omitempty"`
	CCMajor  int    `json:"cc_major,omitempty"`
	CCMinor  int    `json:"cc_minor,omitempty"`
	TotalMiB uint64 `json:"total_mib,omitempty"`
	FreeMiB  uint64 `json:"free_mib,omitempty"`
	Error    string `json:"error,omitempty"` // a per-device call that failed
}

//go:embed data/return_codes.json
var codesJSON []byte

var codeNames = func() map[int]string {
	var f struct {
		Codes []struct {
			Code int    `json:"code"`
			Name string `json:"name"`
		} `json:"codes"`
	}
	if err := json.Unmarshal(codesJSON, &f); err != nil {
		panic("nvmlnative: data/return_codes.json: " + err.Error())
	}
	m := map[int]string{}
	for _, c := range f.Codes {
		m[c.Code] = c.Name
	}
	return m
}()

// CodeName is the name of an NVML return code ("ERROR_DRIVER_NOT_LOADED"),
// "ok" for success.
func CodeName(code int) string {
	if code == 0 {
		return "ok"
	}
	if n, ok := codeNames[code]; ok {
		return n
	}
	return fmt.Sprintf("ERROR_CODE_%d", code)
}

func fail(r *Report, call string, code int) *Report {
	r.Status, r.Code, r.Call = CodeName(code), code, call
	return r
}
