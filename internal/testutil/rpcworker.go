//go:build !windows

package testutil

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// StartRPCWorker starts a real ggml-rpc-server (bin) on 127.0.0.1 at a
// free port with args and env added, waits until it listens, and kills its
// process group when the test ends. It returns the worker's HOST:PORT.
func StartRPCWorker(tb testing.TB, bin string, env []string, args ...string) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ep := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, append([]string{"-H", "127.0.0.1", "-p", fmt.Sprint(port)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logPath := filepath.Join(tb.TempDir(), "worker.log")
	log, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		log.Close()
	})
	for i := 0; i < 300; i++ {
		if c, err := net.DialTimeout("tcp", ep, time.Second); err == nil {
			c.Close()
			return ep
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(logPath)
	tb.Fatalf("%s never listened on %s:\n%s", bin, ep, b)
	return ""
}
