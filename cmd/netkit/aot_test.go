package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
)

// A firmware-style program built from the generated files and the C core:
// a static arena of exactly MLP_ARENA_SIZE loads the embedded image and
// reproduces PyTorch's outputs; an arena one byte smaller fails to load.
const aotMain = `#include <stdio.h>
#include "netkit.h"
#include "mlp.h"

static uint8_t exact[MLP_ARENA_SIZE] __attribute__((aligned(16)));
static uint8_t short_by_one[MLP_ARENA_SIZE - 1] __attribute__((aligned(16)));

int main(void) {
    nk_arena_t arena;
    nk_model_t *model;
    nk_error_t err;
    float in[MLP_INPUT0_BYTES / 4], out[MLP_OUTPUT0_BYTES / 4];
    nk_arena_init(&arena, short_by_one, sizeof short_by_one);
    if (nk_model_load_buffer(&model, mlp_nk, mlp_nk_len, &arena, &err) != NK_ERR_ARENA_OVERFLOW) {
        fprintf(stderr, "loading into %u B did not overflow\n", (unsigned)sizeof short_by_one);
        return 1;
    }
    nk_arena_init(&arena, exact, sizeof exact);
    if (nk_model_load_buffer(&model, mlp_nk, mlp_nk_len, &arena, &err) != NK_OK) {
        fprintf(stderr, "load: %s\n", err.message);
        return 1;
    }
    while (fread(in, sizeof in, 1, stdin) == 1) {
        if (nk_model_run(model, in, sizeof in, out, sizeof out, &err) != NK_OK) {
            fprintf(stderr, "run: %s\n", err.message);
            return 1;
        }
        fwrite(out, sizeof out, 1, stdout);
    }
    return 0;
}
`

func TestAotFirmwareBuild(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	code, stdout, stderr := cli(t, "aot", model("mlp.nk"), "-o", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "MLP_ARENA_SIZE")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(aotMain), 0o644))
	root := filepath.Join("..", "..")
	bin := filepath.Join(dir, "fw")
	args := []string{"-std=c99", "-O1", "-Wall", "-Wextra", "-Werror",
		"-I", filepath.Join(root, "include"), "-I", dir,
		filepath.Join(dir, "main.c"), filepath.Join(dir, "mlp.c"), filepath.Join(root, "csrc", "netkit_unity.c")}
	if nk.KernelBackend == "xnnpack" {
		// the arena figure is this CLI's build's, backend included: build the program the same way
		args = append(args, "-DNETKIT_BACKEND=1", "-DNETKIT_XNNPACK=1", "-I", filepath.Join(root, "csrc"),
			filepath.Join(root, "vendor_kernels", "xnnpack", "xnnpack.c"), "-lXNNPACK", "-lpthreadpool", "-lpthread")
	}
	out, err := exec.Command(cc, append(args, "-lm", "-o", bin)...).CombinedOutput()
	require.NoError(t, err, string(out))

	// -o -: the same header and array as one file on stdout, which a
	// firmware includes in place of mlp.h and compiles alone
	code, one, stderr := cli(t, "aot", model("mlp.nk"), "-o", "-")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "MLP_ARENA_SIZE")
	_, err = os.Stat("-")
	assert.True(t, os.IsNotExist(err), "-o - made a directory named -")
	h, err := os.ReadFile(filepath.Join(dir, "mlp.h"))
	require.NoError(t, err)
	c, err := os.ReadFile(filepath.Join(dir, "mlp.c"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(one, string(h)), "stdout starts with mlp.h")
	_, array, ok := strings.Cut(string(c), "#include \"mlp.h\"\n\n")
	require.True(t, ok)
	assert.True(t, strings.HasSuffix(one, array), "stdout ends with mlp.c's array")
	oneDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(oneDir, "mlp.h"), []byte(one), 0o644))
	out, err = exec.Command(cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
		"-I", filepath.Join(root, "include"), "-I", oneDir, filepath.Join(dir, "main.c")).CombinedOutput()
	require.NoError(t, err, "main.c with the one file as mlp.h: %s", out)

	run := exec.Command(bin)
	// as on a device: the portable kernels, which the arena figure assumes
	// (this host build would otherwise pack weights for its SIMD kernels)
	run.Env = append(os.Environ(), "NETKIT_HOST_ISA=portable")
	run.Stdin = bytes.NewReader(readNpy(t, model("mlp.input.npy")).Data)
	var fwOut, fwErr bytes.Buffer
	run.Stdout, run.Stderr = &fwOut, &fwErr
	require.NoError(t, run.Run(), fwErr.String())
	assertClose(t, f32(t, readNpy(t, model("mlp.expected.npy"))), nkfile.BytesF32(fwOut.Bytes()), "firmware mlp")
}

func TestAotNameAndErrors(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := cli(t, "aot", model("tiny_relu.nk"), "-o", dir, "--name", "relu_model")
	require.Equal(t, 0, code, stderr)
	h, err := os.ReadFile(filepath.Join(dir, "relu_model.h"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(h), "#define RELU_MODEL_ARENA_SIZE "))
	code, _, stderr = cli(t, "aot", model("tiny_relu.nk"), "--name", "Bad-Name")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "not a lower-case C identifier")
	code, _, _ = cli(t, "aot", filepath.Join(dir, "missing.nk"))
	assert.Equal(t, 1, code)
}

