package shellquote

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// What Sh quotes comes back unchanged through a real sh.
func TestShRoundTrip(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	args := []string{"plain", "with space", "it's", `dq"`, "$HOME", "a;b", "", "*", "new\nline", "back\\slash"}
	script := "for a in " + strings.Join(func() []string {
		var q []string
		for _, a := range args {
			q = append(q, Sh(a))
		}
		return q
	}(), " ") + `; do printf '%s\0' "$a"; done`
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Join(got, "|") != strings.Join(args, "|") {
		t.Errorf("got %q, want %q", got, args)
	}
}

func TestLine(t *testing.T) {
	if got := Line("linux", "llama-server", "-m", "/m/my model.gguf"); got != "llama-server -m '/m/my model.gguf'" {
		t.Errorf("%s", got)
	}
	if got := Line("windows", `C:\Program Files\x\llama-server.exe`, "-m", `C:\m\it's.gguf`); got != `& 'C:\Program Files\x\llama-server.exe' -m 'C:\m\it''s.gguf'` {
		t.Errorf("%s", got)
	}
}
