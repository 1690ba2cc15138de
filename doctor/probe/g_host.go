package probe

import (
	"context"
	"regexp"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

const winNTKey = `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion`

var reProcVersion = regexp.MustCompile(`^Linux version (\S+)`)

func gatherHost(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	var o machine.OSInfo
	if g.d.Host != nil {
		var err error
		if o, err = g.d.Host.Info(ctx); err != nil {
			g.errorf("host facts incomplete: %v", err)
		}
	}
	switch g.goos() {
	case "linux":
		if b, err := g.d.FS.ReadFile("/etc/os-release"); err == nil {
			if n := ParseOSRelease(string(b)); n != "" {
				o.Name = n
			}
		}
		if o.Version == "" {
			if b, err := g.d.FS.ReadFile("/proc/version"); err == nil {
				if m := reProcVersion.FindStringSubmatch(string(b)); m != nil {
					o.Version = m[1]
				}
			}
		}
		if ldd := searchPath(g.d, g.base.Path, "ldd"); len(ldd) > 0 {
			if _, out, ok := g.run(ctx, ldd[0], "--version"); ok {
				o.Glibc = ParseLddVersion(out)
			}
		}
	case "windows":
		if r := g.d.Registry; r != nil {
			name, _ := r.Value(winNTKey, "ProductName")
			build, _ := r.Value(winNTKey, "CurrentBuild")
			disp, _ := r.Value(winNTKey, "DisplayVersion")
			// Windows 11 still reports "Windows 10 ..." as ProductName; build 22000+ is 11.
			if strings.HasPrefix(name, "Windows 10") && atoiSafe(build) >= 22000 {
				name = "Windows 11" + strings.TrimPrefix(name, "Windows 10")
			}
			if name != "" {
				o.Name = strings.TrimSpace(name + " " + disp)
			}
			if build != "" && o.Version == "" {
				o.Version = "10.0." + build
			}
		}
	}
	return func(s *machine.Snapshot) {
		goos, arch := s.OS.GOOS, s.OS.Arch
		s.OS = o
		s.OS.GOOS, s.OS.Arch = goos, arch
	}
}
