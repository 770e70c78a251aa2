package nk_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
)

// The binary ops on integer tensors give what Go's own arithmetic gives on
// the same type: wrapping add, sub and mul, truncating division (and the
// most negative value / -1 wraps to itself, as in Go), max, min; a zero
// divisor gives 0 (Go panics there: netkit's documented choice). Operands
// are broadcast ([2,3,4] against [3,1]) and include each type's extremes.
func TestTypedIntegerOps(t *testing.T) {
	t.Run("i8", func(t *testing.T) { checkTypedInts[int8](t, nkfile.I8) })
	t.Run("u8", func(t *testing.T) { checkTypedInts[uint8](t, nkfile.U8) })
	t.Run("i16", func(t *testing.T) { checkTypedInts[int16](t, nkfile.I16) })
	t.Run("u16", func(t *testing.T) { checkTypedInts[uint16](t, nkfile.U16) })
	t.Run("i32", func(t *testing.T) { checkTypedInts[int32](t, nkfile.I32) })
	t.Run("u32", func(t *testing.T) { checkTypedInts[uint32](t, nkfile.U32) })
	t.Run("i64", func(t *testing.T) { checkTypedInts[int64](t, nkfile.I64) })
	t.Run("u64", func(t *testing.T) { checkTypedInts[uint64](t, nkfile.U64) })
}

type integer interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64
}

var typedOps = []nkfile.OpType{nkfile.OpAdd, nkfile.OpSub, nkfile.OpMul, nkfile.OpDiv, nkfile.OpMaximum, nkfile.OpMinimum}

func goOp[T integer](op nkfile.OpType, a, b T) T {
	switch op {
	case nkfile.OpAdd:
		return a + b
	case nkfile.OpSub:
		return a - b
	case nkfile.OpMul:
		return a * b
	case nkfile.OpDiv:
		if b == 0 {
			return 0
		}
		return a / b
	case nkfile.OpMaximum:
		return max(a, b)
	}
	return min(a, b)
}

// typedModel is y = op(a [2,3,4], b [3,1]) on dtype dt.
func typedModel(t *testing.T, op nkfile.OpType, dt nkfile.DType) *nk.Model {
	b := nkfile.NewBuilder()
	x := b.Input("a", dt, 2, 3, 4)
	w := b.Input("b", dt, 3, 1)
	b.Output(b.Op(op, "y", []int{x, w}, nkfile.ClampWords(nkfile.NoClamp), nkfile.ActNone))
	m, err := b.Model()
	require.NoError(t, err)
	img, err := nkfile.Encode(m)
	require.NoError(t, err)
	model, err := nk.LoadBytes(img)
	require.NoError(t, err)
	return model
}

func checkTypedInts[T integer](t *testing.T, dt nkfile.DType) {
	size := dt.Size()
	var zero T
	minV, maxV := ^zero, ^zero // unsigned: max; signed: -1, fixed below
	if minV < 0 {
		maxV = T(1<<(8*size-1) - 1)
		minV = -maxV - 1
	} else {
		minV = 0
	}
	r := rand.New(rand.NewPCG(uint64(size), 7))
	draw := func(n int) []T {
		special := []T{0, 1, 2, maxV, minV, maxV - 1, minV + 1, ^zero}
		v := make([]T, n)
		for i := range v {
			if i%3 == 0 {
				v[i] = special[r.IntN(len(special))]
			} else {
				v[i] = T(r.Uint64())
			}
		}
		return v
	}
	enc := func(v []T) []byte {
		out := make([]byte, 0, size*len(v))
		for _, x := range v {
			out = binary.LittleEndian.AppendUint64(out, uint64(x))[:len(out)+size]
		}
		return out
	}
	for _, op := range typedOps {
		model := typedModel(t, op, dt)
		for trial := range 20 {
			a, b := draw(24), draw(3)
			if trial == 0 { // the overflowing quotient and a zero divisor
				a[0], b[0], b[1] = minV, ^zero, 0
			}
			out := make([]byte, 24*size)
			require.NoError(t, model.RunRaw([][]byte{enc(a), enc(b)}, [][]byte{out}))
			want := make([]T, 24)
			for i := range want {
				want[i] = goOp(op, a[i], b[(i/4)%3])
			}
			require.Equal(t, enc(want), out, "%s %s trial %d: a %v b %v", dt, op, trial, a, b)
		}
		require.NoError(t, model.Close())
	}
}

