// Package rpcwire is a small client of ggml's RPC protocol (the wire
// format of llama.cpp's ggml-rpc-server), enough to measure what a worker
// costs to use: the round trip of a small command and the upload and
// download rates of a bounded payload written to a buffer on the worker and
// read back. It never runs a computation on the worker.
//
// Wire format (little-endian, packed structs): a request is the command
// (1 byte), the request size (8 bytes) and the request; a reply, for the
// commands that have one, is its size (8 bytes) and its bytes. The first
// command of a connection must be HELLO. Every size read from the wire is
// checked against the size the command's reply must have before anything
// is read or allocated, and every read and write has a deadline.
package rpcwire

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The commands (their numbers on the wire).
const (
	cmdAllocBuffer     = 0
	cmdGetAlignment    = 1
	cmdGetMaxSize      = 2
	cmdBufferGetBase   = 3
	cmdFreeBuffer      = 4
	cmdSetTensor       = 6
	cmdGetTensor       = 8
	cmdGetDeviceMemory = 11
	cmdHello           = 14
	cmdDeviceCount     = 15
)

const (
	connCapsSize = 24
	helloReply   = 4 + connCapsSize // major, minor, patch, padding, conn_caps
	legacyHello  = 3                // major, minor, patch: the HELLO of protocols before conn_caps
	tensorSize   = 296              // the serialized rpc_tensor
	typeF32      = 0

	// DefaultBytes is the payload of a transfer test.
	DefaultBytes = 8 << 20
	// MaxBytes bounds the payload whatever is asked.
	MaxBytes = 1 << 30
	// MinBytes is the smallest payload worth timing.
	MinBytes = 64 << 10
	// chunk is how much is written or read under one deadline.
	chunk = 1 << 20
)

//go:embed data/protocol.json
var protocolJSON []byte

// Protocol is data/protocol.json: the major versions this client speaks.
type Protocol struct {
	Majors  []int             `json:"majors"`
	Seen    map[string]string `json:"seen"`
	Sources []string          `json:"sources"`
}

// Supported is the protocol this client speaks (data/protocol.json).
func Supported() Protocol {
	var p Protocol
	if err := json.Unmarshal(protocolJSON, &p); err != nil || len(p.Majors) == 0 {
		panic(fmt.Sprintf("rpcwire: data/protocol.json: %v", err))
	}
	return p
}

// String names the supported versions as "7.x, 8.x".
func (p Protocol) String() string {
	var s []string
	for _, m := range p.Majors {
		s = append(s, fmt.Sprintf("%d.x", m))
	}
	return strings.Join(s, ", ")
}

func (p Protocol) speaks(major int) bool {
	for _, m := range p.Majors {
		if m == major {
			return true
		}
	}
	return false
}

// Options bound a measurement.
type Options struct {
	// Bytes is the payload written and read back (DefaultBytes when 0). It
	// is lowered to half the device's free memory and to the buffer's
	// maximum size, and never above MaxBytes.
	Bytes int64
	// Device is the worker's device index (0: its first).
	Device uint32
	// Timeout bounds each command, and each MiB of a transfer (10 s when 0).
	Timeout time.Duration
	// Pings is how many small commands are timed (5 when 0); Rounds how
	// many times the payload goes up and down (3 when 0): medians are kept.
	Pings, Rounds int
}

// Result is one worker's measurement.
type Result struct {
	Version     string  `json:"protocol"` // the worker's, from HELLO
	Devices     int     `json:"devices"`
	FreeBytes   uint64  `json:"free_bytes"` // the device's, before the test
	TotalBytes  uint64  `json:"total_bytes"`
	CmdRTTMS    float64 `json:"command_rtt_ms"` // median round trip of GET_ALIGNMENT
	Bytes       int64   `json:"transfer_bytes"`
	UploadMiBs  float64 `json:"upload_mib_s"`
	DownloadMiB float64 `json:"download_mib_s"`
}

// Error is a measurement that failed. Kind is one of "version" (the
// worker's protocol is not one this client speaks), "handshake" (it closed
// the connection on HELLO), "timeout", "closed", "malformed", "alloc",
// "memory", "mismatch" or "io".
type Error struct {
	Kind      string
	Endpoint  string
	Step      string // the command, e.g. "SET_TENSOR"
	Version   string // the worker's protocol, when known
	Supported string // this client's, e.g. "7.x, 8.x"
	Detail    string // the cause, in the system's or our words
	NeedMiB   int64  // for "alloc"
	FreeMiB   int64  // for "alloc" and "memory"
	Device    uint32
	Timeout   time.Duration
}

