// Package conformance is the test suite that packages nk (cgo) and nkc
// (purego) both run: outputs against the torch-computed expectations in
// testdata/models, error mapping, use after Close, inspect figures,
// concurrency, cleanups of dropped values and the allocation count of
// Session.Run. It imports testing and testify, so only _test.go files may
// import it: TestProductionDoesNotLinkTests fails when any other package of
// the module (the CLI, nk, nkc and what they import) depends on it, on
// testing or on testify.
package conformance

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine"
	"github.com/netkit/netkit/internal/nkfile"
)

// Binding is the API of one package under test.
type Binding struct {
	Name         string
	Load         func(path string, opts ...engine.Option) (*engine.Model, error)
	LoadBytes    func(b []byte, opts ...engine.Option) (*engine.Model, error)
	Inspect      func(path string, opts ...engine.Option) (*engine.Report, error)
	InspectBytes func(b []byte, opts ...engine.Option) (*engine.Report, error)
	// Open is the binding's backend (for nkc, over the library under test);
	// tests that watch the C calls load through it with the shared engine.
	Open engine.Opener
}

// Case is a model of testdata/models or testdata/pytorch with its input batches and the
// output batches PyTorch computed for them, one slice per graph input and
// output, each holding N whole tensors.
type Case struct {
	Name     string
	Path     string
	Inputs   [][]float32
	Expected [][]float32
}

// Cases lists testdata/models/NAME.nk and testdata/pytorch/NAME.nk that have NAME.input.npy and
// NAME.expected.npy (or NAME.input0.npy, NAME.input1.npy, ... and
// NAME.expected0.npy, ... for several inputs or outputs) next to them.
func Cases(tb testing.TB) []Case {
	tb.Helper()
	dir := filepath.Join(ModuleRoot(tb), "testdata", "models")
	paths, err := filepath.Glob(filepath.Join(dir, "*.nk"))
	require.NoError(tb, err)
	// the reference models exported from PyTorch by testdata/gen
	exported, err := filepath.Glob(filepath.Join(ModuleRoot(tb), "testdata", "pytorch", "*.nk"))
	require.NoError(tb, err)
	paths = append(paths, exported...)
	var cases []Case
	for _, p := range paths {
		base := strings.TrimSuffix(p, ".nk")
		c := Case{Name: filepath.Base(base), Path: p,
			Inputs: readSeries(tb, base+".input"), Expected: readSeries(tb, base+".expected")}
		if len(c.Inputs) > 0 && len(c.Expected) > 0 {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		tb.Fatalf("no models with inputs and expected outputs in %s (run go generate ./internal/testmodels)", dir)
	}
	return cases
}

// readSeries reads prefix.npy, or prefix0.npy, prefix1.npy, ...
func readSeries(tb testing.TB, prefix string) [][]float32 {
	one, err := readNpyF32(prefix + ".npy")
	if err == nil {
		return [][]float32{one}
	}
	require.ErrorIs(tb, err, os.ErrNotExist)
	var out [][]float32
	for i := 0; ; i++ {
		v, err := readNpyF32(prefix + strconv.Itoa(i) + ".npy")
		if errors.Is(err, os.ErrNotExist) {
			return out
		}
		require.NoError(tb, err)
		out = append(out, v)
	}
}

// SingleIO is the case the single-input tests use: the MLP.
func SingleIO(tb testing.TB) Case { return CaseNamed(tb, "mlp") }

// CaseNamed returns the case of testdata/models/name.nk.
func CaseNamed(tb testing.TB, name string) Case {
	tb.Helper()
	for _, c := range Cases(tb) {
		if c.Name == name {
			return c
		}
	}
	tb.Fatalf("testdata/models/%s.nk with its .npy files is missing", name)
	return Case{}
}

// ModelPath returns testdata/models/name.
func ModelPath(tb testing.TB, name string) string {
	return filepath.Join(ModuleRoot(tb), "testdata", "models", name)
}

// Outputs runs every case through Load and returns the outputs by case
// name, for comparing two bindings bit for bit.
func Outputs(t *testing.T, b Binding) map[string][][]float32 {
	out := map[string][][]float32{}
	for _, c := range Cases(t) {
		m, err := b.Load(c.Path)
		require.NoError(t, err, c.Name)
		out[c.Name] = runCase(t, m.RunMulti, m, c.Inputs)
		require.NoError(t, m.Close())
	}
	return out
}

// Run runs the whole suite against one binding.
func Run(t *testing.T, b Binding) {
	t.Run("ExpectedOutputs", func(t *testing.T) { testExpected(t, b) })
	t.Run("Inspect", func(t *testing.T) { testInspect(t, b) })
	t.Run("BindsInPlace", func(t *testing.T) { testInPlace(t, b) })
	t.Run("Metadata", func(t *testing.T) { testMetadata(t, b) })
	t.Run("ArenaBudget", func(t *testing.T) { testArenaBudget(t, b) })
	t.Run("ShapeErrors", func(t *testing.T) { testShapeErrors(t, b) })
	t.Run("CorruptImages", func(t *testing.T) { testCorrupt(t, b) })
	t.Run("UseAfterClose", func(t *testing.T) { testClosed(t, b) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, b) })
	t.Run("CloseWhileRunning", func(t *testing.T) { testCloseWhileRunning(t, b) })
	t.Run("DroppedWithoutClose", func(t *testing.T) { testDropped(t, b) })
	t.Run("Batch", func(t *testing.T) { testBatch(t, b) })
	t.Run("Profile", func(t *testing.T) { testProfile(t, b) })
	t.Run("SharedActivations", func(t *testing.T) { testShared(t, b) })
}

