//go:build !windows

package launch

// GuardChildren is a no-op where internal/proc starts the engine in its
// own process group and kills the group.
func GuardChildren() (release func()) { return func() {} }
