package proc

import "time"

// Env is the part of the outside world a domain package may touch to run
// tools and child probes: the command runner, the environment, the clock and
// llamactl's own executable. Commands pass cmdutil.Factory.Env(); tests build
// one from recorded parts.
type Env struct {
	Runner     Runner
	Getenv     func(string) string
	Environ    func() []string
	Now        func() time.Time
	Executable func() (string, error)
}