// Max and Min on float16 and double, against Go's math.Max and math.Min
// where no operand is a NaN (-0 and +0 compare equal), and a NaN where one
// is (numpy.maximum's rule, which ONNX follows; Go's math.Min gives -Inf
// for Min(NaN, -Inf)). The float16 operands are bit patterns whose values
// are written out by hand.
func TestTypedFloatMaxMin(t *testing.T) {
	f16 := map[uint16]float64{
		0x0000: 0, 0x8000: math.Copysign(0, -1), 0x3C00: 1, 0xBC00: -1, 0xC000: -2, 0x3555: 0.333251953125,
		0x7BFF: 65504, 0xFBFF: -65504, 0x0001: 1.0 / (1 << 24), 0x8001: -1.0 / (1 << 24), 0x0400: 1.0 / (1 << 14),
		0x7C00: math.Inf(1), 0xFC00: math.Inf(-1), 0x7E00: math.NaN(), 0x4248: 3.140625, 0xC248: -3.140625,
	}
	var bits16 []uint16
	for k := range f16 {
		bits16 = append(bits16, k)
	}
	f64 := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, -1e300, 1e-310, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64}
	r := rand.New(rand.NewPCG(1, 2))
	for _, op := range []nkfile.OpType{nkfile.OpMaximum, nkfile.OpMinimum} {
		ref := map[nkfile.OpType]func(a, b float64) float64{nkfile.OpMaximum: math.Max, nkfile.OpMinimum: math.Min}[op]
		for _, dt := range []nkfile.DType{nkfile.F16, nkfile.F64} {
			model := typedModel(t, op, dt)
			for range 30 {
				a, b := make([]float64, 24), make([]float64, 3)
				var ab, bb []byte
				for i := range 27 {
					v := &a[min(i, 23)]
					if i >= 24 {
						v = &b[i-24]
					}
					var enc []byte
					if dt == nkfile.F16 {
						k := bits16[r.IntN(len(bits16))]
						*v, enc = f16[k], binary.LittleEndian.AppendUint16(nil, k)
					} else {
						*v = f64[r.IntN(len(f64))]
						enc = binary.LittleEndian.AppendUint64(nil, math.Float64bits(*v))
					}
					if i < 24 {
						ab = append(ab, enc...)
					} else {
						bb = append(bb, enc...)
					}
				}
				out := make([]byte, 24*dt.Size())
				require.NoError(t, model.RunRaw([][]byte{ab, bb}, [][]byte{out}))
				for i := range 24 {
					want := ref(a[i], b[(i/4)%3])
					if math.IsNaN(a[i]) || math.IsNaN(b[(i/4)%3]) {
						want = math.NaN()
					}
					var got float64
					if dt == nkfile.F16 {
						v, ok := f16[binary.LittleEndian.Uint16(out[2*i:])]
						require.True(t, ok || math.IsNaN(want), "output %d: bits %#04x are no operand", i, binary.LittleEndian.Uint16(out[2*i:]))
						got = v
					} else {
						got = math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:]))
					}
					if math.IsNaN(want) {
						assert.True(t, math.IsNaN(got), "%s %s(%g, %g) = %g, want NaN", dt, op, a[i], b[(i/4)%3], got)
					} else {
						assert.Equal(t, want == 0, got == 0, "%s %s(%g, %g) = %g", dt, op, a[i], b[(i/4)%3], got)
						if want != 0 {
							assert.Equal(t, want, got, "%s %s(%g, %g)", dt, op, a[i], b[(i/4)%3])
						}
					}
				}
			}
			require.NoError(t, model.Close())
		}
	}
}

// The C core refuses what the typed kernel does not do, each with a message
// (the converter never writes these; a hand-made file may).
func TestTypedOpsRefused(t *testing.T) {
	build := func(op nkfile.OpType, dt nkfile.DType, clamp nkfile.Clamp, q *nkfile.Quant) []byte {
		m := &nkfile.Model{
			Tensors: []nkfile.Tensor{{Name: "a", DType: dt, Shape: []int{4}, Quant: q}, {Name: "b", DType: dt, Shape: []int{4}},
				{Name: "y", DType: dt, Shape: []int{4}}},
			Ops:     []nkfile.Op{{Type: op, Name: "y", Inputs: []int{0, 1}, Outputs: []int{2}, Params: nkfile.ClampWords(clamp)}},
			Inputs:  []nkfile.IO{{Tensor: 0}, {Tensor: 1}},
			Outputs: []nkfile.IO{{Tensor: 2}},
		}
		b, err := nkfile.Encode(m)
		require.NoError(t, err)
		return b
	}
	for _, c := range []struct {
		img  []byte
		want string
	}{
		{build(nkfile.OpAdd, nkfile.F16, nkfile.NoClamp, nil), "float16 and double tensors run maximum and minimum only"},
		{build(nkfile.OpDiv, nkfile.F64, nkfile.NoClamp, nil), "float16 and double tensors run maximum and minimum only"},
		{build(nkfile.OpPow, nkfile.I32, nkfile.NoClamp, nil), "on i32 input is not supported"},
		{build(nkfile.OpAdd, nkfile.I32, nkfile.Clamp{Min: 0, Max: 6}, nil), "takes no clamp"},
		{build(nkfile.OpAdd, nkfile.I8, nkfile.NoClamp, &nkfile.Quant{Axis: -1, Scale: []float32{0.5}, ZeroPoint: []int32{0}}), "add_i8"},
	} {
		_, err := nk.LoadBytes(c.img)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
	}
}
