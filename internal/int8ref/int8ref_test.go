package int8ref

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/quant"
)

// The testdata tables were produced by TFLite's and gemmlowp's own
// reference code, run once outside this repository (testdata/README.md): inputs,
// parameters and outputs, in both rounding modes. Only numbers are kept.

type primitives struct {
	SRDHM     [][3]int32 `json:"srdhm"`
	RDBPOT    [][3]int32 `json:"rdbpot"`
	SatShl    [][3]int32 `json:"satshl"`
	Requant   [][5]int32 `json:"requant"`
	Exp5      [][2]int32 `json:"exp5"`
	Exp4      [][2]int32 `json:"exp4"`
	Exp0      [][2]int32 `json:"exp0"`
	Exp6      [][2]int32 `json:"exp6"`
	Recip     [][2]int32 `json:"recip"`
	OmXOpX    [][2]int32 `json:"omxopx"`
	Logistic4 [][2]int32 `json:"logistic4"`
	Tanh4     [][2]int32 `json:"tanh4"`
}

func loadJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, v))
}

func TestPrimitivesHand(t *testing.T) {
	// a*b/2^31 rounded half up; the only saturation is (-1)*(-1).
	assert.Equal(t, int32(math.MaxInt32), SRDHM(math.MinInt32, math.MinInt32))
	assert.Equal(t, int32(1), SRDHM(1, 1<<30), "0.5 rounds up")
	assert.Equal(t, int32(0), SRDHM(-1, 1<<30), "-0.5 rounds up to 0")
	assert.Equal(t, int32(-2147483647), SRDHM(math.MinInt32, math.MaxInt32), "-(2^31-1) exactly")
	// ties away from zero
	assert.Equal(t, int32(3), RoundingDivideByPOT(5, 1))
	assert.Equal(t, int32(-3), RoundingDivideByPOT(-5, 1))
	assert.Equal(t, int32(-1), RoundingDivideByPOT(-5, 2), "-1.25")
	assert.Equal(t, int32(-1), RoundingDivideByPOT(math.MinInt32, 31))
	assert.Equal(t, int32(1), RoundingDivideByPOT(math.MaxInt32, 31))
	assert.Equal(t, int32(math.MaxInt32), SaturatingShiftLeft(2, 30))
	assert.Equal(t, int32(math.MinInt32), SaturatingShiftLeft(-3, 30))
	// 5 * 0.5 / 2 = 1.25: double rounding gives 2 (2.5 -> 3, 1.5 -> 2),
	// single rounding 1.
	half := quant.Multiplier{M: 1 << 30, Shift: -1}
	assert.Equal(t, int32(2), Requantize(5, half, quant.DoubleRounding))
	assert.Equal(t, int32(1), Requantize(5, half, quant.SingleRounding))
	// -2 * 0.5 / 2 = -0.5: -1 (double, away from zero) and 0 (single, half up)
	assert.Equal(t, int32(-1), Requantize(-2, half, quant.DoubleRounding))
	assert.Equal(t, int32(0), Requantize(-2, half, quant.SingleRounding))
	assert.Equal(t, int32(math.MaxInt32), ExpOnNegativeValues(0, 5), "exp(0) saturates")
	assert.Equal(t, int32(1<<30), LogisticQ4(0))
	assert.Equal(t, int32(0), TanhQ4(0))
}

