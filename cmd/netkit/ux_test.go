package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/nk/npy"
)

// headerDefine reads a #define from include/netkit.h, the reference the
// CLI's version output must agree with.
func headerDefine(t *testing.T, name string) string {
	h, err := os.ReadFile(filepath.Join("..", "..", "include", "netkit.h"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^#define ` + name + ` (\S+)`).FindSubmatch(h)
	require.NotNil(t, m, name)
	return strings.TrimSuffix(strings.Trim(string(m[1]), `"`), "u")
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := cli(t, "version")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `(?m)^netkit CLI \S+ \(built with go1\.`, stdout)
	assert.Contains(t, stdout, "C core     "+headerDefine(t, "NK_VERSION_STRING")+"\n")
	assert.Contains(t, stdout, "ABI        "+headerDefine(t, "NK_ABI_VERSION")+"\n")
	code, _, stderr = cli(t, "version", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "takes no arguments")
}

// --output - and -o - put the data on stdout, byte for byte what a file
// gets, and the report on stderr.
func TestOutputToStdout(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out.bin")
	code, _, stderr := cli(t, "run", model("mlp.nk"), "--input", model("mlp.input.npy"), "--output", file)
	require.Equal(t, 0, code, stderr)
	want, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NotEmpty(t, want)
	code, stdout, stderr := cli(t, "run", model("mlp.nk"), "--input", model("mlp.input.npy"), "--output", "-")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, []byte(stdout))
	assert.Contains(t, stderr, "time per inference")
	_, err = os.Stat("-")
	assert.True(t, os.IsNotExist(err), "a file named - was written")

	code, _, stderr = cli(t, "run", model("branch.nk"), "--output", "-", "--output", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "may be given once")

	onnxModel := filepath.Join("..", "..", "testdata", "fashion", "mlp.onnx")
	nkFile := filepath.Join(dir, "mlp.nk")
	code, _, stderr = cli(t, "convert", onnxModel, "-o", nkFile)
	require.Equal(t, 0, code, stderr)
	want, err = os.ReadFile(nkFile)
	require.NoError(t, err)
	code, stdout, stderr = cli(t, "convert", onnxModel, "-o", "-")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, []byte(stdout))
	assert.Contains(t, stderr, "arena after load")
}

func TestTopExceedsClasses(t *testing.T) {
	code, stdout, stderr := cli(t, "run", model("mlp.nk"), "--top", "1000")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `--top 1000: "softmax" has 10 classes; showing all 10`)
	assert.Regexp(t, `\[0\]( \S+ [0-9.]+,){9} \S+ [0-9.]+\n`, stdout)
	code, stdout, _ = cli(t, "run", model("mlp.nk"), "--top", "3")
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "--top")
}

func TestConvertLabelsCount(t *testing.T) {
	dir := t.TempDir()
	onnxModel := filepath.Join("..", "..", "testdata", "fashion", "mlp.onnx")
	labels := filepath.Join(dir, "labels.txt")
	require.NoError(t, os.WriteFile(labels, []byte("a\nb\nc\n"), 0o644))
	out := filepath.Join(dir, "m.nk")
	code, _, stderr := cli(t, "convert", onnxModel, "-o", out, "--labels", labels)
	assert.Equal(t, 1, code)
	assert.Equal(t, "netkit convert: --labels: 3 names, but output 0 \"logits\" [1 10] has 10 classes (its last dimension)\n", stderr)
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "the model was written despite the bad labels")

	names := "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
	require.NoError(t, os.WriteFile(labels, []byte(names), 0o644))
	code, _, stderr = cli(t, "convert", onnxModel, "-o", out, "--labels", labels)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := cli(t, "run", out, "--top", "2")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `\[0\] (zero|one|two|three|four|five|six|seven|eight|nine) `, stdout)
}

