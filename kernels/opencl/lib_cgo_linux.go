//go:build linux && cgo

package opencl

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// OpenCL entry points take only integer and pointer arguments, so one
// all-uintptr_t prototype per arity calls them correctly on the 64-bit ABIs
// (System V x86-64, AAPCS64). Results are read as uintptr_t; callers
// truncate cl_int results.
typedef uintptr_t u;
static u llamactl_cl_call(void *fn, int n, u *a) {
	switch (n) {
	case 0: return ((u(*)(void))fn)();
	case 1: return ((u(*)(u))fn)(a[0]);
	case 2: return ((u(*)(u,u))fn)(a[0],a[1]);
	case 3: return ((u(*)(u,u,u))fn)(a[0],a[1],a[2]);
	case 4: return ((u(*)(u,u,u,u))fn)(a[0],a[1],a[2],a[3]);
	case 5: return ((u(*)(u,u,u,u,u))fn)(a[0],a[1],a[2],a[3],a[4]);
	case 6: return ((u(*)(u,u,u,u,u,u))fn)(a[0],a[1],a[2],a[3],a[4],a[5]);
	case 7: return ((u(*)(u,u,u,u,u,u,u))fn)(a[0],a[1],a[2],a[3],a[4],a[5],a[6]);
	case 8: return ((u(*)(u,u,u,u,u,u,u,u))fn)(a[0],a[1],a[2],a[3],a[4],a[5],a[6],a[7]);
	case 9: return ((u(*)(u,u,u,u,u,u,u,u,u))fn)(a[0],a[1],a[2],a[3],a[4],a[5],a[6],a[7],a[8]);
	}
	return (u)-1;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// loaderNames are tried in order: the versioned soname first, as the ICD
// loader packages install it (ocl-icd-libopencl1, khronos-opencl-icd-loader).
var loaderNames = []string{"libOpenCL.so.1", "libOpenCL.so"}

type dlLib struct {
	h    unsafe.Pointer
	syms map[string]unsafe.Pointer
}

const loaderSupported = true

func openLoader() (lib, string, error) {
	var msgs []string
	for _, name := range loaderNames {
		cs := C.CString(name)
		h := C.dlopen(cs, C.RTLD_NOW|C.RTLD_LOCAL)
		C.free(unsafe.Pointer(cs))
		if h != nil {
			return &dlLib{h: h, syms: map[string]unsafe.Pointer{}}, name, nil
		}
		msgs = append(msgs, C.GoString(C.dlerror()))
	}
	return nil, "", fmt.Errorf("no OpenCL ICD loader: %v (install ocl-icd-libopencl1 and a vendor driver)", msgs)
}

func (l *dlLib) call(name string, args ...uintptr) (uintptr, error) {
	if len(args) > 9 {
		return 0, errors.New("too many arguments")
	}
	fn, ok := l.syms[name]
	if !ok {
		cs := C.CString(name)
		fn = C.dlsym(l.h, cs)
		C.free(unsafe.Pointer(cs))
		if fn == nil {
			return 0, fmt.Errorf("the OpenCL loader has no %s", name)
		}
		l.syms[name] = fn
	}
	var a [9]C.uintptr_t
	for i, v := range args {
		a[i] = C.uintptr_t(v)
	}
	return uintptr(C.llamactl_cl_call(fn, C.int(len(args)), &a[0])), nil
}

// close leaves the loader mapped: some ICDs crash when unloaded while their
// threads still run, and the child process exits right after.
func (l *dlLib) close() {}

// cBuf is C memory, so the library may keep reading it during a call without
// breaking cgo's pointer rules.
type cBuf struct {
	p unsafe.Pointer
	n int
}

func (l *dlLib) alloc(n int) buffer {
	if n <= 0 {
		n = 1
	}
	return &cBuf{p: C.calloc(C.size_t(n), 1), n: n}
}

func (b *cBuf) ptr() uintptr  { return uintptr(b.p) }
func (b *cBuf) bytes() []byte { return unsafe.Slice((*byte)(b.p), b.n) }
func (b *cBuf) free()         { C.free(b.p); b.p = nil }
