// Package opencl probes OpenCL through the ICD loader (libOpenCL.so.1,
// OpenCL.dll): it lists platforms and devices, builds the embedded vector-add
// kernel on each device, runs it and verifies the result. Loading an ICD runs
// vendor driver code inside the process, so llamactl calls Run only in a child
// process (`llamactl __probe opencl`) and reads the Report it prints
// ("ocl.platforms" and the probe-child notes).
package opencl

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"
)

//go:embed probe.cl
var kernelSource string

// ReportSchema versions the child's JSON document.
const ReportSchema = 1

// Status values of a Report.
const (
	StatusOK          = "ok"
	StatusNoLoader    = "no-icd-loader"
	StatusNoPlatforms = "no-platforms"
	StatusError       = "error"
)

// Report is what the child prints: one document for the whole probe.
type Report struct {
	Schema    int        `json:"schema"`
	Loader    string     `json:"loader,omitempty"`
	Status    string     `json:"status"`
	Code      int32      `json:"code,omitempty"` // OpenCL error code behind Status
	Error     string     `json:"error,omitempty"`
	Platforms []Platform `json:"platforms,omitempty"`
}

// Platform is one ICD's platform.
type Platform struct {
	Name    string   `json:"name"`
	Vendor  string   `json:"vendor"`
	Version string   `json:"version"`
	Devices []Device `json:"devices,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// Device is one device and what the kernel did on it.
type Device struct {
	Name           string `json:"name"`
	Vendor         string `json:"vendor,omitempty"`
	Type           string `json:"type"` // GPU, CPU, ACCELERATOR, CUSTOM, DEFAULT
	Version        string `json:"version,omitempty"`
	OpenCLCVersion string `json:"opencl_c_version,omitempty"`
	DriverVersion  string `json:"driver_version,omitempty"`
	GlobalMemMiB   uint64 `json:"global_mem_mib,omitempty"`
	Build          Step   `json:"build"`
	Run            Step   `json:"run"`
	Verify         Step   `json:"verify"`
}

// Step is one stage on one device. Skipped stages have OK false and Skipped true.
type Step struct {
	OK      bool   `json:"ok"`
	Skipped bool   `json:"skipped,omitempty"`
	Code    int32  `json:"code,omitempty"`
	Error   string `json:"error,omitempty"`
	Log     string `json:"log,omitempty"` // the build log on build failures
}

// OpenCL constants (Khronos cl.h); only those the probe uses.
const (
	clSuccess            = 0
	clDeviceNotFound     = -1
	clBuildProgramFail   = -11
	clPlatformNotFound   = -1001 // CL_PLATFORM_NOT_FOUND_KHR, the ICD loader's "no platforms"
	clPlatformVersion    = 0x0901
	clPlatformName       = 0x0902
	clPlatformVendor     = 0x0903
	clDeviceType         = 0x1000
	clDeviceGlobalMem    = 0x101F
	clDeviceName         = 0x102B
	clDeviceVendor       = 0x102C
	clDriverVersion      = 0x102D
	clDeviceVersion      = 0x102F
	clDeviceOpenCLC      = 0x103D
	clDeviceTypeAll      = 0xFFFFFFFF
	clProgramBuildLog    = 0x1183
	clMemReadOnly        = 1 << 2
	clMemWriteOnly       = 1 << 1
	clMemCopyHostPtr     = 1 << 5
	clTrue               = 1
	maxPlatforms         = 32
	maxDevices           = 64
	probeElements        = 1024
	maxInfoBytes         = 1 << 16
	maxBuildLogBytes     = 1 << 16
	handleSize           = int(unsafe.Sizeof(uintptr(0)))
	errNotSupported64bit = "the OpenCL probe needs a 64-bit build"
)

// lib is the ICD loader as the probe needs it: call a function by name with
// integer/pointer arguments, and memory the library may read and write.
// Implementations: cgo + dlopen on Linux, syscall on Windows.
type lib interface {
	// call returns the function's integer result; err when the symbol is missing.
	call(name string, args ...uintptr) (uintptr, error)
	alloc(n int) buffer
	close()
}

// buffer is memory outside Go's moving rules, valid until free.
type buffer interface {
	ptr() uintptr
	bytes() []byte
	free()
}

// Run loads the ICD loader and probes every device. It never panics on a
// broken driver's answers; problems become the Report's Status and Errors.
func Run() Report {
	if handleSize != 8 {
		return Report{Schema: ReportSchema, Status: StatusError, Error: errNotSupported64bit}
	}
	l, name, err := openLoader()
	if err != nil {
		return Report{Schema: ReportSchema, Status: StatusNoLoader, Error: err.Error()}
	}
	defer l.close()
	r := probe(l, kernelSource)
	r.Loader = name
	return r
}

func code(r uintptr) int32 { return int32(uint32(r)) }

func probe(l lib, src string) Report {
	rep := Report{Schema: ReportSchema, Status: StatusOK}
	ids := l.alloc(maxPlatforms * handleSize)
	defer ids.free()
	n := l.alloc(4)
	defer n.free()
	r, err := l.call("clGetPlatformIDs", maxPlatforms, ids.ptr(), n.ptr())
	if err != nil {
		return Report{Schema: ReportSchema, Status: StatusNoLoader, Error: err.Error()}
	}
	count := int(binary.LittleEndian.Uint32(n.bytes()))
	if c := code(r); c != clSuccess || count == 0 {
		if c == clSuccess || c == clPlatformNotFound {
			c = clPlatformNotFound
		}
		return Report{Schema: ReportSchema, Status: StatusNoPlatforms, Code: c,
			Error: fmt.Sprintf("clGetPlatformIDs returned %d (%s): the loader found no OpenCL platform (no ICD installed, or every ICD failed to load)", c, errName(c))}
	}
	count = min(count, maxPlatforms)
	for i := range count {
		p := handleAt(ids, i)
		pl := Platform{
			Name:    infoString(l, "clGetPlatformInfo", p, clPlatformName),
			Vendor:  infoString(l, "clGetPlatformInfo", p, clPlatformVendor),
			Version: infoString(l, "clGetPlatformInfo", p, clPlatformVersion),
		}
		pl.Devices, pl.Error = devices(l, p, src)
		rep.Platforms = append(rep.Platforms, pl)
	}
	return rep
}

func handleAt(b buffer, i int) uintptr {
	return uintptr(binary.LittleEndian.Uint64(b.bytes()[i*handleSize:]))
}

func devices(l lib, platform uintptr, src string) ([]Device, string) {
	ids := l.alloc(maxDevices * handleSize)
	defer ids.free()
	n := l.alloc(4)
	defer n.free()
	r, err := l.call("clGetDeviceIDs", platform, clDeviceTypeAll, maxDevices, ids.ptr(), n.ptr())
	if err != nil {
		return nil, err.Error()
	}
	if c := code(r); c != clSuccess {
		if c == clDeviceNotFound {
			return nil, "the platform lists no devices (CL_DEVICE_NOT_FOUND)"
		}
		return nil, fmt.Sprintf("clGetDeviceIDs returned %d (%s)", c, errName(c))
	}
	var out []Device
	for i := range min(int(binary.LittleEndian.Uint32(n.bytes())), maxDevices) {
		d := handleAt(ids, i)
		dev := Device{
			Name:           infoString(l, "clGetDeviceInfo", d, clDeviceName),
			Vendor:         infoString(l, "clGetDeviceInfo", d, clDeviceVendor),
			Version:        infoString(l, "clGetDeviceInfo", d, clDeviceVersion),
			OpenCLCVersion: infoString(l, "clGetDeviceInfo", d, clDeviceOpenCLC),
			DriverVersion:  infoString(l, "clGetDeviceInfo", d, clDriverVersion),
			Type:           TypeName(infoUint64(l, d, clDeviceType)),
			GlobalMemMiB:   infoUint64(l, d, clDeviceGlobalMem) >> 20,
		}
		dev.Build, dev.Run, dev.Verify = runKernel(l, d, src)
		out = append(out, dev)
	}
	return out, ""
}

// TypeName names a cl_device_type bit field the way clinfo does.
func TypeName(t uint64) string {
	var names []string
	for _, b := range []struct {
		bit  uint64
		name string
	}{{4, "GPU"}, {2, "CPU"}, {8, "ACCELERATOR"}, {16, "CUSTOM"}, {1, "DEFAULT"}} {
		if t&b.bit != 0 {
			names = append(names, b.name)
		}
	}
	if len(names) == 0 {
		return "UNKNOWN"
	}
	return strings.Join(names, "|")
}

func infoString(l lib, fn string, h uintptr, param uintptr) string {
	size := l.alloc(8)
	defer size.free()
	if r, err := l.call(fn, h, param, 0, 0, size.ptr()); err != nil || code(r) != clSuccess {
		return ""
	}
	n := int(binary.LittleEndian.Uint64(size.bytes()))
	if n <= 0 || n > maxInfoBytes {
		return ""
	}
	buf := l.alloc(n)
	defer buf.free()
	if r, err := l.call(fn, h, param, uintptr(n), buf.ptr(), 0); err != nil || code(r) != clSuccess {
		return ""
	}
	return cString(buf.bytes())
}

func infoUint64(l lib, d uintptr, param uintptr) uint64 {
	buf := l.alloc(8)
	defer buf.free()
	if r, err := l.call("clGetDeviceInfo", d, param, 8, buf.ptr(), 0); err != nil || code(r) != clSuccess {
		return 0
	}
	return binary.LittleEndian.Uint64(buf.bytes())
}

// cString trims at the first NUL and surrounding blanks (some drivers pad names).
func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// runKernel builds, runs and verifies the probe kernel on one device. Every
// object created is released, in reverse order, whatever stage failed.
func runKernel(l lib, dev uintptr, source string) (build, run, verify Step) {
	skipped := Step{Skipped: true}
	build, run, verify = skipped, skipped, skipped
	var cleanup []func()
	defer func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}()
	errc := l.alloc(4)
	cleanup = append(cleanup, errc.free)
	errCode := func() int32 { return int32(binary.LittleEndian.Uint32(errc.bytes())) }
	devs := l.alloc(handleSize)
	cleanup = append(cleanup, devs.free)
	binary.LittleEndian.PutUint64(devs.bytes(), uint64(dev))
	release := func(fn string, h uintptr) { cleanup = append(cleanup, func() { _, _ = l.call(fn, h) }) }
	fail := func(api string, c int32) Step {
		return Step{Code: c, Error: fmt.Sprintf("%s returned %d (%s)", api, c, errName(c))}
	}

	ctx, err := l.call("clCreateContext", 0, 1, devs.ptr(), 0, 0, errc.ptr())
	if err != nil || ctx == 0 || errCode() != clSuccess {
		return fail("clCreateContext", errCode()), skipped, skipped
	}
	release("clReleaseContext", ctx)
	queue, err := l.call("clCreateCommandQueue", ctx, dev, 0, errc.ptr())
	if err != nil || queue == 0 || errCode() != clSuccess {
		return fail("clCreateCommandQueue", errCode()), skipped, skipped
	}
	release("clReleaseCommandQueue", queue)

	src := l.alloc(len(source) + 1)
	cleanup = append(cleanup, src.free)
	copy(src.bytes(), source)
	srcs := l.alloc(handleSize)
	cleanup = append(cleanup, srcs.free)
	binary.LittleEndian.PutUint64(srcs.bytes(), uint64(src.ptr()))
	prog, err := l.call("clCreateProgramWithSource", ctx, 1, srcs.ptr(), 0, errc.ptr())
	if err != nil || prog == 0 || errCode() != clSuccess {
		return fail("clCreateProgramWithSource", errCode()), skipped, skipped
	}
	release("clReleaseProgram", prog)
	r, err := l.call("clBuildProgram", prog, 1, devs.ptr(), 0, 0, 0)
	if err != nil {
		return Step{Error: err.Error()}, skipped, skipped
	}
	if c := code(r); c != clSuccess {
		s := fail("clBuildProgram", c)
		s.Log = buildLog(l, prog, dev)
		return s, skipped, skipped
	}
	kname := l.alloc(5)
	cleanup = append(cleanup, kname.free)
	copy(kname.bytes(), "vadd\x00")
	kern, err := l.call("clCreateKernel", prog, kname.ptr(), errc.ptr())
	if err != nil || kern == 0 || errCode() != clSuccess {
		s := fail("clCreateKernel", errCode())
		s.Log = buildLog(l, prog, dev)
		return s, skipped, skipped
	}
	release("clReleaseKernel", kern)
	build = Step{OK: true}

	// Run: a[i] = i, b[i] = 2*(i%100); c = a + b.
	const bytes = probeElements * 4
	a, b, c := l.alloc(bytes), l.alloc(bytes), l.alloc(bytes)
	cleanup = append(cleanup, a.free, b.free, c.free)
	for i := range probeElements {
		binary.LittleEndian.PutUint32(a.bytes()[i*4:], math.Float32bits(float32(i)))
		binary.LittleEndian.PutUint32(b.bytes()[i*4:], math.Float32bits(float32(2*(i%100))))
	}
	var bufs [3]uintptr
	for i, hb := range []buffer{a, b, nil} {
		flags, host := uintptr(clMemReadOnly|clMemCopyHostPtr), uintptr(0)
		if hb == nil {
			flags = clMemWriteOnly
		} else {
			host = hb.ptr()
		}
		m, err := l.call("clCreateBuffer", ctx, flags, bytes, host, errc.ptr())
		if err != nil || m == 0 || errCode() != clSuccess {
			return build, fail("clCreateBuffer", errCode()), skipped
		}
		release("clReleaseMemObject", m)
		bufs[i] = m
	}
	arg := l.alloc(handleSize)
	cleanup = append(cleanup, arg.free)
	for i, m := range bufs {
		binary.LittleEndian.PutUint64(arg.bytes(), uint64(m))
		if r, err := l.call("clSetKernelArg", kern, uintptr(i), uintptr(handleSize), arg.ptr()); err != nil || code(r) != clSuccess {
			return build, fail("clSetKernelArg", code(r)), skipped
		}
	}
	global := l.alloc(8)
	cleanup = append(cleanup, global.free)
	binary.LittleEndian.PutUint64(global.bytes(), probeElements)
	if r, err := l.call("clEnqueueNDRangeKernel", queue, kern, 1, 0, global.ptr(), 0, 0, 0, 0); err != nil || code(r) != clSuccess {
		return build, fail("clEnqueueNDRangeKernel", code(r)), skipped
	}
	if r, err := l.call("clEnqueueReadBuffer", queue, bufs[2], clTrue, 0, bytes, c.ptr(), 0, 0, 0); err != nil || code(r) != clSuccess {
		return build, fail("clEnqueueReadBuffer", code(r)), skipped
	}
	if r, err := l.call("clFinish", queue); err != nil || code(r) != clSuccess {
		return build, fail("clFinish", code(r)), skipped
	}
	run = Step{OK: true}

	bad := 0
	for i := range probeElements {
		got := math.Float32frombits(binary.LittleEndian.Uint32(c.bytes()[i*4:]))
		if got != float32(i)+float32(2*(i%100)) {
			bad++
		}
	}
	if bad > 0 {
		return build, run, Step{Error: fmt.Sprintf("%d of %d results wrong", bad, probeElements)}
	}
	return build, run, Step{OK: true}
}

func buildLog(l lib, prog, dev uintptr) string {
	size := l.alloc(8)
	defer size.free()
	if r, err := l.call("clGetProgramBuildInfo", prog, dev, clProgramBuildLog, 0, 0, size.ptr()); err != nil || code(r) != clSuccess {
		return ""
	}
	n := min(int(binary.LittleEndian.Uint64(size.bytes())), maxBuildLogBytes)
	if n <= 0 {
		return ""
	}
	buf := l.alloc(n)
	defer buf.free()
	if r, err := l.call("clGetProgramBuildInfo", prog, dev, clProgramBuildLog, uintptr(n), buf.ptr(), 0); err != nil || code(r) != clSuccess {
		return ""
	}
	return cString(buf.bytes())
}

// errName names the OpenCL error codes a probe meets most.
func errName(c int32) string {
	switch c {
	case 0:
		return "CL_SUCCESS"
	case -1:
		return "CL_DEVICE_NOT_FOUND"
	case -2:
		return "CL_DEVICE_NOT_AVAILABLE"
	case -3:
		return "CL_COMPILER_NOT_AVAILABLE"
	case -4:
		return "CL_MEM_OBJECT_ALLOCATION_FAILURE"
	case -5:
		return "CL_OUT_OF_RESOURCES"
	case -6:
		return "CL_OUT_OF_HOST_MEMORY"
	case -11:
		return "CL_BUILD_PROGRAM_FAILURE"
	case -30:
		return "CL_INVALID_VALUE"
	case -32:
		return "CL_INVALID_PLATFORM"
	case -33:
		return "CL_INVALID_DEVICE"
	case -1001:
		return "CL_PLATFORM_NOT_FOUND_KHR"
	}
	return "see the OpenCL error code list"
}

// Available says whether this build can load an ICD loader at all (cgo on
// Linux, always on Windows).
func Available() bool { return loaderSupported }
