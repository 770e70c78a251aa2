package tfliteimport

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/int8ref"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/tflite"
)

func modelDir(t *testing.T) string {
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "models", "tflite")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no TFLite models at %s (set NETKIT_TFLITE_MODELS): %v", dir, err)
	}
	return dir
}

// goldenDir holds the inputs and TFLite Micro's outputs (internal/int8ref).
const goldenDir = "../int8ref/testdata/models"

type tflmRun struct {
	Output []int8 `json:"output"`
}

type tflmGolden struct {
	Models map[string]struct {
		In1, In2       tflmRun
		ArenaUsedBytes int `json:"arena_used_bytes"`
	} `json:"models"`
}

func loadGolden(t *testing.T) tflmGolden {
	b, err := os.ReadFile(filepath.Join(goldenDir, "tflm_golden.json"))
	require.NoError(t, err)
	var g tflmGolden
	require.NoError(t, json.Unmarshal(b, &g))
	require.NotEmpty(t, g.Models)
	return g
}

func goldenInput(t *testing.T, name string, k int) []int8 {
	raw, err := os.ReadFile(filepath.Join(goldenDir, fmt.Sprintf("%s.in%d.bin", name, k)))
	require.NoError(t, err)
	in := make([]int8, len(raw))
	for i, b := range raw {
		in[i] = int8(b)
	}
	return in
}

// convertFile converts a model and round-trips it through the .nk encoder
// and decoder, so tests look at what a file holds.
func convertFile(t *testing.T, path string) (*nkfile.Model, []byte) {
	m, err := tflite.ReadFile(path)
	require.NoError(t, err)
	nm, err := Convert(m, Options{Source: filepath.Base(path)})
	require.NoError(t, err)
	img, err := nkfile.Encode(nm)
	require.NoError(t, err)
	dec, err := nkfile.Decode(img)
	require.NoError(t, err)
	return dec, img
}

func modelNames(t *testing.T, dir string) []string {
	paths, err := filepath.Glob(filepath.Join(dir, "*.tflite"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".tflite"))
	}
	sort.Strings(names)
	return names
}

// TestConvertEveryModel: every shared model converts. The SVDF model runs
// on int16 input and int32 output with its seven SVDF states as STATE
// tensors (nk's TestSVDFModelMatchesTFLM runs it).
func TestConvertEveryModel(t *testing.T) {
	dir := modelDir(t)
	for _, name := range modelNames(t, dir) {
		t.Run(name, func(t *testing.T) {
			m, err := tflite.ReadFile(filepath.Join(dir, name+".tflite"))
			require.NoError(t, err)
			nm, err := Convert(m, Options{Source: name + ".tflite"})
			require.NoError(t, err)
			if name == "tflm_keyword_scrambled_8bit" {
				assert.Equal(t, nkfile.I16, nm.Tensors[nm.Inputs[0].Tensor].DType)
				assert.Equal(t, nkfile.I32, nm.Tensors[nm.Outputs[0].Tensor].DType)
				states := 0
				for _, tn := range nm.Tensors {
					if tn.State {
						states++
						assert.Equal(t, nkfile.I8, tn.DType)
						require.NotNil(t, tn.Quant)
					}
				}
				assert.Equal(t, 7, states)
				return
			}
			sg := &m.Subgraphs[0]
			in := &sg.Tensors[sg.Inputs[0]]
			nin := &nm.Tensors[nm.Inputs[0].Tensor]
			assert.Equal(t, shapeOf(in), nin.Shape)
			isInt8 := in.Type == tflite.Int8
			rounding, ok := nm.MetaValue("int8_rounding")
			assert.Equal(t, isInt8, ok, "int8_rounding only in int8 models")
			for _, op := range nm.Ops {
				assert.Equal(t, isInt8, op.Type >= nkfile.OpConv2DI8 || op.Type == nkfile.OpReshape && isInt8,
					"op %s in a model whose input is %v", op.Type, in.Type)
			}
			if isInt8 {
				assert.Equal(t, "double", rounding)
				assert.Equal(t, nkfile.I8, nin.DType)
				require.NotNil(t, nin.Quant)
				assert.Equal(t, in.Quant.Scale[0], nin.Quant.Scale[0])
				assert.Equal(t, int32(in.Quant.ZeroPoint[0]), nin.Quant.ZeroPoint[0])
			} else {
				for _, tn := range nm.Tensors {
					assert.Equal(t, nkfile.F32, tn.DType, "float model tensor %q", tn.Name)
				}
			}
			_, err = nkfile.Encode(nm)
			require.NoError(t, err)
		})
	}
}

