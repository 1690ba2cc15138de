// Package gguf reads the header, metadata and tensor table of a GGUF model
// file (never the weights), streaming and with hard limits, so a hostile or
// broken file gives a clear error instead of a crash or a huge allocation.
// Format facts: (ggml docs/gguf.md).
package gguf

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"sort"
	"strings"
)

// Magic is "GGUF" read as a little-endian uint32.
const Magic = 0x46554747

// ValueType is a metadata value type id (value types).
type ValueType uint32

const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
)

var valueTypeNames = [...]string{"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"}

func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("type%d", uint32(t))
}

// fixedSize is the encoded size of a scalar type; 0 for string/array.
func (t ValueType) fixedSize() int64 {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// Limits bound what the reader accepts. Zero fields take DefaultLimits.
type Limits struct {
	MaxTensors    uint64 // tensor table entries
	MaxKV         uint64 // metadata key/value pairs
	MaxString     uint64 // bytes in one string value
	MaxArray      uint64 // elements in one array
	MaxHeader     int64  // bytes of header + metadata + tensor table
	KeepArray     uint64 // arrays up to this many elements keep their values
	MaxKept       uint64 // array elements kept in all (a Value is ~80 bytes: bounds memory)
	MaxArrayDepth int
}

// DefaultLimits fit every real model we know of (vocabularies of ~260k
// tokens, merges of ~500k, MoE tables of ~50k tensors) with a wide margin.
var DefaultLimits = Limits{
	MaxTensors:    1 << 20,
	MaxKV:         1 << 16,
	MaxString:     16 << 20,
	MaxArray:      1 << 24,
	MaxHeader:     1 << 30,
	KeepArray:     1 << 14,
	MaxKept:       1 << 20,
	MaxArrayDepth: 2,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	d.MaxTensors = cmp.Or(l.MaxTensors, d.MaxTensors)
	d.MaxKV = cmp.Or(l.MaxKV, d.MaxKV)
	d.MaxString = cmp.Or(l.MaxString, d.MaxString)
	d.MaxArray = cmp.Or(l.MaxArray, d.MaxArray)
	d.MaxHeader = cmp.Or(l.MaxHeader, d.MaxHeader)
	d.KeepArray = cmp.Or(l.KeepArray, d.KeepArray)
	d.MaxKept = cmp.Or(l.MaxKept, d.MaxKept)
	d.MaxArrayDepth = cmp.Or(l.MaxArrayDepth, d.MaxArrayDepth)
	return d
}

// Value is one metadata value. Exactly the field matching Type is set;
// numbers are widened (unsigned to U, signed to I, floats to F).
type Value struct {
	Type ValueType
	U    uint64
	I    int64
	F    float64
	B    bool
	S    string
	Arr  *Array
}

// Array is a metadata array. Values holds the elements when Len is at most
// Limits.KeepArray; string arrays always carry a SHA-256 of their contents
// (each string length-prefixed) so large token lists can be compared.
type Array struct {
	ElemType ValueType
	Len      uint64
	Values   []Value
	Hash     string
}

// KV is one metadata pair, in file order.
type KV struct {
	Key   string
	Value Value
}

// Tensor is one tensor table entry.
type Tensor struct {
	Name   string
	Dims   []uint64
	Type   GGMLType
	Offset uint64 // relative to the data section
	Bytes  uint64 // exact size from the type table
	// SizeUnknown: the type is not in the table; Bytes is the distance to
	// the next tensor (an upper bound including padding).
	SizeUnknown bool
	// Shard is the part of a split model holding the tensor (0 = first).
	Shard int
}

// File is a parsed GGUF header.
type File struct {
	Version    uint32
	BigEndian  bool
	Alignment  uint64
	HeaderSize int64 // bytes before the data section (aligned)
	FileSize   int64 // -1 when unknown; all parts of a split model
	Shards     int   // parts of a split model read by OpenModel (0 or 1: one file)
	KVs        []KV
	Tensors    []Tensor

	index map[string]int
}

// Error kinds callers can test for with errors.Is.
var (
	ErrNotGGUF     = errors.New("not a GGUF file")
	ErrTruncated   = errors.New("file is truncated")
	ErrUnsupported = errors.New("unsupported GGUF version")
	ErrLimit       = errors.New("exceeds a reader limit")
	ErrCorrupt     = errors.New("corrupt GGUF header")
)

// Open reads the header of the GGUF file at path.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a GGUF file", path)
	}
	f, err := Read(fh, st.Size(), Limits{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Read parses a GGUF header from r. size is the file size used to reject
// counts, lengths and offsets beyond the end; pass -1 when unknown.
func Read(r io.Reader, size int64, lim Limits) (*File, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 64<<10), size: size, lim: lim.withDefaults(), bo: binary.LittleEndian}
	f, err := d.file()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w at byte %d (%v)", ErrTruncated, d.pos, err)
		}
		return nil, err
	}
	return f, nil
}