// testShared: every test model in one arena over one activation block
// (LoadShared), run in turn twice, each against PyTorch's outputs; the
// arena is smaller than the models' own arenas together, exactly sized
// (one byte less fails), and freed only when the last model closes.
func testShared(t *testing.T, b Binding) {
	cases := Cases(t)
	imgs := make([][]byte, len(cases))
	var alone int64
	for i, c := range cases {
		img, err := os.ReadFile(c.Path)
		require.NoError(t, err)
		imgs[i] = img
		r, err := b.InspectBytes(img)
		require.NoError(t, err)
		alone += r.ArenaAfterLoad
	}
	ms, err := engine.LoadShared(b.Open, imgs)
	require.NoError(t, err)
	require.Len(t, ms, len(cases))
	size := ms[0].ArenaBytes()
	assert.Less(t, size, alone, "one shared block instead of one per model")
	for round := range 2 {
		for i, c := range cases {
			got := runCase(t, ms[i].RunMulti, ms[i], c.Inputs)
			for o := range got {
				assertClose(t, c.Expected[o], got[o], fmt.Sprintf("%s round %d output %d", c.Name, round, o))
			}
		}
	}
	for _, m := range ms[1:] {
		require.NoError(t, m.Close())
	}
	// the first model still runs on the shared arena the others let go of
	c := cases[0]
	got := runCase(t, ms[0].RunMulti, ms[0], c.Inputs)
	assertClose(t, c.Expected[0], got[0], c.Name+" after the others closed")
	require.NoError(t, ms[0].Close())

	exact, err := engine.LoadShared(b.Open, imgs, engine.WithArenaSize(size))
	require.NoError(t, err, "exactly %d B loads", size)
	for _, m := range exact {
		require.NoError(t, m.Close())
	}
	_, err = engine.LoadShared(b.Open, imgs, engine.WithArenaSize(size-1))
	require.ErrorIs(t, err, engine.ErrArenaOverflow, "%d B does not", size-1)
	t.Logf("%d models shared: %d B; alone %d B together", len(cases), size, alone)
}