// TestRequantParamsStored checks, for one per-tensor FC (micro speech) and
// one per-channel conv (KWS), that the stored M/shift tensors are
// internal/quant's results for the file's scales, including the FC quirk.
func TestRequantParamsStored(t *testing.T) {
	dir := modelDir(t)
	m, err := tflite.ReadFile(filepath.Join(dir, "tflm_micro_speech_quantized.tflite"))
	require.NoError(t, err)
	nm, err := Convert(m, Options{})
	require.NoError(t, err)
	sg := &m.Subgraphs[0]
	var fc *nkfile.Op
	for i := range nm.Ops {
		if nm.Ops[i].Type == nkfile.OpDenseI8 {
			fc = &nm.Ops[i]
		}
	}
	require.NotNil(t, fc)
	// the TFLite FC reads [1,25,20,8] as rows of 4000: the importer reshapes
	assert.Equal(t, []int{1, 4000}, nm.Tensors[fc.Inputs[0]].Shape)
	var top *tflite.Operator
	for i := range sg.Operators {
		if code, _ := m.Op(&sg.Operators[i]); code == tflite.OpFullyConnected {
			top = &sg.Operators[i]
		}
	}
	sIn := sg.Tensors[top.Inputs[0]].Quant.Scale[0]
	sW := sg.Tensors[top.Inputs[1]].Quant.Scale[0]
	sOut := sg.Tensors[top.Outputs[0]].Quant.Scale[0]
	want, err := quant.FullyConnectedMultiplier(sIn, sW, sOut, quant.DoubleRounding)
	require.NoError(t, err)
	assert.Equal(t, []int32{want.M}, nkfile.BytesI32(nm.Tensors[fc.Inputs[3]].Data))
	assert.Equal(t, []int32{want.Shift}, nkfile.BytesI32(nm.Tensors[fc.Inputs[4]].Data))
	assert.Equal(t, nkfile.I32, nm.Tensors[fc.Inputs[3]].DType)
	assert.True(t, nm.Tensors[fc.Inputs[3]].Const())
	assert.Equal(t, int32(sg.Tensors[top.Inputs[0]].Quant.ZeroPoint[0]), int32(fc.Params[0]))
}

// TestInt8ModelsMatchTFLM runs each converted int8 model, as decoded from
// its .nk image, with internal/int8ref's kernels driven only by the
// integer parameters stored in the file (runNK below), and compares the
// graph output with what TensorFlow Lite Micro computed on the same inputs.
func TestInt8ModelsMatchTFLM(t *testing.T) {
	dir := modelDir(t)
	gold := loadGolden(t)
	for name, g := range gold.Models {
		t.Run(name, func(t *testing.T) {
			nm, _ := convertFile(t, filepath.Join(dir, name+".tflite"))
			for k, run := range []tflmRun{g.In1, g.In2} {
				out, err := runNK(nm, goldenInput(t, name, k+1), quant.DoubleRounding)
				require.NoError(t, err)
				assert.Equal(t, run.Output, out, "input %d", k+1)
			}
		})
	}
}

