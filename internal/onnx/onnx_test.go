package onnx

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// The Fashion-MNIST MLP was exported by PyTorch from
// nn.Sequential(Flatten, Linear(784,64), ReLU, Dropout, Linear(64,64), ReLU, Linear(64,10)).
func TestDecodePyTorchExport(t *testing.T) {
	m, err := ReadFile("../../testdata/fashion/mlp.onnx")
	require.NoError(t, err)
	assert.Equal(t, "pytorch", m.ProducerName)
	assert.Equal(t, int64(13), m.Opsets[""])
	g := m.Graph
	var ops []string
	for _, n := range g.Nodes {
		ops = append(ops, n.OpType)
	}
	assert.Equal(t, []string{"Flatten", "Gemm", "Relu", "Gemm", "Relu", "Gemm"}, ops)
	require.Len(t, g.Inputs, 1)
	assert.Equal(t, "image", g.Inputs[0].Name)
	assert.Equal(t, Float, g.Inputs[0].ElemType)
	assert.Equal(t, []int64{1, 1, 28, 28}, g.Inputs[0].Dims)
	assert.Equal(t, "logits", g.Outputs[0].Name)
	dims := map[string][]int64{}
	for _, init := range g.Initializers {
		dims[init.Name] = init.Dims
		v, err := init.Float32s()
		require.NoError(t, err)
		assert.Len(t, v, init.Elems())
	}
	assert.Equal(t, []int64{64, 784}, dims["net.1.weight"])
	assert.Equal(t, []int64{10}, dims["net.6.bias"])
	gemm := g.Nodes[1]
	require.NotNil(t, gemm.Attr("transB"))
	assert.Equal(t, int64(1), gemm.Attr("transB").I)
	assert.Equal(t, AttrInt, gemm.Attr("transB").Type)
	assert.Equal(t, float32(1), gemm.Attr("alpha").F)
}

// A TensorProto built field by field: packed float_data and unpacked
// int64 dims must read the same as their definitions.
func TestDecodeTensorFields(t *testing.T) {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 2)
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 3)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(Float))
	var packed []byte
	for _, v := range []float32{1, -2, 0.5, 3, 4, 1e-3} {
		packed = binary.LittleEndian.AppendUint32(packed, math.Float32bits(v))
	}
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendBytes(b, packed)
	b = protowire.AppendTag(b, 8, protowire.BytesType)
	b = protowire.AppendString(b, "w")
	b = protowire.AppendTag(b, 99, protowire.VarintType) // unknown fields are skipped
	b = protowire.AppendVarint(b, 7)
	tensor, err := DecodeTensor(b)
	require.NoError(t, err)
	assert.Equal(t, "w", tensor.Name)
	assert.Equal(t, []int64{2, 3}, tensor.Dims)
	v, err := tensor.Float32s()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, -2, 0.5, 3, 4, 1e-3}, v)

	// int64 values carried in raw_data, little-endian.
	var raw []byte
	for _, x := range []int64{-1, 0, 784} {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(x))
	}
	b = protowire.AppendTag(nil, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 3)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(Int64))
	b = protowire.AppendTag(b, 9, protowire.BytesType)
	b = protowire.AppendBytes(b, raw)
	tensor, err = DecodeTensor(b)
	require.NoError(t, err)
	iv, err := tensor.Int64s()
	require.NoError(t, err)
	assert.Equal(t, []int64{-1, 0, 784}, iv)

	_, err = DecodeTensor([]byte{0x0a, 0x05, 1})
	assert.Error(t, err, "a truncated length-delimited field")
	_, err = Decode([]byte{0x08, 0x01})
	assert.ErrorContains(t, err, "no graph")
}

// ONNX's own Relu node test: the decoded output must be max(input, 0) of the
// decoded input, which checks both files decode to the right numbers.
func TestDecodeONNXTestData(t *testing.T) {
	dir := "/usr/share/libonnx-testdata/data/node/test_relu"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("Debian package libonnx-testdata is not installed")
	}
	model, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	require.NoError(t, err)
	m, err := Decode(model)
	require.NoError(t, err)
	require.Len(t, m.Graph.Nodes, 1)
	assert.Equal(t, "Relu", m.Graph.Nodes[0].OpType)
	read := func(name string) []float32 {
		b, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", name))
		require.NoError(t, err)
		tensor, err := DecodeTensor(b)
		require.NoError(t, err)
		v, err := tensor.Float32s()
		require.NoError(t, err)
		return v
	}
	in, out := read("input_0.pb"), read("output_0.pb")
	require.Len(t, out, len(in))
	require.Len(t, in, 60)
	for i := range in {
		assert.Equal(t, max(in[i], 0), out[i])
	}
}
