package doctorcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/machine"
)

// plantedSecrets are environment values a snapshot must never carry; each
// holds "planted" so a leak is easy to find.
var plantedSecrets = map[string]string{
	"LLAMA_API_KEY":       "planted-llama-api-key-0001",
	"LLAMA_ARG_API_KEY":   "planted-llama-arg-key-0002",
	"LLAMA_ARG_MODEL_URL": "https://alice:planted-url-pass-0003@models.example/m.gguf",
	"GGML_HF_TOKEN":       "planted-ggml-token-0004",
	"NVCC_APPEND_FLAGS":   "-Xcompiler -DAPI_KEY=planted-nvcc-0005 --allow-unsupported-compiler",
	"HF_TOKEN":            "hf_plantedAbCdEfGhIjKlMnOpQr0006",
}

// doctor --snapshot and doctor --json record the machine's toolchain
// variables (LLAMA_*, GGML_*, NVCC_*) but never a secret among them: the same
// redaction as --report (support/redact) runs on every document.
func TestSnapshotAndJSONCarryNoSecrets(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"PATH": dir, "HOME": dir, "LANG": "C"}
	for k, v := range plantedSecrets {
		env[k] = v
	}
	f, out, errOut := cmdutil.NewTest(env, nil)
	f.IO.JSON = true
	snap := filepath.Join(dir, "machine.json")
	o := &Options{F: f, SnapshotOut: snap, Gather: func(ctx context.Context) *machine.Snapshot {
		d := probe.System(f.Env())
		d.CommandTimeout = 300 * time.Millisecond
		d.Timeout = 2 * time.Second
		return probe.Gather(ctx, d)
	}}
	if err := validateAndRun(context.Background(), o); cmdutil.ExitCode(err) > cmdutil.ExitFindings {
		t.Fatalf("%v\n%s", err, errOut)
	}
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string]string{"--snapshot file": string(b), "--json": out.String()} {
		if !strings.Contains(text, "LLAMA_ARG_MODEL_URL") || !strings.Contains(text, "--allow-unsupported-compiler") {
			t.Errorf("%s does not record the toolchain variables: the check below proves nothing", where)
		}
		for k, v := range plantedSecrets {
			secret := v
			if i := strings.Index(v, "planted"); i >= 0 {
				secret = v[i:]
				if j := strings.IndexAny(secret, "@ "); j >= 0 {
					secret = secret[:j]
				}
			}
			if strings.Contains(text, secret) {
				t.Errorf("%s carries %s's value", where, k)
			}
		}
	}
}