func (e *Error) Error() string { return e.Text("en") }

// Text is the error in language l ("en" or "zh-CN").
func (e *Error) Text(l string) string {
	return Texts(l).T("wire."+e.Kind, "endpoint", e.Endpoint, "step", e.Step, "version", e.Version,
		"supported", e.Supported, "detail", e.Detail, "need", e.NeedMiB, "free", e.FreeMiB,
		"device", e.Device, "seconds", strconv.FormatFloat(e.Timeout.Seconds(), 'f', -1, 64))
}

// MeasureEndpoint connects to endpoint (host:port) with dial (a
// net.Dialer when nil) and measures it. A worker that closes the
// connection on HELLO is asked again with the HELLO of older protocols,
// to name its version.
func MeasureEndpoint(ctx context.Context, dial func(ctx context.Context, network, addr string) (net.Conn, error), endpoint string, o Options) (*Result, error) {
	o = o.withDefaults()
	if dial == nil {
		dial = (&net.Dialer{Timeout: o.Timeout}).DialContext
	}
	c, err := dial(ctx, "tcp", endpoint)
	if err != nil {
		return nil, &Error{Kind: "io", Endpoint: endpoint, Step: "connect", Detail: err.Error()}
	}
	res, err := Measure(ctx, c, endpoint, o)
	c.Close()
	var we *Error
	if errors.As(err, &we) && we.Kind == "handshake" {
		if c, derr := dial(ctx, "tcp", endpoint); derr == nil {
			if v := legacyVersion(ctx, c, o.Timeout); v != "" {
				we.Kind, we.Version = "version", v
			}
			c.Close()
		}
	}
	return res, err
}

