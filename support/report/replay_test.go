package report_test

import (
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/support/report"
)

// A report (folder or zip) must load with the loader `doctor --replay` uses.
func TestReplayableByDoctor(t *testing.T) {
	s := &machine.Snapshot{Schema: 1, OS: machine.OSInfo{GOOS: "windows", Arch: "amd64", Hostname: "BOX-1", User: "Ann Lee", HomeDir: `C:\Users\Ann Lee`},
		Toolkits: []machine.CUDAToolkit{{Version: "12.4.131", Root: `C:\Users\Ann Lee\cuda`, NVCC: `C:\Users\Ann Lee\cuda\bin\nvcc.exe`}},
		NVIDIA:   machine.NVIDIA{DriverVersion: "560.94", GPUs: []machine.GPU{{Name: "NVIDIA GeForce RTX 4090", ComputeCapability: "8.9", UUID: "GPU-11111111-2222-3333-4444-555555555555"}}}}
	env := map[string]string{"USERNAME": "Ann Lee", "COMPUTERNAME": "BOX-1"}
	dir := t.TempDir()
	for _, out := range []string{filepath.Join(dir, "folder"), filepath.Join(dir, "r.zip")} {
		if _, err := report.Write(report.Options{Path: out, Redact: true, Snapshot: s, Env: env, Doctor: map[string]any{"schema": 1}}); err != nil {
			t.Fatal(err)
		}
		in := out
		if filepath.Ext(out) != ".zip" {
			in = filepath.Join(out, "report.json")
		}
		got, err := machine.Load(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got.NVIDIA.GPUs[0].ComputeCapability != "8.9" || got.Toolkits[0].Version != "12.4.131" || got.OS.User != "<user>" || got.Toolkits[0].NVCC != `C:\Users\<user>\cuda\bin\nvcc.exe` {
			t.Errorf("%s: %+v", in, got)
		}
	}
}
