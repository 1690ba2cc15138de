package opencl

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

// pocl reports whether the PoCL ICD that scripts/deps.sh installs is here.
func havePoCL(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/etc/OpenCL/vendors/pocl.icd"); err != nil {
		testutil.Missing(t, "PoCL OpenCL ICD not installed (/etc/OpenCL/vendors/pocl.icd); scripts/deps.sh installs it")
	}
	if os.Getenv("OCL_ICD_VENDORS") != "" {
		t.Skip("OCL_ICD_VENDORS is set; this test needs the system ICD list")
	}
}

// TestRunPoCL builds, runs and verifies the kernel on PoCL's CPU device
// through the real ICD loader.
func TestRunPoCL(t *testing.T) {
	havePoCL(t)
	rep := Run()
	if rep.Status != StatusOK {
		t.Fatalf("status %q: %s", rep.Status, rep.Error)
	}
	if rep.Loader != "libOpenCL.so.1" {
		t.Errorf("loader %q", rep.Loader)
	}
	var found bool
	for _, p := range rep.Platforms {
		if p.Name != "Portable Computing Language" {
			continue
		}
		for _, d := range p.Devices {
			found = true
			if d.Type != "CPU" {
				t.Errorf("PoCL device type %q, want CPU", d.Type)
			}
			if !strings.HasPrefix(d.OpenCLCVersion, "OpenCL C ") {
				t.Errorf("OpenCL C version %q", d.OpenCLCVersion)
			}
			if !d.Build.OK || !d.Run.OK || !d.Verify.OK {
				t.Errorf("device %q: build %+v run %+v verify %+v", d.Name, d.Build, d.Run, d.Verify)
			}
			if d.GlobalMemMiB == 0 {
				t.Errorf("no global memory size")
			}
		}
	}
	if !found {
		t.Fatalf("no PoCL device in %+v", rep)
	}
}

func TestTypeName(t *testing.T) {
	for in, want := range map[uint64]string{4: "GPU", 2: "CPU", 8: "ACCELERATOR", 5: "GPU|DEFAULT", 0: "UNKNOWN"} {
		if got := TypeName(in); got != want {
			t.Errorf("TypeName(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestCString(t *testing.T) {
	if got := cString([]byte("  Intel(R) Arc(TM) A770 Graphics \x00junk")); got != "Intel(R) Arc(TM) A770 Graphics" {
		t.Errorf("cString = %q", got)
	}
}

// The loader is only ever used in a child; make sure the test binary itself
// links without libOpenCL (dlopen, not -lOpenCL) so llamactl starts on
// machines that have no OpenCL at all.
func TestNoLinkTimeOpenCL(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	out, err := exec.Command("ldd", exe).CombinedOutput()
	if err != nil {
		t.Skipf("ldd: %v", err)
	}
	if strings.Contains(string(out), "libOpenCL") {
		t.Errorf("binary links libOpenCL at load time:\n%s", out)
	}
}

// TestBuildFailureLog: a kernel that does not compile comes back as a build
// failure carrying the compiler's log, and the later stages are skipped.
func TestBuildFailureLog(t *testing.T) {
	havePoCL(t)
	l, _, err := openLoader()
	if err != nil {
		t.Skip(err)
	}
	defer l.close()
	rep := probe(l, "__kernel void vadd(__global float *a) { a[0] = undefined_symbol; }")
	if rep.Status != StatusOK || len(rep.Platforms) == 0 || len(rep.Platforms[0].Devices) == 0 {
		t.Fatalf("no device: %+v", rep)
	}
	d := rep.Platforms[0].Devices[0]
	if d.Build.OK || d.Build.Code != clBuildProgramFail {
		t.Errorf("build = %+v, want CL_BUILD_PROGRAM_FAILURE", d.Build)
	}
	if !strings.Contains(d.Build.Log, "undefined_symbol") {
		t.Errorf("build log does not name the error: %q", d.Build.Log)
	}
	if !d.Run.Skipped || !d.Verify.Skipped {
		t.Errorf("run/verify not skipped: %+v %+v", d.Run, d.Verify)
	}
}
