package releasecheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// install.ps1 cannot run here (no PowerShell), so its contract with the
// release is checked as text: both installers and `version --check` use the
// same default base, the same environment variables and the same archive
// names, and both refuse to install on a checksum mismatch. install.sh
// itself runs for real in scripts/stages/30-release.sh.
func TestInstallersAgree(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sh, ps := read("install.sh"), read("install.ps1")
	for name, s := range map[string]string{"install.sh": sh, "install.ps1": ps} {
		for _, want := range []string{DefaultBase, BaseEnv, "LLAMACTL_INSTALL_DIR", "checksums.txt", "checksum mismatch", "nothing was installed", "Next: llamactl doctor", "llamactl_[0-9][0-9A-Za-z.+~-]*_"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	// The archive pattern both installers match is the one ParseArchiveName reads.
	if !strings.Contains(archiveRE.String(), "[0-9][0-9A-Za-z.+~-]*") {
		t.Errorf("archive pattern %s and the installers' pattern differ", archiveRE)
	}
	// iex runs install.ps1 in the user's own session: it must never exit.
	if regexp.MustCompile(`(?im)^\s*exit\b|\bexit\s+\d`).MatchString(ps) {
		t.Error("install.ps1 calls exit, which would close the user's PowerShell window")
	}
	if !strings.Contains(ps, `Join-Path $env:LOCALAPPDATA 'Programs\llamactl'`) || !strings.Contains(ps, "SetValue('Path', $newPath, 'ExpandString')") {
		t.Error("install.ps1 does not install into %LOCALAPPDATA%\\Programs\\llamactl and the user's PATH")
	}
	// install.sh runs only when fully downloaded: everything is inside main,
	// called on the last line.
	lines := strings.Split(strings.TrimSpace(sh), "\n")
	if lines[len(lines)-1] != `main "$@"` {
		t.Errorf("install.sh ends with %q, want main \"$@\"", lines[len(lines)-1])
	}
	if got := InstallCommand("windows"); !strings.Contains(read("README.md"), got) {
		t.Errorf("README lacks the Windows one-liner %q", got)
	}
	if got := InstallCommand("linux"); !strings.Contains(read("README.md"), got) {
		t.Errorf("README lacks the Linux one-liner %q", got)
	}
}