func TestPrimitivesMatchTFLite(t *testing.T) {
	var p primitives
	loadJSON(t, "testdata/tflite_primitives.json", &p)
	require.NotEmpty(t, p.Requant)
	for _, r := range p.SRDHM {
		assert.Equal(t, r[2], SRDHM(r[0], r[1]), "SRDHM(%d, %d)", r[0], r[1])
	}
	for _, r := range p.RDBPOT {
		assert.Equal(t, r[2], RoundingDivideByPOT(r[0], int(r[1])), "RDBPOT(%d, %d)", r[0], r[1])
	}
	for _, r := range p.SatShl {
		assert.Equal(t, r[2], SaturatingShiftLeft(r[0], int(r[1])), "SatShl(%d, %d)", r[0], r[1])
	}
	shifts := map[int32]bool{}
	for _, r := range p.Requant {
		m := quant.Multiplier{M: r[1], Shift: r[2]}
		shifts[r[2]] = true
		assert.Equal(t, r[3], Requantize(r[0], m, quant.DoubleRounding), "double %v", r)
		assert.Equal(t, r[4], Requantize(r[0], m, quant.SingleRounding), "single %v", r)
	}
	assert.Len(t, shifts, 62, "every shift -31..30")
	fns := []struct {
		name string
		rows [][2]int32
		fn   func(int32) int32
	}{
		{"exp5", p.Exp5, func(a int32) int32 { return ExpOnNegativeValues(a, 5) }},
		{"exp4", p.Exp4, func(a int32) int32 { return ExpOnNegativeValues(a, 4) }},
		{"exp0", p.Exp0, func(a int32) int32 { return ExpOnNegativeValues(a, 0) }},
		{"exp6", p.Exp6, func(a int32) int32 { return ExpOnNegativeValues(a, 6) }},
		{"1/(1+x)", p.Recip, OneOverOnePlusX},
		{"(1-x)/(1+x)", p.OmXOpX, OneMinusXOverOnePlusX},
		{"logistic", p.Logistic4, LogisticQ4},
		{"tanh", p.Tanh4, TanhQ4},
	}
	for _, f := range fns {
		require.NotEmpty(t, f.rows, f.name)
		for _, r := range f.rows {
			assert.Equal(t, r[1], f.fn(r[0]), "%s(%d)", f.name, r[0])
		}
	}
}

// oracle is the TFLite reference op table (one rounding mode).
type oracle struct {
	Conv []struct {
		In     [4]int    `json:"in"`
		K      [3]int    `json:"k"`
		Stride [2]int    `json:"stride"`
		Dil    [2]int    `json:"dil"`
		Pad    [2]int    `json:"pad"`
		Out    [2]int    `json:"out"`
		Same   int       `json:"same"`
		SIn    float32   `json:"s_in"`
		SOut   float32   `json:"s_out"`
		SW     []float32 `json:"s_w"`
		ZpIn   int32     `json:"zp_in"`
		ZpOut  int32     `json:"zp_out"`
		Lo     int32     `json:"act_min"`
		Hi     int32     `json:"act_max"`
		X      []int8    `json:"x"`
		W      []int8    `json:"w"`
		Bias   []int32   `json:"bias"`
		Y      []int8    `json:"y"`
	} `json:"conv"`
	DW []struct {
		In     [4]int    `json:"in"`
		K      [2]int    `json:"k"`
		Mult   int       `json:"mult"`
		Stride [2]int    `json:"stride"`
		Dil    [2]int    `json:"dil"`
		Pad    [2]int    `json:"pad"`
		Out    [2]int    `json:"out"`
		Same   int       `json:"same"`
		SIn    float32   `json:"s_in"`
		SOut   float32   `json:"s_out"`
		SW     []float32 `json:"s_w"`
		ZpIn   int32     `json:"zp_in"`
		ZpOut  int32     `json:"zp_out"`
		Lo     int32     `json:"act_min"`
		Hi     int32     `json:"act_max"`
		X      []int8    `json:"x"`
		W      []int8    `json:"w"`
		Bias   []int32   `json:"bias"`
		Y      []int8    `json:"y"`
	} `json:"dw"`
	FC []struct {
		Batch int     `json:"batch"`
		Depth int     `json:"depth"`
		Units int     `json:"units"`
		SIn   float32 `json:"s_in"`
		SW    float32 `json:"s_w"`
		SOut  float32 `json:"s_out"`
		ZpIn  int32   `json:"zp_in"`
		ZpOut int32   `json:"zp_out"`
		Lo    int32   `json:"act_min"`
		Hi    int32   `json:"act_max"`
		X     []int8  `json:"x"`
		W     []int8  `json:"w"`
		Bias  []int32 `json:"bias"`
		Y     []int8  `json:"y"`
	} `json:"fc"`
	Pool []struct {
		In     [4]int `json:"in"`
		K      [2]int `json:"k"`
		Stride [2]int `json:"stride"`
		Pad    [2]int `json:"pad"`
		Out    [2]int `json:"out"`
		Lo     int32  `json:"act_min"`
		Hi     int32  `json:"act_max"`
		X      []int8 `json:"x"`
		Avg    []int8 `json:"avg"`
		Max    []int8 `json:"max"`
	} `json:"pool"`
	Add []struct {
		S1, S2  float32
		SOut    float32 `json:"s_out"`
		Zp1     int32   `json:"zp1"`
		Zp2     int32   `json:"zp2"`
		ZpOut   int32   `json:"zp_out"`
		Lo      int32   `json:"act_min"`
		Hi      int32   `json:"act_max"`
		A, B, Y []int8
	} `json:"add"`
	Mul []struct {
		S1, S2  float32
		SOut    float32 `json:"s_out"`
		Zp1     int32   `json:"zp1"`
		Zp2     int32   `json:"zp2"`
		ZpOut   int32   `json:"zp_out"`
		Lo      int32   `json:"act_min"`
		Hi      int32   `json:"act_max"`
		A, B, Y []int8
	} `json:"mul"`
	Softmax []struct {
		Rows int     `json:"rows"`
		N    int     `json:"n"`
		SIn  float32 `json:"s_in"`
		Beta float32 `json:"beta"`
		X    []int8  `json:"x"`
		Y    []int8  `json:"y"`
	} `json:"softmax"`
	Logistic []struct {
		SIn      float32 `json:"s_in"`
		ZpIn     int32   `json:"zp_in"`
		Logistic []int8  `json:"logistic"`
		Tanh     []int8  `json:"tanh"`
	} `json:"logistic"`
	Quantize []struct {
		Scale float32   `json:"scale"`
		Zp    int32     `json:"zp"`
		F     []float32 `json:"f"`
		Q     []int8    `json:"q"`
		DQ    []float32 `json:"dq"`
	} `json:"quantize"`
}

