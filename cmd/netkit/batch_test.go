package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine/conformance"
	"github.com/netkit/netkit/internal/onnx"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
)

// symbolicONNX writes testdata/fashion/name.onnx with a symbolic batch
// dimension (as a dynamic-axes export has it) to a temporary file.
func symbolicONNX(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(conformance.FashionPath(t, name+".onnx"))
	require.NoError(t, err)
	b, err = onnx.WithSymbolicBatch(b, "N")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), name+".onnx")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// convert --batch 10, then run on all 100 test images: 10 invokes, and
// every image's logits within 1e-4 of PyTorch's, written as [100, 1, 10].
func TestConvertBatchRunMatchesTorch(t *testing.T) {
	for _, name := range conformance.FashionModels {
		t.Run(name, func(t *testing.T) {
			nkPath := filepath.Join(t.TempDir(), name+"_b10.nk")
			code, stdout, stderr := cli(t, "convert", symbolicONNX(t, name), "--batch", "10", "-o", nkPath,
				"--labels", conformance.FashionPath(t, "labels.txt"))
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "image [10 1 28 28] f32")
			assert.Contains(t, stdout, "logits [10 10] f32")

			out := filepath.Join(t.TempDir(), "logits.npy")
			code, stdout, stderr = cli(t, "run", nkPath, "--input", conformance.FashionPath(t, "input.npy"), "--output", out)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "batch model: 10 samples per invoke (100 samples: 10 invokes)")
			a := readNpy(t, out)
			assert.Equal(t, []int{100, 1, 10}, a.Shape)
			_, logits := conformance.FashionData(t, name)
			conformance.AssertPerSample(t, logits, f32(t, a), 10, name+" via the CLI")

			// per-image top-k lines, 7 images: one invoke padded with 3
			images := readNpy(t, conformance.FashionPath(t, "input.npy"))
			images.Shape[0] = 7
			images.Data = images.Data[:7*784*4]
			seven := filepath.Join(t.TempDir(), "seven.npy")
			writeNpy(t, seven, images)
			code, stdout, stderr = cli(t, "run", nkPath, "--input", seven, "--top", "1")
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "(7 samples: 1 invokes)")
			assert.Len(t, regexp.MustCompile(`(?m)^  \[\d\] \S`).FindAllString(stdout, -1), 7)
			assert.NotContains(t, stdout, "[7]")
		})
	}
}

func TestConvertBatchErrors(t *testing.T) {
	code, _, stderr := cli(t, "convert", conformance.FashionPath(t, "mlp.onnx"), "--batch", "4", "-o", filepath.Join(t.TempDir(), "x.nk"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "the batch dimension is fixed at 1 in the model; --batch 4 needs a symbolic one")
	code, _, stderr = cli(t, "convert", symbolicONNX(t, "mlp"), "--batch", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--batch: want 1 to")
}

// bench --ops: one row per op of inspect's table, shares summing to 100 %;
// --json carries the same rows and the batch.
func TestBenchOps(t *testing.T) {
	path := conformance.FashionPath(t, "cnn_dw.nk")
	code, stdout, stderr := cli(t, "bench", path, "--ops", "--n", "20")
	require.Equal(t, 0, code, stderr)
	rows := regexp.MustCompile(`(?m)^\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)%\s+(\S+)$`).FindAllStringSubmatch(stdout, -1)
	require.Len(t, rows, 12, stdout)
	for k, r := range rows {
		assert.Equal(t, strconv.Itoa(k), r[1])
	}
	assert.Equal(t, []string{"conv2d", "/stem/stem.0/Conv", "42336"}, rows[1][2:5])
	assert.Regexp(t, `(?m)^\s+sum\s+727248\s+[0-9.]+\s+100.0%`, stdout)

	code, stdout, stderr = cli(t, "bench", conformance.FashionBatchModel(t, "mlp", 4), "--ops", "--json", "--n", "20")
	require.Equal(t, 0, code, stderr)
	var res benchJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	assert.Equal(t, 4, res.Batch)
	assert.Equal(t, 20, res.Runs)
	assert.Equal(t, 20, res.ProfiledRuns)
	assert.Equal(t, int64(4*54912), res.MACs)
	assert.InDelta(t, float64(res.P50Ns)/4, res.P50SampleNs, 1)
	require.Len(t, res.PerOp, 4)
	share := 0.0
	for _, op := range res.PerOp {
		share += op.Share
	}
	assert.InDelta(t, 1, share, 1e-9)
	assert.Equal(t, "dense", res.PerOp[1].Kind)
	assert.Equal(t, int64(4*50176), res.PerOp[1].MACs)
	assert.Positive(t, res.PerOp[1].P50Ns)

	code, _, stderr = cli(t, "bench", path, "--ops", "--target", "cortex-m4f")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--ops is for the host")
}

func writeNpy(t *testing.T, path string, a *npy.Array) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, npy.Write(f, a))
	require.NoError(t, f.Close())
}

