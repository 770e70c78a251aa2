package main

import (
	"errors"
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
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/internal/tfliteimport"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/nkimage"
)

func init() {
	register(&command{
		name:    "convert",
		summary: "convert an ONNX or TFLite model to a .nk file",
		usage:   "MODEL.onnx|MODEL.tflite [-o MODEL.nk] [--labels FILE] [--mean M] [--std S] [--scale F] [--rounding double|single] [--batch N]",
		help: `Reads an ONNX model (opsets 11 to 18) or a TensorFlow Lite model, told
apart by content (the extension is only a fallback), and writes the .nk
file the C core runs. A .nk file is already converted and is refused.

ONNX: The converter infers every shape, folds constant subgraphs, removes
Identity and Dropout, folds BatchNorm into the Conv or Gemm before it,
fuses Relu and Clip into the op before them and PyTorch's erf GELU into one
op, and moves activations to channels-last (NHWC). A rank-4 graph input
stays NCHW, as onnxruntime takes it: the file records that layout and
transposes on the way in, so the same input gives the same output.

Anything the runtime cannot do exactly fails the conversion with one error
that names every offending node, its op type and the attribute or input at
fault; nothing is silently approximated.

TFLite: int8 models become netkit's int8 ops with every requantization
parameter (per-channel multipliers and shifts, activation clamps, softmax
and add parameters) computed as TensorFlow Lite Micro computes them, so the
int8 outputs are TFLM's bit for bit. --rounding names the rounding the
runtime is built with (double, TFLite's default, or single for
NETKIT_SINGLE_ROUNDING builds); it is recorded in the file. Float models
map to the float ops; models with int8 weights under float activations
(hybrid) become float models with dequantized weights. int16 tensors run
in TFLite's integer SVDF (its state kept across runs), QUANTIZE between
integer types and int8 -> int16 SOFTMAX. Operators netkit does not run
(int16 activations elsewhere, ...) fail the conversion, named.

Quantized ONNX: QuantizeLinear/DequantizeLinear pairs (QDQ, as torch.onnx
and onnxruntime's quantizer write them) and QLinearConv, QLinearMatMul,
QGemm and QLinearAdd (QOperator) become netkit's int8 ops with the scales
and zero points the model gives (per-tensor or per-channel int8 weights,
int8 or uint8 activations, uint8 shifted to int8) and float input and
output; requantization rounds as TFLite does (docs/INT8.md measures the
difference from onnxruntime and PyTorch).

-o defaults to MODEL with the extension .nk and may not be MODEL itself;
-o - writes the .nk to standard output and the summary to standard error.
The file is written beside its final name and renamed into place, so a
failed conversion leaves the old file as it was and a service that has
the old file mapped keeps reading the old model. --labels FILE stores
class names (one a line) for the first output; 'netkit run' prints them.
--mean, --std and --scale record how image pixels p (0..255) become input
values, (p * scale - mean) / std, for 'netkit run --input IMAGE' and
Model.ImageInput; scale defaults to 1/255, mean to 0, std to 1.

--batch N gives a symbolic batch dimension (ONNX: the first dimension of a
graph input as a dim_param, unknown or 0; TFLite: a shape_signature of -1
first) the size N: one invoke then runs
N samples, and every graph input and output leads with N ('netkit run' and
the Go API's RunBatch split and pad whole batches). The default, 1, runs
one sample per invoke. A model whose batch is fixed at another size fails.

--stream-state (ONNX) makes every LSTM and GRU keep its final state for the
next invoke (STATE tensors, docs/MEMORY.md): invoking on the chunks of a
sequence in order then equals invoking on the whole sequence, as TFLite's
UNIDIRECTIONAL_SEQUENCE_LSTM with variable tensors does. The state is zero
after a load and after Model.ResetState (C: nk_model_reset_state). Forward
layers without initial_h, initial_c or uneven sequence_lens only. A TFLite
UNIDIRECTIONAL_SEQUENCE_LSTM always converts this way (its state tensors
are variable).

The summary lists the ops, parameters, multiply-accumulates per inference,
what the passes folded, and the arena the model needs, as 'netkit inspect'
computes it.`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			out := fs.String("o", "", "output `FILE` (default: MODEL with extension .nk; - for standard output)")
			labels := fs.String("labels", "", "class names `FILE`, one a line")
			mean := fs.String("mean", "", "image preprocessing: `MEAN` subtracted, one value or one per channel (comma-separated)")
			std := fs.String("std", "", "image preprocessing: `STD` divided by, one value or one per channel")
			scale := fs.String("scale", "", "image preprocessing: `FACTOR` of the 0..255 pixels before mean and std (default 1/255)")
			rounding := fs.String("rounding", "double", "int8 requantization rounding of the target runtime: `double` or single (TFLite models)")
			batch := fs.Int("batch", 1, "samples per invoke: the size of a symbolic batch dimension `N`")
			stream := fs.Bool("stream-state", false, "ONNX LSTM/GRU carry their final state into the next invoke (streaming over chunks of a sequence)")
			return func(args []string, stdout, stderr io.Writer) error {
				if len(args) != 1 {
					return usagef("want one MODEL.onnx or MODEL.tflite, have %d arguments", len(args))
				}
				if *batch < 1 || *batch > nkfile.MaxDim {
					return usagef("--batch: want 1 to %d, have %d", nkfile.MaxDim, *batch)
				}
				_, format, err := readModel(args[0])
				if err != nil {
					return err
				}
				switch format {
				case formatNK:
					return fmt.Errorf("%s is already a .nk model (converted); give it to run, inspect or aot as it is", args[0])
				case formatUnknown:
					return fmt.Errorf("%s is neither ONNX nor TFLite (by content or by extension)", args[0])
				}
				dst := *out
				if dst == "" {
					dst = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + ".nk"
				}
				if cliutil.SameFile(dst, args[0]) {
					return usagef("output %q is the input file; choose another -o", dst)
				}
				labelText, err := readLabels(*labels)
				if err != nil {
					return err
				}
				var pre *nkimage.Preprocess
				if *mean != "" || *std != "" || *scale != "" {
					if pre, err = nkimage.ParsePreprocess(*scale, *mean, *std); err != nil {
						return usagef("%v", err)
					}
				}
				data, report := stdout, stdout
				if dst == stdoutName {
					report = stderr
				}
				if format == formatTFLite {
					r, err := quant.ParseRounding(*rounding)
					if err != nil {
						return usagef("--rounding: %v", err)
					}
					if *stream {
						return usagef("--stream-state: for ONNX LSTM/GRU models only")
					}
					return convertTFLite(args[0], dst, labelText, pre, r, *batch, data, report)
				}
				return convertONNX(args[0], dst, labelText, pre, *batch, *stream, data, report)
			}
		},
	})
}

