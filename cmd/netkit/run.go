package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/prng"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/nkimage"
	"github.com/netkit/netkit/nk/npy"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run a model on inputs from files (or a pseudo-random input)",
		usage:   "MODEL [--input FILE]... [--output FILE]... [--arena SIZE] [--top K] [--dequantize]",
		help: `Loads MODEL into one arena (sized exactly, or the --arena budget) and runs it.

An input FILE that is an image (.png, .jpg, .pgm by extension) feeds an
image-shaped input ([1 H W C], or [1 C H W] in NCHW): it is resized to H x W,
taken as gray (C = 1) or RGB (C = 3) and scaled by the preprocessing the
model records (convert --mean --std --scale), else to [0, 1] for a float
input and p - 128 for an int8 one; the run says which rule it used.

An input FILE is otherwise .npy (by extension) of the input's dtype and shape
[N, ...input shape] (dims of 1 may be left out), or raw little-endian bytes
of the input's dtype (float32 for float models, int8 for int8 models; an
ONNX model's integer, float16 or double input takes its own type). It may
hold N whole inputs back to back, N inferred from its size; a size that is
not a whole number of inputs is an error. The file of an empty input (a dim
of 0) holds no bytes and fits any N. Give --input once per model input,
in order. Without --input, one deterministic pseudo-random input is used.

Outputs go to --output files (once per model output, in order), .npy of
shape [N, ...] or raw by extension, each written beside its final name
and renamed into place; an --output may not be MODEL or an --input.
--output - writes that output's raw bytes to standard output, and the
report goes to standard error. For a classifier (output 0 produced by
softmax, or shaped [1, K]) the top K classes of each input are printed, with
the model's labels when it has them. The time per inference is printed.

A float32 .npy for an int8 input is quantized with the input's scale and
zero point (q = round(x / scale) + zero_point, clamped), and the run says so.
int8 outputs print as integers; --dequantize prints them as real values,
scale * (q - zero_point) with the output's quantization (files written by
--output keep the int8 bytes). Classes of an int8 classifier rank by their
int8 value, which orders them as the real values do.`,
		flags: runFlags,
	})
}

func runFlags(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
	var inputs, outputs listFlag
	fs.Var(&inputs, "input", "input `FILE` (.npy, raw, or an image: .png, .jpg, .pgm); repeat once per model input")
	fs.Var(&outputs, "output", "output `FILE` (.npy or raw; - for raw bytes on standard output); repeat once per model output")
	arena := fs.String("arena", "", "arena budget `SIZE` (65536, 64K, 64KiB, 2M, 2MiB); default: exact")
	top := fs.Int("top", 5, "classes to print per input for classifiers")
	dequantize := fs.Bool("dequantize", false, "print int8 outputs as real values (scale * (q - zero_point))")
	return func(args []string, stdout, stderr io.Writer) error {
		if len(args) != 1 {
			return usagef("want one MODEL, have %d arguments", len(args))
		}
		report := stdout
		if n := slices.Index(outputs, stdoutName); n >= 0 {
			if slices.Index(outputs[n+1:], stdoutName) >= 0 {
				return usagef("--output - (standard output) may be given once")
			}
			report = stderr
		}
		if *top < 1 {
			return usagef("--top must be at least 1")
		}
		var opts []nk.Option
		if *arena != "" {
			n, err := cliutil.ParseSize(*arena)
			if err != nil {
				return usagef("--arena: %v", err)
			}
			opts = append(opts, nk.WithArenaSize(n))
		}
		return runModel(report, stdout, args[0], inputs, outputs, opts, printOpts{top: *top, dequantize: *dequantize})
	}
}

// printOpts say how outputs are shown.
type printOpts struct {
	top        int  // classes per input for classifiers
	dequantize bool // int8 as real values
}

