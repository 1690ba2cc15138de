package probe

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

func isNotFound(err error) bool {
	return errors.Is(err, ErrRegistryNotFound) || errors.Is(err, fs.ErrNotExist)
}

// vsRoots are where Visual Studio installs (2017-2022 by year, 2026 as
// "18": ...\Microsoft Visual Studio\18\<Edition>, as in microsoft/wil#584
// and testdata/logs/ref-nvcc-unsupported-msvc-vs2026-openfx-243.log).
func vsRoots(d *Deps) []string {
	var roots []string
	for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)"} {
		if v := lookupEnv(d, env); v != "" {
			roots = append(roots, joinPath("windows", v, "Microsoft Visual Studio"))
		}
	}
	if len(roots) == 0 {
		roots = []string{`C:\Program Files\Microsoft Visual Studio`, `C:\Program Files (x86)\Microsoft Visual Studio`}
	}
	return roots
}

// scanVSInstalls finds <root>\<year or major>\<edition> dirs that hold VC or MSBuild.
func scanVSInstalls(g *gctx) []string {
	var out []string
	for _, root := range vsRoots(g.d) {
		for _, ver := range dirEntries(g.d.FS, root) {
			if !ver.IsDir() || ver.Name() == "Installer" || ver.Name() == "Shared" {
				continue
			}
			for _, ed := range dirEntries(g.d.FS, joinPath("windows", root, ver.Name())) {
				p := joinPath("windows", root, ver.Name(), ed.Name())
				if ed.IsDir() && (isDir(g.d.FS, joinPath("windows", p, "VC")) || isDir(g.d.FS, joinPath("windows", p, "MSBuild"))) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// buildCustomizations lists the CUDA versions with "CUDA X.Y.props" in an
// install's MSBuild\Microsoft\VC\v*\BuildCustomizations.
func buildCustomizations(g *gctx, install string) []string {
	var vers []string
	vc := joinPath("windows", install, "MSBuild", "Microsoft", "VC")
	for _, v := range globDir(g.d.FS, "windows", vc, "v*") {
		for _, p := range globDir(g.d.FS, "windows", joinPath("windows", v, "BuildCustomizations"), "CUDA *.props") {
			ver := strings.TrimSuffix(strings.TrimPrefix(baseName("windows", p), "CUDA "), ".props")
			if !containsExact(vers, ver) {
				vers = append(vers, ver)
			}
		}
	}
	return vers
}

// vsCUDAIntegrations is every VS install that has MSBuild files for the
// toolkit's major.minor.
func vsCUDAIntegrations(g *gctx, version string) []string {
	if !isWin(g.goos()) || version == "" {
		return nil
	}
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return nil
	}
	mm := parts[0] + "." + parts[1]
	var out []string
	for _, inst := range scanVSInstalls(g) {
		if containsExact(buildCustomizations(g, inst), mm) {
			out = append(out, inst)
		}
	}
	return out
}

func vswherePath(d *Deps) string {
	pf := lookupEnv(d, "ProgramFiles(x86)")
	if pf == "" {
		pf = `C:\Program Files (x86)`
	}
	return joinPath("windows", pf, "Microsoft Visual Studio", "Installer", "vswhere.exe")
}

// gatherMSVC asks vswhere for every instance, then reads
// each instance's toolsets, default toolset and cl banner.
func gatherMSVC(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	var insts []machine.MSVCInstall
	vw := vswherePath(g.d)
	if isFile(g.d.FS, vw) {
		res, out, ok := g.run(ctx, vw, "-format", "json", "-utf8", "-products", "*", "-prerelease")
		if ok {
			var complete bool
			insts, complete = ParseVswhere(string(res.Stdout))
			if !complete {
				g.errorf("vswhere printed incomplete JSON (exit %d); read %d instances field by field: %q", res.ExitCode, len(insts), truncate(firstLine(out), 200))
			}
			for i := range insts {
				insts[i].FromVswhere = true
			}
		}
	}
	// Instances vswhere did not report (no installer, or a broken one).
	for _, p := range scanVSInstalls(g) {
		known := false
		for _, in := range insts {
			if samePath("windows", in.Path, p) {
				known = true
			}
		}
		if !known {
			insts = append(insts, machine.MSVCInstall{Path: p})
		}
	}
	for i := range insts {
		fillMSVC(ctx, g, &insts[i])
	}
	return func(s *machine.Snapshot) { s.MSVC = insts }
}

func fillMSVC(ctx context.Context, g *gctx, in *machine.MSVCInstall) {
	const w = "windows"
	msvcDir := joinPath(w, in.Path, "VC", "Tools", "MSVC")
	for _, e := range dirEntries(g.d.FS, msvcDir) {
		if e.IsDir() {
			in.Toolsets = append(in.Toolsets, e.Name())
		}
	}
	if b, err := g.d.FS.ReadFile(joinPath(w, in.Path, "VC", "Auxiliary", "Build", "Microsoft.VCToolsVersion.default.txt")); err == nil {
		in.DefaultToolset = strings.TrimSpace(strings.TrimPrefix(string(b), "\ufeff"))
	}
	if p := joinPath(w, in.Path, "VC", "Auxiliary", "Build", "vcvarsall.bat"); isFile(g.d.FS, p) {
		in.VCVarsAll = p
	}
	ts := in.DefaultToolset
	if ts == "" && len(in.Toolsets) > 0 {
		ts = in.Toolsets[len(in.Toolsets)-1]
	}
	if ts != "" {
		cl := joinPath(w, msvcDir, ts, "bin", "Hostx64", "x64", "cl.exe")
		if isFile(g.d.FS, cl) {
			in.HasVCTools = true
			// cl with no arguments prints its banner (on stderr) and exits 2.
			if _, out, ok := g.run(ctx, cl); ok {
				in.ClVersion = ParseClBanner(out).Version
			}
		}
	}
	in.HasClangCL = isFile(g.d.FS, joinPath(w, in.Path, "VC", "Tools", "Llvm", "x64", "bin", "clang-cl.exe"))
	in.CUDABuildCustomizations = buildCustomizations(g, in.Path)
}
