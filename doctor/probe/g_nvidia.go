package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llamactl/llamactl/doctor/probe/nvmlnative"
	"github.com/llamactl/llamactl/machine"
)

// NVML statuses set by the parent when the child gave no NVML answer.
const (
	NVMLNotProbed    = "NOT_PROBED"    // no child available (replayed recording without NVML)
	NVMLChildTimeout = "CHILD_TIMEOUT" // the child hung past its deadline
	NVMLChildCrashed = "CHILD_CRASHED" // the child died (non-zero exit, signal)
	NVMLChildGarbage = "CHILD_BAD_OUTPUT"
)

// nvidia-smi statuses.
const (
	SMIOK       = "ok"
	SMINotFound = "not-found"
	SMIFailed   = "failed"
	SMITimeout  = "timeout"
)

func gatherNVIDIA(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	var n machine.NVIDIA
	rep := nvmlChild(ctx, g, &n)

	// nvidia-smi: fallback and cross-check.
	var smiGPUs []machine.GPU
	smi := nvidiaSMIPath(g)
	if smi == "" {
		n.SMIStatus = SMINotFound
	} else {
		res, out, ok := g.run(ctx, smi, SMIQueryArgs()...)
		switch {
		case res.TimedOut:
			n.SMIStatus = SMITimeout
		case ok && res.ExitCode == 0:
			gpus, drv := ParseSMIQuery(string(res.Stdout))
			smiGPUs, n.SMIDriverVersion = gpus, drv
			n.SMIStatus = SMIOK
		}
		if !res.TimedOut {
			res2, out2, ok2 := g.run(ctx, smi)
			if ok2 {
				h := ParseSMITable(out2)
				if n.SMIDriverVersion == "" {
					n.SMIDriverVersion = h.Driver
				}
				switch st := SMICUDAStatus(h.CUDA); {
				case st != "":
					// Not a version: record why, whatever NVML said (ERR! is a signature).
					n.CUDADriverAPIStatus = st
				case h.CUDA != "" && (rep == nil || rep.CUDADriverVersion == 0):
					n.CUDADriverAPI = h.CUDA
				}
				if len(smiGPUs) == 0 {
					smiGPUs = h.GPUs
				}
				switch {
				case res2.ExitCode != 0 || h.Failed != "":
					n.SMIStatus = SMIFailed
					if h.Failed != "" {
						g.errorf("nvidia-smi: %s", h.Failed)
					} else {
						g.errorf("nvidia-smi exited with %d: %s", res2.ExitCode, firstLine(out2))
					}
				case h.Driver != "" || len(h.GPUs) > 0:
					n.SMIStatus = SMIOK
				}
			} else if res2.TimedOut {
				n.SMIStatus = SMITimeout
			}
			if n.SMIStatus == "" {
				n.SMIStatus = SMIFailed
				if strings.TrimSpace(out) != "" {
					g.errorf("nvidia-smi: %s", firstLine(out))
				}
			}
		}
	}
	if len(n.GPUs) == 0 {
		n.GPUs = smiGPUs
	} else {
		fillFromSMI(n.GPUs, smiGPUs)
	}
	if n.DriverVersion == "" && n.NVMLStatus != "ok" {
		// Only nvidia-smi answered; doctor reads DriverVersion for the driver.
		n.DriverVersion = n.SMIDriverVersion
	}
	return func(s *machine.Snapshot) { s.NVIDIA = n }
}

