package probe

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

// smiQueryFields is the --query-gpu list doctor asks for; ParseSMIQuery
// reads the columns in this order.
var smiQueryFields = []string{"index", "name", "uuid", "pci.bus_id", "driver_version", "memory.total", "memory.free", "compute_cap"}

// SMIQueryArgs are nvidia-smi's arguments for the CSV query.
func SMIQueryArgs() []string {
	return []string{"--query-gpu=" + strings.Join(smiQueryFields, ","), "--format=csv,noheader,nounits"}
}

// ParseSMIQuery reads `nvidia-smi --query-gpu=<smiQueryFields>
// --format=csv,noheader,nounits`. Lines that do not have every field (an
// error message, "Field "compute_cap" is not a valid field to query" on
// old drivers) are skipped; the driver version comes from the first GPU.
func ParseSMIQuery(out string) (gpus []machine.GPU, driver string) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) != len(smiQueryFields) {
			continue
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		idx, err := strconv.Atoi(f[0])
		if err != nil || idx < 0 {
			continue
		}
		g := machine.GPU{Index: idx, Name: f[1], UUID: na(f[2]), PCIBusID: na(f[3]), Vendor: "nvidia"}
		g.TotalMiB, _ = strconv.ParseUint(f[5], 10, 64)
		g.FreeMiB, _ = strconv.ParseUint(f[6], 10, 64)
		if cc := na(f[7]); reCC.MatchString(cc) {
			g.ComputeCapability = cc
		}
		if driver == "" {
			driver = na(f[4])
		}
		gpus = append(gpus, g)
	}
	return gpus, driver
}

func na(s string) string {
	switch s {
	case "[N/A]", "N/A", "[Not Supported]", "[Unknown Error]":
		return ""
	}
	return s
}

// SMIHeader is what plain `nvidia-smi` prints in its table.
type SMIHeader struct {
	Driver string // "560.94"; R610+ prints "KMD Version"
	CUDA   string // "12.6"; "ERR!" in a broken WSL2 stack; R610+ "CUDA UMD Version"
	GPUs   []machine.GPU
	// Failed is nvidia-smi's own failure line ("NVIDIA-SMI has failed
	// because it couldn't communicate with the NVIDIA driver...").
	Failed string
}

var (
	reCC        = regexp.MustCompile(`^\d+\.\d+$`)
	reSMIDriver = regexp.MustCompile(`(?:Driver|KMD) Version:\s*([0-9][0-9.]*)`)
	reSMICUDA   = regexp.MustCompile(`CUDA (?:UMD )?Version:\s*([0-9][0-9.]*|ERR!|N/A)`)
	// "|   0  NVIDIA GeForce RTX 4060      WDDM  |   00000000:03:00.0  On |"
	reSMIRow = regexp.MustCompile(`^\|\s+(\d+)\s+(.+?)\s+(?:WDDM|TCC|On|Off|N/A)?\s*\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])`)
	reSMIMem = regexp.MustCompile(`(\d+)MiB\s*/\s*(\d+)MiB`)
)

// SMICUDAStatus is the snapshot's cuda_driver_api_status for the header's
// "CUDA Version" value: "err" for "ERR!", "n/a" for "N/A", "" for a version.
func SMICUDAStatus(v string) string {
	switch v {
	case "ERR!":
		return "err"
	case "N/A":
		return "n/a"
	}
	return ""
}

// ParseSMITable reads the header and GPU rows of plain `nvidia-smi`. Names
// in the table are truncated ("NVIDIA GeForce RTX 2080 ..."); the query
// CSV, when available, has the full names.
func ParseSMITable(out string) SMIHeader {
	var h SMIHeader
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		line = strings.TrimRight(line, "\r")
		if h.Driver == "" {
			if m := reSMIDriver.FindStringSubmatch(line); m != nil {
				h.Driver = m[1]
			}
		}
		if h.CUDA == "" {
			if m := reSMICUDA.FindStringSubmatch(line); m != nil {
				h.CUDA = m[1]
			}
		}
		if h.Failed == "" && strings.Contains(line, "NVIDIA-SMI has failed") {
			h.Failed = strings.TrimSpace(line)
		}
		m := reSMIRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		idx, _ := strconv.Atoi(m[1])
		g := machine.GPU{Index: idx, Name: strings.TrimSpace(m[2]), PCIBusID: m[3], Vendor: "nvidia"}
		if i+1 < len(lines) {
			if mm := reSMIMem.FindStringSubmatch(lines[i+1]); mm != nil {
				used, _ := strconv.ParseUint(mm[1], 10, 64)
				g.TotalMiB, _ = strconv.ParseUint(mm[2], 10, 64)
				if g.TotalMiB >= used {
					g.FreeMiB = g.TotalMiB - used
				}
			}
		}
		h.GPUs = append(h.GPUs, g)
	}
	return h
}
