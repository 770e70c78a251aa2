package main

import (
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
)

// npyIn writes a as dir/name and returns its path.
func npyIn(t *testing.T, dir, name string, a *npy.Array) string {
	t.Helper()
	p := filepath.Join(dir, name)
	writeNpy(t, p, a)
	return p
}

// The bundled Fashion models quantized with 50 of the reference images as
// calibration agree with PyTorch's float logits (testdata/gen) on the 100
// images: the same top-1 class on nearly all, and logits within a few
// steps of the output quantization. Both range methods, float I/O.
// (The 10,000-image accuracy figures come from scripts/quant-accuracy.sh.)
func TestQuantizeFashionAgreesWithTorch(t *testing.T) {
	dir := t.TempDir()
	in := readNpy(t, filepath.Join(fashion, "input.npy"))
	calib := npyIn(t, dir, "calib.npy", npy.FromF32([]int{50, 1, 28, 28}, f32(t, in)[:50*784]))
	labels := filepath.Join(fashion, "labels.npy")
	for _, name := range []string{"mlp", "cnn_bn", "cnn_dw"} {
		for _, method := range []string{"minmax", "percentile"} {
			t.Run(name+"/"+method, func(t *testing.T) {
				dst := filepath.Join(dir, name+"."+method+".nk")
				code, stdout, stderr := cli(t, "quantize", filepath.Join(fashion, name+".onnx"), "--calib", calib,
					"-o", dst, "--method", method, "--eval", filepath.Join(fashion, "input.npy"), "--labels", labels)
				require.Equal(t, 0, code, stderr)
				assert.NotContains(t, stderr, "\r", "no progress bar off a terminal")
				agree := regexp.MustCompile(`top-1 agreement with float ([0-9.]+) %`).FindStringSubmatch(stdout)
				require.NotNil(t, agree, stdout)
				a, _ := strconv.ParseFloat(agree[1], 64)
				assert.GreaterOrEqual(t, a, 95.0, stdout)
				// cnn_dw's GELUs run int8 too (LUT_I8)
				assert.Equal(t, "none", summaryValue(t, stdout, "float ops"))

				m, err := nk.Load(dst)
				require.NoError(t, err)
				defer m.Close()
				require.Equal(t, nk.F32, m.Outputs()[0].DType)
				got := make([]float32, 100*10)
				require.NoError(t, m.RunBatch(f32(t, in), got))
				want := f32(t, readNpy(t, filepath.Join(fashion, name+"_logits.npy")))
				// the output scale, from the int8 logits feeding the final dequantize
				file, err := nkfile.Decode(mustRead(t, dst))
				require.NoError(t, err)
				scale := float64(file.Tensors[file.Ops[len(file.Ops)-1].Inputs[0]].Quant.Scale[0])
				var sum float64
				same := 0
				for i := range 100 {
					if argmaxF32(want[i*10:(i+1)*10]) == argmaxF32(got[i*10:(i+1)*10]) {
						same++
					}
					for k := range 10 {
						sum += math.Abs(float64(want[i*10+k] - got[i*10+k]))
					}
				}
				t.Logf("top-1 equal %d/100, agreement %.0f %%, mean error %.2f output steps", same, a, sum/1000/scale)
				assert.GreaterOrEqual(t, same, 96, "top-1 equal to PyTorch's")
				assert.Less(t, sum/1000/scale, 2.0, "mean |int8 - PyTorch| in output steps (step %g)", scale)
			})
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// --int8-io keeps int8 graph I/O; netkit run quantizes a float .npy for it
// and its top-1 classes are those of the float-I/O model.
func TestQuantizeInt8IO(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(fashion, "input.npy")
	dst := filepath.Join(dir, "mlp.nk")
	code, _, stderr := cli(t, "quantize", filepath.Join(fashion, "mlp.nk"), "--calib", in, "-o", dst, "--int8-io")
	require.Equal(t, 0, code, stderr)
	m, err := nk.Load(dst)
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, nk.I8, m.Inputs()[0].DType)
	require.Equal(t, nk.I8, m.Outputs()[0].DType)
	assert.Greater(t, m.Inputs()[0].Scale, float32(0))
	assert.NotContains(t, m.Outputs()[0].Name, "/", "graph I/O keeps its names")

	floatIO := filepath.Join(dir, "mlp_f.nk")
	code, _, stderr = cli(t, "quantize", filepath.Join(fashion, "mlp.nk"), "--calib", in, "-o", floatIO)
	require.Equal(t, 0, code, stderr)
	out8, outF := filepath.Join(dir, "o8.npy"), filepath.Join(dir, "of.npy")
	code, _, stderr = cli(t, "run", dst, "--input", in, "--output", out8)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = cli(t, "run", floatIO, "--input", in, "--output", outF)
	require.Equal(t, 0, code, stderr)
	q8, err := readNpy(t, out8).I8()
	require.NoError(t, err)
	qf := f32(t, readNpy(t, outF))
	s, zp := m.Outputs()[0].Scale, m.Outputs()[0].ZeroPoint
	for i, q := range q8 {
		// the float-I/O model dequantizes the same int8 logits
		require.Equal(t, s*float32(int32(q)-zp), qf[i], "logit %d", i)
	}
}

// -o - writes the model to standard output and the summary to standard error.
func TestQuantizeToStdout(t *testing.T) {
	code, stdout, stderr := cli(t, "quantize", filepath.Join(fashion, "mlp.nk"), "--calib", filepath.Join(fashion, "input.npy"), "-o", "-")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "int8 ops            dense_i8 x3, reshape x1")
	m, err := nkfile.Decode([]byte(stdout))
	require.NoError(t, err)
	assert.Equal(t, nkfile.OpQuantize, m.Ops[0].Type)
}

// Bad calibration input is a clear error naming the file and the fault.
func TestQuantizeBadCalibration(t *testing.T) {
	dir := t.TempDir()
	good := f32(t, readNpy(t, filepath.Join(fashion, "input.npy")))[:2*784]
	nan := append([]float32(nil), good...)
	nan[784+5] = float32(math.NaN())
	empty := filepath.Join(dir, "empty.raw")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	odd := filepath.Join(dir, "odd.raw")
	require.NoError(t, os.WriteFile(odd, make([]byte, 3000), 0o644))
	mlp := filepath.Join(fashion, "mlp.nk")
	for _, c := range []struct {
		name, file, want string
	}{
		{"wrong shape", npyIn(t, dir, "shape.npy", npy.FromF32([]int{2, 28, 27}, good[:2*28*27])), "has shape [2 28 27], which is not a batch of [1 1 28 28] inputs"},
		{"wrong dtype", npyIn(t, dir, "dtype.npy", npy.FromI8([]int{2, 1, 28, 28}, make([]int8, 2*784))), "holds |i1, the input is f32"},
		{"empty file", empty, "is not a whole number of [1 1 28 28] f32 inputs"},
		{"partial input", odd, "(raw f32, 3000 B) is not a whole number"},
		{"NaN", npyIn(t, dir, "nan.npy", npy.FromF32([]int{2, 1, 28, 28}, nan)), "input 1, element 5 is NaN"},
		{"missing", filepath.Join(dir, "nope.npy"), "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := cli(t, "quantize", mlp, "--calib", c.file, "-o", filepath.Join(dir, "out.nk"))
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "netkit quantize: --calib "+c.file)
			assert.Contains(t, stderr, c.want)
			assert.NoFileExists(t, filepath.Join(dir, "out.nk"))
		})
	}
	code, _, stderr := cli(t, "quantize", mlp, "-o", filepath.Join(dir, "out.nk"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "give calibration inputs with --calib FILE")
	code, _, stderr = cli(t, "quantize", mlp, "--calib", empty, "--method", "entropy")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `range method "entropy": want minmax or percentile`)
}

