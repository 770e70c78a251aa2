package nkfile_test

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
)

// int8Model has one of every int8 op (and the i8 byte-moving ops), with
// per-channel and per-tensor multiplier tensors.
func int8Model(t testing.TB) []byte {
	b := nkfile.NewBuilder()
	q := &nkfile.Quant{Axis: -1, Scale: []float32{0.05}, ZeroPoint: []int32{-3}}
	f := b.Input("f", nkfile.F32, 1, 5, 5, 2)
	x := b.Op(nkfile.OpQuantize, "q", []int{f}, nil, nkfile.ActNone)
	b.SetQuant(x, q)
	i32 := func(name string, v ...int32) int {
		return b.Const(name, nkfile.I32, []int{len(v)}, nkfile.I32Bytes(v))
	}
	w := b.Const("w", nkfile.I8, []int{3, 3, 3, 2}, make([]byte, 54))
	out := nkfile.QOut{ZeroPoint: 4, ActMin: -100, ActMax: 120}
	c := b.Op(nkfile.OpConv2DI8, "conv", []int{x, w, i32("b", 1, 2, 3), i32("m", 1<<30, 1<<30, 0), i32("s", -1, 2, 0)},
		nkfile.ConvI8Params{Window: nkfile.Window{PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}, InZeroPoint: -3, Out: out}.Words(), nkfile.ActNone)
	dw := b.Op(nkfile.OpDepthwiseConv2DI8, "dw", []int{c, b.Const("wd", nkfile.I8, []int{1, 2, 2, 6}, make([]byte, 24)), -1, i32("m1", 1<<30), i32("s1", -5)},
		nkfile.ConvI8Params{Window: nkfile.Window{StrideH: 2, StrideW: 2}, Multiplier: 2, Out: out}.DepthwiseWords(), nkfile.ActNone)
	p := b.Op(nkfile.OpAvgPool2DI8, "avg", []int{dw}, nkfile.PoolI8Params{KernelH: 2, KernelW: 2, ActMin: -128, ActMax: 127}.Words(), nkfile.ActNone)
	p = b.Op(nkfile.OpMaxPool2DI8, "max", []int{p}, nkfile.PoolI8Params{KernelH: 1, KernelW: 1, ActMin: -128, ActMax: 127}.Words(), nkfile.ActNone)
	a := b.Op(nkfile.OpAddI8, "add", []int{p, p}, nkfile.AddI8Params{LeftShift: 20, M1: 1 << 30, Shift1: -1, M2: 1 << 30, Shift2: -1, MOut: 1 << 30, ShiftOut: -19, Out: out}.Words(), nkfile.ActNone)
	m := b.Op(nkfile.OpMulI8, "mul", []int{a, p}, nkfile.MulI8Params{M: 1 << 30, Shift: -7, Out: out}.Words(), nkfile.ActNone)
	l := b.Op(nkfile.OpLogisticI8, "sig", []int{m}, nkfile.ActFnI8Words(4, 1<<30, 3, 100), nkfile.ActNone)
	th := b.Op(nkfile.OpTanhI8, "tanh", []int{l}, nkfile.ActFnI8Words(-128, 1<<30, 3, 100), nkfile.ActNone)
	pd := b.Op(nkfile.OpPad, "pad", []int{th}, nkfile.PadWords(nkfile.PadConstant, 0, []int{0, 1, 0, 0}, []int{0, 0, 1, 0}), nkfile.ActNone)
	pd = b.Op(nkfile.OpTranspose, "tr", []int{pd}, nkfile.I32Words(0, 2, 1, 3), nkfile.ActNone)
	cc := b.Op(nkfile.OpConcat, "cat", []int{pd, pd}, nkfile.I32Words(3), nkfile.ActNone)
	r := b.Reshape("flat", cc, 1, 48)
	d := b.Op(nkfile.OpDenseI8, "fc", []int{r, b.Const("wf", nkfile.I8, []int{5, 48}, make([]byte, 240)), i32("bf", 1, 2, 3, 4, 5), i32("mf", 1<<30), i32("sf", -3)},
		nkfile.DenseI8Words(-2, out), nkfile.ActNone)
	s := b.Op(nkfile.OpSoftmaxI8, "sm", []int{d}, nkfile.SoftmaxI8Words(1<<30, 26, -31), nkfile.ActNone)
	rq := b.Op(nkfile.OpQuantize, "rq", []int{s}, nkfile.RequantizeWords(1<<30, 0, -128, 0), nkfile.ActNone)
	b.SetQuant(rq, q)
	y := b.Op(nkfile.OpDequantize, "dq", []int{rq}, nil, nkfile.ActNone)
	b.Output(y)
	b.Meta(nkfile.MetaInt8Rounding, nkfile.RoundingDouble)
	mod, err := b.Model()
	require.NoError(t, err)
	img, err := nkfile.Encode(mod)
	require.NoError(t, err)
	return img
}

func readBoth(img []byte) (goErr, cErr error) {
	m, goErr := nkfile.Decode(img)
	if goErr == nil {
		goErr = m.CheckShapes()
	}
	cm, cErr := nk.LoadBytes(img)
	if cErr == nil {
		cErr = cm.Close()
	}
	return goErr, cErr
}

// The Go reader with CheckShapes and the C core accept the same int8
// images: every single-bit corruption (three bit positions per byte, the
// checksum repaired) of a model with every int8 op, including the
// multiplier and shift payloads in DATA, is accepted by both or neither.
func TestReadersAgreeInt8(t *testing.T) {
	img := int8Model(t)
	goErr, cErr := readBoth(img)
	require.NoError(t, goErr)
	require.NoError(t, cErr)
	disagree := 0
	for i := 12; i < len(img); i++ {
		for _, x := range []byte{0x01, 0x10, 0x80} {
			b := append([]byte(nil), img...)
			b[i] ^= x
			binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:]))
			goErr, cErr := readBoth(b)
			if (goErr == nil) != (cErr == nil) {
				disagree++
				if disagree <= 10 {
					t.Errorf("byte %d ^ %#x: Go says %v, C says %v", i, x, goErr, cErr)
				}
			}
		}
	}
	require.Zero(t, disagree)
}

// FuzzReadersAgreeInt8: as TestReadersAgreeInt8 for any mutation (the
// checksum repaired so mutations reach the structure checks).
func FuzzReadersAgreeInt8(f *testing.F) {
	f.Add(int8Model(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 32 {
			if size := binary.LittleEndian.Uint32(b[12:]); size >= 12 && uint64(size) <= uint64(len(b)) {
				binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:size]))
			}
		}
		goErr, cErr := readBoth(b)
		if (goErr == nil) != (cErr == nil) {
			t.Fatalf("Go says %v, C says %v", goErr, cErr)
		}
	})
}