// runCase runs every whole input of the batches through run and returns
// the outputs concatenated per graph output.
func runCase(t *testing.T, run func(ins, outs [][]float32) error, m *engine.Model, batches [][]float32) [][]float32 {
	t.Helper()
	inInfo, outInfo := m.Inputs(), m.Outputs()
	require.Len(t, batches, len(inInfo), "one input batch per graph input")
	n := len(batches[0]) / inInfo[0].Elems()
	for i, b := range batches {
		require.Equal(t, n*inInfo[i].Elems(), len(b), "input %d: batch is not %d whole inputs", i, n)
	}
	got := make([][]float32, len(outInfo))
	for o := range got {
		got[o] = make([]float32, n*outInfo[o].Elems())
	}
	ins, outs := make([][]float32, len(inInfo)), make([][]float32, len(outInfo))
	for k := range n {
		for i := range ins {
			e := inInfo[i].Elems()
			ins[i] = batches[i][k*e : (k+1)*e]
		}
		for o := range outs {
			e := outInfo[o].Elems()
			outs[o] = got[o][k*e : (k+1)*e]
		}
		require.NoError(t, run(ins, outs))
	}
	return got
}

// single adapts a single-tensor Run to runCase.
func single(run func(in, out []float32) error) func(ins, outs [][]float32) error {
	return func(ins, outs [][]float32) error { return run(ins[0], outs[0]) }
}

// assertClose checks got against a float32 reference computed by PyTorch:
// float32 kernels may sum in another order, so allow a few ulps of the
// accumulated magnitude.
func assertClose(t *testing.T, want, got []float32, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	worst, at := 0.0, -1
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		d := math.Abs(w - g)
		if d > 1e-5+1e-4*math.Abs(w) && d > worst {
			worst, at = d, i
		}
	}
	if at >= 0 {
		t.Errorf("%s: output %d is %g, torch says %g (|diff| %g)", what, at, got[at], want[at], worst)
	}
}

func testExpected(t *testing.T, b Binding) {
	for _, c := range Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			m, err := b.Load(c.Path)
			require.NoError(t, err)
			defer m.Close()
			got := runCase(t, m.RunMulti, m, c.Inputs)
			require.Len(t, got, len(c.Expected), "one expected batch per graph output")
			for o := range got {
				assertClose(t, c.Expected[o], got[o], c.Name+" output "+strconv.Itoa(o))
			}

			// LoadBytes binds the same image: identical bits.
			img, err := os.ReadFile(c.Path)
			require.NoError(t, err)
			mb, err := b.LoadBytes(img)
			require.NoError(t, err)
			defer mb.Close()
			assert.Equal(t, got, runCase(t, mb.RunMulti, mb, c.Inputs), "LoadBytes vs Load")

			// A session runs the same kernels on other activations: identical bits.
			s, err := m.NewSession()
			require.NoError(t, err)
			defer s.Close()
			assert.Equal(t, got, runCase(t, s.RunMulti, m, c.Inputs), "Session vs Model")

			// RunRaw is the same call on bytes.
			raw := func(ins, outs [][]float32) error {
				rin, rout := make([][]byte, len(ins)), make([][]byte, len(outs))
				for i := range ins {
					rin[i] = nkfile.F32Bytes(ins[i])
				}
				for o := range outs {
					rout[o] = make([]byte, 4*len(outs[o]))
				}
				if err := s.RunRaw(rin, rout); err != nil {
					return err
				}
				for o := range outs {
					copy(outs[o], nkfile.BytesF32(rout[o]))
				}
				return nil
			}
			assert.Equal(t, got, runCase(t, raw, m, c.Inputs), "RunRaw vs RunMulti")

			if len(c.Inputs) != 1 || len(c.Expected) != 1 {
				assert.ErrorIs(t, m.Run(make([]float32, 1), make([]float32, 1)), engine.ErrArg, "Run needs one input and output")
				return
			}
			assert.Equal(t, got, runCase(t, single(m.Run), m, c.Inputs), "Run vs RunMulti")
			assert.Equal(t, got, runCase(t, single(s.Run), m, c.Inputs), "Session.Run vs RunMulti")
			p, err := m.Predict(c.Inputs[0][:m.Inputs()[0].Elems()])
			require.NoError(t, err)
			assert.Equal(t, got[0][:len(p)], p)
		})
	}
}