// readLabels reads class names, one a line, as the META labels value.
func readLabels(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n"), nil
}

// addPreprocess records the image preprocessing in the model's metadata.
func addPreprocess(m *nkfile.Model, pre *nkimage.Preprocess) {
	if pre == nil {
		return
	}
	for _, kv := range pre.Meta() {
		m.Meta = append(m.Meta, nkfile.KV{Key: kv[0], Value: kv[1]})
	}
}

// checkLabels: the --labels names are one per class of output 0 (its last
// dimension), as 'netkit run' prints them.
func checkLabels(labels string, outs []nk.TensorInfo) error {
	if labels == "" {
		return nil
	}
	n := len(strings.Split(labels, "\n"))
	t := outs[0]
	if len(t.Shape) == 0 || t.Shape[len(t.Shape)-1] != n {
		classes := 1
		if len(t.Shape) > 0 {
			classes = t.Shape[len(t.Shape)-1]
		}
		return fmt.Errorf("--labels: %d names, but output 0 %q %v has %d classes (its last dimension)", n, t.Name, t.Shape, classes)
	}
	return nil
}

// onnxToNK reads and converts an ONNX model to a .nk model.
func onnxToNK(src, labels string, batch int, streamState bool) (*graph.Graph, *nkfile.Model, error) {
	m, err := onnx.ReadFile(src)
	if err != nil {
		return nil, nil, err
	}
	opts := graph.Options{Source: filepath.Base(src), Labels: labels, Batch: batch, StreamState: streamState}
	g, err := graph.Convert(m, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", src, err)
	}
	if !g.HasQDQ() {
		model, err := g.ToNK()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", src, err)
		}
		return g, model, nil
	}
	model, err := g.ToInt8NK()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", src, err)
	}
	return g, model, nil
}

func convertONNX(src, dst, labels string, pre *nkimage.Preprocess, batch int, streamState bool, data, stdout io.Writer) error {
	g, model, err := onnxToNK(src, labels, batch, streamState)
	if err != nil {
		return err
	}
	addPreprocess(model, pre)
	img, err := nkfile.Encode(model)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	// The core itself sizes the arena, so the summary is what a device sees.
	r, err := nk.InspectBytes(img)
	if err != nil {
		return fmt.Errorf("the converted model does not load: %w", err)
	}
	if err := checkLabels(labels, r.Outputs); err != nil {
		return err
	}
	if err := writeOutput(dst, img, data); err != nil {
		return err
	}
	writeConvertSummary(stdout, src, dst, g, model, r)
	return nil
}

