package testmodels

//go:generate bash ../../testdata/gen/models_i8.sh

import "github.com/netkit/netkit/internal/nkfile"

// Int8OpsName is the int8 test model's file name (without .nk) under
// testdata/models_i8.
const Int8OpsName = "int8_ops"

// Int8Ops has one of every int8 op (and the i8 byte-moving ops), with
// per-channel and per-tensor multiplier tensors: f32 [1,5,5,2] -> quantize
// -> conv -> depthwise -> avg/max pool -> add -> mul -> logistic -> tanh ->
// pad -> transpose -> concat -> reshape -> dense -> softmax -> requantize ->
// dequantize. Weights are zero; the structure and the requantization
// parameters are what the readers' and the hostile tests exercise.
func Int8Ops() (*nkfile.Model, error) {
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
	return b.Model()
}

// EncodeInt8Ops builds and encodes Int8Ops.
func EncodeInt8Ops() ([]byte, error) {
	m, err := Int8Ops()
	if err != nil {
		return nil, err
	}
	return nkfile.Encode(m)
}