func testInspect(t *testing.T, b Binding) {
	for _, c := range Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			r, err := b.Inspect(c.Path)
			require.NoError(t, err)
			img, err := os.ReadFile(c.Path)
			require.NoError(t, err)
			rb, err := b.InspectBytes(img)
			require.NoError(t, err)
			assert.Equal(t, r, rb, "Inspect and InspectBytes")

			assert.Equal(t, int64(len(img)), r.FileBytes)
			assert.Equal(t, r.ArenaAfterLoad, r.ArenaAfterForward, "invoke never allocates")
			assert.Equal(t, r.ArenaAfterLoad, r.BytesStructs+r.BytesActivations+r.BytesIO+
				r.BytesWorkspace+r.BytesCopiedWeights+r.BytesPadding, "the breakdown sums to the total")
			// only an op whose output overlaps its dying input (in place 2,
			// docs/MEMORY.md) takes the plan below the lower bound
			overlaps := false
			for _, op := range r.Ops {
				overlaps = overlaps || op.InPlace
			}
			if !overlaps {
				assert.LessOrEqual(t, r.ActivationLowerBound, r.PeakActivations)
			}
			// One row per op of the file, in its order, named as the file
			// names it, with the writer's op kind.
			nm, err := nkfile.Decode(img)
			require.NoError(t, err)
			require.Len(t, r.Ops, len(nm.Ops))
			for i, op := range r.Ops {
				assert.Equal(t, i, op.Index)
				name := nm.Ops[i].Name
				name = name[:min(len(name), len(engine.COpInfo{}.Name)-1)] // truncated as netkit.h says
				assert.Equal(t, name, op.Name, "op %d", i)
				assert.Equal(t, nm.Ops[i].Type.String(), op.Op, "op %d", i)
			}

			m, err := b.Load(c.Path)
			require.NoError(t, err)
			defer m.Close()
			rl, err := m.Report()
			require.NoError(t, err)
			assert.Equal(t, rl.ArenaAfterLoad, m.ArenaBytes(),
				"Load sizes the arena exactly (for its load mode: a mapped file folds batch-norm in place)")
			mb, err := b.LoadBytes(img)
			require.NoError(t, err)
			defer mb.Close()
			assert.Equal(t, r.ArenaAfterLoad, mb.ArenaBytes(), "LoadBytes sizes the arena exactly")
			assert.Equal(t, m.Inputs(), r.Inputs)
			assert.Equal(t, m.Outputs(), r.Outputs)
			var io int64
			for _, ti := range append(m.Inputs(), m.Outputs()...) {
				io += int64(ti.Bytes()+15) &^ 15
			}
			assert.LessOrEqual(t, r.BytesIO, io, "I/O slots, aliased ones counted once")
			assert.Positive(t, r.BytesIO)
			_, ok := m.Meta("no such key")
			assert.False(t, ok)
		})
	}
}

// testInPlace: LoadBytes binds weights in the caller's slice (writing the
// slice after load changes the result) unless the slice is misaligned, in
// which case it works on an aligned copy.
func testInPlace(t *testing.T, b Binding) {
	c := SingleIO(t)
	img, err := os.ReadFile(c.Path)
	require.NoError(t, err)
	x := c.Inputs[0][:64]
	want, err := predictBytes(b, img, x)
	require.NoError(t, err)

	// fc2.bias[7] += 100 pushes the softmax onto class 7.
	boost := func(img []byte) {
		nm, err := nkfile.Decode(img)
		require.NoError(t, err)
		for _, tn := range nm.Tensors {
			if tn.Name == "fc2.bias" {
				v := nkfile.BytesF32(tn.Data)
				v[7] += 100
				copy(tn.Data, nkfile.F32Bytes(v)) // tn.Data aliases img
				return
			}
		}
		t.Fatal("mlp.nk has no fc2.bias")
	}

	m, err := b.LoadBytes(img)
	require.NoError(t, err)
	defer m.Close()
	r, err := m.Report()
	require.NoError(t, err)
	packed := false
	for _, op := range r.Ops {
		packed = packed || (op.Name == "fc2" && !ownKernels(op.Impl))
	}
	boost(img)
	got, err := m.Predict(x)
	require.NoError(t, err)
	if packed {
		// a vendor backend (XNNPACK) packed fc2's weights and bias at load,
		// on the host heap it reports: later writes to the image are not seen
		assert.Positive(t, r.BackendHeapBytes)
		assert.Equal(t, want, got, "the backend runs the weights it packed at load")
	} else {
		assert.InDelta(t, 1, got[7], 1e-6, "the model reads the caller's bytes")
		assert.NotEqual(t, want, got)
	}

	img, err = os.ReadFile(c.Path)
	require.NoError(t, err)
	buf := make([]byte, len(img)+1)
	mis := buf[1:]
	copy(mis, img)
	mm, err := b.LoadBytes(mis)
	require.NoError(t, err, "a misaligned slice is copied, not refused")
	defer mm.Close()
	boost(mis)
	got, err = mm.Predict(x)
	require.NoError(t, err)
	assert.Equal(t, want, got, "the model reads its aligned copy")
}

