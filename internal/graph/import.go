package graph

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
)

// MinOpset and MaxOpset bound the default-domain ONNX opsets the importer
// accepts. Opsets 11 to 18 are the target; older files load too because every
// legacy form of a supported op differs in attributes (broadcast,
// consumed_inputs, is_test, spatial, attribute shapes and pads), which the
// strict attribute check refuses, or in a default handled per opset.
const (
	MinOpset = 1
	MaxOpset = 18
)

// Options tune an ONNX import.
type Options struct {
	// Freeze binds graph inputs to constant values: netkit models are static,
	// so an input that carries weights or a shape is folded in.
	Freeze map[string]*onnx.Tensor
	// Source is recorded in the .nk META "source" entry.
	Source string
	// Labels, if set, is recorded as META "labels" (class names, one a line).
	Labels string
	// Batch is the size given to a symbolic first dimension of the graph
	// inputs (dim_param, unknown or 0); 0 means 1, one sample per invoke.
	// Above 1, every graph input and output must then lead with it, and
	// META "batch" records it.
	Batch int
	// StreamState makes every LSTM/GRU carry its final state into the next
	// run (STATE tensors): a stream of runs on the chunks of a sequence then
	// equals one run on the whole; Model.ResetState starts a new sequence.
	StreamState bool
}

// srcNode is the ONNX node a graph node came from, with attribute access.
type srcNode struct {
	n     *onnx.Node
	opset int64
}

func (s *srcNode) attr(name string) *onnx.Attribute { return s.n.Attr(name) }

func (s *srcNode) int(name string, def int) int {
	if a := s.attr(name); a != nil {
		return int(a.I)
	}
	return def
}

func (s *srcNode) float(name string, def float32) float32 {
	if a := s.attr(name); a != nil {
		return a.F
	}
	return def
}

func (s *srcNode) str(name, def string) string {
	if a := s.attr(name); a != nil {
		return string(a.S)
	}
	return def
}

func (s *srcNode) ints(name string, def []int) []int {
	a := s.attr(name)
	if a == nil {
		return def
	}
	out := make([]int, len(a.Ints))
	for i, v := range a.Ints {
		out[i] = int(v)
	}
	return out
}

