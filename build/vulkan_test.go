package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/machine"
)

const privateVulkanHeaders = "/var/cache/llamactl-deps/vk-headers/root/usr/include" // scripts/deps.d/45-vulkan-headers.sh

func headersAt(t *testing.T, dir string) machine.VulkanHeaders {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "vulkan", "vulkan_core.h"))
	if err != nil {
		testutil.Missing(t, "no Vulkan headers in %s (scripts/deps.d/45-vulkan-headers.sh): %v", dir, err)
	}
	n, c := probe.ParseVulkanHeaderVersion(string(b))
	return machine.VulkanHeaders{IncludeDir: dir, Version: n, Complete: c}
}

func vulkanInput(t *testing.T, src string) plan.Input {
	in := input(t, src, "vulkan", plan.Selection{})
	in.Snapshot.Vulkan = machine.Vulkan{Glslc: "/usr/bin/glslc", SPIRVHeaders: true}
	return in
}

// The fixture compiles llama.cpp's VK_EXT_layer_settings construct against
// Debian 12's own headers (1.3.239) with the real compiler: build names
// vulkan-headers-too-old itself, and --heal retries with the newer headers
// found on the machine, which compile.
func TestBuildNamesVulkanHeadersTooOldAndHeals(t *testing.T) {
	need(t, "cmake", "ninja", "c++", "glslc")
	sys := headersAt(t, "/usr/include")
	if sys.Version >= 268 {
		// CI is Debian 12 (1.3.239): newer system headers there mean the
		// machine changed and this test no longer checks what it says
		testutil.Missing(t, "the system's Vulkan headers are %d, new enough to compile the construct", sys.Version)
	}
	sys.Origin = "system"
	src := fixtureSource(t)
	in := vulkanInput(t, src)
	in.CMakeArgs = []string{"FIXTURE_VULKAN_LAYER_SETTINGS=ON"}
	in.Snapshot.Vulkan.Headers = []machine.VulkanHeaders{sys}
	res, err := Run(context.Background(), deps(), in, Options{})
	if err == nil || res.Failed != "compile" || len(res.Diagnoses) == 0 || res.Diagnoses[0].ID != plan.VulkanHeadersFailure {
		t.Fatalf("err %v, failed %q, diagnoses %+v", err, res.Failed, res.Diagnoses)
	}
	if !strings.Contains(err.Error(), "cause: "+plan.VulkanHeadersFailure) {
		t.Errorf("error does not name the cause: %v", err)
	}
	if i := slices.IndexFunc(res.Steps, func(s Step) bool { return s.Name == "compile" }); i < 0 || !strings.Contains(res.Steps[i].Detail, plan.VulkanHeadersFailure) {
		t.Errorf("steps = %+v", res.Steps)
	}

	priv := headersAt(t, privateVulkanHeaders)
	priv.Origin = "private"
	in.Snapshot.Vulkan.Headers = []machine.VulkanHeaders{sys, priv}
	in.BuildDir = filepath.Join(t.TempDir(), "build")
	res, err = Run(context.Background(), deps(), in, Options{Heal: true})
	if err != nil {
		t.Fatalf("--heal: %v (diagnoses %+v)", err, res.Diagnoses)
	}
	if !slices.Contains(res.Healed, plan.VulkanHeadersID) || res.Attempts != 2 {
		t.Errorf("healed %v in %d attempts", res.Healed, res.Attempts)
	}
	if v, _ := cacheOf(res.Plan, "Vulkan_INCLUDE_DIR"); v != privateVulkanHeaders {
		t.Errorf("Vulkan_INCLUDE_DIR = %q", v)
	}
}

func cacheOf(p plan.Plan, name string) (string, bool) {
	for _, c := range p.Cache {
		if c.Name == name {
			return c.Value, true
		}
	}
	return "", false
}

// A compile error the knowledge base does not know: the build names the
// first compiler error with its file and line, not a bare exit code.
func TestBuildNamesFirstCompilerError(t *testing.T) {
	need(t, "cmake", "ninja", "c++", "glslc")
	src := fixtureSource(t)
	in := vulkanInput(t, src)
	in.CMakeArgs = []string{"FIXTURE_BROKEN_SOURCE=ON"}
	var passes [][]string
	res, err := Run(context.Background(), countingDeps(&passes), in, Options{})
	if err == nil || res.Failed != "compile" {
		t.Fatalf("err %v failed %q", err, res.Failed)
	}
	// Nothing diagnosed: --heal would change nothing, known from the one
	// plan (no second one for would_heal).
	if len(passes) != 1 || len(res.WouldHeal) != 0 {
		t.Errorf("%d plans, would heal %+v: want 1 plan and nothing", len(passes), res.WouldHeal)
	}
	// With --heal: nothing diagnosed, nothing to change, so no second plan
	// and no second attempt.
	passes = nil
	res, err = Run(context.Background(), countingDeps(&passes), in, Options{Heal: true})
	if err == nil || res.Failed != "compile" || res.Attempts != 1 || len(passes) != 1 || len(res.Fixes) != 0 {
		t.Errorf("--heal: err %v, failed %q, %d attempts, %d plans, fixes %+v", err, res.Failed, res.Attempts, len(passes), res.Fixes)
	}
	if len(res.Diagnoses) != 0 || res.FirstError == nil || !strings.HasSuffix(res.FirstError.File, "broken.c") || res.FirstError.Line != 3 || !strings.Contains(res.FirstError.Message, "undeclared_fixture_symbol") {
		t.Fatalf("diagnoses %+v first error %+v", res.Diagnoses, res.FirstError)
	}
	if !strings.Contains(err.Error(), "broken.c:3: ") {
		t.Errorf("error %v", err)
	}
}
