package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/ptq"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
)

func init() {
	register(&command{
		name:    "quantize",
		summary: "quantize a float model to int8 from calibration inputs",
		usage:   "MODEL.onnx|MODEL.nk --calib FILE [--calib FILE]... [-o OUT.nk] [--method minmax|percentile] [--percentile P] [--int8-io] [--rounding double|single] [--eval FILE --labels FILE]",
		help: `Post-training static quantization: runs the float model on the
calibration inputs, records the range of every activation, and writes an
int8 model that runs on netkit's int8 kernels (TensorFlow Lite's int8
arithmetic, the same output bytes on the host and on every MCU).

Weights are quantized per output channel, symmetric (zero point 0, -127 to
127); activations per tensor, asymmetric int8; biases to int32 at the scale
input x weight. Every requantization multiplier and shift is computed here
and stored in the file. Softmax, logistic and tanh outputs take TFLite's
fixed quantization; pools, reshape and transpose keep their input's. Ops
with no int8 kernel (GELU, ...) stay float32 between a DEQUANTIZE and a
QUANTIZE; the summary names them.

MODEL is an ONNX model (converted as 'netkit convert' does) or a float .nk.
--calib FILE holds whole inputs for the model's one input, as 'netkit run
--input' takes them (.npy of float32, or raw float32; a file may hold many
inputs); give it several times to use several files. A file of the wrong
shape or dtype, an empty file, or a NaN or infinite value is an error.

--method picks how each activation's range is chosen: minmax (the extremes
seen) or percentile (the --percentile P and 100-P percentiles of all values
seen, default 99.99, which ignores rare outliers; two passes over the
calibration inputs). Every range includes 0. Calibration runs the portable
C kernels, so the file is the same whatever the host's SIMD.

The model takes and returns float32 by default (it quantizes its input and
dequantizes its outputs itself), so 'netkit run' takes the same inputs as
for the float model. --int8-io keeps the graph inputs and outputs int8, for
firmware that feeds int8 directly; their scale and zero point are in the
file ('netkit inspect').

--eval FILE runs the float and the int8 model on the inputs in FILE and
reports how often their top-1 classes agree; with --labels FILE (a .npy of
integer class indices, or one index a line) it also reports both
accuracies.

-o defaults to MODEL with the extension .int8.nk; -o - writes the .nk to
standard output and the summary to standard error. A progress bar is drawn
on standard error when it is a terminal.`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			out := fs.String("o", "", "output `FILE` (default: MODEL with extension .int8.nk; - for standard output)")
			var calib listFlag
			fs.Var(&calib, "calib", "calibration inputs `FILE` (.npy or raw float32; repeatable)")
			method := fs.String("method", "minmax", "activation range `METHOD`: minmax or percentile")
			pct := fs.Float64("percentile", 99.99, "percentile `P` of the percentile method")
			int8IO := fs.Bool("int8-io", false, "keep the graph inputs and outputs int8")
			rounding := fs.String("rounding", "double", "int8 requantization rounding of the target runtime: `double` or single")
			eval := fs.String("eval", "", "evaluation inputs `FILE`: top-1 agreement of int8 with float")
			labels := fs.String("labels", "", "class indices `FILE` of the --eval inputs: accuracy")
			return func(args []string, stdout, stderr io.Writer) error {
				if len(args) != 1 {
					return usagef("want one MODEL.onnx or MODEL.nk, have %d arguments", len(args))
				}
				if len(calib) == 0 {
					return usagef("give calibration inputs with --calib FILE")
				}
				m, err := ptq.ParseMethod(*method)
				if err != nil {
					return usagef("--method: %v", err)
				}
				r, err := quant.ParseRounding(*rounding)
				if err != nil {
					return usagef("--rounding: %v", err)
				}
				if *labels != "" && *eval == "" {
					return usagef("--labels needs --eval")
				}
				dst := *out
				if dst == "" {
					dst = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + ".int8.nk"
				}
				if cliutil.SameFile(dst, args[0]) {
					return usagef("output %q is the input file; choose another -o", dst)
				}
				obs, err := ptq.NewObserver(m, *pct)
				if err != nil {
					return usagef("--percentile: %v", err)
				}
				q := quantizeJob{src: args[0], dst: dst, calib: calib, obs: obs, method: m,
					opts: ptq.Options{Int8IO: *int8IO, Rounding: r}, eval: *eval, labels: *labels,
					progress: terminal(stderr)}
				report := stdout
				if dst == stdoutName {
					report = stderr
				}
				return q.run(stdout, report)
			}
		},
	})
}

// terminal returns w when it is a terminal (progress bars go there), else nil.
func terminal(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return w
}

