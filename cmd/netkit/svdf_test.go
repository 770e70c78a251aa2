package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/testmodels"
)

// netkit convert + netkit run on tflm_keyword_scrambled_8bit and its
// rescaled variant: the six inputs back to back in one raw int16 file run
// as a stream on one model (the SVDF state carries from one to the next),
// and the raw int32 outputs are TFLite Micro's.
func TestConvertRunTFLiteSVDF(t *testing.T) {
	dir := tfliteDir(t)
	g, ins, err := testmodels.ReadSVDFGolden(filepath.Join("..", "..", "testdata", "tflm_svdf", "golden.json"))
	require.NoError(t, err)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in.bin")
	var all []byte
	for _, b := range ins {
		all = append(all, b...)
	}
	require.NoError(t, os.WriteFile(in, all, 0o644))
	for name, rec := range g.Models {
		b, err := rec.TFLite(dir)
		require.NoError(t, err)
		src := filepath.Join(tmp, name+".tflite")
		require.NoError(t, os.WriteFile(src, b, 0o644))
		dst := filepath.Join(tmp, name+".nk")
		code, stdout, stderr := cli(t, "convert", src, "-o", dst)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, "15: dense_i8 x5, quantize x2, softmax_i8 x1, svdf_i8 x7", summaryValue(t, stdout, "ops"))
		assert.True(t, strings.HasPrefix(summaryValue(t, stdout, "inputs"), "[1 96] i16"), stdout)
		out := filepath.Join(tmp, name+".out.bin")
		code, _, stderr = cli(t, "run", dst, "--input", in, "--output", out)
		require.Equal(t, 0, code, stderr)
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		var want string
		for _, s := range rec.Steps {
			want += s.Output
		}
		assert.Equal(t, want, hex.EncodeToString(got), name)

		// lowered, the int16 or int8 state carries across runs as in the interpreter
		checkLowered(t, dst)
	}
}