// nvmlChild runs `llamactl __probe nvml` and fills n from its JSON.
func nvmlChild(ctx context.Context, g *gctx, n *machine.NVIDIA) *nvmlnative.Report {
	if g.d.Self == "" {
		n.NVMLStatus = NVMLNotProbed
		return nil
	}
	res, out, ok := g.run(ctx, g.d.Self, "__probe", "nvml")
	if res.TimedOut {
		n.NVMLStatus = NVMLChildTimeout
		return nil
	}
	if !ok {
		n.NVMLStatus = NVMLChildCrashed
		return nil
	}
	var rep nvmlnative.Report
	if err := json.Unmarshal(res.Stdout, &rep); err != nil || rep.Status == "" {
		if res.ExitCode != 0 {
			n.NVMLStatus = NVMLChildCrashed
			g.errorf("NVML child probe exited with %d: %s", res.ExitCode, truncate(firstLine(out), 300))
		} else {
			n.NVMLStatus = NVMLChildGarbage
			g.errorf("NVML child probe printed something that is not its JSON report: %q", truncate(firstLine(out), 200))
		}
		return nil
	}
	n.NVMLStatus = rep.Status
	n.NVMLLibrary = rep.Library
	if rep.Error != "" {
		g.errorf("NVML: %s", rep.Error)
	}
	n.DriverVersion = rep.DriverVersion
	if rep.CUDADriverVersion > 0 {
		n.CUDADriverAPI = fmt.Sprintf("%d.%d", rep.CUDADriverVersion/1000, (rep.CUDADriverVersion%1000)/10)
	}
	for _, d := range rep.GPUs {
		gpu := machine.GPU{Index: d.Index, Name: d.Name, UUID: d.UUID, PCIBusID: d.PCIBusID, TotalMiB: d.TotalMiB, FreeMiB: d.FreeMiB, Vendor: "nvidia"}
		if d.CCMajor > 0 {
			gpu.ComputeCapability = fmt.Sprintf("%d.%d", d.CCMajor, d.CCMinor)
		}
		n.GPUs = append(n.GPUs, gpu)
	}
	return &rep
}

// fillFromSMI completes NVML's GPUs with what nvidia-smi knew (by PCI bus id).
func fillFromSMI(gpus, smi []machine.GPU) {
	for i := range gpus {
		for _, s := range smi {
			if gpus[i].PCIBusID == "" || !strings.EqualFold(normBus(gpus[i].PCIBusID), normBus(s.PCIBusID)) {
				continue
			}
			if gpus[i].ComputeCapability == "" {
				gpus[i].ComputeCapability = s.ComputeCapability
			}
			if gpus[i].UUID == "" {
				gpus[i].UUID = s.UUID
			}
		}
	}
}

// normBus folds NVML's "00000000:01:00.0" and nvidia-smi's forms together.
func normBus(b string) string {
	b = strings.ToLower(b)
	if i := strings.Index(b, ":"); i > 4 {
		b = b[i-4:]
	}
	return b
}

// nvidiaSMIPath is nvidia-smi as doctor would run it: first on PATH, else
// where the driver installs it (System32 on DCH drivers, /usr/lib/wsl/lib in
// WSL).
func nvidiaSMIPath(g *gctx) string {
	for _, h := range g.base.Tools["nvidia-smi"] {
		// In WSL a Windows nvidia-smi.exe on /mnt/c is a hit too; ask the Linux one.
		if isWin(g.goos()) || !strings.HasSuffix(strings.ToLower(h.Path), ".exe") {
			return h.Path
		}
	}
	var cands []string
	if isWin(g.goos()) {
		cands = []string{joinPath("windows", systemDir(g.d), "nvidia-smi.exe"), `C:\Program Files\NVIDIA Corporation\NVSMI\nvidia-smi.exe`}
	} else {
		cands = []string{joinPath("linux", facts.WSL.LibDir, "nvidia-smi")}
	}
	for _, c := range cands {
		if isFile(g.d.FS, c) {
			return c
		}
	}
	return ""
}

// systemDir is %SystemRoot%\System32.
func systemDir(d *Deps) string {
	root := lookupEnv(d, "SystemRoot")
	if root == "" {
		root = lookupEnv(d, "WINDIR")
	}
	if root == "" {
		root = `C:\Windows`
	}
	return joinPath("windows", root, "System32")
}