type quantizeJob struct {
	src, dst     string
	calib        []string
	obs          *ptq.Observer
	method       ptq.Method
	opts         ptq.Options
	eval, labels string
	progress     io.Writer // nil: no progress bar
}

// calibBatch is how many calibration inputs one probe run takes: it bounds
// the memory the probe outputs take.
const calibBatch = 32

// run writes the model to q.dst (standard output is data) and the summary
// to report.
func (q *quantizeJob) run(data, report io.Writer) error {
	fm, err := q.floatModel()
	if err != nil {
		return err
	}
	floatImg, err := nkfile.Encode(fm)
	if err != nil {
		return fmt.Errorf("%s: %w", q.src, err)
	}
	float, err := nk.LoadBytes(floatImg)
	if err != nil {
		return fmt.Errorf("%s: the float model does not load: %w", q.src, err)
	}
	defer float.Close()
	ins := sampleInfos(float.Inputs(), float.Batch())
	if len(ins) != 1 {
		return fmt.Errorf("%s has %d inputs; quantize takes models with one input", q.src, len(ins))
	}
	if ins[0].DType != nk.F32 {
		return fmt.Errorf("%s: input %q is %s, not a float model", q.src, ins[0].Name, ins[0].DType)
	}
	samples, n, err := q.readCalib(ins[0])
	if err != nil {
		return err
	}
	if err := q.calibrate(fm, samples, n, ins[0]); err != nil {
		return err
	}
	ranges := q.obs.Ranges()
	qm, sum, err := ptq.Quantize(fm, ranges, q.opts)
	if err != nil {
		return fmt.Errorf("%s: %w", q.src, err)
	}
	img, err := nkfile.Encode(qm)
	if err != nil {
		return fmt.Errorf("%s: %w", q.src, err)
	}
	rep, err := nk.InspectBytes(img)
	if err != nil {
		return fmt.Errorf("the quantized model does not load: %w", err)
	}
	floatRep, err := nk.InspectBytes(floatImg)
	if err != nil {
		return err
	}
	var ev *evalResult
	if q.eval != "" {
		if ev, err = q.evaluate(float, img); err != nil {
			return err
		}
	}
	if err := writeOutput(q.dst, img, data); err != nil {
		return err
	}
	q.summary(report, n, sum, len(img), len(floatImg), rep, floatRep, ev)
	return nil
}

// floatModel reads MODEL: ONNX converted as netkit convert does, or a
// float .nk.
func (q *quantizeJob) floatModel() (*nkfile.Model, error) {
	b, format, err := readModel(q.src)
	if err != nil {
		return nil, err
	}
	switch format {
	case formatNK:
		m, err := nkfile.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.src, err)
		}
		return m, nil
	case formatONNX:
		g, m, err := onnxToNK(q.src, "", 1, false)
		if err == nil && g.HasQDQ() {
			return nil, fmt.Errorf("%s is already quantized (QuantizeLinear/DequantizeLinear or QLinear ops): 'netkit convert' it as it is", q.src)
		}
		return m, err
	case formatTFLite:
		return nil, fmt.Errorf("%s is a TFLite model: quantize it with TFLite's converter and 'netkit convert' it, or give the float ONNX model", q.src)
	}
	return nil, fmt.Errorf("%s is neither ONNX nor .nk (by content or by extension)", q.src)
}

// readCalib reads every --calib file for input t and checks the values.
func (q *quantizeJob) readCalib(t nk.TensorInfo) ([]byte, int, error) {
	var all []byte
	n := 0
	for _, f := range q.calib {
		b, count, err := readBatch(f, t)
		if err != nil {
			return nil, 0, fmt.Errorf("--calib %s: %w", f, err)
		}
		if err := checkFinite(nkfile.BytesF32(b), t.Bytes()/4); err != nil {
			return nil, 0, fmt.Errorf("--calib %s: %w", f, err)
		}
		all = append(all, b...)
		n += count
	}
	return all, n, nil
}

// checkFinite refuses NaN and infinite inputs, naming the first.
func checkFinite(v []float32, per int) error {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("input %d, element %d is %v (calibration needs finite values)", i/per, i%per, x)
		}
	}
	return nil
}

