package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llamactl/llamactl/internal/recorded"
)

// seedAll adds every recorded-output fixture (and a few hostile strings)
// as seeds: the parsers meet exactly this kind of text, plus garbage.
func seedAll(f *testing.F) {
	_ = filepath.WalkDir(fixturesDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(recorded.Body(string(b)))
			}
		}
		return nil
	})
	for _, s := range []string{"", "\x00\xff\xfe", "release 12.", "| 0 x | 0:0:0.0 |", "Number of platforms:", "GPU0:\n\tdeviceName = \n", "[{\"installationPath\": \"\\", strings.Repeat("=", 5000)} {
		f.Add(s)
	}
}

func FuzzParseVersions(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []string{ParseNvccVersion(s), ParseGCCVersion(s), ParseCMakeVersion(s), ParseNinjaVersion(s), ParseGitVersion(s), ParseLddVersion(s), ParseCcacheVersion(s), ParseClBanner(s).Version} {
			if v != "" && !strings.ContainsAny(v[:1], "0123456789") {
				t.Fatalf("version %q does not start with a digit", v)
			}
		}
		for _, a := range ParseListGPUArch(s) {
			if !strings.Contains(s, a) {
				t.Fatalf("arch %q not in input", a)
			}
		}
		ParseClangVersion(s)
		IsWSLKernel(s)
	})
}

func FuzzParseVswhere(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		insts, _ := ParseVswhere(s)
		for _, in := range insts {
			if in.Path == "" {
				t.Fatalf("instance without a path: %+v", in)
			}
		}
	})
}

func FuzzParseSMI(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		gpus, _ := ParseSMIQuery(s)
		for _, g := range gpus {
			if g.Index < 0 {
				t.Fatalf("negative index %+v", g)
			}
		}
		h := ParseSMITable(s)
		for _, g := range h.GPUs {
			if g.FreeMiB > g.TotalMiB {
				t.Fatalf("free > total: %+v", g)
			}
		}
	})
}

func FuzzParseClinfo(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range append(ParseClinfo(s), ParseClinfoList(s)...) {
			for _, d := range p.Devices {
				if !utf8.ValidString(d.Name) && utf8.ValidString(s) {
					t.Fatalf("invalid device name from valid input")
				}
			}
		}
	})
}

func FuzzParseVulkanAndLinux(f *testing.F) {
	seedAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range ParseVulkanSummary(s) {
			if d.Name == "" {
				t.Fatal("device without a name")
			}
		}
		ParseLdconfigLibs(s, "libcuda.so")
		ParseDpkgInstalled(s, []string{"nvidia-"})
		ParseROCmGFX(s)
		ParseOSRelease(s)
	})
}

// FuzzMemFS checks the recorded file tree never panics on odd paths.
func FuzzMemFS(f *testing.F) {
	f.Add("windows", `C:\a\b.txt`, `c:\A`)
	f.Add("linux", "/usr/local/cuda/bin/nvcc", "/usr/local")
	f.Add("windows", `\\server\share\x`, `C:`)
	f.Fuzz(func(t *testing.T, goos, file, dir string) {
		m := NewMemFS(goos, map[string]string{file: "x"})
		m.AddLink(dir, file)
		_, _ = m.ReadFile(file)
		_, _ = m.ReadDir(dir)
		_, _ = m.Stat(dir)
		_, _ = m.Realpath(dir)
		globDir(m, goos, dir, "*")
		splitPathList(goos, file+";"+dir+":"+dir)
		joinPath(goos, dir, file)
	})
}