// fashionData is Debian's dataset-fashion-mnist (testdata/gen/fashion_npy.py).
const fashionData = "/usr/share/datasets/fashion-mnist"

// fashionImages reads the first n images of an idx file of the dataset,
// normalized in float32 as testdata/gen/fashion_npy.py does with numpy.
func fashionImages(t *testing.T, name string, n int) []float32 {
	t.Helper()
	f, err := os.Open(filepath.Join(fashionData, name))
	if os.IsNotExist(err) {
		t.Skip("no " + fashionData + " (Debian's dataset-fashion-mnist)")
	}
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	raw, err := io.ReadAll(z)
	require.NoError(t, err)
	require.Equal(t, byte(3), raw[3], "idx rank")
	pix := raw[16 : 16+n*784]
	out := make([]float32, len(pix))
	for i, p := range pix {
		out[i] = (float32(p)/255 - float32(0.2860)) / float32(0.3530)
	}
	return out
}

// testdata/fashion_i8 is what testdata/gen/fashion_i8.sh makes today: each
// model re-quantized from the same 500 images has the committed bytes, and
// its expected outputs are the host's (portable kernels, as on a device).
func TestFashionI8IsFresh(t *testing.T) {
	if nk.KernelBackend != "" {
		// calibration runs the float model: a backend's float kernels round
		// differently and so choose other ranges than the committed files'
		t.Skipf("calibration under the %s backend: the committed files are made without one", nk.KernelBackend)
	}
	dir := t.TempDir()
	calib := npyIn(t, dir, "calib.npy", npy.FromF32([]int{500, 1, 28, 28}, fashionImages(t, "train-images-idx3-ubyte.gz", 500)))
	t.Setenv("NETKIT_HOST_ISA", "portable")
	for _, name := range []string{"mlp", "cnn_bn", "cnn_dw"} {
		committed := filepath.Join("..", "..", "testdata", "fashion_i8", name+".nk")
		dst := filepath.Join(dir, name+".nk")
		code, _, stderr := cli(t, "quantize", filepath.Join(fashion, name+".onnx"), "--calib", calib, "-o", dst)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, mustRead(t, committed), mustRead(t, dst), "%s: run testdata/gen/fashion_i8.sh", committed)
		out := filepath.Join(dir, name+".out.npy")
		code, _, stderr = cli(t, "run", committed, "--input", strings.TrimSuffix(committed, ".nk")+".input.npy", "--output", out)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, mustRead(t, strings.TrimSuffix(committed, ".nk")+".expected.npy"), mustRead(t, out), name)
	}
}