// calibrate runs every probe model over the calibration inputs, as many
// passes as the range method needs.
func (q *quantizeJob) calibrate(fm *nkfile.Model, samples []byte, n int, in nk.TensorInfo) error {
	// the portable kernels, as on a device: the host's SIMD float kernels
	// round differently in the last bits, which would make the ranges, and
	// the file, depend on the machine that quantized
	defer deviceKernels()()
	probes := ptq.Probes(fm)
	loaded := make([]*nk.Model, len(probes))
	for i, p := range probes {
		img, err := nkfile.Encode(p.Model)
		if err != nil {
			return err
		}
		if loaded[i], err = nk.LoadBytes(img); err != nil {
			return fmt.Errorf("calibration model %d does not load: %w", i, err)
		}
		defer loaded[i].Close()
	}
	per := in.Bytes()
	total := q.obs.Passes() * n * len(probes)
	done := 0
	bar := newProgress(q.progress, "calibrating", total)
	for pass := 0; pass < q.obs.Passes(); pass++ {
		if err := q.obs.Observe(fm.Inputs[0].Tensor, nkfile.BytesF32(samples)); err != nil {
			return fmt.Errorf("calibration input: %w", err)
		}
		for i, p := range probes {
			outs := sampleInfos(loaded[i].Outputs(), loaded[i].Batch())
			for start := 0; start < n; start += calibBatch {
				k := min(calibBatch, n-start)
				results := make([][]byte, len(outs))
				for j, t := range outs {
					results[j] = make([]byte, k*t.Bytes())
				}
				if err := loaded[i].RunBatchRaw([][]byte{samples[start*per : (start+k)*per]}, results); err != nil {
					return fmt.Errorf("calibration run: %w", err)
				}
				for j, t := range p.Tensors {
					if err := q.obs.Observe(t, nkfile.BytesF32(results[j])); err != nil {
						var nf *ptq.NonFiniteError
						if errors.As(err, &nf) {
							return fmt.Errorf("calibration input %d gives %v in tensor %q (the float model overflows on it)",
								start+nf.Index/(len(results[j])/4/k), nf.Value, fm.Tensors[t].Name)
						}
						return err
					}
				}
				done += k
				bar.set(done)
			}
		}
		q.obs.NextPass()
	}
	bar.finish()
	return nil
}

// progress draws a one-line bar on a terminal; with a nil writer it does nothing.
type progress struct {
	w     io.Writer
	what  string
	total int
	last  int
}

func newProgress(w io.Writer, what string, total int) *progress {
	return &progress{w: w, what: what, total: total, last: -1}
}

func (p *progress) set(done int) {
	if p.w == nil || p.total == 0 {
		return
	}
	pct := done * 100 / p.total
	if pct == p.last {
		return
	}
	p.last = pct
	const width = 30
	fill := pct * width / 100
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%%", p.what, strings.Repeat("#", fill), strings.Repeat(" ", width-fill), pct)
}

func (p *progress) finish() {
	if p.w != nil && p.last >= 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", len(p.what)+40))
	}
}

type evalResult struct {
	n              int
	agree          int
	hasLabels      bool
	floatOK, intOK int
}

// evaluate runs the float and the int8 model on the --eval inputs.
func (q *quantizeJob) evaluate(float *nk.Model, img []byte) (*evalResult, error) {
	qm, err := nk.LoadBytes(img)
	if err != nil {
		return nil, err
	}
	defer qm.Close()
	fin := sampleInfos(float.Inputs(), float.Batch())[0]
	qin := sampleInfos(qm.Inputs(), qm.Batch())[0]
	fdata, n, err := readBatch(q.eval, fin)
	if err != nil {
		return nil, fmt.Errorf("--eval %s: %w", q.eval, err)
	}
	qdata, _, _, err := readInputs(q.eval, qin)
	if err != nil {
		return nil, fmt.Errorf("--eval %s: %w", q.eval, err)
	}
	var labels []int
	if q.labels != "" {
		if labels, err = readLabelIndices(q.labels); err != nil {
			return nil, fmt.Errorf("--labels %s: %w", q.labels, err)
		}
		if len(labels) != n {
			return nil, fmt.Errorf("--labels %s holds %d labels, --eval %s holds %d inputs", q.labels, len(labels), q.eval, n)
		}
	}
	top := func(m *nk.Model, data []byte) ([]int, error) {
		out := sampleInfos(m.Outputs(), m.Batch())
		results := make([][]byte, len(out))
		for j, t := range out {
			results[j] = make([]byte, n*t.Bytes())
		}
		if err := m.RunBatchRaw([][]byte{data}, results); err != nil {
			return nil, err
		}
		return argmaxes(out[0], results[0], n), nil
	}
	ft, err := top(float, fdata)
	if err != nil {
		return nil, err
	}
	qt, err := top(qm, qdata)
	if err != nil {
		return nil, err
	}
	r := &evalResult{n: n, hasLabels: labels != nil}
	for i := range ft {
		if ft[i] == qt[i] {
			r.agree++
		}
		if labels != nil {
			if ft[i] == labels[i] {
				r.floatOK++
			}
			if qt[i] == labels[i] {
				r.intOK++
			}
		}
	}
	return r, nil
}

