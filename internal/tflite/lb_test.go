package tflite

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// activationLowerBound is the largest number of activation bytes live at
// any operator for the file's execution order: the operator's inputs and
// outputs plus every tensor made earlier and read later.
func activationLowerBound(m *Model) int {
	sg := &m.Subgraphs[0]
	n := len(sg.Operators)
	first := map[int32]int{}
	last := map[int32]int{}
	isConst := func(ti int32) bool { return len(m.Buffers[sg.Tensors[ti].Buffer].Data) > 0 }
	for _, ti := range sg.Inputs {
		first[ti] = -1
	}
	for i, op := range sg.Operators {
		for _, ti := range op.Outputs {
			first[ti] = i
		}
		for _, ti := range op.Inputs {
			if ti >= 0 && !isConst(ti) {
				last[ti] = i
			}
		}
	}
	for _, ti := range sg.Outputs {
		last[ti] = n
	}
	best := 0
	for i := 0; i < n; i++ {
		live := 0
		for ti, f := range first {
			if f <= i && last[ti] >= i {
				live += numBytes(&sg.Tensors[ti])
			}
		}
		best = max(best, live)
	}
	return best
}

func numBytes(t *Tensor) int {
	n := typeSize[t.Type]
	for _, d := range t.Shape {
		n *= int(d)
	}
	return n
}

// The lower bounds issue 6 quotes for the MLPerf Tiny int8 models.
func TestActivationLowerBound(t *testing.T) {
	dir := modelDir(t)
	for name, want := range map[string]int{
		"mlperf_kws_ref_model.tflite":          16000,
		"mlperf_vww_96_int8.tflite":            55296,
		"mlperf_pretrainedResnet_quant.tflite": 49152,
		"mlperf_ad01_int8.tflite":              768,
	} {
		m, err := ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		got := activationLowerBound(m)
		t.Logf("%s: activation lower bound %d bytes", name, got)
		assert.Equal(t, want, got, name)
	}
}
