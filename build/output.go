package build

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/enginefacts"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/proc"
)

// The finishing stages: cuda-runtime-dlls (Windows CUDA), verify and
// manifest (with the copy to --out).

var (
	loadedRE = regexp.MustCompile(`(?m)load_backend: loaded (\S+) backend from (.+)$`)
	deviceRE = regexp.MustCompile(`(?m)^  ([A-Za-z]+)(\d+): (.+)$`)
)

// ParseVersion reads llama.cpp's "version:" line (both formats);
// the commit is without "-dirty" so it compares with the lock's.
func ParseVersion(out string) (line string, build int, commit string, ok bool) {
	v, ok := enginefacts.ParseVersion(out)
	return v.Line, v.Build, v.Commit, ok
}

func exeName(goos, name string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

func backendLibrary(goos, bin, backend string) string {
	short := map[string]string{"cuda": "cuda", "vulkan": "vulkan", "hip": "hip", "opencl": "opencl"}[backend]
	if short == "" {
		return ""
	}
	names := []string{"libggml-" + short + ".so", "ggml-" + short + ".dll", "libggml-" + short + ".dylib"}
	for _, n := range names {
		if fileExists(filepath.Join(bin, n)) {
			return n
		}
	}
	return ""
}

// verifyStage runs the built binaries: the version they report, and
// whether the backend is in the build and lists a device here.
type verifyStage struct{ *runner }

func (verifyStage) Name() string                { return "verify" }
func (verifyStage) Skip(context.Context) string { return "" }

func (s verifyStage) Run(ctx context.Context) error {
	bin := filepath.Join(s.res.Plan.BuildDir, "bin")
	s.res.BinDir = bin
	s.stage("verify")
	v, err := s.verify(ctx, bin)
	s.res.Verify = v
	if err != nil {
		s.cur.Detail = err.Error()
		return errorf(Failed, "%v", err)
	}
	s.cur.Detail = strings.Join(v.Notes, "; ")
	return nil
}

func (r *runner) verify(ctx context.Context, bin string) (*Verification, error) {
	p := r.res.Plan
	v := &Verification{}
	cli, err := r.tools(bin, v)
	if err != nil {
		return v, err
	}
	res, err := r.deps.Runner.Run(ctx, proc.Cmd{Name: cli, Args: []string{"--version"}, Env: r.env, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		return v, fmt.Errorf("%s --version failed (exit %d, %v): %s", cli, res.ExitCode, err, strings.TrimSpace(lastLines(res.Combined(), 5)))
	}
	line, build, commit, ok := ParseVersion(res.Combined())
	if !ok {
		return v, fmt.Errorf("%s --version printed no version line: %s", cli, strings.TrimSpace(lastLines(res.Combined(), 5)))
	}
	v.VersionLine, v.BuildNumber, v.Commit = line, build, commit
	if p.Engine.BuildNumber > 0 && build != p.Engine.BuildNumber {
		v.Notes = append(v.Notes, fmt.Sprintf("binary reports build %d, the engine is b%d (build-info-unknown)", build, p.Engine.BuildNumber))
	}
	res, err = r.deps.Runner.Run(ctx, proc.Cmd{Name: cli, Args: []string{"--list-devices"}, Env: r.env, Timeout: time.Minute})
	if err != nil {
		return v, fmt.Errorf("%s --list-devices: %v", cli, err)
	}
	out := res.Combined()
	for _, m := range loadedRE.FindAllStringSubmatch(out, -1) {
		v.LoadedBackend = append(v.LoadedBackend, m[1])
	}
	for _, m := range deviceRE.FindAllStringSubmatch(out, -1) {
		v.Devices = append(v.Devices, m[1]+m[2]+": "+m[3])
	}
	if p.Backend == "cpu" {
		v.BackendInBuild, v.DeviceUsable, v.OK = true, true, true
		return v, nil
	}
	return v, r.backendIn(ctx, cli, bin, v)
}

// tools finds the binary to verify (llama-cli, else llama-server for a
// --target build) and, for --rpc, the RPC worker.
func (r *runner) tools(bin string, v *Verification) (string, error) {
	p := r.res.Plan
	cli := filepath.Join(bin, exeName(p.OS, "llama-cli"))
	if !fileExists(cli) {
		// A --target build may have made only the server.
		srv := filepath.Join(bin, exeName(p.OS, "llama-server"))
		if !fileExists(srv) {
			return "", errors.New(plan.Message("verify-tool-missing", cli, r.res.LogPath).Text)
		}
		cli = srv
	}
	v.Tool = filepath.Base(cli)
	if p.RPC {
		w := RPCWorker(p.OS, bin)
		if w == "" {
			return "", errors.New(plan.Message("verify-no-rpc-worker", strings.Join(RPCWorkerNames, " or "), bin, r.res.LogPath).Text)
		}
		v.RPCWorker = w
		v.Notes = append(v.Notes, plan.Message("verify-rpc-worker", w).Text)
	}
	return cli, nil
}

// backendIn decides, for a GPU backend, whether it is in the build and
// whether it lists a device here; only a missing backend (or a GPU
// machine whose backend lists no device) fails.
func (r *runner) backendIn(ctx context.Context, cli, bin string, v *Verification) error {
	p := r.res.Plan
	want := enginefacts.BackendRegName(p.Backend)
	v.BackendLib = backendLibrary(p.OS, bin, p.Backend)
	loaded := slices.Contains(v.LoadedBackend, want)
	listed := hasDevice(v, want)
	if !listed && p.Backend == "vulkan" && (loaded || v.BackendLib != "") {
		listed = r.softwareVulkan(ctx, cli, want, v)
	}
	// Hardware that should have listed a device (software Vulkan devices do not count).
	gpus := len(r.in.Snapshot.NVIDIA.GPUs) > 0 || len(r.in.Snapshot.HIP.GFX) > 0
	v.BackendInBuild = loaded || listed || v.BackendLib != ""
	v.DeviceUsable = listed
	switch {
	case listed && v.DeviceEnv != "":
		v.Notes = append(v.Notes, plan.Message("verify-device-env", want, v.DeviceEnv).Text)
	case listed:
		v.Notes = append(v.Notes, plan.Message("verify-device-listed", want).Text)
	case loaded && gpus && p.Backend != "vulkan":
		return errors.New(plan.Message("verify-no-device-gpu", want).Text)
	case loaded:
		v.Notes = append(v.Notes, plan.Message("verify-loaded-no-device", want).Text)
	case v.BackendLib != "" && gpus && p.Backend != "vulkan":
		return errors.New(plan.Message("verify-lib-no-device-gpu", v.BackendLib, bin).Text)
	case v.BackendLib != "":
		// A non-DL build links the backend library into the binary: that it ran proves it loaded.
		v.Notes = append(v.Notes, plan.Message("verify-linked-no-device", want, v.BackendLib, v.Tool).Text)
	default:
		return fmt.Errorf("the %s backend is not in the build (no \"load_backend: loaded %s backend\" line, no %s device, no backend library in %s): the build is CPU-only. Check the configure log %s for \"Manually-specified variables were not used\", and for runtime DLLs run llamactl doctor", want, want, want, bin, r.res.LogPath)
	}
	v.OK = true
	return nil
}

func hasDevice(v *Verification, want string) bool {
	return slices.ContainsFunc(v.Devices, func(d string) bool { return strings.HasPrefix(d, want) })
}

// softwareVulkan asks for the device list once more with the first Vulkan
// device selected: ggml-vulkan skips CPU-type devices (Mesa's
// lavapipe/llvmpipe) unless they are selected.
func (r *runner) softwareVulkan(ctx context.Context, cli, want string, v *Verification) bool {
	env := append(slices.Clone(r.env), "GGML_VK_VISIBLE_DEVICES=0")
	res, err := r.deps.Runner.Run(ctx, proc.Cmd{Name: cli, Args: []string{"--list-devices"}, Env: env, Timeout: time.Minute})
	if err != nil {
		return false
	}
	for _, m := range deviceRE.FindAllStringSubmatch(res.Combined(), -1) {
		if d := m[1] + m[2] + ": " + m[3]; strings.HasPrefix(d, want) && !slices.Contains(v.Devices, d) {
			v.Devices = append(v.Devices, d)
		}
	}
	if !hasDevice(v, want) {
		return false
	}
	v.DeviceEnv = "GGML_VK_VISIBLE_DEVICES=0"
	return true
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// cudaRuntimeStage puts cudart, cublas and cublasLt beside the binaries
// of a Windows CUDA build: a non-DL build will not start without them.
type cudaRuntimeStage struct{ *runner }

func (cudaRuntimeStage) Name() string { return "cuda-runtime-dlls" }

func (s cudaRuntimeStage) Skip(context.Context) string {
	if root := s.cudaRoot(); root == "" || len(cudaRuntimeDLLs(root)) == 0 {
		return plan.Message("step-no-cuda-runtime", filepath.Join(root, "bin")).Text
	}
	return ""
}

func (s cudaRuntimeStage) Run(context.Context) error {
	s.cur.Detail = strings.Join(s.copyCUDARuntime(filepath.Join(s.res.Plan.BuildDir, "bin")), ", ")
	return nil
}

// cudaRoot is the toolkit folder of the plan's nvcc, or "".
func (r *runner) cudaRoot() string {
	for _, c := range r.res.Plan.Cache {
		if c.Name == "CMAKE_CUDA_COMPILER" {
			return filepath.Dir(filepath.Dir(c.Value))
		}
	}
	return ""
}

// copyCUDARuntime copies the toolkit's runtime DLLs into bin and returns
// the names copied.
func (r *runner) copyCUDARuntime(bin string) []string {
	root := r.cudaRoot()
	if root == "" {
		return nil
	}
	var copied []string
	for _, m := range cudaRuntimeDLLs(root) {
		if err := copyFile(m, filepath.Join(bin, filepath.Base(m))); err == nil {
			copied = append(copied, filepath.Base(m))
		}
	}
	return copied
}

// cudaRuntimeDLLs are the toolkit's cudart, cublas and cublasLt DLLs: in
// <root>\bin up to CUDA 12, in <root>\bin\x64 from CUDA 13 (nvcc stays in
// bin). A name found in both is taken once, from bin\x64.
func cudaRuntimeDLLs(root string) []string {
	var out []string
	seen := map[string]bool{}
	for _, dir := range []string{filepath.Join(root, "bin", "x64"), filepath.Join(root, "bin")} {
		for _, pat := range []string{"cudart64_*.dll", "cublas64_*.dll", "cublasLt64_*.dll"} {
			ms, _ := filepath.Glob(filepath.Join(dir, pat))
			for _, m := range ms {
				if k := strings.ToLower(filepath.Base(m)); !seen[k] {
					seen[k] = true
					out = append(out, m)
				}
			}
		}
	}
	return out
}

func collect(bin string) ([]Artifact, error) {
	entries, err := os.ReadDir(bin)
	if err != nil {
		return nil, err
	}
	var out []Artifact
	for _, e := range entries {
		p := filepath.Join(bin, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			// Only links within bin/ (the SOVERSION chain) travel with the binaries.
			if target, err := os.Readlink(p); err == nil && localLink(target) && fileExists(p) {
				out = append(out, Artifact{Path: e.Name(), Link: target})
			}
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		n, err := io.Copy(h, bufio.NewReader(f))
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, Artifact{Path: e.Name(), SHA256: hex.EncodeToString(h.Sum(nil)), Size: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// localLink says whether a link target names a file in the link's own directory.
func localLink(target string) bool {
	return target != "" && target != "." && target != ".." && !strings.ContainsAny(target, `/\`)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".copy-*")
	if err != nil {
		return err
	}
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), info.Mode().Perm()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func copyArtifacts(bin, out string, arts []Artifact) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// Files an earlier llamactl build put in out (its manifest lists them) and
	// this build did not make go; nothing else there is touched.
	if b, err := os.ReadFile(filepath.Join(out, ManifestName)); err == nil {
		var old Manifest
		if json.Unmarshal(b, &old) == nil {
			for _, a := range old.Artifacts {
				if localLink(a.Path) && !slices.ContainsFunc(arts, func(n Artifact) bool { return n.Path == a.Path }) {
					os.Remove(filepath.Join(out, a.Path))
				}
			}
		}
	}
	for _, a := range arts {
		dst := filepath.Join(out, a.Path)
		if a.Link != "" {
			if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if err := os.Symlink(a.Link, dst); err != nil {
				return err
			}
			continue
		}
		if err := copyFile(filepath.Join(bin, a.Path), dst); err != nil {
			return err
		}
	}
	return nil
}

// toolVersions adds cmake's and ninja's versions to the toolchain record.
func (r *runner) toolVersions(ctx context.Context) {
	if r.res.Toolchain == nil {
		r.res.Toolchain = map[string]string{}
	}
	for _, tool := range []string{"cmake", "ninja"} {
		res, err := r.deps.Runner.Run(ctx, proc.Cmd{Name: tool, Args: []string{"--version"}, Env: r.env, Timeout: 20 * time.Second})
		if err != nil || res.ExitCode != 0 {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimSpace(string(res.Stdout)), "\n")
		r.res.Toolchain[tool] = strings.TrimSpace(strings.TrimPrefix(first, "cmake version "))
	}
}

// manifestStage lists the built files, copies them to --out and writes
// manifest.json there (else in the build folder).
type manifestStage struct{ *runner }

func (manifestStage) Name() string                { return "manifest" }
func (manifestStage) Skip(context.Context) string { return "" }

func (s manifestStage) Run(ctx context.Context) error {
	s.toolVersions(ctx)
	bin := s.res.BinDir
	arts, err := collect(bin)
	if err != nil {
		return errorf(Internal, "listing the built files: %v", err)
	}
	s.res.Artifacts = arts
	dest := s.res.Plan.BuildDir
	if s.opts.OutDir != "" {
		if err := copyArtifacts(bin, s.opts.OutDir, arts); err != nil {
			return outError(s.opts.OutDir, err)
		}
		dest = s.opts.OutDir
		s.res.OutDir = dest
	}
	if err := s.writeManifest(dest); err != nil {
		return err
	}
	s.cur.Detail = s.res.Manifest
	return nil
}

// writeManifest writes manifest.json into dest.
func (r *runner) writeManifest(dest string) error {
	b, _ := json.MarshalIndent(r.manifest(), "", "  ")
	r.res.Manifest = filepath.Join(dest, ManifestName)
	if err := paths.WriteFileAtomicPerm(r.res.Manifest, append(b, '\n'), 0o644); err != nil {
		if r.opts.OutDir != "" {
			return outError(dest, err)
		}
		return errorf(Internal, "writing the manifest: %v", err)
	}
	return nil
}

// outError is a failure to write into the --out folder: the user's
// choice of folder (full, read-only, a file in the way), not a llamactl
// failure (docs/exit-codes.md: 2).
func outError(out string, err error) error {
	return &Error{Kind: BadInput, Message: plan.Message("out-unwritable", out, err).Text, Err: err}
}