// runModel runs the model and prints its report to w; an --output "-"
// writes to stdout.
func runModel(w, stdout io.Writer, path string, inFiles, outFiles []string, opts []nk.Option, po printOpts) error {
	for _, out := range outFiles {
		if out == stdoutName {
			continue
		}
		if cliutil.SameFile(out, path) {
			return usagef("--output %q is the model file; choose another --output", out)
		}
		for _, in := range inFiles {
			if cliutil.SameFile(out, in) {
				return usagef("--output %q is the --input file %q; choose another --output", out, in)
			}
		}
	}
	m, err := nk.Load(path, opts...)
	if err != nil {
		return loadError(path, err)
	}
	defer m.Close()
	// a batch model's tensors hold Batch samples: files hold samples
	ins, outs := sampleInfos(m.Inputs(), m.Batch()), sampleInfos(m.Outputs(), m.Batch())
	if len(inFiles) != 0 && len(inFiles) != len(ins) {
		return usagef("the model has %d inputs, --input was given %d times", len(ins), len(inFiles))
	}
	if len(outFiles) != 0 && len(outFiles) != len(outs) {
		return usagef("the model has %d outputs, --output was given %d times", len(outs), len(outFiles))
	}

	batches := make([][]byte, len(ins))
	n := 1
	counted := "" // the input file that set n
	var notes []string
	if len(inFiles) == 0 {
		for i, t := range ins {
			batches[i] = randomInput(t, uint64(i)+1)
		}
	} else {
		for i, f := range inFiles {
			if nkimage.IsImageFile(f) {
				img, err := nkimage.ReadFile(f)
				if err != nil {
					return fmt.Errorf("input %d (%q): %w", i, ins[i].Name, err)
				}
				data, rule, err := m.ImageInput(i, img)
				if err != nil {
					return fmt.Errorf("input %d (%q): %s: %w", i, ins[i].Name, f, err)
				}
				if counted != "" && n != 1 {
					return fmt.Errorf("input %d (%q): %s is one image, %s holds %d inputs", i, ins[i].Name, f, counted, n)
				}
				batches[i], n, counted = data, 1, f
				notes = append(notes, fmt.Sprintf("input %d: %s: %s", i, f, rule))
				continue
			}
			data, count, quantized, err := readInputs(f, ins[i])
			if err != nil {
				return fmt.Errorf("input %d (%q): %w", i, ins[i].Name, err)
			}
			if quantized {
				notes = append(notes, fmt.Sprintf("input %d: float32 from %s quantized to int8: q = round(x / %g) + %d, clamped to [-128, 127]",
					i, f, ins[i].Scale, ins[i].ZeroPoint))
			}
			batches[i] = data
			switch {
			case count == 0: // an empty input fits any number of inputs
			case counted != "" && count != n:
				return fmt.Errorf("input %d (%q): %s holds %d inputs, %s holds %d", i, ins[i].Name, f, count, counted, n)
			default:
				n, counted = count, f
			}
		}
	}

	results := make([][]byte, len(outs))
	for k, t := range outs {
		results[k] = make([]byte, n*t.Bytes())
	}
	// one call: Batch samples per invoke, the last invoke padded
	start := time.Now()
	if err := m.RunBatchRaw(batches, results); err != nil {
		return err
	}
	elapsed := time.Since(start)

	for k, f := range outFiles {
		if err := writeBatch(f, outs[k], n, results[k], stdout); err != nil {
			return fmt.Errorf("output %d (%q): %w", k, outs[k].Name, err)
		}
	}

	fmt.Fprintf(w, "%s: %s in, %s out, arena %s\n", filepath.Base(path), describeInfos(m.Inputs()), describeInfos(m.Outputs()), cliutil.FormatSize(m.ArenaBytes()))
	if b := m.Batch(); b > 1 {
		fmt.Fprintf(w, "batch model: %d samples per invoke (%d samples: %d invokes)\n", b, n, (n+b-1)/b)
	}
	if len(inFiles) == 0 {
		fmt.Fprintln(w, "input: deterministic pseudo-random (give --input FILE for real data)")
	}
	for _, note := range notes {
		fmt.Fprintln(w, note)
	}
	switch {
	case isClassifier(path, outs):
		printTopK(w, outs[0], results[0], n, po, m.Labels())
	case len(outFiles) == 0:
		printOutputs(w, outs, results, n, po.dequantize)
	}
	fmt.Fprintf(w, "time per inference: %s (mean of %d)\n", perInference(elapsed, n), n)
	return nil
}

