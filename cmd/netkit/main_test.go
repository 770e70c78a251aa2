package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
)

var models = filepath.Join("..", "..", "testdata", "models")

func model(name string) string { return filepath.Join(models, name) }

func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func readNpy(t *testing.T, path string) *npy.Array {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a, err := npy.Read(f)
	require.NoError(t, err)
	return a
}

func f32(t *testing.T, a *npy.Array) []float32 {
	t.Helper()
	v, err := a.F32()
	require.NoError(t, err)
	return v
}

func assertClose(t *testing.T, want, got []float32, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-5, "%s[%d]", what, i)
	}
}

// The CLI's outputs match PyTorch's (testdata/gen/reference_outputs.py)
// within 1e-5 for every test model, through .npy and raw files.
func TestRunMatchesTorch(t *testing.T) {
	for _, name := range []string{"mlp", "cnn", "tiny_relu"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.npy")
			code, stdout, stderr := cli(t, "run", model(name+".nk"), "--input", model(name+".input.npy"), "--output", out)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "time per inference")
			want := readNpy(t, model(name+".expected.npy"))
			got := readNpy(t, out)
			assert.Equal(t, want.Shape, got.Shape)
			assertClose(t, f32(t, want), f32(t, got), name)
		})
	}
	t.Run("branch", func(t *testing.T) {
		dir := t.TempDir()
		out0, out1 := filepath.Join(dir, "z.npy"), filepath.Join(dir, "pool.bin")
		code, _, stderr := cli(t, "run", model("branch.nk"),
			"--input", model("branch.input0.npy"), "--input", model("branch.input1.npy"),
			"--output", out0, "--output", out1)
		require.Equal(t, 0, code, stderr)
		assertClose(t, f32(t, readNpy(t, model("branch.expected0.npy"))), f32(t, readNpy(t, out0)), "z")
		raw, err := os.ReadFile(out1)
		require.NoError(t, err)
		assertClose(t, f32(t, readNpy(t, model("branch.expected1.npy"))), nkfile.BytesF32(raw), "pool")
	})
}

func TestRunRawInput(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.f32"), filepath.Join(dir, "out.f32")
	require.NoError(t, os.WriteFile(in, readNpy(t, model("cnn.input.npy")).Data, 0o644))
	code, _, stderr := cli(t, "run", model("cnn.nk"), "--input", in, "--output", out)
	require.Equal(t, 0, code, stderr)
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	assertClose(t, f32(t, readNpy(t, model("cnn.expected.npy"))), nkfile.BytesF32(raw), "cnn raw")
}

// The top-K lines name the classes PyTorch ranks highest, with the labels
// the MLP carries ("zero".."nine").
func TestRunTopKWithLabels(t *testing.T) {
	labels := strings.Fields("zero one two three four five six seven eight nine")
	want := f32(t, readNpy(t, model("mlp.expected.npy")))
	code, stdout, stderr := cli(t, "run", model("mlp.nk"), "--input", model("mlp.input.npy"), "--top", "3")
	require.Equal(t, 0, code, stderr)
	for s := range 3 {
		row := want[10*s : 10*s+10]
		idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
		sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
		var parts []string
		for _, c := range idx[:3] {
			parts = append(parts, fmt.Sprintf("%s %.4f", labels[c], row[c]))
		}
		assert.Contains(t, stdout, fmt.Sprintf("[%d] %s\n", s, strings.Join(parts, ", ")))
	}
}

func withoutTiming(s string) string {
	return regexp.MustCompile(`time per inference: .*`).ReplaceAllString(s, "")
}