// TFLite models with a dynamic batch (shape_signature -1), converted with
// --batch 2: both golden inputs run in one invoke and give TFLite Micro's
// output bytes (computed one input at a time) exactly.
func TestConvertBatchTFLiteMatchesTFLM(t *testing.T) {
	dir := tfliteDir(t)
	for _, name := range []string{"tflm_hello_world_int8", "mlperf_ad01_int8", "mlperf_kws_ref_model",
		"mlperf_str_ww_ref_model", "mlperf_pretrainedResnet_quant", "mlperf_vww_96_int8"} {
		t.Run(name, func(t *testing.T) {
			want := tflmOutputs(t, name)
			tmp := t.TempDir()
			dst := filepath.Join(tmp, name+".nk")
			code, stdout, stderr := cli(t, "convert", filepath.Join(dir, name+".tflite"), "--batch", "2", "-o", dst)
			require.Equal(t, 0, code, stderr)
			assert.Regexp(t, `(?m)^inputs\s+\S+ \[2 `, stdout)
			in := filepath.Join(tmp, "in.bin")
			require.NoError(t, os.WriteFile(in, append(goldenIn(t, name, 1), goldenIn(t, name, 2)...), 0o644))
			out := filepath.Join(tmp, "out.bin")
			code, stdout, stderr = cli(t, "run", dst, "--input", in, "--output", out)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "batch model: 2 samples per invoke (2 samples: 1 invokes)")
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Equal(t, append(bytesOf(want[0]), bytesOf(want[1])...), got)
		})
	}
	code, _, stderr := cli(t, "convert", filepath.Join(dir, "tflm_person_detect.tflite"), "--batch", "2", "-o", filepath.Join(t.TempDir(), "x.nk"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--batch needs a dynamic one (-1)")
}

// A batch model's conv layers run as a batch tile (docs/MEMORY.md): chunk
// by chunk, their own tensors planned at one chunk. The outputs must be the
// op-by-op run's bytes (NETKIT_BATCH_TILES=0), in an arena that holds the
// conv activations of one chunk instead of the whole batch.
func TestBatchTileMatchesOpByOp(t *testing.T) {
	arena := regexp.MustCompile(`(?m)^arena after load\s+(\d+) B`)
	for _, tc := range []struct{ name, tile string }{
		{"cnn_bn", "batch tile: ops 1-4 run 10 times per invoke, each time on 1 of the batch's samples"},
		{"cnn_dw", "batch tile: ops 1-9 run 5 times per invoke, each time on 2 of the batch's samples"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nkPath := filepath.Join(t.TempDir(), tc.name+"_b10.nk")
			code, _, stderr := cli(t, "convert", symbolicONNX(t, tc.name), "--batch", "10", "-o", nkPath)
			require.Equal(t, 0, code, stderr)
			run := func(tiles string) (out []byte, arenaBytes int, report string) {
				t.Setenv("NETKIT_BATCH_TILES", tiles)
				code, stdout, stderr := cli(t, "inspect", "--full", nkPath)
				require.Equal(t, 0, code, stderr)
				m := arena.FindStringSubmatch(stdout)
				require.NotNil(t, m, stdout)
				arenaBytes, _ = strconv.Atoi(m[1])
				path := filepath.Join(t.TempDir(), "logits.npy")
				code, _, stderr = cli(t, "run", nkPath, "--input", conformance.FashionPath(t, "input.npy"), "--output", path)
				require.Equal(t, 0, code, stderr)
				out, err := os.ReadFile(path)
				require.NoError(t, err)
				return out, arenaBytes, stdout
			}
			tiled, tiledArena, report := run("")
			if nk.KernelBackend != "" {
				// the backend runs the convs (its prepared state knows the whole batch): no tile
				assert.NotContains(t, report, "batch tile")
				return
			}
			assert.Contains(t, report, tc.tile)
			whole, wholeArena, report := run("0")
			assert.NotContains(t, report, "batch tile")
			assert.Equal(t, whole, tiled, "the tiled run's logits are not the op-by-op run's")
			assert.Less(t, tiledArena, wholeArena)

			// aot's plan is for a firmware, which runs op by op: never a
			// tiled one, even with the host's kernels kept (NETKIT_HOST_ISA set)
			t.Setenv("NETKIT_BATCH_TILES", "")
			t.Setenv("NETKIT_HOST_ISA", "")
			code, stdout, stderr := cli(t, "aot", nkPath, "-o", t.TempDir(), "--name", "m")
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, fmt.Sprintf("arena %d B", wholeArena))
		})
	}
}