func predictBytes(b Binding, img []byte, x []float32) ([]float32, error) {
	m, err := b.LoadBytes(img)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return m.Predict(x)
}

// testMetadata reads what internal/testmodels wrote into mlp.nk.
func testMetadata(t *testing.T, b Binding) {
	m, err := b.Load(SingleIO(t).Path)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}, m.Labels())
	v, ok := m.Meta("producer")
	assert.True(t, ok)
	assert.Equal(t, "netkit testmodels", v)
	assert.Equal(t, []engine.TensorInfo{{Name: "input", Shape: []int{1, 64}, DType: engine.F32}}, m.Inputs())
	assert.Equal(t, 10, m.Outputs()[0].Elems())
}

// testArenaBudget: an arena of exactly the measured size loads, one byte
// less fails with the figures, for a buffer and for a mapped file.
// fileArena is the arena a file load takes as the model reports it (mapped:
// no batch-norm copies; read: the image too).
func fileArena(t *testing.T, b Binding, path string) int64 {
	m, err := b.Load(path)
	require.NoError(t, err)
	defer m.Close()
	r, err := m.Report()
	require.NoError(t, err)
	return r.ArenaAfterLoad
}

func testArenaBudget(t *testing.T, b Binding) {
	for _, c := range Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			r, err := b.Inspect(c.Path)
			require.NoError(t, err)
			img, err := os.ReadFile(c.Path)
			require.NoError(t, err)
			for _, tc := range []struct {
				name string
				size int64
				load func(engine.Option) (*engine.Model, error)
			}{
				{"LoadBytes", r.ArenaAfterLoad, func(o engine.Option) (*engine.Model, error) { return b.LoadBytes(img, o) }},
				{"Load", fileArena(t, b, c.Path), func(o engine.Option) (*engine.Model, error) { return b.Load(c.Path, o) }},
			} {
				m, err := tc.load(engine.WithArenaSize(tc.size))
				require.NoError(t, err, "%s: exactly the measured size fits", tc.name)
				assert.Equal(t, tc.size, m.ArenaBytes())
				require.NoError(t, m.Close())

				_, err = tc.load(engine.WithArenaSize(tc.size - 1))
				require.ErrorIs(t, err, engine.ErrArenaOverflow, "%s: one byte less does not", tc.name)
				var e *engine.Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, tc.size-1, e.Capacity)
				assert.Greater(t, e.Requested, e.Free, "the failing request did not fit in what was free")
				assert.Less(t, e.Free, e.Capacity)
				assert.Contains(t, e.Message, "arena overflow")
				assert.Contains(t, e.Message, strconv.FormatInt(e.Requested, 10)+" B", "the message says how big")
			}
		})
	}
	_, err := b.LoadBytes(make([]byte, 64), engine.WithArenaSize(-5))
	assert.ErrorIs(t, err, engine.ErrArg)
}

