package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/nk"
)

var fashion = filepath.Join("..", "..", "testdata", "fashion")

func argmaxF32(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// summaryValue returns the value of one row of the convert summary.
func summaryValue(t *testing.T, out, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s+(.*)$`).FindStringSubmatch(out)
	require.NotNil(t, m, "no %q row in:\n%s", key, out)
	return m[1]
}

// `netkit convert` then `netkit run` on the 100 reference images gives
// PyTorch's logits within 1e-4 and its top-1 class, and the committed .nk
// files are exactly what convert makes.
func TestConvertFashionMNIST(t *testing.T) {
	dir := t.TempDir()
	want := map[string]struct{ bns, gelus int }{"mlp": {0, 0}, "cnn_bn": {2, 0}, "cnn_dw": {0, 3}}
	for _, name := range []string{"mlp", "cnn_bn", "cnn_dw"} {
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(dir, name+".nk")
			code, stdout, stderr := cli(t, "convert", filepath.Join(fashion, name+".onnx"), "-o", dst,
				"--labels", filepath.Join(fashion, "labels.txt"))
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, strconv.Itoa(want[name].bns), summaryValue(t, stdout, "folded BatchNorms"))
			assert.Contains(t, summaryValue(t, stdout, "fused"), strconv.Itoa(want[name].gelus)+" GELUs")
			r, err := nk.Inspect(dst)
			require.NoError(t, err)
			if nk.KernelBackend != "" {
				// the PyTorch comparison below is then through the backend's operators
				n := 0
				for _, op := range r.Ops {
					if op.Impl == nk.KernelBackend {
						n++
					}
				}
				assert.Positive(t, n, "no op runs on %s", nk.KernelBackend)
				t.Logf("%s: %d of %d ops on %s", name, n, len(r.Ops), nk.KernelBackend)
			}
			assert.Equal(t, cliutil.FormatSize(r.ArenaAfterForward), summaryValue(t, stdout, "arena after forward"))
			assert.Equal(t, strconv.FormatInt(r.MACs, 10), summaryValue(t, stdout, "MACs per inference"))

			made, err := os.ReadFile(dst)
			require.NoError(t, err)
			committed, err := os.ReadFile(filepath.Join(fashion, name+".nk"))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(made, committed), "testdata/fashion/%s.nk is stale: regenerate it with netkit convert", name)

			out := filepath.Join(dir, name+".out.npy")
			code, _, stderr = cli(t, "run", dst, "--input", filepath.Join(fashion, "input.npy"), "--output", out)
			require.Equal(t, 0, code, stderr)
			got := f32(t, readNpy(t, out))
			ref := f32(t, readNpy(t, filepath.Join(fashion, name+"_logits.npy")))
			require.Len(t, got, 1000)
			require.Len(t, ref, 1000)
			worst := 0.0
			for i := range 100 {
				assert.Equal(t, argmaxF32(ref[i*10:i*10+10]), argmaxF32(got[i*10:i*10+10]), "image %d top-1", i)
				for k := range 10 {
					worst = math.Max(worst, math.Abs(float64(got[i*10+k]-ref[i*10+k])))
				}
			}
			assert.LessOrEqual(t, worst, 1e-4)
			t.Logf("%s via the CLI: max |logit - PyTorch| = %.3g", name, worst)
		})
	}
}

// The reference models exported from PyTorch (testdata/gen: the keyword
// transformer, ...): `netkit convert` makes exactly the committed .nk, and
// `netkit run` on their inputs gives PyTorch's float64 outputs within 1e-4.
func TestConvertPyTorchReferences(t *testing.T) {
	models, err := filepath.Glob(filepath.Join("..", "..", "testdata", "pytorch", "*.onnx"))
	require.NoError(t, err)
	require.NotEmpty(t, models)
	dir := t.TempDir()
	for _, src := range models {
		base := src[:len(src)-len(".onnx")]
		name := filepath.Base(base)
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(dir, name+".nk")
			code, _, stderr := cli(t, "convert", src, "-o", dst)
			require.Equal(t, 0, code, stderr)
			made, err := os.ReadFile(dst)
			require.NoError(t, err)
			committed, err := os.ReadFile(base + ".nk")
			require.NoError(t, err)
			assert.True(t, bytes.Equal(made, committed), "%s.nk is stale: regenerate it with netkit convert", base)

			out := filepath.Join(dir, name+".out.npy")
			code, _, stderr = cli(t, "run", dst, "--input", base+".input.npy", "--output", out)
			require.Equal(t, 0, code, stderr)
			got, want := f32(t, readNpy(t, out)), f32(t, readNpy(t, base+".expected.npy"))
			require.Len(t, got, len(want))
			worst := 0.0
			for i := range want {
				worst = math.Max(worst, math.Abs(float64(got[i]-want[i])))
			}
			assert.LessOrEqual(t, worst, 1e-4)
			t.Logf("%s via the CLI: max |output - PyTorch| = %.3g", name, worst)
		})
	}
}

// The MLP's figures by hand: Linear(784,64), Linear(64,64), Linear(64,10).
func TestConvertSummaryMLP(t *testing.T) {
	code, stdout, stderr := cli(t, "convert", filepath.Join(fashion, "mlp.onnx"), "-o", filepath.Join(t.TempDir(), "m.nk"))
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, strconv.Itoa(784*64+64*64+64*10), summaryValue(t, stdout, "MACs per inference"))
	assert.Regexp(t, `^`+strconv.Itoa(784*64+64+64*64+64+64*10+10)+` `, summaryValue(t, stdout, "parameters"))
	assert.Equal(t, "4: dense x3, reshape x1", summaryValue(t, stdout, "ops"))
	assert.Contains(t, summaryValue(t, stdout, "fused"), "2 activations")
	assert.Contains(t, summaryValue(t, stdout, "inputs"), "nchw")
}

// onnxModel encodes a one-input float model with the given nodes
// (op type, name, attribute-free) chained x -> ... -> y.
func onnxModel(nodes [][2]string) []byte {
	str := func(b []byte, num protowire.Number, s string) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, s)
	}
	msg := func(b []byte, num protowire.Number, m []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, m)
	}
	valueInfo := func(name string) []byte {
		var dims []byte
		for _, d := range []uint64{1, 4} {
			var dim []byte
			dim = protowire.AppendTag(dim, 1, protowire.VarintType)
			dim = protowire.AppendVarint(dim, d)
			dims = msg(dims, 1, dim)
		}
		var tt []byte
		tt = protowire.AppendTag(tt, 1, protowire.VarintType)
		tt = protowire.AppendVarint(tt, 1) // FLOAT
		tt = msg(tt, 2, dims)
		return msg(str(nil, 1, name), 2, msg(nil, 1, tt))
	}
	var g []byte
	prev := "x"
	for i, n := range nodes {
		out := "t" + strconv.Itoa(i)
		if i == len(nodes)-1 {
			out = "y"
		}
		var nb []byte
		nb = str(nb, 1, prev)
		nb = str(nb, 2, out)
		nb = str(nb, 3, n[1])
		nb = str(nb, 4, n[0])
		g = msg(g, 1, nb)
		prev = out
	}
	g = msg(g, 11, valueInfo("x"))
	g = msg(g, 12, valueInfo("y"))
	var opset []byte
	opset = protowire.AppendTag(opset, 2, protowire.VarintType)
	opset = protowire.AppendVarint(opset, 13)
	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType)
	m = protowire.AppendVarint(m, 8)
	m = msg(m, 8, opset)
	return msg(m, 7, g)
}

// An unsupported model fails with exit status 1, one error naming every
// offending node, and no output file.
func TestConvertRefusesUnsupported(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "bad.onnx")
	require.NoError(t, os.WriteFile(src, onnxModel([][2]string{{"Relu", "ok"}, {"Cos", "c1"}, {"Sigmoid", "ok2"}, {"Erfinv", "c2"}}), 0o644))
	dst := filepath.Join(dir, "bad.nk")
	code, _, stderr := cli(t, "convert", src, "-o", dst)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "2 unsupported node(s)")
	assert.Contains(t, stderr, `node "c1" (Cos): op type is not supported`)
	assert.Contains(t, stderr, `node "c2" (Erfinv): op type is not supported`)
	assert.NoFileExists(t, dst)

	// The same encoder with supported ops converts and runs: sigmoid(relu(x)).
	require.NoError(t, os.WriteFile(src, onnxModel([][2]string{{"Relu", "r"}, {"Sigmoid", "s"}}), 0o644))
	code, _, stderr = cli(t, "convert", src, "-o", dst)
	require.Equal(t, 0, code, stderr)
	m, err := nk.Load(dst)
	require.NoError(t, err)
	defer m.Close()
	out, err := m.Predict([]float32{-2, 0, 1, 3})
	require.NoError(t, err)
	for i, x := range []float64{0, 0, 1, 3} {
		assert.InDelta(t, 1/(1+math.Exp(-x)), out[i], 1e-6)
	}
}

// The GRU keyword spotter (testdata/pytorch/kws_gru, whose convert and run
// TestConvertPyTorchReferences checks) converted with --stream-state: inspect
// shows the persistent state.
func TestConvertStreamState(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "gru.nk")
	code, _, stderr := cli(t, "convert", filepath.Join("..", "..", "testdata", "pytorch", "kws_gru.onnx"), "--stream-state", "-o", dst)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := cli(t, "inspect", dst)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "of which state", "inspect shows the persistent state")
	assert.Contains(t, stdout, "96 B kept across invokes", "one GRU state: 24 floats")
}
