package aot

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
)

// evalOf is the C op table's: every nk_op_def in csrc/ops/ with its eval,
// read from the initializers (the eval is the field before out_shift, the
// entry's last).
func TestEvalOfMatchesTheOpTable(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "csrc", "ops", "*.c"))
	require.NoError(t, err)
	plain := regexp.MustCompile(`(?s)const nk_op_def (nk_op_\w+) = \{[^}]*?(\w+),\s*\w+,\s*\};`)
	macro := regexp.MustCompile(`(?s)NK_INPLACE_DEF\((nk_op_\w+),[^;]*?(\w+)\);`)
	found := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, re := range []*regexp.Regexp{plain, macro} {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				found[m[1]] = m[2]
			}
		}
	}
	assert.Equal(t, found, evalOf)
	table, err := os.ReadFile(filepath.Join("..", "..", "csrc", "ops", "op_table.c"))
	require.NoError(t, err)
	listed := regexp.MustCompile(`&(nk_op_\w+)`).FindAllStringSubmatch(string(table), -1)
	assert.Len(t, listed, len(evalOf), "op_table.c lists every entry")
}

// The op table of an int8 model lists its ops once each, plus the float
// entry an int8 shape op validates with; an op with no kernel is an error.
func TestOpTable(t *testing.T) {
	m := &nkfile.Model{
		Tensors: []nkfile.Tensor{{DType: nkfile.I8, Shape: []int{1, 4}}, {DType: nkfile.I8, Shape: []int{4}}, {DType: nkfile.F32, Shape: []int{4}}},
		Ops: []nkfile.Op{{Type: nkfile.OpReshape, Inputs: []int{0}, Outputs: []int{1}},
			{Type: nkfile.OpSoftmaxI8, Inputs: []int{1}, Outputs: []int{1}},
			{Type: nkfile.OpSoftmaxI8, Inputs: []int{1}, Outputs: []int{1}},
			{Type: nkfile.OpDequantize, Inputs: []int{1}, Outputs: []int{2}}},
	}
	src, err := OpTable("m", "m.nk", m)
	require.NoError(t, err)
	entries := regexp.MustCompile(`(?m)^    &(\w+),$`).FindAllStringSubmatch(string(src), -1)
	var got []string
	for _, e := range entries {
		got = append(got, e[1])
	}
	assert.Equal(t, []string{"nk_op_dequantize_i8", "nk_op_reshape_i8", "nk_op_softmax_i8"}, got)
	m.Ops[0].Type = nkfile.OpGelu // no int8 gelu
	_, err = OpTable("m", "m.nk", m)
	assert.ErrorContains(t, err, "no kernel")
}
