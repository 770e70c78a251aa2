package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/nk"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "measure inference latency here, or a model's cost on a microcontroller (--target)",
		usage:   "MODEL [--time DURATION] [--n N] [--arena SIZE]\n       netkit bench --target TARGET [--mhz N] [--json] [--input FILE]... [--src DIR] MODEL",
		help: `Runs MODEL on a deterministic pseudo-random input in a Session (its own
activations, no Go allocations per call), after a short warm-up, until
--time has passed or --n runs were made (whichever comes first, at least
10 runs), timing every call (the clock reads add some tens of ns to each
figure, which matters only for the tiniest models). Prints the latency distribution, inferences
per second and multiply-accumulates per second (from the model's MAC count).

With --target TARGET (cortex-m0, cortex-m3, cortex-m4f, cortex-m7,
cortex-m33, cortex-m55 or rv32imac) it tells what MODEL costs on that
microcontroller before any board exists: it runs one inference under QEMU
with netkit's nkinsn plugin and prints
  - instructions per inference, exact (the whole nk_model_invoke call tree,
    no marker overhead), and per op: index, kind, name, MACs,
    instructions, instructions per MAC and share; the op loop itself is
    the "(invoke loop)" row, so the rows sum to the total;
  - the time at --mhz (default 100): an estimate that assumes 1 instruction
    per cycle. QEMU models no pipeline, caches or wait states: these are
    instructions, not cycles, and a real core differs;
  - the arena the model needs on that target (its 32-bit structs; computed
    by nk_model_arena_size on the target and checked there: the model loads
    in exactly that, one byte less fails), and what stays in use after the
    load when that is less;
  - flash: the model image plus the netkit code and constants the linker
    kept (from the link map; every op's kernels, since the op table refers
    to them all).
The input is a fixed pseudo-random pattern of the input's dtype, or the
first sample of each --input file (.npy or raw, as for 'netkit run'):
some kernels' costs depend on the values.

The runner firmware (cmake/cross/bench_runner.c, the core built with
NETKIT_OP_MARKERS) is built on first use, about 30 s, and cached under the
user's cache folder (or NETKIT_CACHE_DIR), keyed by target and a hash of
the sources, so an edit to csrc/ rebuilds it; it reads each model through
semihosting and serves them all. Building needs the netkit source tree
(found above the working directory or the executable, or --src /
NETKIT_SRC), CMake, Ninja, a host C compiler (the plugin), the target's
cross toolchain and QEMU; a missing one is named with its Debian package.`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			dur := fs.Duration("time", time.Second, "measure for about `DURATION`")
			n := fs.Int("n", 1_000_000, "stop after `N` runs")
			arena := fs.String("arena", "", "arena budget `SIZE`; default: exact")
			target := fs.String("target", "", "cost on this MCU `TARGET` under QEMU instead (see above)")
			mhz := fs.Float64("mhz", 100, "with --target: clock in `MHz` for the time estimate")
			asJSON := fs.Bool("json", false, "with --target: print JSON")
			src := fs.String("src", "", "with --target: the netkit source tree `DIR`")
			var inputs listFlag
			fs.Var(&inputs, "input", "with --target: input `FILE` (.npy or raw), once per model input")
			return func(args []string, stdout, stderr io.Writer) error {
				if len(args) != 1 {
					return usagef("want one MODEL, have %d arguments", len(args))
				}
				if *target != "" {
					return benchTarget(stdout, stderr, args[0], targetBenchOpts{
						target: *target, mhz: *mhz, json: *asJSON, src: *src, inputs: inputs})
				}
				var stray []string
				fs.Visit(func(f *flag.Flag) {
					if f.Name == "mhz" || f.Name == "json" || f.Name == "input" || f.Name == "src" {
						stray = append(stray, "--"+f.Name)
					}
				})
				if len(stray) > 0 {
					return usagef("%s go with --target", strings.Join(stray, ", "))
				}
				if *n < 10 || *dur <= 0 {
					return usagef("--n must be >= 10 and --time positive")
				}
				var opts []nk.Option
				if *arena != "" {
					size, err := cliutil.ParseSize(*arena)
					if err != nil {
						return usagef("--arena: %v", err)
					}
					opts = append(opts, nk.WithArenaSize(size))
				}
				return bench(stdout, args[0], opts, *dur, *n)
			}
		},
	})
}

func bench(w io.Writer, path string, opts []nk.Option, dur time.Duration, maxRuns int) error {
	m, err := nk.Load(path, opts...)
	if err != nil {
		return err
	}
	defer m.Close()
	rep, err := m.Report()
	if err != nil {
		return err
	}
	s, err := m.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()

	ins, outs := m.Inputs(), m.Outputs()
	inBufs, outBufs := make([][]byte, len(ins)), make([][]byte, len(outs))
	for i, t := range ins {
		inBufs[i] = randomInput(t, uint64(i)+1)
	}
	for k, t := range outs {
		outBufs[k] = make([]byte, t.Bytes())
	}

	warm := time.Now()
	for r := 0; r < 1000 && (r < 10 || time.Since(warm) < 100*time.Millisecond); r++ {
		if err := s.RunRaw(inBufs, outBufs); err != nil {
			return err
		}
	}

	lat := make([]time.Duration, 0, min(maxRuns, 1<<20))
	start := time.Now()
	for len(lat) < maxRuns && (len(lat) < 10 || time.Since(start) < dur) {
		t0 := time.Now()
		err := s.RunRaw(inBufs, outBufs)
		lat = append(lat, time.Since(t0))
		if err != nil {
			return err
		}
		if len(lat) == cap(lat) {
			break
		}
	}
	total := time.Since(start)
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	mean := sum / time.Duration(len(lat))

	ns := func(d time.Duration) string { return fmt.Sprintf("%d ns", d.Nanoseconds()) }
	row := func(k, v string) { fmt.Fprintf(w, "%-18s%s\n", k, v) }
	row("model", fmt.Sprintf("%s (%d ops, %d MACs, arena %s)", path, len(rep.Ops), rep.MACs, cliutil.FormatSize(m.ArenaBytes())))
	row("runs", fmt.Sprintf("%d in %s", len(lat), total.Round(time.Millisecond)))
	row("mean", ns(mean))
	row("min / p50", ns(lat[0])+" / "+ns(pct(0.5)))
	row("p90 / p99", ns(pct(0.9))+" / "+ns(pct(0.99)))
	row("max", ns(lat[len(lat)-1]))
	perSec := float64(len(lat)) / total.Seconds()
	row("throughput", fmt.Sprintf("%.0f inferences/s", perSec))
	if rep.MACs > 0 && mean > 0 {
		row("compute", fmt.Sprintf("%.3f GMAC/s (at the mean latency)", float64(rep.MACs)/mean.Seconds()/1e9))
	}
	return nil
}
