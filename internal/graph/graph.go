// Package graph is netkit's model-conversion IR: a static-shape dataflow graph
// of float32 tensors, the passes that turn an imported model into one the C
// core runs (shape inference, constant folding, Identity/Dropout removal,
// GELU pattern fusion, BatchNorm folding, activation fusion, NCHW to NHWC
// layout), and the lowering to a .nk model (internal/nkfile).
//
// Tensors carry their shapes in the source framework's logical order (ONNX:
// NCHW). The layout pass decides, per runtime tensor, the physical order the
// kernels see (a permutation of the logical dims) and inserts the transposes
// that are needed; the lowering writes physical shapes and payloads.
package graph

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/netkit/netkit/internal/nkfile"
)

// Tensor is a value of the graph: a constant (F or I holds its payload in
// logical row-major order) or a runtime tensor produced by a node or fed as a
// graph input.
type Tensor struct {
	Name  string
	Shape []int
	Const bool
	// Int marks an integer constant (shape arithmetic); it never reaches the file.
	Int bool
	F   []float32
	I   []int64
	// U8 marks an integer constant of ONNX type uint8 (a QDQ zero point:
	// uint8 activations become int8 with the zero point shifted by 128).
	U8 bool
	// Q is the quantization a QDQ model gives this tensor: an activation
	// read through QuantizeLinear/DequantizeLinear, or a constant dequantized
	// from int8 (see qdq.go).
	Q *QDQ
	// quantOf is set on the integer output of a runtime QuantizeLinear: the
	// float tensor it quantizes (the pair is folded away).
	quantOf *Tensor
	// State marks a recurrent state carried across runs (a STATE tensor).
	State bool
	// Perm is the physical order chosen by the layout pass: physical dim k
	// holds logical dim Perm[k]. nil means the logical order.
	Perm []int
	// broken marks a tensor whose shape is unknown because the node that
	// makes it was refused; its consumers are not reported again.
	broken bool
	// DType is the element type of a runtime tensor: 0 for float32 (and the
	// int8 of QDQ models, which Q describes), else an integer, float16 or
	// double type from a graph input that only the typed binary ops
	// (nkfile.TypedOp) carry on.
	DType nkfile.DType
}

// dtype is the tensor's element type in the file.
func (t *Tensor) dtype() nkfile.DType {
	if t.DType == 0 {
		return nkfile.F32
	}
	return t.DType
}

// Elems is the element count of the logical shape.
func (t *Tensor) Elems() int { return prod(t.Shape) }

// Node is one operation. Op is the source (ONNX) op type; Kind is the nk op
// once the node is lowered (0 before).
type Node struct {
	Op   string
	Kind nkfile.OpType
	Name string
	In   []*Tensor // nil entries are absent optional inputs
	Out  []*Tensor

	src *srcNode // the ONNX node this came from (attributes, opset)

	// Parameters of nk ops, in logical terms; the layout pass adds the
	// physical ones (axis, pads, perm) from them.
	Ints   []int       // CONV2D/DEPTHWISE/POOL words before the activation
	Floats []float32   // CLIP min/max, LEAKY_RELU alpha, SOFTMAX beta, BATCH_NORM eps, PAD value
	Axis   int         // CONCAT, SOFTMAX
	Pads   []int       // PAD: before..., after...
	Mode   int         // PAD mode; GELU approximate
	Perm   []int       // TRANSPOSE (logical)
	Axes   []int       // REDUCE_*: the logical dims reduced
	Begin  []int       // SLICE: first index per logical dim
	Step   []int       // SLICE: step per logical dim (non-zero)
	RNN    *nkfile.RNN // LSTM, GRU
	// MAX_POOL2D: dilation_h, dilation_w (ONNX MaxPool dilations); nil for 1, 1
	Dilation []int
	Resize   *nkfile.Resize2DParams // RESIZE2D
	HasAct   bool                   // the op takes an act_min/act_max clamp
	ActMin   float32
	ActMax   float32
}

