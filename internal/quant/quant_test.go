package quant

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuantizeMultiplierHand(t *testing.T) {
	cases := []struct {
		name   string
		d      float64
		r      Rounding
		want   Multiplier
		derive string
	}{
		{"zero", 0, DoubleRounding, Multiplier{0, 0}, "0 is special-cased"},
		{"half", 0.5, DoubleRounding, Multiplier{1 << 30, 0}, "frexp(0.5) = 0.5*2^0; 0.5*2^31 = 2^30"},
		{"quarter", 0.25, DoubleRounding, Multiplier{1 << 30, -1}, "0.25 = 0.5*2^-1"},
		{"three quarters", 0.75, DoubleRounding, Multiplier{1610612736, 0}, "0.75*2^31 = 1610612736"},
		{"one", 1, DoubleRounding, Multiplier{1 << 30, 1}, "1 = 0.5*2^1"},
		{"0.3", 0.3, DoubleRounding, Multiplier{1288490189, -1}, "0.3 = 0.6*2^-1; 0.6*2^31 = 1288490188.8 -> 1288490189"},
		{"rounds to 2^31", 1 - math.Ldexp(1, -33), DoubleRounding, Multiplier{1 << 30, 1},
			"q = 1-2^-33, q*2^31 = 2^31-0.25 rounds to 2^31: renormalised to 2^30, shift+1"},
		{"largest significand", 1 - math.Ldexp(1, -31), DoubleRounding, Multiplier{math.MaxInt32, 0},
			"q*2^31 = 2^31-1 exactly"},
		{"smallest kept", math.Ldexp(1, -32), DoubleRounding, Multiplier{1 << 30, -31}, "2^-32 = 0.5*2^-31: shift -31 is kept"},
		{"flushed", math.Ldexp(1, -33), DoubleRounding, Multiplier{0, 0}, "0.5*2^-32: shift < -31 flushes to 0"},
		{"1e6", 1e6, DoubleRounding, Multiplier{2048000000, 20}, "1e6/2^20 = 0.95367431640625, *2^31 = 2048000000"},
		{"2^31 double", math.Ldexp(1, 31), DoubleRounding, Multiplier{1 << 30, 32}, "0.5*2^32: no clamp in double rounding"},
		{"2^31 single", math.Ldexp(1, 31), SingleRounding, Multiplier{math.MaxInt32, 30}, "single rounding clamps shift > 30"},
		{"one single", 1, SingleRounding, Multiplier{1 << 30, 1}, "below the clamp both modes agree"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, QuantizeMultiplier(c.d, c.r), c.derive)
		})
	}
}

// tfliteQM holds QuantizeMultiplier results of TFLite's own
// quantization_util.cc, built natively in both rounding modes.
type tfliteQM struct {
	Double [][3]float64 `json:"double"`
	Single [][3]float64 `json:"single"`
}

func TestQuantizeMultiplierMatchesTFLite(t *testing.T) {
	raw, err := os.ReadFile("testdata/tflite_quantize_multiplier.json")
	require.NoError(t, err)
	var tab tfliteQM
	require.NoError(t, json.Unmarshal(raw, &tab))
	require.NotEmpty(t, tab.Double)
	for mode, rows := range map[Rounding][][3]float64{DoubleRounding: tab.Double, SingleRounding: tab.Single} {
		for _, row := range rows {
			got := QuantizeMultiplier(row[0], mode)
			assert.Equal(t, Multiplier{int32(row[1]), int32(row[2])}, got, "d=%v mode=%v", row[0], mode)
		}
	}
}

func TestMultiplierReal(t *testing.T) {
	for _, d := range []float64{0.3, 1e-5, 0.999, 7.5, 12345.678} {
		m := QuantizeMultiplier(d, DoubleRounding)
		assert.InEpsilon(t, d, m.Real(), 1e-9, "31-bit significand keeps ~9 digits")
	}
}

