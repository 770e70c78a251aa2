package main

// `netkit bench --target`: what a model costs on a microcontroller, from
// exact instruction counts under QEMU. The firmware (cmake/cross/
// bench_runner.c) is built once per target and source version and cached;
// it reads the model and its input through semihosting, so every model
// runs on the same build.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netkit/netkit/internal/tools/srchash"
	"github.com/netkit/netkit/nk"
)

// benchTargets are the cross targets (toolchains/<name>.cmake), all run
// under QEMU (toolchains/qemu-run.sh: bare metal with semihosting, Linux
// in user mode), and the binutils prefix of each.
var benchTargets = map[string]string{
	"cortex-m0":     "arm-none-eabi-",
	"cortex-m3":     "arm-none-eabi-",
	"cortex-m4f":    "arm-none-eabi-",
	"cortex-m7":     "arm-none-eabi-",
	"cortex-m33":    "arm-none-eabi-",
	"cortex-m55":    "arm-none-eabi-",
	"rv32imac":      "riscv64-unknown-elf-",
	"xtensa-lx106":  "xtensa-lx106-elf-",
	"aarch64-linux": "aarch64-linux-gnu-",
	"armv7-linux":   "arm-linux-gnueabihf-",
}

func benchTargetNames() []string {
	names := make([]string, 0, len(benchTargets))
	for n := range benchTargets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// runnerInputs are the source-tree paths whose contents make up the runner
// firmware: a change to any of them gives a new cache key, so a new build.
var runnerInputs = []string{"CMakeLists.txt", "include", "csrc", "vendor_kernels", "cmake", "toolchains", "tools/qemu-plugin"}

// The time estimate's caveat, printed and put in the JSON.
const timeCaveat = "assumes 1 instruction per cycle: these are instructions, not cycles; QEMU models no pipeline, caches, flash wait states or memory latency: real cycle counts differ (slower memory and multi-cycle instructions add cycles, dual issue on M7/M55 removes some)"

type targetBenchOpts struct {
	target string
	mhz    float64
	json   bool
	src    string   // --src, or "" to search
	inputs []string // --input files, or none for the fixed pattern
}

// targetOp is one row of the per-op table.
type targetOp struct {
	Index        int     `json:"index"`
	Kind         string  `json:"kind"`
	Name         string  `json:"name"`
	MACs         int64   `json:"macs"`
	Instructions uint64  `json:"instructions"`
	PerMAC       float64 `json:"instructions_per_mac,omitempty"`
	Share        float64 `json:"share"`
}

type targetReport struct {
	Model  string `json:"model"`
	Target string `json:"target"`
	Input  string `json:"input"`
	// Instructions per inference: nk_model_invoke's whole call tree, the
	// ops' plus InvokeLoop.
	Instructions uint64 `json:"instructions"`
	// InvokeLoop: instructions of nk_model_invoke/nk_context_invoke
	// themselves (the op loop), outside every op.
	InvokeLoop uint64 `json:"invoke_loop_instructions"`
	// RegionInstructions: the nk_bench_start..stop region around the call,
	// less the empty region (how scripts/bench-mcu.sh counts): also the few
	// instructions the runner spends setting up and making the call.
	RegionInstructions uint64  `json:"region_instructions"`
	MACs               int64   `json:"macs"`
	PerMAC             float64 `json:"instructions_per_mac,omitempty"`
	MHz                float64 `json:"mhz"`
	Seconds            float64 `json:"estimated_seconds"`
	TimeCaveat         string  `json:"time_caveat"`
	// ArenaBytes: the arena a firmware must give nk_model_load_buffer on
	// this target (nk_model_arena_size); ArenaHeldBytes: what stays in use
	// after the load (less when loading needs scratch it gives back).
	ArenaBytes       uint64      `json:"arena_bytes"`
	ArenaHeldBytes   uint64      `json:"arena_held_bytes"`
	ModelBytes       uint64      `json:"model_bytes"`
	NetkitFlashBytes uint64      `json:"netkit_flash_bytes"`
	FlashBytes       uint64      `json:"flash_bytes"`
	Ops              []targetOp  `json:"ops"`
	Firmware         string      `json:"firmware"`
	FirmwareCached   bool        `json:"firmware_cached"`
	raw              runnerFacts // for tests
}

// runnerFacts is what one QEMU run of the runner reports.
type runnerFacts struct {
	regions   map[int]uint64
	ops       []uint64
	funcs     map[string]uint64
	facts     map[string]string // "nkbench <key> <value>"
	netkitMap uint64            // netkit flash from the link map
}

// num is the runner's "nkbench key N" figure.
func (f *runnerFacts) num(k string) (uint64, error) {
	v, err := strconv.ParseUint(f.facts[k], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the runner did not report %s", k)
	}
	return v, nil
}

func benchTarget(stdout, stderr io.Writer, modelPath string, o targetBenchOpts) error {
	if _, ok := benchTargets[o.target]; !ok {
		return usagef("unknown --target %q (QEMU targets: %s)", o.target, strings.Join(benchTargetNames(), ", "))
	}
	if o.mhz <= 0 {
		return usagef("--mhz must be positive")
	}
	// The host loads the model first: a missing or corrupt file is reported
	// before any toolchain is looked for, and the report gives op kinds,
	// names and MACs (the same on every target).
	image, err := os.ReadFile(modelPath)
	if err != nil {
		return err
	}
	m, err := nk.LoadBytes(image)
	if err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}
	defer m.Close()
	rep, err := m.Report()
	if err != nil {
		return err
	}
	input, inputDesc, err := targetInput(m.Inputs(), o.inputs)
	if err != nil {
		return err
	}

	src, err := findSourceTree(o.src)
	if err != nil {
		return err
	}
	if err := checkTargetTools(src, o.target, exec.LookPath, fileExists); err != nil {
		return err
	}
	fw, cached, err := ensureRunner(src, o.target, stderr)
	if err != nil {
		return err
	}
	facts, err := runRunner(src, fw, o.target, image, input)
	if err != nil {
		return err
	}
	r, err := buildTargetReport(rep, facts, o)
	if err != nil {
		return err
	}
	r.Model, r.Input, r.Firmware, r.FirmwareCached = modelPath, inputDesc, fw, cached
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	writeTargetReport(stdout, r)
	return nil
}