func testShapeErrors(t *testing.T, b Binding) {
	c := SingleIO(t)
	m, err := b.Load(c.Path)
	require.NoError(t, err)
	defer m.Close()
	inN, outN := m.Inputs()[0].Elems(), m.Outputs()[0].Elems()
	in, out := make([]float32, inN), make([]float32, outN)
	s, err := m.NewSession()
	require.NoError(t, err)
	defer s.Close()

	for _, run := range []func(in, out []float32) error{m.Run, s.Run} {
		err = run(in[:inN-1], out)
		assert.ErrorIs(t, err, engine.ErrShape, "short input")
		err = run(append(in, 0), out)
		assert.ErrorIs(t, err, engine.ErrShape, "long input")
		err = run(in, out[:outN-1])
		assert.ErrorIs(t, err, engine.ErrShape, "short output")
		require.NoError(t, run(in, out))
	}
	var e *engine.Error
	require.ErrorAs(t, m.Run(in[:1], out), &e)
	assert.Equal(t, -1, e.Op)

	assert.ErrorIs(t, m.RunMulti([][]float32{in, in}, [][]float32{out}), engine.ErrArg, "two inputs for one")
	assert.ErrorIs(t, m.RunRaw([][]byte{make([]byte, 4*inN-1)}, [][]byte{make([]byte, 4*outN)}), engine.ErrShape)
	_, err = m.Predict(in[:2])
	assert.ErrorIs(t, err, engine.ErrShape)
}

func testCorrupt(t *testing.T, b Binding) {
	c := SingleIO(t)
	img, err := os.ReadFile(c.Path)
	require.NoError(t, err)
	mutate := func(f func([]byte) []byte) []byte { return f(slices.Clone(img)) }
	for _, tc := range []struct {
		name string
		img  []byte
		want error
	}{
		{"bit flip in the payload", mutate(func(b []byte) []byte { b[len(b)-3] ^= 0x10; return b }), engine.ErrChecksum},
		{"truncated", img[:len(img)/2], engine.ErrFormat},
		{"bad magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b }), engine.ErrFormat},
		{"major version 2", mutate(func(b []byte) []byte { b[4] = 2; return b }), engine.ErrVersion},
		{"header only", img[:32], engine.ErrFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.LoadBytes(tc.img)
			assert.ErrorIs(t, err, tc.want)
			var e *engine.Error
			if assert.ErrorAs(t, err, &e) {
				assert.NotEmpty(t, e.Message)
			}
			_, err = b.LoadBytes(tc.img, engine.WithArenaSize(1<<20))
			assert.ErrorIs(t, err, tc.want, "with a budget (the C loader decides)")
			_, err = b.InspectBytes(tc.img)
			assert.ErrorIs(t, err, tc.want)
		})
	}
	_, err = b.LoadBytes(nil)
	assert.ErrorIs(t, err, engine.ErrArg)
	_, err = b.Load(filepath.Join(t.TempDir(), "missing.nk"))
	assert.ErrorIs(t, err, engine.ErrIO)
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = b.Load(filepath.Join(t.TempDir(), "missing.nk"), engine.WithArenaSize(1<<20))
	assert.ErrorIs(t, err, engine.ErrIO, "the C loader reports a missing file")
}