type decoder struct {
	r    *bufio.Reader
	bo   binary.ByteOrder
	pos  int64
	size int64
	lim  Limits
	buf  [8]byte
	kept uint64 // array elements kept so far
}

func (d *decoder) read(n int) ([]byte, error) {
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	d.pos += int64(n)
	if d.pos > d.lim.MaxHeader {
		return nil, fmt.Errorf("%w: header larger than %d bytes", ErrLimit, d.lim.MaxHeader)
	}
	return d.buf[:n], nil
}

func (d *decoder) u32() (uint32, error) {
	b, err := d.read(4)
	if err != nil {
		return 0, err
	}
	return d.bo.Uint32(b), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return d.bo.Uint64(b), nil
}

// remaining is how many bytes may still follow, or MaxInt64 when unknown.
func (d *decoder) remaining() uint64 {
	if d.size < 0 {
		return math.MaxInt64
	}
	if d.pos >= d.size {
		return 0
	}
	return uint64(d.size - d.pos)
}

// need rejects a length that cannot fit in the rest of the file (or the
// header limit) before anything is allocated.
func (d *decoder) need(n uint64, what string) error {
	if n > d.remaining() {
		return fmt.Errorf("%w: %s needs %d bytes but only %d remain", ErrTruncated, what, n, d.remaining())
	}
	if n > uint64(d.lim.MaxHeader) {
		return fmt.Errorf("%w: %s of %d bytes", ErrLimit, what, n)
	}
	return nil
}

func (d *decoder) str(max uint64, what string) (string, error) {
	n, err := d.u64()
	if err != nil {
		return "", err
	}
	if n > max {
		return "", fmt.Errorf("%w: %s of %d bytes (limit %d)", ErrLimit, what, n, max)
	}
	if err := d.need(n, what); err != nil {
		return "", err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		return "", io.ErrUnexpectedEOF
	}
	d.pos += int64(n)
	return string(b), nil
}

func (d *decoder) skip(n uint64, what string) error {
	if err := d.need(n, what); err != nil {
		return err
	}
	m, err := d.r.Discard(int(n))
	d.pos += int64(m)
	if err != nil {
		return io.ErrUnexpectedEOF
	}
	return nil
}