// argmaxes is the top-1 class of each of n outputs (f32 or i8; a positive
// scale keeps the order).
func argmaxes(t nk.TensorInfo, data []byte, n int) []int {
	classes := t.Bytes() / t.DType.Size()
	out := make([]int, n)
	for i := range out {
		var vals []float64
		if t.DType == nk.I8 {
			for _, v := range data[i*classes : (i+1)*classes] {
				vals = append(vals, float64(int8(v)))
			}
		} else {
			for _, v := range nkfile.BytesF32(data[i*4*classes : (i+1)*4*classes]) {
				vals = append(vals, float64(v))
			}
		}
		best := 0
		for k, v := range vals {
			if v > vals[best] {
				best = k
			}
		}
		out[i] = best
	}
	return out
}

// readLabelIndices reads class indices: a .npy of integers, or text with one
// index a line.
func readLabelIndices(path string) ([]int, error) {
	if isNpy(path) {
		a, err := npy.ReadFile(path)
		if err != nil {
			return nil, err
		}
		size := map[string]int{"<i8": 8, "<i4": 4, "<i2": 2, "|i1": 1, "|u1": 1}[a.Descr]
		if size == 0 {
			return nil, fmt.Errorf("holds %s, want integers", a.Descr)
		}
		out := make([]int, len(a.Data)/size)
		for i := range out {
			var v int64
			for k := size - 1; k >= 0; k-- {
				v = v<<8 | int64(a.Data[i*size+k])
			}
			if a.Descr != "|u1" && size < 8 && v >= 1<<(8*size-1) {
				v -= 1 << (8 * size)
			}
			out[i] = int(v)
		}
		return out, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []int
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		v, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			return nil, fmt.Errorf("line %d: %q is not a class index", i+1, line)
		}
		out = append(out, v)
	}
	return out, nil
}

func (q *quantizeJob) summary(w io.Writer, n int, sum *ptq.Summary, size, floatSize int, rep, floatRep *nk.Report, ev *evalResult) {
	fmt.Fprintf(w, "%s -> %s: int8, %s ranges from %d calibration inputs\n", filepath.Base(q.src), q.dst, q.method, n)
	var kinds []string
	for t, c := range sum.Int8Ops {
		kinds = append(kinds, fmt.Sprintf("%s x%d", t, c))
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "int8 ops            %s\n", strings.Join(kinds, ", "))
	if len(sum.FloatOps) == 0 {
		fmt.Fprintf(w, "float ops           none\n")
	} else {
		fmt.Fprintf(w, "float ops           %s\n", strings.Join(sum.FloatOps, "; "))
	}
	fmt.Fprintf(w, "conversions         %d quantize, %d dequantize\n", sum.Quantize, sum.Dequant)
	fmt.Fprintf(w, "file                %s (float %s)\n", cliutil.FormatSize(int64(size)), cliutil.FormatSize(int64(floatSize)))
	fmt.Fprintf(w, "arena after load    %s (float %s)\n", cliutil.FormatSize(rep.ArenaAfterLoad), cliutil.FormatSize(floatRep.ArenaAfterLoad))
	fmt.Fprintf(w, "activations         %s (float %s)\n", cliutil.FormatSize(rep.PeakActivations), cliutil.FormatSize(floatRep.PeakActivations))
	fmt.Fprintln(w, "activation ranges:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tensor\tseen min\tseen max\tmin\tmax\tscale\tzero point\t")
	for _, t := range sum.Tensors {
		if t.Range == nil {
			fmt.Fprintf(tw, "%s\t\t\t\t\t%.6g\t%d\t %s\n", t.Name, t.Params.Scale, t.Params.ZeroPoint, t.Source)
			continue
		}
		r := t.Range
		fmt.Fprintf(tw, "%s\t%.5g\t%.5g\t%.5g\t%.5g\t%.6g\t%d\t\n", t.Name, r.SeenLo, r.SeenHi, r.Lo, r.Hi, t.Params.Scale, t.Params.ZeroPoint)
	}
	tw.Flush()
	if ev != nil {
		fmt.Fprintf(w, "eval: %d inputs, top-1 agreement with float %.2f %%\n", ev.n, pct(ev.agree, ev.n))
		if ev.hasLabels {
			fmt.Fprintf(w, "accuracy: int8 %.2f %%, float %.2f %% (%+.2f points)\n", pct(ev.intOK, ev.n), pct(ev.floatOK, ev.n),
				pct(ev.intOK, ev.n)-pct(ev.floatOK, ev.n))
		}
	}
}

func pct(a, n int) float64 { return 100 * float64(a) / float64(max(n, 1)) }
