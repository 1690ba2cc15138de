package report

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Raw outputs keep '+' in their names (g++-11 stays g++-11) and every name
// is unique, also under case folding and the 80-character cut.
func TestRawNamesKeepPlusAndStayUnique(t *testing.T) {
	long := strings.Repeat("x", 90)
	s := windowsSnapshot()
	s.Raw = map[string]string{
		"/usr/bin/g++-11 --version": "g++-11 (Debian 11.3.0-12) 11.3.0\n",
		"g++ --version":             "g++ (Debian 12.2.0-14) 12.2.0\n",
		"a b":                       "1\n",
		"a_b":                       "2\n",
		"A_B":                       "3\n",
		"a_b-2":                     "4\n",
		long + " one":               "5\n",
		long + " two":               "6\n",
	}
	o := options(t, filepath.Join(t.TempDir(), "r.zip"), true)
	o.Snapshot = s
	res, err := Write(o)
	if err != nil {
		t.Fatal(err)
	}
	files := readZip(t, o.Path)
	for _, want := range []string{"raw/usr_bin_g++-11_--version.txt", "raw/g++_--version.txt"} {
		if files[want] == "" {
			t.Errorf("zip lacks %s: %v", want, keys(files))
		}
	}
	if len(files) != 2+len(s.Raw) {
		t.Errorf("%d files for %d outputs: %v", len(files), len(s.Raw), keys(files))
	}
	folded := map[string]bool{}
	cmds := map[string]bool{}
	for name, body := range files {
		if folded[strings.ToLower(name)] {
			t.Errorf("%s collides with another name under case folding", name)
		}
		folded[strings.ToLower(name)] = true
		if strings.HasPrefix(name, "raw/") {
			cmd, _, _ := strings.Cut(strings.TrimPrefix(body, "$ "), "\n")
			cmds[cmd] = true
		}
		if !slices.Contains(res.Files, name) {
			t.Errorf("Result.Files %v lacks %s, which is in the zip", res.Files, name)
		}
	}
	for c := range s.Raw {
		if !cmds[c] {
			t.Errorf("the output of %q is missing from the zip", c)
		}
	}
}