func (d *decoder) file() (*File, error) {
	b, err := d.read(4)
	if err != nil {
		return nil, fmt.Errorf("%w: shorter than the 4-byte magic", ErrNotGGUF)
	}
	if m := binary.LittleEndian.Uint32(b); m != Magic {
		return nil, fmt.Errorf("%w: magic is %q, want \"GGUF\"", ErrNotGGUF, printable(b))
	}
	v, err := d.u32()
	if err != nil {
		return nil, err
	}
	f := &File{Version: v, FileSize: d.size, Alignment: 32}
	// Big-endian files have no flag: the version reads byte-swapped.
	if v > 0xffff && bits.ReverseBytes32(v) <= 0xffff {
		d.bo = binary.BigEndian
		f.BigEndian = true
		f.Version = bits.ReverseBytes32(v)
	}
	if f.Version < 2 || f.Version > 3 {
		return nil, fmt.Errorf("%w %d (llamactl reads versions 2 and 3; re-convert the model with a current llama.cpp convert_hf_to_gguf.py)", ErrUnsupported, f.Version)
	}
	nt, err := d.u64()
	if err != nil {
		return nil, err
	}
	nkv, err := d.u64()
	if err != nil {
		return nil, err
	}
	if nt > d.lim.MaxTensors {
		return nil, fmt.Errorf("%w: %d tensors (limit %d)", ErrLimit, nt, d.lim.MaxTensors)
	}
	if nkv > d.lim.MaxKV {
		return nil, fmt.Errorf("%w: %d metadata pairs (limit %d)", ErrLimit, nkv, d.lim.MaxKV)
	}
	// Smallest encodings: a KV is 8+1 (key) + 4 (type) + 1; a tensor is
	// 8+1 (name) + 4 + 8 + 4 + 8. Reject counts the file cannot hold.
	if err := d.need(nkv*14+nt*33, "metadata and tensor table"); err != nil {
		return nil, err
	}
	f.KVs = make([]KV, 0, min(nkv, 4096))
	f.index = make(map[string]int, min(nkv, 4096))
	for i := uint64(0); i < nkv; i++ {
		key, err := d.str(65535, "metadata key")
		if err != nil {
			return nil, err
		}
		vt, err := d.u32()
		if err != nil {
			return nil, err
		}
		val, err := d.value(ValueType(vt), 0, key)
		if err != nil {
			return nil, err
		}
		if _, dup := f.index[key]; dup {
			return nil, fmt.Errorf("%w: duplicate metadata key %q", ErrCorrupt, key)
		}
		f.index[key] = len(f.KVs)
		f.KVs = append(f.KVs, KV{Key: key, Value: val})
	}
	if v, ok := f.Get("general.alignment"); ok {
		a, isNum := v.Uint()
		if !isNum || a == 0 || a%8 != 0 || a > 1<<20 {
			return nil, fmt.Errorf("%w: general.alignment %v is not a positive multiple of 8", ErrCorrupt, v.Display())
		}
		f.Alignment = a
	}
	f.Tensors = make([]Tensor, 0, min(nt, 65536))
	names := make(map[string]struct{}, min(nt, 65536))
	for i := uint64(0); i < nt; i++ {
		t, err := d.tensor()
		if err != nil {
			return nil, fmt.Errorf("tensor %d: %w", i, err)
		}
		if _, dup := names[t.Name]; dup {
			return nil, fmt.Errorf("%w: duplicate tensor %q", ErrCorrupt, t.Name)
		}
		names[t.Name] = struct{}{}
		if t.Offset%f.Alignment != 0 {
			return nil, fmt.Errorf("%w: tensor %q offset %d is not a multiple of the alignment %d", ErrCorrupt, t.Name, t.Offset, f.Alignment)
		}
		f.Tensors = append(f.Tensors, t)
	}
	pad := (f.Alignment - uint64(d.pos)%f.Alignment) % f.Alignment
	f.HeaderSize = d.pos + int64(pad)
	if err := f.checkData(); err != nil {
		return nil, err
	}
	return f, nil
}