// targetInput is every model input's bytes back to back: the first sample
// of each --input file, or the host bench's deterministic pattern.
func targetInput(ins []nk.TensorInfo, files []string) ([]byte, string, error) {
	var buf []byte
	if len(files) == 0 {
		for i, t := range ins {
			buf = append(buf, randomInput(t, uint64(i)+1)...)
		}
		return buf, "fixed pseudo-random pattern (splitmix64, seed = input index + 1)", nil
	}
	if len(files) != len(ins) {
		return nil, "", usagef("the model has %d inputs, %d --input files given", len(ins), len(files))
	}
	for i, t := range ins {
		b, _, err := readBatch(files[i], t)
		if err != nil {
			return nil, "", err
		}
		buf = append(buf, b[:t.Bytes()]...)
	}
	return buf, "first sample of " + strings.Join(files, ", "), nil
}

// findSourceTree: --src, else NETKIT_SRC, else the first folder holding
// the netkit sources above the working directory or the executable.
func findSourceTree(flagSrc string) (string, error) {
	isTree := func(dir string) bool {
		for _, f := range []string{"include/netkit.h", "csrc/model.c", "cmake/cross/bench_runner.c", "toolchains/qemu-run.sh", "toolchains/requirements.txt", "tools/qemu-plugin/nkinsn.c"} {
			if !fileExists(filepath.Join(dir, f)) {
				return false
			}
		}
		return true
	}
	for _, given := range []struct{ dir, from string }{{flagSrc, "--src"}, {os.Getenv("NETKIT_SRC"), "NETKIT_SRC"}} {
		if given.dir == "" {
			continue
		}
		abs, err := filepath.Abs(given.dir)
		if err != nil {
			return "", err
		}
		if !isTree(abs) {
			return "", fmt.Errorf("%s=%s is not a netkit source tree (no csrc/, toolchains/, cmake/cross/bench_runner.c)", given.from, given.dir)
		}
		return abs, nil
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for {
			if isTree(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("--target needs the netkit source tree (its C sources, toolchain files and QEMU plugin " +
		"build the runner firmware) and found none above the working directory or the executable: " +
		"run from a netkit checkout, or give --src DIR or NETKIT_SRC=DIR")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// checkTargetTools names the Debian packages to install for whatever the
// target needs and is missing, from toolchains/requirements.txt (the table
// scripts/cross-test.sh reads too).
func checkTargetTools(src, target string, lookPath func(string) (string, error), exists func(string) bool) error {
	f, err := os.Open(filepath.Join(src, "toolchains", "requirements.txt"))
	if err != nil {
		return err
	}
	defer f.Close()
	var missing, pkgs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 3 {
			return fmt.Errorf("toolchains/requirements.txt: bad line %q (want: pattern need package)", sc.Text())
		}
		if ok, err := path.Match(fields[0], target); err != nil || !ok {
			continue
		}
		need, pkg := fields[1], fields[2]
		found := false
		if strings.HasPrefix(need, "/") {
			found = exists(need)
		} else {
			_, err := lookPath(need)
			found = err == nil
		}
		if !found {
			missing = append(missing, need)
			if !slices.Contains(pkgs, pkg) {
				pkgs = append(pkgs, pkg)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("--target %s: missing %s\ninstall the Debian packages with:\n  sudo apt-get install --no-install-recommends %s",
			target, strings.Join(missing, ", "), strings.Join(pkgs, " "))
	}
	return nil
}

// runnerCacheRoot is where runner firmware is kept: the user's cache
// folder, or NETKIT_CACHE_DIR.
func runnerCacheRoot() (string, error) {
	if d := os.Getenv("NETKIT_CACHE_DIR"); d != "" {
		return filepath.Join(d, "bench-runner"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for the runner firmware (set NETKIT_CACHE_DIR): %w", err)
	}
	return filepath.Join(d, "netkit", "bench-runner"), nil
}

// The files of one cached runner.
const (
	runnerELF    = "runner.elf"
	runnerMap    = "runner.map"
	runnerPlugin = "libnkinsn.so"
)

// ensureRunner returns the folder holding the target's runner firmware for
// this source version, building it first if it is not cached.
func ensureRunner(src, target string, log io.Writer) (dir string, cached bool, err error) {
	root, err := runnerCacheRoot()
	if err != nil {
		return "", false, err
	}
	sum, err := srchash.SumTree(src, runnerInputs)
	if err != nil {
		return "", false, err
	}
	dir = filepath.Join(root, target+"-"+sum[:16])
	complete := func() bool {
		return fileExists(filepath.Join(dir, runnerELF)) && fileExists(filepath.Join(dir, runnerMap)) &&
			fileExists(filepath.Join(dir, runnerPlugin))
	}
	if complete() {
		return dir, true, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", false, err
	}
	// One build per target at a time; a second netkit waits, then reuses.
	unlock, err := lockFile(filepath.Join(root, target+".lock"))
	if err != nil {
		return "", false, err
	}
	defer unlock()
	if complete() {
		return dir, true, nil
	}

	// The CMake build folder stays, per target, source tree and toolchain
	// files, so the next source version rebuilds only what changed. CMake
	// reads a toolchain file only when it first configures a folder: a
	// changed one gets a new folder.
	toolSum, err := srchash.SumTree(src, []string{"toolchains"})
	if err != nil {
		return "", false, err
	}
	build := filepath.Join(root, "build-"+target+"-"+srchashString(src)[:8]+"-"+toolSum[:8])
	logPath := filepath.Join(root, "build-"+target+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", false, err
	}
	defer logFile.Close()
	fmt.Fprintf(log, "netkit bench: building the %s runner firmware (once per source version; log %s)\n", target, logPath)
	t0 := time.Now()
	jobs := os.Getenv("JOBS")
	if jobs == "" {
		jobs = "2"
	}
	steps := [][]string{
		{"cmake", "-S", src, "-B", build, "-G", "Ninja",
			"-DCMAKE_TOOLCHAIN_FILE=" + filepath.Join(src, "toolchains", target+".cmake"),
			"-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DNETKIT_OP_MARKERS=ON"},
		{"cmake", "--build", build, "-j" + jobs, "--target", "nk_bench_runner"},
	}
	for _, s := range steps {
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		fmt.Fprintf(logFile, "$ %s\n", strings.Join(s, " "))
		if err := cmd.Run(); err != nil {
			return "", false, fmt.Errorf("building the %s runner firmware failed (%v); the log:\n%s", target, err, tailFile(logPath, 30))
		}
	}
	// Copy into a fresh folder and rename it into place: a reader never
	// sees a half-written runner.
	tmp, err := os.MkdirTemp(root, "."+target+"-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(tmp)
	for from, to := range map[string]string{
		"nk_bench_runner":          runnerELF,
		"nk_bench_runner.map":      runnerMap,
		"qemu-plugin/libnkinsn.so": runnerPlugin,
	} {
		if err := copyFile(filepath.Join(build, filepath.FromSlash(from)), filepath.Join(tmp, to)); err != nil {
			return "", false, err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", false, err
	}
	fmt.Fprintf(log, "netkit bench: built %s in %s\n", dir, time.Since(t0).Round(100*time.Millisecond))
	pruneRunners(root, target, keepRunners)
	return dir, false, nil
}

// keepRunners is how many runner versions per target the cache keeps (each
// source version, e.g. each checkout or worktree, has its own).
const keepRunners = 4

// pruneRunners removes all but the newest keep runner folders of target.
func pruneRunners(root, target string, keep int) {
	dirs, _ := filepath.Glob(filepath.Join(root, target+"-*"))
	type aged struct {
		path string
		mod  time.Time
	}
	var found []aged
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			found = append(found, aged{d, st.ModTime()})
		}
	}
	slices.SortFunc(found, func(a, b aged) int { return b.mod.Compare(a.mod) })
	for _, a := range found[min(keep, len(found)):] {
		os.RemoveAll(a.path) //nolint:errcheck // a cache: what stays is rebuilt or reused
	}
}

// srchashString is a short stable name for a source tree's location.
func srchashString(src string) string {
	return fmt.Sprintf("%016x", fnv64(src))
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// copyFile copies from's bytes and permission bits (a Linux runner must
// stay executable for QEMU's user mode).
func copyFile(from, to string) error {
	st, err := os.Stat(from)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, st.Mode().Perm())
}

func tailFile(p string, n int) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// elfSym is a function symbol from nm -S.
type elfSym struct{ addr, size uint64 }

func functionSymbols(nm, elf string) (map[string]elfSym, error) {
	out, err := exec.Command(nm, "-S", elf).Output()
	if err != nil {
		return nil, fmt.Errorf("%s -S %s: %w", nm, elf, err)
	}
	syms := map[string]elfSym{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || !strings.ContainsAny(f[2], "tTwW") {
			continue
		}
		a, err1 := strconv.ParseUint(f[0], 16, 64)
		s, err2 := strconv.ParseUint(f[1], 16, 64)
		if err1 == nil && err2 == nil {
			syms[f[3]] = elfSym{a &^ 1, s} // Thumb bit
		}
	}
	return syms, nil
}

// runRunner runs the cached firmware on one model under QEMU with the
// nkinsn plugin and collects what it reports.
func runRunner(src, fw, target string, image, input []byte) (*runnerFacts, error) {
	nm := benchTargets[target] + "nm"
	syms, err := functionSymbols(nm, filepath.Join(fw, runnerELF))
	if err != nil {
		return nil, err
	}
	need := []string{"nk_bench_start", "nk_bench_stop", "nk_op_marker_begin", "nk_op_marker_end",
		"nk_model_invoke", "nk_context_invoke", "nk_model_invoke_op_markers", "nk_context_invoke_op_markers"}
	for _, n := range need {
		if _, ok := syms[n]; !ok {
			return nil, fmt.Errorf("the runner %s has no function %s (remove the folder to rebuild it)", fw, n)
		}
	}
	// QEMU takes the semihosting command line and the plugin's arguments as
	// comma-separated lists: everything runs from a temporary folder under
	// plain relative names.
	tmp, err := os.MkdirTemp("", "netkit-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for name, b := range map[string][]byte{"model.nk": image, "input.bin": input} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return nil, err
		}
	}
	for _, f := range []string{runnerELF, runnerPlugin} {
		if err := copyFile(filepath.Join(fw, f), filepath.Join(tmp, f)); err != nil {
			return nil, err
		}
	}
	mapText, err := os.ReadFile(filepath.Join(fw, runnerMap))
	if err != nil {
		return nil, err
	}
	netkitMap := netkitFlash(string(mapText))
	var funcs strings.Builder
	for _, n := range []string{"nk_model_invoke", "nk_context_invoke"} {
		fmt.Fprintf(&funcs, "%x %x %s\n", syms[n].addr, syms[n].size, n)
	}
	if err := os.WriteFile(filepath.Join(tmp, "funcs.txt"), []byte(funcs.String()), 0o644); err != nil {
		return nil, err
	}
	hex := func(n string) string { return fmt.Sprintf("0x%x", syms[n].addr) }
	span := func(n string) string { return fmt.Sprintf("0x%x-0x%x", syms[n].addr, syms[n].addr+syms[n].size) }
	plugin := strings.Join([]string{"./" + runnerPlugin,
		"begin=" + hex("nk_bench_start"), "end=" + hex("nk_bench_stop"),
		"opbegin=" + hex("nk_op_marker_begin"), "opend=" + hex("nk_op_marker_end"),
		// An op's count is its call tree: the markers and the loop calling
		// them are left out.
		"opskip=" + span("nk_op_marker_begin"), "opskip=" + span("nk_op_marker_end"),
		"opskip=" + span("nk_model_invoke_op_markers"), "opskip=" + span("nk_context_invoke_op_markers"),
		"funcs=funcs.txt", "out=report.txt"}, ",")
	cmd := exec.Command(filepath.Join(src, "toolchains", "qemu-run.sh"), target, runnerELF, "model.nk", "input.bin")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "NK_QEMU_PLUGIN="+plugin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	f := &runnerFacts{regions: map[int]uint64{}, funcs: map[string]uint64{}, facts: map[string]string{}}
	for _, line := range strings.Split(out.String()+"\n"+errOut.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "nkbench "); ok {
			k, v, _ := strings.Cut(rest, " ")
			f.facts[k] = v
		}
	}
	if msg, bad := f.facts["error"]; bad {
		return nil, fmt.Errorf("on %s: %s", target, msg)
	}
	if runErr != nil || f.facts["done"] != "1" {
		return nil, fmt.Errorf("the %s runner failed under QEMU (%v):\n%s%s", target, runErr, out.String(), errOut.String())
	}
	report, err := os.ReadFile(filepath.Join(tmp, "report.txt"))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(report), "\n") {
		fl := strings.Fields(line)
		if len(fl) != 4 || fl[0] != "nkinsn" {
			continue
		}
		n, err := strconv.ParseUint(fl[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("nkinsn report: bad line %q", line)
		}
		switch fl[1] {
		case "region":
			i, _ := strconv.Atoi(fl[2])
			f.regions[i] = n
		case "op":
			f.ops = append(f.ops, n)
		case "func":
			f.funcs[fl[2]] = n
		}
	}
	f.netkitMap = netkitMap
	return f, nil
}

// runnerOnly are the input sections of libnetkit the runner keeps and a
// firmware would not: the op-marked invoke copy and the arena sizing call.
var runnerOnly = []string{"_op_markers", "nk_model_arena_size"}

// netkitFlash sums the flash (code, constants, initialised data) that the
// link map attributes to libnetkit.a, as scripts/bench-mcu.sh does, less
// the runner-only sections. Merged string constants are attributed to the
// object the linker met first, so the figure can differ from another
// program's map by a few hundred bytes.
func netkitFlash(mapText string) uint64 {
	_, body, ok := strings.Cut(mapText, "Linker script and memory map")
	if !ok {
		return 0
	}
	var total uint64
	inFlash := false
	section := ""
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, ".") {
			name := strings.Fields(trimmed)[0]
			for _, p := range []string{".text", ".rodata", ".data", ".srodata", ".sdata"} {
				if strings.HasPrefix(name, p) {
					inFlash = true
				}
			}
			for _, p := range []string{".bss", ".sbss", ".stack", ".heap", ".ARM.attributes", ".comment", ".debug"} {
				if strings.HasPrefix(name, p) {
					inFlash = false
				}
			}
			section = name
		}
		if !inFlash || !strings.Contains(line, "libnetkit.a(") {
			continue
		}
		skip := false
		for _, s := range runnerOnly {
			skip = skip || strings.Contains(section, s)
		}
		fl := strings.Fields(line)
		for i := 0; i+1 < len(fl); i++ {
			if strings.HasPrefix(fl[i], "0x") && strings.HasPrefix(fl[i+1], "0x") {
				if n, err := strconv.ParseUint(fl[i+1][2:], 16, 64); err == nil && !skip {
					total += n
				}
				break
			}
		}
	}
	return total
}

func buildTargetReport(rep *nk.Report, f *runnerFacts, o targetBenchOpts) (*targetReport, error) {
	if len(f.ops) != len(rep.Ops) {
		return nil, fmt.Errorf("the runner counted %d ops, the model has %d", len(f.ops), len(rep.Ops))
	}
	r0, ok0 := f.regions[0]
	r1, ok1 := f.regions[1]
	if !ok0 || !ok1 {
		return nil, errors.New("the runner's report lacks the marker regions")
	}
	r := &targetReport{Target: o.target, MHz: o.mhz, TimeCaveat: timeCaveat, MACs: rep.MACs, raw: *f}
	r.InvokeLoop = f.funcs["nk_model_invoke"] + f.funcs["nk_context_invoke"]
	r.Instructions = r.InvokeLoop
	for _, n := range f.ops {
		r.Instructions += n
	}
	r.RegionInstructions = r1 - r0
	if r.MACs > 0 {
		r.PerMAC = float64(r.Instructions) / float64(r.MACs)
	}
	r.Seconds = float64(r.Instructions) / (o.mhz * 1e6)
	for i, op := range rep.Ops {
		row := targetOp{Index: op.Index, Kind: op.Op, Name: op.Name, MACs: op.MACs, Instructions: f.ops[i]}
		if op.MACs > 0 {
			row.PerMAC = float64(row.Instructions) / float64(op.MACs)
		}
		if r.Instructions > 0 {
			row.Share = float64(row.Instructions) / float64(r.Instructions)
		}
		r.Ops = append(r.Ops, row)
	}
	num := f.num
	var err error
	if r.ArenaBytes, err = num("arena_need"); err != nil {
		return nil, err
	}
	if r.ModelBytes, err = num("model_bytes"); err != nil {
		return nil, err
	}
	if r.ArenaHeldBytes, err = num("arena_used"); err != nil {
		return nil, err
	}
	if f.facts["arena_exact"] != "1" {
		return nil, fmt.Errorf("on %s the model did not load in exactly the %d B nk_model_arena_size gave, or loaded in 1 B less (%s B held after the load): a netkit bug",
			o.target, r.ArenaBytes, f.facts["arena_used"])
	}
	r.NetkitFlashBytes = f.netkitMap
	r.FlashBytes = r.ModelBytes + r.NetkitFlashBytes
	return r, nil
}

func writeTargetReport(w io.Writer, r *targetReport) {
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "%-14s%s\n", k, fmt.Sprintf(format, args...)) }
	perMAC := func(v float64) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", v)
	}
	row("model", "%s (%d ops, %d MACs)", r.Model, len(r.Ops), r.MACs)
	row("target", "%s under QEMU, instructions counted exactly by the nkinsn plugin", r.Target)
	row("input", "%s", r.Input)
	row("instructions", "%d per inference (%s per MAC)", r.Instructions, perMAC(r.PerMAC))
	row("time", "%s at %g MHz if 1 instruction took 1 cycle (an estimate: see the note)", formatSeconds(r.Seconds), r.MHz)
	held := ""
	if r.ArenaHeldBytes != r.ArenaBytes {
		held = fmt.Sprintf("; %d B stay in use after the load", r.ArenaHeldBytes)
	}
	row("arena", "%d B on %s (the target's own struct layouts; checked there: loads in exactly this, 1 B less fails%s)", r.ArenaBytes, r.Target, held)
	row("flash", "%d B = model %d B + netkit code and constants %d B", r.FlashBytes, r.ModelBytes, r.NetkitFlashBytes)
	fmt.Fprintln(w)

	const maxName = 40
	kindW, nameW := len("(invoke loop)"), len("name")
	for _, op := range r.Ops {
		kindW = max(kindW, len(op.Kind))
		nameW = min(max(nameW, len(op.Name)), maxName)
	}
	line := func(idx, kind, name, macs, insns, pm, share string) {
		fmt.Fprintf(w, "%4s  %-*s  %-*s %10s %13s %8s %7s\n", idx, kindW, kind, nameW, name, macs, insns, pm, share)
	}
	pct := func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }
	line("op", "kind", "name", "MACs", "instructions", "per MAC", "share")
	for _, op := range r.Ops {
		name := op.Name
		if len(name) > maxName {
			name = name[:maxName-3] + "..."
		}
		line(strconv.Itoa(op.Index), op.Kind, name, strconv.FormatInt(op.MACs, 10),
			strconv.FormatUint(op.Instructions, 10), perMAC(op.PerMAC), pct(op.Share))
	}
	line("", "(invoke loop)", "", "", strconv.FormatUint(r.InvokeLoop, 10), "",
		pct(float64(r.InvokeLoop)/float64(max(r.Instructions, 1))))
	line("", "total", "", strconv.FormatInt(r.MACs, 10), strconv.FormatUint(r.Instructions, 10), perMAC(r.PerMAC), pct(1))
	fmt.Fprintf(w, "\nnote: the time %s.\n", r.TimeCaveat)
}

func formatSeconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3f ms", s*1e3)
	default:
		return fmt.Sprintf("%.3f us", s*1e6)
	}
}
