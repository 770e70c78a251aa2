package engine

//go:generate go run ../tools/apigen -pkg engine

import "github.com/netkit/netkit/internal/nkfile"

// DType is an element type; the numbers are nk_dtype's and the .nk file's,
// so the one definition in nkfile serves both.
type DType = nkfile.DType

// The element types of nk_dtype.
const (
	F32 = nkfile.F32
	I8  = nkfile.I8
	I16 = nkfile.I16
	I32 = nkfile.I32
	U8  = nkfile.U8
	U16 = nkfile.U16
	U32 = nkfile.U32
	I64 = nkfile.I64
	U64 = nkfile.U64
	F16 = nkfile.F16
	F64 = nkfile.F64
)

// Layout is the source layout of a tensor (nk_layout and the .nk GRAPH entry).
type Layout = nkfile.Layout

// The layouts of nk_layout.
const (
	LayoutNative = nkfile.LayoutNative
	LayoutNCHW   = nkfile.LayoutNCHW
)

// Elems returns the element count (1 for a scalar).
func (t TensorInfo) Elems() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Bytes returns the tensor's size in bytes.
func (t TensorInfo) Bytes() int { return t.Elems() * t.DType.Size() }