// layout_mix (normalization by constants, transposes, pad, concat, leaky
// ReLU, batch norm, pools, softmax, sigmoid, tanh, two outputs) takes every
// path: int8 ops, fixed output quantization, float ops between
// dequantize/quantize. Calibrated on its one reference input, both outputs
// are within a few output steps of PyTorch's.
func TestQuantizeLayoutMixAgreesWithTorch(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(fashion, "layout_mix_input.npy")
	dst := filepath.Join(dir, "lm.nk")
	code, stdout, stderr := cli(t, "quantize", filepath.Join(fashion, "layout_mix.onnx"), "--calib", in, "-o", dst)
	require.Equal(t, 0, code, stderr)
	for _, op := range []string{"softmax_i8", "logistic_i8", "tanh_i8", "conv2d_i8", "dense_i8", "avg_pool2d_i8", "max_pool2d_i8", "concat x1"} {
		assert.Contains(t, summaryValue(t, stdout, "int8 ops"), op)
	}
	// its inputs are quantized unlike its output: each is requantized
	assert.Contains(t, summaryValue(t, stdout, "int8 ops"), "quantize x2")
	assert.NotContains(t, summaryValue(t, stdout, "float ops"), "(concat)")
	outs := []string{filepath.Join(dir, "out0.npy"), filepath.Join(dir, "out1.npy")}
	code, _, stderr = cli(t, "run", dst, "--input", in, "--output", outs[0], "--output", outs[1])
	require.Equal(t, 0, code, stderr)
	file, err := nkfile.Decode(mustRead(t, dst))
	require.NoError(t, err)
	require.Len(t, file.Outputs, 2)
	for k := range outs {
		name := file.Tensors[file.Outputs[k].Tensor].Name
		// the int8 tensor the output's DEQUANTIZE reads
		var scale float32
		for _, op := range file.Ops {
			if op.Type == nkfile.OpDequantize && op.Outputs[0] == file.Outputs[k].Tensor {
				scale = file.Tensors[op.Inputs[0]].Quant.Scale[0]
			}
		}
		require.Greater(t, scale, float32(0), name)
		want := f32(t, readNpy(t, filepath.Join(fashion, "layout_mix_"+name+".npy")))
		got := f32(t, readNpy(t, outs[k]))
		require.Len(t, got, len(want))
		worst := 0.0
		for i := range want {
			worst = max(worst, math.Abs(float64(want[i]-got[i]))/float64(scale))
		}
		t.Logf("%s: worst error %.2f output steps (step %g)", name, worst, scale)
		assert.Less(t, worst, 3.0, name)
	}
}
