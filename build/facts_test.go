package build

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/llamactl/llamactl/internal/proc"
)

func TestInspectFolder(t *testing.T) {
	dir := t.TempDir()
	if f := InspectFolder(dir, proc.Exec{}, nil); f != nil {
		t.Fatalf("a folder without CMakeCache.txt: %+v", f)
	}
	cache := "# This is the CMakeCache file.\n" +
		"//Enable CUDA\nGGML_CUDA:BOOL=ON\n" +
		"LLAMA_CUBLAS:UNINITIALIZED=ON\n" +
		"CMAKE_GENERATOR:INTERNAL=Unix Makefiles\n" +
		"CMAKE_HOME_DIRECTORY:INTERNAL=/src/llama.cpp\n" +
		"CMAKE_CACHEFILE_DIR:INTERNAL=/old/build\n" +
		"GGML_CUDA_ADVANCED:INTERNAL=1\n"
	if err := os.WriteFile(filepath.Join(dir, "CMakeCache.txt"), []byte(cache), 0o644); err != nil {
		t.Fatal(err)
	}
	f := InspectFolder(dir, proc.Exec{}, nil)
	if f == nil || f.Ours {
		t.Fatalf("folder = %+v", f)
	}
	for k, v := range map[string]string{"GGML_CUDA": "ON", "LLAMA_CUBLAS": "ON", "CMAKE_GENERATOR": "Unix Makefiles", "CMAKE_HOME_DIRECTORY": "/src/llama.cpp", "CMAKE_CACHEFILE_DIR": "/old/build"} {
		if f.Cache[k] != v {
			t.Errorf("%s = %q, want %q", k, f.Cache[k], v)
		}
	}
	if _, ok := f.Cache["GGML_CUDA_ADVANCED"]; ok {
		t.Errorf("an INTERNAL entry was read")
	}
	if err := writeStamp(dir, stampFile{Plan: "x"}); err != nil {
		t.Fatal(err)
	}
	if f = InspectFolder(dir, proc.Exec{}, nil); !f.Ours {
		t.Errorf("llamactl's stamp not seen")
	}
}

func TestFindNinjaOffPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the Linux places")
	}
	home, bin := t.TempDir(), t.TempDir()
	local := filepath.Join(home, ".local", "bin", "ninja")
	os.MkdirAll(filepath.Dir(local), 0o755)
	if err := os.WriteFile(local, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	n := FindNinja([]string{"PATH=" + bin, "HOME=" + home}, nil)
	if !n.Checked || n.OnPath != "" || len(n.Elsewhere) == 0 || n.Elsewhere[0] != local {
		t.Fatalf("ninja = %+v", n)
	}
	if err := os.WriteFile(filepath.Join(bin, "ninja"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if n = FindNinja([]string{"PATH=" + bin, "HOME=" + home}, nil); n.OnPath != filepath.Join(bin, "ninja") || len(n.Elsewhere) != 0 {
		t.Errorf("ninja on PATH = %+v", n)
	}
}
