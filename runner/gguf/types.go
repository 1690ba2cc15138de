package gguf

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/bits"
	"sync"
)

// GGMLType is a tensor element type id as stored in the tensor table.
type GGMLType uint32

//go:embed ggmltypes.json
var typesJSON []byte

type typeInfo struct {
	ID    uint32 `json:"id"`
	Name  string `json:"name"`
	Block uint64 `json:"block"`
	Bytes uint64 `json:"bytes"`
}

var typeTable = sync.OnceValue(func() map[GGMLType]typeInfo {
	var doc struct {
		Source string     `json:"source"`
		Types  []typeInfo `json:"types"`
	}
	if err := json.Unmarshal(typesJSON, &doc); err != nil {
		panic("gguf: embedded ggmltypes.json: " + err.Error()) // a build-time fact; tested
	}
	m := make(map[GGMLType]typeInfo, len(doc.Types))
	for _, t := range doc.Types {
		m[GGMLType(t.ID)] = t
	}
	return m
})

// Known says whether the type's block layout is in the table.
func (t GGMLType) Known() bool { _, ok := typeTable()[t]; return ok }

func (t GGMLType) String() string {
	if ti, ok := typeTable()[t]; ok {
		return ti.Name
	}
	return fmt.Sprintf("type%d", uint32(t))
}

// BlockSize is the number of elements per block (1 for plain types).
func (t GGMLType) BlockSize() uint64 { return typeTable()[t].Block }

// TypeByName returns the type id for a name such as "Q8_0" (case-sensitive).
func TypeByName(name string) (GGMLType, bool) {
	for id, ti := range typeTable() {
		if ti.Name == name {
			return id, true
		}
	}
	return 0, false
}

// RowBytes returns the size in bytes of ne elements of type t. ne must be a
// multiple of the block size.
func (t GGMLType) RowBytes(ne uint64) (uint64, error) {
	ti, ok := typeTable()[t]
	if !ok {
		return 0, fmt.Errorf("unknown ggml type %d: cannot size it", uint32(t))
	}
	if ne%ti.Block != 0 {
		return 0, fmt.Errorf("%d elements is not a multiple of %s's block of %d", ne, ti.Name, ti.Block)
	}
	hi, lo := bits.Mul64(ne/ti.Block, ti.Bytes)
	if hi != 0 {
		return 0, fmt.Errorf("tensor size overflows")
	}
	return lo, nil
}

// TensorBytes is the exact byte size of a tensor of type t with dims ne
// (ne[0] innermost).
func TensorBytes(t GGMLType, ne []uint64) (uint64, error) {
	if len(ne) == 0 {
		return t.RowBytes(1)
	}
	row, err := t.RowBytes(ne[0])
	if err != nil {
		return 0, err
	}
	total := row
	for _, d := range ne[1:] {
		hi, lo := bits.Mul64(total, d)
		if hi != 0 {
			return 0, fmt.Errorf("tensor size overflows")
		}
		total = lo
	}
	return total, nil
}
