// Package ggufwrite writes GGUF files with random weights: small models of
// real architectures that llama.cpp loads, for tests and benchmarks. It is
// written from the format description.
package ggufwrite

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/llamactl/llamactl/runner/gguf"
)

// KV is one metadata pair. Value is one of: uint16, uint32, int32, uint64, float32,
// bool, string, []string, []float32, []int32, []uint32, []bool.
type KV struct {
	Key   string
	Value any
}

// Tensor is a tensor to write; its data is generated.
type Tensor struct {
	Name string
	Dims []uint64
	Type gguf.GGMLType
}

// File is a GGUF file to write.
type File struct {
	KVs       []KV
	Tensors   []Tensor
	Alignment uint64 // 0 = 32
	Seed      uint64
}

// WriteFile writes f to path.
func (f *File) WriteFile(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	if err := f.Write(bw); err != nil {
		out.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

type enc struct {
	w   io.Writer
	n   int64
	err error
}

func (e *enc) bytes(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += int64(n)
	e.err = err
}

func (e *enc) u32(v uint32) { e.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *enc) u64(v uint64) { e.bytes(binary.LittleEndian.AppendUint64(nil, v)) }
func (e *enc) str(s string) { e.u64(uint64(len(s))); e.bytes([]byte(s)) }
func (e *enc) pad(a uint64) { e.bytes(make([]byte, (a-uint64(e.n)%a)%a)) }

func (e *enc) value(v any) error {
	switch x := v.(type) {
	case uint16:
		e.u32(uint32(gguf.TypeUint16))
		e.bytes(binary.LittleEndian.AppendUint16(nil, x))
	case uint32:
		e.u32(uint32(gguf.TypeUint32))
		e.u32(x)
	case int32:
		e.u32(uint32(gguf.TypeInt32))
		e.u32(uint32(x))
	case uint64:
		e.u32(uint32(gguf.TypeUint64))
		e.u64(x)
	case float32:
		e.u32(uint32(gguf.TypeFloat32))
		e.u32(math.Float32bits(x))
	case bool:
		e.u32(uint32(gguf.TypeBool))
		e.bytes([]byte{b2u(x)})
	case string:
		e.u32(uint32(gguf.TypeString))
		e.str(x)
	case []string:
		e.arrHead(gguf.TypeString, len(x))
		for _, s := range x {
			e.str(s)
		}
	case []float32:
		e.arrHead(gguf.TypeFloat32, len(x))
		for _, f := range x {
			e.u32(math.Float32bits(f))
		}
	case []int32:
		e.arrHead(gguf.TypeInt32, len(x))
		for _, i := range x {
			e.u32(uint32(i))
		}
	case []uint32:
		e.arrHead(gguf.TypeUint32, len(x))
		for _, i := range x {
			e.u32(i)
		}
	case []bool:
		e.arrHead(gguf.TypeBool, len(x))
		for _, b := range x {
			e.bytes([]byte{b2u(b)})
		}
	default:
		return fmt.Errorf("ggufwrite: unsupported value type %T", v)
	}
	return nil
}

func (e *enc) arrHead(t gguf.ValueType, n int) {
	e.u32(uint32(gguf.TypeArray))
	e.u32(uint32(t))
	e.u64(uint64(n))
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Write streams the file: header, metadata, tensor table, then generated data.
func (f *File) Write(w io.Writer) error {
	align := f.Alignment
	if align == 0 {
		align = 32
	}
	sizes := make([]uint64, len(f.Tensors))
	offs := make([]uint64, len(f.Tensors))
	var off uint64
	for i, t := range f.Tensors {
		n, err := gguf.TensorBytes(t.Type, t.Dims)
		if err != nil {
			return fmt.Errorf("ggufwrite: %s: %w", t.Name, err)
		}
		sizes[i], offs[i] = n, off
		off += n
		off += (align - off%align) % align
	}
	e := &enc{w: w}
	e.u32(gguf.Magic)
	e.u32(3)
	e.u64(uint64(len(f.Tensors)))
	e.u64(uint64(len(f.KVs)))
	for _, kv := range f.KVs {
		e.str(kv.Key)
		if err := e.value(kv.Value); err != nil {
			return err
		}
	}
	for i, t := range f.Tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offs[i])
	}
	e.pad(align)
	rng := rand.New(rand.NewPCG(f.Seed, 0x9e3779b97f4a7c15))
	for i, t := range f.Tensors {
		e.bytes(tensorData(rng, t, sizes[i]))
		e.pad(align)
	}
	return e.err
}

// tensorData fills a tensor with small random weights in a valid block
// layout; norms are 1 so activations stay finite.
func tensorData(rng *rand.Rand, t Tensor, size uint64) []byte {
	b := make([]byte, size)
	norm := strings.Contains(t.Name, "norm")
	switch t.Type.String() {
	case "F32":
		for i := 0; i+4 <= len(b); i += 4 {
			v := float32(1)
			if !norm {
				v = (rng.Float32() - 0.5) * 0.1
			}
			binary.LittleEndian.PutUint32(b[i:], math.Float32bits(v))
		}
	case "F16":
		for i := 0; i+2 <= len(b); i += 2 {
			v := float32(1)
			if !norm {
				v = (rng.Float32() - 0.5) * 0.1
			}
			binary.LittleEndian.PutUint16(b[i:], f16(v))
		}
	case "Q8_0": // f16 d + 32 int8
		for i := 0; i+34 <= len(b); i += 34 {
			binary.LittleEndian.PutUint16(b[i:], f16(0.002))
			fillRand(rng, b[i+2:i+34])
		}
	case "Q4_K": // f16 d, f16 dmin, 12 scale bytes, 128 nibble bytes
		for i := 0; i+144 <= len(b); i += 144 {
			binary.LittleEndian.PutUint16(b[i:], f16(0.001))
			binary.LittleEndian.PutUint16(b[i+2:], f16(0.001))
			fillRand(rng, b[i+4:i+144])
		}
	case "Q6_K": // ql 128, qh 64, int8 scales 16, f16 d
		for i := 0; i+210 <= len(b); i += 210 {
			fillRand(rng, b[i:i+208])
			binary.LittleEndian.PutUint16(b[i+208:], f16(0.0005))
		}
	default:
		// Other types: zero blocks are valid (all scales 0).
	}
	return b
}

func fillRand(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// f16 converts a float32 in the normal half range (or 0) to IEEE half bits.
func f16(v float32) uint16 {
	bits := math.Float32bits(v)
	sign := uint16(bits>>16) & 0x8000
	exp := int((bits>>23)&0xff) - 127 + 15
	mant := bits & 0x7fffff
	if exp <= 0 {
		return sign // flush tiny values to zero
	}
	if exp >= 31 {
		return sign | 0x7bff // clamp to the largest finite half
	}
	return sign | uint16(exp)<<10 | uint16(mant>>13)
}

// Split divides f into parts the way llama.cpp's gguf-split does: the
// first part keeps all metadata, every part carries split.no, split.count
// and split.tensors.count, and the tensors are dealt out in order. Write
// part i to NAME-0000{i+1}-of-0000{n}.gguf.
func (f *File) Split(parts int) []*File {
	out := make([]*File, parts)
	per := (len(f.Tensors) + parts - 1) / parts
	for i := range out {
		split := []KV{{"split.no", uint16(i)}, {"split.count", uint16(parts)}, {"split.tensors.count", int32(len(f.Tensors))}}
		p := &File{Alignment: f.Alignment, Seed: f.Seed + uint64(i)}
		if i == 0 {
			p.KVs = append(append([]KV{}, f.KVs...), split...)
		} else {
			p.KVs = split
		}
		lo, hi := min(i*per, len(f.Tensors)), min((i+1)*per, len(f.Tensors))
		p.Tensors = f.Tensors[lo:hi]
		out[i] = p
	}
	return out
}