// opsOracle mirrors the parameter fields of internal/int8ref's TFLite
// reference vectors (computed by TFLite's reference kernels' prepare math).
type opsOracle struct {
	Conv []struct {
		SIn   float32   `json:"s_in"`
		SOut  float32   `json:"s_out"`
		SW    []float32 `json:"s_w"`
		M     []int32   `json:"M"`
		Shift []int32   `json:"shift"`
		ZpOut int32     `json:"zp_out"`
		Act   int       `json:"act"`
		Lo    int32     `json:"act_min"`
		Hi    int32     `json:"act_max"`
	} `json:"conv"`
	FC []struct {
		SIn     float32 `json:"s_in"`
		SW      float32 `json:"s_w"`
		SOut    float32 `json:"s_out"`
		M       int32   `json:"M"`
		Shift   int32   `json:"shift"`
		MPC     int32   `json:"M_pc"`
		ShiftPC int32   `json:"shift_pc"`
	} `json:"fc"`
	Add []struct {
		S1, S2   float32
		SOut     float32 `json:"s_out"`
		M1       int32   `json:"M1"`
		Shift1   int32   `json:"shift1"`
		M2       int32   `json:"M2"`
		Shift2   int32   `json:"shift2"`
		Mo       int32   `json:"Mo"`
		ShiftOut int32   `json:"shift_out"`
	} `json:"add"`
	Mul []struct {
		S1, S2   float32
		SOut     float32 `json:"s_out"`
		Mo       int32   `json:"Mo"`
		ShiftOut int32   `json:"shift_out"`
	} `json:"mul"`
	Softmax []struct {
		SIn     float32 `json:"s_in"`
		Beta    float32 `json:"beta"`
		M       int32   `json:"M"`
		Shift   int32   `json:"shift"`
		DiffMin int32   `json:"diff_min"`
	} `json:"softmax"`
	Logistic []struct {
		SIn    float32 `json:"s_in"`
		ZpIn   int32   `json:"zp_in"`
		M      int32   `json:"M"`
		Shift  int32   `json:"shift"`
		Radius int32   `json:"radius"`
	} `json:"logistic"`
}

func loadOps(t *testing.T, mode Rounding) opsOracle {
	t.Helper()
	raw, err := os.ReadFile("../int8ref/testdata/tflite_ops_" + mode.String() + ".json")
	require.NoError(t, err)
	var o opsOracle
	require.NoError(t, json.Unmarshal(raw, &o))
	require.NotEmpty(t, o.Conv)
	return o
}

func TestOpParamsMatchTFLite(t *testing.T) {
	for _, mode := range []Rounding{DoubleRounding, SingleRounding} {
		o := loadOps(t, mode)
		for i, c := range o.Conv {
			ms, err := ConvMultipliers(c.SIn, c.SW, c.SOut, len(c.SW), mode)
			require.NoError(t, err)
			for ch, m := range ms {
				assert.Equal(t, Multiplier{c.M[ch], c.Shift[ch]}, m, "%v conv %d channel %d", mode, i, ch)
			}
			act := map[int]Activation{0: ActNone, 1: ActRelu, 3: ActRelu6}[c.Act]
			lo, hi, err := ActivationRange(act, c.SOut, c.ZpOut)
			require.NoError(t, err)
			assert.Equal(t, [2]int32{c.Lo, c.Hi}, [2]int32{lo, hi}, "%v conv %d act range", mode, i)
		}
		differs := 0
		for i, c := range o.FC {
			m, err := FullyConnectedMultiplier(c.SIn, c.SW, c.SOut, mode)
			require.NoError(t, err)
			assert.Equal(t, Multiplier{c.M, c.Shift}, m, "%v fc %d (float32 product quirk)", mode, i)
			pc, err := ConvMultipliers(c.SIn, []float32{c.SW}, c.SOut, 1, mode)
			require.NoError(t, err)
			assert.Equal(t, Multiplier{c.MPC, c.ShiftPC}, pc[0], "%v fc %d per-channel formula", mode, i)
			if m != pc[0] {
				differs++
			}
		}
		assert.Greater(t, differs, len(o.FC)/2, "the per-tensor quirk changes most multipliers")
		for i, c := range o.Add {
			p, err := Add(c.S1, c.S2, c.SOut, mode)
			require.NoError(t, err)
			assert.Equal(t, AddParams{LeftShift: 20, In1: Multiplier{c.M1, c.Shift1}, In2: Multiplier{c.M2, c.Shift2},
				Out: Multiplier{c.Mo, c.ShiftOut}}, p, "%v add %d", mode, i)
		}
		for i, c := range o.Mul {
			m, err := Mul(c.S1, c.S2, c.SOut, mode)
			require.NoError(t, err)
			assert.Equal(t, Multiplier{c.Mo, c.ShiftOut}, m, "%v mul %d", mode, i)
		}
		for i, c := range o.Softmax {
			p, err := Softmax(c.Beta, c.SIn, mode)
			require.NoError(t, err)
			assert.Equal(t, SoftmaxParams{Multiplier{c.M, c.Shift}, c.DiffMin}, p, "%v softmax %d", mode, i)
		}
		for i, c := range o.Logistic {
			p, err := LogisticTanh(c.SIn, c.ZpIn)
			require.NoError(t, err)
			assert.Equal(t, ActivationFnParams{c.ZpIn, Multiplier{c.M, c.Shift}, c.Radius}, p, "%v logistic %d", mode, i)
		}
	}
}