func TestRunRandomInputIsDeterministic(t *testing.T) {
	code, a, stderr := cli(t, "run", model("branch.nk"))
	require.Equal(t, 0, code, stderr)
	_, b, _ := cli(t, "run", model("branch.nk"))
	assert.Equal(t, withoutTiming(a), withoutTiming(b))
	assert.Contains(t, a, "pseudo-random")
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	odd := write("odd.f32", make([]byte, 64*4+4))
	var nchw bytes.Buffer
	require.NoError(t, npy.Write(&nchw, npy.FromF32([]int{1, 3, 16, 16}, make([]float32, 768))))
	nchwFile := write("nchw.npy", nchw.Bytes())
	var i8 bytes.Buffer
	require.NoError(t, npy.Write(&i8, &npy.Array{Descr: npy.I8, Shape: []int{64}, Data: make([]byte, 64)}))
	i8file := write("i8.npy", i8.Bytes())
	img, err := os.ReadFile(model("mlp.nk"))
	require.NoError(t, err)
	img[len(img)-3] ^= 0x40
	corrupt := write("corrupt.nk", img)
	twoX := write("x2.f32", make([]byte, 2*8*8*4*4))
	threeY := write("y3.f32", make([]byte, 3*4*4))

	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"partial input", []string{"run", model("mlp.nk"), "--input", odd}, 1, "not a whole number of [1 64] f32 inputs"},
		{"layout", []string{"run", model("cnn.nk"), "--input", nchwFile}, 1, "has shape [1 3 16 16], which is not a batch of [1 16 16 3] inputs"},
		{"dtype", []string{"run", model("mlp.nk"), "--input", i8file}, 1, "holds |i1, the input is f32"},
		{"missing input file", []string{"run", model("mlp.nk"), "--input", filepath.Join(dir, "nope.npy")}, 1, "no such file"},
		{"missing model", []string{"run", filepath.Join(dir, "nope.nk")}, 1, "nope.nk"},
		{"corrupt model", []string{"run", corrupt}, 1, "checksum"},
		{"arena too small", []string{"run", model("cnn.nk"), "--arena", "4K"}, 1, "arena overflow"},
		{"batch mismatch", []string{"run", model("branch.nk"), "--input", twoX, "--input", threeY}, 1, "holds 3 inputs"},
		{"input count", []string{"run", model("branch.nk"), "--input", twoX}, 2, "has 2 inputs, --input was given 1 times"},
		{"output count", []string{"run", model("mlp.nk"), "--output", "a.npy", "--output", "b.npy"}, 2, "has 1 outputs"},
		{"bad size", []string{"run", model("mlp.nk"), "--arena", "12Q"}, 2, "bad size"},
		{"bad top", []string{"run", model("mlp.nk"), "--top", "0"}, 2, "--top"},
		{"unknown flag", []string{"run", model("mlp.nk"), "--bogus"}, 2, "bogus"},
		{"no model", []string{"run"}, 2, "want one MODEL"},
		{"inspect no model", []string{"inspect"}, 2, "want one MODEL"},
		{"inspect corrupt", []string{"inspect", corrupt}, 1, "checksum"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"no command", nil, 2, "no command"},
		{"help unknown", []string{"help", "nope"}, 2, "unknown command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, c.args...)
			assert.Equal(t, c.code, code, "stdout %q stderr %q", stdout, stderr)
			assert.Contains(t, stderr, c.msg)
			if c.code == 2 && len(c.args) > 0 && commands[c.args[0]] != nil {
				assert.Contains(t, stderr, "usage: netkit "+c.args[0])
			}
		})
	}
}

var declareRE = regexp.MustCompile(`declare: static uint8_t arena\[(\d+)\] __attribute__\(\(aligned\(16\)\)\);`)

// The arena size inspect tells firmware to declare is exact: a run with
// that budget loads, one byte less does not. (The file is loaded through
// a private mapping, so models without load-time weight copies need the
// same bytes as a firmware buffer load.)
func TestInspectDeclaredArenaIsExact(t *testing.T) {
	for _, name := range []string{"mlp", "branch", "tiny_relu"} {
		code, stdout, stderr := cli(t, "inspect", model(name+".nk"))
		require.Equal(t, 0, code, stderr)
		m := declareRE.FindStringSubmatch(stdout)
		require.NotNil(t, m, stdout)
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		code, _, stderr = cli(t, "run", model(name+".nk"), "--arena", m[1])
		assert.Equal(t, 0, code, "%s with %d B: %s", name, n, stderr)
		code, _, stderr = cli(t, "run", model(name+".nk"), "--arena", strconv.Itoa(n-1))
		assert.Equal(t, 1, code, "%s with %d B", name, n-1)
		assert.Contains(t, stderr, "arena overflow")
	}
}

// Figures checked against the file itself and hand arithmetic.
func TestInspectJSON(t *testing.T) {
	code, stdout, stderr := cli(t, "inspect", "--json", "--full", model("mlp.nk"))
	require.Equal(t, 0, code, stderr)
	var r jsonReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	st, err := os.Stat(model("mlp.nk"))
	require.NoError(t, err)
	assert.Equal(t, st.Size(), r.FileBytes)
	// Weights (64*32 + 32 + 32*10 + 10) f32 = 9640 B, all bound in place.
	assert.Equal(t, int64(9640), r.FlashPayload)
	assert.Equal(t, int64(9640), r.ParamBytes)
	assert.Equal(t, []jsonTensor{{Name: "input", Shape: []int{1, 64}, DType: "f32", Layout: "native"}}, r.Inputs)
	assert.Equal(t, []jsonTensor{{Name: "softmax", Shape: []int{1, 10}, DType: "f32", Layout: "native"}}, r.Outputs)
	require.Len(t, r.Ops, 3)
	assert.Equal(t, []string{"dense", "dense", "softmax"}, []string{r.Ops[0].Op, r.Ops[1].Op, r.Ops[2].Op})
	assert.Equal(t, []string{"fc1", "fc2", "softmax"}, []string{r.Ops[0].Name, r.Ops[1].Name, r.Ops[2].Name})
	assert.Equal(t, int64(64*32), r.Ops[0].MACs)
	// the dense layers run on the build's backend when it has one; softmax
	// always on netkit's kernels: the host ISA set the load picked (the one
	// NETKIT_HOST_ISA forces), or portable
	own := r.Ops[2].Impl
	assert.Contains(t, []string{"portable", "avx2", "avx512", "avx512vnni", "neon"}, own)
	if isa := os.Getenv("NETKIT_HOST_ISA"); isa != "" {
		assert.Equal(t, isa, own)
	}
	dense := own
	if nk.KernelBackend != "" {
		dense = nk.KernelBackend
	}
	assert.Equal(t, []string{dense, dense, own}, []string{r.Ops[0].Impl, r.Ops[1].Impl, r.Ops[2].Impl})
	assert.Equal(t, []int{1, 32}, r.Ops[0].OutShape)
	b := r.Breakdown
	assert.Equal(t, r.ArenaAfterLoad, b.Structs+b.Activations+b.IO+b.Workspace+b.CopiedWeights+b.Padding)
	assert.Equal(t, declareLine(&nk.Report{ArenaAfterLoad: r.ArenaAfterLoad}, nil), r.Declare)

	// Without --full there is no op list.
	_, stdout, _ = cli(t, "inspect", model("mlp.nk"), "--json")
	assert.NotContains(t, stdout, `"ops"`)
}

