package tflite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// modelDir finds the shared benchmark models: NETKIT_TFLITE_MODELS, else
// shared/ beside the repository (the layout of the work tree and of CI).
func modelDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "models", "tflite")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no TFLite models at %s (set NETKIT_TFLITE_MODELS): %v", dir, err)
	}
	return dir
}

// modelFacts were read independently of this package: by dumping each file
// to JSON with flatc (FlatBuffers' own compiler) and TFLite's schema.fbs,
// then counting with a short Python script.
type modelFacts struct {
	tensors, ops, buffers int
	hist                  map[string]int
	inShape, outShape     []int32
	inType, outType       TensorType
	inScale               float32 // 0 for float inputs
	inZeroPoint           int64
	constTensors          int // tensors whose buffer holds data
	bufferBytes           int // all buffer data, metadata buffers included
	description           string
}

var facts = map[string]modelFacts{
	"mlperf_ad01_fp32.tflite": {31, 10, 33, map[string]int{"FULLY_CONNECTED": 10},
		[]int32{1, 640}, []int32{1, 640}, Float32, Float32, 0, 0, 20, 1063472, "MLIR Converted."},
	"mlperf_ad01_int8.tflite": {31, 10, 33, map[string]int{"FULLY_CONNECTED": 10},
		[]int32{1, 640}, []int32{1, 640}, Int8, Int8, 0.391015, 89, 20, 270896, "MLIR Converted."},
	"mlperf_kws_ref_model.tflite": {35, 13, 37,
		map[string]int{"AVERAGE_POOL_2D": 1, "CONV_2D": 5, "DEPTHWISE_CONV_2D": 4, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 49, 10, 1}, []int32{1, 12}, Int8, Int8, 0.584703, 83, 21, 24392, "MLIR Converted."},
	"mlperf_kws_ref_model_float32.tflite": {35, 13, 37,
		map[string]int{"AVERAGE_POOL_2D": 1, "CONV_2D": 5, "DEPTHWISE_CONV_2D": 4, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 49, 10, 1}, []int32{1, 12}, Float32, Float32, 0, 0, 21, 33608, "MLIR Converted."},
	"mlperf_pretrainedResnet.tflite": {38, 16, 40,
		map[string]int{"ADD": 3, "AVERAGE_POOL_2D": 1, "CONV_2D": 9, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 32, 32, 3}, []int32{1, 10}, Float32, Float32, 0, 0, 21, 310848, "MLIR Converted."},
	"mlperf_pretrainedResnet_large_float.tflite": {38, 16, 41,
		map[string]int{"ADD": 3, "AVERAGE_POOL_2D": 1, "CONV_2D": 9, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 32, 32, 3}, []int32{1, 10}, Float32, Float32, 0, 0, 21, 1921428, "MLIR Converted."},
	"mlperf_pretrainedResnet_large_int8.tflite": {38, 16, 41,
		map[string]int{"ADD": 3, "AVERAGE_POOL_2D": 1, "CONV_2D": 9, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 32, 32, 3}, []int32{1, 10}, Int8, Int8, 1.0, -128, 21, 482992, "MLIR Converted."},
	"mlperf_pretrainedResnet_quant.tflite": {38, 16, 40,
		map[string]int{"ADD": 3, "AVERAGE_POOL_2D": 1, "CONV_2D": 9, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 32, 32, 3}, []int32{1, 10}, Int8, Int8, 1.0, -128, 21, 78768, "MLIR Converted."},
	"mlperf_str_ww_ref_model.tflite": {31, 11, 34,
		map[string]int{"CONV_2D": 4, "DEPTHWISE_CONV_2D": 4, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 30, 1, 40}, []int32{1, 3}, Int8, Int8, 0.003701, -128, 19, 48500, "MLIR Converted."},
	"mlperf_vww_96_float.tflite": {89, 31, 91,
		map[string]int{"AVERAGE_POOL_2D": 1, "CONV_2D": 14, "DEPTHWISE_CONV_2D": 13, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 96, 96, 3}, []int32{1, 2}, Float32, Float32, 0, 0, 57, 843424, "MLIR Converted."},
	"mlperf_vww_96_int8.tflite": {89, 31, 91,
		map[string]int{"AVERAGE_POOL_2D": 1, "CONV_2D": 14, "DEPTHWISE_CONV_2D": 13, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 96, 96, 3}, []int32{1, 2}, Int8, Int8, 0.003922, -128, 57, 219088, "MLIR Converted."},
	"tflm_hello_world_int8.tflite": {10, 3, 13, map[string]int{"FULLY_CONNECTED": 3},
		[]int32{1, 1}, []int32{1, 1}, Int8, Int8, 0.02448, -128, 6, 524, "MLIR Converted."},
	"tflm_keyword_scrambled_8bit.tflite": {54, 15, 32, map[string]int{"FULLY_CONNECTED": 5, "QUANTIZE": 2, "SOFTMAX": 1, "SVDF": 7},
		[]int32{1, 96}, []int32{1, 2}, Int16, Int32, 0.000625, 0, 31, 22728, ""},
	"tflm_micro_speech_quantized.tflite": {10, 4, 12,
		map[string]int{"DEPTHWISE_CONV_2D": 1, "FULLY_CONNECTED": 1, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 1960}, []int32{1, 4}, Int8, Int8, 0.101716, -128, 5, 16709, "TOCO Converted."},
	"tflm_person_detect.tflite": {89, 31, 90,
		map[string]int{"AVERAGE_POOL_2D": 1, "CONV_2D": 14, "DEPTHWISE_CONV_2D": 14, "RESHAPE": 1, "SOFTMAX": 1},
		[]int32{1, 96, 96, 1}, []int32{1, 2}, Int8, Int8, 0.007843, -1, 57, 218928, "TOCO Converted."},
}