// checkData verifies that every tensor lies inside the file and fills in
// sizes of types the table does not know.
func (f *File) checkData() error {
	order := make([]int, len(f.Tensors))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return f.Tensors[order[a]].Offset < f.Tensors[order[b]].Offset })
	dataSize := uint64(math.MaxUint64)
	if f.FileSize >= 0 {
		if f.FileSize < f.HeaderSize {
			if len(f.Tensors) > 0 {
				return fmt.Errorf("%w: no tensor data after the header", ErrTruncated)
			}
			dataSize = 0
		} else {
			dataSize = uint64(f.FileSize - f.HeaderSize)
		}
	}
	for k, i := range order {
		t := &f.Tensors[i]
		if t.SizeUnknown {
			next := dataSize
			if k+1 < len(order) {
				next = f.Tensors[order[k+1]].Offset
			}
			if next == math.MaxUint64 || next < t.Offset {
				return fmt.Errorf("%w: cannot size tensor %q of unknown type %d", ErrUnsupported, t.Name, uint32(t.Type))
			}
			t.Bytes = next - t.Offset
		}
		end, carry := bits.Add64(t.Offset, t.Bytes, 0)
		if carry != 0 || end > dataSize {
			return fmt.Errorf("%w: tensor %q (%d bytes at data offset %d) ends beyond the end of the file", ErrTruncated, t.Name, t.Bytes, t.Offset)
		}
		if k > 0 {
			prev := f.Tensors[order[k-1]]
			if prev.Offset+prev.Bytes > t.Offset {
				return fmt.Errorf("%w: tensors %q and %q overlap", ErrCorrupt, prev.Name, t.Name)
			}
		}
	}
	return nil
}

func (d *decoder) tensor() (Tensor, error) {
	name, err := d.str(256, "tensor name")
	if err != nil {
		return Tensor{}, err
	}
	t := Tensor{Name: name}
	nd, err := d.u32()
	if err != nil {
		return t, err
	}
	if nd > 4 {
		return t, fmt.Errorf("%w: tensor %q has %d dimensions (ggml allows 4)", ErrCorrupt, name, nd)
	}
	t.Dims = make([]uint64, nd)
	elems := uint64(1)
	for i := range t.Dims {
		if t.Dims[i], err = d.u64(); err != nil {
			return t, err
		}
		var hi uint64
		hi, elems = bits.Mul64(elems, t.Dims[i])
		if hi != 0 || elems > 1<<62 {
			return t, fmt.Errorf("%w: tensor %q element count overflows", ErrCorrupt, name)
		}
	}
	ty, err := d.u32()
	if err != nil {
		return t, err
	}
	t.Type = GGMLType(ty)
	if t.Offset, err = d.u64(); err != nil {
		return t, err
	}
	if t.Type.Known() {
		if t.Bytes, err = TensorBytes(t.Type, t.Dims); err != nil {
			return t, fmt.Errorf("%w: tensor %q: %v", ErrCorrupt, name, err)
		}
	} else {
		t.SizeUnknown = true
	}
	return t, nil
}

func (d *decoder) value(vt ValueType, depth int, key string) (Value, error) {
	v := Value{Type: vt}
	switch vt {
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		b, err := d.read(int(vt.fixedSize()))
		if err != nil {
			return v, err
		}
		v.U = d.uint(b)
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		b, err := d.read(int(vt.fixedSize()))
		if err != nil {
			return v, err
		}
		u := d.uint(b)
		shift := 64 - 8*uint(len(b))
		v.I = int64(u<<shift) >> shift // sign-extend
	case TypeFloat32:
		b, err := d.read(4)
		if err != nil {
			return v, err
		}
		v.F = float64(math.Float32frombits(d.bo.Uint32(b)))
	case TypeFloat64:
		b, err := d.read(8)
		if err != nil {
			return v, err
		}
		v.F = math.Float64frombits(d.bo.Uint64(b))
	case TypeBool:
		b, err := d.read(1)
		if err != nil {
			return v, err
		}
		if b[0] > 1 {
			return v, fmt.Errorf("%w: %s: bool value %d", ErrCorrupt, key, b[0])
		}
		v.B = b[0] == 1
	case TypeString:
		s, err := d.str(d.lim.MaxString, key)
		if err != nil {
			return v, err
		}
		v.S = s
	case TypeArray:
		if depth >= d.lim.MaxArrayDepth {
			return v, fmt.Errorf("%w: %s: arrays nested deeper than %d", ErrLimit, key, d.lim.MaxArrayDepth)
		}
		et, err := d.u32()
		if err != nil {
			return v, err
		}
		n, err := d.u64()
		if err != nil {
			return v, err
		}
		a, err := d.array(ValueType(et), n, depth, key)
		if err != nil {
			return v, err
		}
		v.Arr = a
	default:
		return v, fmt.Errorf("%w: %s: unknown value type %d", ErrCorrupt, key, uint32(vt))
	}
	return v, nil
}