func testClosed(t *testing.T, b Binding) {
	c := SingleIO(t)
	m, err := b.Load(c.Path)
	require.NoError(t, err)
	in, out := make([]float32, m.Inputs()[0].Elems()), make([]float32, m.Outputs()[0].Elems())
	s1, err := m.NewSession()
	require.NoError(t, err)
	s2, err := m.NewSession()
	require.NoError(t, err)

	require.NoError(t, s1.Close())
	assert.ErrorIs(t, s1.Run(in, out), engine.ErrClosed)
	assert.ErrorIs(t, s1.Close(), engine.ErrClosed)
	require.NoError(t, s2.Run(in, out), "closing one session leaves the others")

	require.NoError(t, m.Close())
	assert.ErrorIs(t, m.Close(), engine.ErrClosed)
	assert.ErrorIs(t, m.Run(in, out), engine.ErrClosed)
	_, err = m.Predict(in)
	assert.ErrorIs(t, err, engine.ErrClosed)
	assert.ErrorIs(t, m.RunMulti([][]float32{in}, [][]float32{out}), engine.ErrClosed)
	assert.ErrorIs(t, m.RunRaw([][]byte{nkfile.F32Bytes(in)}, [][]byte{make([]byte, 4*len(out))}), engine.ErrClosed)
	_, err = m.NewSession()
	assert.ErrorIs(t, err, engine.ErrClosed)
	_, ok := m.Meta("labels")
	assert.False(t, ok)
	assert.Nil(t, m.Labels())
	assert.NotEmpty(t, m.Inputs(), "descriptions stay readable")

	// Closing the model closed its open session.
	assert.ErrorIs(t, s2.Run(in, out), engine.ErrClosed)
	_, err = s2.Predict(in)
	assert.ErrorIs(t, err, engine.ErrClosed)
	assert.ErrorIs(t, s2.Close(), engine.ErrClosed)
	assert.ErrorIs(t, err, engine.ErrState)
}

// testConcurrent: 8 goroutines x 1000 runs over one model, each on its own
// Session, plus goroutines sharing the Model's default context; every
// output must equal the serial run's bits.
func testConcurrent(t *testing.T, b Binding) {
	c := CaseNamed(t, "cnn") // real work per run, in-place ops, a residual add
	m, err := b.Load(c.Path)
	require.NoError(t, err)
	defer m.Close()
	inN, outN := m.Inputs()[0].Elems(), m.Outputs()[0].Elems()
	inputs := variants(c.Inputs[0][:inN], 16)
	serial := make([][]float32, len(inputs))
	for i, in := range inputs {
		serial[i], err = m.Predict(in)
		require.NoError(t, err)
	}
	const goroutines, runs = 8, 1000
	var wg sync.WaitGroup
	errs := make(chan error, goroutines+2)
	mismatch := make(chan int, goroutines+2)
	worker := func(g int, run func(in, out []float32) error, n int) {
		defer wg.Done()
		out := make([]float32, outN)
		for r := range n {
			k := (g*7 + r) % len(inputs)
			if err := run(inputs[k], out); err != nil {
				errs <- err
				return
			}
			if !slices.Equal(out, serial[k]) {
				mismatch <- k
				return
			}
		}
	}
	for g := range goroutines {
		s, err := m.NewSession()
		require.NoError(t, err)
		defer s.Close()
		wg.Add(1)
		go worker(g, s.Run, runs)
	}
	for g := range 2 { // the shared default context, serialized by the model
		wg.Add(1)
		go worker(goroutines+g, m.Run, runs/5)
	}
	wg.Wait()
	close(errs)
	close(mismatch)
	for err := range errs {
		t.Error(err)
	}
	for k := range mismatch {
		t.Errorf("input variant %d gave other bits than the serial run", k)
	}
}

// testCloseWhileRunning: closing a model while goroutines run it and its
// sessions (each has finished a run) makes their calls fail with ErrClosed,
// never crash.
func testCloseWhileRunning(t *testing.T, b Binding) {
	c := CaseNamed(t, "cnn")
	m, err := b.Load(c.Path)
	require.NoError(t, err)
	in := c.Inputs[0][:m.Inputs()[0].Elems()]
	const runners = 4
	var done, running sync.WaitGroup
	running.Add(runners)
	var mu sync.Mutex
	var ok, closed int
	run := func(run func(in, out []float32) error) {
		defer done.Done()
		out := make([]float32, 10)
		for first := true; ; first = false {
			err := run(in, out)
			mu.Lock()
			if err == nil {
				ok++
			} else {
				closed++
			}
			mu.Unlock()
			if first {
				assert.NoError(t, err, "a run before Close")
				running.Done()
			}
			if err != nil {
				assert.ErrorIs(t, err, engine.ErrClosed)
				return
			}
		}
	}
	for range runners - 1 {
		s, err := m.NewSession()
		require.NoError(t, err)
		done.Add(1)
		go run(s.Run)
	}
	done.Add(1)
	go run(m.Run)
	running.Wait()
	require.NoError(t, m.Close())
	done.Wait()
	assert.Equal(t, runners, closed, "every runner saw ErrClosed")
	assert.GreaterOrEqual(t, ok, runners, "every runner ran before Close")
}