// The README's C snippet compiles against the header `netkit aot` writes
// for a model named model.nk: every macro and symbol it names exists.
func TestReadmeCSnippetCompiles(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```c\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, m, "README has no ```c block")
	dir := t.TempDir()
	img, err := os.ReadFile(model("mlp.nk"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.nk"), img, 0o644))
	code, _, stderr := cli(t, "aot", filepath.Join(dir, "model.nk"), "-o", dir)
	require.Equal(t, 0, code, stderr)
	// The snippet's statements go into a function; its includes and the
	// arena stay at file scope. in and out are the caller's buffers.
	var top, body strings.Builder
	for _, line := range strings.Split(string(m[1]), "\n") {
		if strings.HasPrefix(line, "#include") || strings.HasPrefix(line, "static ") {
			top.WriteString(line + "\n")
		} else {
			body.WriteString(line + "\n")
		}
	}
	src := "#include <stdio.h>\n" + top.String() +
		"int main(void) {\n float in[MODEL_INPUT0_BYTES / 4] = {0}, out[MODEL_OUTPUT0_BYTES / 4];\n" +
		body.String() + " return 0;\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(src), 0o644))
	out, err := exec.Command(cc, "-std=c99", "-Wall", "-Werror", "-fsyntax-only",
		"-I", filepath.Join(root, "include"), "-I", dir, filepath.Join(dir, "main.c")).CombinedOutput()
	require.NoError(t, err, "%s\n%s", out, src)
}

// IDENT_plan.c is the plan the C core makes at load, as data: its offsets,
// block size and image checksum are the inspect report's and the file's,
// and it compiles warning-free against the core's headers.
func TestAotPlanFile(t *testing.T) {
	root := filepath.Join("..", "..")
	rooms := 0
	for _, path := range []string{model("branch.nk"), filepath.Join(root, "testdata", "models_i8", "mlperf_kws_ref_model.nk")} {
		dir := t.TempDir()
		code, stdout, stderr := cli(t, "aot", path, "-o", dir, "--name", "m")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "m_plan.c")
		src, err := os.ReadFile(filepath.Join(dir, "m_plan.c"))
		require.NoError(t, err)
		img, err := os.ReadFile(path)
		require.NoError(t, err)
		restore := deviceKernels()
		r, err := nk.InspectBytes(img)
		restore()
		require.NoError(t, err)
		var want []string
		for _, off := range r.TensorOffsets {
			if off >= 0 {
				want = append(want, strconv.FormatInt(off, 10))
			}
		}
		offs := regexp.MustCompile(`(?s)m_plan_offsets\[(\d+)\] = \{(.*?)\};`).FindStringSubmatch(string(src))
		require.NotNil(t, offs, string(src))
		assert.Equal(t, strconv.Itoa(len(want)), offs[1])
		assert.Equal(t, want, strings.Fields(strings.ReplaceAll(offs[2], ",", " ")), path)
		assert.Contains(t, string(src), fmt.Sprintf("0x%08xu, %du, /* image checksum and size */",
			binary.LittleEndian.Uint32(img[8:]), len(img)))
		assert.Contains(t, string(src), fmt.Sprintf("%du, /* activation block bytes */", r.PeakActivations))
		// in-place bytes: a staged op's band and slots ride in them
		// (nk_i8_stage_in_place); KWS's 25x5x64 layers as plan_test
		// computes them by hand: depthwise 3x3 two one-row slots,
		// pointwise one slot of two rows (5-pixel rows)
		inPlace := regexp.MustCompile(`(?s)m_plan_in_place\[\d+\] = \{(.*?)\};`).FindStringSubmatch(string(src))
		require.NotNil(t, inPlace, string(src))
		got, staged := strings.Fields(strings.ReplaceAll(inPlace[1], ",", " ")), 0
		require.Len(t, got, len(r.Ops))
		for k, op := range r.Ops {
			want := map[bool]int{false: 0, true: 1}[op.InPlace]
			if op.Staged {
				staged++
				want = 3 | op.StageBand<<2 | (op.StageSlots-1)<<4
				if fmt.Sprint(op.InShape) == "[1 25 5 64]" && fmt.Sprint(op.OutShape) == "[1 25 5 64]" {
					hand := map[string][2]int{"depthwise_conv2d_i8": {1, 2}, "conv2d_i8": {2, 1}}[op.Op]
					assert.Equal(t, hand, [2]int{op.StageBand, op.StageSlots}, "op %d %s", k, op.Op)
				}
			}
			if op.Room > 0 { // the room above the operands (NK_IN_PLACE_ROOM)
				want |= 0x80
				rooms++
			}
			assert.Equal(t, strconv.Itoa(want), got[k], "op %d in_place", k)
		}
		if strings.Contains(path, "kws") {
			assert.NotZero(t, staged, "KWS stages rows")
		}
		if cc, err := exec.LookPath("gcc"); err == nil {
			out, err := exec.Command(cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
				"-I", filepath.Join(root, "include"), "-I", filepath.Join(root, "csrc"),
				filepath.Join(dir, "m_plan.c")).CombinedOutput()
			require.NoError(t, err, string(out))
		}
	}
	assert.NotZero(t, rooms, "some op has room above its operands")
}
