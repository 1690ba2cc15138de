package build

import (
	"errors"
	"fmt"
)

// Kind is what went wrong in a build, in the terms a command maps to an
// exit code (docs/exit-codes.md): the build package itself knows nothing of
// exit codes.
type Kind int

const (
	// Internal: llamactl itself failed (an unexpected I/O error).
	Internal Kind = iota
	// BadInput: an option cannot be used (an --out that cannot be created).
	BadInput
	// Blocked: the machine cannot build yet; the message lists what to fix.
	Blocked
	// Failed: a build step (patch, configure, compile, verify) failed.
	Failed
	// Interrupted: the user stopped the build (Ctrl-C).
	Interrupted
)

func (k Kind) String() string {
	switch k {
	case BadInput:
		return "bad-input"
	case Blocked:
		return "blocked"
	case Failed:
		return "failed"
	case Interrupted:
		return "interrupted"
	}
	return "internal"
}

// Error is every error Run returns: what happened, why and the next step
// in Message.
type Error struct {
	Kind    Kind
	Message string
	Err     error // the underlying error, if any
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// asError makes err an *Error: one that is not already becomes Internal.
func asError(err error) error {
	var be *Error
	if err == nil || errors.As(err, &be) {
		return err
	}
	return &Error{Kind: Internal, Message: err.Error(), Err: err}
}

func errorf(k Kind, format string, a ...any) error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, a...)}
}
