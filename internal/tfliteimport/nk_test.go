package tfliteimport

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/nk"
)

// TestInt8ModelsRunInNK runs every converted int8 model in the C core
// (package nk) and compares its output bytes with TensorFlow Lite Micro's.
func TestInt8ModelsRunInNK(t *testing.T) {
	dir := modelDir(t)
	gold := loadGolden(t)
	names := make([]string, 0, len(gold.Models))
	for n := range gold.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		g := gold.Models[name]
		t.Run(name, func(t *testing.T) {
			_, img := convertFile(t, filepath.Join(dir, name+".tflite"))
			m, err := nk.LoadBytes(img)
			require.NoError(t, err)
			defer m.Close()
			out := make([]byte, m.Outputs()[0].Bytes())
			for k, run := range []tflmRun{g.In1, g.In2} {
				in := goldenInput(t, name, k+1)
				raw := make([]byte, len(in))
				for i, v := range in {
					raw[i] = byte(v)
				}
				require.NoError(t, m.RunRaw([][]byte{raw}, [][]byte{out}))
				got := make([]int8, len(out))
				for i, b := range out {
					got[i] = int8(b)
				}
				assert.Equal(t, run.Output, got, "input %d", k+1)
			}
		})
	}
}

// mlperfTiny are the four MLPerf Tiny int8 models with their activation
// lower bound (the largest sum of activation bytes live at one operator in
// the file's order, a byte per int8 element; issue 6's figures, which
// internal/tflite TestActivationLowerBound recomputes from the .tflite
// files) and TFLite Micro's arena_used_bytes on a 32-bit target (issue 6).
// overlap is
// the activation block netkit plans below the bound, with outputs over the
// input bytes their kernels are done with (docs/MEMORY.md).
var mlperfTiny = []struct {
	name, label            string
	lower, overlap, tflm32 int64
}{
	{"mlperf_kws_ref_model", "KWS", 16000, 8064, 22820},
	{"mlperf_vww_96_int8", "VWW", 55296, 36864, 100708},
	{"mlperf_pretrainedResnet_quant", "IC ResNet-8", 49152, 33328, 54996},
	{"mlperf_ad01_int8", "AD", 768, 768, 2580},
}

// TestMLPerfTinyArena: netkit plans each model's activations at the
// figure above (below the lower bound where ops overlap), and its whole arena after load is at most TFLite Micro's,
// compared like with like: record sizes follow the pointer size, so a
// 64-bit build compares with the figure of the x86-64 TFLM build that made
// tflm_golden.json and a 32-bit build with the 32-bit figure
// (scripts/int8-cross.sh shows the Cortex-M4F's), AD's included since its
// run-time records are read in place.
func TestMLPerfTinyArena(t *testing.T) {
	dir := modelDir(t)
	gold := loadGolden(t)
	for _, c := range mlperfTiny {
		t.Run(c.label, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".tflite")
			_, img := convertFile(t, path)
			// The device's figure: the host SIMD kernels copy weights into
			// the arena, packed for speed, where TFLM and an MCU read them
			// in place from flash.
			t.Setenv("NETKIT_HOST_ISA", "portable")
			r, err := nk.InspectBytes(img)
			require.NoError(t, err)
			st, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, c.overlap, r.PeakActivations, "planned activations (overlap planning)")
			assert.Equal(t, c.lower, r.ActivationLowerBound, "the C core's lower bound vs the independent one")

			tflm, bits := int64(gold.Models[c.name].ArenaUsedBytes), "64-bit"
			if strconv.IntSize == 32 {
				tflm, bits = c.tflm32, "32-bit"
			}
			require.Positive(t, tflm, "TFLM's arena_used_bytes")
			assert.LessOrEqual(t, r.ArenaAfterLoad, tflm, "netkit's arena vs TFLM's (%s)", bits)
			t.Logf("%-12s arena %7d B (activations %7d, lower bound %7d; TFLM %s %7d) .nk %7d B, .tflite %7d B, MACs %d",
				c.label, r.ArenaAfterLoad, r.PeakActivations, c.lower, bits, tflm, len(img), st.Size(), r.MACs)
		})
	}
}