func TestInspectTableFull(t *testing.T) {
	// the hand-computed figure below is the portable kernels'; the host
	// SIMD kernels add their packed weights, which depend on the ISA
	t.Setenv("NETKIT_HOST_ISA", "portable")
	// the hand-computed figure below is the portable kernels'; the host
	// SIMD kernels add their packed weights, which depend on the ISA
	t.Setenv("NETKIT_HOST_ISA", "portable")
	img, err := os.ReadFile(model("cnn.nk"))
	require.NoError(t, err)
	m, err := nkfile.Decode(img)
	require.NoError(t, err)
	code, stdout, stderr := cli(t, "inspect", model("cnn.nk"), "--full")
	require.Equal(t, 0, code, stderr)
	for _, label := range []string{"arena after load", "arena after forward", "workspace", "flash payload", "arena breakdown", "copied weights"} {
		assert.Contains(t, stdout, label)
	}
	for i, op := range m.Ops {
		assert.Regexp(t, fmt.Sprintf(`(?m)^\s+%d\s+%s\s+%s\s`, i, op.Type, regexp.QuoteMeta(op.Name)), stdout)
	}
	assert.Regexp(t, declareRE, stdout)
	// The unfolded batch norm is folded at load into a copy of the weights
	// when the image is a read-only buffer: 8 channels x 3x3 depthwise
	// weights + 8 biases = 80 f32 = 320 B.
	assert.Regexp(t, `copied weights\s+320 B`, stdout)
}

func TestHelp(t *testing.T) {
	code, stdout, _ := cli(t, "help")
	assert.Equal(t, 0, code)
	for _, c := range []string{"run", "inspect", "help"} {
		assert.Regexp(t, `(?m)^  `+c+`\s`, stdout)
	}
	code, stdout, _ = cli(t, "help", "run")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "usage: netkit run MODEL [--input FILE]... [--output FILE]... [--arena SIZE] [--top K]")
	assert.Contains(t, stdout, "-arena SIZE")
	code, stdout, _ = cli(t, "inspect", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "usage: netkit inspect MODEL [--full] [--json]")
	code, stdout, _ = cli(t, "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "commands:")
}

func TestBench(t *testing.T) {
	code, stdout, stderr := cli(t, "bench", model("mlp.nk"), "--n", "10", "--time", "10s")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `(?m)^runs\s+10 in `, stdout)
	assert.Regexp(t, `(?m)^compute\s+[0-9.]+ GMAC/s`, stdout)
	code, _, stderr = cli(t, "bench", model("mlp.nk"), "--n", "3")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--n must be >= 10")
	code, _, stderr = cli(t, "bench", model("cnn.nk"), "--arena", "2K", "--n", "10")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "arena overflow")
}

func TestBatchOf(t *testing.T) {
	assert.True(t, batchOf([]int{3, 1, 64}, []int{1, 64}))
	assert.True(t, batchOf([]int{3, 64}, []int{1, 64}))
	assert.True(t, batchOf([]int{64}, []int{1, 64}))
	assert.True(t, batchOf([]int{2, 16, 16, 3}, []int{1, 16, 16, 3}))
	assert.False(t, batchOf([]int{1, 3, 16, 16}, []int{1, 16, 16, 3}))
	assert.False(t, batchOf([]int{64, 3}, []int{1, 64}))
	assert.False(t, batchOf([]int{32}, []int{1, 64}))
}

func TestParseInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	var in listFlag
	fs.Var(&in, "input", "")
	top := fs.Int("top", 0, "")
	pos, err := parseInterspersed(fs, []string{"a.nk", "--input", "1", "-top=3", "b", "--input", "2", "--", "--input"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a.nk", "b", "--input"}, pos)
	assert.Equal(t, listFlag{"1", "2"}, in)
	assert.Equal(t, 3, *top)
}
