package redact

import (
	"strings"
	"testing"
)

func TestDocumentScrubsSecretsOnly(t *testing.T) {
	type doc struct {
		Env   map[string]string `json:"env"`
		Tools []string          `json:"tools"`
		N     int               `json:"n"`
	}
	d := &doc{
		Env: map[string]string{
			"LLAMA_API_KEY":       "short1",
			"LLAMA_ARG_MODEL_URL": "https://bob:pa55word-x@host/m.gguf",
			"CUDA_PATH":           "/home/bob/cuda",
		},
		Tools: []string{"nvcc at /home/bob/cuda/bin, token=abcdef123456", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
		N:     7,
	}
	r := New(Known{Secrets: map[string]string{"LLAMA_API_KEY": "short1"}})
	if err := Document(d, r.Secrets); err != nil {
		t.Fatal(err)
	}
	if d.Env["LLAMA_API_KEY"] != Secret || d.Env["LLAMA_ARG_MODEL_URL"] != "https://"+Secret+"@host/m.gguf" {
		t.Errorf("env %v", d.Env)
	}
	if d.Env["CUDA_PATH"] != "/home/bob/cuda" || !strings.Contains(d.Tools[0], "/home/bob/cuda") || d.N != 7 {
		t.Errorf("Secrets changed more than secrets: %+v", d)
	}
	if strings.Contains(d.Tools[0], "abcdef123456") || d.Tools[1] != Secret {
		t.Errorf("tokens kept: %q", d.Tools)
	}
}
