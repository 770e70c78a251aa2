package int8ref_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/internal/tfliteimport"
	"github.com/netkit/netkit/nk"
)

// Whole models through the C core's int8 kernels: every int8 model of
// testdata/models/tflm_golden.json, converted by tfliteimport, run by nk,
// gives TensorFlow Lite Micro's outputs on both stored inputs (TFLM was run
// with double rounding, so a single-rounding build skips).
func TestModelsInCoreMatchTFLM(t *testing.T) {
	if rounding != quant.DoubleRounding {
		t.Skip("TFLM's golden outputs are for double rounding")
	}
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "models", "tflite")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no TFLite models at %s (set NETKIT_TFLITE_MODELS): %v", dir, err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "models", "tflm_golden.json"))
	require.NoError(t, err)
	var gold struct {
		Models map[string]struct {
			In1, In2 struct {
				Output []int8 `json:"output"`
			}
		} `json:"models"`
	}
	require.NoError(t, json.Unmarshal(raw, &gold))
	require.NotEmpty(t, gold.Models)
	for name, g := range gold.Models {
		t.Run(name, func(t *testing.T) {
			tm, err := tflite.ReadFile(filepath.Join(dir, name+".tflite"))
			require.NoError(t, err)
			nm, err := tfliteimport.Convert(tm, tfliteimport.Options{Source: name + ".tflite"})
			require.NoError(t, err)
			img, err := nkfile.Encode(nm)
			require.NoError(t, err)
			cm, err := nk.LoadBytes(img)
			require.NoError(t, err)
			defer cm.Close()
			for k, want := range [][]int8{g.In1.Output, g.In2.Output} {
				in, err := os.ReadFile(filepath.Join("testdata", "models", fmt.Sprintf("%s.in%d.bin", name, k+1)))
				require.NoError(t, err)
				out := make([]byte, len(want))
				require.NoError(t, cm.RunRaw([][]byte{in}, [][]byte{out}))
				requireSame(t, want, out, fmt.Sprintf("%s input %d", name, k+1))
			}
		})
	}
}