func (o Options) withDefaults() Options {
	if o.Bytes <= 0 {
		o.Bytes = DefaultBytes
	}
	if o.Bytes > MaxBytes {
		o.Bytes = MaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Pings <= 0 {
		o.Pings = 5
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	return o
}

// client is one connection: every call sets its deadline.
type client struct {
	ctx      context.Context
	c        net.Conn
	endpoint string
	timeout  time.Duration
	version  string
}

func (cl *client) fail(kind, step, detail string) *Error {
	return &Error{Kind: kind, Endpoint: cl.endpoint, Step: step, Detail: detail, Version: cl.version, Supported: Supported().String(), Timeout: cl.timeout}
}

// ioErr classifies a read or write failure.
func (cl *client) ioErr(step string, err error) *Error {
	var ne net.Error
	switch {
	case cl.ctx.Err() != nil:
		return cl.fail("io", step, cl.ctx.Err().Error())
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		return cl.fail("timeout", step, err.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrClosedPipe),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return cl.fail("closed", step, err.Error())
	}
	return cl.fail("io", step, err.Error())
}

func (cl *client) deadline() time.Time {
	d := time.Now().Add(cl.timeout)
	if cd, ok := cl.ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	return d
}

// write sends b in chunks, each under its own deadline.
func (cl *client) write(step string, b []byte) error {
	for len(b) > 0 {
		n := min(len(b), chunk)
		if err := cl.c.SetWriteDeadline(cl.deadline()); err != nil {
			return cl.ioErr(step, err)
		}
		if _, err := cl.c.Write(b[:n]); err != nil {
			return cl.ioErr(step, err)
		}
		b = b[n:]
	}
	return nil
}

// read fills b in chunks, each under its own deadline.
func (cl *client) read(step string, b []byte) error {
	for len(b) > 0 {
		n := min(len(b), chunk)
		if err := cl.c.SetReadDeadline(cl.deadline()); err != nil {
			return cl.ioErr(step, err)
		}
		if _, err := io.ReadFull(cl.c, b[:n]); err != nil {
			return cl.ioErr(step, err)
		}
		b = b[n:]
	}
	return nil
}

// send writes one request: command, size, then the parts.
func (cl *client) send(step string, cmd byte, parts ...[]byte) error {
	var n int
	for _, p := range parts {
		n += len(p)
	}
	hdr := make([]byte, 9, 9+min(n, 4096))
	hdr[0] = cmd
	binary.LittleEndian.PutUint64(hdr[1:], uint64(n))
	for len(parts) > 0 && len(hdr)+len(parts[0]) <= cap(hdr) {
		hdr = append(hdr, parts[0]...)
		parts = parts[1:]
	}
	if err := cl.write(step, hdr); err != nil {
		return err
	}
	for _, p := range parts {
		if err := cl.write(step, p); err != nil {
			return err
		}
	}
	return nil
}

// reply reads one reply of exactly want bytes into buf (allocated when
// nil). The size on the wire is checked before anything else is read.
func (cl *client) reply(step string, want int, buf []byte) ([]byte, error) {
	var hdr [8]byte
	if err := cl.read(step, hdr[:]); err != nil {
		return nil, err
	}
	got := binary.LittleEndian.Uint64(hdr[:])
	if got != uint64(want) {
		return nil, cl.fail("malformed", step, fmt.Sprintf("a reply of %d bytes, not %d", got, want))
	}
	if buf == nil {
		buf = make([]byte, want)
	}
	if err := cl.read(step, buf[:want]); err != nil {
		return nil, err
	}
	return buf[:want], nil
}

func (cl *client) call(step string, cmd byte, req []byte, want int) ([]byte, error) {
	if err := cl.send(step, cmd, req); err != nil {
		return nil, err
	}
	return cl.reply(step, want, nil)
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// ParseHello reads a HELLO reply's bytes (after its size): the worker's
// version "major.minor.patch".
func ParseHello(b []byte) (major, minor, patch int, err error) {
	if len(b) != helloReply && len(b) != legacyHello {
		return 0, 0, 0, fmt.Errorf("a HELLO reply of %d bytes", len(b))
	}
	return int(b[0]), int(b[1]), int(b[2]), nil
}

// hello checks the worker's protocol version.
func (cl *client) hello() error {
	const step = "HELLO"
	if err := cl.send(step, cmdHello, make([]byte, connCapsSize)); err != nil {
		return err
	}
	b, err := cl.reply(step, helloReply, nil)
	if err != nil {
		var we *Error
		if errors.As(err, &we) && we.Kind == "closed" {
			we.Kind = "handshake"
		}
		return err
	}
	major, minor, patch, _ := ParseHello(b)
	cl.version = fmt.Sprintf("%d.%d.%d", major, minor, patch)
	if !Supported().speaks(major) {
		return cl.fail("version", step, "")
	}
	return nil
}

// legacyVersion asks with the HELLO of protocols before conn_caps (an
// empty request, a 3-byte reply); "" when that is not answered either.
func legacyVersion(ctx context.Context, c net.Conn, timeout time.Duration) string {
	cl := &client{ctx: ctx, c: c, timeout: timeout}
	if err := cl.send("HELLO", cmdHello); err != nil {
		return ""
	}
	b, err := cl.reply("HELLO", legacyHello, nil)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d.%d.%d", b[0], b[1], b[2])
}

// tensor serializes a 1-D F32 tensor of n bytes at data in buffer buf.
func tensor(buf, data uint64, n int64) []byte {
	t := make([]byte, tensorSize)
	le := binary.LittleEndian
	le.PutUint64(t[0:], 1)       // id
	le.PutUint32(t[8:], typeF32) // type
	le.PutUint64(t[12:], buf)    // buffer
	ne := []uint32{uint32(n / 4), 1, 1, 1}
	nb := []uint32{4, uint32(n), uint32(n), uint32(n)}
	for i := 0; i < 4; i++ {
		le.PutUint32(t[20+4*i:], ne[i])
		le.PutUint32(t[36+4*i:], nb[i])
	}
	// op (52), op_params (56), flags (120), src (124), view_src (204) and
	// view_offs (212) stay zero
	le.PutUint64(t[220:], data)
	copy(t[228:228+63], "llamactl-transfer-test")
	return t
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// Measure runs the test on an open connection to endpoint (which names
// the worker in errors); it closes nothing. The context's cancellation
// interrupts the current read or write.
func Measure(ctx context.Context, c net.Conn, endpoint string, o Options) (*Result, error) {
	o = o.withDefaults()
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	cl := &client{ctx: ctx, c: c, endpoint: endpoint, timeout: o.Timeout}
	if err := cl.hello(); err != nil {
		return nil, err
	}
	res := &Result{Version: cl.version}

	b, err := cl.call("DEVICE_COUNT", cmdDeviceCount, nil, 4)
	if err != nil {
		return nil, err
	}
	res.Devices = int(binary.LittleEndian.Uint32(b))
	if uint32(res.Devices) <= o.Device {
		return nil, cl.fail("malformed", "DEVICE_COUNT", fmt.Sprintf("%d devices, no device %d", res.Devices, o.Device))
	}
	dev := u32(o.Device)
	if b, err = cl.call("GET_DEVICE_MEMORY", cmdGetDeviceMemory, dev, 16); err != nil {
		return nil, err
	}
	res.FreeBytes, res.TotalBytes = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])

	// the round trip of a small command
	var align uint64
	// ping times GET_ALIGNMENT; a failure is named after step, the
	// command whose completion it waits for
	ping := func(step string) (time.Duration, error) {
		t0 := time.Now()
		b, err := cl.call(step, cmdGetAlignment, dev, 8)
		if err != nil {
			return 0, err
		}
		align = binary.LittleEndian.Uint64(b)
		return time.Since(t0), nil
	}
	var rtts []float64
	for i := 0; i < o.Pings; i++ {
		d, err := ping("GET_ALIGNMENT")
		if err != nil {
			return nil, err
		}
		rtts = append(rtts, d.Seconds())
	}
	rtt := median(rtts)
	res.CmdRTTMS = rtt * 1000
	if align == 0 || align&(align-1) != 0 || align > chunk {
		return nil, cl.fail("malformed", "GET_ALIGNMENT", fmt.Sprintf("alignment %d", align))
	}
	if b, err = cl.call("GET_MAX_SIZE", cmdGetMaxSize, dev, 8); err != nil {
		return nil, err
	}
	maxSize := binary.LittleEndian.Uint64(b)

	// the payload: asked for, within half the free memory and the buffer's
	// maximum, a whole number of F32 values
	n := uint64(o.Bytes)
	n = min(n, res.FreeBytes/2, maxSize)
	n &^= 4095
	if n < MinBytes {
		e := cl.fail("memory", "GET_DEVICE_MEMORY", "")
		e.FreeMiB, e.Device = int64(res.FreeBytes>>20), o.Device
		return nil, e
	}
	if b, err = cl.call("ALLOC_BUFFER", cmdAllocBuffer, append(u32(o.Device), u64(n)...), 16); err != nil {
		return nil, err
	}
	buf, size := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if buf == 0 {
		e := cl.fail("alloc", "ALLOC_BUFFER", "")
		e.NeedMiB, e.FreeMiB, e.Device = int64(n>>20), int64(res.FreeBytes>>20), o.Device
		return nil, e
	}
	freed := false
	free := func() error {
		freed = true
		return cl.send("FREE_BUFFER", cmdFreeBuffer, u64(buf))
	}
	defer func() {
		if !freed {
			_ = free()
		}
	}()
	if size < n {
		return nil, cl.fail("malformed", "ALLOC_BUFFER", fmt.Sprintf("a buffer of %d bytes for %d asked", size, n))
	}
	if b, err = cl.call("BUFFER_GET_BASE", cmdBufferGetBase, u64(buf), 8); err != nil {
		return nil, err
	}
	base := binary.LittleEndian.Uint64(b)
	t := tensor(buf, base, int64(n))
	head := append(append(append([]byte(nil), t...), 0), u64(0)...) // tensor, no cache, offset 0

	payload := make([]byte, n)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), n))
	for i := 0; i+8 <= len(payload); i += 8 {
		binary.LittleEndian.PutUint64(payload[i:], rng.Uint64())
	}
	back := make([]byte, n)
	getReq := append(append(append([]byte(nil), t...), u64(0)...), u64(n)...)
	var ups, downs []float64
	for r := 0; r < o.Rounds; r++ {
		// SET_TENSOR has no reply: the ping after it is answered once
		// the worker has taken all of it
		t0 := time.Now()
		if err := cl.send("SET_TENSOR", cmdSetTensor, head, payload); err != nil {
			return nil, err
		}
		if _, err := ping("SET_TENSOR"); err != nil {
			return nil, err
		}
		ups = append(ups, max(time.Since(t0).Seconds()-rtt, 1e-6))

		t0 = time.Now()
		if err := cl.send("GET_TENSOR", cmdGetTensor, getReq); err != nil {
			return nil, err
		}
		if _, err := cl.reply("GET_TENSOR", int(n), back); err != nil {
			return nil, err
		}
		downs = append(downs, max(time.Since(t0).Seconds(), 1e-6))
		if i := firstDiff(payload, back); i >= 0 {
			return nil, cl.fail("mismatch", "GET_TENSOR", fmt.Sprintf("byte %d of %d differs", i, n))
		}
		payload[0] ^= 0xff // the next round sends other bytes
	}
	if err := free(); err != nil {
		return nil, err
	}
	// the worker is still there after FREE_BUFFER (it has no reply)
	if _, err := ping("FREE_BUFFER"); err != nil {
		return nil, err
	}
	mib := float64(n) / (1 << 20)
	res.Bytes = int64(n)
	res.UploadMiBs = mib / median(ups)
	res.DownloadMiB = mib / median(downs)
	return res, nil
}

func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return len(a)
}