func TestSoftmaxHand(t *testing.T) {
	// s_in = 1000: 1000*2^26 is over the cap 2^31-1; frexp(2^31-1) has
	// q*2^31 = 2^31-1 and shift 31; radius floor(31*2^26/2^31) = 0.
	p, err := Softmax(1, 1000, DoubleRounding)
	require.NoError(t, err)
	assert.Equal(t, SoftmaxParams{Multiplier{math.MaxInt32, 31}, 0}, p)
	// single rounding caps at 2^30-1: q*2^31 = 2^31-2, shift 30; radius
	// floor(31*2^26/2^30) = floor(1.9375) = 1.
	p, err = Softmax(1, 1000, SingleRounding)
	require.NoError(t, err)
	assert.Equal(t, SoftmaxParams{Multiplier{math.MaxInt32 - 1, 30}, -1}, p)
	// s_in = 1/16: 2^-4 * 2^26 = 2^22 = 0.5*2^23 -> M 2^30, shift 23;
	// radius floor(31*2^26/2^23) = 248.
	p, err = Softmax(1, 1.0/16, DoubleRounding)
	require.NoError(t, err)
	assert.Equal(t, SoftmaxParams{Multiplier{1 << 30, 23}, -248}, p)
	_, err = Softmax(1, 0, DoubleRounding)
	assert.ErrorIs(t, err, ErrRange)
}

func TestLogisticTanhHand(t *testing.T) {
	// 1/16 * 2^27 = 2^23 = 0.5*2^24: M = 2^30, shift 24, radius 15*2^27/2^24 = 120.
	p, err := LogisticTanh(1.0/16, 3)
	require.NoError(t, err)
	assert.Equal(t, ActivationFnParams{3, Multiplier{1 << 30, 24}, 120}, p)
	// A float32 scale has a 24-bit significand, so q*2^31 is an exact
	// integer at most 2^31-128: the largest one stays below INT32_MAX.
	p, err = LogisticTanh(float32(1-math.Ldexp(1, -24)), 0)
	require.NoError(t, err)
	assert.Equal(t, ActivationFnParams{0, Multiplier{math.MaxInt32 - 127, 27}, 15}, p,
		"(1-2^-24)*2^27 = (1-2^-24)*2^27: M = 2^31-128, shift 27, radius floor(15*2^27/2^27)")
}

func TestActivationRangeHand(t *testing.T) {
	cases := []struct {
		act    Activation
		scale  float32
		zp     int32
		lo, hi int32
		derive string
	}{
		{ActNone, 0.1, 5, -128, 127, "no activation: the int8 range"},
		{ActRelu, 0.25, -10, -10, 127, "Q(0) = zp"},
		{ActRelu6, 0.25, -10, -10, 14, "Q(6) = -10 + 6/0.25 = 14"},
		{ActReluN1To1, 0.25, -10, -14, -6, "Q(-1) = -14, Q(1) = -6"},
		{ActRelu6, 1.0 / 32, 5, 5, 127, "Q(6) = 5 + 192 clamps to 127"},
		{ActRelu, 0.1, -200, -128, 127, "Q(0) = -200 clamps to -128"},
		{ActRelu6, 4, 0, 0, 2, "6/4 = 1.5 rounds away from zero to 2"},
		{ActReluN1To1, 4, 0, 0, 0, "+-1/4 round to 0"},
	}
	for _, c := range cases {
		lo, hi, err := ActivationRange(c.act, c.scale, c.zp)
		require.NoError(t, err)
		assert.Equal(t, [2]int32{c.lo, c.hi}, [2]int32{lo, hi}, c.derive)
	}
	assert.Equal(t, int32(-2), QuantizeValue(-6, 4, 0), "-1.5 rounds away from zero")
	_, _, err := ActivationRange(ActRelu, -1, 0)
	assert.ErrorIs(t, err, ErrRange)
	_, _, err = ActivationRange(Activation(9), 1, 0)
	assert.ErrorIs(t, err, ErrRange)
}