// Parameters go through internal/quant, so these tests check the converter
// math and the op semantics together against TFLite.
func TestOpsMatchTFLite(t *testing.T) {
	for _, mode := range []quant.Rounding{quant.DoubleRounding, quant.SingleRounding} {
		var o oracle
		loadJSON(t, "testdata/tflite_ops_"+mode.String()+".json", &o)
		require.NotEmpty(t, o.Conv)
		for i, c := range o.Conv {
			ms, err := quant.ConvMultipliers(c.SIn, c.SW, c.SOut, c.K[0], mode)
			require.NoError(t, err)
			oh, pt, _ := quant.Padding(c.Same == 1, c.In[1], c.K[1], c.Stride[0], c.Dil[0])
			ow, pl, _ := quant.Padding(c.Same == 1, c.In[2], c.K[2], c.Stride[1], c.Dil[1])
			require.Equal(t, [4]int{c.Out[0], c.Out[1], c.Pad[0], c.Pad[1]}, [4]int{oh, ow, pt, pl}, "conv %d geometry", i)
			y, err := Conv2D(c.X, NHWC{c.In[0], c.In[1], c.In[2], c.In[3]}, c.W, c.K[0], c.K[1], c.K[2], c.In[3], c.Bias,
				ConvParams{
					Window:      Window{StrideH: c.Stride[0], StrideW: c.Stride[1], DilationH: c.Dil[0], DilationW: c.Dil[1], PadTop: pt, PadLeft: pl, OutH: oh, OutW: ow},
					InZeroPoint: c.ZpIn, Out: Out{c.ZpOut, c.Lo, c.Hi}, Mult: ms, Rounding: mode,
				})
			require.NoError(t, err)
			assert.Equal(t, c.Y, y, "%v conv %d", mode, i)
		}
		for i, c := range o.DW {
			ch := c.In[3] * c.Mult
			ms, err := quant.ConvMultipliers(c.SIn, c.SW, c.SOut, ch, mode)
			require.NoError(t, err)
			y, err := DepthwiseConv2D(c.X, NHWC{c.In[0], c.In[1], c.In[2], c.In[3]}, c.W, c.K[0], c.K[1], c.Mult, c.Bias,
				ConvParams{
					Window:      Window{StrideH: c.Stride[0], StrideW: c.Stride[1], DilationH: c.Dil[0], DilationW: c.Dil[1], PadTop: c.Pad[0], PadLeft: c.Pad[1], OutH: c.Out[0], OutW: c.Out[1]},
					InZeroPoint: c.ZpIn, Out: Out{c.ZpOut, c.Lo, c.Hi}, Mult: ms, Rounding: mode,
				})
			require.NoError(t, err)
			assert.Equal(t, c.Y, y, "%v depthwise %d", mode, i)
		}
		for i, c := range o.FC {
			m, err := quant.FullyConnectedMultiplier(c.SIn, c.SW, c.SOut, mode)
			require.NoError(t, err)
			y, err := FullyConnected(c.X, c.Batch, c.Depth, c.W, c.Units, c.Bias,
				FCParams{InZeroPoint: c.ZpIn, Out: Out{c.ZpOut, c.Lo, c.Hi}, Mult: []quant.Multiplier{m}, Rounding: mode})
			require.NoError(t, err)
			assert.Equal(t, c.Y, y, "%v fc %d", mode, i)
		}
		for i, c := range o.Pool {
			p := PoolParams{Window: Window{StrideH: c.Stride[0], StrideW: c.Stride[1], PadTop: c.Pad[0], PadLeft: c.Pad[1], OutH: c.Out[0], OutW: c.Out[1]},
				KH: c.K[0], KW: c.K[1], ActMin: c.Lo, ActMax: c.Hi}
			xs := NHWC{c.In[0], c.In[1], c.In[2], c.In[3]}
			ya, err := AvgPool(c.X, xs, p)
			require.NoError(t, err)
			assert.Equal(t, c.Avg, ya, "%v avg pool %d", mode, i)
			ym, err := MaxPool(c.X, xs, p)
			require.NoError(t, err)
			assert.Equal(t, c.Max, ym, "%v max pool %d", mode, i)
		}
		for i, c := range o.Add {
			sp, err := quant.Add(c.S1, c.S2, c.SOut, mode)
			require.NoError(t, err)
			y, err := Add(c.A, c.B, AddParams{c.Zp1, c.Zp2, Out{c.ZpOut, c.Lo, c.Hi}, sp, mode})
			require.NoError(t, err)
			assert.Equal(t, c.Y, y, "%v add %d", mode, i)
		}
		for i, c := range o.Mul {
			m, err := quant.Mul(c.S1, c.S2, c.SOut, mode)
			require.NoError(t, err)
			y, err := Mul(c.A, c.B, MulParams{c.Zp1, c.Zp2, Out{c.ZpOut, c.Lo, c.Hi}, m, mode})
			require.NoError(t, err)
			assert.Equal(t, c.Y, y, "%v mul %d", mode, i)
		}
		for i, c := range o.Softmax {
			sp, err := quant.Softmax(c.Beta, c.SIn, mode)
			require.NoError(t, err)
			y, err := Softmax(c.X, c.N, sp)
			require.NoError(t, err)
			assert.Equal(t, c.Y, y, "%v softmax %d", mode, i)
		}
		all := make([]int8, 256)
		for i := range all {
			all[i] = int8(i - 128)
		}
		for i, c := range o.Logistic {
			p, err := quant.LogisticTanh(c.SIn, c.ZpIn)
			require.NoError(t, err)
			assert.Equal(t, c.Logistic, Logistic(all, p, mode), "%v logistic %d", mode, i)
			assert.Equal(t, c.Tanh, Tanh(all, p, mode), "%v tanh %d", mode, i)
		}
		for i, c := range o.Quantize {
			assert.Equal(t, c.Q, Quantize(c.F, c.Scale, c.Zp), "%v quantize %d", mode, i)
			assert.Equal(t, c.DQ, Dequantize(c.Q, c.Scale, c.Zp), "%v dequantize %d", mode, i)
		}
	}
}

