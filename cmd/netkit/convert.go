package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/internal/graph"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
	"github.com/netkit/netkit/nk"
)

func init() {
	register(&command{
		name:    "convert",
		summary: "convert an ONNX model to a .nk file",
		usage:   "MODEL.onnx [-o MODEL.nk] [--labels FILE]",
		help: `Reads an ONNX model (opsets 11 to 18) and writes the .nk file the C core
runs. The converter infers every shape, folds constant subgraphs, removes
Identity and Dropout, folds BatchNorm into the Conv or Gemm before it,
fuses Relu and Clip into the op before them and PyTorch's erf GELU into one
op, and moves activations to channels-last (NHWC). A rank-4 graph input
stays NCHW, as onnxruntime takes it: the file records that layout and
transposes on the way in, so the same input gives the same output.

Anything the runtime cannot do exactly fails the conversion with one error
that names every offending node, its op type and the attribute or input at
fault; nothing is silently approximated.

-o defaults to MODEL with the extension .nk. --labels FILE stores class
names (one a line) for the first output; 'netkit run' prints them.

The summary lists the ops, parameters, multiply-accumulates per inference,
what the passes folded, and the arena the model needs, as 'netkit inspect'
computes it.`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			out := fs.String("o", "", "output `FILE` (default: MODEL with extension .nk)")
			labels := fs.String("labels", "", "class names `FILE`, one a line")
			return func(args []string, stdout, _ io.Writer) error {
				if len(args) != 1 {
					return usagef("want one MODEL.onnx, have %d arguments", len(args))
				}
				dst := *out
				if dst == "" {
					dst = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + ".nk"
				}
				return convertONNX(args[0], dst, *labels, stdout)
			}
		},
	})
}

func convertONNX(src, dst, labelsPath string, stdout io.Writer) error {
	m, err := onnx.ReadFile(src)
	if err != nil {
		return err
	}
	opts := graph.Options{Source: filepath.Base(src)}
	if labelsPath != "" {
		b, err := os.ReadFile(labelsPath)
		if err != nil {
			return err
		}
		opts.Labels = strings.TrimRight(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	}
	g, err := graph.Convert(m, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	model, err := g.ToNK()
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	img, err := nkfile.Encode(model)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	// The core itself sizes the arena, so the summary is what a device sees.
	r, err := nk.InspectBytes(img)
	if err != nil {
		return fmt.Errorf("the converted model does not load: %w", err)
	}
	if err := os.WriteFile(dst, img, 0o644); err != nil {
		return err
	}
	writeConvertSummary(stdout, src, dst, g, model, r)
	return nil
}

func writeConvertSummary(w io.Writer, src, dst string, g *graph.Graph, m *nkfile.Model, r *nk.Report) {
	row := func(k, v string) { fmt.Fprintf(w, "%-22s%s\n", k, v) }
	sz := cliutil.FormatSize
	counts := map[string]int{}
	for _, op := range m.Ops {
		counts[op.Type.String()]++
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var ops []string
	for _, n := range names {
		ops = append(ops, fmt.Sprintf("%s x%d", n, counts[n]))
	}
	s := g.Stats
	row("converted", fmt.Sprintf("%s -> %s (%s)", src, dst, sz(r.FileBytes)))
	row("ops", fmt.Sprintf("%d: %s", len(m.Ops), strings.Join(ops, ", ")))
	row("parameters", fmt.Sprintf("%d (%s of weights)", g.Params(), sz(r.ParamBytes)))
	row("MACs per inference", fmt.Sprint(r.MACs))
	row("folded BatchNorms", fmt.Sprint(s.FoldedBatchNorms))
	row("fused", fmt.Sprintf("%d activations, %d GELUs; removed %d Identity/Dropout; folded %d constant nodes",
		s.FusedActivations, s.FusedGelus, s.RemovedNodes, s.FoldedConstants))
	row("layout transposes", fmt.Sprint(s.Transposes))
	row("inputs", describeInfos(r.Inputs))
	row("outputs", describeInfos(r.Outputs))
	row("arena after load", sz(r.ArenaAfterLoad))
	row("arena after forward", sz(r.ArenaAfterForward))
	row("flash payload", sz(r.FlashPayload))
}
