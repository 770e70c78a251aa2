package main

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

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/nk/npy"
)

// TFLite models and TFLite Micro's outputs on them (internal/int8ref).
var goldenDir = filepath.Join("..", "..", "internal", "int8ref", "testdata", "models")

func tfliteDir(t *testing.T) string {
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "models", "tflite")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no TFLite models at %s (set NETKIT_TFLITE_MODELS): %v", dir, err)
	}
	return dir
}

// tflmOutputs are TFLM's graph outputs of a model on its two golden inputs.
func tflmOutputs(t *testing.T, name string) [2][]int8 {
	b, err := os.ReadFile(filepath.Join(goldenDir, "tflm_golden.json"))
	require.NoError(t, err)
	var g struct {
		Models map[string]struct {
			In1, In2 struct {
				Output []int8 `json:"output"`
			}
		} `json:"models"`
	}
	require.NoError(t, json.Unmarshal(b, &g))
	m, ok := g.Models[name]
	require.True(t, ok, name)
	return [2][]int8{m.In1.Output, m.In2.Output}
}

func goldenIn(t *testing.T, name string, k int) []byte {
	b, err := os.ReadFile(filepath.Join(goldenDir, fmt.Sprintf("%s.in%d.bin", name, k)))
	require.NoError(t, err)
	return b
}

func bytesOf(v []int8) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

// netkit convert + netkit run on the int8 KWS model: raw int8 and .npy
// int8 inputs give TFLite Micro's output bytes; the top-K lines show the
// int8 values, or with --dequantize (q + 128) / 256 (the softmax output's
// scale 1/256 and zero point -128).
func TestConvertRunTFLiteInt8(t *testing.T) {
	src := filepath.Join(tfliteDir(t), "mlperf_kws_ref_model.tflite")
	const name = "mlperf_kws_ref_model"
	want := tflmOutputs(t, name)
	dir := t.TempDir()
	dst := filepath.Join(dir, "kws.nk")
	labels := make([]string, 12) // names only need to be distinct here
	for i := range labels {
		labels[i] = fmt.Sprintf("word%02d", i)
	}
	labelFile := filepath.Join(dir, "labels.txt")
	require.NoError(t, os.WriteFile(labelFile, []byte(strings.Join(labels, "\n")+"\n"), 0o644))
	code, stdout, stderr := cli(t, "convert", src, "-o", dst, "--labels", labelFile)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "double", summaryValue(t, stdout, "int8 rounding"))
	assert.Contains(t, summaryValue(t, stdout, "ops"), "conv2d_i8 x5")

	// raw int8 in, raw int8 out
	in1 := filepath.Join(dir, "in1.bin")
	require.NoError(t, os.WriteFile(in1, goldenIn(t, name, 1), 0o644))
	out1 := filepath.Join(dir, "out1.bin")
	code, _, stderr = cli(t, "run", dst, "--input", in1, "--output", out1)
	require.Equal(t, 0, code, stderr)
	got, err := os.ReadFile(out1)
	require.NoError(t, err)
	assert.Equal(t, bytesOf(want[0]), got)

	// .npy int8 batch of both inputs in, .npy int8 out
	both := append(goldenIn(t, name, 1), goldenIn(t, name, 2)...)
	inNpy := filepath.Join(dir, "in.npy")
	f, err := os.Create(inNpy)
	require.NoError(t, err)
	require.NoError(t, npy.Write(f, &npy.Array{Descr: npy.I8, Shape: []int{2, 1, 49, 10, 1}, Data: both}))
	require.NoError(t, f.Close())
	outNpy := filepath.Join(dir, "out.npy")
	code, _, stderr = cli(t, "run", dst, "--input", inNpy, "--output", outNpy)
	require.Equal(t, 0, code, stderr)
	a := readNpy(t, outNpy)
	assert.Equal(t, npy.I8, a.Descr)
	assert.Equal(t, []int{2, 1, 12}, a.Shape)
	assert.Equal(t, append(bytesOf(want[0]), bytesOf(want[1])...), a.Data)

	for _, deq := range []bool{false, true} {
		args := []string{"run", dst, "--input", inNpy, "--top", "3"}
		if deq {
			args = append(args, "--dequantize")
		}
		code, stdout, stderr = cli(t, args...)
		require.Equal(t, 0, code, stderr)
		for s := range 2 {
			row := want[s]
			idx := make([]int, len(row))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
			var parts []string
			for _, c := range idx[:3] {
				if deq {
					parts = append(parts, fmt.Sprintf("%s %.4f", labels[c], float64(int(row[c])+128)/256))
				} else {
					parts = append(parts, fmt.Sprintf("%s %d", labels[c], row[c]))
				}
			}
			assert.Contains(t, stdout, fmt.Sprintf("[%d] %s\n", s, strings.Join(parts, ", ")), "dequantize %v", deq)
		}
	}
}

// --dequantize on a non-classifier output (hello world's [1, 1] sine
// estimate) prints scale * (q - zp).
func TestRunDequantizeOutputs(t *testing.T) {
	src := filepath.Join(tfliteDir(t), "tflm_hello_world_int8.tflite")
	const name = "tflm_hello_world_int8"
	want := tflmOutputs(t, name)[0]
	require.Len(t, want, 1)
	dir := t.TempDir()
	dst := filepath.Join(dir, "hello.nk")
	code, _, stderr := cli(t, "convert", src, "-o", dst)
	require.Equal(t, 0, code, stderr)
	in := filepath.Join(dir, "in.bin")
	require.NoError(t, os.WriteFile(in, goldenIn(t, name, 1), 0o644))

	code, stdout, stderr := cli(t, "run", dst, "--input", in)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, fmt.Sprintf("[0]: %d\n", want[0]))

	code, stdout, stderr = cli(t, "run", dst, "--input", in, "--dequantize")
	require.Equal(t, 0, code, stderr)
	scale, zp := outputQuant(t, src)
	assert.Contains(t, stdout, fmt.Sprintf("[0]: %.6g\n", float64(scale)*float64(int32(want[0])-zp)))
}

// outputQuant is the graph output's scale and zero point as the .tflite
// stores them.
func outputQuant(t *testing.T, path string) (float32, int32) {
	m, err := tflite.ReadFile(path)
	require.NoError(t, err)
	sg := &m.Subgraphs[0]
	q := sg.Tensors[sg.Outputs[0]].Quant
	require.NotNil(t, q)
	return q.Scale[0], int32(q.ZeroPoint[0])
}

// --rounding single records the mode; this host's double-rounding core
// refuses to run the file, and convert says so instead of failing.
func TestConvertTFLiteSingleRounding(t *testing.T) {
	src := filepath.Join(tfliteDir(t), "mlperf_kws_ref_model.tflite")
	dst := filepath.Join(t.TempDir(), "kws.nk")
	code, stdout, stderr := cli(t, "convert", src, "-o", dst, "--rounding", "single")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, summaryValue(t, stdout, "int8 rounding"), "single (for a NETKIT_SINGLE_ROUNDING build")
	b, err := os.ReadFile(dst)
	require.NoError(t, err)
	m, err := nkfile.Decode(b)
	require.NoError(t, err)
	v, _ := m.MetaValue(nkfile.MetaInt8Rounding)
	assert.Equal(t, nkfile.RoundingSingle, v)
	code, _, stderr = cli(t, "run", dst)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "int8_rounding")

	code, _, stderr = cli(t, "convert", src, "-o", dst, "--rounding", "half")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--rounding")
}
