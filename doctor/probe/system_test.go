package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/llamactl/llamactl/doctor/probe/nvmlnative"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

// TestMain lets the test binary stand in for llamactl as the NVML child:
// Gather runs `<self> __probe nvml`.
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == "__probe" && os.Args[2] == "nvml" {
		b, _ := json.Marshal(nvmlnative.Query())
		fmt.Println(string(b))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func systemDeps(t testing.TB) Deps {
	f := cmdutil.New()
	d := System(f)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	d.Self = self
	return d
}

func TestDumpThisMachine(t *testing.T) {
	if os.Getenv("PROBE_DUMP") == "" {
		t.Skip("set PROBE_DUMP=1 to print this machine's snapshot")
	}
	s := Gather(context.Background(), systemDeps(t))
	b, _ := json.MarshalIndent(s, "", "  ")
	t.Log(string(b))
}

// TestRecordThisMachine writes this machine as a scenario:
// PROBE_RECORD=$PWD/testdata/doctor/recordings/linux-ci-debian-bookworm go test -run TestRecordThisMachine ./doctor/probe/
func TestRecordThisMachine(t *testing.T) {
	dir := os.Getenv("PROBE_RECORD")
	if dir == "" {
		t.Skip("set PROBE_RECORD=DIR to record this machine as a scenario")
	}
	d, rec := Record(systemDeps(t))
	Gather(context.Background(), d)
	if err := rec.WriteScenario(dir, os.Getenv("PROBE_RECORD_DESCRIPTION")); err != nil {
		t.Fatal(err)
	}
}
