package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/nk"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "measure inference latency here, or a model's cost on a microcontroller (--target)",
		usage:   "MODEL [--time DURATION] [--n N] [--arena SIZE] [--ops] [--json]\n       netkit bench --target TARGET [--mhz N] [--json] [--input FILE]... [--src DIR] MODEL",
		help: `Runs MODEL on a deterministic pseudo-random input in a Session (its own
activations, no Go allocations per call), after a short warm-up, until
--time has passed or --n runs were made (whichever comes first, at least
10 runs), timing every call (the clock reads add some tens of ns to each
figure, which matters only for the tiniest models). Prints the latency distribution, inferences
per second and multiply-accumulates per second (from the model's MAC count).
A batch model (convert --batch N) runs N samples per call: the time per
sample is shown too. On Unix the process CPU time per run is shown as
well: unlike wall time it does not grow when other processes share the
cores.

--ops adds a per-op profile: as many more runs through the C core's timed
invoke (nk_model_profile: the host's monotonic clock read around each op,
in C, so the figures carry no Go call overhead), and for each op its index,
kind, name, MACs, median time, share of the sum of the ops' medians and
GMAC/s. --json prints all of it as JSON (times in ns).

With --target TARGET (cortex-m0, cortex-m3, cortex-m4f, cortex-m7,
cortex-m33, cortex-m55, rv32imac, xtensa-lx106, or aarch64-linux and
armv7-linux under QEMU's Linux user mode) it tells what MODEL costs on that
device before any board exists: it runs one inference under QEMU
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
			asJSON := fs.Bool("json", false, "print JSON")
			ops := fs.Bool("ops", false, "add the time of each op (host only)")
			src := fs.String("src", "", "with --target: the netkit source tree `DIR`")
			var inputs listFlag
			fs.Var(&inputs, "input", "with --target: input `FILE` (.npy or raw), once per model input")
			return func(args []string, stdout, stderr io.Writer) error {
				if len(args) != 1 {
					return usagef("want one MODEL, have %d arguments", len(args))
				}
				if *target != "" {
					if *ops {
						return usagef("--ops is for the host; --target always shows each op")
					}
					return benchTarget(stdout, stderr, args[0], targetBenchOpts{
						target: *target, mhz: *mhz, json: *asJSON, src: *src, inputs: inputs})
				}
				var stray []string
				fs.Visit(func(f *flag.Flag) {
					if f.Name == "mhz" || f.Name == "input" || f.Name == "src" {
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
				return bench(stdout, args[0], opts, benchOpts{dur: *dur, maxRuns: *n, ops: *ops, json: *asJSON})
			}
		},
	})
}

// benchOpts say how long the host benchmark runs and what it prints.
type benchOpts struct {
	dur     time.Duration
	maxRuns int
	ops     bool // per-op profile
	json    bool
}

// latency is the distribution of a series of timed runs.
type latency struct {
	runs  []time.Duration // sorted
	total time.Duration
	cpu   time.Duration // process CPU time over the timed runs, 0 when unknown
}

func (l latency) pct(p float64) time.Duration {
	return l.runs[min(len(l.runs)-1, int(p*float64(len(l.runs))))]
}

func (l latency) mean() time.Duration {
	var sum time.Duration
	for _, d := range l.runs {
		sum += d
	}
	return sum / time.Duration(len(l.runs))
}

// timeRuns warms up, then times run until dur has passed or maxRuns were
// made (at least 10). each, if set, is called after every timed run.
func timeRuns(run func() error, dur time.Duration, maxRuns int, each func()) (latency, error) {
	warm := time.Now()
	for r := 0; r < 1000 && (r < 10 || time.Since(warm) < 100*time.Millisecond); r++ {
		if err := run(); err != nil {
			return latency{}, err
		}
	}
	lat := make([]time.Duration, 0, min(maxRuns, 1<<20))
	cpu0, cpuOK := processCPU()
	start := time.Now()
	for len(lat) < maxRuns && (len(lat) < 10 || time.Since(start) < dur) {
		t0 := time.Now()
		err := run()
		lat = append(lat, time.Since(t0))
		if err != nil {
			return latency{}, err
		}
		if each != nil {
			each()
		}
		if len(lat) == cap(lat) {
			break
		}
	}
	total := time.Since(start)
	var cpu time.Duration
	if cpu1, ok := processCPU(); ok && cpuOK {
		cpu = cpu1 - cpu0
	}
	slices.Sort(lat)
	return latency{runs: lat, total: total, cpu: cpu}, nil
}

// benchJSON is bench's --json output; times are in ns.
type benchJSON struct {
	Model         string      `json:"model"`
	Ops           int         `json:"ops"`
	MACs          int64       `json:"macs"`
	ArenaBytes    int64       `json:"arena_bytes"`
	Batch         int         `json:"batch"`
	Runs          int         `json:"runs"`
	MeanNs        int64       `json:"mean_ns"`
	MinNs         int64       `json:"min_ns"`
	P50Ns         int64       `json:"p50_ns"`
	P90Ns         int64       `json:"p90_ns"`
	P99Ns         int64       `json:"p99_ns"`
	MaxNs         int64       `json:"max_ns"`
	P50SampleNs   float64     `json:"p50_per_sample_ns"`
	CPUMeanNs     int64       `json:"cpu_mean_ns,omitempty"` // process CPU time per run (mean)
	GMACPerSecond float64     `json:"gmac_per_s"`            // at the p50
	PerOp         []opProfile `json:"per_op,omitempty"`
	ProfiledRuns  int         `json:"profiled_runs,omitempty"`
}

// opProfile is one op's row of --ops.
type opProfile struct {
	Index         int     `json:"index"`
	Kind          string  `json:"kind"`
	Name          string  `json:"name"`
	MACs          int64   `json:"macs"`
	P50Ns         int64   `json:"p50_ns"`
	Share         float64 `json:"share"` // of the sum of the ops' p50s
	GMACPerSecond float64 `json:"gmac_per_s"`
}

func bench(w io.Writer, path string, opts []nk.Option, o benchOpts) error {
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
	lat, err := timeRuns(func() error { return s.RunRaw(inBufs, outBufs) }, o.dur, o.maxRuns, nil)
	if err != nil {
		return err
	}
	p50 := lat.pct(0.5)
	gmacs := func(macs int64, d time.Duration) float64 {
		if d <= 0 {
			return 0
		}
		return float64(macs) / d.Seconds() / 1e9
	}
	res := benchJSON{
		Model: path, Ops: len(rep.Ops), MACs: rep.MACs, ArenaBytes: m.ArenaBytes(), Batch: m.Batch(),
		Runs: len(lat.runs), MeanNs: lat.mean().Nanoseconds(), MinNs: lat.runs[0].Nanoseconds(),
		P50Ns: p50.Nanoseconds(), P90Ns: lat.pct(0.9).Nanoseconds(), P99Ns: lat.pct(0.99).Nanoseconds(),
		MaxNs: lat.runs[len(lat.runs)-1].Nanoseconds(), P50SampleNs: float64(p50.Nanoseconds()) / float64(m.Batch()),
		GMACPerSecond: gmacs(rep.MACs, p50), CPUMeanNs: lat.cpu.Nanoseconds() / int64(len(lat.runs)),
	}

	if o.ops {
		// every run's op times, op-major, for the medians
		n := m.NumOps()
		times := make([]time.Duration, n)
		perOp := make([][]time.Duration, n)
		plat, err := timeRuns(func() error { return s.RunProfiled(inBufs, outBufs, times) }, o.dur, o.maxRuns, func() {
			for k, d := range times {
				perOp[k] = append(perOp[k], d)
			}
		})
		if err != nil {
			return err
		}
		res.ProfiledRuns = len(plat.runs)
		var sum time.Duration
		med := make([]time.Duration, n)
		for k := range perOp {
			slices.Sort(perOp[k])
			med[k] = perOp[k][len(perOp[k])/2]
			sum += med[k]
		}
		for k, op := range rep.Ops {
			share := 0.0
			if sum > 0 {
				share = float64(med[k]) / float64(sum)
			}
			res.PerOp = append(res.PerOp, opProfile{Index: k, Kind: op.Op, Name: op.Name, MACs: op.MACs,
				P50Ns: med[k].Nanoseconds(), Share: share, GMACPerSecond: gmacs(op.MACs, med[k])})
		}
	}
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}

	ns := func(d time.Duration) string { return fmt.Sprintf("%d ns", d.Nanoseconds()) }
	row := func(k, v string) { fmt.Fprintf(w, "%-18s%s\n", k, v) }
	row("model", fmt.Sprintf("%s (%d ops, %d MACs, arena %s)", path, len(rep.Ops), rep.MACs, cliutil.FormatSize(m.ArenaBytes())))
	row("runs", fmt.Sprintf("%d in %s", len(lat.runs), lat.total.Round(time.Millisecond)))
	row("mean", ns(lat.mean()))
	row("min / p50", ns(lat.runs[0])+" / "+ns(p50))
	row("p90 / p99", ns(lat.pct(0.9))+" / "+ns(lat.pct(0.99)))
	row("max", ns(lat.runs[len(lat.runs)-1]))
	if res.CPUMeanNs > 0 {
		row("CPU time", fmt.Sprintf("%d ns per run (process, mean; not inflated by a busy machine)", res.CPUMeanNs))
	}
	if b := m.Batch(); b > 1 {
		row("per sample", fmt.Sprintf("%.0f ns at the p50 (%d samples per run)", res.P50SampleNs, b))
	}
	perSec := float64(len(lat.runs)) / lat.total.Seconds()
	row("throughput", fmt.Sprintf("%.0f inferences/s", perSec))
	if mean := lat.mean(); rep.MACs > 0 && mean > 0 {
		row("compute", fmt.Sprintf("%.3f GMAC/s (at the mean latency)", float64(rep.MACs)/mean.Seconds()/1e9))
	}
	if o.ops {
		fmt.Fprintf(w, "\nper op: median of %d profiled runs (clock read around each op in C)\n", res.ProfiledRuns)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "#\top\tname\tMACs\tp50 us\tshare\tGMAC/s\t")
		var sum int64
		for _, r := range res.PerOp {
			g := "-"
			if r.MACs > 0 && r.P50Ns > 0 {
				g = fmt.Sprintf("%.2f", r.GMACPerSecond)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%.2f\t%.1f%%\t%s\t\n", r.Index, r.Kind, r.Name, r.MACs, float64(r.P50Ns)/1e3, 100*r.Share, g)
			sum += r.P50Ns
		}
		fmt.Fprintf(tw, "\tsum\t\t%d\t%.2f\t100.0%%\t%.2f\t\n", rep.MACs, float64(sum)/1e3, gmacs(rep.MACs, time.Duration(sum)))
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