// tensorFromONNX turns an initializer or constant into a graph constant.
func tensorFromONNX(name string, t *onnx.Tensor) (*Tensor, error) {
	shape := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		shape[i] = int(d)
	}
	c := &Tensor{Name: name, Shape: shape, Const: true}
	var err error
	switch t.DataType {
	case onnx.Float, onnx.Double:
		c.F, err = t.Float32s()
	case onnx.Int64, onnx.Int32, onnx.Int16, onnx.Int8, onnx.Uint8, onnx.Uint16, onnx.Uint32, onnx.Uint64, onnx.Bool:
		c.Int, c.U8 = true, t.DataType == onnx.Uint8
		c.I, err = t.Int64s()
	default:
		err = fmt.Errorf("constant %q has type %s; netkit supports float and integer constants", name, t.DataType)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// constantNode evaluates an ONNX Constant node's value attribute.
func constantNode(n *onnx.Node) (*Tensor, error) {
	name := n.Outputs[0]
	for _, a := range n.Attrs {
		switch a.Name {
		case "value":
			return tensorFromONNX(name, a.T)
		case "value_float":
			return &Tensor{Name: name, Const: true, F: []float32{a.F}, Shape: []int{}}, nil
		case "value_floats":
			return &Tensor{Name: name, Const: true, F: slices.Clone(a.Floats), Shape: []int{len(a.Floats)}}, nil
		case "value_int":
			return &Tensor{Name: name, Const: true, Int: true, I: []int64{a.I}, Shape: []int{}}, nil
		case "value_ints":
			return &Tensor{Name: name, Const: true, Int: true, I: slices.Clone(a.Ints), Shape: []int{len(a.Ints)}}, nil
		}
	}
	return nil, fmt.Errorf("Constant has no supported value attribute")
}

// FromONNX builds the graph of an ONNX model without running any pass.
func FromONNX(m *onnx.Model, opts Options) (*Graph, error) {
	opset, ok := m.Opsets[""]
	if v, ok2 := m.Opsets["ai.onnx"]; ok2 {
		opset, ok = v, true
	}
	if !ok {
		return nil, fmt.Errorf("model imports no default-domain opset")
	}
	if opset < MinOpset || opset > MaxOpset {
		return nil, fmt.Errorf("opset %d is not supported (netkit imports opsets %d to %d)", opset, MinOpset, MaxOpset)
	}
	og := m.Graph
	if og.SparseInitializers > 0 {
		return nil, fmt.Errorf("sparse initializers are not supported")
	}
	batch := max(opts.Batch, 1)
	g := &Graph{streamState: opts.StreamState}
	values := map[string]*Tensor{}
	for _, init := range og.Initializers {
		t, err := tensorFromONNX(init.Name, init)
		if err != nil {
			return nil, err
		}
		values[init.Name] = t
	}
	for _, in := range og.Inputs {
		if _, isInit := values[in.Name]; isInit {
			continue // an input with a default value is a constant in a static model
		}
		if fz, ok := opts.Freeze[in.Name]; ok {
			t, err := tensorFromONNX(in.Name, fz)
			if err != nil {
				return nil, err
			}
			values[in.Name] = t
			continue
		}
		if !in.IsTensor || !in.HasShape {
			return nil, fmt.Errorf("input %q has no static tensor shape", in.Name)
		}
		dt, ok := inputDTypes[in.ElemType]
		if !ok {
			return nil, fmt.Errorf("input %q has type %s; netkit runs float32 models (and integer, float16 or double inputs of Add, Sub, Mul, Div, Max, Min)", in.Name, in.ElemType)
		}
		shape := make([]int, len(in.Dims))
		for i, d := range in.Dims {
			switch {
			case d > 0 && i == 0 && batch > 1 && int(d) != batch:
				return nil, fmt.Errorf("input %q: the batch dimension is fixed at %d in the model; --batch %d needs a symbolic one (dim_param)", in.Name, d, batch)
			case d > 0:
				shape[i] = int(d)
			case d < 0 && i == 0, d == 0 && i == 0 && len(in.Dims) > 1:
				shape[i] = batch // a symbolic batch dimension (0 too, as some exporters write it)
			case d == 0: // an empty input: no op may read it (lowerNodes)
			default:
				return nil, fmt.Errorf("input %q: dimension %d is not static", in.Name, i)
			}
		}
		if len(shape) > nkfile.MaxRank || slices.ContainsFunc(shape, func(d int) bool { return d > nkfile.MaxDim }) || exceeds(shape, math.MaxUint32/4) {
			return nil, fmt.Errorf("input %q: shape %v exceeds netkit's limits (rank %d, dims up to %d, 4 GiB)", in.Name, shape, nkfile.MaxRank, nkfile.MaxDim)
		}
		t := &Tensor{Name: in.Name, Shape: shape, DType: dt}
		values[in.Name] = t
		g.Inputs = append(g.Inputs, t)
		layout := nkfile.LayoutNative
		if len(shape) == 4 {
			layout = nkfile.LayoutNCHW
		}
		g.InputLayouts = append(g.InputLayouts, layout)
	}
	if len(g.Inputs) == 0 {
		return nil, fmt.Errorf("model has no runtime input")
	}
	for i, on := range og.Nodes {
		name := on.Name
		if name == "" && len(on.Outputs) > 0 {
			name = on.Outputs[0]
		}
		if name == "" {
			name = fmt.Sprintf("node%d", i)
		}
		if len(on.Outputs) == 0 {
			return nil, fmt.Errorf("node %q (%s) has no outputs", name, on.OpType)
		}
		if on.OpType == "Constant" && (on.Domain == "" || on.Domain == "ai.onnx") {
			t, err := constantNode(on)
			if err != nil {
				return nil, fmt.Errorf("node %q: %w", name, err)
			}
			values[t.Name] = t
			continue
		}
		n := &Node{Op: on.OpType, Name: name, src: &srcNode{n: on, opset: opset}}
		if on.Domain != "" && on.Domain != "ai.onnx" {
			n.Op = on.Domain + "." + on.OpType
		}
		for _, in := range on.Inputs {
			if in == "" {
				n.In = append(n.In, nil)
				continue
			}
			t, ok := values[in]
			if !ok {
				return nil, fmt.Errorf("node %q reads %q, which no earlier node makes (graph not topologically sorted?)", name, in)
			}
			n.In = append(n.In, t)
		}
		for _, out := range on.Outputs {
			t := &Tensor{Name: out}
			if out != "" {
				values[out] = t
			}
			n.Out = append(n.Out, t)
		}
		g.Nodes = append(g.Nodes, n)
	}
	for _, out := range og.Outputs {
		t, ok := values[out.Name]
		if !ok {
			return nil, fmt.Errorf("graph output %q is not produced", out.Name)
		}
		g.Outputs = append(g.Outputs, t)
	}
	g.Meta = append(g.Meta, nkfile.KV{Key: "producer", Value: "netkit convert (onnx importer)"})
	if opts.Source != "" {
		g.Meta = append(g.Meta, nkfile.KV{Key: "source", Value: opts.Source})
	}
	if opts.Labels != "" {
		g.Meta = append(g.Meta, nkfile.KV{Key: "labels", Value: opts.Labels})
	}
	if batch > 1 {
		g.Meta = append(g.Meta, nkfile.KV{Key: nkfile.MetaBatch, Value: strconv.Itoa(batch)})
	}
	return g, nil
}

// inputDTypes are the graph input types netkit runs: float (DType 0) and
// those of the typed binary ops (nkfile.TypedOp).
var inputDTypes = map[onnx.DataType]nkfile.DType{
	onnx.Float: 0, onnx.Int8: nkfile.I8, onnx.Uint8: nkfile.U8, onnx.Int16: nkfile.I16, onnx.Uint16: nkfile.U16,
	onnx.Int32: nkfile.I32, onnx.Uint32: nkfile.U32, onnx.Int64: nkfile.I64, onnx.Uint64: nkfile.U64,
	onnx.Float16: nkfile.F16, onnx.Double: nkfile.F64,
}

// Convert imports an ONNX model and runs every pass, leaving a graph ready
// for ToNK. Unsupported nodes are reported together in one *UnsupportedError.
func Convert(m *onnx.Model, opts Options) (*Graph, error) {
	g, err := FromONNX(m, opts)
	if err != nil {
		return nil, err
	}
	g.removeIdentities()
	g.fuseGelu()
	g.removeDead()
	if err := g.lowerNodes(); err != nil {
		return nil, err
	}
	g.removeDead()
	g.foldBatchNorms()
	g.fuseDenseBias()
	g.fuseActivations()
	g.assignLayout()
	if err := g.checkBatch(opts.Batch); err != nil {
		return nil, err
	}
	return g, nil
}

// checkBatch: a batch model's inputs and outputs all lead with the batch,
// so a caller can split them into samples.
func (g *Graph) checkBatch(batch int) error {
	if batch <= 1 {
		return nil
	}
	for _, io := range [][]*Tensor{g.Inputs, g.Outputs} {
		for _, t := range io {
			if len(t.Shape) == 0 || t.Shape[0] != batch {
				return fmt.Errorf("--batch %d: %q has shape %v, which does not lead with the batch", batch, t.Name, t.Shape)
			}
		}
	}
	return nil
}

// removeIdentities drops Identity and inference-mode Dropout nodes. One that
// makes a graph output stays, to keep the output's name; it lowers to a copy.
func (g *Graph) removeIdentities() {
	kept := g.Nodes[:0]
	cons := g.consumers()
	for _, n := range g.Nodes {
		drop := n.Op == "Identity" || (n.Op == "Dropout" && (len(n.Out) < 2 || len(cons[n.Out[1]]) == 0))
		if drop && len(n.In) > 0 && n.In[0] != nil && !g.isOutput(n.Out[0]) && dropoutInference(n) {
			g.replaceUses(n.Out[0], n.In[0])
			g.Stats.RemovedNodes++
			continue
		}
		kept = append(kept, n)
	}
	g.Nodes = kept
}

// dropoutInference reports whether a Dropout is the identity: no
// training_mode input, or a constant false one.
func dropoutInference(n *Node) bool {
	if n.Op != "Dropout" || len(n.In) < 3 || n.In[2] == nil {
		return true
	}
	v, ok := constScalar(n.In[2])
	return ok && v == 0
}

// constScalar reports the value of a one-element float constant.
func constScalar(t *Tensor) (float64, bool) {
	if t == nil || !t.Const || prod(t.Shape) != 1 {
		return 0, false
	}
	if t.Int {
		return float64(t.I[0]), true
	}
	return float64(t.F[0]), true
}

func near(v, want float64) bool { return math.Abs(v-want) <= 1e-4*math.Abs(want) }

// fuseGelu replaces PyTorch's erf-form GELU, x * 0.5 * (1 + erf(x / sqrt 2)),
// exported as Div (or Mul by 1/sqrt 2), Erf, Add 1, Mul, Mul 0.5 in either
// association, with one Gelu node. The nodes it replaces fall out as dead code.
func (g *Graph) fuseGelu() {
	producer := map[*Tensor]*Node{}
	for _, n := range g.Nodes {
		for _, t := range n.Out {
			producer[t] = n
		}
	}
	cons := g.consumers()
	single := func(t *Tensor, op string) *Node {
		if c := cons[t]; len(c) == 1 && c[0].Op == op && !g.isOutput(t) {
			return c[0]
		}
		return nil
	}
	// other returns the operand of a two-input node that is not t.
	other := func(n *Node, t *Tensor) *Tensor {
		if len(n.In) != 2 {
			return nil
		}
		if n.In[0] == t {
			return n.In[1]
		}
		if n.In[1] == t {
			return n.In[0]
		}
		return nil
	}
	for _, erf := range g.Nodes {
		if erf.Op != "Erf" || len(erf.In) != 1 {
			continue
		}
		scale := producer[erf.In[0]]
		if scale == nil || len(scale.In) != 2 {
			continue
		}
		x := scale.In[0]
		k, ok := constScalar(scale.In[1])
		if !ok || !((scale.Op == "Div" && near(k, math.Sqrt2)) || (scale.Op == "Mul" && near(k, 1/math.Sqrt2))) {
			continue
		}
		add := single(erf.Out[0], "Add")
		if add == nil {
			continue
		}
		if one, ok := constScalar(other(add, erf.Out[0])); !ok || one != 1 {
			continue
		}
		m1 := single(add.Out[0], "Mul")
		if m1 == nil {
			continue
		}
		var last *Node
		o := other(m1, add.Out[0])
		if h, ok := constScalar(o); ok && h == 0.5 { // (1+erf) * 0.5, then * x
			if m2 := single(m1.Out[0], "Mul"); m2 != nil && other(m2, m1.Out[0]) == x {
				last = m2
			}
		} else if o == x { // x * (1+erf), then * 0.5
			if m2 := single(m1.Out[0], "Mul"); m2 != nil {
				if h, ok := constScalar(other(m2, m1.Out[0])); ok && h == 0.5 {
					last = m2
				}
			}
		} else if hn := producer[o]; hn != nil && hn.Op == "Mul" && len(cons[o]) == 1 { // (x*0.5) * (1+erf)
			if h, ok := constScalar(other(hn, x)); ok && h == 0.5 {
				last = m1
			}
		}
		if last == nil {
			continue
		}
		last.Op, last.In, last.src = "Gelu", []*Tensor{x}, &srcNode{n: &onnx.Node{OpType: "Gelu"}, opset: scale.src.opset}
		g.Stats.FusedGelus++
		cons = g.consumers()
	}
}