func convertTFLite(src, dst, labels string, pre *nkimage.Preprocess, r quant.Rounding, batch int, data, stdout io.Writer) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	m, err := tflite.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	convert := func(r quant.Rounding) (*nkfile.Model, []byte, error) {
		model, err := tfliteimport.Convert(m, tfliteimport.Options{Source: filepath.Base(src), Labels: labels, Rounding: r, Batch: batch})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", src, err)
		}
		addPreprocess(model, pre)
		img, err := nkfile.Encode(model)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", src, err)
		}
		return model, img, nil
	}
	model, img, err := convert(r)
	if err != nil {
		return err
	}
	rep, err := nk.InspectBytes(img)
	note := ""
	if err != nil && errors.Is(err, nk.ErrUnsupported) && r == quant.SingleRounding {
		// This host's core requantizes with double rounding and refuses the
		// file; the double-rounding twin has the same layout, so its
		// figures are the single-rounding file's.
		_, twin, terr := convert(quant.DoubleRounding)
		if terr != nil {
			return terr
		}
		rep, err = nk.InspectBytes(twin)
		if err == nil {
			rep.FileBytes = int64(len(img))
			note = " (for a NETKIT_SINGLE_ROUNDING build; this host's core uses double rounding and cannot run it)"
		}
	}
	if err != nil {
		return fmt.Errorf("the converted model does not load: %w", err)
	}
	if err := checkLabels(labels, rep.Outputs); err != nil {
		return err
	}
	if err := writeOutput(dst, img, data); err != nil {
		return err
	}
	row := func(k, v string) { fmt.Fprintf(stdout, "%-22s%s\n", k, v) }
	sz := cliutil.FormatSize
	row("converted", fmt.Sprintf("%s -> %s (%s; the .tflite is %s)", src, dst, sz(rep.FileBytes), sz(int64(len(raw)))))
	row("ops", fmt.Sprintf("%d: %s", len(model.Ops), opCounts(model)))
	row("MACs per inference", fmt.Sprint(rep.MACs))
	if v, ok := model.MetaValue(nkfile.MetaInt8Rounding); ok {
		row("int8 rounding", v+note)
	}
	row("inputs", describeInfos(rep.Inputs))
	row("outputs", describeInfos(rep.Outputs))
	row("arena after load", sz(rep.ArenaAfterLoad))
	row("arena after forward", sz(rep.ArenaAfterForward))
	row("flash payload", sz(rep.FlashPayload))
	return nil
}

// opCounts is "conv2d x3, dense x1" in name order.
func opCounts(m *nkfile.Model) string {
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
	return strings.Join(ops, ", ")
}

func writeConvertSummary(w io.Writer, src, dst string, g *graph.Graph, m *nkfile.Model, r *nk.Report) {
	row := func(k, v string) { fmt.Fprintf(w, "%-22s%s\n", k, v) }
	sz := cliutil.FormatSize
	s := g.Stats
	row("converted", fmt.Sprintf("%s -> %s (%s)", src, dst, sz(r.FileBytes)))
	row("ops", fmt.Sprintf("%d: %s", len(m.Ops), opCounts(m)))
	row("parameters", fmt.Sprintf("%d (%s of weights)", g.Params(), sz(r.ParamBytes)))
	row("MACs per inference", fmt.Sprint(r.MACs))
	row("folded BatchNorms", fmt.Sprint(s.FoldedBatchNorms))
	row("fused", fmt.Sprintf("%d activations, %d GELUs; removed %d Identity/Dropout; folded %d constant nodes",
		s.FusedActivations, s.FusedGelus, s.RemovedNodes, s.FoldedConstants))
	row("layout transposes", fmt.Sprint(s.Transposes))
	if g.HasQDQ() {
		float := "none"
		if len(s.FloatOps) > 0 {
			float = strings.Join(s.FloatOps, "; ")
		}
		row("float ops", float)
	}
	row("inputs", describeInfos(r.Inputs))
	row("outputs", describeInfos(r.Outputs))
	row("arena after load", sz(r.ArenaAfterLoad))
	row("arena after forward", sz(r.ArenaAfterForward))
	row("flash payload", sz(r.FlashPayload))
}
