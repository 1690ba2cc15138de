package redact

import (
	"strings"
	"testing"
)

var winEnv = map[string]string{
	"USERNAME":              "John Smith",
	"USERPROFILE":           `C:\Users\John Smith`,
	"COMPUTERNAME":          "DESKTOP-7QK2LM9",
	"USERDOMAIN":            "CONTOSO",
	"USERDNSDOMAIN":         "corp.contoso.example",
	"HF_TOKEN":              "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
	"OPENAI_API_KEY":        "sk-proj-abcdefghijklmnopqrstuvwx1234",
	"MY_SERVICE_PASSWORD":   "hunter2hunter2",
	"CUDA_PATH":             `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4`,
	"PATH":                  `C:\Users\John Smith\AppData\Local\Programs\Python\Python312;C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin`,
	"HTTPS_PROXY":           "http://jsmith:Pr0xyPass!@proxy.contoso.example:8080",
	"LLAMA_ARG_API_KEY":     "llama-key-000111222333",
	"ONEDRIVE":              `C:\Users\John Smith\OneDrive - Contoso Ltd`,
	"SOME_UNRELATED_THING":  "value-that-is-not-allowed",
	"GGML_CUDA_NO_VMM":      "1",
	"NOTE":                  "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"AWS_ACCESS_KEY_ID":     "AKIAIOSFODNN7EXAMPLE",
	"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
}

func TestFromEnv(t *testing.T) {
	k := FromEnv(winEnv)
	if !has(k.Users, "John Smith") {
		t.Errorf("users %v", k.Users)
	}
	if !has(k.Hosts, "DESKTOP-7QK2LM9") || !has(k.Hosts, "CONTOSO") {
		t.Errorf("hosts %v", k.Hosts)
	}
	for _, name := range []string{"HF_TOKEN", "OPENAI_API_KEY", "MY_SERVICE_PASSWORD", "LLAMA_ARG_API_KEY", "NOTE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		if k.Secrets[name] == "" {
			t.Errorf("%s not collected as a secret", name)
		}
	}
	for _, name := range []string{"CUDA_PATH", "PATH", "GGML_CUDA_NO_VMM", "COMPUTERNAME"} {
		if k.Secrets[name] != "" {
			t.Errorf("%s collected as a secret", name)
		}
	}
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestWindowsShapedText(t *testing.T) {
	r := New(FromEnv(winEnv))
	in := strings.Join([]string{
		`C:\Users\John Smith\llama.cpp\build\bin\llama-server.exe`,
		`C:\\Users\\John Smith\\AppData\\Local\\Temp\\x.json`,
		`C:/Users/John Smith/llama.cpp/CMakeLists.txt`,
		`C:\Users\JOHNSM~1\AppData\Local\Temp\tmp123`,
		`C:\Users\John Smith\OneDrive - Contoso Ltd\models\qwen.gguf`,
		`Host: DESKTOP-7QK2LM9 (desktop-7qk2lm9.corp.contoso.example)`,
		`GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-4a3f2b1c-9d8e-7f6a-5b4c-3d2e1f0a9b8c)`,
		`GPU 1: NVIDIA GeForce RTX 4090 (UUID: GPU-00000000-1111-2222-3333-444444444444)`,
		`again GPU-4a3f2b1c-9d8e-7f6a-5b4c-3d2e1f0a9b8c`,
		`Serial Number : 1324021000123`,
		`Physical Address. . . : 3C-7C-3F-1A-2B-3D   IPv4 Address: 192.168.1.23`,
		`curl -H "Authorization: Bearer abcdefghijklmnop0123456789" https://huggingface.co`,
		`set HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345`,
		`token ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 and github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv`,
		`aws AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`,
		`proxy http://jsmith:Pr0xyPass!@proxy.contoso.example:8080`,
		`version 10.0.22631.4602 cl 19.41.34123 driver 566.36 listening on http://127.0.0.1:8080`,
	}, "\n")
	out := r.String(in)
	for _, leak := range []string{"John", "Smith", "JOHNSM", "DESKTOP-7QK2LM9", "desktop-7qk2lm9", "CONTOSO", "Contoso Ltd",
		"4a3f2b1c", "1324021000123", "3C-7C-3F", "192.168.1.23", "abcdefghijklmnop0123456789", "hf_AbCd", "ghp_ABCD",
		"github_pat_11", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI", "Pr0xyPass", "jsmith"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q survives in:\n%s", leak, out)
		}
	}
	for _, want := range []string{
		`C:\Users\<user>\llama.cpp\build\bin\llama-server.exe`,
		`C:\\Users\\<user>\\AppData`,
		`C:/Users/<user>/llama.cpp`,
		`C:\Users\<user>\AppData\Local\Temp\tmp123`,
		`OneDrive - <org>\models`,
		`Host: <host>`,
		`(UUID: <gpu-uuid-1>)`, `(UUID: <gpu-uuid-2>)`, `again <gpu-uuid-1>`,
		`Serial Number : <serial-1>`,
		`Authorization: Bearer <secret>`,
		`version 10.0.22631.4602 cl 19.41.34123 driver 566.36 listening on http://127.0.0.1:8080`,
		`https://huggingface.co`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if leaks := r.Leaks("test", out); len(leaks) != 0 {
		t.Errorf("self-check finds %v in:\n%s", leaks, out)
	}
	if r.Counts()["secret"] == 0 || r.Counts()["user"] == 0 || r.Counts()["gpu-uuid"] != 3 {
		t.Errorf("counts %v", r.Counts())
	}
}

