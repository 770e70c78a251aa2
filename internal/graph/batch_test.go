package graph

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
)

// Options.Batch sizes a symbolic first input dim (-1: dim_param or unknown;
// 0, as some exporters write it) and is recorded as META batch; a fixed
// batch of another size is refused; without it the batch is 1.
func TestBatchOption(t *testing.T) {
	load := func(first int64) *onnx.Model {
		m, err := onnx.ReadFile(filepath.Join("..", "..", "testdata", "fashion", "cnn_dw.onnx"))
		require.NoError(t, err)
		m.Graph.Inputs[0].Dims[0] = first
		return m
	}
	meta := func(g *Graph) (string, bool) {
		for _, kv := range g.Meta {
			if kv.Key == nkfile.MetaBatch {
				return kv.Value, true
			}
		}
		return "", false
	}
	for _, first := range []int64{-1, 0} {
		g, err := Convert(load(first), Options{Batch: 3})
		require.NoError(t, err)
		assert.Equal(t, []int{3, 1, 28, 28}, g.Inputs[0].Shape)
		assert.Equal(t, []int{3, 10}, g.Outputs[0].Shape)
		v, ok := meta(g)
		assert.True(t, ok)
		assert.Equal(t, "3", v)

		g, err = Convert(load(first), Options{})
		require.NoError(t, err)
		assert.Equal(t, []int{1, 1, 28, 28}, g.Inputs[0].Shape)
		_, ok = meta(g)
		assert.False(t, ok, "no META batch for one sample")
	}
	_, err := Convert(load(1), Options{Batch: 3})
	assert.ErrorContains(t, err, "fixed at 1 in the model; --batch 3 needs a symbolic one")
	g, err := Convert(load(3), Options{Batch: 3})
	require.NoError(t, err, "a fixed batch of the asked size is that batch")
	assert.Equal(t, []int{3, 10}, g.Outputs[0].Shape)
}
