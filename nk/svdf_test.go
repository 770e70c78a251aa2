package nk_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/int8ref"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/testmodels"
	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/internal/tfliteimport"
	"github.com/netkit/netkit/nk"
)

// tflm_keyword_scrambled_8bit (SVDF with int8 state, int16 input, int8 ->
// int16 softmax, int16 -> int32 quantize) and its rescaled variant, over
// TFLite Micro's stream of six inputs: every operator's output after every
// invoke is TFLM's byte for byte (each op output is also made a graph
// output), so the SVDF state carries across invokes as TFLM's does. Then
// ResetState starts the stream over: the first invoke's output again.
func TestSVDFModelMatchesTFLM(t *testing.T) {
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "models", "tflite")
	}
	if _, err := os.Stat(filepath.Join(dir, testmodels.SVDFShared+".tflite")); err != nil {
		t.Skipf("no TFLite models at %s (set NETKIT_TFLITE_MODELS): %v", dir, err)
	}
	g, ins, err := testmodels.ReadSVDFGolden("../testdata/tflm_svdf/golden.json")
	require.NoError(t, err)
	require.Len(t, ins, 6)
	require.Len(t, g.Models, 2)
	for name, rec := range g.Models {
		t.Run(name, func(t *testing.T) {
			b, err := rec.TFLite(dir)
			require.NoError(t, err)
			tm, err := tflite.Parse(b)
			require.NoError(t, err)
			m, err := tfliteimport.Convert(tm, tfliteimport.Options{Source: name})
			require.NoError(t, err)
			// TFLite tensor index of each op's output: the ops convert one to one
			sg := &tm.Subgraphs[0]
			require.Len(t, m.Ops, len(sg.Operators))
			keys := make([]string, len(m.Ops))
			for i := range m.Ops {
				keys[i] = strconv.Itoa(int(sg.Operators[i].Outputs[0]))
				if i < len(m.Ops)-1 {
					m.Outputs = append(m.Outputs, nkfile.IO{Tensor: m.Ops[i].Outputs[0]})
				}
			}
			img, err := nkfile.Encode(m)
			require.NoError(t, err)
			model, err := nk.LoadBytes(img)
			require.NoError(t, err)
			defer model.Close()
			outs := make([][]byte, len(model.Outputs()))
			for i, o := range model.Outputs() {
				n := map[nk.DType]int{nk.I8: 1, nk.I16: 2, nk.I32: 4}[o.DType]
				for _, d := range o.Shape {
					n *= d
				}
				outs[i] = make([]byte, n)
			}
			run := func(step int) {
				require.NoError(t, model.RunRaw([][]byte{ins[step]}, outs))
				want := rec.Steps[step]
				assert.Equal(t, want.Output, hex.EncodeToString(outs[0]), "step %d output", step)
				for i, k := range keys[:len(keys)-1] {
					assert.Equal(t, want.Ops[k], hex.EncodeToString(outs[i+1]), "step %d op %d (%s)", step, i, m.Ops[i].Type)
				}
			}
			for step := range rec.Steps {
				run(step)
			}
			require.NoError(t, model.ResetState())
			run(0)
			if name != testmodels.SVDFShared {
				// the variant has power: its outputs differ along the stream
				seen := map[string]bool{}
				for _, s := range rec.Steps {
					seen[s.Output] = true
				}
				assert.Greater(t, len(seen), 3, fmt.Sprint(seen))
			}
		})
	}
}

