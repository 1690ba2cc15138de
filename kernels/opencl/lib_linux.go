//go:build linux

package opencl

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// loaderNames are tried in order: the versioned soname first, as the ICD
// loader packages install it (ocl-icd-libopencl1, khronos-opencl-icd-loader).
var loaderNames = []string{"libOpenCL.so.1", "libOpenCL.so"}

// dlLib calls the loader through purego (dlopen/dlsym and a C call without
// cgo), so CGO_ENABLED=0 release binaries keep the probe. OpenCL entry
// points take only integer and pointer arguments, which purego passes in
// the integer registers of the 64-bit ABIs (System V x86-64, AAPCS64).
type dlLib struct {
	h    uintptr
	syms map[string]uintptr
}

const loaderSupported = true

func openLoader() (lib, string, error) {
	var msgs []string
	for _, name := range loaderNames {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			return &dlLib{h: h, syms: map[string]uintptr{}}, name, nil
		}
		msg := err.Error()
		if msg == "" {
			msg = name + ": not found in the dynamic linker's search path"
		}
		msgs = append(msgs, msg)
	}
	return nil, "", fmt.Errorf("no OpenCL ICD loader: %v (install ocl-icd-libopencl1 and a vendor driver)", msgs)
}

func (l *dlLib) call(name string, args ...uintptr) (uintptr, error) {
	fn, ok := l.syms[name]
	if !ok {
		var err error
		fn, err = purego.Dlsym(l.h, name)
		if err != nil || fn == 0 {
			return 0, fmt.Errorf("the OpenCL loader has no %s", name)
		}
		l.syms[name] = fn
	}
	r, _, _ := purego.SyscallN(fn, args...)
	return r, nil
}

// close leaves the loader mapped: some ICDs crash when unloaded while their
// threads still run, and the child process exits right after.
func (l *dlLib) close() {}

// goBuf is Go heap memory; Go's heap does not move objects, and the buffer
// stays reachable until free, so its address stays valid for the library.
type goBuf struct{ b []byte }

func (l *dlLib) alloc(n int) buffer {
	if n <= 0 {
		n = 1
	}
	return &goBuf{b: make([]byte, n)}
}

func (b *goBuf) ptr() uintptr  { return uintptr(unsafe.Pointer(&b.b[0])) }
func (b *goBuf) bytes() []byte { return b.b }
func (b *goBuf) free()         { b.b = nil }
