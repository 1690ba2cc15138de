package build

import (
	"errors"
	"testing"
)

// kindOf is the Kind of a Run error, -1 when err is not an *Error.
func kindOf(err error) Kind {
	var be *Error
	if !errors.As(err, &be) {
		return -1
	}
	return be.Kind
}

// Every error Run returns is an *Error, an unexpected one as Internal.
func TestAsError(t *testing.T) {
	plain := errors.New("disk full")
	if k := kindOf(asError(plain)); k != Internal || !errors.Is(asError(plain), plain) {
		t.Errorf("plain error: kind %v", k)
	}
	if k := kindOf(asError(errorf(Failed, "compile failed"))); k != Failed {
		t.Errorf("typed error: kind %v", k)
	}
	if asError(nil) != nil {
		t.Error("nil became an error")
	}
}
