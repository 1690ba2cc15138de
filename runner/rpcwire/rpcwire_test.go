package rpcwire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// fakeWorker is a hostile or broken worker for what a real one never
// does (the real ones are in real_test.go): it reads requests as the wire
// format says and answers with reply(cmd, request).
type fakeWorker struct {
	reply func(cmd byte, req []byte) (out []byte, hangup bool)
}

func frame(b []byte) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, uint64(len(b))), b...)
}

// serve runs the fake on one end of a pipe and returns the other.
func (f fakeWorker) serve(t *testing.T) net.Conn {
	a, b := net.Pipe()
	go func() {
		defer b.Close()
		for {
			var hdr [9]byte
			if _, err := io.ReadFull(b, hdr[:]); err != nil {
				return
			}
			n := binary.LittleEndian.Uint64(hdr[1:])
			if n > 64<<20 {
				return
			}
			req := make([]byte, n)
			if _, err := io.ReadFull(b, req); err != nil {
				return
			}
			out, hangup := f.reply(hdr[0], req)
			if len(out) > 0 {
				if _, err := b.Write(out); err != nil {
					return
				}
			}
			if hangup {
				return
			}
		}
	}()
	t.Cleanup(func() { a.Close() })
	return a
}

// honest answers every command as a v8 worker with 1 GiB free would;
// over changes the answer to one command.
func honest(over map[byte]func(req []byte) ([]byte, bool)) fakeWorker {
	store := map[uint64][]byte{}
	return fakeWorker{reply: func(cmd byte, req []byte) ([]byte, bool) {
		if f, ok := over[cmd]; ok {
			return f(req)
		}
		le := binary.LittleEndian
		switch cmd {
		case cmdHello:
			return frame(append([]byte{8, 0, 0, 0}, make([]byte, connCapsSize)...)), false
		case cmdDeviceCount:
			return frame(le.AppendUint32(nil, 1)), false
		case cmdGetDeviceMemory:
			return frame(le.AppendUint64(le.AppendUint64(nil, 1<<30), 1<<30)), false
		case cmdGetAlignment:
			return frame(le.AppendUint64(nil, 32)), false
		case cmdGetMaxSize:
			return frame(le.AppendUint64(nil, 1<<40)), false
		case cmdAllocBuffer:
			n := le.Uint64(req[4:])
			store[0x1000] = make([]byte, n)
			return frame(le.AppendUint64(le.AppendUint64(nil, 0x1000), n)), false
		case cmdBufferGetBase:
			return frame(le.AppendUint64(nil, 0x7f0000)), false
		case cmdSetTensor:
			copy(store[0x1000], req[tensorSize+9:])
			return nil, false
		case cmdGetTensor:
			n := le.Uint64(req[tensorSize+8:])
			return frame(store[0x1000][:n]), false
		case cmdFreeBuffer:
			return nil, false
		}
		return nil, true
	}}
}

func measure(t *testing.T, f fakeWorker, o Options) (*Result, *Error) {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	res, err := Measure(context.Background(), f.serve(t), "10.0.0.9:50052", o)
	if err == nil {
		return res, nil
	}
	var we *Error
	if !errors.As(err, &we) {
		t.Fatalf("not an *Error: %T %v", err, err)
	}
	if !strings.Contains(we.Error(), "10.0.0.9:50052") {
		t.Errorf("the error does not name the worker: %s", we)
	}
	return nil, we
}