func TestConvHand(t *testing.T) {
	// 2x2 input, one channel, zero point 1; 2x2 kernel of ones, SAME
	// padding: out (0,0) sees all four taps, (1,1) only x[1,1] (the rest is
	// padding, which contributes nothing, not (0 - zp)).
	// x - zp = [[1, 2], [3, 4]]; bias 10; multiplier 0.5 (M 2^30, shift 0).
	x := []int8{2, 3, 4, 5}
	w := []int8{1, 1, 1, 1}
	p := ConvParams{
		Window:      Window{StrideH: 1, StrideW: 1, OutH: 2, OutW: 2},
		InZeroPoint: 1, Out: Out{ZeroPoint: -5, ActMin: -128, ActMax: 127},
		Mult: []quant.Multiplier{{M: 1 << 30, Shift: 0}},
	}
	y, err := Conv2D(x, NHWC{1, 2, 2, 1}, w, 1, 2, 2, 1, []int32{10}, p)
	require.NoError(t, err)
	// (0,0): 1+2+3+4+10 = 20 -> 10 -> 5; (0,1): 2+4+10 = 16 -> 8 -> 3;
	// (1,0): 3+4+10 = 17 -> 8.5 rounds up to 9 -> 4; (1,1): 4+10 = 14 -> 7 -> 2.
	assert.Equal(t, []int8{5, 3, 4, 2}, y)
	// relu at the output zero point: clamp after adding the offset.
	p.Out.ActMin, p.Out.ActMax = 3, 4
	y, err = Conv2D(x, NHWC{1, 2, 2, 1}, w, 1, 2, 2, 1, []int32{10}, p)
	require.NoError(t, err)
	assert.Equal(t, []int8{4, 3, 4, 3}, y)
}

