package conformance

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine"
	"github.com/netkit/netkit/internal/graph"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
)

// FashionModels are the models of testdata/fashion, trained and exported by
// testdata/gen/fashion_mnist.py with PyTorch's logits for input.npy.
var FashionModels = []string{"mlp", "cnn_bn", "cnn_dw"}

// FashionPath returns testdata/fashion/name.
func FashionPath(tb testing.TB, name string) string {
	return filepath.Join(ModuleRoot(tb), "testdata", "fashion", name)
}

// FashionBatchModel converts testdata/fashion/name.onnx with a batch of n
// (what netkit convert --batch n writes) into a temporary .nk file and
// returns its path. The ONNX files were exported with a fixed batch of
// one; their first input and output dim is made symbolic first, as an
// export with a dynamic batch axis writes it.
func FashionBatchModel(tb testing.TB, name string, n int) string {
	tb.Helper()
	b, err := os.ReadFile(FashionPath(tb, name+".onnx"))
	require.NoError(tb, err)
	b, err = onnx.WithSymbolicBatch(b, "N")
	require.NoError(tb, err)
	m, err := onnx.Decode(b)
	require.NoError(tb, err)
	g, err := graph.Convert(m, graph.Options{Source: name + ".onnx", Batch: n})
	require.NoError(tb, err)
	model, err := g.ToNK()
	require.NoError(tb, err)
	img, err := nkfile.Encode(model)
	require.NoError(tb, err)
	path := filepath.Join(tb.TempDir(), name+"_b"+strconv.Itoa(n)+".nk")
	require.NoError(tb, os.WriteFile(path, img, 0o644))
	return path
}

// FashionData returns the 100 test images (NCHW [100,1,28,28]) and
// PyTorch's logits of name for them ([100,10]).
func FashionData(tb testing.TB, name string) (images, logits []float32) {
	tb.Helper()
	images, err := readNpyF32(FashionPath(tb, "input.npy"))
	require.NoError(tb, err)
	logits, err = readNpyF32(FashionPath(tb, name+"_logits.npy"))
	require.NoError(tb, err)
	require.Len(tb, images, 100*28*28)
	require.Len(tb, logits, 100*10)
	return images, logits
}

// AssertPerSample checks got against PyTorch's want within 1e-4 absolute
// per element, reporting the worst sample.
func AssertPerSample(tb testing.TB, want, got []float32, per int, what string) {
	tb.Helper()
	require.Len(tb, got, len(want), what)
	worst, at := 0.0, -1
	for i := range want {
		if d := math.Abs(float64(want[i]) - float64(got[i])); d > worst {
			worst, at = d, i
		}
	}
	assert.LessOrEqual(tb, worst, 1e-4, "%s: sample %d differs from PyTorch by %g", what, at/per, worst)
}

// testBatch: batch models (8 samples per invoke) of the Fashion models give
// PyTorch's logits for all 100 images in one RunBatch call (12 full invokes
// and one padded), as do the batch-1 models, sessions and RunBatchRaw.
func testBatch(t *testing.T, b Binding) {
	t.Run("layout_mix", func(t *testing.T) { testBatchLayoutMix(t, b) })
	for _, name := range FashionModels {
		t.Run(name, func(t *testing.T) {
			images, logits := FashionData(t, name)
			m, err := b.Load(FashionBatchModel(t, name, 8))
			require.NoError(t, err)
			defer m.Close()
			assert.Equal(t, 8, m.Batch())
			assert.Equal(t, []int{8, 1, 28, 28}, m.Inputs()[0].Shape)
			assert.Equal(t, []int{8, 10}, m.Outputs()[0].Shape)
			got := make([]float32, len(logits))
			require.NoError(t, m.RunBatch(images, got))
			AssertPerSample(t, logits, got, 10, name+" batch 8")

			s, err := m.NewSession()
			require.NoError(t, err)
			defer s.Close()
			assert.Equal(t, 8, s.Batch())
			raw := make([]byte, 4*len(logits))
			require.NoError(t, s.RunBatchRaw([][]byte{f32le(images)}, [][]byte{raw}))
			assert.Equal(t, f32le(got), raw, "a session's RunBatchRaw gives the model's RunBatch outputs")
			// 3 samples: one invoke padded with 5 zero images
			three := make([]float32, 30)
			require.NoError(t, s.RunBatch(images[:3*784], three))
			assert.Equal(t, got[:30], three)

			err = m.RunBatch(images[:100], got)
			assert.True(t, errors.Is(err, engine.ErrShape), "a partial image: %v", err)
			err = m.RunBatch(images, got[:990])
			assert.True(t, errors.Is(err, engine.ErrShape), "a short output: %v", err)

			one, err := b.Load(FashionPath(t, name+".nk"))
			require.NoError(t, err)
			defer one.Close()
			assert.Equal(t, 1, one.Batch())
			got1 := make([]float32, len(logits))
			require.NoError(t, one.RunBatch(images, got1))
			AssertPerSample(t, logits, got1, 10, name+" batch 1")
		})
	}
}