var typeSize = map[TensorType]int{Float32: 4, Int32: 4, Int8: 1, UInt8: 1, Int16: 2, Int64: 8, Float16: 2, Bool: 1}

func histogram(t *testing.T, m *Model) map[string]int {
	h := map[string]int{}
	sg := &m.Subgraphs[0]
	for i := range sg.Operators {
		op, err := m.Op(&sg.Operators[i])
		require.NoError(t, err)
		h[op.String()]++
	}
	return h
}

func formatHist(h map[string]int) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, h[k])
	}
	return strings.Join(parts, " ")
}

func TestSharedModels(t *testing.T) {
	dir := modelDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.tflite"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			m, err := ReadFile(path)
			require.NoError(t, err)
			h := histogram(t, m)
			t.Logf("%s: %d ops: %s", name, len(m.Subgraphs[0].Operators), formatHist(h))
			f, ok := facts[name]
			if !ok {
				t.Skipf("no independent facts recorded for %s", name)
			}
			require.Len(t, m.Subgraphs, 1)
			sg := &m.Subgraphs[0]
			assert.Len(t, sg.Tensors, f.tensors)
			assert.Len(t, sg.Operators, f.ops)
			assert.Len(t, m.Buffers, f.buffers)
			assert.Equal(t, f.hist, h)
			assert.Equal(t, f.description, m.Description)
			require.Len(t, sg.Inputs, 1)
			require.Len(t, sg.Outputs, 1)
			in, out := &sg.Tensors[sg.Inputs[0]], &sg.Tensors[sg.Outputs[0]]
			assert.Equal(t, f.inShape, in.Shape)
			assert.Equal(t, f.outShape, out.Shape)
			assert.Equal(t, f.inType, in.Type)
			assert.Equal(t, f.outType, out.Type)
			if f.inScale != 0 {
				require.NotNil(t, in.Quant)
				assert.InDelta(t, f.inScale, in.Quant.Scale[0], 5e-7) // flatc prints 6 decimal places
				assert.Equal(t, f.inZeroPoint, in.Quant.ZeroPoint[0])
			}
			consts, total := 0, 0
			for _, b := range m.Buffers {
				total += len(b.Data)
			}
			for i := range sg.Tensors {
				tn := &sg.Tensors[i]
				data := m.Buffers[tn.Buffer].Data
				if len(data) == 0 {
					continue
				}
				consts++
				// a constant tensor's bytes are exactly its elements
				n := 1
				for _, d := range tn.Shape {
					n *= int(d)
				}
				if sz, ok := typeSize[tn.Type]; ok {
					assert.Equal(t, n*sz, len(data), "tensor %d %q %v %v", i, tn.Name, tn.Type, tn.Shape)
				}
			}
			assert.Equal(t, f.constTensors, consts)
			assert.Equal(t, f.bufferBytes, total)
		})
	}
}