func TestDepthwiseMultiplierHand(t *testing.T) {
	// 1x1 kernel, 2 input channels, multiplier 2: output channel c*2+j
	// reads input channel c with weight w[c*2+j]. M = 2^30, shift 1 is 1.0.
	x := []int8{3, -4}
	w := []int8{1, 2, 3, -1}
	p := ConvParams{Window: Window{StrideH: 1, StrideW: 1, OutH: 1, OutW: 1},
		Out: Out{ActMin: -128, ActMax: 127}, Mult: []quant.Multiplier{{M: 1 << 30, Shift: 1}}}
	y, err := DepthwiseConv2D(x, NHWC{1, 1, 1, 2}, w, 1, 1, 2, nil, p)
	require.NoError(t, err)
	assert.Equal(t, []int8{3, 6, -12, 4}, y)
}

func TestPoolHand(t *testing.T) {
	// 2x2 average with SAME padding at the corner: only the valid taps count.
	// [[1, 2], [4, 6]]: full window 13/4 = 3.25 -> 3; right column 8/2 = 4;
	// bottom row 10/2 = 5; corner 6. Max: 6, 6, 6, 6.
	x := []int8{1, 2, 4, 6}
	p := PoolParams{Window: Window{StrideH: 1, StrideW: 1, OutH: 2, OutW: 2}, KH: 2, KW: 2, ActMin: -128, ActMax: 127}
	y, err := AvgPool(x, NHWC{1, 2, 2, 1}, p)
	require.NoError(t, err)
	assert.Equal(t, []int8{3, 4, 5, 6}, y)
	// ties go away from zero: -5/2 = -2.5 -> -3, 5/2 -> 3
	y, err = AvgPool([]int8{-2, -3, 2, 3}, NHWC{1, 1, 2, 2}, PoolParams{Window: Window{StrideH: 1, StrideW: 1, OutH: 1, OutW: 1}, KH: 1, KW: 2, ActMin: -128, ActMax: 127})
	require.NoError(t, err)
	assert.Equal(t, []int8{0, 0}, y, "channels: (-2+2)/2 = 0, (-3+3)/2 = 0")
	y, err = AvgPool([]int8{-2, -3}, NHWC{1, 1, 2, 1}, PoolParams{Window: Window{StrideH: 1, StrideW: 1, OutH: 1, OutW: 1}, KH: 1, KW: 2, ActMin: -128, ActMax: 127})
	require.NoError(t, err)
	assert.Equal(t, []int8{-3}, y, "-5/2 = -2.5 -> -3")
	y, err = MaxPool(x, NHWC{1, 2, 2, 1}, PoolParams{Window: Window{StrideH: 1, StrideW: 1, OutH: 1, OutW: 1}, KH: 2, KW: 2, ActMin: -128, ActMax: 5})
	require.NoError(t, err)
	assert.Equal(t, []int8{5}, y, "max 6 clamped to 5")
}

