package graph_test

// These tests run converted models on the C core through package nk (cgo)
// and package nkc (purego), against numbers netkit did not compute: the
// PyTorch logits of the Fashion-MNIST models and ONNX's own node tests.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine/conformance"
	"github.com/netkit/netkit/internal/graph"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
	"github.com/netkit/netkit/internal/ptq"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nkc"
)

func convert(t *testing.T, m *onnx.Model, opts graph.Options) ([]byte, *graph.Graph, error) {
	t.Helper()
	g, err := graph.Convert(m, opts)
	if err != nil {
		return nil, nil, err
	}
	nm, err := g.ToNK()
	require.NoError(t, err, "lowering a converted graph must not fail")
	b, err := nkfile.Encode(nm)
	require.NoError(t, err, "encoding a converted graph must not fail")
	return b, g, nil
}

// readNpy reads a C-order little-endian float32 .npy file.
func readNpy(t *testing.T, path string) ([]float32, []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "\x93NUMPY", string(b[:6]))
	hl, off := int(binary.LittleEndian.Uint16(b[8:])), 10
	if b[6] >= 2 {
		hl, off = int(binary.LittleEndian.Uint32(b[8:])), 12
	}
	hdr := string(b[off : off+hl])
	require.Contains(t, hdr, "'<f4'")
	require.Contains(t, hdr, "'fortran_order': False")
	shapeText := hdr[strings.Index(hdr, "(")+1 : strings.Index(hdr, ")")]
	var shape []int
	for _, f := range strings.Split(shapeText, ",") {
		if f = strings.TrimSpace(f); f != "" {
			var d int
			_, err := fmt.Sscan(f, &d)
			require.NoError(t, err)
			shape = append(shape, d)
		}
	}
	data := b[off+hl:]
	v := make([]float32, len(data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return v, shape
}

func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

type loader struct {
	name string
	load func([]byte) (loaded, error)
}

// loaded is an nk.Model or an nkc.Model: the methods these tests call,
// with the I/O descriptions as nk's type (nkc's converts: same fields).
type loaded struct {
	runner
	inputs, outputs []nk.TensorInfo
}

type runner interface {
	Close() error
	Run(in, out []float32) error
	RunMulti(ins, outs [][]float32) error
	RunRaw(ins, outs [][]byte) error
	ResetState() error
}

func (l loaded) Inputs() []nk.TensorInfo  { return l.inputs }
func (l loaded) Outputs() []nk.TensorInfo { return l.outputs }

func loaders(t *testing.T) []loader {
	lib := conformance.SharedLibrary(t)
	t.Setenv("NETKIT_LIB", lib)
	fromNkc := func(ts []nkc.TensorInfo) []nk.TensorInfo {
		out := make([]nk.TensorInfo, len(ts))
		for i, ti := range ts {
			out[i] = nk.TensorInfo{Name: ti.Name, Shape: ti.Shape, DType: nk.DType(ti.DType), Layout: nk.Layout(ti.Layout),
				Scale: ti.Scale, ZeroPoint: ti.ZeroPoint}
		}
		return out
	}
	return []loader{
		{"nk", func(b []byte) (loaded, error) {
			m, err := nk.LoadBytes(b)
			if err != nil {
				return loaded{}, err
			}
			return loaded{m, m.Inputs(), m.Outputs()}, nil
		}},
		{"nkc", func(b []byte) (loaded, error) {
			m, err := nkc.LoadBytes(b)
			if err != nil {
				return loaded{}, err
			}
			return loaded{m, fromNkc(m.Inputs()), fromNkc(m.Outputs())}, nil
		}},
	}
}

// Each Fashion-MNIST model, converted, must give PyTorch's logits within
// 1e-4 and the same class on all 100 reference images.
func TestFashionMNIST(t *testing.T) {
	dir := "../../testdata/fashion"
	images, ishape := readNpy(t, filepath.Join(dir, "input.npy"))
	require.Equal(t, []int{100, 1, 28, 28}, ishape)
	per := 28 * 28
	for _, name := range []string{"mlp", "cnn_bn", "cnn_dw"} {
		m, err := onnx.ReadFile(filepath.Join(dir, name+".onnx"))
		require.NoError(t, err)
		b, g, err := convert(t, m, graph.Options{Source: name + ".onnx"})
		require.NoError(t, err, name)
		want, wshape := readNpy(t, filepath.Join(dir, name+"_logits.npy"))
		require.Equal(t, []int{100, 10}, wshape)
		if name == "cnn_bn" {
			assert.Equal(t, 2, g.Stats.FoldedBatchNorms, "cnn_bn keeps its BatchNorms in the ONNX file")
		}
		for _, l := range loaders(t) {
			t.Run(name+"/"+l.name, func(t *testing.T) {
				model, err := l.load(b)
				require.NoError(t, err)
				defer model.Close()
				require.Equal(t, []int{1, 1, 28, 28}, model.Inputs()[0].Shape)
				assert.Equal(t, nk.LayoutNCHW, model.Inputs()[0].Layout)
				out := make([]float32, 10)
				worst := 0.0
				for i := range 100 {
					require.NoError(t, model.Run(images[i*per:(i+1)*per], out))
					ref := want[i*10 : (i+1)*10]
					for k := range out {
						worst = math.Max(worst, math.Abs(float64(out[k]-ref[k])))
					}
					require.Equal(t, argmax(ref), argmax(out), "image %d top-1", i)
				}
				t.Logf("%s via %s: max |logit - PyTorch| = %.3g over 100 images", name, l.name, worst)
				assert.LessOrEqual(t, worst, 1e-4)
			})
		}
	}
}

// An untrained 3-channel model built to stress the layout pass (see
// testdata/gen/fashion_mnist.py, LayoutMix) gives PyTorch's two outputs.
func TestLayoutMix(t *testing.T) {
	dir := "../../testdata/fashion"
	m, err := onnx.ReadFile(filepath.Join(dir, "layout_mix.onnx"))
	require.NoError(t, err)
	b, g, err := convert(t, m, graph.Options{})
	require.NoError(t, err)
	assert.Positive(t, g.Stats.FoldedConstants, "PyTorch's pad-computing subgraph is folded")
	in, _ := readNpy(t, filepath.Join(dir, "layout_mix_input.npy"))
	probs, pshape := readNpy(t, filepath.Join(dir, "layout_mix_probs.npy"))
	logits, _ := readNpy(t, filepath.Join(dir, "layout_mix_logits.npy"))
	for _, l := range loaders(t) {
		t.Run(l.name, func(t *testing.T) {
			model, err := l.load(b)
			require.NoError(t, err)
			defer model.Close()
			outs := model.Outputs()
			require.Len(t, outs, 2)
			assert.Equal(t, pshape, outs[0].Shape)
			assert.Equal(t, nk.LayoutNCHW, outs[0].Layout)
			got := [][]float32{make([]float32, len(probs)), make([]float32, len(logits))}
			require.NoError(t, model.RunMulti([][]float32{in}, got))
			for o, want := range [][]float32{probs, logits} {
				for i := range want {
					require.InDelta(t, want[i], got[o][i], 1e-5+1e-4*math.Abs(float64(want[i])), "output %d element %d", o, i)
				}
			}
		})
	}
}

const onnxTestData = "/usr/share/libonnx-testdata/data"

// conformancePrefixes selects ONNX node tests of the supported ops.
var conformancePrefixes = []string{
	"test_conv_", "test_basic_conv_", "test_gemm_", "test_matmul_", "test_relu", "test_leakyrelu",
	"test_clip", "test_sigmoid", "test_tanh", "test_gelu", "test_softmax_", "test_maxpool_",
	"test_averagepool_", "test_globalaveragepool", "test_batchnorm_", "test_add", "test_mul",
	"test_flatten_", "test_reshape_", "test_concat_", "test_constant_pad", "test_edge_pad",
	"test_reflect_pad", "test_transpose_", "test_dropout", "test_identity",
	"test_sub", "test_div", "test_max_", "test_min_", "test_mean_", "test_pow", "test_exp_", "test_sqrt_", "test_neg_",
	"test_abs", "test_reciprocal_", "test_hardsigmoid", "test_hardswish",
	"test_reduce_mean_", "test_reduce_max_", "test_reduce_sum_default_", "test_reduce_sum_do_not_",
	"test_reduce_sum_empty_", "test_reduce_sum_keepdims_", "test_reduce_sum_negative_", "test_squeeze",
	"test_unsqueeze", "test_slice", "test_split_", "test_layer_normalization_",
	"test_resize_", "test_upsample_", "test_convtranspose", "test_lstm_", "test_gru_",
}

// parameterInputs names, per op, the inputs that are parameters rather than
// data: a static netkit model bakes them in, so the harness freezes the test's
// values for them when the test feeds them as graph inputs.
var parameterInputs = map[string]int{
	"Conv": 1, "Gemm": 1, "MatMul": 1, "BatchNormalization": 1, "Clip": 1, "Reshape": 1, "Pad": 1,
	"ReduceMean": 1, "ReduceSum": 1, "ReduceMax": 1, "Slice": 1, "Split": 1, "Squeeze": 1, "Unsqueeze": 1,
	"Resize": 1, "Upsample": 1, "ConvTranspose": 1, "LSTM": 1, "GRU": 1,
}

func readTensorPB(t *testing.T, path string) *onnx.Tensor {
	tensor, err := onnx.ReadTensorFile(path)
	require.NoError(t, err)
	return tensor
}

type caseResult struct {
	name, outcome, detail string
}

func runONNXCase(t *testing.T, dir string) caseResult {
	return runONNXCaseWith(t, dir, parameterInputs)
}

// runONNXCaseWith runs one case, freezing the inputs params names.
func runONNXCaseWith(t *testing.T, dir string, params map[string]int) caseResult {
	name := filepath.Base(dir)
	m, err := onnx.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return caseResult{name, "refused", err.Error()}
	}
	inits := map[string]bool{}
	for _, in := range m.Graph.Initializers {
		inits[in.Name] = true
	}
	var inputNames []string
	for _, in := range m.Graph.Inputs {
		if !inits[in.Name] {
			inputNames = append(inputNames, in.Name)
		}
	}
	frozen := map[string]bool{}
	for _, n := range m.Graph.Nodes {
		if first, ok := params[n.OpType]; ok {
			for _, in := range n.Inputs[min(first, len(n.Inputs)):] {
				frozen[in] = true
			}
		}
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	sort.Strings(sets)
	if len(sets) == 0 {
		return caseResult{name, "refused", "no test data"}
	}
	for _, set := range sets {
		opts := graph.Options{Freeze: map[string]*onnx.Tensor{}}
		var feeds [][]float32
		var feedTensors []*onnx.Tensor
		typed := false
		for i, in := range inputNames {
			tensor := readTensorPB(t, filepath.Join(set, fmt.Sprintf("input_%d.pb", i)))
			if frozen[in] {
				opts.Freeze[in] = tensor
				continue
			}
			v, _ := tensor.Float32s() // a type netkit cannot read must be refused by the converter
			feeds = append(feeds, v)
			feedTensors = append(feedTensors, tensor)
			typed = typed || tensor.DataType != onnx.Float
		}
		b, _, err := convert(t, m, opts)
		if err != nil {
			return caseResult{name, "refused", strings.ReplaceAll(err.Error(), "\n", " |")}
		}
		if typed {
			if r := runTypedSet(t, name, set, b, feedTensors); r.outcome != "pass" {
				return r
			}
			continue
		}
		model, err := nk.LoadBytes(b)
		if err != nil {
			return caseResult{name, "fail", "converted but the runtime rejects it: " + err.Error()}
		}
		var wants [][]float32
		var outs [][]float32
		for i := range model.Outputs() {
			tensor := readTensorPB(t, filepath.Join(set, fmt.Sprintf("output_%d.pb", i)))
			v, err := tensor.Float32s()
			if err != nil || tensor.DataType != onnx.Float {
				model.Close()
				return caseResult{name, "fail", fmt.Sprintf("converted although output %d is %s", i, tensor.DataType)}
			}
			wants = append(wants, v)
			outs = append(outs, make([]float32, len(v)))
		}
		err = model.RunMulti(feeds, outs)
		model.Close()
		if err != nil {
			return caseResult{name, "fail", "run: " + err.Error()}
		}
		for o := range outs {
			for i := range outs[o] {
				got, want := float64(outs[o][i]), float64(wants[o][i])
				if math.Abs(got-want) > 1e-5+1e-4*math.Abs(want) || math.IsNaN(got) != math.IsNaN(want) {
					return caseResult{name, "fail", fmt.Sprintf("%s output %d element %d: got %g, want %g", filepath.Base(set), o, i, got, want)}
				}
			}
		}
	}
	return caseResult{name, "pass", ""}
}

// runTypedSet runs one test set of a model with integer, float16 or double
// graph I/O through nk and nkc with raw bytes: the inputs as the test gives
// them, each output equal to ONNX's byte for byte.
func runTypedSet(t *testing.T, name, set string, b []byte, feeds []*onnx.Tensor) caseResult {
	var ins [][]byte
	for _, f := range feeds {
		raw, err := f.LittleEndian()
		require.NoError(t, err)
		ins = append(ins, raw)
	}
	for _, l := range loaders(t) {
		model, err := l.load(b)
		if err != nil {
			return caseResult{name, "fail", l.name + ": converted but the runtime rejects it: " + err.Error()}
		}
		for i, in := range model.Inputs() {
			if want := feeds[i].DataType; in.DType.Size() != want.ElemSize() || len(ins[i]) != in.DType.Size()*in.Elems() {
				model.Close()
				return caseResult{name, "fail", fmt.Sprintf("input %d is %v %v, the test feeds %s %v", i, in.DType, in.Shape, want, feeds[i].Dims)}
			}
		}
		var wants, outs [][]byte
		for i, o := range model.Outputs() {
			want, err := readTensorPB(t, filepath.Join(set, fmt.Sprintf("output_%d.pb", i))).LittleEndian()
			require.NoError(t, err)
			wants = append(wants, want)
			outs = append(outs, make([]byte, o.DType.Size()*o.Elems()))
		}
		err = model.RunRaw(ins, outs)
		model.Close()
		if err != nil {
			return caseResult{name, "fail", l.name + " run: " + err.Error()}
		}
		for o := range outs {
			if !bytes.Equal(outs[o], wants[o]) {
				return caseResult{name, "fail", fmt.Sprintf("%s %s output %d: got bytes %x, want %x", l.name, filepath.Base(set), o, outs[o], wants[o])}
			}
		}
	}
	return caseResult{name, "pass", ""}
}

// ONNX's own node tests for every supported op, plus the PyTorch-converted
// Conv2d cases: each passes or is refused at conversion, never wrong.
func TestONNXConformance(t *testing.T) {
	if _, err := os.Stat(onnxTestData); err != nil {
		t.Skip("ONNX conformance data not found: install the Debian package libonnx-testdata (CI does)")
	}
	var dirs []string
	nodes, err := os.ReadDir(filepath.Join(onnxTestData, "node"))
	require.NoError(t, err)
	for _, e := range nodes {
		for _, p := range conformancePrefixes {
			if strings.HasPrefix(e.Name(), p) || e.Name() == strings.TrimSuffix(p, "_") {
				dirs = append(dirs, filepath.Join(onnxTestData, "node", e.Name()))
				break
			}
		}
	}
	converted, _ := filepath.Glob(filepath.Join(onnxTestData, "pytorch-converted", "test_Conv[12]d*"))
	if os.Getenv("NETKIT_ONNX_ALL") != "" {
		dirs, _ = filepath.Glob(filepath.Join(onnxTestData, "*", "test_*"))
		converted = nil
	}
	dirs = append(dirs, converted...)
	counts := map[string]int{}
	var report bytes.Buffer
	for _, dir := range dirs {
		r := runONNXCase(t, dir)
		counts[r.outcome]++
		fmt.Fprintf(&report, "%-8s %s %s\n", r.outcome, r.name, r.detail)
		if r.outcome == "fail" {
			t.Errorf("%s: %s", r.name, r.detail)
		}
	}
	t.Logf("ONNX conformance cases:\n%s", report.String())
	t.Logf("ONNX conformance: %d cases: pass %d, refused %d, fail %d", len(dirs), counts["pass"], counts["refused"], counts["fail"])
	assert.Zero(t, counts["fail"])
	assert.Positive(t, counts["pass"])
}

// ONNX's MatMul node tests with the right-hand side fed at run time (as in
// attention), which lowers to MATMUL instead of DENSE; batched 3-D and 4-D.
func TestONNXMatMulComputedRHS(t *testing.T) {
	if _, err := os.Stat(onnxTestData); err != nil {
		t.Skip("ONNX conformance data not found: install the Debian package libonnx-testdata (CI does)")
	}
	for _, c := range []string{"test_matmul_2d", "test_matmul_3d", "test_matmul_4d"} {
		r := runONNXCaseWith(t, filepath.Join(onnxTestData, "node", c), map[string]int{})
		assert.Equal(t, "pass", r.outcome, "%s: %s", c, r.detail)
	}
}

// A 3-D ConvTranspose runs as an (H, W) pass and a depth pass (see
// convTranspose3D). ONNX has one 3-D node test, without strides or pads, so
// its 2-D tests are run as 3-D ones with a unit axis inserted: before H (the
// (H, W) pass does the work) and between H and W (the depth pass takes H's
// strides, pads, dilations, output_padding and output_shape). The expected
// outputs are ONNX's 2-D ones: a unit axis leaves the data in place.
func TestConvTranspose3DAsLifted2D(t *testing.T) {
	if _, err := os.Stat(onnxTestData); err != nil {
		t.Skip("ONNX conformance data not found: install the Debian package libonnx-testdata (CI does)")
	}
	insert := func(v []int64, at int, val int64) []int64 {
		return append(append(slices.Clone(v[:at]), val), v[at:]...)
	}
	for _, c := range []string{"test_convtranspose", "test_convtranspose_pads", "test_convtranspose_dilations",
		"test_convtranspose_output_shape", "test_convtranspose_autopad_same", "test_convtranspose_kernel_shape"} {
		for _, unit := range []int{0, 1} { // the spatial position of the inserted unit axis
			dir := filepath.Join(onnxTestData, "node", c)
			m, err := onnx.ReadFile(filepath.Join(dir, "model.onnx"))
			require.NoError(t, err)
			require.Len(t, m.Graph.Nodes, 1)
			for _, a := range m.Graph.Nodes[0].Attrs {
				switch a.Name {
				case "kernel_shape", "strides", "dilations", "output_shape":
					require.Len(t, a.Ints, 2, "%s %s", c, a.Name)
					a.Ints = insert(a.Ints, unit, 1)
				case "output_padding":
					a.Ints = insert(a.Ints, unit, 0)
				case "pads":
					a.Ints = insert(insert(a.Ints, 2+unit, 0), unit, 0)
				}
			}
			for _, vi := range append(slices.Clone(m.Graph.Inputs), m.Graph.Outputs...) {
				if len(vi.Dims) == 4 {
					vi.Dims = insert(vi.Dims, 2+unit, 1)
				}
			}
			set := filepath.Join(dir, "test_data_set_0")
			x := readTensorPB(t, filepath.Join(set, "input_0.pb"))
			w := readTensorPB(t, filepath.Join(set, "input_1.pb"))
			want := readTensorPB(t, filepath.Join(set, "output_0.pb"))
			w.Dims = insert(w.Dims, 2+unit, 1)
			b, _, err := convert(t, m, graph.Options{Freeze: map[string]*onnx.Tensor{m.Graph.Inputs[1].Name: w}})
			require.NoError(t, err, "%s unit axis %d", c, unit)
			model, err := nk.LoadBytes(b)
			require.NoError(t, err)
			xs, err := x.Float32s()
			require.NoError(t, err)
			ws, err := want.Float32s()
			require.NoError(t, err)
			require.Len(t, model.Outputs(), 1)
			assert.Equal(t, len(want.Dims)+1, len(model.Outputs()[0].Shape), "%s: the output is 3-D", c)
			got := make([]float32, len(ws))
			require.NoError(t, model.Run(xs, got))
			model.Close()
			for i := range ws {
				require.InDelta(t, ws[i], got[i], 1e-5+1e-4*math.Abs(float64(ws[i])), "%s unit axis %d element %d", c, unit, i)
			}
		}
	}
}

// Cases that once were refused and must now pass, not merely stay unfailed:
// batched constant MatMul, LayerNormalization's expanded function body,
// cubic Resize, dilated and 3-D pools, GlobalMaxPool, 3-D ConvTranspose.
func TestONNXCoveredCases(t *testing.T) {
	if _, err := os.Stat(onnxTestData); err != nil {
		t.Skip("ONNX conformance data not found: install the Debian package libonnx-testdata (CI does)")
	}
	for _, c := range []string{
		"node/test_matmul_3d", "node/test_matmul_4d",
		"node/test_layer_normalization_2d_axis0_expanded", "node/test_layer_normalization_4d_axis_negative_1_expanded",
		"node/test_resize_upsample_scales_cubic", "node/test_resize_downsample_scales_cubic_A_n0p5_exclude_outside",
		"node/test_resize_upsample_scales_cubic_align_corners", "node/test_resize_upsample_scales_cubic_asymmetric",
		"node/test_maxpool_2d_dilations", "pytorch-converted/test_MaxPool2d_stride_padding_dilation",
		"node/test_maxpool_3d_default", "node/test_averagepool_3d_default",
		"pytorch-converted/test_MaxPool3d_stride_padding", "pytorch-converted/test_AvgPool3d_stride",
		"node/test_globalmaxpool", "node/test_convtranspose_3d",
	} {
		r := runONNXCase(t, filepath.Join(onnxTestData, c))
		assert.Equal(t, "pass", r.outcome, "%s: %s", c, r.detail)
	}
}

// ONNX's dilated max pool, quantized (one range, 0..16, for every
// activation): MAX_POOL2D_I8 with dilation runs on the int8 tensors, and the
// dequantized output is ONNX's within half a quantization step (a max of
// quantized values is the quantized max).
func TestDilatedMaxPoolInt8(t *testing.T) {
	if _, err := os.Stat(onnxTestData); err != nil {
		t.Skip("ONNX conformance data not found: install the Debian package libonnx-testdata (CI does)")
	}
	dir := filepath.Join(onnxTestData, "node", "test_maxpool_2d_dilations")
	m, err := onnx.ReadFile(filepath.Join(dir, "model.onnx"))
	require.NoError(t, err)
	g, err := graph.Convert(m, graph.Options{})
	require.NoError(t, err)
	fm, err := g.ToNK()
	require.NoError(t, err)
	ranges := map[int]ptq.Range{}
	for i := range fm.Tensors {
		if !fm.Tensors[i].Const() {
			ranges[i] = ptq.Range{Lo: 0, Hi: 16}
		}
	}
	q, sum, err := ptq.Quantize(fm, ranges, ptq.Options{})
	require.NoError(t, err)
	assert.Empty(t, sum.FloatOps)
	var types []nkfile.OpType
	for _, op := range q.Ops {
		types = append(types, op.Type)
	}
	assert.Contains(t, types, nkfile.OpMaxPool2DI8)
	b, err := nkfile.Encode(q)
	require.NoError(t, err)
	model, err := nk.LoadBytes(b)
	require.NoError(t, err)
	defer model.Close()
	set := filepath.Join(dir, "test_data_set_0")
	x, err := readTensorPB(t, filepath.Join(set, "input_0.pb")).Float32s()
	require.NoError(t, err)
	want, err := readTensorPB(t, filepath.Join(set, "output_0.pb")).Float32s()
	require.NoError(t, err)
	got := make([]float32, len(want))
	require.NoError(t, model.Run(x, got))
	for i := range want {
		assert.InDelta(t, want[i], got[i], 0.5*16/255+1e-6, "element %d", i)
	}
}
