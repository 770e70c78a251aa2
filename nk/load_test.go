package nk_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/internal/tfliteimport"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
)

// loadCalls wraps a backend to count the C calls that size or load a model.
type loadCalls struct {
	mu    sync.Mutex
	calls map[string]int
	modes []uint32 // of each nk_model_load_file_ex
}

func (c *loadCalls) opener(t *testing.T) engine.Opener {
	b, err := nk.Open("")
	require.NoError(t, err)
	w := *b
	count := func(name string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.calls[name]++
	}
	w.ArenaSize = func(p unsafe.Pointer, n uint64, mode uint32, e *engine.CError) (uint64, engine.Status) {
		count("arena_size")
		return b.ArenaSize(p, n, mode, e)
	}
	w.LoadBuffer = func(p unsafe.Pointer, n uint64, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
		count("load_buffer")
		return b.LoadBuffer(p, n, a, e)
	}
	w.LoadFile = func(path string, mode uint32, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
		count("load_file")
		c.mu.Lock()
		c.modes = append(c.modes, mode)
		c.mu.Unlock()
		return b.LoadFile(path, mode, a, e)
	}
	return func(string) (*engine.Backend, error) { return &w, nil }
}

func (c *loadCalls) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.modes = map[string]int{}, nil
}

// TestLoadsOnce: Load, LoadBytes, Inspect and InspectBytes size the arena
// with one nk_model_arena_size (no trial load) and load exactly once;
// WithArenaSize skips the sizing.
func TestLoadsOnce(t *testing.T) {
	const path = "../testdata/models/cnn.nk"
	img, err := os.ReadFile(path)
	require.NoError(t, err)
	c := &loadCalls{}
	open := c.opener(t)
	for _, tc := range []struct {
		name  string
		do    func() error
		calls map[string]int
		modes []uint32
	}{
		{"Load", func() error { return closeModel(engine.Load(open, path)) },
			map[string]int{"arena_size": 1, "load_file": 1}, []uint32{engine.LoadFile}},
		{"Load WithCopy", func() error { return closeModel(engine.Load(open, path, engine.WithCopy())) },
			map[string]int{"arena_size": 1, "load_file": 1}, []uint32{engine.LoadCopy}},
		{"Load WithArenaSize", func() error { return closeModel(engine.Load(open, path, engine.WithArenaSize(1<<20))) },
			map[string]int{"load_file": 1}, []uint32{engine.LoadFile}},
		{"LoadBytes", func() error { return closeModel(engine.LoadBytes(open, img)) },
			map[string]int{"arena_size": 1, "load_buffer": 1}, nil},
		{"Inspect", func() error { _, err := engine.Inspect(open, path); return err },
			map[string]int{"arena_size": 1, "load_buffer": 1}, nil},
		{"InspectBytes", func() error { _, err := engine.InspectBytes(open, img); return err },
			map[string]int{"arena_size": 1, "load_buffer": 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.reset()
			require.NoError(t, tc.do())
			assert.Equal(t, tc.calls, c.calls)
			assert.Equal(t, tc.modes, c.modes)
		})
	}
}

func closeModel(m *engine.Model, err error) error {
	if err != nil {
		return err
	}
	return m.Close()
}

// int8Models are TFLite models converted by netkit: those in
// testdata/models_i8, and the larger MLPerf Tiny VWW and IC models converted
// here when the TFLite files are at hand.
func int8Models(t *testing.T) []string {
	paths, err := filepath.Glob("../testdata/models_i8/*.nk")
	require.NoError(t, err)
	dir := os.Getenv("NETKIT_TFLITE_MODELS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "models", "tflite")
	}
	out := t.TempDir()
	for _, name := range []string{"mlperf_vww_96_int8", "mlperf_pretrainedResnet_quant"} {
		src := filepath.Join(dir, name+".tflite")
		if _, err := os.Stat(src); err != nil {
			t.Logf("no %s: not converted", src)
			continue
		}
		tm, err := tflite.ReadFile(src)
		require.NoError(t, err)
		m, err := tfliteimport.Convert(tm, tfliteimport.Options{Source: name})
		require.NoError(t, err)
		img, err := nkfile.Encode(m)
		require.NoError(t, err)
		p := filepath.Join(out, name+".nk")
		require.NoError(t, os.WriteFile(p, img, 0o644))
		paths = append(paths, p)
	}
	return paths
}