func TestSoftmaxInvariants(t *testing.T) {
	p, err := quant.Softmax(1, 0.1, quant.DoubleRounding)
	require.NoError(t, err)
	x := []int8{-128, -60, 0, 10, 20, 20, 127, 100}
	y, err := Softmax(x, len(x), p)
	require.NoError(t, err)
	sum := 0
	for i, v := range y {
		sum += int(v) + 128
		want := 256 * softmaxF(x, i, 0.1)
		assert.InDelta(t, want, float64(int(v)+128), 1.0, "element %d within one output step of float softmax", i)
	}
	assert.InDelta(t, 256, sum, float64(len(x)), "probabilities sum to ~1")
	// equal inputs give equal outputs; larger inputs never give less
	assert.Equal(t, y[4], y[5])
	for i := 1; i < 4; i++ {
		assert.LessOrEqual(t, y[i-1], y[i])
	}
	// a row of 600 equal values: 1/600 of 256 is 0.43 -> output -128; this
	// pushes the output shift past 31 (sum 600*2^19 > 2^28).
	long := make([]int8, 600)
	y, err = Softmax(long, 600, p)
	require.NoError(t, err)
	for _, v := range y {
		assert.Equal(t, int8(-128), v)
	}
}

func softmaxF(x []int8, i int, scale float64) float64 {
	var sum float64
	for _, v := range x {
		sum += math.Exp(scale * float64(v))
	}
	return math.Exp(scale*float64(x[i])) / sum
}

func TestLogisticTanhInvariants(t *testing.T) {
	p, err := quant.LogisticTanh(0.05, -3)
	require.NoError(t, err)
	all := make([]int8, 256)
	for i := range all {
		all[i] = int8(i - 128)
	}
	l := Logistic(all, p, quant.DoubleRounding)
	th := Tanh(all, p, quant.DoubleRounding)
	for i := range all {
		v := 0.05 * float64(int32(all[i])+3)
		assert.InDelta(t, 256/(1+math.Exp(-v))-128, float64(l[i]), 1.0, "logistic(%g)", v)
		assert.InDelta(t, math.Max(-128, math.Min(127, 128*math.Tanh(v))), float64(th[i]), 1.0, "tanh(%g)", v)
		if i > 0 {
			assert.LessOrEqual(t, l[i-1], l[i], "monotone")
			assert.LessOrEqual(t, th[i-1], th[i], "monotone")
		}
	}
	assert.Equal(t, int8(0), l[128-3], "logistic(0) = 0.5 -> 128 - 128")
	assert.Equal(t, int8(0), th[128-3], "tanh(0) = 0")
}

func TestQuantizeHand(t *testing.T) {
	// scale 0.5, zp -3: 0.25/0.5 = 0.5 -> 1 (away from zero) -> -2;
	// -0.25 -> -1 -> -4; 1000 saturates to 127; NaN maps to the zero point.
	got := Quantize([]float32{0.25, -0.25, 1000, -1000, float32(math.NaN())}, 0.5, -3)
	assert.Equal(t, []int8{-2, -4, 127, -128, -3}, got)
	assert.Equal(t, []float32{-62.5, 65}, Dequantize([]int8{-128, 127}, 0.5, -3))
}

func TestShapeErrors(t *testing.T) {
	_, err := Conv2D([]int8{1}, NHWC{1, 1, 1, 2}, nil, 1, 1, 1, 2, nil, ConvParams{})
	assert.ErrorIs(t, err, ErrShape)
	_, err = FullyConnected([]int8{1, 2}, 1, 2, []int8{1}, 1, nil, FCParams{Mult: []quant.Multiplier{{}}})
	assert.ErrorIs(t, err, ErrShape)
	_, err = Add([]int8{1}, []int8{1, 2}, AddParams{})
	assert.ErrorIs(t, err, ErrShape)
	_, err = Softmax([]int8{1, 2, 3}, 2, quant.SoftmaxParams{})
	assert.ErrorIs(t, err, ErrShape)
	_, err = AvgPool([]int8{1}, NHWC{1, 1, 1, 1}, PoolParams{Window: Window{StrideH: 1, StrideW: 1, PadTop: 3, OutH: 1, OutW: 1}, KH: 1, KW: 1})
	assert.ErrorIs(t, err, ErrShape, "a window over padding only")
}