func TestHonestFake(t *testing.T) {
	res, err := measure(t, honest(nil), Options{Bytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != "8.0.0" || res.Bytes != 1<<20 || res.UploadMiBs <= 0 || res.DownloadMiB <= 0 || res.Devices != 1 {
		t.Errorf("%+v", res)
	}
}

// Malformed and hostile replies end in a typed error naming the worker and
// the command, never in a hang, a panic or a huge allocation.
func TestHostileReplies(t *testing.T) {
	le := binary.LittleEndian
	huge := func([]byte) ([]byte, bool) { return le.AppendUint64(nil, 1<<62), false }
	for _, c := range []struct {
		name string
		cmd  byte
		f    func([]byte) ([]byte, bool)
		kind string
		step string
	}{
		{"a version 2 worker", cmdHello, func([]byte) ([]byte, bool) {
			return frame(append([]byte{2, 0, 0, 0}, make([]byte, connCapsSize)...)), false
		}, "version", "HELLO"},
		{"a closed HELLO", cmdHello, func([]byte) ([]byte, bool) { return nil, true }, "handshake", "HELLO"},
		{"a HELLO of 2^62 bytes", cmdHello, huge, "malformed", "HELLO"},
		{"a short HELLO", cmdHello, func([]byte) ([]byte, bool) { return frame([]byte{8, 0, 0}), false }, "malformed", "HELLO"},
		{"a reply that stops", cmdDeviceCount, func([]byte) ([]byte, bool) { return le.AppendUint64(nil, 4), true }, "closed", "DEVICE_COUNT"},
		{"no device", cmdDeviceCount, func([]byte) ([]byte, bool) { return frame(le.AppendUint32(nil, 0)), false }, "malformed", "DEVICE_COUNT"},
		{"alignment 3", cmdGetAlignment, func([]byte) ([]byte, bool) { return frame(le.AppendUint64(nil, 3)), false }, "malformed", "GET_ALIGNMENT"},
		{"no free memory", cmdGetDeviceMemory, func([]byte) ([]byte, bool) { return frame(make([]byte, 16)), false }, "memory", "GET_DEVICE_MEMORY"},
		{"allocation refused", cmdAllocBuffer, func([]byte) ([]byte, bool) { return frame(make([]byte, 16)), false }, "alloc", "ALLOC_BUFFER"},
		{"a buffer too small", cmdAllocBuffer, func([]byte) ([]byte, bool) { return frame(le.AppendUint64(le.AppendUint64(nil, 1), 16)), false }, "malformed", "ALLOC_BUFFER"},
		{"SET_TENSOR refused (the worker hangs up)", cmdSetTensor, func([]byte) ([]byte, bool) { return nil, true }, "closed", "SET_TENSOR"},
		{"GET_TENSOR of 2^62 bytes", cmdGetTensor, huge, "malformed", "GET_TENSOR"},
		{"other bytes back", cmdGetTensor, func(req []byte) ([]byte, bool) { return frame(make([]byte, le.Uint64(req[tensorSize+8:]))), false }, "mismatch", "GET_TENSOR"},
		{"a silent worker", cmdGetMaxSize, func([]byte) ([]byte, bool) { return nil, false }, "timeout", "GET_MAX_SIZE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t0 := time.Now()
			_, err := measure(t, honest(map[byte]func([]byte) ([]byte, bool){c.cmd: c.f}), Options{Bytes: 1 << 20, Timeout: 300 * time.Millisecond})
			if err == nil || err.Kind != c.kind || err.Step != c.step {
				t.Fatalf("want %s at %s, got %+v", c.kind, c.step, err)
			}
			if d := time.Since(t0); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
			if c.kind == "version" && (!strings.Contains(err.Error(), "2.0.0") || !strings.Contains(err.Error(), "8.x")) {
				t.Errorf("the version error does not name both versions: %s", err)
			}
		})
	}
}

// A worker of an older protocol closes the connection on the 24-byte
// HELLO and answers the empty one: MeasureEndpoint names its version.
func TestLegacyWorkerNamed(t *testing.T) {
	legacy := fakeWorker{reply: func(cmd byte, req []byte) ([]byte, bool) {
		if cmd == cmdHello && len(req) == 0 {
			return frame([]byte{3, 0, 0}), false
		}
		return nil, true
	}}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) { return legacy.serve(t), nil }
	_, err := MeasureEndpoint(context.Background(), dial, "10.0.0.9:50052", Options{Timeout: time.Second})
	var we *Error
	if !errors.As(err, &we) || we.Kind != "version" || we.Version != "3.0.0" || !strings.Contains(we.Error(), "3.0.0") || !strings.Contains(we.Error(), "7.x, 8.x") {
		t.Fatalf("%+v", err)
	}
}

// A cancelled context interrupts a read that would wait for the timeout.
func TestContextInterrupts(t *testing.T) {
	silent := fakeWorker{reply: func(byte, []byte) ([]byte, bool) { return nil, false }}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := Measure(ctx, silent.serve(t), "10.0.0.9:50052", Options{Timeout: time.Minute})
	if err == nil || time.Since(t0) > 5*time.Second {
		t.Fatalf("%v after %v", err, time.Since(t0))
	}
}

func TestTexts(t *testing.T) {
	testutil.CheckTextFiles(t, textEN, textZhCN)
	e := &Error{Kind: "version", Endpoint: "10.0.0.9:50052", Version: "9.1.0", Supported: Supported().String()}
	zh := e.Text(lang.ZhCN)
	if w := testutil.EnglishLeft(zh); w != "" || !strings.Contains(zh, "9.1.0") || !strings.Contains(zh, "7.x, 8.x") {
		t.Errorf("%q (English left: %q)", zh, w)
	}
}

// fuzzConn is a worker whose whole side of the conversation is data.
type fuzzConn struct {
	net.Conn
	r *bytes.Reader
}

func (c fuzzConn) Read(b []byte) (int, error)       { return c.r.Read(b) }
func (c fuzzConn) Write(b []byte) (int, error)      { return len(b), nil }
func (c fuzzConn) SetDeadline(time.Time) error      { return nil }
func (c fuzzConn) SetReadDeadline(time.Time) error  { return nil }
func (c fuzzConn) SetWriteDeadline(time.Time) error { return nil }
func (c fuzzConn) Close() error                     { return nil }
func (c fuzzConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c fuzzConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }

// The reply parser on any bytes: an error or a sane result, no panic, no
// allocation beyond the payload asked for.
func FuzzReplies(f *testing.F) {
	le := binary.LittleEndian
	var good []byte
	good = append(good, frame(append([]byte{8, 0, 0, 0}, make([]byte, connCapsSize)...))...)
	good = append(good, frame(le.AppendUint32(nil, 1))...)
	good = append(good, frame(le.AppendUint64(le.AppendUint64(nil, 1<<30), 1<<30))...)
	for i := 0; i < 5; i++ {
		good = append(good, frame(le.AppendUint64(nil, 32))...)
	}
	good = append(good, frame(le.AppendUint64(nil, 1<<40))...)
	f.Add(good)
	f.Add(append(append([]byte(nil), good...), frame(le.AppendUint64(le.AppendUint64(nil, 1), MinBytes))...))
	f.Add(frame([]byte{3, 0, 0}))
	f.Add(le.AppendUint64(nil, 1<<63))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Measure(context.Background(), fuzzConn{r: bytes.NewReader(data)}, "f:1", Options{Bytes: MinBytes, Pings: 2, Rounds: 1})
		if err == nil && (res.Bytes != MinBytes || res.Version == "") {
			t.Fatalf("%+v", res)
		}
		var we *Error
		if err != nil && !errors.As(err, &we) {
			t.Fatalf("%T %v", err, err)
		}
	})
}
