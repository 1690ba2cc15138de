//go:build !windows && !(linux && cgo)

package opencl

import (
	"errors"
	"runtime"
)

const loaderSupported = false

func openLoader() (lib, string, error) {
	return nil, "", errors.New("the OpenCL probe is not available in this build (" + runtime.GOOS + ", cgo off): build llamactl with CGO_ENABLED=1 on Linux")
}
