package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/onnx"
	"github.com/netkit/netkit/nk/npy"
)

// netkit convert + netkit run on ONNX's own node tests of integer, float16
// and double graph I/O: the inputs as raw files and as .npy, the outputs
// equal to ONNX's byte for byte, and the printed values as ONNX's; lowered
// to C by netkit aot, the same outputs.
func TestConvertRunTypedIO(t *testing.T) {
	const data = "/usr/share/libonnx-testdata/data/node"
	if _, err := os.Stat(data); err != nil {
		t.Skip("ONNX conformance data not found: install the Debian package libonnx-testdata (CI does)")
	}
	tmp := t.TempDir()
	for _, c := range []struct {
		name, descr, printed string
	}{
		{"test_div_uint8", npy.U8, ""},
		{"test_max_int64", npy.I64, "output 0 \"result\" [0]: 3 4 4"},
		{"test_min_uint64", npy.U64, ""},
		{"test_min_float16", npy.F16, "output 0 \"result\" [0]: 1 2 1"},
		{"test_max_float64", npy.F64, "output 0 \"result\" [0]: 3 4 4"},
	} {
		dir := filepath.Join(data, c.name)
		dst := filepath.Join(tmp, c.name+".nk")
		code, _, stderr := cli(t, "convert", filepath.Join(dir, "model.onnx"), "-o", dst)
		require.Equal(t, 0, code, stderr)
		set := filepath.Join(dir, "test_data_set_0")
		var rawArgs, npyArgs []string
		for i := range 2 {
			tensor := readPB(t, filepath.Join(set, fmt.Sprintf("input_%d.pb", i)))
			b, err := tensor.LittleEndian()
			require.NoError(t, err)
			raw := filepath.Join(tmp, fmt.Sprintf("%s.in%d.bin", c.name, i))
			require.NoError(t, os.WriteFile(raw, b, 0o644))
			arr := &npy.Array{Descr: c.descr, Data: b}
			for _, d := range tensor.Dims {
				arr.Shape = append(arr.Shape, int(d))
			}
			f, err := os.Create(filepath.Join(tmp, fmt.Sprintf("%s.in%d.npy", c.name, i)))
			require.NoError(t, err)
			require.NoError(t, npy.Write(f, arr))
			require.NoError(t, f.Close())
			rawArgs = append(rawArgs, "--input", raw)
			npyArgs = append(npyArgs, "--input", f.Name())
		}
		checkLowered(t, dst) // netkit aot --lower runs it as the interpreter does
		want, err := readPB(t, filepath.Join(set, "output_0.pb")).LittleEndian()
		require.NoError(t, err)

		out := filepath.Join(tmp, c.name+".out.bin")
		code, stdout, stderr := cli(t, append(append([]string{"run", dst}, rawArgs...), "--output", out)...)
		require.Equal(t, 0, code, stderr)
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, want, got, c.name)

		outNpy := filepath.Join(tmp, c.name+".out.npy")
		code, stdout, stderr = cli(t, append(append([]string{"run", dst}, npyArgs...), "--output", outNpy)...)
		require.Equal(t, 0, code, stderr)
		f, err := os.Open(outNpy)
		require.NoError(t, err)
		arr, err := npy.Read(f)
		require.NoError(t, f.Close())
		require.NoError(t, err)
		assert.Equal(t, c.descr, arr.Descr, c.name)
		assert.Equal(t, want, arr.Data, c.name)
		if c.printed != "" {
			code, stdout, stderr = cli(t, append([]string{"run", dst}, npyArgs...)...)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, c.printed, c.name)
		}
	}
}

func readPB(t *testing.T, path string) *onnx.Tensor {
	tensor, err := onnx.ReadTensorFile(path)
	require.NoError(t, err)
	return tensor
}

// netkit run on a model with an empty input and an empty output
// (testdata/models/empty_io.nk): the empty input's file holds no bytes and
// fits any number of inputs, the empty output is written as [N 2 0], the
// other output is PyTorch's; bytes for the empty input are an error.
func TestRunEmptyIO(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "models")
	model := filepath.Join(dir, "empty_io.nk")
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "e.npy")
	require.NoError(t, npy.WriteFile(empty, &npy.Array{Descr: npy.F32, Shape: []int{4, 0}}))
	y, z := filepath.Join(tmp, "y.npy"), filepath.Join(tmp, "z.npy")
	code, _, stderr := cli(t, "run", model, "--input", filepath.Join(dir, "empty_io.input0.npy"), "--input", empty,
		"--output", y, "--output", z)
	require.Equal(t, 0, code, stderr)
	want, err := npy.ReadFile(filepath.Join(dir, "empty_io.expected0.npy"))
	require.NoError(t, err)
	got, err := npy.ReadFile(y)
	require.NoError(t, err)
	assert.Equal(t, want.Shape, got.Shape)
	wantF, err := want.F32()
	require.NoError(t, err)
	gotF, err := got.F32()
	require.NoError(t, err)
	assert.InDeltaSlice(t, wantF, gotF, 1e-6)
	gotZ, err := npy.ReadFile(z)
	require.NoError(t, err)
	assert.Equal(t, []int{want.Shape[0], 2, 0}, gotZ.Shape)
	assert.Empty(t, gotZ.Data)

	code, _, stderr = cli(t, "run", model, "--input", filepath.Join(dir, "empty_io.input0.npy"),
		"--input", filepath.Join(dir, "empty_io.input0.npy"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not a batch of [4 0] inputs")
}
