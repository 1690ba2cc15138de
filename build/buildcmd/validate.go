package buildcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/machine"
)

// validate checks every flag and input file before anything runs (RunE
// calls it before run or runF): the language, the flags and their
// combinations, the --lock and --snapshot files, --ref and a --source
// tree. What the files say lands in the options: the lock's engine,
// backend, architectures and CMake options, the recorded machine, the
// release to download.
func validate(o *Options) error {
	if err := setLang(o); err != nil {
		return err
	}
	if err := checkFlags(o); err != nil {
		return err
	}
	if err := applyLock(o); err != nil {
		return err
	}
	if err := checkSnapshot(o); err != nil {
		return err
	}
	if err := resolvePin(o); err != nil {
		return err
	}
	return checkSource(o)
}

// setLang chooses the language of the human output (--json stays English).
func setLang(o *Options) error {
	l, err := o.F.ChooseLang(o.Lang, "llamactl build --dry-run --lang zh-CN")
	if err != nil {
		return err
	}
	if o.F.IO.JSON {
		l = lang.EN // the document's messages stay English
	}
	o.t, o.pt = texts(l), plan.NewTranslator(l)
	o.pt.Extra = doctor.NewTranslator(l).Reason // doctor's selection reasons
	return nil
}

// checkFlags refuses a bad flag value or combination.
func checkFlags(o *Options) error {
	t := o.t
	usage := func(key string, kv ...any) error { return cmdutil.UsageErrorf("%s", t.T(key, kv...)) }
	if !contains(plan.Backends, o.Backend) {
		return usage("err.backend", "value", fmt.Sprintf("%q", o.Backend), "list", strings.Join(plan.Backends, ", "))
	}
	for _, tg := range o.Targets {
		if (tg == "rpc-server" || tg == "ggml-rpc-server") && !o.RPC {
			return usage("err.target-needs-rpc", "target", tg)
		}
	}
	switch {
	case o.Check && o.LockPath == "":
		return usage("err.check-needs-lock")
	case o.Source != "" && o.Ref != "":
		return usage("err.source-and-ref")
	case o.Compiler != "" && o.Compiler != "clang-cl":
		return usage("err.compiler", "value", fmt.Sprintf("%q", o.Compiler))
	case o.CUDAArch != "" && !archRE.MatchString(o.CUDAArch):
		return usage("err.cuda-arch", "value", fmt.Sprintf("%q", o.CUDAArch))
	case o.StopAfter != "" && !contains(build.StopStages, o.StopAfter):
		return usage("err.stop-after", "value", fmt.Sprintf("%q", o.StopAfter), "list", strings.Join(build.StopStages, ", "))
	case o.Jobs < 0:
		return usage("err.jobs")
	}
	return nil
}

// applyLock reads --lock: its engine, backend and architectures stand in
// for flags not given, its CMake options come before the user's.
func applyLock(o *Options) error {
	if o.LockPath == "" {
		return nil
	}
	l, err := build.ReadLockFile(o.LockPath)
	if err != nil {
		return lockError(o.t, o.LockPath, err)
	}
	o.lock = l
	if o.Ref == "" && o.Source == "" {
		o.Ref = l.Engine.Ref
	}
	if o.Backend == "auto" {
		o.Backend = l.Build.Backend
	}
	if o.CUDAArch == "" {
		o.CUDAArch = l.Build.Architectures
	}
	o.CMakeArgs = append(append([]string{}, l.Build.CMakeArgs...), o.CMakeArgs...)
	return nil
}

// checkSnapshot reads --snapshot and refuses the MSVC flags for a machine
// that is not Windows: they mean nothing elsewhere, and accepting them
// silently would let a user believe they changed the build.
func checkSnapshot(o *Options) error {
	goos := runtime.GOOS // the machine gathered later
	if o.SnapshotPath != "" {
		s, err := machine.Load(o.SnapshotPath)
		if err != nil {
			return cmdutil.UsageErrorf("--snapshot: %v", err)
		}
		o.snap = s
		goos = s.OS.GOOS
	}
	if goos == "windows" {
		return nil
	}
	for _, fl := range []struct{ name, val string }{{"--msvc-toolset", o.MSVCToolset}, {"--compiler", o.Compiler}} {
		if fl.val != "" {
			return cmdutil.UsageErrorf("%s", o.t.T("err.windows-only", "flag", fl.name, "value", fl.val, "os", goos))
		}
	}
	return nil
}

// resolvePin is the release to download: --ref or the pinned one, the
// lock's sha256, a mirror from LLAMACTL_ENGINE_MIRROR (CI caches, proxies).
func resolvePin(o *Options) error {
	pin, err := engine.DefaultLock().Pin(o.Ref)
	if err != nil {
		return cmdutil.UsageErrorf("--ref: %v", err)
	}
	if o.lock != nil && o.lock.Engine.SHA256 != "" {
		pin.SHA256 = o.lock.Engine.SHA256
	}
	if m := o.F.Getenv("LLAMACTL_ENGINE_MIRROR"); m != "" {
		pin.URL = strings.ReplaceAll(m, "{ref}", pin.Ref)
	}
	o.pin = pin
	return nil
}

// checkSource refuses a --source that is not a llama.cpp tree CMake can
// build: no folder, no CMakeLists.txt, or no ggml/ (Debian's source
// package) without LLAMA_USE_SYSTEM_GGML.
func checkSource(o *Options) error {
	if o.Source == "" {
		return nil
	}
	t := o.t
	info, err := os.Stat(o.Source)
	if err != nil || !info.IsDir() {
		return cmdutil.UsageErrorf("%s", t.T("err.source-not-folder", "dir", o.Source))
	}
	if _, err := os.Stat(filepath.Join(o.Source, "CMakeLists.txt")); err != nil {
		return cmdutil.UsageErrorf("%s", t.T("err.source-no-cmakelists", "dir", o.Source))
	}
	abs, _ := filepath.Abs(o.Source)
	if sub := engine.MissingGGML(abs); sub != "" && !systemGGML(o.CMakeArgs) {
		return cmdutil.UsageErrorf("%s", t.T("err.source-no-ggml", "dir", o.Source, "sub", sub, "target", filepath.Join(o.Source, strings.SplitN(sub, "/", 2)[0])))
	}
	return nil
}