// Stats counts what the passes did, for the converter's summary.
type Stats struct {
	FoldedBatchNorms int
	FusedActivations int
	FusedGelus       int
	FoldedConstants  int
	RemovedNodes     int // Identity and Dropout
	Transposes       int // layout transposes inserted
	// FloatOps lists the ops of a quantized (QDQ, QLinear) model that stay
	// float between DEQUANTIZE and QUANTIZE, each with why (ToInt8NK).
	FloatOps []string
}

// Graph is a whole model.
type Graph struct {
	Nodes   []*Node
	Inputs  []*Tensor
	Outputs []*Tensor
	// InputLayouts records, per input, the source framework's layout.
	InputLayouts []nkfile.Layout
	Meta         []nkfile.KV
	Stats        Stats
	// streamState: recurrent layers keep their state across runs (Options.StreamState)
	streamState bool
}

var (
	inf    = float32(math.Inf(1))
	negInf = float32(math.Inf(-1))
)

func prod(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// exceeds reports whether the element count of shape is above limit,
// without overflowing on the way.
func exceeds(shape []int, limit int) bool {
	n := 1
	for _, d := range shape {
		if d > 0 && n > limit/d {
			return true
		}
		n *= d
	}
	return n > limit
}

func isIdentity(p []int) bool {
	for i, v := range p {
		if v != i {
			return false
		}
	}
	return true
}

func invert(p []int) []int {
	q := make([]int, len(p))
	for i, v := range p {
		q[v] = i
	}
	return q
}

// permute returns s reordered so that entry k is s[p[k]].
func permute(s []int, p []int) []int {
	if p == nil {
		return slices.Clone(s)
	}
	out := make([]int, len(p))
	for k, v := range p {
		out[k] = s[v]
	}
	return out
}

// transposeData returns data of logical shape `shape` laid out so that
// dimension k of the result is dimension p[k] of the input.
func transposeData[T any](data []T, shape []int, p []int) []T {
	if p == nil || isIdentity(p) {
		return data
	}
	r := len(shape)
	strides := make([]int, r)
	s := 1
	for k := r - 1; k >= 0; k-- {
		strides[k] = s
		s *= shape[k]
	}
	outShape := permute(shape, p)
	out := make([]T, len(data))
	idx := make([]int, r)
	for i := range out {
		src := 0
		for k := range r {
			src += idx[k] * strides[p[k]]
		}
		out[i] = data[src]
		for k := r - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < outShape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// consumers maps each tensor to the nodes that read it.
func (g *Graph) consumers() map[*Tensor][]*Node {
	m := map[*Tensor][]*Node{}
	for _, n := range g.Nodes {
		for _, t := range n.In {
			if t != nil {
				m[t] = append(m[t], n)
			}
		}
	}
	return m
}

func (g *Graph) isOutput(t *Tensor) bool { return slices.Contains(g.Outputs, t) }

// removeDead drops nodes none of whose outputs are used.
func (g *Graph) removeDead() {
	for {
		used := map[*Tensor]bool{}
		for _, t := range g.Outputs {
			used[t] = true
		}
		for _, n := range g.Nodes {
			for _, t := range n.In {
				used[t] = true
			}
		}
		kept := g.Nodes[:0]
		for _, n := range g.Nodes {
			live := false
			for _, t := range n.Out {
				live = live || used[t]
			}
			if live {
				kept = append(kept, n)
			}
		}
		if len(kept) == len(g.Nodes) {
			return
		}
		g.Nodes = kept
	}
}

// replaceUses makes every reader of old read new instead.
func (g *Graph) replaceUses(old, new *Tensor) {
	for _, n := range g.Nodes {
		for i, t := range n.In {
			if t == old {
				n.In[i] = new
			}
		}
	}
	for i, t := range g.Outputs {
		if t == old {
			g.Outputs[i] = new
		}
	}
}

// Issue is one reason a node cannot be converted.
type Issue struct {
	Node   string
	Op     string
	Reason string
}

// UnsupportedError lists every node the converter refused.
type UnsupportedError struct {
	Issues []Issue
}

func (e *UnsupportedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cannot convert: %d unsupported node(s):", len(e.Issues))
	for _, is := range e.Issues {
		fmt.Fprintf(&b, "\n  node %q (%s): %s", is.Node, is.Op, is.Reason)
	}
	return b.String()
}