func TestPaddingHand(t *testing.T) {
	cases := []struct {
		same               bool
		in, k, stride, dil int
		out, before, after int
		derive             string
	}{
		{true, 49, 10, 2, 1, 25, 4, 5, "KWS conv rows: ceil(49/2)=25, total 24*2+10-49 = 9 -> 4 + 5"},
		{true, 10, 4, 2, 1, 5, 1, 1, "KWS conv cols: total 4*2+4-10 = 2"},
		{false, 25, 25, 25, 1, 1, 0, 0, "KWS avg pool: (25+25-25)/25 = 1"},
		{true, 5, 3, 1, 2, 5, 2, 2, "dilated 3x3 is 5 wide: total 4"},
		{false, 7, 3, 2, 1, 3, 0, 0, "VALID (7+2-3)/2 = 3"},
		{false, 2, 3, 1, 1, 0, 0, 0, "window larger than input"},
		{true, 32, 3, 2, 1, 16, 0, 1, "total 15*2+3-32 = 1: all after"},
	}
	for _, c := range cases {
		out, b, a := Padding(c.same, c.in, c.k, c.stride, c.dil)
		assert.Equal(t, [3]int{c.out, c.before, c.after}, [3]int{out, b, a}, c.derive)
	}
}

func TestErrors(t *testing.T) {
	_, err := ConvMultipliers(0.1, []float32{0.1, 0.2}, 0.1, 3, DoubleRounding)
	assert.ErrorIs(t, err, ErrRange, "scale count mismatch")
	_, err = ConvMultipliers(0.1, []float32{0}, 0.1, 1, DoubleRounding)
	assert.ErrorIs(t, err, ErrRange, "zero weight scale")
	_, err = FullyConnectedMultiplier(1e10, 1e10, 1e-10, DoubleRounding)
	assert.ErrorIs(t, err, ErrRange, "shift above 30")
	_, err = Mul(float32(math.NaN()), 1, 1, DoubleRounding)
	assert.ErrorIs(t, err, ErrRange)
	m, err := Requantize(0.5, 0.25, DoubleRounding)
	require.NoError(t, err)
	assert.Equal(t, Multiplier{1 << 30, 2}, m, "0.5/0.25 = 2 = 0.5*2^2")
}

func TestCalculateInputRadius(t *testing.T) {
	// floor((2^5-1) * 2^26 / 2^s)
	assert.Equal(t, int32(31<<26), CalculateInputRadius(5, 0, 31))
	assert.Equal(t, int32(31<<16), CalculateInputRadius(5, 10, 31))
	assert.Equal(t, int32(0), CalculateInputRadius(5, 31, 31), "31/32 floors to 0")
	assert.Equal(t, int32(1), CalculateInputRadius(4, 30, 31), "15*2^27/2^30 = 1.875")
}

func TestDequantizeWeights(t *testing.T) {
	// per tensor: 0.5 * (q - 1)
	got, err := DequantizeWeights([]int8{-3, 1, 4}, []int32{3}, []float32{0.5}, []int64{1}, 0)
	require.NoError(t, err)
	assert.Equal(t, []float32{-2, 0, 1.5}, got)
	// per channel on axis 0 of [2, 3]: rows scale 1 and 0.25
	got, err = DequantizeWeights([]int8{1, 2, 3, 4, 8, -8}, []int32{2, 3}, []float32{1, 0.25}, nil, 0)
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 1, 2, -2}, got)
	// per channel on the last axis of [1, 2, 2] (depthwise layout): columns
	got, err = DequantizeWeights([]int8{4, 4, 8, 8}, []int32{1, 2, 2}, []float32{0.5, 2}, []int64{0, 0}, 2)
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 8, 4, 16}, got)
	_, err = DequantizeWeights([]int8{1, 2}, []int32{2}, []float32{1, 2, 3}, nil, 0)
	assert.ErrorIs(t, err, ErrRange)
	_, err = DequantizeWeights([]int8{1, 2}, []int32{3}, []float32{1}, nil, 0)
	assert.ErrorIs(t, err, ErrRange)
}

