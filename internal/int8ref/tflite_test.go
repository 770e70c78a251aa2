package int8ref

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/tflite"
)

// tflmGolden holds what TFLite Micro itself computed for the shared models
// with its reference kernels, run once outside this repository; see
// testdata/README.md).
type tflmRun struct {
	Output  []int8            `json:"output"`
	Tensors map[string]string `json:"tensors"`
}

type tflmGolden struct {
	Models map[string]struct {
		In1, In2       tflmRun
		ArenaUsedBytes int `json:"arena_used_bytes"`
	} `json:"models"`
}

func sharedModelDir(t *testing.T) string {
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "models", "tflite")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no TFLite models at %s (set NETKIT_TFLITE_MODELS): %v", dir, err)
	}
	return dir
}

// TestModelsMatchTFLM runs whole int8 models through int8ref and compares
// every operator's output with TFLite Micro's, bit for bit.
func TestModelsMatchTFLM(t *testing.T) {
	dir := sharedModelDir(t)
	var gold tflmGolden
	loadJSON(t, "testdata/models/tflm_golden.json", &gold)
	require.NotEmpty(t, gold.Models)
	names := make([]string, 0, len(gold.Models))
	for n := range gold.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		g := gold.Models[name]
		t.Run(name, func(t *testing.T) {
			m, err := tflite.ReadFile(filepath.Join(dir, name+".tflite"))
			require.NoError(t, err)
			for k, run := range []tflmRun{g.In1, g.In2} {
				raw, err := os.ReadFile(filepath.Join("testdata", "models", name+".in"+strconv.Itoa(k+1)+".bin"))
				require.NoError(t, err)
				in := make([]int8, len(raw))
				for i, b := range raw {
					in[i] = int8(b)
				}
				vals, err := RunTFLite(m, in, quant.DoubleRounding)
				require.NoError(t, err)
				sg := &m.Subgraphs[0]
				// operator by operator, so a mismatch names the first layer
				for i := range sg.Operators {
					ti := sg.Operators[i].Outputs[0]
					v := vals[ti]
					b := make([]byte, len(v))
					for j, x := range v {
						b[j] = byte(x)
					}
					sum := sha256.Sum256(b)
					require.Equal(t, run.Tensors[strconv.Itoa(int(ti))], hex.EncodeToString(sum[:]),
						"input %d: operator %d output tensor %d %q differs from TFLM", k+1, i, ti, sg.Tensors[ti].Name)
				}
				assert.Equal(t, run.Output, vals[sg.Outputs[0]], "input %d graph output", k+1)
			}
			t.Logf("%s: all %d operator outputs bit-exact with TFLM on 2 inputs (TFLM host arena_used_bytes %d)",
				name, len(m.Subgraphs[0].Operators), g.ArenaUsedBytes)
		})
	}
}

func TestRunTFLiteRefuses(t *testing.T) {
	dir := sharedModelDir(t)
	m, err := tflite.ReadFile(filepath.Join(dir, "mlperf_kws_ref_model_float32.tflite"))
	require.NoError(t, err)
	_, err = RunTFLite(m, make([]int8, 490), quant.DoubleRounding)
	assert.ErrorIs(t, err, ErrShape, "float input")
	m, err = tflite.ReadFile(filepath.Join(dir, "mlperf_kws_ref_model.tflite"))
	require.NoError(t, err)
	_, err = RunTFLite(m, make([]int8, 10), quant.DoubleRounding)
	assert.ErrorIs(t, err, ErrShape, "wrong input size")
}