// TestKWSDetails checks options and quantization of the int8 KWS model
// against flatc's JSON dump of the same file.
func TestKWSDetails(t *testing.T) {
	m, err := ReadFile(filepath.Join(modelDir(t), "mlperf_kws_ref_model.tflite"))
	require.NoError(t, err)
	sg := &m.Subgraphs[0]
	ops := sg.Operators

	// op 0: CONV_2D stride 2, SAME (the default, absent from the file), relu,
	// dilation defaults to 1; weights [64,10,4,1] per-channel on dim 0
	conv, ok := ops[0].Options.(Conv2DOptions)
	require.True(t, ok, "%T", ops[0].Options)
	assert.Equal(t, Conv2DOptions{Padding: PaddingSame, StrideW: 2, StrideH: 2, Activation: ActRelu, DilationW: 1, DilationH: 1}, conv)
	w := &sg.Tensors[ops[0].Inputs[1]]
	assert.Equal(t, []int32{64, 10, 4, 1}, w.Shape)
	assert.Equal(t, Int8, w.Type)
	require.NotNil(t, w.Quant)
	assert.Len(t, w.Quant.Scale, 64)
	assert.Len(t, w.Quant.ZeroPoint, 64)
	assert.Equal(t, int32(0), w.Quant.QuantizedDimension)
	assert.Len(t, m.Buffers[w.Buffer].Data, 2560)
	bias := &sg.Tensors[ops[0].Inputs[2]]
	assert.Equal(t, Int32, bias.Type)
	assert.Equal(t, []int32{64}, bias.Shape)
	outQ := sg.Tensors[ops[0].Outputs[0]].Quant
	require.NotNil(t, outQ)
	assert.InDelta(t, 0.078725, outQ.Scale[0], 5e-7)
	assert.Equal(t, []int64{-128}, outQ.ZeroPoint)
	assert.Equal(t, []int32{1, 25, 5, 64}, sg.Tensors[ops[0].Outputs[0]].Shape)

	// op 1: DEPTHWISE_CONV_2D multiplier 1, weights [1,3,3,64] per-channel on dim 3
	dw, ok := ops[1].Options.(DepthwiseConv2DOptions)
	require.True(t, ok)
	assert.Equal(t, DepthwiseConv2DOptions{Padding: PaddingSame, StrideW: 1, StrideH: 1, DepthMultiplier: 1, Activation: ActRelu, DilationW: 1, DilationH: 1}, dw)
	dwW := &sg.Tensors[ops[1].Inputs[1]]
	assert.Equal(t, []int32{1, 3, 3, 64}, dwW.Shape)
	assert.Equal(t, int32(3), dwW.Quant.QuantizedDimension)

	// op 9: AVERAGE_POOL_2D VALID 25x5 stride 25x5
	pool, ok := ops[9].Options.(Pool2DOptions)
	require.True(t, ok)
	assert.Equal(t, Pool2DOptions{Padding: PaddingValid, StrideW: 5, StrideH: 25, FilterWidth: 5, FilterHeight: 25}, pool)

	// op 10: RESHAPE without options, shape from a second INT32 [2] input
	assert.Nil(t, ops[10].Options)
	assert.Len(t, ops[10].Inputs, 2)
	shape := &sg.Tensors[ops[10].Inputs[1]]
	assert.Equal(t, Int32, shape.Type)
	assert.Equal(t, []int32{2}, shape.Shape)

	// op 11: FULLY_CONNECTED per-tensor (one weight scale), no activation
	fc, ok := ops[11].Options.(FullyConnectedOptions)
	require.True(t, ok)
	assert.Equal(t, FullyConnectedOptions{}, fc)
	fcW := &sg.Tensors[ops[11].Inputs[1]]
	assert.Equal(t, []int32{12, 64}, fcW.Shape)
	assert.Len(t, fcW.Quant.Scale, 1)
	fcOut := sg.Tensors[ops[11].Outputs[0]].Quant
	assert.InDelta(t, 0.144693, fcOut.Scale[0], 5e-7)
	assert.Equal(t, []int64{14}, fcOut.ZeroPoint)

	// op 12: SOFTMAX beta 1, output scale 1/256 zero point -128
	sm, ok := ops[12].Options.(SoftmaxOptions)
	require.True(t, ok)
	assert.Equal(t, SoftmaxOptions{Beta: 1}, sm)
	smOut := sg.Tensors[ops[12].Outputs[0]].Quant
	assert.Equal(t, float32(1.0/256), smOut.Scale[0])
	assert.Equal(t, []int64{-128}, smOut.ZeroPoint)
}

