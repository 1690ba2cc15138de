//go:build !windows && !linux

package opencl

import (
	"errors"
	"runtime"
)

const loaderSupported = false

func openLoader() (lib, string, error) {
	return nil, "", errors.New("the OpenCL probe is not available on " + runtime.GOOS + ": it runs on Linux and Windows")
}