// TestArenaSizeExact: for every committed model, float and int8, and every
// way of loading, the arena Load sizes is exact: the model reports it took
// all of it, and one byte less fails with ErrArenaOverflow. A copied image
// takes its 16-rounded size on top of what the mapped file takes (their
// loads allocate alike), and LoadBytes (a borrowed buffer) is what Inspect
// reports for firmware.
func TestArenaSizeExact(t *testing.T) {
	paths := []string{"../testdata/models/mlp.nk", "../testdata/models/cnn.nk", "../testdata/models/tiny_relu.nk",
		"../testdata/models/branch.nk", "../testdata/fashion/mlp.nk", "../testdata/fashion/cnn_bn.nk",
		"../testdata/fashion/cnn_dw.nk"}
	paths = append(paths, int8Models(t)...)
	for _, path := range paths {
		name, ok := strings.CutPrefix(path, "../testdata/")
		if !ok {
			name = "converted/" + filepath.Base(path)
		}
		t.Run(name, func(t *testing.T) {
			img, err := os.ReadFile(path)
			require.NoError(t, err)
			need := map[string]int64{}
			for _, way := range []struct {
				name string
				load func(...nk.Option) (*nk.Model, error)
			}{
				{"file", func(o ...nk.Option) (*nk.Model, error) { return nk.Load(path, o...) }},
				{"copy", func(o ...nk.Option) (*nk.Model, error) { return nk.Load(path, append(o, nk.WithCopy())...) }},
				{"bytes", func(o ...nk.Option) (*nk.Model, error) { return nk.LoadBytes(img, o...) }},
			} {
				m, err := way.load()
				require.NoError(t, err, way.name)
				r, err := m.Report()
				require.NoError(t, err)
				n := m.ArenaBytes()
				assert.Equal(t, n, r.ArenaAfterLoad, "%s: sized %d, took %d", way.name, n, r.ArenaAfterLoad)
				require.NoError(t, m.Close())
				need[way.name] = n
				_, err = way.load(nk.WithArenaSize(n - 1))
				assert.ErrorIs(t, err, nk.ErrArenaOverflow, "%s: %d B", way.name, n-1)
			}
			assert.Equal(t, need["file"]+(int64(len(img))+15)&^15, need["copy"], "copy = file + image")
			rep, err := nk.InspectBytes(img)
			require.NoError(t, err)
			assert.Equal(t, rep.ArenaAfterLoad, need["bytes"])
			assert.Equal(t, rep.ArenaAfterLoad, rep.ArenaAfterForward)
		})
	}
}

// cnnSample0 is cnn.nk's first test input and PyTorch's output for it.
func cnnSample0(t *testing.T) (in, want []float32) {
	read := func(name string) *npy.Array {
		f, err := os.Open("../testdata/models/" + name)
		require.NoError(t, err)
		defer f.Close()
		a, err := npy.Read(f)
		require.NoError(t, err)
		return a
	}
	ins, err := read("cnn.input.npy").F32()
	require.NoError(t, err)
	outs, err := read("cnn.expected.npy").F32()
	require.NoError(t, err)
	return ins[:16*16*3], outs[:10]
}

// TestCopySurvivesFileChanges: a model loaded WithCopy keeps computing
// PyTorch's outputs while its file is truncated, then rewritten at the same
// size with other bytes, then deleted. (Mapped, the truncation would be a
// SIGBUS.) LoadBytes WithCopy likewise ignores changes to the caller's slice.
func TestCopySurvivesFileChanges(t *testing.T) {
	img, err := os.ReadFile("../testdata/models/cnn.nk")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "cnn.nk")
	require.NoError(t, os.WriteFile(path, img, 0o644))
	in, want := cnnSample0(t)

	m, err := nk.Load(path, nk.WithCopy())
	require.NoError(t, err)
	defer m.Close()
	buf := append([]byte(nil), img...)
	mb, err := nk.LoadBytes(buf, nk.WithCopy())
	require.NoError(t, err)
	defer mb.Close()
	r, err := m.Report()
	require.NoError(t, err)
	mapped, err := nk.Load("../testdata/models/cnn.nk")
	require.NoError(t, err)
	rm, err := mapped.Report()
	require.NoError(t, err)
	require.NoError(t, mapped.Close())
	assert.Zero(t, r.FlashPayload, "a copied image is arena, not flash")
	// the image, folded in place; both loads also hold the weights packed
	// for the host SIMD kernels (none with the portable kernels)
	assert.Equal(t, int64(len(img))+rm.BytesCopiedWeights, r.BytesCopiedWeights, "the image, folded in place")

	check := func(stage string) {
		for _, mm := range []*nk.Model{m, mb} {
			got, err := mm.Predict(in)
			require.NoError(t, err, stage)
			assert.InDeltaSlice(t, want, got, 1e-4, stage)
		}
	}
	check("loaded")
	require.NoError(t, os.Truncate(path, 0))
	for i := range buf {
		buf[i] = 0xA5
	}
	check("file truncated, caller's bytes overwritten")
	junk := make([]byte, len(img))
	for i := range junk {
		junk[i] = byte(i*131 + 7)
	}
	require.NoError(t, os.WriteFile(path, junk, 0o644))
	check("file rewritten")
	require.NoError(t, os.Remove(path))
	check("file deleted")
}

// TestReportOfLoadedModel: Model.Report describes the model as loaded: a
// mapped cnn.nk folds its batch-norm in its private pages (no arena copies,
// weights in the file), and ErrClosed after Close.
func TestReportOfLoadedModel(t *testing.T) {
	m, err := nk.Load("../testdata/models/cnn.nk")
	require.NoError(t, err)
	r, err := m.Report()
	require.NoError(t, err)
	buf, err := nk.Inspect("../testdata/models/cnn.nk")
	require.NoError(t, err)
	// Both loads hold the weights packed for the host SIMD kernels (none
	// with the portable kernels); beyond them the mapped load folds in place
	// and the buffer load copies the folded dw weights [1,3,3,8] and bias [8].
	bnCopies := buf.BytesCopiedWeights - r.BytesCopiedWeights
	assert.Equal(t, int64(4*(3*3*8+8)), bnCopies, "mapped: folded in place")
	assert.Equal(t, buf.FlashPayload+bnCopies, r.FlashPayload, "copies leave flash, folding in place does not")
	assert.Equal(t, buf.Ops, r.Ops)
	assert.Equal(t, m.Inputs(), r.Inputs)
	require.NoError(t, m.Close())
	_, err = m.Report()
	assert.ErrorIs(t, err, nk.ErrClosed)
}
