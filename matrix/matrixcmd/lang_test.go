package matrixcmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

// runEnv executes `matrix ARGS...` with the given environment.
func runEnv(t *testing.T, env map[string]string, jsonOut bool, args ...string) (string, string, int) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(env, nil)
	f.IO.JSON = jsonOut
	cmd := NewCmd(f)
	cmd.SetArgs(args)
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if ee, ok := err.(*cmdutil.ExitError); ok && ee.Message != "" {
		errOut.WriteString(ee.Message)
	}
	return out.String(), errOut.String(), cmdutil.ExitCode(err)
}

var (
	han       = regexp.MustCompile(`\p{Han}`)
	unfilled  = regexp.MustCompile(`\{[a-z_]+\}`)
	langCases = [][]string{
		{"resolve", "--gpu", "NVIDIA GeForce RTX 4060", "--driver", "560.94", "--msvc", "19.41.34123", "--toolkit", "12.3.107"},
		{"resolve", "--gpu", "GTX 1080 Ti", "--driver", "470.57", "--gcc", "13", "--toolkit", "13.0"},
		{"resolve", "--cc", "8.9", "--os", "wsl", "--gcc", "14", "--available-gcc", "11,12", "--driver", "560.94"},
		{"gpu", "4090"},
		{"gpu", "RTX 6000"},
		{"cuda", "12.4"},
	}
)

// --lang zh-CN words the human output in Chinese with the same exit code;
// --json is byte-identical with and without it.
func TestLangZhCN(t *testing.T) {
	for _, args := range langCases {
		name := strings.Join(args, " ")
		enOut, _, enCode := runEnv(t, nil, false, args...)
		zhOut, zhErr, zhCode := runEnv(t, nil, false, append(args, "--lang", "zh-CN")...)
		if zhCode != enCode {
			t.Errorf("%s: exit %d with zh-CN, %d without (%s)", name, zhCode, enCode, zhErr)
		}
		if han.MatchString(enOut) {
			t.Errorf("%s: English output has Chinese:\n%s", name, enOut)
		}
		if !han.MatchString(zhOut) || zhOut == enOut {
			t.Errorf("%s: zh-CN output is not Chinese:\n%s", name, zhOut)
		}
		if m := unfilled.FindString(zhOut); m != "" {
			t.Errorf("%s: unfilled %s in:\n%s", name, m, zhOut)
		}
		for _, english := range []string{"is too new", "Build with", "fix:", "does not fit", "has compute capability", "is installed", "cannot be targeted"} {
			if strings.Contains(zhOut, english) {
				t.Errorf("%s: zh-CN output still has %q:\n%s", name, english, zhOut)
			}
		}
		enJSON, _, _ := runEnv(t, nil, true, args...)
		zhJSON, _, _ := runEnv(t, map[string]string{"LANG": "zh_CN.UTF-8"}, true, append(args, "--lang", "zh-CN")...)
		if enJSON != zhJSON || !strings.HasPrefix(enJSON, "{") {
			t.Errorf("%s: --json differs with --lang zh-CN:\n%s\n%s", name, enJSON, zhJSON)
		}
	}
}

// The language also comes from LLAMACTL_LANG and the locale, as doctor's.
func TestLangFromEnvironment(t *testing.T) {
	args := []string{"resolve", "--gpu", "RTX 4090", "--driver", "560.94", "--msvc", "19.41"}
	en, _, _ := runEnv(t, nil, false, args...)
	zh, _, _ := runEnv(t, nil, false, append(args, "--lang", "zh-CN")...)
	for _, env := range []map[string]string{{"LLAMACTL_LANG": "zh-CN"}, {"LANG": "zh_CN.UTF-8"}, {"LC_ALL": "zh_CN", "LANG": "en_US.UTF-8"}} {
		if got, _, _ := runEnv(t, env, false, args...); got != zh {
			t.Errorf("env %v: not the zh-CN output:\n%s", env, got)
		}
	}
	for _, env := range []map[string]string{{"LANG": "zh_TW.UTF-8"}, {"LLAMACTL_LANG": "zh-CN", "X": ""}} {
		args := args
		if env["LANG"] == "" {
			args = append(args, "--lang", "en") // the flag wins over the environment
		}
		if got, _, _ := runEnv(t, env, false, args...); got != en {
			t.Errorf("env %v: not the English output:\n%s", env, got)
		}
	}
}

func TestLangUnknownIsUsageError(t *testing.T) {
	_, errOut, code := runEnv(t, nil, false, "gpu", "4090", "--lang", "fr")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "llamactl matrix gpu --lang zh-CN") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	// A bad LLAMACTL_LANG is ignored: the answer still prints, in English.
	out, _, code := runEnv(t, map[string]string{"LLAMACTL_LANG": "klingon"}, false, "gpu", "4090")
	if code != 0 || !strings.Contains(out, "has compute capability 8.9") {
		t.Errorf("exit %d, out %q", code, out)
	}
}

// Usage errors are worded in the chosen language too.
func TestLangZhCNErrors(t *testing.T) {
	_, errOut, code := runEnv(t, nil, false, "resolve", "--driver", "bad", "--lang", "zh-CN")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "不是 560.94 这样的版本") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