// Mean folds 1/n into s_in/s_out with integers, as TFLite Micro's
// QuantizedMeanOrSum; each figure below is worked by hand.
func TestMeanHand(t *testing.T) {
	cases := []struct {
		name     string
		sIn, sOt float32
		n        int
		want     Multiplier
		derive   string
	}{
		{"7x7 same scale", 0.5, 0.5, 49, Multiplier{701219150, -4},
			"1 -> (2^30, 1); s = floor(log2 49) = 5; 2^35 / 49 = 34359738368 / 49 = 701219150.4 -> 701219150; shift 1-5"},
		{"one element", 0.5, 0.25, 1, Multiplier{1 << 30, 2}, "2 -> (2^30, 2); s = 0: unchanged"},
		{"power of two", 1, 1, 64, Multiplier{1 << 30, -5}, "(2^30, 1); s = 6; 2^36 / 64 = 2^30; shift 1-6"},
		{"capped by 31 + shift", 1, 1 << 20, 1 << 20, Multiplier{1 << 22, -31},
			"2^-20 -> (2^30, -19); s = min(20, 32, 31-19) = 12; 2^42 / 2^20 = 2^22; shift -19-12"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Mean(c.sIn, c.sOt, c.n, DoubleRounding)
			require.NoError(t, err)
			assert.Equal(t, c.want, got, c.derive)
		})
	}
	_, err := Mean(1, 1, 0, DoubleRounding)
	assert.ErrorIs(t, err, ErrRange)
}

// HardSwishLUT at s_in = s_out = 3/128, zero points 0, worked by hand: the
// hi-res input is 128v, the output multiplier 2^-7 (Q15 16384, shift -6),
// the reluish one 2 (16384, shift 2), so the ramp is 128v + 16384, the
// product trunc(v^2/4 + 32v) and the output that over 64, rounded half away
// from zero: v = 10 -> 345/64 -> 5; v = -7 -> -211/64 -> -3; v = -128 -> 0;
// v = 127 -> 8096/64 = 126.5 -> 127.
func TestHardSwishLUTHand(t *testing.T) {
	lut, err := HardSwishLUT(3.0/128, 0, 3.0/128, 0, DoubleRounding)
	require.NoError(t, err)
	for v, want := range map[int]int8{10: 5, -7: -3, -128: 0, 127: 127} {
		assert.Equal(t, want, lut[v+128], "v = %d", v)
	}
	_, err = HardSwishLUT(1, 0, 1.0/1024, 0, DoubleRounding) // output multiplier 8: TFLite refuses
	assert.ErrorIs(t, err, ErrRange)
}

// Over random scales and zero points, every entry is within one step of
// the float hard swish of the dequantized input, requantized.
func TestHardSwishLUTNearFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for range 300 {
		sIn := float32(0.002 * math.Pow(50, r.Float64()))
		sOut := sIn * float32(0.5+r.Float64())
		zpIn, zpOut := int32(r.IntN(256)-128), int32(r.IntN(200)-128)
		lut, err := HardSwishLUT(sIn, zpIn, sOut, zpOut, DoubleRounding)
		require.NoError(t, err)
		for v := -128; v <= 127; v++ {
			x := float64(sIn) * float64(int32(v)-zpIn)
			y := x * min(max(x+3, 0), 6) / 6
			want := min(max(math.Round(y/float64(sOut))+float64(zpOut), -128), 127)
			d := math.Abs(float64(lut[v+128]) - want)
			worst = max(worst, d)
			require.LessOrEqual(t, d, 1.0, "s_in %g zp %d s_out %g zp %d v %d: %d vs %g", sIn, zpIn, sOut, zpOut, v, lut[v+128], want)
		}
	}
	t.Logf("largest difference from float: %g", worst)
}
