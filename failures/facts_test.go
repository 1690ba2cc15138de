package failures

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

func loadSnap(t *testing.T, name string) *machine.Snapshot {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, "snapshots", name))
	if err != nil {
		t.Fatal(err)
	}
	var s machine.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func TestFactsFromSnapshot(t *testing.T) {
	kb := Default()
	d := kb.DiagnoseString(logBody(t, filepath.Join(corpusDir, "ref-nvcc-unsupported-msvc-llamacpppython-1586.log")))
	d = kb.WithSnapshot(d, loadSnap(t, "win-cuda122-msvc1940.json"))
	if len(d.Findings) != 1 {
		t.Fatalf("%+v", d.Findings)
	}
	got := kb.FactSentence(d.Findings[0].Facts)
	if got != "Your nvcc is 12.2.140 and your MSVC is 19.40.33811, which is why." {
		t.Errorf("sentence %q", got)
	}
	// Without a snapshot there are no machine facts.
	if f := kb.WithSnapshot(kb.DiagnoseString(logBody(t, filepath.Join(corpusDir, "ref-nvcc-unsupported-msvc-llamacpppython-1586.log"))), nil).Findings[0].Facts; len(f) != 0 {
		t.Errorf("facts without snapshot: %v", f)
	}
}

func TestDeriveNoDeviceOnIntelOnlyLaptop(t *testing.T) {
	kb := Default()
	d := kb.DiagnoseString(logBody(t, filepath.Join(corpusDir, "ref-cuda-no-device-intel-only-lora-scripts-101.log")))
	if d.Findings[0].ID != "cuda-driver-too-old" {
		t.Fatalf("%+v", d.Findings)
	}
	d = kb.WithSnapshot(d, loadSnap(t, "win-intel-only.json"))
	if len(d.Findings) != 1 || d.Findings[0].ID != "cuda-no-device" || d.Findings[0].Lines[0] != 2 {
		t.Errorf("%+v", d.Findings)
	}
	// A machine with an NVIDIA driver keeps the log's reading.
	d = kb.WithSnapshot(kb.DiagnoseString(logBody(t, filepath.Join(corpusDir, "ref-cuda-no-device-intel-only-lora-scripts-101.log"))), loadSnap(t, "win-cuda122-msvc1940.json"))
	if d.Findings[0].ID != "cuda-driver-too-old" || !strings.Contains(strings.Join(d.Findings[0].Facts, ";"), "driver is 555.99") {
		t.Errorf("%+v", d.Findings)
	}
}

func TestDeriveWSLShadowing(t *testing.T) {
	kb := Default()
	d := kb.DiagnoseString(logBody(t, filepath.Join(corpusDir, "ref-wsl-linux-driver-shadowing-genesis-114.log")))
	d = kb.WithSnapshot(d, loadSnap(t, "wsl2-linux-driver.json"))
	if len(d.Findings) != 1 || d.Findings[0].ID != "wsl-linux-driver-shadowing" {
		t.Fatalf("%+v", d.Findings)
	}
	if !strings.Contains(strings.Join(d.Findings[0].Facts, ";"), "/usr/lib/x86_64-linux-gnu/libcuda.so.1") {
		t.Errorf("facts %v", d.Findings[0].Facts)
	}
	if !strings.Contains(d.Findings[0].Excerpt, "CUDA_ERROR_NO_DEVICE") {
		t.Errorf("excerpt lost: %q", d.Findings[0].Excerpt)
	}
}

func TestLogFactsFromLocalizedBanner(t *testing.T) {
	kb := Default()
	log := "用于 x64 的 Microsoft (R) C/C++ 优化编译器 19.16.27048 版\n" +
		"Cuda compilation tools, release 12.2, V12.2.140\n" +
		`C:\cuda\include\crt/host_config.h(164): 致命错误 C1189: #error:  -- unsupported Microsoft Visual Studio version!` + "\n"
	d := kb.DiagnoseString(log)
	if len(d.Findings) != 1 || d.Findings[0].ID != "nvcc-unsupported-msvc" {
		t.Fatalf("%+v", d.Findings)
	}
	got := kb.FactSentence(d.Findings[0].Facts)
	if got != "The log shows nvcc 12.2.140 and the log shows MSVC 19.16.27048, which is why." {
		t.Errorf("%q", got)
	}
	d = kb.DiagnoseString("Microsoft (R) C/C++ Optimizing Compiler Version 19.41.34123 for x64\n" + log[len("用于 x64 的 Microsoft (R) C/C++ 优化编译器 19.16.27048 版\n"):])
	if f := strings.Join(d.Findings[0].Facts, ";"); !strings.Contains(f, "MSVC 19.41.34123") {
		t.Errorf("%q", f)
	}
}