func TestFloatKWSHasInt8Weights(t *testing.T) {
	// the float KWS file keeps int8 weights (per-tensor) under float activations
	m, err := ReadFile(filepath.Join(modelDir(t), "mlperf_kws_ref_model_float32.tflite"))
	require.NoError(t, err)
	sg := &m.Subgraphs[0]
	w := &sg.Tensors[sg.Operators[0].Inputs[1]]
	assert.Equal(t, Int8, w.Type)
	assert.Len(t, w.Quant.Scale, 1)
	assert.Equal(t, Float32, sg.Tensors[sg.Operators[0].Inputs[0]].Type)
	assert.Equal(t, Float32, sg.Tensors[sg.Operators[1].Inputs[1]].Type, "the depthwise weights stayed float")
}

func TestOtherOptions(t *testing.T) {
	dir := modelDir(t)
	m, err := ReadFile(filepath.Join(dir, "mlperf_pretrainedResnet_quant.tflite"))
	require.NoError(t, err)
	var adds []AddOptions
	for _, op := range m.Subgraphs[0].Operators {
		if o, ok := op.Options.(AddOptions); ok {
			adds = append(adds, o)
		}
	}
	require.Len(t, adds, 3)
	for _, a := range adds {
		assert.Equal(t, AddOptions{Activation: ActRelu, PotScaleInt16: true}, a, "pot_scale_int16 defaults to true")
	}
	// the SVDF model: opcodes with builtin_code set; SVDF options decoded
	m, err = ReadFile(filepath.Join(dir, "tflm_keyword_scrambled_8bit.tflite"))
	require.NoError(t, err)
	n := 0
	for _, op := range m.Subgraphs[0].Operators {
		if o, ok := op.Options.(SVDFOptions); ok {
			n++
			assert.Positive(t, o.Rank)
		}
	}
	assert.Equal(t, 7, n)
}

func TestMalformed(t *testing.T) {
	good := buildTiny(t)
	m, err := Parse(good)
	require.NoError(t, err)
	require.Len(t, m.Subgraphs, 1)

	// every truncation is an error, never a panic
	for n := 0; n < len(good); n++ {
		_, err := Parse(good[:n])
		require.Error(t, err, "prefix of %d bytes", n)
	}
	var fe *FormatError
	_, err = Parse(good[:3])
	assert.True(t, errors.As(err, &fe))

	bad := append([]byte(nil), good...)
	copy(bad[4:8], "XXXX")
	_, err = Parse(bad)
	assert.ErrorContains(t, err, "file identifier")

	bad = append([]byte(nil), good...)
	bad[0] = 0xF0 // root offset past the end
	_, err = Parse(bad)
	assert.ErrorAs(t, err, &fe)

	// every single-byte corruption either parses or fails cleanly
	for i := range good {
		for _, v := range []byte{0x00, 0xFF, 0x7F, 0x80} {
			c := append([]byte(nil), good...)
			c[i] = v
			if m, err := Parse(c); err == nil {
				checkInvariants(t, m)
			}
		}
	}
}

func checkInvariants(t testing.TB, m *Model) {
	t.Helper()
	for _, sg := range m.Subgraphs {
		for _, op := range sg.Operators {
			if _, err := m.Op(&op); err != nil {
				t.Fatalf("parsed model with bad opcode index: %v", err)
			}
			for _, ti := range append(append([]int32{}, op.Inputs...), op.Outputs...) {
				if ti < -1 || int(ti) >= len(sg.Tensors) {
					t.Fatalf("parsed model with bad tensor index %d", ti)
				}
			}
		}
		for _, tn := range sg.Tensors {
			if int(tn.Buffer) >= len(m.Buffers) {
				t.Fatalf("parsed model with bad buffer index %d", tn.Buffer)
			}
		}
	}
}

func TestTinyModel(t *testing.T) {
	m, err := Parse(buildTiny(t))
	require.NoError(t, err)
	assert.Equal(t, uint32(3), m.Version)
	require.Len(t, m.OperatorCodes, 2)
	assert.Equal(t, OpConv2D, m.OperatorCodes[0].Builtin, "deprecated code only (old writer)")
	assert.Equal(t, BuiltinOp(150), m.OperatorCodes[1].Builtin, "builtin_code beyond 127, deprecated = 127")
	assert.Equal(t, "GELU", m.OperatorCodes[1].Builtin.String())
	assert.Equal(t, int32(1), m.OperatorCodes[0].Version, "version defaults to 1")
	sg := m.Subgraphs[0]
	assert.Equal(t, "main", sg.Name)
	require.Len(t, sg.Tensors, 2)
	assert.Equal(t, "x", sg.Tensors[0].Name)
	assert.Equal(t, []int32{1, 4, 4, 2}, sg.Tensors[0].Shape)
	assert.Equal(t, Int8, sg.Tensors[0].Type)
	require.NotNil(t, sg.Tensors[0].Quant)
	assert.Equal(t, []float32{0.5}, sg.Tensors[0].Quant.Scale)
	assert.Equal(t, []int64{-3}, sg.Tensors[0].Quant.ZeroPoint)
	assert.Nil(t, sg.Tensors[1].Quant, "an absent quantization table")
	assert.Equal(t, []byte{1, 2, 3, 4}, m.Buffers[1].Data)
	require.Len(t, sg.Operators, 1)
	assert.Equal(t, []int32{0, -1}, sg.Operators[0].Inputs)
	assert.Equal(t, Conv2DOptions{Padding: PaddingValid, StrideW: 1, StrideH: 2, Activation: ActRelu6, DilationW: 1, DilationH: 1},
		sg.Operators[0].Options)
}

