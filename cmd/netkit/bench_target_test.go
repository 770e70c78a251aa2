package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBenchTargetUnknownTargetIsUsageError(t *testing.T) {
	code, _, stderr := cli(t, "bench", "--target", "cortex-x9", model("cnn.nk"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown --target "cortex-x9"`)
	for _, name := range []string{"cortex-m0", "cortex-m4f", "cortex-m55", "rv32imac"} {
		assert.Contains(t, stderr, name)
	}
	assert.Contains(t, stderr, "usage: netkit bench")
}

// inspect/aot --target host is the host's own figure; an unknown target
// is a usage error naming the known ones.
func TestInspectTargetHostAndUnknown(t *testing.T) {
	code, out, stderr := cli(t, "inspect", "--json", "--target", "host", model("cnn.nk"))
	require.Equal(t, 0, code, stderr)
	var r struct {
		ArenaAfterLoad int64 `json:"arena_after_load"`
		Target         struct {
			Target     string `json:"target"`
			ArenaBytes int64  `json:"arena_bytes"`
		} `json:"target"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Equal(t, "host", r.Target.Target)
	assert.Equal(t, r.ArenaAfterLoad, r.Target.ArenaBytes)
	for _, cmd := range []string{"inspect", "aot"} {
		code, _, stderr = cli(t, cmd, "--target", "cortex-x9", "-o", t.TempDir(), model("cnn.nk"))
		if cmd == "inspect" {
			code, _, stderr = cli(t, cmd, "--target", "cortex-x9", model("cnn.nk"))
		}
		assert.Equal(t, 2, code, cmd)
		assert.Contains(t, stderr, `unknown --target "cortex-x9" (host, `, cmd)
		for _, name := range crossTargets(t) {
			assert.Contains(t, stderr, name, "%s --target takes every toolchains/ target", cmd)
		}
	}
}

// crossTargets are the names of toolchains/*.cmake.
func crossTargets(t *testing.T) []string {
	t.Helper()
	src, err := findSourceTree("")
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(src, "toolchains", "*.cmake"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		if n := strings.TrimSuffix(filepath.Base(f), ".cmake"); n != "common" {
			names = append(names, n)
		}
	}
	require.NotEmpty(t, names)
	return names
}

// inspect --target on the targets TestBenchTargetCortexM4F does not cover:
// the figure is the target's own nk_model_arena_size, and the runner has
// checked there that the model loads in exactly that and fails in 1 B
// less (targetArena refuses the figure otherwise). Each target costs a
// runner build (10-60 s): make test runs armv7-linux (the cheapest build);
// NETKIT_ARENA_TARGETS="t1 t2 ..." (or "all") picks others. aarch64-linux,
// LP64 like the host, must give the host's figure exactly.
func TestInspectTargetCrossABIs(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: QEMU runs and cross builds")
	}
	src, err := findSourceTree("")
	require.NoError(t, err)
	chosen := strings.Fields(os.Getenv("NETKIT_ARENA_TARGETS"))
	if len(chosen) == 0 {
		chosen = []string{"armv7-linux"}
	}
	i8 := filepath.Join(modelsI8, "tflm_micro_speech_quantized.nk")
	code, hostOut, stderr := cli(t, "inspect", "--json", i8)
	require.Equal(t, 0, code, stderr)
	var host struct {
		ArenaAfterLoad uint64 `json:"arena_after_load"`
	}
	require.NoError(t, json.Unmarshal([]byte(hostOut), &host))
	for _, target := range crossTargets(t) {
		t.Run(target, func(t *testing.T) {
			if target == "cortex-m4f" {
				t.Skip("SKIP: TestBenchTargetCortexM4F covers cortex-m4f")
			}
			if !slices.Contains(chosen, target) && !slices.Contains(chosen, "all") {
				t.Skipf("SKIP: set NETKIT_ARENA_TARGETS=%s (or all) to check it", target)
			}
			if err := checkTargetTools(src, target, exec.LookPath, fileExists); err != nil {
				t.Skipf("SKIP: --target %s needs tools: %v", target, err)
			}
			code, out, stderr := cli(t, "inspect", "--json", "--target", target, i8)
			require.Equal(t, 0, code, stderr)
			var r struct {
				Target struct {
					Target     string `json:"target"`
					ArenaBytes uint64 `json:"arena_bytes"`
				} `json:"target"`
				Declare string `json:"declare"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &r))
			assert.Equal(t, target, r.Target.Target)
			assert.Contains(t, r.Declare, "arena["+strconv.FormatUint(r.Target.ArenaBytes, 10)+"]")
			if strings.HasPrefix(target, "aarch64") {
				assert.Equal(t, host.ArenaAfterLoad, r.Target.ArenaBytes, "LP64 like the host: the same layout")
			} else {
				assert.Less(t, r.Target.ArenaBytes, host.ArenaAfterLoad, "32-bit structs are smaller than the host's")
			}
			t.Logf("tflm_micro_speech_quantized on %s: arena %d B (host %d B)", target, r.Target.ArenaBytes, host.ArenaAfterLoad)
		})
	}
}

func TestBenchTargetBadModel(t *testing.T) {
	code, _, stderr := cli(t, "bench", "--target", "cortex-m4f", filepath.Join(t.TempDir(), "absent.nk"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "absent.nk")
	assert.Contains(t, stderr, "no such file")

	img, err := os.ReadFile(model("cnn.nk"))
	require.NoError(t, err)
	corrupt := filepath.Join(t.TempDir(), "corrupt.nk")
	require.NoError(t, os.WriteFile(corrupt, img[:len(img)/2], 0o644))
	code, _, stderr = cli(t, "bench", "--target", "cortex-m4f", corrupt)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "corrupt.nk")
	assert.NotContains(t, stderr, "usage:")
}

func TestBenchTargetFlagUsage(t *testing.T) {
	code, _, stderr := cli(t, "bench", "--json", "--mhz", "80", model("cnn.nk"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--mhz go with --target") // --json is for the host too

	code, _, stderr = cli(t, "bench", "--target", "cortex-m4f", "--mhz", "0", model("cnn.nk"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--mhz must be positive")

	in := model("cnn.input.npy")
	code, _, stderr = cli(t, "bench", "--target", "cortex-m4f", "--input", in, "--input", in, model("cnn.nk"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "the model has 1 inputs, 2 --input files given")
}

func TestBenchTargetNoSourceTree(t *testing.T) {
	code, _, stderr := cli(t, "bench", "--target", "cortex-m4f", "--src", t.TempDir(), model("cnn.nk"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is not a netkit source tree")
}

// The missing tools are named with their Debian packages, read from
// toolchains/requirements.txt (the table scripts/cross-test.sh uses).
func TestBenchTargetMissingToolsNamePackages(t *testing.T) {
	src, err := findSourceTree("")
	require.NoError(t, err)
	noQemu := func(name string) (string, error) {
		if strings.HasPrefix(name, "qemu-") {
			return "", errors.New("not found")
		}
		return "/usr/bin/" + name, nil
	}
	noFiles := func(string) bool { return false }
	err = checkTargetTools(src, "cortex-m4f", noQemu, noFiles)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "qemu-system-arm")
	assert.Contains(t, msg, "librdimon.a")
	assert.Contains(t, msg, "sudo apt-get install --no-install-recommends libnewlib-arm-none-eabi qemu-system-arm")
	assert.NotContains(t, msg, "gcc-arm-none-eabi")

	err = checkTargetTools(src, "rv32imac", noQemu, func(string) bool { return true })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "qemu-system-misc")
	assert.NoError(t, checkTargetTools(src, "cortex-m4f", func(n string) (string, error) { return n, nil }, func(string) bool { return true }))
}

// needCortexM4F skips, naming the packages, when the cortex-m4f tools are
// missing.
func needCortexM4F(t *testing.T) string {
	t.Helper()
	src, err := findSourceTree("")
	require.NoError(t, err)
	if err := checkTargetTools(src, "cortex-m4f", exec.LookPath, fileExists); err != nil {
		t.Skipf("SKIP: netkit bench --target cortex-m4f needs tools: %v", err)
	}
	return src
}

func benchTargetJSON(t *testing.T, args ...string) (targetReport, string) {
	t.Helper()
	code, stdout, stderr := cli(t, append([]string{"bench", "--target", "cortex-m4f", "--json"}, args...)...)
	require.Equal(t, 0, code, stderr)
	var r targetReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), stdout)
	return r, stderr
}

// checkDecomposition: the per-op rows and the invoke loop sum to the
// total, and the total (per-op call trees + the loop functions' own
// instructions) differs from the whole-region count only by the runner's
// call setup, a constant returned for comparison across models.
func checkDecomposition(t *testing.T, r targetReport, nOps int) uint64 {
	t.Helper()
	require.Len(t, r.Ops, nOps)
	sum := r.InvokeLoop
	for i, op := range r.Ops {
		assert.Equal(t, i, op.Index)
		sum += op.Instructions
	}
	assert.Equal(t, r.Instructions, sum, "per-op instructions + invoke loop = total")
	require.GreaterOrEqual(t, r.RegionInstructions, r.Instructions)
	d := r.RegionInstructions - r.Instructions
	assert.LessOrEqual(t, d, uint64(8), "the runner's call setup around nk_model_invoke")
	assert.Greater(t, r.InvokeLoop, uint64(0))
	assert.Greater(t, r.ArenaBytes, uint64(0))
	assert.LessOrEqual(t, r.ArenaHeldBytes, r.ArenaBytes)
	assert.Greater(t, r.NetkitFlashBytes, uint64(10_000))
	assert.Equal(t, r.ModelBytes+r.NetkitFlashBytes, r.FlashBytes)
	assert.InDelta(t, float64(r.Instructions)/(r.MHz*1e6), r.Seconds, 1e-12)
	return d
}

// bench --target cortex-m4f on cnn.nk and an int8 model, checked against
// scripts/bench-mcu.sh (a separately built firmware with the model embedded,
// the library without op markers): the same instructions, exactly, for
// nk_model_invoke's call tree, and the same arena.
//
// Cold (no cached runner, no bench-mcu build): about 20 s for the runner
// and 70 s for each of bench-mcu.sh's two builds (fast and portable
// kernels) on 2 busy cores; warm about 15 s.
func TestBenchTargetCortexM4F(t *testing.T) {
	src := needCortexM4F(t)
	if testing.Short() {
		t.Skip("SKIP: -short: QEMU runs and cross builds")
	}
	cnn := model("cnn.nk")
	cnnInput := model("cnn.input.npy")
	r, _ := benchTargetJSON(t, "--input", cnnInput, cnn)
	dCNN := checkDecomposition(t, r, 12)
	assert.Equal(t, "cortex-m4f", r.Target)
	assert.Equal(t, int64(220842), r.MACs)
	assert.Equal(t, uint64(14160), r.ModelBytes)

	// The same figures from bench-mcu.sh: its per-function attribution,
	// summed over everything but the harness (main and the markers), is
	// nk_model_invoke's call tree; its region count also includes bench.c's
	// call setup (a few instructions, logged).
	// in this checkout's build/ (a CMake build folder belongs to one tree)
	build := filepath.Join(src, "build", "test-bench-mcu")
	cmd := exec.Command(filepath.Join(src, "scripts", "bench-mcu.sh"))
	cmd.Env = append(os.Environ(), "NK_BENCH_TARGETS=cortex-m4f", "NK_BENCH_FUNCS=1000000", "NK_BENCH_BUILD="+build)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	var mcuInsns, mcuArena uint64
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "|")
		// | target | model | MACs | instructions (fast kernels) | / MAC | portable | / MAC |
		// portable / fast | arena B (fast) | ...
		if len(f) > 10 && strings.TrimSpace(f[1]) == "cortex-m4f" && strings.TrimSpace(f[2]) == "cnn" {
			mcuInsns, err = strconv.ParseUint(strings.TrimSpace(f[4]), 10, 64)
			require.NoError(t, err)
			mcuArena, err = strconv.ParseUint(strings.TrimSpace(f[9]), 10, 64)
			require.NoError(t, err)
			break
		}
	}
	require.NotZero(t, mcuInsns, "no cnn row in bench-mcu.sh's table:\n%s", out)
	funcs, err := os.ReadFile(filepath.Join(build, "funcs.txt"))
	require.NoError(t, err)
	var tree uint64
	for _, line := range strings.Split(string(funcs), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "cortex-m4f" || f[1] != "cnn" {
			continue
		}
		if f[2] == "main" || f[2] == "nk_bench_start" || f[2] == "nk_bench_stop" {
			continue
		}
		n, err := strconv.ParseUint(f[3], 10, 64)
		require.NoError(t, err)
		tree += n
	}
	assert.Equal(t, tree, r.Instructions, "bench-mcu.sh's nk_model_invoke call tree")
	assert.Equal(t, mcuArena, r.ArenaHeldBytes, "bench.c's arena used after load")
	assert.Equal(t, r.ArenaHeldBytes, r.ArenaBytes, "cnn needs no load-time scratch beyond what it keeps")
	// The runner's nk_context_invoke (core built with NETKIT_OP_MARKERS) is
	// the same code as in bench-mcu.sh's normal build: only addresses and
	// literal-pool words may differ.
	assert.Equal(t, disassemble(t, filepath.Join(build, "cortex-m4f", "nk_bench_cnn"), "nk_context_invoke"),
		disassemble(t, filepath.Join(r.Firmware, runnerELF), "nk_context_invoke"))
	t.Logf("cnn on cortex-m4f: %d instructions; bench-mcu.sh region count %d (+%d: bench.c's call setup); this runner's region count %d (+%d)",
		r.Instructions, mcuInsns, mcuInsns-r.Instructions, r.RegionInstructions, dCNN)

	// An int8 model, on the fixed input pattern. The arena is the target's
	// (checked there: exact load, 1 B less fails), below the 64-bit host's.
	i8 := filepath.Join(modelsI8, "tflm_micro_speech_quantized.nk")
	r8, _ := benchTargetJSON(t, i8)
	d8 := checkDecomposition(t, r8, len(r8.Ops))
	assert.Equal(t, dCNN, d8, "the runner's call setup is the same for every model")
	code, hostOut, stderr := cli(t, "inspect", "--json", i8)
	require.Equal(t, 0, code, stderr)
	var host struct {
		ArenaAfterLoad uint64 `json:"arena_after_load"`
	}
	require.NoError(t, json.Unmarshal([]byte(hostOut), &host))
	assert.Less(t, r8.ArenaBytes, host.ArenaAfterLoad, "32-bit structs are smaller than the host's")
	// inspect --target and aot --target give the target's figure (the same
	// runner's nk_model_arena_size, checked exact on the target)
	code, tOut, stderr := cli(t, "inspect", "--json", "--target", "cortex-m4f", i8)
	require.Equal(t, 0, code, stderr)
	var onTarget struct {
		Target struct {
			Target     string `json:"target"`
			ArenaBytes uint64 `json:"arena_bytes"`
		} `json:"target"`
		Declare string `json:"declare"`
	}
	require.NoError(t, json.Unmarshal([]byte(tOut), &onTarget))
	assert.Equal(t, "cortex-m4f", onTarget.Target.Target)
	assert.Equal(t, r8.ArenaBytes, onTarget.Target.ArenaBytes)
	assert.Contains(t, onTarget.Declare, "arena["+strconv.FormatUint(r8.ArenaBytes, 10)+"]")
	aotDir := t.TempDir()
	code, _, stderr = cli(t, "aot", "--target", "cortex-m4f", "-o", aotDir, "--name", "ms", i8)
	require.Equal(t, 0, code, stderr)
	hdr, err := os.ReadFile(filepath.Join(aotDir, "ms.h"))
	require.NoError(t, err)
	assert.Contains(t, string(hdr), "#define MS_ARENA_SIZE "+strconv.FormatUint(r8.ArenaBytes, 10)+"u\n")
	var macs int64
	for _, op := range r8.Ops {
		macs += op.MACs
	}
	assert.Equal(t, r8.MACs, macs)

	// A second run reuses the cached firmware: no build, same file.
	elf := filepath.Join(r8.Firmware, runnerELF)
	st, err := os.Stat(elf)
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond)
	code, stdout, stderr := cli(t, "bench", "--target", "cortex-m4f", "--mhz", "80", i8)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "building")
	st2, err := os.Stat(elf)
	require.NoError(t, err)
	assert.Equal(t, st.ModTime(), st2.ModTime())
	assert.Contains(t, stdout, "instructions  "+strconv.FormatUint(r8.Instructions, 10)+" per inference")
	assert.Contains(t, stdout, "at 80 MHz")
	assert.Contains(t, stdout, "assumes 1 instruction per cycle")
	assert.Contains(t, stdout, "(invoke loop)")
	r8b, _ := benchTargetJSON(t, i8)
	assert.True(t, r8b.FirmwareCached)
	assert.Equal(t, r8.Instructions, r8b.Instructions, "counts are repeatable")
}

// netkitFlash sums libnetkit's flash input sections from a GNU ld map, as
// scripts/bench-mcu.sh's awk does, leaving out .bss and the runner-only
// sections.
func TestNetkitFlashFromMap(t *testing.T) {
	m := `Archive member included to satisfy reference by file (symbol)
libnetkit.a(model.c.obj)  main.o (nk_model_invoke)

Linker script and memory map

.text           0x00000000     0x2000
 .text.main     0x00000100       0x40 main.o
 .text.nk_model_invoke
                0x00000140       0x20 libnetkit.a(model.c.obj)
 .text.nk_model_invoke_op_markers
                0x00000160       0x20 libnetkit.a(model.c.obj)
 .text.nk_model_arena_size
                0x00000180      0x150 libnetkit.a(model.c.obj)
 .rodata.nk_format_string.str1.4
                0x00000300      0x383 libnetkit.a(format.c.obj)
.data           0x20000000        0x8
 .data.x        0x20000000        0x8 libnetkit.a(arena.c.obj)
.bss            0x20000008      0x100
 .bss.y         0x20000008      0x100 libnetkit.a(arena.c.obj)
`
	assert.Equal(t, uint64(0x20+0x383+0x8), netkitFlash(m))
	assert.Equal(t, uint64(0), netkitFlash("no map here"))
}

var (
	disAddr   = regexp.MustCompile(`^\s*[0-9a-f]+:\s*`)
	disTarget = regexp.MustCompile(`\b[0-9a-f]+ <`)
)

// disassemble is function fn of elf as instructions, without addresses
// (branch targets keep their symbol) or literal-pool words.
func disassemble(t *testing.T, elf, fn string) []string {
	t.Helper()
	out, err := exec.Command("arm-none-eabi-objdump", "-d", "--no-show-raw-insn", elf).Output()
	require.NoError(t, err)
	var insns []string
	in := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasSuffix(line, "<"+fn+">:"):
			in = true
		case in && strings.TrimSpace(line) == "":
			require.NotEmpty(t, insns)
			return insns
		case in:
			insn := disTarget.ReplaceAllString(disAddr.ReplaceAllString(line, ""), "<")
			if !strings.HasPrefix(insn, ".word") {
				insns = append(insns, insn)
			}
		}
	}
	t.Fatalf("no function %s in %s", fn, elf)
	return nil
}
