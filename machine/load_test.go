package machine

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

const sample = "../testdata/doctor/snapshots/linux-ci-debian-nvcc11.8-gcc12.json"

func utf16With(s string, little bool) []byte {
	var b bytes.Buffer
	if little {
		b.Write([]byte{0xFF, 0xFE})
	} else {
		b.Write([]byte{0xFE, 0xFF})
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if little {
			b.Write([]byte{byte(u), byte(u >> 8)})
		} else {
			b.Write([]byte{byte(u >> 8), byte(u)})
		}
	}
	return b.Bytes()
}

func zipOf(t *testing.T, name string, body []byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every form a user hands over loads to the same snapshot.
func TestLoadForms(t *testing.T) {
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse(raw, sample)
	if err != nil {
		t.Fatal(err)
	}
	if raw, err = json.Marshal(want); err != nil { // the bare snapshot
		t.Fatal(err)
	}
	doc := `{"schema":1,"checks":[],"snapshot":` + string(raw) + `}`
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("folder/report.json", []byte(doc))
	cases := map[string]string{
		"bare":          write("bare.json", raw),
		"doctor --json": write("doctor.json", []byte(doc)),
		"report folder": filepath.Join(dir, "folder"),
		"report zip":    write("r.zip", zipOf(t, "llamactl-report/report.json", []byte(doc))),
		"utf-8 bom":     write("bom.json", append([]byte{0xEF, 0xBB, 0xBF}, raw...)),
		"utf-16le bom":  write("le.json", utf16With(doc, true)),
		"utf-16be bom":  write("be.json", utf16With(string(raw), false)),
		"zip utf-16":    write("w.zip", zipOf(t, "snapshot.json", utf16With(string(raw), true))),
	}
	for name, p := range cases {
		got, err := Load(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) || len(got.Toolkits) != len(want.Toolkits) || got.NVIDIA.DriverVersion != want.NVIDIA.DriverVersion {
			t.Errorf("%s: got %+v", name, got.OS)
		}
	}
}

// Bad input is a *LoadError whose message says what is wrong and what to do.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	cases := map[string]struct {
		path, want string
		hint       bool
	}{
		"missing":      {filepath.Join(dir, "nope.json"), "cannot read", true},
		"not json":     {write("a.json", "hello"), "is not a snapshot (invalid JSON", true},
		"no os":        {write("b.json", `{"schema":1}`), `not a llamactl snapshot (no "os" field)`, true},
		"bad inner":    {write("c.json", `{"snapshot":{"os":1}}`), "is not a valid snapshot", true},
		"newer":        {write("d.json", `{"schema":99,"os":{}}`), "update llamactl", false},
		"empty zip":    {write("e.zip", string(zipOf(t, "other.txt", []byte("x")))), "the zip holds no snapshot.json", true},
		"empty folder": {dir + string(os.PathSeparator) + "sub", "cannot read", true},
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for name, c := range cases {
		_, err := Load(c.path)
		var le *LoadError
		if !errors.As(err, &le) {
			t.Errorf("%s: %v is not a *LoadError", name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), LoadHint) != c.hint {
			t.Errorf("%s: %q", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	raw, err := os.ReadFile(sample)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add(utf16With(string(raw), true))
	f.Add([]byte(`{"snapshot":{"os":{"goos":"windows"}}}`))
	f.Add([]byte("\xff\xfe{\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b, "fuzz")
		var le *LoadError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("not a *LoadError: %v", err)
		}
		if err == nil && s == nil {
			t.Fatal("nil snapshot without error")
		}
	})
}