// sampleInfos are the tensors of one sample of a model running batch
// samples per invoke: the leading batch dim becomes 1.
func sampleInfos(ts []nk.TensorInfo, batch int) []nk.TensorInfo {
	if batch <= 1 {
		return ts
	}
	out := make([]nk.TensorInfo, len(ts))
	for i, t := range ts {
		t.Shape = append([]int{1}, t.Shape[1:]...)
		out[i] = t
	}
	return out
}

func perInference(total time.Duration, n int) string {
	d := total / time.Duration(n)
	if d < 10*time.Microsecond {
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	}
	return d.Round(100 * time.Nanosecond).String()
}

func describeInfos(ts []nk.TensorInfo) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = describeInfo(t)
	}
	return strings.Join(parts, ", ")
}

func describeInfo(t nk.TensorInfo) string {
	s := fmt.Sprintf("%s %v %s", t.Name, t.Shape, t.DType)
	if t.Scale > 0 {
		s += fmt.Sprintf(" (scale %g, zero point %d)", t.Scale, t.ZeroPoint)
	}
	if t.Layout == nk.LayoutNCHW {
		s += " (source layout nchw)"
	}
	return s
}

func npyDescr(d nk.DType) string {
	return map[nk.DType]string{nk.F32: npy.F32, nk.I8: npy.I8, nk.I16: npy.I16, nk.I32: npy.I32, nk.U8: npy.U8,
		nk.U16: npy.U16, nk.U32: npy.U32, nk.I64: npy.I64, nk.U64: npy.U64, nk.F16: npy.F16, nk.F64: npy.F64}[d]
}

func isNpy(path string) bool { return strings.EqualFold(filepath.Ext(path), ".npy") }

// readBatch reads whole inputs for tensor t and returns their bytes and
// count, as readInputs.
func readBatch(path string, t nk.TensorInfo) ([]byte, int, error) {
	b, n, _, err := readInputs(path, t)
	return b, n, err
}

// readInputs reads whole inputs for tensor t and returns their bytes and
// count (0 for an empty input, whose file must hold no bytes). A float32
// .npy for a quantized int8 input is quantized (quantized is then true).
func readInputs(path string, t nk.TensorInfo) (data []byte, count int, quantized bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, false, err
	}
	format := "raw " + t.DType.String()
	if isNpy(path) {
		a, err := npy.Read(bytes.NewReader(b))
		if err != nil {
			return nil, 0, false, fmt.Errorf("%s: %w", path, err)
		}
		quantized = a.Descr == npy.F32 && t.DType == nk.I8 && t.Scale > 0
		if want := npyDescr(t.DType); a.Descr != want && !quantized {
			return nil, 0, false, fmt.Errorf("%s holds %s, the input is %s (%s)", path, a.Descr, t.DType, want)
		}
		if !batchOf(a.Shape, t.Shape) {
			return nil, 0, false, fmt.Errorf("%s has shape %v, which is not a batch of %v inputs (want [N %s])",
				path, a.Shape, t.Shape, strings.Trim(fmt.Sprint(t.Shape), "[]"))
		}
		b, format = a.Data, fmt.Sprintf(".npy of shape %v", a.Shape)
		if quantized {
			b = quantizeI8(nkfile.BytesF32(a.Data), t.Scale, t.ZeroPoint)
		}
	}
	per := t.Bytes()
	if per == 0 { // an empty input: no bytes, whatever the number of inputs
		if len(b) != 0 {
			return nil, 0, false, fmt.Errorf("%s holds %d B; input of shape %v is empty", path, len(b), t.Shape)
		}
		return nil, 0, quantized, nil
	}
	if len(b) == 0 || len(b)%per != 0 {
		return nil, 0, false, fmt.Errorf("%s (%s, %d B) is not a whole number of %v %s inputs of %d B each",
			path, format, len(b), t.Shape, t.DType, per)
	}
	return b, len(b) / per, quantized, nil
}

