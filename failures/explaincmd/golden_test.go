package explaincmd_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/golden")

// The human output of explain, byte for byte, on a small set of logs
// chosen for what each shows of the renderer; -update rewrites
// testdata/golden (read the diff before committing it).
func TestGoldenExplainHuman(t *testing.T) {
	const logs = "../../testdata/logs/"
	cases := []struct {
		name  string
		args  []string
		stdin string
		color bool // stdout is a colour terminal
	}{
		// One certain error: excerpt, cause, the sentence of facts read
		// from the log, fix and its command.
		{"certain", []string{logs + "sample-win-cmake-test-nested-msvc.log"}, "", false},
		// Inferred from weak signals: "probably", the note and the evidence.
		{"probable", []string{logs + "ref-msvc-env-missing-ninja-llamacpppython-54.log"}, "", false},
		// Two findings, an error and a warning with its patch.
		{"several", []string{logs + "ref-openmp-dll-missing-libomp140-arm64-llamacpp-28291-win.log"}, "", false},
		// More than five lines: "and N more".
		{"many-lines", []string{logs + "here-vulkan-shaders-header-stale-real-tree.log"}, "", false},
		// Facts from the machine's snapshot in the finding.
		{"snapshot", []string{"--snapshot", logs + "snapshots/win-cuda122-msvc1940.json", logs + "ref-nvcc-unsupported-msvc-llamacpppython-1586.log"}, "", false},
		// Nothing recognised: the first lines that look like errors.
		{"none-errors", []string{logs + "ref-cuda-link-lnk1181-kernel-lib-mistralrs-653-win.log"}, "", false},
		// Nothing recognised and no error line, from standard input.
		{"none-clean", []string{"-"}, "-- Configuring done\n-- Generating done\n[1/2] Building CXX object a.o\n", false},
		{"zh-CN-certain", []string{"--lang", "zh-CN", logs + "here-cmake-nvcc118-gcc12.log"}, "", false},
		{"zh-CN-probable", []string{"--lang", "zh-CN", logs + "ref-msvc-env-missing-ninja-llamacpppython-54.log"}, "", false},
		// --verbose adds each finding's source.
		{"verbose", []string{"--verbose", logs + "here-rpc-worker-out-of-memory.log"}, "", false},
		// A colour terminal: marks and IDs styled.
		{"color", []string{logs + "ref-openmp-dll-missing-libomp140-arm64-llamacpp-28291-win.log"}, "", true},
		// --no-color (what NO_COLOR=1 sets) on that terminal: plain bytes,
		// the same as "several".
		{"no-color", []string{"--no-color", logs + "ref-openmp-dll-missing-libomp140-arm64-llamacpp-28291-win.log"}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, out, errOut := cmdutil.NewTest(nil, nil)
			f.IO.In = strings.NewReader(c.stdin)
			if c.color {
				f.IO.OutTTY, f.IO.NoColor = true, false
			}
			code := cli.Execute(f, append([]string{"explain"}, c.args...))
			got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errOut)
			testutil.Golden(t, filepath.Join("testdata", "golden", c.name+".txt"), got, *update,
				"go test ./failures/explaincmd -run GoldenExplainHuman -update")
		})
	}
	if !*update {
		// The two terminals differ only by colour.
		a, _ := os.ReadFile(filepath.Join("testdata", "golden", "several.txt"))
		b, _ := os.ReadFile(filepath.Join("testdata", "golden", "no-color.txt"))
		c, _ := os.ReadFile(filepath.Join("testdata", "golden", "color.txt"))
		if string(a) != string(b) || string(a) == string(c) || !strings.Contains(string(c), "\x1b[") {
			t.Error("--no-color on a terminal must print the plain bytes, colour must differ by escape codes only")
		}
	}
}
