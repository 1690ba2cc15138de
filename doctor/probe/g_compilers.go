package probe

import (
	"context"
	"fmt"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

// compilerNames are the host compilers nvcc may be pointed at, plain and
// versioned (g++-11 .. g++-15: Debian's nvcc 11.8 rejects gcc 12, so an
// installed g++-11 is the fix; issue 3 item 4).
func compilerNames() []string {
	names := []string{"gcc", "g++", "clang", "clang++"}
	for _, m := range facts.GCCVersioned.Majors {
		names = append(names, fmt.Sprintf("gcc-%d", m), fmt.Sprintf("g++-%d", m))
	}
	for _, m := range facts.GCCVersioned.Majors {
		names = append(names, fmt.Sprintf("clang-%d", m+5), fmt.Sprintf("clang++-%d", m+5))
	}
	return names
}

func gatherCompilers(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	var cs []machine.Compiler
	goos := g.goos()
	names := compilerNames()
	found := make([]*machine.Compiler, len(names))
	each(len(names), func(i int) {
		found[i] = probeCompiler(ctx, g, names[i])
	})
	for _, c := range found {
		if c != nil {
			cs = append(cs, *c)
		}
	}
	if isWin(goos) {
		for _, h := range g.base.Tools["cl"] {
			// cl prints its banner on stderr and exits 2 without arguments.
			if _, out, ok := g.run(ctx, h.Path); ok {
				b := ParseClBanner(out)
				if b.Version == "" {
					g.errorf("%s: no compiler banner in %q", h.Path, truncate(firstLine(out), 200))
					continue
				}
				cs = append(cs, machine.Compiler{Kind: "cl", Path: h.Path, Version: b.Version, Major: major(b.Version), Target: b.Arch})
			}
			break // only the cl that runs matters here; MSVC lists all toolsets
		}
	}
	if hits := g.base.Tools["clang-cl"]; len(hits) > 0 { // the first on PATH is the one used
		h := hits[0]
		if _, out, ok := g.run(ctx, h.Path, "--version"); ok {
			v, t := ParseClangVersion(out)
			if v != "" {
				cs = append(cs, machine.Compiler{Kind: "clang-cl", Path: h.Path, Version: v, Major: major(v), Target: t})
			}
		}
	}
	return func(s *machine.Snapshot) { s.Compilers = cs }
}

// gatherBuildTools asks cmake, ninja, git (and ccache) for their versions.
func gatherBuildTools(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	bt := map[string]machine.ToolVersion{}
	type tool struct {
		name  string
		parse func(string) string
	}
	tools := []tool{{"cmake", ParseCMakeVersion}, {"ninja", ParseNinjaVersion}, {"git", ParseGitVersion}, {"ccache", ParseCcacheVersion}}
	for _, t := range tools {
		p := firstTool(g.base, t.name)
		if p == "" {
			if hits := searchPath(g.d, g.base.Path, t.name); len(hits) > 0 {
				p = hits[0]
			}
		}
		if p == "" {
			continue
		}
		tv := machine.ToolVersion{Path: p}
		res, out, ok := g.run(ctx, p, "--version")
		switch {
		case res.TimedOut:
			tv.Error = "timed out"
		case !ok:
			tv.Error = "could not run"
		default:
			tv.Raw = truncate(firstLine(out), 200)
			tv.Version = t.parse(out)
			if tv.Version == "" {
				tv.Error = "no version in its output"
			}
		}
		bt[t.name] = tv
	}
	return func(s *machine.Snapshot) {
		if len(bt) > 0 {
			s.BuildTools = bt
		}
		for name, tv := range bt {
			if hits := s.Tools[name]; len(hits) > 0 && samePath(s.OS.GOOS, hits[0].Path, tv.Path) {
				hits[0].Version = tv.Version
			}
		}
	}
}

// probeCompiler asks the first `name` on PATH for its version.
func probeCompiler(ctx context.Context, g *gctx, name string) *machine.Compiler {
	hits := searchPath(g.d, g.base.Path, name)
	if len(hits) == 0 {
		return nil
	}
	p := hits[0]
	if !isWin(g.goos()) && strings.HasSuffix(strings.ToLower(p), ".exe") {
		return nil
	}
	_, out, ok := g.run(ctx, p, "--version")
	if !ok {
		return nil
	}
	kind := strings.TrimRight(strings.TrimRight(name, "0123456789"), "-")
	c := machine.Compiler{Kind: kind, Path: p}
	if strings.HasPrefix(kind, "clang") {
		c.Version, c.Target = ParseClangVersion(out)
	} else {
		c.Version = ParseGCCVersion(out)
		if strings.Contains(strings.ToLower(firstLine(out)), "clang") {
			// macOS and some distros make gcc a clang front end
			c.Version, c.Target = ParseClangVersion(out)
			c.Kind = "clang"
		}
	}
	if c.Version == "" {
		g.errorf("%s --version: no version in %q", p, truncate(firstLine(out), 200))
		return nil
	}
	c.Major = major(c.Version)
	return &c
}