func TestLinuxShapedText(t *testing.T) {
	env := map[string]string{"USER": "alice", "HOME": "/home/alice", "HOSTNAME": "gpu-box-17", "GITHUB_TOKEN": "ghs_0123456789abcdefghijABCDEFGHIJ"}
	r := New(FromEnv(env))
	in := "alice@gpu-box-17:~/llama.cpp$ cmake -B build\n" +
		"/home/alice/llama.cpp/ggml/src/ggml-cuda/common.cuh(126): error: identifier \"x\" is undefined\n" +
		"root@90d56f7981cb:/src# ls /home/bob/models\n" +
		"inet 10.1.2.3/24 brd 10.1.2.255 link/ether 02:42:ac:11:00:02 inet6 fe80::42:acff:fe11:2/64\n" +
		"GITHUB_TOKEN=ghs_0123456789abcdefghijABCDEFGHIJ\n" +
		"a user named malice and alicea stay; alice goes\n"
	out := r.String(in)
	for _, leak := range []string{"alice@", "/home/alice", "gpu-box-17", "90d56f7981cb", "bob", "10.1.2.3", "02:42:ac", "fe80::42", "ghs_0123"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q survives in:\n%s", leak, out)
		}
	}
	for _, want := range []string{"<user>@<host>:~/llama.cpp$", "/home/<user>/llama.cpp", "root@<host-2>:/src#", "/home/<user-2>/models", "malice and alicea stay; <user> goes"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if leaks := r.Leaks("t", out); len(leaks) != 0 {
		t.Errorf("leaks %v", leaks)
	}
}

func TestEnvAllowlist(t *testing.T) {
	r := New(FromEnv(winEnv))
	out := r.Env(winEnv)
	if out["SOME_UNRELATED_THING"] != Redacted || out["USERNAME"] != Redacted {
		t.Errorf("values outside the allowlist kept: %v", out)
	}
	for _, k := range []string{"HF_TOKEN", "OPENAI_API_KEY", "LLAMA_ARG_API_KEY", "AWS_SECRET_ACCESS_KEY"} {
		if out[k] != Secret {
			t.Errorf("%s = %q", k, out[k])
		}
	}
	if out["GGML_CUDA_NO_VMM"] != "1" || out["CUDA_PATH"] != winEnv["CUDA_PATH"] {
		t.Errorf("allowed values changed: %v", out)
	}
	if strings.Contains(out["PATH"], "John") || !strings.Contains(out["PATH"], `C:\Users\<user>\AppData`) {
		t.Errorf("PATH %q", out["PATH"])
	}
}

func TestTokenInsideAllowedValue(t *testing.T) {
	r := New(Known{})
	env := map[string]string{"LLAMA_ARG_HF_REPO": "org/model", "CMAKE_ARGS": "-DX=1 -DHF=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"}
	out := r.Env(env)
	if strings.Contains(out["CMAKE_ARGS"], "hf_AbCd") || !strings.Contains(out["CMAKE_ARGS"], "-DHF=<secret>") {
		t.Errorf("%q", out["CMAKE_ARGS"])
	}
}

