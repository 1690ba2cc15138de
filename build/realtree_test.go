package build

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/testutil"
)

// The real llama.cpp tree built by scripts/stages/40-real-engines.sh
// (llamactl build --source COPY --backend cpu --rpc --target
// llama-server,rpc-server --out DIR): its manifest.json lists exactly the
// files in DIR, with their sizes and hashes, the links as links, and the
// RPC worker.
func TestRealTreeManifest(t *testing.T) {
	testutil.RealEngines(t)
	out := os.Getenv("LLAMACTL_REAL_TREE_OUT")
	if out == "" {
		testutil.Missing(t, "LLAMACTL_REAL_TREE_OUT is not set: the stage sets it to the --out folder of the real-tree build")
	}
	b, err := os.ReadFile(filepath.Join(out, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{ManifestName: true}
	for _, a := range m.Artifacts {
		listed[a.Path] = true
		p := filepath.Join(out, a.Path)
		if a.Link != "" {
			got, err := os.Readlink(p)
			if err != nil || got != a.Link {
				t.Errorf("%s: link %q (%v), manifest says %q", a.Path, got, err, a.Link)
			}
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s listed but unreadable: %v", a.Path, err)
			continue
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != a.SHA256 || int64(len(data)) != a.Size {
			t.Errorf("%s: size %d sha256 %x, manifest %d %s", a.Path, len(data), sum, a.Size, a.SHA256)
		}
	}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		if !listed[e.Name()] {
			t.Errorf("%s is in the output but not in the manifest", e.Name())
		}
	}
	if m.Verify == nil || m.Verify.RPCWorker == "" || !listed[m.Verify.RPCWorker] || !listed["llama-server"] {
		t.Errorf("manifest verify %+v: no RPC worker or llama-server", m.Verify)
	}
	if !slices.ContainsFunc(m.Plan.Cache, func(c plan.CacheArg) bool { return c.Name == "GGML_RPC" && c.Value == "ON" }) {
		t.Errorf("GGML_RPC=ON not recorded: %+v", m.Plan.Cache)
	}
	if len(m.Plan.Targets) == 0 {
		t.Errorf("the targets built are not recorded")
	}
}