// The format is told by content; the extension is only a fallback.
func TestFormatByContent(t *testing.T) {
	dir := t.TempDir()
	copyAs := func(src, name string) string {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	onnxAsDat := copyAs(filepath.Join("..", "..", "testdata", "fashion", "mlp.onnx"), "model.dat")
	code, stdout, stderr := cli(t, "convert", onnxAsDat, "-o", filepath.Join(dir, "a.nk"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "folded BatchNorms") // the ONNX summary

	tfl := filepath.Join(tfliteDir(t), "tflm_hello_world_int8.tflite")
	tflAsBin := copyAs(tfl, "hello.bin")
	tflAsOnnx := copyAs(tfl, "hello.onnx")
	for _, p := range []string{tflAsBin, tflAsOnnx} {
		code, stdout, stderr = cli(t, "convert", p, "-o", filepath.Join(dir, "b.nk"))
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "the .tflite is")
	}

	code, _, stderr = cli(t, "convert", model("mlp.nk"), "-o", filepath.Join(dir, "c.nk"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is already a .nk model")
	nkAsOnnx := copyAs(model("mlp.nk"), "mlp.onnx")
	code, _, stderr = cli(t, "convert", nkAsOnnx, "-o", filepath.Join(dir, "d.nk"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is already a .nk model")

	text := copyAs(filepath.Join("..", "..", "README.md"), "notes.txt")
	code, _, stderr = cli(t, "convert", text)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is neither ONNX nor TFLite")

	for _, cmd := range []string{"run", "inspect", "aot"} {
		code, _, stderr = cli(t, cmd, tflAsBin, "-o", dir)
		if cmd != "aot" {
			code, _, stderr = cli(t, cmd, tflAsBin)
		}
		assert.Equal(t, 1, code, cmd)
		assert.Contains(t, stderr, "is a TFLite model, not a .nk: convert it first", cmd)
		code, _, stderr = cli(t, cmd, onnxAsDat)
		assert.Equal(t, 1, code, cmd)
		assert.Contains(t, stderr, "is an ONNX model, not a .nk", cmd)
	}
}

func TestSniffFormat(t *testing.T) {
	assert.Equal(t, formatUnknown, sniffFormat(nil))
	assert.Equal(t, formatUnknown, sniffFormat([]byte("# netkit\n")))
	// bytes that start like a ModelProto but do not parse to the end
	assert.Equal(t, formatUnknown, sniffFormat([]byte{0x08, 0x07, 0x3a, 0x10, 0x01}))
	// ir_version only: no graph
	assert.Equal(t, formatUnknown, sniffFormat([]byte{0x08, 0x07}))
	assert.Equal(t, formatONNX, sniffFormat([]byte{0x08, 0x07, 0x3a, 0x00}))
	assert.Equal(t, formatTFLite, sniffFormat([]byte("\x1c\x00\x00\x00TFL3")))
	assert.Equal(t, formatNK, sniffFormat([]byte("NKIT....")))
}

// One error style: "netkit CMD: what failed: why", one line, the command's
// name once.
func TestErrorStyle(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.nk")
	text := filepath.Join(dir, "notes.nk")
	require.NoError(t, os.WriteFile(text, []byte("not a model\n"), 0o644))
	style := regexp.MustCompile(`^netkit (run|inspect|aot|convert): [^:\n]+: [^\n]+\n$`)
	for _, args := range [][]string{
		{"run", missing}, {"run", text}, {"inspect", missing}, {"inspect", text},
		{"aot", missing, "-o", dir}, {"aot", text, "-o", dir}, {"convert", missing},
		{"run", model("mlp.nk"), "--arena", "100"},
		{"run", model("mlp.nk"), "--input", text},
	} {
		code, _, stderr := cli(t, args...)
		assert.Equal(t, 1, code, args)
		assert.Regexp(t, style, stderr, args)
		assert.Equal(t, 1, strings.Count(stderr, "netkit"), "%v: %q", args, stderr)
	}
}

// Host memory exhaustion is its own error, not an arena overflow.
func TestOutOfHostMemory(t *testing.T) {
	code, _, stderr := cli(t, "run", model("mlp.nk"), "--arena", "1000000G")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "out of host memory: cannot allocate a 1073741824000000 B arena")
	assert.NotContains(t, stderr, "overflow")
	code, _, stderr = cli(t, "run", model("mlp.nk"), "--arena", "100")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "arena overflow")
	assert.NotContains(t, stderr, "host memory")
}

// inputQuant is the TFLite file's quantization of input 0, read with the
// TFLite parser (not the .nk the CLI runs).
func inputQuant(t *testing.T, path string) (float32, int32) {
	m, err := tflite.ReadFile(path)
	require.NoError(t, err)
	sg := &m.Subgraphs[0]
	q := sg.Tensors[sg.Inputs[0]].Quant
	require.NotNil(t, q)
	return q.Scale[0], int32(q.ZeroPoint[0])
}

// int8 I/O: inspect, --json and the aot header show each quantized
// tensor's scale and zero point, those of the TFLite file.
func TestInt8QuantShown(t *testing.T) {
	src := filepath.Join(tfliteDir(t), "tflm_hello_world_int8.tflite")
	inScale, inZP := inputQuant(t, src)
	outScale, outZP := outputQuant(t, src)
	dir := t.TempDir()
	nkPath := filepath.Join(dir, "hello.nk")
	code, _, stderr := cli(t, "convert", src, "-o", nkPath)
	require.Equal(t, 0, code, stderr)

	code, stdout, stderr := cli(t, "inspect", nkPath)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, fmt.Sprintf("[1 1] i8 (scale %g, zero point %d)", inScale, inZP))
	assert.Contains(t, stdout, fmt.Sprintf("[1 1] i8 (scale %g, zero point %d)", outScale, outZP))

	code, stdout, stderr = cli(t, "inspect", "--json", nkPath)
	require.Equal(t, 0, code, stderr)
	var j struct {
		Inputs, Outputs []struct {
			Scale     *float32 `json:"scale"`
			ZeroPoint *int32   `json:"zero_point"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &j))
	require.NotNil(t, j.Inputs[0].Scale)
	assert.Equal(t, inScale, *j.Inputs[0].Scale)
	assert.Equal(t, inZP, *j.Inputs[0].ZeroPoint)
	assert.Equal(t, outScale, *j.Outputs[0].Scale)
	assert.Equal(t, outZP, *j.Outputs[0].ZeroPoint)
	code, stdout, _ = cli(t, "inspect", "--json", model("mlp.nk"))
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "scale", "a float model has no quantization to show")

	// The header's macros equal what the C core reports for the tensors.
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	code, _, stderr = cli(t, "aot", nkPath, "-o", dir)
	require.Equal(t, 0, code, stderr)
	const prog = `#include <stdio.h>
#include "netkit.h"
#include "hello.h"
static uint8_t mem[HELLO_ARENA_SIZE] __attribute__((aligned(16)));
int main(void) {
    nk_arena_t a; nk_model_t *m; nk_error_t e; nk_tensor_t in, out;
    nk_arena_init(&a, mem, sizeof mem);
    if (nk_model_load_buffer(&m, hello_nk, hello_nk_len, &a, &e) != NK_OK) return 2;
    if (nk_model_input(m, 0, &in) != NK_OK || nk_model_output(m, 0, &out) != NK_OK) return 3;
    printf("%d %d %d %d\n", in.quant_scale == HELLO_INPUT0_SCALE, in.quant_zero_point == HELLO_INPUT0_ZERO_POINT,
           out.quant_scale == HELLO_OUTPUT0_SCALE, out.quant_zero_point == HELLO_OUTPUT0_ZERO_POINT);
    return 0;
}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(prog), 0o644))
	root := filepath.Join("..", "..")
	bin := filepath.Join(dir, "fw")
	out, err := exec.Command(cc, "-std=c99", "-Wall", "-Werror", "-I", filepath.Join(root, "include"), "-I", dir,
		filepath.Join(dir, "main.c"), filepath.Join(dir, "hello.c"), filepath.Join(root, "csrc", "netkit_unity.c"),
		"-lm", "-o", bin).CombinedOutput()
	require.NoError(t, err, string(out))
	// the arena aot sized is a device's: run portable like one (host SIMD
	// kernels pack the int8 dense layers into more arena)
	run := exec.Command(bin)
	run.Env = append(os.Environ(), "NETKIT_HOST_ISA=portable")
	out, err = run.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "1 1 1 1\n", string(out))
}

// netkit run quantizes a float32 .npy for an int8 input: TFLM's int8 inputs
// of the KWS model, given as the real values they stand for, give TFLM's
// outputs.
func TestRunQuantizesFloatInput(t *testing.T) {
	const name = "mlperf_kws_ref_model"
	src := filepath.Join(tfliteDir(t), name+".tflite")
	scale, zp := inputQuant(t, src)
	want := tflmOutputs(t, name)
	var x []float32
	for k := 1; k <= 2; k++ {
		for _, q := range goldenIn(t, name, k) {
			x = append(x, scale*float32(int32(int8(q))-zp))
		}
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	f, err := os.Create(in)
	require.NoError(t, err)
	require.NoError(t, npy.Write(f, npy.FromF32([]int{2, 1, 49, 10, 1}, x)))
	require.NoError(t, f.Close())
	out := filepath.Join(dir, "out.npy")
	code, stdout, stderr := cli(t, "run", filepath.Join("..", "..", "testdata", "models_i8", name+".nk"),
		"--input", in, "--output", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, fmt.Sprintf("input 0: float32 from %s quantized to int8: q = round(x / %g) + %d", in, scale, zp))
	assert.Equal(t, append(bytesOf(want[0]), bytesOf(want[1])...), readNpy(t, out).Data)
}

// TFLite's rounding (half away from zero) and the int8 clamp.
func TestQuantizeI8(t *testing.T) {
	got := quantizeI8([]float32{0, 0.25, 0.75, -0.25, -0.75, 1000, -1000, 0.5}, 0.5, 3)
	assert.Equal(t, []int8{3, 4, 5, 2, 1, 127, -128, 4}, []int8{int8(got[0]), int8(got[1]), int8(got[2]),
		int8(got[3]), int8(got[4]), int8(got[5]), int8(got[6]), int8(got[7])})
}

// README.md and docs/CLI.md cover the CLI: every command and every flag
// that `netkit help COMMAND` prints appears in one of them.
func TestDocsCoverFlags(t *testing.T) {
	var docs strings.Builder
	for _, f := range []string{"README.md", filepath.Join("docs", "CLI.md")} {
		b, err := os.ReadFile(filepath.Join("..", "..", f))
		require.NoError(t, err)
		docs.Write(b)
	}
	text := docs.String()
	for _, name := range commandNames() {
		assert.Contains(t, text, "netkit "+name, "command %s is not documented", name)
		code, help, _ := cli(t, "help", name)
		require.Equal(t, 0, code)
		for _, m := range regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(help, -1) {
			flagRe := regexp.MustCompile(`(^|[\s\[(` + "`" + `])--?` + regexp.QuoteMeta(m[1]) + `\b`)
			assert.Regexp(t, flagRe, text, "netkit %s -%s is in neither README.md nor docs/CLI.md", name, m[1])
		}
	}
}

// docs/CLI.md holds each command's help exactly as `netkit help COMMAND`
// prints it, so the reference cannot drift from the code.
func TestCLIReferenceIsHelp(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "CLI.md"))
	require.NoError(t, err)
	doc := string(b)
	for _, name := range commandNames() {
		code, help, _ := cli(t, "help", name)
		require.Equal(t, 0, code)
		block := "## netkit " + name + "\n\n```\n" + strings.TrimRight(help, "\n") + "\n```\n"
		assert.Contains(t, doc, block, "docs/CLI.md: the netkit %s section differs from `netkit help %s`", name, name)
	}
}