// runNK interprets an int8 .nk model with int8ref's ops, reading every
// parameter from the op records and CONST tensors (nothing from TFLite).
func runNK(m *nkfile.Model, input []int8, r quant.Rounding) ([]int8, error) {
	vals := map[int][]int8{m.Inputs[0].Tensor: input}
	i8 := func(id int) []int8 {
		if v, ok := vals[id]; ok {
			return v
		}
		d := m.Tensors[id].Data
		v := make([]int8, len(d))
		for i, b := range d {
			v[i] = int8(b)
		}
		return v
	}
	mults := func(op *nkfile.Op) []quant.Multiplier {
		ms, ss := nkfile.BytesI32(m.Tensors[op.Inputs[3]].Data), nkfile.BytesI32(m.Tensors[op.Inputs[4]].Data)
		out := make([]quant.Multiplier, len(ms))
		for i := range ms {
			out[i] = quant.Multiplier{M: ms[i], Shift: ss[i]}
		}
		return out
	}
	bias := func(op *nkfile.Op) []int32 {
		if op.Inputs[2] < 0 {
			return nil
		}
		return nkfile.BytesI32(m.Tensors[op.Inputs[2]].Data)
	}
	nhwc := func(s []int) int8ref.NHWC { return int8ref.NHWC{N: s[0], H: s[1], W: s[2], C: s[3]} }
	p := func(op *nkfile.Op, i int) int32 { return int32(op.Params[i]) }
	for i := range m.Ops {
		op := &m.Ops[i]
		x := i8(op.Inputs[0])
		xs, ys := m.Tensors[op.Inputs[0]].Shape, m.Tensors[op.Outputs[0]].Shape
		var y []int8
		var err error
		switch op.Type {
		case nkfile.OpConv2DI8, nkfile.OpDepthwiseConv2DI8:
			ws := m.Tensors[op.Inputs[1]].Shape
			cp := int8ref.ConvParams{
				Window: int8ref.Window{StrideH: int(p(op, 0)), StrideW: int(p(op, 1)), DilationH: int(p(op, 2)),
					DilationW: int(p(op, 3)), PadTop: int(p(op, 4)), PadLeft: int(p(op, 5)), OutH: ys[1], OutW: ys[2]},
				InZeroPoint: p(op, 9), Out: int8ref.Out{ZeroPoint: p(op, 10), ActMin: p(op, 11), ActMax: p(op, 12)},
				Mult: mults(op), Rounding: r,
			}
			if op.Type == nkfile.OpConv2DI8 {
				y, err = int8ref.Conv2D(x, nhwc(xs), i8(op.Inputs[1]), ws[0], ws[1], ws[2], ws[3], bias(op), cp)
			} else {
				y, err = int8ref.DepthwiseConv2D(x, nhwc(xs), i8(op.Inputs[1]), ws[1], ws[2], int(p(op, 8)), bias(op), cp)
			}
		case nkfile.OpDenseI8:
			ws := m.Tensors[op.Inputs[1]].Shape
			y, err = int8ref.FullyConnected(x, len(x)/ws[1], ws[1], i8(op.Inputs[1]), ws[0], bias(op), int8ref.FCParams{
				InZeroPoint: p(op, 0), Out: int8ref.Out{ZeroPoint: p(op, 1), ActMin: p(op, 2), ActMax: p(op, 3)}, Mult: mults(op), Rounding: r})
		case nkfile.OpAvgPool2DI8, nkfile.OpMaxPool2DI8:
			pp := int8ref.PoolParams{KH: int(p(op, 0)), KW: int(p(op, 1)), ActMin: p(op, 8), ActMax: p(op, 9),
				Window: int8ref.Window{StrideH: int(p(op, 2)), StrideW: int(p(op, 3)), PadTop: int(p(op, 4)),
					PadLeft: int(p(op, 5)), OutH: ys[1], OutW: ys[2]}}
			if op.Type == nkfile.OpAvgPool2DI8 {
				y, err = int8ref.AvgPool(x, nhwc(xs), pp)
			} else {
				y, err = int8ref.MaxPool(x, nhwc(xs), pp)
			}
		case nkfile.OpAddI8:
			y, err = int8ref.Add(x, i8(op.Inputs[1]), int8ref.AddParams{
				In1ZeroPoint: p(op, 0), In2ZeroPoint: p(op, 1), Out: int8ref.Out{ZeroPoint: p(op, 2), ActMin: p(op, 10), ActMax: p(op, 11)},
				Scales: quant.AddParams{LeftShift: p(op, 3), In1: quant.Multiplier{M: p(op, 4), Shift: p(op, 5)},
					In2: quant.Multiplier{M: p(op, 6), Shift: p(op, 7)}, Out: quant.Multiplier{M: p(op, 8), Shift: p(op, 9)}}, Rounding: r})
		case nkfile.OpSoftmaxI8:
			y, err = int8ref.Softmax(x, xs[len(xs)-1], quant.SoftmaxParams{
				Multiplier: quant.Multiplier{M: p(op, 0), Shift: p(op, 1)}, DiffMin: p(op, 2)})
		case nkfile.OpReshape:
			y = x
		default:
			return nil, fmt.Errorf("op %d %s not interpreted", i, op.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("op %d %s: %w", i, op.Type, err)
		}
		vals[op.Outputs[0]] = y
	}
	return vals[m.Outputs[0].Tensor], nil
}

// TestSingleRoundingParams: converted for a single-rounding runtime, each
// int8 model's file (run by int8ref in single rounding from the stored
// words) gives what int8ref.RunTFLite computes from the .tflite in single
// rounding; and the META records the mode.
func TestSingleRoundingParams(t *testing.T) {
	dir := modelDir(t)
	gold := loadGolden(t)
	differ := 0
	for name := range gold.Models {
		m, err := tflite.ReadFile(filepath.Join(dir, name+".tflite"))
		require.NoError(t, err)
		nm, err := Convert(m, Options{Rounding: quant.SingleRounding})
		require.NoError(t, err)
		v, _ := nm.MetaValue(nkfile.MetaInt8Rounding)
		assert.Equal(t, nkfile.RoundingSingle, v)
		for k := 1; k <= 2; k++ {
			in := goldenInput(t, name, k)
			got, err := runNK(nm, in, quant.SingleRounding)
			require.NoError(t, err)
			vals, err := int8ref.RunTFLite(m, in, quant.SingleRounding)
			require.NoError(t, err)
			assert.Equal(t, vals[m.Subgraphs[0].Outputs[0]], got, "%s input %d", name, k)
			if k == 1 && !assert.ObjectsAreEqual(gold.Models[name].In1.Output, got) {
				differ++
			}
		}
	}
	t.Logf("single rounding: %d of %d models' outputs on input 1 differ from TFLM's (double rounding)", differ, len(gold.Models))
}

func TestRefusals(t *testing.T) {
	dir := modelDir(t)
	m, err := tflite.ReadFile(filepath.Join(dir, "tflm_keyword_scrambled_8bit.tflite"))
	require.NoError(t, err)
	sg := &m.Subgraphs[0]
	// int16 tensors only where TFLite's int16 forms are mapped
	fcOut := &sg.Tensors[sg.Operators[2].Outputs[0]]
	fcOut.Type = tflite.Int16
	_, err = Convert(m, Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "FULLY_CONNECTED with int16 tensors is not supported (1 operator)")
	fcOut.Type = tflite.Int8
	// an SVDF state must be a variable tensor; the state and weights_time share a dtype
	state := &sg.Tensors[sg.Operators[1].Inputs[4]]
	state.IsVariable = false
	_, err = Convert(m, Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "must be a variable tensor")
	state.IsVariable = true
	state.Type = tflite.Int16
	_, err = Convert(m, Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "weights_time and state both INT8 or both INT16")

	// a corrupted scale is refused by internal/quant, naming the operator
	m, err = tflite.ReadFile(filepath.Join(dir, "mlperf_ad01_int8.tflite"))
	require.NoError(t, err)
	sg = &m.Subgraphs[0]
	out := &sg.Tensors[sg.Operators[0].Outputs[0]]
	q := *out.Quant
	q.Scale = []float32{-1}
	out.Quant = &q
	_, err = Convert(m, Options{})
	require.ErrorIs(t, err, quant.ErrRange)
	assert.Contains(t, err.Error(), "operator 0 (FULLY_CONNECTED")
}
