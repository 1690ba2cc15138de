package paths

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new", "hashes.json")
	for _, data := range []string{"first\n", "second\n"} {
		if err := WriteFileAtomic(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != data {
			t.Fatalf("read back %q %v, want %q", b, err, data)
		}
	}
	// A folder where the file should be: an error, and no temporary file left.
	if err := os.Mkdir(filepath.Join(dir, "new", "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "new", "taken"), []byte("x")); err == nil {
		t.Error("writing over a folder succeeded")
	}
	if es, _ := os.ReadDir(filepath.Join(dir, "new")); len(es) != 2 {
		t.Errorf("folder holds %d entries, want hashes.json and taken (no temporary files)", len(es))
	}
}
