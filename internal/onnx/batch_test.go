package onnx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Fashion models were exported with a fixed batch of 1: the rewrite
// makes only the first dim of the graph's input and output symbolic.
func TestWithSymbolicBatch(t *testing.T) {
	for _, name := range []string{"mlp", "cnn_bn", "cnn_dw"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fashion", name+".onnx"))
		require.NoError(t, err)
		fixed, err := Decode(b)
		require.NoError(t, err)
		sym, err := WithSymbolicBatch(b, "N")
		require.NoError(t, err)
		m, err := Decode(sym)
		require.NoError(t, err, name)
		require.Len(t, m.Graph.Inputs, len(fixed.Graph.Inputs))
		for i, in := range m.Graph.Inputs {
			was := fixed.Graph.Inputs[i].Dims
			assert.Equal(t, int64(1), was[0], "%s input %d was fixed at 1", name, i)
			assert.Equal(t, append([]int64{-1}, was[1:]...), in.Dims, "%s input %d", name, i)
		}
		for i, out := range m.Graph.Outputs {
			assert.Equal(t, append([]int64{-1}, fixed.Graph.Outputs[i].Dims[1:]...), out.Dims, "%s output %d", name, i)
		}
		assert.Equal(t, len(fixed.Graph.Nodes), len(m.Graph.Nodes))
		assert.Equal(t, len(fixed.Graph.Initializers), len(m.Graph.Initializers))
	}
	_, err := WithSymbolicBatch([]byte{0xff}, "N")
	assert.Error(t, err)
}