// SVDF_I8 alone, on random shapes, weights, zero points and multipliers,
// with an int8 and an int16 state, over a stream of four invokes: the C
// kernel's outputs are int8ref.SVDF's (an independent Go implementation of
// TFLite's reference kernel), invoke after invoke, and ResetState starts the
// stream over from the state's zero point.
func TestSVDFRandomMatchesInt8ref(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 77))
	seen := [2]map[byte]bool{{}, {}} // output values per state dtype: the cases are not saturated
	for c := range 40 {
		state16 := c%2 == 1
		p := int8ref.SVDFParams{
			Batch: 1 + rng.IntN(2), Input: 1 + rng.IntN(40), Rank: 1 + rng.IntN(3),
			Memory: 1 + rng.IntN(12), State16: state16, Rounding: quant.DoubleRounding,
			InZp: int32(rng.IntN(256) - 128), OutZp: int32(rng.IntN(256) - 128),
		}
		p.Filters = p.Rank * (1 + rng.IntN(8))
		p.Feature = quant.QuantizeMultiplier(math.Exp(-1-6*rng.Float64()), p.Rounding)
		p.Time = quant.QuantizeMultiplier(math.Exp(-3-8*rng.Float64()), p.Rounding)
		stDT, stSize := nkfile.I8, 1
		if state16 {
			stDT, stSize = nkfile.I16, 2
			p.Time = quant.QuantizeMultiplier(math.Exp(-8-8*rng.Float64()), p.Rounding)
		} else {
			p.StateZp = int32(rng.IntN(256) - 128)
		}
		units := p.Filters / p.Rank
		wf := make([]int8, p.Filters*p.Input)
		for i := range wf {
			wf[i] = int8(rng.IntN(256) - 128)
		}
		wt := make([]int32, p.Filters*p.Memory)
		wtBytes := make([]byte, len(wt)*stSize)
		for i := range wt {
			if state16 {
				wt[i] = int32(rng.IntN(65536) - 32768)
				binary.LittleEndian.PutUint16(wtBytes[2*i:], uint16(int16(wt[i])))
			} else {
				wt[i] = int32(rng.IntN(256) - 128)
				wtBytes[i] = byte(int8(wt[i]))
			}
		}
		var bias []int32
		if c%3 != 2 {
			bias = make([]int32, units)
			for i := range bias {
				bias[i] = int32(rng.IntN(1<<16) - 1<<15)
			}
		}
		wfBytes := make([]byte, len(wf))
		for i, v := range wf {
			wfBytes[i] = byte(v)
		}
		q := func(zp int32) *nkfile.Quant {
			return &nkfile.Quant{Axis: -1, Scale: []float32{0.05}, ZeroPoint: []int32{zp}}
		}
		m := nkfile.Model{
			Tensors: []nkfile.Tensor{
				{Name: "x", DType: nkfile.I8, Shape: []int{p.Batch, p.Input}, Quant: q(p.InZp)},
				{Name: "wf", DType: nkfile.I8, Shape: []int{p.Filters, p.Input}, Data: wfBytes, Quant: q(0)},
				{Name: "wt", DType: stDT, Shape: []int{p.Filters, p.Memory}, Data: wtBytes, Quant: q(0)},
				{Name: "state", DType: stDT, Shape: []int{p.Batch, p.Filters * p.Memory}, Quant: q(p.StateZp), State: true},
				{Name: "y", DType: nkfile.I8, Shape: []int{p.Batch, units}, Quant: q(p.OutZp)},
			},
			Inputs:  []nkfile.IO{{Tensor: 0}},
			Outputs: []nkfile.IO{{Tensor: 4}},
			Meta:    []nkfile.KV{{Key: nkfile.MetaInt8Rounding, Value: "double"}},
		}
		in := []int{0, 1, 2, -1, 3}
		if bias != nil {
			m.Tensors = append(m.Tensors, nkfile.Tensor{Name: "bias", DType: nkfile.I32, Shape: []int{units}, Data: nkfile.I32Bytes(bias)})
			in[3] = len(m.Tensors) - 1
		}
		m.Ops = []nkfile.Op{{Type: nkfile.OpSvdfI8, Name: "svdf", Inputs: in, Outputs: []int{4},
			Params: nkfile.SvdfI8Words(p.Rank, p.Feature.M, p.Feature.Shift, p.Time.M, p.Time.Shift, p.InZp, p.StateZp, p.OutZp)}}
		require.NoError(t, m.CheckShapes(), "case %d", c)
		img, err := nkfile.Encode(&m)
		require.NoError(t, err, "case %d", c)
		model, err := nk.LoadBytes(img)
		require.NoError(t, err, "case %d", c)
		xs := make([][]byte, 4)
		for k := range xs {
			xs[k] = make([]byte, p.Batch*p.Input)
			for i := range xs[k] {
				xs[k][i] = byte(rng.IntN(256))
			}
		}
		for pass := range 2 {
			state := make([]int32, p.Batch*p.Filters*p.Memory)
			for i := range state {
				state[i] = p.StateZp
			}
			for k, xb := range xs {
				x := make([]int8, len(xb))
				for i, b := range xb {
					x[i] = int8(b)
				}
				want, err := int8ref.SVDF(x, wf, wt, bias, state, p)
				require.NoError(t, err)
				got := make([]byte, p.Batch*units)
				require.NoError(t, model.RunRaw([][]byte{xb}, [][]byte{got}))
				wantB := make([]byte, len(want))
				for i, v := range want {
					wantB[i] = byte(v)
				}
				require.Equal(t, wantB, got, "case %d (%+v) pass %d invoke %d", c, p, pass, k)
				for _, b := range got {
					seen[c%2][b] = true
				}
			}
			require.NoError(t, model.ResetState())
		}
		require.NoError(t, model.Close())
	}
	assert.Greater(t, len(seen[0]), 100, "int8 state: distinct output values")
	assert.Greater(t, len(seen[1]), 100, "int16 state: distinct output values")
}