// quantizeI8 quantizes real values for an int8 input (TFLite's Quantize).
func quantizeI8(x []float32, scale float32, zeroPoint int32) []byte {
	out := make([]byte, len(x))
	for i, v := range x {
		out[i] = byte(quant.QuantizeI8(v, scale, zeroPoint))
	}
	return out
}

// batchOf reports whether an array of shape arr holds whole tensors of
// shape t along its leading axes. Dims of 1 are ignored on both sides, so
// [N, 64] feeds a [1, 64] input, while [1, 3, 16, 16] (NCHW) is caught
// against a [1, 16, 16, 3] (NHWC) input.
func batchOf(arr, t []int) bool {
	squeeze := func(s []int) []int {
		var out []int
		for _, d := range s {
			if d != 1 {
				out = append(out, d)
			}
		}
		return out
	}
	a, c := squeeze(arr), squeeze(t)
	return len(a) >= len(c) && slices.Equal(a[len(a)-len(c):], c)
}

func writeBatch(path string, t nk.TensorInfo, n int, data []byte, stdout io.Writer) error {
	if !isNpy(path) {
		return writeOutput(path, data, stdout)
	}
	shape := append([]int{n}, t.Shape...)
	return cliutil.ReplaceFile(path, func(w io.Writer) error {
		return npy.Write(w, &npy.Array{Descr: npyDescr(t.DType), Shape: shape, Data: data})
	})
}

// randomInput is a deterministic input: splitmix64 values, uniform in
// [-1, 1) for float tensors and over the whole range for integer ones.
func randomInput(t nk.TensorInfo, seed uint64) []byte {
	r := prng.New(seed)
	out := make([]byte, t.Bytes())
	size := t.DType.Size()
	for i := 0; i < len(out); i += size {
		if t.DType == nk.F32 {
			binary.LittleEndian.PutUint32(out[i:], math.Float32bits(r.Float32(-1, 1)))
			continue
		}
		v := r.Uint64()
		for k := range size {
			out[i+k] = byte(v >> (8 * k))
		}
	}
	return out
}