func (d *decoder) uint(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(d.bo.Uint16(b))
	case 4:
		return uint64(d.bo.Uint32(b))
	}
	return d.bo.Uint64(b)
}

func (d *decoder) array(et ValueType, n uint64, depth int, key string) (*Array, error) {
	if et > TypeFloat64 {
		return nil, fmt.Errorf("%w: %s: unknown array element type %d", ErrCorrupt, key, uint32(et))
	}
	if n > d.lim.MaxArray {
		return nil, fmt.Errorf("%w: %s: array of %d elements (limit %d)", ErrLimit, key, n, d.lim.MaxArray)
	}
	a := &Array{ElemType: et, Len: n}
	minElem := uint64(et.fixedSize())
	if et == TypeString || et == TypeArray {
		minElem = 8
		if et == TypeArray {
			minElem = 12
		}
	}
	if err := d.need(n*minElem, key); err != nil {
		return nil, err
	}
	// Arrays are kept only while a file-wide budget lasts: a hostile file
	// of many mid-sized arrays would otherwise cost ~80 bytes of memory
	// per byte read.
	keep := n <= d.lim.KeepArray && d.kept+n <= d.lim.MaxKept
	if keep {
		d.kept += n
	}
	if fs := et.fixedSize(); fs > 0 && !keep {
		return a, d.skip(n*uint64(fs), key) // large numeric arrays (scores, types): not needed
	}
	if keep {
		a.Values = make([]Value, 0, n)
	}
	var h hashWriter
	if et == TypeString {
		h.init()
	}
	for i := uint64(0); i < n; i++ {
		v, err := d.value(et, depth+1, key)
		if err != nil {
			return nil, err
		}
		if et == TypeString {
			h.addString(v.S)
		}
		if keep {
			a.Values = append(a.Values, v)
		}
	}
	if et == TypeString {
		a.Hash = h.sum()
	}
	return a, nil
}

type hashWriter struct {
	h   interface{ Write([]byte) (int, error) }
	sum func() string
}

func (w *hashWriter) init() {
	s := sha256.New()
	w.h = s
	w.sum = func() string { return hex.EncodeToString(s.Sum(nil)) }
}

func (w *hashWriter) addString(x string) {
	var l [8]byte
	binary.LittleEndian.PutUint64(l[:], uint64(len(x)))
	w.h.Write(l[:])
	w.h.Write([]byte(x))
}

func printable(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, "\\x%02x", c)
		}
	}
	return s.String()
}

// Get returns the metadata value for key.
func (f *File) Get(key string) (Value, bool) {
	i, ok := f.index[key]
	if !ok {
		return Value{}, false
	}
	return f.KVs[i].Value, true
}

// Uint returns an integer value as uint64 (false for negatives and non-integers).
func (v Value) Uint() (uint64, bool) {
	switch v.Type {
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		return v.U, true
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		if v.I >= 0 {
			return uint64(v.I), true
		}
	case TypeBool:
		if v.B {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Display renders a value for people (arrays summarised).
func (v Value) Display() string {
	switch v.Type {
	case TypeString:
		if len(v.S) > 60 {
			return fmt.Sprintf("%q… (%d bytes)", v.S[:60], len(v.S))
		}
		return fmt.Sprintf("%q", v.S)
	case TypeBool:
		return fmt.Sprint(v.B)
	case TypeFloat32, TypeFloat64:
		return fmt.Sprint(v.F)
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		return fmt.Sprint(v.I)
	case TypeArray:
		if v.Arr == nil {
			return "[]"
		}
		return fmt.Sprintf("[%s × %d]", v.Arr.ElemType, v.Arr.Len)
	}
	return fmt.Sprint(v.U)
}
