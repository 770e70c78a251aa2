package nk_test

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/testmodels"
	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/internal/tfliteimport"
	"github.com/netkit/netkit/nk"
)

// tflm_keyword_scrambled_8bit (SVDF with int8 state, int16 input, int8 ->
// int16 softmax, int16 -> int32 quantize) and its rescaled variant, over
// TFLite Micro's stream of six inputs: every operator's output after every
// invoke is TFLM's byte for byte (each op output is also made a graph
// output), so the SVDF state carries across invokes as TFLM's does. Then
// ResetState starts the stream over: the first invoke's output again.
func TestSVDFModelMatchesTFLM(t *testing.T) {
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "models", "tflite")
	}
	if _, err := os.Stat(filepath.Join(dir, testmodels.SVDFShared+".tflite")); err != nil {
		t.Skipf("no TFLite models at %s (set NETKIT_TFLITE_MODELS): %v", dir, err)
	}
	g, ins, err := testmodels.ReadSVDFGolden("../testdata/tflm_svdf/golden.json")
	require.NoError(t, err)
	require.Len(t, ins, 6)
	require.Len(t, g.Models, 2)
	for name, rec := range g.Models {
		t.Run(name, func(t *testing.T) {
			b, err := rec.TFLite(dir)
			require.NoError(t, err)
			tm, err := tflite.Parse(b)
			require.NoError(t, err)
			m, err := tfliteimport.Convert(tm, tfliteimport.Options{Source: name})
			require.NoError(t, err)
			// TFLite tensor index of each op's output: the ops convert one to one
			sg := &tm.Subgraphs[0]
			require.Len(t, m.Ops, len(sg.Operators))
			keys := make([]string, len(m.Ops))
			for i := range m.Ops {
				keys[i] = strconv.Itoa(int(sg.Operators[i].Outputs[0]))
				if i < len(m.Ops)-1 {
					m.Outputs = append(m.Outputs, nkfile.IO{Tensor: m.Ops[i].Outputs[0]})
				}
			}
			img, err := nkfile.Encode(m)
			require.NoError(t, err)
			model, err := nk.LoadBytes(img)
			require.NoError(t, err)
			defer model.Close()
			outs := make([][]byte, len(model.Outputs()))
			for i, o := range model.Outputs() {
				n := map[nk.DType]int{nk.I8: 1, nk.I16: 2, nk.I32: 4}[o.DType]
				for _, d := range o.Shape {
					n *= d
				}
				outs[i] = make([]byte, n)
			}
			run := func(step int) {
				require.NoError(t, model.RunRaw([][]byte{ins[step]}, outs))
				want := rec.Steps[step]
				assert.Equal(t, want.Output, hex.EncodeToString(outs[0]), "step %d output", step)
				for i, k := range keys[:len(keys)-1] {
					assert.Equal(t, want.Ops[k], hex.EncodeToString(outs[i+1]), "step %d op %d (%s)", step, i, m.Ops[i].Type)
				}
			}
			for step := range rec.Steps {
				run(step)
			}
			require.NoError(t, model.ResetState())
			run(0)
			if name != testmodels.SVDFShared {
				// the variant has power: its outputs differ along the stream
				seen := map[string]bool{}
				for _, s := range rec.Steps {
					seen[s.Output] = true
				}
				assert.Greater(t, len(seen), 3, fmt.Sprint(seen))
			}
		})
	}
}