// isClassifier: output 0 is float or int8 and comes from a softmax, or is [1, K].
func isClassifier(path string, outs []nk.TensorInfo) bool {
	if outs[0].DType != nk.F32 && outs[0].DType != nk.I8 {
		return false
	}
	if sh := outs[0].Shape; len(sh) == 2 && sh[0] == 1 && sh[1] >= 2 {
		return true
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	m, err := nkfile.Decode(b)
	if err != nil {
		return false
	}
	id := m.Outputs[0].Tensor
	for _, op := range m.Ops {
		for _, o := range op.Outputs {
			if o == id {
				return op.Type == nkfile.OpSoftmax || op.Type == nkfile.OpSoftmaxI8
			}
		}
	}
	return false
}

// elemValues decodes a float32 or int8 output; int8 is dequantized when asked
// (and the tensor has a scale), else kept as the integers.
func elemValues(t nk.TensorInfo, data []byte, dequantize bool) []float64 {
	out := make([]float64, len(data)/t.DType.Size())
	for i := range out {
		switch t.DType {
		case nk.F32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
		case nk.I8:
			out[i] = float64(int8(data[i]))
			if dequantize && t.Scale > 0 {
				out[i] = float64(t.Scale) * (out[i] - float64(t.ZeroPoint))
			}
		}
	}
	return out
}

func printTopK(w io.Writer, t nk.TensorInfo, data []byte, n int, po printOpts, labels []string) {
	classes := t.Shape[len(t.Shape)-1]
	rows := t.Elems() / classes
	vals := elemValues(t, data, po.dequantize)
	k := min(po.top, classes)
	if po.top > classes {
		fmt.Fprintf(w, "--top %d: %q has %d classes; showing all %d\n", po.top, t.Name, classes, classes)
	}
	format := "%s %.4f"
	if t.DType == nk.I8 && !(po.dequantize && t.Scale > 0) {
		format = "%s %.0f"
	}
	if len(labels) != classes {
		labels = nil
	}
	fmt.Fprintf(w, "top %d of %q:\n", k, t.Name)
	for s := range n {
		for r := range rows {
			row := vals[(s*rows+r)*classes : (s*rows+r+1)*classes]
			idx := make([]int, classes)
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
			parts := make([]string, k)
			for j, c := range idx[:k] {
				name := fmt.Sprint(c)
				if labels != nil {
					name = labels[c]
				}
				parts[j] = fmt.Sprintf(format, name, row[c])
			}
			tag := fmt.Sprintf("[%d]", s)
			if rows > 1 {
				tag = fmt.Sprintf("[%d.%d]", s, r)
			}
			fmt.Fprintf(w, "  %s %s\n", tag, strings.Join(parts, ", "))
		}
	}
}

// printOutputs shows the first values of each output of each input.
func printOutputs(w io.Writer, outs []nk.TensorInfo, results [][]byte, n int, dequantize bool) {
	const show = 8
	for k, t := range outs {
		per := t.Bytes()
		for s := range n {
			chunk := results[k][s*per : (s+1)*per]
			var vals []string
			size := t.DType.Size()
			for i := 0; i < len(chunk) && len(vals) < show; i += size {
				if dequantize && t.DType == nk.I8 && t.Scale > 0 {
					vals = append(vals, fmt.Sprintf("%.6g", float64(t.Scale)*float64(int32(int8(chunk[i]))-t.ZeroPoint)))
					continue
				}
				vals = append(vals, formatElem(t.DType, chunk[i:i+size]))
			}
			more := ""
			if t.Elems() > show {
				more = fmt.Sprintf(" ... (%d values)", t.Elems())
			}
			fmt.Fprintf(w, "output %d %q [%d]: %s%s\n", k, t.Name, s, strings.Join(vals, " "), more)
		}
	}
}

func formatElem(d nk.DType, b []byte) string {
	switch d {
	case nk.F32:
		return fmt.Sprintf("%.6g", math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case nk.F64:
		return fmt.Sprintf("%.15g", math.Float64frombits(binary.LittleEndian.Uint64(b)))
	case nk.F16:
		return fmt.Sprintf("%.5g", halfToFloat(binary.LittleEndian.Uint16(b)))
	case nk.I8:
		return fmt.Sprint(int8(b[0]))
	case nk.U8:
		return fmt.Sprint(b[0])
	case nk.I16:
		return fmt.Sprint(int16(binary.LittleEndian.Uint16(b)))
	case nk.U16:
		return fmt.Sprint(binary.LittleEndian.Uint16(b))
	case nk.U32:
		return fmt.Sprint(binary.LittleEndian.Uint32(b))
	case nk.I64:
		return fmt.Sprint(int64(binary.LittleEndian.Uint64(b)))
	case nk.U64:
		return fmt.Sprint(binary.LittleEndian.Uint64(b))
	}
	return fmt.Sprint(int32(binary.LittleEndian.Uint32(b)))
}

// halfToFloat widens IEEE binary16 bits (exact).
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp, frac := uint32(h>>10)&0x1F, uint32(h)&0x3FF
	switch {
	case exp == 0x1F: // inf, NaN
		return math.Float32frombits(sign | 0x7F800000 | frac<<13)
	case exp == 0: // zero, subnormal: frac * 2^-24
		v := float32(frac) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}
