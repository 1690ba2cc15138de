//go:build windows

package opencl

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// OpenCL.dll is the Khronos ICD loader that GPU drivers install into
// System32; loading it only from there avoids DLL planting
// ("nv.nvml-load" security note).
const loaderDLL = "OpenCL.dll"

type winLib struct {
	dll   *windows.LazyDLL
	procs map[string]*windows.LazyProc
}

const loaderSupported = true

func openLoader() (lib, string, error) {
	dll := windows.NewLazySystemDLL(loaderDLL)
	if err := dll.Load(); err != nil {
		return nil, "", fmt.Errorf("no OpenCL ICD loader: %v (install or repair the GPU driver, which ships OpenCL.dll)", err)
	}
	return &winLib{dll: dll, procs: map[string]*windows.LazyProc{}}, loaderDLL, nil
}

func (l *winLib) call(name string, args ...uintptr) (uintptr, error) {
	p, ok := l.procs[name]
	if !ok {
		p = l.dll.NewProc(name)
		if err := p.Find(); err != nil {
			return 0, fmt.Errorf("the OpenCL loader has no %s", name)
		}
		l.procs[name] = p
	}
	r, _, _ := p.Call(args...)
	return r, nil
}

func (l *winLib) close() {}

// goBuf is Go heap memory; Go's heap does not move objects, and the buffer
// stays reachable until free, so its address stays valid for the DLL.
type goBuf struct{ b []byte }

func (l *winLib) alloc(n int) buffer {
	if n <= 0 {
		n = 1
	}
	return &goBuf{b: make([]byte, n)}
}

func (b *goBuf) ptr() uintptr  { return uintptr(unsafe.Pointer(&b.b[0])) }
func (b *goBuf) bytes() []byte { return b.b }
func (b *goBuf) free()         { b.b = nil }
