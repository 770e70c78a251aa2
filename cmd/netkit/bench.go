package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/nk"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "measure inference latency and throughput on this machine",
		usage:   "MODEL [--time DURATION] [--n N] [--arena SIZE]",
		help: `Runs MODEL on a deterministic pseudo-random input in a Session (its own
activations, no Go allocations per call), after a short warm-up, until
--time has passed or --n runs were made (whichever comes first, at least
10 runs), timing every call (the clock reads add some tens of ns to each
figure, which matters only for the tiniest models). Prints the latency distribution, inferences
per second and multiply-accumulates per second (from the model's MAC count).`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			dur := fs.Duration("time", time.Second, "measure for about `DURATION`")
			n := fs.Int("n", 1_000_000, "stop after `N` runs")
			arena := fs.String("arena", "", "arena budget `SIZE`; default: exact")
			return func(args []string, stdout, _ io.Writer) error {
				if len(args) != 1 {
					return usagef("want one MODEL, have %d arguments", len(args))
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
