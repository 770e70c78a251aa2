package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lowerHarness runs one model both ways on the same pseudo-random inputs:
// the interpreter (the .nk file loaded by the core, portable kernels) and
// the lowered C of `netkit aot --lower --name m`, in a buffer of exactly
// M_RAM_SIZE with guard bytes after it; every output must be the same bytes.
const lowerHarness = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netkit.h"
#include "m.h"

static uint32_t rng = 12345u;
static uint8_t next_byte(void) { rng = rng * 1664525u + 1013904223u; return (uint8_t)(rng >> 24); }

int main(int argc, char **argv) {
    static uint8_t ram[M_RAM_SIZE + 64] __attribute__((aligned(16)));
    nk_arena_t arena;
    nk_model_t *model;
    nk_error_t err;
    int round, i, bad = 0;
    if (argc != 2 || nk_arena_init_heap(&arena, (size_t)64 << 20) != NK_OK) return 2;
    if (nk_model_load_file(&model, argv[1], &arena, &err) != NK_OK) {
        fprintf(stderr, "load: %s\n", err.message);
        return 2;
    }
    for (round = 0; round < 3; round++) {
#ifdef M_NUM_STATES
        /* the states carry from run to run on both sides: poison once, with
         * bytes that are a large float (0xA5's are tiny), then reset */
        if (round == 0) {
            memset(ram, 0xA5, sizeof ram);
            memset(ram, 0x5A, M_RAM_SIZE);
            m_reset_state(ram);
        }
#else
        memset(ram, 0xA5, sizeof ram);
#endif
        for (i = 0; i < nk_model_num_inputs(model); i++) {
            nk_tensor_t t;
            size_t k;
            nk_model_input(model, i, &t);
            for (k = 0; k < t.bytes; k++) {
                if (t.dtype == NK_F32 && k % 4 == 0) { /* a float in [-2, 2) */
                    float v = (float)((int)next_byte() - 128) / 64.0f;
                    memcpy((uint8_t *)t.data + k, &v, 4);
                    k += 3;
                    continue;
                }
                ((uint8_t *)t.data)[k] = next_byte();
            }
        }
#define IN(n) do { nk_tensor_t t; nk_model_input(model, n, &t); \
        if (t.bytes != M_INPUT##n##_BYTES) { fprintf(stderr, "input %d: %u B, header %u\n", n, (unsigned)t.bytes, M_INPUT##n##_BYTES); return 1; } \
        memcpy(M_INPUT##n(ram), t.data, t.bytes); } while (0)
        IN(0);
#if M_NUM_INPUTS > 1
        IN(1);
#endif
        if (nk_model_invoke(model, &err) != NK_OK) { fprintf(stderr, "invoke: %s\n", err.message); return 2; }
        if (m_run(ram) != NK_OK) { fprintf(stderr, "m_run failed\n"); return 1; }
#define OUT(n) do { nk_tensor_t t; nk_model_output(model, n, &t); \
        if (t.bytes != M_OUTPUT##n##_BYTES || memcmp(M_OUTPUT##n(ram), t.data, t.bytes) != 0) { \
            fprintf(stderr, "round %d: output %d differs from the interpreter's\n", round, n); bad = 1; } } while (0)
        OUT(0);
#if M_NUM_OUTPUTS > 1
        OUT(1);
#endif
        for (i = 0; i < 64; i++)
            if (ram[M_RAM_SIZE + i] != 0xA5) { fprintf(stderr, "wrote past M_RAM_SIZE\n"); return 1; }
    }
    if (!bad) printf("identical\n");
    return bad;
}
`

// loweredModels: every bundled model, and the MLPerf int8 models (KWS and
// AD are in testdata/models_i8; VWW and IC are converted from the shared
// TFLite files when they are there).
func loweredModels(t *testing.T) []string {
	var paths []string
	for _, dir := range []string{models, filepath.Join("..", "..", "testdata", "fashion"), modelsI8} {
		p, err := filepath.Glob(filepath.Join(dir, "*.nk"))
		require.NoError(t, err)
		paths = append(paths, p...)
	}
	src := os.Getenv("NETKIT_TFLITE_MODELS")
	if src == "" {
		src = filepath.Join("..", "..", "..", "shared", "models", "tflite")
	}
	if _, err := os.Stat(src); err == nil {
		dir := t.TempDir()
		for _, name := range []string{"mlperf_vww_96_int8", "mlperf_pretrainedResnet_quant"} {
			dst := filepath.Join(dir, name+".nk")
			code, _, stderr := cli(t, "convert", filepath.Join(src, name+".tflite"), "-o", dst)
			require.Equal(t, 0, code, "%s: %s", name, stderr)
			paths = append(paths, dst)
		}
	} else {
		t.Logf("no TFLite models at %s: VWW and IC not lowered", src)
	}
	return paths
}

// lowerCore is the core compiled once per test binary as the interpreter
// the lowered harness links (cgo's unity build, host kernels forced off
// when it runs).
var lowerCore struct {
	once          sync.Once
	cc, root, obj string
	err           error
}

// checkLowered lowers the model at path with `netkit aot --lower --name m`,
// builds lowerHarness against it and requires the interpreter's bytes.
func checkLowered(t *testing.T, path string) {
	t.Helper()
	lc := &lowerCore
	lc.once.Do(func() {
		if lc.cc, lc.err = exec.LookPath("gcc"); lc.err != nil {
			return
		}
		lc.root, _ = filepath.Abs(filepath.Join("..", ".."))
		dir, err := os.MkdirTemp("", "netkit-lower-core")
		if err != nil {
			lc.err = err
			return
		}
		lc.obj = filepath.Join(dir, "core.o")
		out, err := exec.Command(lc.cc, "-std=c99", "-O1", "-c", "-I", filepath.Join(lc.root, "include"),
			filepath.Join(lc.root, "csrc", "netkit_unity.c"), "-o", lc.obj).CombinedOutput()
		if err != nil {
			lc.err = fmt.Errorf("%v: %s", err, out)
		}
	})
	if errors.Is(lc.err, exec.ErrNotFound) {
		t.Skip("no gcc")
	}
	require.NoError(t, lc.err)
	dir := t.TempDir()
	code, stdout, stderr := cli(t, "aot", "--lower", path, "-o", dir, "--name", "m")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "M_RAM_SIZE")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(lowerHarness), 0o644))
	bin := filepath.Join(dir, "cmp")
	out, err := exec.Command(lc.cc, "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror",
		"-I", filepath.Join(lc.root, "include"), "-I", filepath.Join(lc.root, "csrc"), "-I", dir,
		filepath.Join(dir, "main.c"), filepath.Join(dir, "m.c"), lc.obj, "-lm", "-o", bin).CombinedOutput()
	require.NoError(t, err, string(out))
	run := exec.Command(bin, path)
	run.Env = append(os.Environ(), "NETKIT_HOST_ISA=portable")
	out, err = run.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "identical\n", string(out))
}

func TestLoweredIsInterpreterBytes(t *testing.T) {
	for _, path := range loweredModels(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".nk")
		t.Run(name, func(t *testing.T) {
			if name == "cnn" { // the one bundled model with a batch-norm left in the file
				code, _, stderr := cli(t, "aot", "--lower", path, "-o", t.TempDir(), "--name", "m")
				assert.Equal(t, 1, code)
				assert.Contains(t, stderr, "--lower needs batch-norms folded")
				return
			}
			checkLowered(t, path)
		})
	}
}

// A streaming GRU (convert --stream-state): the lowered code keeps the
// STATE tensor across runs as the interpreter does (three runs compared,
// the state poisoned before m_reset_state), and its header says so.
func TestLoweredKeepsState(t *testing.T) {
	dir := t.TempDir()
	nkPath := filepath.Join(dir, "gru.nk")
	code, _, stderr := cli(t, "convert", "--stream-state", filepath.Join("..", "..", "testdata", "pytorch", "kws_gru.onnx"), "-o", nkPath)
	require.Equal(t, 0, code, stderr)
	checkLowered(t, nkPath)
	code, _, stderr = cli(t, "aot", "--lower", nkPath, "-o", dir, "--name", "g")
	require.Equal(t, 0, code, stderr)
	h, err := os.ReadFile(filepath.Join(dir, "g.h"))
	require.NoError(t, err)
	assert.Contains(t, string(h), "#define G_NUM_STATES 1\n")
	assert.Contains(t, string(h), "void g_reset_state(void *ram);")
}

// The lowered firmware links the op evals and kernels only: no parser,
// loader or planner (model.c and plan.c are not even given to the linker,
// and --gc-sections leaves nothing of format.c but the QUANT reader).
func TestLoweredLinksNoInterpreter(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	dir := t.TempDir()
	code, _, stderr := cli(t, "aot", "--lower", filepath.Join(modelsI8, "mlperf_kws_ref_model.nk"), "-o", dir, "--name", "kws")
	require.Equal(t, 0, code, stderr)
	main := "#include \"kws.h\"\nstatic unsigned char ram[KWS_RAM_SIZE] __attribute__((aligned(16)));\n" +
		"int main(void) { return kws_run(ram) == NK_OK ? 0 : 1; }\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(main), 0o644))
	args := []string{"-std=c99", "-O0", "-DNETKIT_MCU=1", "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections",
		"-I", filepath.Join(root, "include"), "-I", filepath.Join(root, "csrc"), "-I", dir,
		filepath.Join(dir, "main.c"), filepath.Join(dir, "kws.c"),
		filepath.Join(root, "csrc", "error.c"), filepath.Join(root, "csrc", "format.c")}
	for _, glob := range []string{"csrc/ops/*.c", "csrc/kernels/ref/*.c"} {
		srcs, err := filepath.Glob(filepath.Join(root, glob))
		require.NoError(t, err)
		args = append(args, srcs...)
	}
	bin := filepath.Join(dir, "fw")
	out, err := exec.Command(cc, append(args, "-lm", "-o", bin)...).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(bin).CombinedOutput()
	require.NoError(t, err, string(out))
	syms, err := exec.Command("nm", bin).Output()
	require.NoError(t, err)
	// KWS's ops are all direct kernel calls: no evals, no tensor or op records
	for _, absent := range []string{"nk_format_open", "nk_format_decode", "nk_conv_i8_validate", "nk_op_lookup",
		"nk_conv_i8_eval", "nk_ops_conv_geom", "kws_tensors", "kws_ops"} {
		assert.NotContains(t, string(syms), " "+absent+"\n", "the lowered firmware links %s", absent)
	}
	assert.Contains(t, string(syms), " nk_conv2d_i8_run\n")
}