// UNIDIRECTIONAL_SEQUENCE_LSTM's options: activation, the two clips (f32
// fields) and time_major; the absent fields take the schema's defaults.
func TestUnidirectionalLSTMOptions(t *testing.T) {
	m, err := Parse(buildTinyWith(optUniLSTM, u8f(0, uint8(ActTanh)), f32f(1, 10), f32f(2, 0.5), u8f(3, 1)))
	require.NoError(t, err)
	assert.Equal(t, UnidirectionalLSTMOptions{Activation: ActTanh, CellClip: 10, ProjClip: 0.5, TimeMajor: true},
		m.Subgraphs[0].Operators[0].Options)
}

func TestReducerOptions(t *testing.T) {
	m, err := Parse(buildTinyWith(optReducer, u8f(0, 1)))
	require.NoError(t, err)
	assert.Equal(t, ReducerOptions{KeepDims: true}, m.Subgraphs[0].Operators[0].Options)
}

// The options of SUB, DIV, SQUEEZE and STRIDED_SLICE at their schema
// field ids; absent fields take the schema's defaults.
func TestArithmeticAndSliceOptions(t *testing.T) {
	m, err := Parse(buildTinyWith(optSub, u8f(0, uint8(ActRelu6))))
	require.NoError(t, err)
	assert.Equal(t, SubOptions{Activation: ActRelu6, PotScaleInt16: true}, m.Subgraphs[0].Operators[0].Options)
	m, err = Parse(buildTinyWith(optDiv, u8f(0, uint8(ActRelu))))
	require.NoError(t, err)
	assert.Equal(t, DivOptions{Activation: ActRelu}, m.Subgraphs[0].Operators[0].Options)
	m, err = Parse(buildTinyOpts(optSqueeze, func(w *fbWriter) []fld { return []fld{reff(0, w.ints([]int32{1, 2}))} }))
	require.NoError(t, err)
	assert.Equal(t, SqueezeOptions{Dims: []int32{1, 2}}, m.Subgraphs[0].Operators[0].Options)
	m, err = Parse(buildTinyWith(optStridedSlice, i32f(0, 5), i32f(1, 2), i32f(4, 8), u8f(5, 1)))
	require.NoError(t, err)
	assert.Equal(t, StridedSliceOptions{BeginMask: 5, EndMask: 2, ShrinkAxisMask: 8, Offset: true}, m.Subgraphs[0].Operators[0].Options)
}

func FuzzParse(f *testing.F) {
	f.Add(buildTiny(f))
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "models", "tflite")
	}
	for _, name := range []string{"tflm_hello_world_int8.tflite", "tflm_micro_speech_quantized.tflite"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *FormatError: %v", err)
			}
			return
		}
		checkInvariants(t, m)
	})
}

func TestAmplificationBounded(t *testing.T) {
	// 20000 tensor references to one tensor whose shape has 20000 entries:
	// 240 KB of file that would decode to 400 million ints.
	w := &fbWriter{}
	shape := w.ints(make([]int32, 20000))
	tn := w.table(reff(0, shape), u8f(1, uint8(Int8)))
	refs := make([]int, 20000)
	for i := range refs {
		refs[i] = tn
	}
	tensors := w.refs(refs)
	sg := w.table(reff(0, tensors))
	sgs := w.refs([]int{sg})
	b0 := w.table()
	bufs := w.refs([]int{b0})
	model := w.table(i32f(0, 3), reff(2, sgs), reff(4, bufs))
	_, err := Parse(w.finish(model))
	assert.ErrorContains(t, err, "more elements than")
}
