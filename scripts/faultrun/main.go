//go:build linux

// Command faultrun is the fault suite's (scripts/stages/25-faults.sh) probe:
//
//	faultrun run SECONDS CMD ARGS...   run CMD with a deadline; print "exit=N rss_kib=N secs=N"
//	faultrun count MARKER              how many processes carry MARKER in their environment
//	faultrun serve DIR PORTFILE        serve DIR on 127.0.0.1 (the port goes to PORTFILE) until killed
//	faultrun gguf PATH                 write a small real GGUF model (runner/gguf/ggufwrite)
//	faultrun hostile-gguf KIND PATH    write a hostile GGUF header: "strings" (63 strings of 16 MiB, sparse) or "tensors" (200 000 long tensor names)
//	faultrun unsafe-tar PATH           write a .tar.gz whose entry climbs out of its folder
//	faultrun json FILE...              exit 1 unless every FILE is valid JSON
//
// Linux only (it reads /proc and the child's rusage).
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "faultrun:", err)
		os.Exit(1)
	}
}

// hostileGGUF writes a GGUF v3 header that stays within every per-item
// limit of the reader but would once have cost gigabytes of memory.
func hostileGGUF(kind, path string) error {
	le := binary.LittleEndian
	b := []byte("GGUF")
	b = le.AppendUint32(b, 3)
	switch kind {
	case "strings":
		const n, size = 63, 16 << 20
		b = le.AppendUint64(b, 0)
		b = le.AppendUint64(b, n)
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		off := int64(0)
		write := func(p []byte) error { _, err := f.WriteAt(p, off); off += int64(len(p)); return err }
		if err := write(b); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			var kv []byte
			key := fmt.Sprintf("k.%02d", i)
			kv = le.AppendUint64(kv, uint64(len(key)))
			kv = append(kv, key...)
			kv = le.AppendUint32(kv, 8) // string
			kv = le.AppendUint64(kv, size)
			if err := write(kv); err != nil {
				return err
			}
			off += size // a hole: zeros, no disk
		}
		return f.Truncate(off)
	case "tensors":
		const n = 200000
		b = le.AppendUint64(b, n)
		b = le.AppendUint64(b, 0)
		name := strings.Repeat("t", 200)
		for i := 0; i < n; i++ {
			nm := fmt.Sprintf("%s%07d", name, i)
			b = le.AppendUint64(b, uint64(len(nm)))
			b = append(b, nm...)
			b = le.AppendUint32(b, 1)
			b = le.AppendUint64(b, 32)
			b = le.AppendUint32(b, 0)
			b = le.AppendUint64(b, uint64(i)*128)
		}
		return os.WriteFile(path, b, 0o644)
	}
	return fmt.Errorf("unknown kind %q", kind)
}

func unsafeTar(path string) error {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range []string{"llama.cpp-b9999/CMakeLists.txt", "llama.cpp-b9999/../../escaped"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: 2}); err != nil {
			return err
		}
		tw.Write([]byte("x\n"))
	}
	tw.Close()
	gz.Close()
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: faultrun run SECONDS CMD... | count MARKER | serve DIR PORTFILE")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "run":
		run(os.Args[2], os.Args[3:])
	case "count":
		fmt.Println(count(os.Args[2]))
	case "serve":
		serve(os.Args[2], os.Args[3])
	case "gguf":
		gf, err := ggufwrite.Model(ggufwrite.Small(ggufwrite.Config{Arch: "llama"}))
		if err == nil {
			err = gf.WriteFile(os.Args[2])
		}
		check(err)
	case "hostile-gguf":
		check(hostileGGUF(os.Args[2], os.Args[3]))
	case "unsafe-tar":
		check(unsafeTar(os.Args[2]))
	case "json":
		for _, p := range os.Args[2:] {
			b, err := os.ReadFile(p)
			if err == nil && !json.Valid(b) {
				err = fmt.Errorf("%s: not valid JSON (%d bytes)", p, len(b))
			}
			check(err)
		}
	default:
		os.Exit(2)
	}
}

func run(secs string, argv []string) {
	s, err := strconv.ParseFloat(secs, 64)
	if err != nil || len(argv) == 0 {
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(s*float64(time.Second)))
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		code = 124
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		code = 127
	}
	rss := int64(0)
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss
		}
	}
	fmt.Fprintf(os.Stderr, "\nexit=%d rss_kib=%d secs=%.1f\n", code, rss, time.Since(start).Seconds())
}

func count(marker string) int {
	n := 0
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range envs {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(marker)) {
			n++
		}
	}
	return n
}

func serve(dir, portFile string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(portFile+".tmp", []byte(port), 0o644); err != nil {
		os.Exit(1)
	}
	os.Rename(portFile+".tmp", portFile)
	// Served from disk on every request, so the suite can swap a poisoned
	// file for a good one while the server runs.
	http.Serve(l, http.FileServer(http.Dir(dir)))
}