// testDropped: a Model and its Sessions dropped without Close are released
// by their cleanups, every C arena freed once, and a Session keeps its Model
// alive after the caller dropped the Model: the Model's cleanup does not run
// and the Session still computes the Model's output. The arenas are counted
// through the binding's backend, under the shared engine.
func testDropped(t *testing.T, b Binding) {
	require.NotNil(t, b.Open, "the binding's opener, to count its arenas")
	c := SingleIO(t)
	img, err := os.ReadFile(c.Path)
	require.NoError(t, err)
	in := c.Inputs[0][:64]
	want, err := predictBytes(b, img, in)
	require.NoError(t, err)

	count := newArenaCount()
	open := count.opener(b.Open)
	load := func() *engine.Model {
		m, err := engine.LoadBytes(open, img)
		require.NoError(t, err)
		return m
	}

	// Three models with a session each, none closed: six arenas.
	for range 3 {
		_, err := load().NewSession()
		require.NoError(t, err)
	}
	allocs, _ := count.report()
	require.Equal(t, 6, allocs)
	require.True(t, collectUntil(func() bool { return count.live() == 0 }),
		"%d of 6 arenas still live: dropped models and sessions were not released", count.live())

	// A session dropped while the caller keeps its model: its own cleanup
	// frees its arena (the model's would only run at the model's end).
	m := load()
	_, err = m.NewSession()
	require.NoError(t, err)
	require.True(t, collectUntil(func() bool { return count.live() == 1 }),
		"%d arenas live: a dropped session of a live model was not released", count.live())
	require.NoError(t, m.Close())
	assert.Zero(t, count.live())

	// A session whose model the caller dropped, and a dropped control model
	// whose release shows that cleanups have been running.
	orphan := func() *engine.Session {
		s, err := load().NewSession()
		require.NoError(t, err)
		return s
	}()
	load()
	require.True(t, collectUntil(func() bool { return count.live() <= 2 }), "the control model is released")
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, 2, count.live(), "the session keeps its model's arena (and its own)")
	got := make([]float32, len(want))
	require.NoError(t, orphan.Run(in, got), "the session's model must not be cleaned up")
	assert.Equal(t, want, got)

	// Now the session is dropped too: both arenas go.
	require.True(t, collectUntil(func() bool { return count.live() == 0 }),
		"%d arenas still live after the session was dropped", count.live())
	allocs, strange := count.report()
	assert.Equal(t, 11, allocs)
	assert.Empty(t, strange)
}

// SessionRunAllocs returns the Go allocations of one Session.Run.
func SessionRunAllocs(t *testing.T, b Binding) float64 {
	c := SingleIO(t)
	m, err := b.Load(c.Path)
	require.NoError(t, err)
	defer m.Close()
	s, err := m.NewSession()
	require.NoError(t, err)
	defer s.Close()
	in, out := c.Inputs[0][:m.Inputs()[0].Elems()], make([]float32, m.Outputs()[0].Elems())
	return testing.AllocsPerRun(200, func() {
		if err := s.Run(in, out); err != nil {
			t.Fatal(err)
		}
	})
}

// variants returns n distinct inputs derived from in.
func variants(in []float32, n int) [][]float32 {
	out := make([][]float32, n)
	for k := range out {
		v := make([]float32, len(in))
		for i, x := range in {
			v[i] = x*float32(1+k)/4 - float32(k%3)*0.1
		}
		out[k] = v
	}
	return out
}

// ownKernels: the op runs on netkit's kernels (portable or a host SIMD set,
// which packs a dense layer's weights but reads its bias in place), not on
// a vendor backend.
func ownKernels(impl string) bool {
	switch impl {
	case "portable", "avx2", "avx512", "avx512vnni", "neon":
		return true
	}
	return false
}