func TestLeaksNamesKindNotValue(t *testing.T) {
	r := New(FromEnv(winEnv))
	leaks := r.Leaks("report.md", "oops John Smith and hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 on desktop-7qk2lm9")
	kinds := map[string]bool{}
	for _, l := range leaks {
		kinds[l.Kind] = true
		if strings.Contains(l.String(), "hf_") || strings.Contains(l.String(), "John") {
			t.Errorf("leak report repeats the value: %s", l)
		}
	}
	if !kinds["the user name"] || !kinds["the host name"] || !kinds["the value of HF_TOKEN"] || !kinds["a hugging face token"] {
		t.Errorf("leaks %v", leaks)
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"HF_TOKEN": true, "OPENAI_API_KEY": true, "MYAPIKEY": true, "DB_PASSWORD": true, "AWS_SESSION_TOKEN": true,
		"GITHUB_TOKEN": true, "CUDA_PATH": false, "PATH": false, "GGML_CUDA": false, "HOME": false, "KEYBOARD_LAYOUT": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%s) = %v", name, got)
		}
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{"John Smith": "JOHNSM", "johnsmith": "JOHNSM", "bob": "", "jo.doe": "JODOE"} {
		if got := shortName(in); got != want {
			t.Errorf("shortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add(`C:\Users\John Smith\x GPU-4a3f2b1c-9d8e-7f6a-5b4c-3d2e1f0a9b8c 192.168.1.1`)
	f.Add("alice@box:~$ /home/alice hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345")
	f.Add("fe80::1:2:3:4%eth0 02:42:ac:11:00:02 Serial Number: ABC123456")
	f.Fuzz(func(t *testing.T, s string) {
		r := New(FromEnv(map[string]string{"USER": "alice", "HOSTNAME": "box", "HF_TOKEN": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"}))
		out := r.String(s)
		if strings.Contains(out, "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345") {
			t.Fatalf("secret survives: %q", out)
		}
		// Redacting again changes nothing more for the known values.
		if l := r.Leaks("fuzz", out); len(l) != 0 {
			t.Fatalf("leaks %v in %q", l, out)
		}
	})
}

// Users and hosts with generic names must not eat the placeholders.
func TestGenericNames(t *testing.T) {
	r := New(FromEnv(map[string]string{"USERNAME": "user", "COMPUTERNAME": "host", "USERPROFILE": `C:\Users\user`}))
	out := r.String(`C:\Users\user\llama.cpp on host, GPU-4a3f2b1c-9d8e-7f6a-5b4c-3d2e1f0a9b8c; the user said`)
	want := `C:\Users\<user>\llama.cpp on <host>, <gpu-uuid-1>; the <user> said`
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if again := r.String(out); again != out {
		t.Errorf("not stable: %s", again)
	}
	if l := r.Leaks("t", out); len(l) != 0 {
		t.Errorf("placeholders read as leaks: %v", l)
	}
}

func TestVersionsAreNotAddresses(t *testing.T) {
	r := New(Known{})
	in := "libcublas11:amd64 11.11.3.6~11.8.0-5~deb12u1 and 11.1.1+~11.8.89~11.8.0-5 and 2.1.1.1-2, ip=10.1.2.3 http://192.168.0.10:8080/x (172.16.0.1) dns 1.1.1.1 8.8.8.8"
	out := r.String(in)
	want := "libcublas11:amd64 11.11.3.6~11.8.0-5~deb12u1 and 11.1.1+~11.8.89~11.8.0-5 and 2.1.1.1-2, ip=<ip-1> http://<ip-2>:8080/x (<ip-3>) dns <ip-4> <ip-5>"
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestEnvAllowingExtraNames(t *testing.T) {
	r := New(Known{Users: []string{"jane"}})
	out := r.EnvAllowing(map[string]string{"NVCC_CCBIN": "/home/jane/bin/g++-11", "ROCM_SECRET_TOKEN": "abc123456", "OTHER": "x"},
		[]string{"nvcc_ccbin", "ROCM_SECRET_TOKEN"}, []string{"ROCM_"})
	if out["NVCC_CCBIN"] != "/home/<user>/bin/g++-11" || out["ROCM_SECRET_TOKEN"] != Secret || out["OTHER"] != Redacted {
		t.Errorf("%v", out)
	}
}

func TestShortSecretValuesAreNotReplacedEverywhere(t *testing.T) {
	r := New(FromEnv(map[string]string{"API_VERSION": "2024", "USE_AUTH": "true", "DB_PASSWORD": "hunter2hunter2"}))
	out := r.String("built 2024-11-29, flag true, pw hunter2hunter2")
	if out != "built 2024-11-29, flag true, pw <secret>" {
		t.Errorf("%q", out)
	}
	env := r.Env(map[string]string{"API_VERSION": "2024"})
	if env["API_VERSION"] != Secret {
		t.Errorf("%v", env)
	}
}

// The self-check knows what String replaces: the 8.3 form of the user's
// folder, a secret without the quotes cmd.exe kept, curl's -u user:password.
func TestLeaksSeesShortNamesAndBareSecrets(t *testing.T) {
	env := map[string]string{"USERNAME": "John Smith", "MY_SERVICE_TOKEN": `"q7Rk2LmN8pQ4vW1z"`}
	r := New(FromEnv(env))
	for _, text := range []string{`TEMP=C:\Users\JOHNSM~1\AppData`, `C:\Users\johnsm~12\x`, "token q7Rk2LmN8pQ4vW1z here", "curl -u admin:k9Jd7Hs6 http://x"} {
		if len(r.Leaks("raw", text)) == 0 {
			t.Errorf("self-check misses %q", text)
		}
		out := r.String(text)
		if len(r.Leaks("raw", out)) != 0 || strings.Contains(out, "q7Rk") || strings.Contains(out, "k9Jd") || strings.Contains(strings.ToUpper(out), "JOHNSM~") {
			t.Errorf("String(%q) = %q still leaks", text, out)
		}
	}
}
