// Package ptq is netkit's post-training static quantizer: it turns a float
// .nk model into an int8 one with TFLite's int8 semantics, from activation
// ranges observed on calibration inputs.
//
// Weights are quantized per output channel, symmetric (zero point 0, range
// -127..127); activations per tensor, asymmetric; biases to int32 with scale
// s_in*s_w[c]. Every requantization parameter comes from internal/quant, so
// the model runs on the existing int8 kernels with the same bytes on the host
// and on every MCU. Ops with no int8 kernel stay float between a DEQUANTIZE
// and a QUANTIZE.
//
// The package runs nothing itself (internal packages never import nk): the
// caller runs the probe models (Probes) on its calibration inputs and feeds
// the values to an Observer, whose Ranges go to Quantize.
package ptq

import (
	"fmt"
	"math"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
)

// Method is how an activation range is chosen from the observed values.
type Method int

const (
	// MinMax takes the smallest and largest value seen.
	MinMax Method = iota
	// Percentile drops the extreme tails: the range runs from the
	// (100-P)th to the Pth percentile of all values seen (P = Observer's
	// percentile), so a few outliers do not cost every other value
	// resolution.
	Percentile
)

func (m Method) String() string {
	if m == Percentile {
		return "percentile"
	}
	return "minmax"
}

// ParseMethod reads a method name as the CLI spells it.
func ParseMethod(s string) (Method, error) {
	switch s {
	case "minmax":
		return MinMax, nil
	case "percentile":
		return Percentile, nil
	}
	return 0, fmt.Errorf("range method %q: want minmax or percentile", s)
}

// Range is the real interval an activation tensor is quantized over, with
// the extremes actually observed.
type Range struct {
	Lo, Hi         float32 // chosen
	SeenLo, SeenHi float32 // observed
	Count          int64   // values observed
}

// Probe is a copy of the float model whose graph outputs are some of its
// activation tensors (at most nkfile.MaxGraphIO of them), so running it on
// a calibration input yields their values. Tensors[k] is the model's tensor
// id of probe output k.
type Probe struct {
	Model   *nkfile.Model
	Tensors []int
}

// Probes returns the probe models that together expose every float
// activation an op of m produces. The graph inputs are not among them: the
// caller observes its calibration inputs directly.
func Probes(m *nkfile.Model) []Probe {
	var ids []int
	for _, op := range m.Ops {
		for _, t := range op.Outputs {
			if t >= 0 && m.Tensors[t].DType == nkfile.F32 && !slices.Contains(ids, t) {
				ids = append(ids, t)
			}
		}
	}
	var probes []Probe
	for len(ids) > 0 {
		n := min(len(ids), nkfile.MaxGraphIO)
		chunk := ids[:n:n]
		ids = ids[n:]
		pm := *m
		pm.Outputs = make([]nkfile.IO, len(chunk))
		for k, t := range chunk {
			pm.Outputs[k] = nkfile.IO{Tensor: t, Layout: nkfile.LayoutNative}
		}
		probes = append(probes, Probe{Model: &pm, Tensors: chunk})
	}
	return probes
}

// histBins is the resolution of the percentile histogram: 1/4096 of the
// observed span, well below one int8 step (1/255 of the chosen range).
const histBins = 4096

type tensorStats struct {
	lo, hi float32
	count  int64
	hist   []int64 // pass 2 of Percentile, over [lo, hi]
}

// Observer accumulates the values of activation tensors over calibration
// inputs. MinMax needs one pass over the inputs; Percentile two (the first
// finds the extremes, the second fills a histogram between them): run
// every input through Observe, call NextPass, and repeat while Passes says
// so.
type Observer struct {
	method     Method
	percentile float64
	pass       int
	stats      map[int]*tensorStats
}

// NewObserver returns an observer for method; percentile (in (50, 100])
// is used by Percentile only.
func NewObserver(method Method, percentile float64) (*Observer, error) {
	if method == Percentile && !(percentile > 50 && percentile <= 100) {
		return nil, fmt.Errorf("percentile %g: want more than 50 and at most 100", percentile)
	}
	return &Observer{method: method, percentile: percentile, stats: map[int]*tensorStats{}}, nil
}

// Passes is how many times the calibration inputs must be observed.
func (o *Observer) Passes() int {
	if o.method == Percentile {
		return 2
	}
	return 1
}

// NextPass ends a pass over the calibration inputs.
func (o *Observer) NextPass() {
	o.pass++
	if o.pass == 1 && o.method == Percentile {
		for _, s := range o.stats {
			s.hist = make([]int64, histBins)
		}
	}
}

// Observe adds the values one tensor took on one or more inputs. A NaN or
// infinite value is an error: the range would mean nothing.
func (o *Observer) Observe(tensor int, values []float32) error {
	s := o.stats[tensor]
	if s == nil {
		if o.pass > 0 {
			return fmt.Errorf("tensor %d first seen in pass %d", tensor, o.pass+1)
		}
		s = &tensorStats{lo: float32(math.Inf(1)), hi: float32(math.Inf(-1))}
		o.stats[tensor] = s
	}
	if o.pass == 0 {
		for i, v := range values {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return &NonFiniteError{Tensor: tensor, Index: i, Value: v}
			}
			s.lo, s.hi = min(s.lo, v), max(s.hi, v)
		}
		s.count += int64(len(values))
		return nil
	}
	if s.hist == nil {
		return nil
	}
	span := float64(s.hi) - float64(s.lo)
	for _, v := range values {
		b := 0
		if span > 0 {
			b = min(histBins-1, max(0, int((float64(v)-float64(s.lo))/span*histBins)))
		}
		s.hist[b]++
	}
	return nil
}

// NonFiniteError reports a NaN or infinite value seen in a tensor.
type NonFiniteError struct {
	Tensor int
	Index  int // element index within the values passed to Observe
	Value  float32
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("tensor %d: element %d is %v", e.Tensor, e.Index, e.Value)
}

// Ranges returns the chosen range of every observed tensor. Every range
// holds 0, so zero is exact in the quantized domain (zero padding, ReLU).
func (o *Observer) Ranges() map[int]Range {
	out := make(map[int]Range, len(o.stats))
	for id, s := range o.stats {
		r := Range{Lo: s.lo, Hi: s.hi, SeenLo: s.lo, SeenHi: s.hi, Count: s.count}
		if o.method == Percentile && s.hist != nil && s.hi > s.lo {
			r.Lo, r.Hi = s.quantiles(o.percentile)
		}
		r.Lo, r.Hi = min(r.Lo, 0), max(r.Hi, 0)
		out[id] = r
	}
	return out
}

// quantiles returns the lower edge of the bin holding the (100-p)th
// percentile and the upper edge of the bin holding the pth.
func (s *tensorStats) quantiles(p float64) (lo, hi float32) {
	var total int64
	for _, c := range s.hist {
		total += c
	}
	tail := int64(math.Floor(float64(total) * (100 - p) / 100))
	span := float64(s.hi) - float64(s.lo)
	edge := func(b int) float32 { return float32(float64(s.lo) + span*float64(b)/histBins) }
	var acc int64
	lo, hi = s.lo, s.hi
	for b, c := range s.hist {
		acc += c
		if acc > tail {
			lo = edge(b)
			break
		}
	}
	acc = 0
	for b := histBins - 1; b >= 0; b-- {
		acc += s.hist[b]
		if acc > tail {
			hi = edge(b + 1)
			break
		}
	}
	return max(lo, s.lo), min(hi, s.hi)
}