// testBatchLayoutMix: layout_mix (NCHW input with 3 channels, transposes,
// pad, concat, pools, softmax, sigmoid, tanh, BN, two outputs) at batch 3
// through RunBatchRaw: sample 0 is PyTorch's input and gives its outputs,
// samples 1 and 2 give what the batch-1 model gives for them.
func testBatchLayoutMix(t *testing.T, b Binding) {
	x, err := readNpyF32(FashionPath(t, "layout_mix_input.npy"))
	require.NoError(t, err)
	probs, err := readNpyF32(FashionPath(t, "layout_mix_probs.npy"))
	require.NoError(t, err)
	logits, err := readNpyF32(FashionPath(t, "layout_mix_logits.npy"))
	require.NoError(t, err)
	in := slices.Concat(x, make([]float32, len(x)), make([]float32, len(x)))
	for i, v := range x {
		in[len(x)+i] = 0.5*v + 0.25
		in[2*len(x)+i] = -v
	}
	m, err := b.Load(FashionBatchModel(t, "layout_mix", 3))
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, 3, m.Batch())
	outs := [][]byte{make([]byte, 3*4*len(probs)), make([]byte, 3*4*len(logits))}
	require.NoError(t, m.RunBatchRaw([][]byte{f32le(in)}, outs))
	got := [][]float32{f32s(outs[0]), f32s(outs[1])}
	AssertPerSample(t, probs, got[0][:len(probs)], len(probs), "layout_mix probs, sample 0")
	AssertPerSample(t, logits, got[1][:len(logits)], len(logits), "layout_mix logits, sample 0")

	one, err := b.Load(FashionBatchModel(t, "layout_mix", 1))
	require.NoError(t, err)
	require.Equal(t, 1, one.Batch())
	defer one.Close()
	for s := 1; s < 3; s++ {
		p, l := make([]float32, len(probs)), make([]float32, len(logits))
		require.NoError(t, one.RunMulti([][]float32{in[s*len(x) : (s+1)*len(x)]}, [][]float32{p, l}))
		assert.InDeltaSlice(t, p, got[0][s*len(probs):(s+1)*len(probs)], 1e-6, "probs, sample %d", s)
		assert.InDeltaSlice(t, l, got[1][s*len(logits):(s+1)*len(logits)], 1e-6, "logits, sample %d", s)
	}
}

func f32s(b []byte) []float32 {
	return append([]float32(nil), unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)...)
}

func f32le(v []float32) []byte {
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))...)
}

// testProfile: RunProfiled gives RunRaw's outputs and one time per op of
// the report, within the call's own wall time; conv ops take time.
func testProfile(t *testing.T, b Binding) {
	m, err := b.Load(FashionPath(t, "cnn_dw.nk"))
	require.NoError(t, err)
	defer m.Close()
	rep, err := m.Report()
	require.NoError(t, err)
	require.Equal(t, len(rep.Ops), m.NumOps())
	images, _ := FashionData(t, "cnn_dw")
	in := [][]byte{f32le(images[:784])}
	want, got := [][]byte{make([]byte, 40)}, [][]byte{make([]byte, 40)}
	require.NoError(t, m.RunRaw(in, want))
	s, err := m.NewSession()
	require.NoError(t, err)
	defer s.Close()
	for _, run := range []func([][]byte, [][]byte, []time.Duration) error{m.RunProfiled, s.RunProfiled} {
		times := make([]time.Duration, m.NumOps()+1)
		times[m.NumOps()] = -1
		start := time.Now()
		require.NoError(t, run(in, got, times))
		wall := time.Since(start)
		assert.Equal(t, want, got, "profiled outputs are the plain run's")
		var sum time.Duration
		for k, op := range rep.Ops {
			assert.GreaterOrEqual(t, times[k], time.Duration(0), "op %d", k)
			if op.Op == "conv2d" {
				assert.Positive(t, times[k], "op %d %s", k, op.Name)
			}
			sum += times[k]
		}
		assert.LessOrEqual(t, sum, wall)
		assert.Equal(t, time.Duration(-1), times[m.NumOps()], "nothing written past NumOps")
		err = run(in, got, times[:m.NumOps()-1])
		assert.True(t, errors.Is(err, engine.ErrArg), "short opTimes: %v", err)
	}
	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.RunProfiled(in, got, make([]time.Duration, m.NumOps())), engine.ErrClosed)
}
