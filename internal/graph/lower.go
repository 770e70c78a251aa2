package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
)

// allowedAttrs lists, per supported ONNX op, the attributes the importer
// understands; any other attribute refuses the node rather than being ignored.
var allowedAttrs = map[string][]string{
	"Conv":               {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"},
	"Gemm":               {"alpha", "beta", "transA", "transB", "broadcast"},
	"MatMul":             {},
	"Relu":               {},
	"LeakyRelu":          {"alpha"},
	"Clip":               {"min", "max"},
	"Sigmoid":            {},
	"Tanh":               {},
	"Gelu":               {"approximate"},
	"Softmax":            {"axis"},
	"MaxPool":            {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"},
	"AveragePool":        {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"},
	"GlobalAveragePool":  {},
	"GlobalMaxPool":      {},
	"BatchNormalization": {"epsilon", "momentum", "training_mode"},
	"Add":                {},
	"Sub":                {},
	"Mul":                {},
	"Div":                {},
	"Pow":                {},
	"Max":                {},
	"Min":                {},
	"Mean":               {},
	"Exp":                {},
	"Sqrt":               {},
	"Neg":                {},
	"Abs":                {},
	"Reciprocal":         {},
	"HardSigmoid":        {"alpha", "beta"},
	"HardSwish":          {},
	"ReduceMean":         {"axes", "keepdims", "noop_with_empty_axes"},
	"ReduceSum":          {"axes", "keepdims", "noop_with_empty_axes"},
	"ReduceMax":          {"axes", "keepdims", "noop_with_empty_axes"},
	"Slice":              {"starts", "ends", "axes"},
	"Split":              {"axis", "split", "num_outputs"},
	"LayerNormalization": {"axis", "epsilon", "stash_type"},
	"LSTM":               {"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "input_forget", "layout"},
	"GRU":                {"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "layout", "linear_before_reset"},
	"Flatten":            {"axis"},
	"Reshape":            {"allowzero"},
	"Squeeze":            {"axes"},
	"Unsqueeze":          {"axes"},
	"Concat":             {"axis"},
	"Pad":                {"mode", "pads", "value"},
	"Transpose":          {"perm"},
	"Identity":           {},
	"Cast":               {"to", "saturate"},
	"Dropout":            {"seed", "ratio", "is_test"},
	"QuantizeLinear":     {"axis", "saturate"},
	"DequantizeLinear":   {"axis"},
	"Resize":             {"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value", "mode", "nearest_mode"},
	"Upsample":           {"mode"},
	"ConvTranspose":      {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"},
}

// lowerNodes walks the graph in order, folding constant nodes, inferring
// shapes and rewriting every other node into nk ops. Refused nodes are
// collected and reported together.
func (g *Graph) lowerNodes() error {
	var issues []Issue
	var out []*Node
	for _, n := range g.Nodes {
		broken := false
		for _, t := range n.In {
			broken = broken || t != nil && t.broken
		}
		if fn, err := g.floatOfQLinear(n); err != nil {
			if !broken { // else the refused node upstream is the cause
				issues = append(issues, Issue{n.Name, n.Op, err.Error()})
			}
			for _, t := range n.Out {
				t.broken = true
			}
			continue
		} else {
			n = fn
		}
		allConst := true
		for _, t := range n.In {
			if t != nil {
				broken = broken || t.broken
				allConst = allConst && t.Const
			}
		}
		markBroken := func() {
			for _, t := range n.Out {
				t.broken = true
			}
		}
		if broken {
			// Downstream of a refused node shapes are unknown, but an op type
			// or attribute netkit lacks is still worth reporting now.
			if err := checkOpAndAttrs(n); err != nil {
				issues = append(issues, Issue{n.Name, n.Op, err.Error()})
			}
			markBroken()
			continue
		}
		if need := minInputs(n.Op); len(n.In) < need || slices.Contains(n.In[:need], nil) {
			issues = append(issues, Issue{n.Name, n.Op, fmt.Sprintf("needs %d inputs", need)})
			markBroken()
			continue
		}
		if handled, err := g.lowerQDQ(n); handled || err != nil {
			if err != nil {
				issues = append(issues, Issue{n.Name, n.Op, err.Error()})
				markBroken()
			}
			continue
		}
		if n.Op == "Shape" && len(n.In) == 1 && n.src.attr("start") == nil && n.src.attr("end") == nil {
			t := n.Out[0]
			t.Const, t.Int, t.Shape = true, true, []int{len(n.In[0].Shape)}
			for _, d := range n.In[0].Shape {
				t.I = append(t.I, int64(d))
			}
			g.Stats.FoldedConstants++
			continue
		}
		if n.Op == "Size" && len(n.In) == 1 {
			name := n.Out[0].Name
			*n.Out[0] = *sizeOf(n.In[0])
			n.Out[0].Name = name
			g.Stats.FoldedConstants++
			continue
		}
		if allConst && foldable[n.Op] {
			vals, err := g.fold(n)
			if err != nil {
				issues = append(issues, Issue{n.Name, n.Op, "constant folding: " + err.Error()})
				markBroken()
				continue
			}
			for i, v := range vals {
				name := n.Out[i].Name
				*n.Out[i] = *v
				n.Out[i].Name = name
			}
			g.Stats.FoldedConstants++
			continue
		}
		nodes, err := g.lowerNode(n)
		if typed := typedInput(n); typed != nil && err == nil && (len(nodes) != 1 || !nkfile.TypedOp(nodes[0].Kind, typed.DType)) {
			err = fmt.Errorf("input %q is %s: on integer tensors netkit runs Add, Sub, Mul, Div, Max and Min, on float16 and double Max and Min", typed.Name, typed.DType)
		}
		if err != nil {
			issues = append(issues, Issue{n.Name, n.Op, err.Error()})
			markBroken()
			continue
		}
		for _, m := range nodes {
			for _, t := range m.In {
				if t != nil && t.Elems() == 0 {
					err = fmt.Errorf("input %q of shape %v is empty; only a graph input or output may be", t.Name, t.Shape)
				}
			}
			for _, t := range m.Out {
				if len(t.Shape) > nkfile.MaxRank {
					err = fmt.Errorf("output %q has rank %d; netkit supports up to %d", t.Name, len(t.Shape), nkfile.MaxRank)
				}
				for _, d := range t.Shape {
					if d < 1 || d > nkfile.MaxDim {
						err = fmt.Errorf("output %q has shape %v; dims must be 1..%d (an empty tensor may only be a graph input or output that no op makes)", t.Name, t.Shape, nkfile.MaxDim)
					}
				}
				if err == nil && exceeds(t.Shape, math.MaxUint32/4) {
					err = fmt.Errorf("output %q of shape %v exceeds 4 GiB", t.Name, t.Shape)
				}
			}
		}
		if err != nil {
			issues = append(issues, Issue{n.Name, n.Op, err.Error()})
			markBroken()
			continue
		}
		out = append(out, nodes...)
	}
	g.Nodes = out
	for _, t := range g.Outputs {
		if t.Const && !t.broken {
			issues = append(issues, Issue{t.Name, "output", "graph output is a constant; netkit outputs are computed tensors"})
		}
	}
	if len(issues) > 0 {
		return &UnsupportedError{Issues: issues}
	}
	return nil
}

// minInputs is the number of leading inputs an op cannot do without.
func minInputs(op string) int {
	switch op {
	case "Conv", "ConvTranspose", "Upsample", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Pow", "Reshape", "Gather", "QuantizeLinear", "DequantizeLinear":
		return 2
	case "BatchNormalization":
		return 5
	}
	return 1
}

// checkOpAndAttrs refuses an op type the runtime lacks or an attribute the
// importer does not understand.
func checkOpAndAttrs(n *Node) error {
	allowed, ok := allowedAttrs[n.Op]
	if !ok {
		if foldable[n.Op] || n.Op == "Shape" {
			return nil // judged once its inputs are known
		}
		return fmt.Errorf("op type is not supported")
	}
	for _, a := range n.src.n.Attrs {
		if !slices.Contains(allowed, a.Name) {
			return fmt.Errorf("attribute %s is not supported", a.Name)
		}
	}
	return nil
}

// lowerNode checks one node and returns the nk ops that compute it.
func (g *Graph) lowerNode(n *Node) ([]*Node, error) {
	if err := checkOpAndAttrs(n); err != nil {
		return nil, err
	}
	if _, ok := allowedAttrs[n.Op]; !ok {
		return nil, fmt.Errorf("op is only supported on constant inputs (it is folded at conversion), and an input here is computed at run time")
	}
	x := n.In[0]
	if x == nil {
		return nil, fmt.Errorf("input 0 is absent")
	}
	if _, binary := binaryKinds[n.Op]; x.Const && !binary && n.Op != "Concat" {
		return nil, fmt.Errorf("input 0 is a constant the importer cannot fold")
	}
	for i, t := range n.In {
		if t != nil && t.Int && !t.Const {
			return nil, fmt.Errorf("input %d is an integer tensor; netkit runs float32", i)
		}
	}
	if n.Op == "Split" {
		return g.lowerSplit(n)
	}
	if n.Op == "LayerNormalization" {
		return g.lowerLayerNorm(n)
	}
	if n.Op == "LSTM" || n.Op == "GRU" {
		return g.lowerRNN(n)
	}
	out := n.Out[0]
	for i, t := range n.Out[1:] {
		if t.Name != "" {
			return nil, fmt.Errorf("output %d (%q) is not supported (training or index outputs)", i+1, t.Name)
		}
	}
	s := n.src
	nk := func(kind nkfile.OpType, in ...*Tensor) *Node {
		return &Node{Op: n.Op, Kind: kind, Name: n.Name, In: in, Out: []*Tensor{out}}
	}
	same := func(kind nkfile.OpType) []*Node {
		out.Shape = slices.Clone(x.Shape)
		return []*Node{nk(kind, x)}
	}
	switch n.Op {
	case "Conv":
		if len(x.Shape) == 3 {
			return g.lift1D(n, g.lowerConv)
		}
		return g.lowerConv(n)
	case "ConvTranspose":
		switch len(x.Shape) {
		case 3:
			return g.lift1D(n, g.lowerConvTranspose)
		case 5:
			return g.convTranspose3D(n)
		}
		return g.lowerConvTranspose(n)
	case "Resize", "Upsample":
		return g.lowerResize(n)
	case "MaxPool", "AveragePool":
		switch len(x.Shape) {
		case 3:
			return g.lift1D(n, g.lowerPool)
		case 5:
			return g.pool3D(n)
		}
		return g.lowerPool(n)
	case "Gemm", "MatMul":
		if n.Op == "MatMul" && (!n.In[1].Const || len(n.In[1].Shape) > 2) {
			return g.lowerMatMul(n)
		}
		return g.lowerDense(n)
	case "GlobalAveragePool":
		if len(x.Shape) != 4 {
			return nil, fmt.Errorf("only rank-4 (2-D spatial) input is supported, got %v", x.Shape)
		}
		out.Shape = []int{x.Shape[0], x.Shape[1], 1, 1}
		return []*Node{nk(nkfile.OpGlobalAvgPool, x)}, nil
	case "GlobalMaxPool":
		// REDUCE_MAX over every spatial dim, dims kept (any rank from 3)
		if len(x.Shape) < 3 {
			return nil, fmt.Errorf("input %v has no spatial dims", x.Shape)
		}
		out.Shape = slices.Clone(x.Shape)
		var axes []int
		for k := 2; k < len(x.Shape); k++ {
			out.Shape[k] = 1
			axes = append(axes, k)
		}
		return []*Node{{Op: n.Op, Kind: nkfile.OpReduceMax, Name: n.Name, In: []*Tensor{x}, Out: []*Tensor{out}, Axes: axes}}, nil
	case "BatchNormalization":
		if s.int("training_mode", 0) != 0 {
			return nil, fmt.Errorf("attribute training_mode=1 is not supported (inference only)")
		}
		if len(x.Shape) < 2 {
			return nil, fmt.Errorf("input %v has no channel axis", x.Shape)
		}
		c := x.Shape[1]
		if len(n.In) != 5 {
			return nil, fmt.Errorf("want 5 inputs")
		}
		for i, t := range n.In[1:] {
			if t == nil || !t.Const || t.Elems() != c {
				return nil, fmt.Errorf("input %d must be a constant of %d values", i+1, c)
			}
		}
		params := []*Tensor{x}
		for _, t := range n.In[1:] {
			params = append(params, &Tensor{Name: t.Name, Shape: []int{c}, Const: true, F: floats(t)})
		}
		m := nk(nkfile.OpBatchNorm, params...)
		m.Floats = []float32{s.float("epsilon", 1e-5)}
		out.Shape = slices.Clone(x.Shape)
		return []*Node{m}, nil
	case "Relu":
		return same(nkfile.OpRelu), nil
	case "Sigmoid":
		return same(nkfile.OpSigmoid), nil
	case "Tanh":
		return same(nkfile.OpTanh), nil
	case "LeakyRelu":
		nodes := same(nkfile.OpLeakyRelu)
		nodes[0].Floats = []float32{s.float("alpha", 0.01)}
		return nodes, nil
	case "Gelu":
		nodes := same(nkfile.OpGelu)
		switch s.str("approximate", "none") {
		case "none":
		case "tanh":
			nodes[0].Mode = 1
		default:
			return nil, fmt.Errorf("attribute approximate=%q is not supported", s.str("approximate", ""))
		}
		return nodes, nil
	case "Clip":
		lo, hi := negInf, inf
		if s.opset < 11 {
			lo, hi = s.float("min", lo), s.float("max", hi)
		}
		for i, p := range []*float32{&lo, &hi} {
			if len(n.In) > i+1 && n.In[i+1] != nil {
				v, ok := constScalar(n.In[i+1])
				if !ok {
					return nil, fmt.Errorf("input %d (the bound) must be a constant scalar", i+1)
				}
				*p = float32(v)
			}
		}
		nodes := same(nkfile.OpClip)
		nodes[0].Floats = []float32{lo, hi}
		return nodes, nil
	case "Softmax":
		r := len(x.Shape)
		def := -1
		if s.opset < 13 {
			def = 1
		}
		axis, err := normAxis(s.int("axis", def), r)
		if err != nil {
			return nil, fmt.Errorf("attribute %v", err)
		}
		if s.opset >= 13 || axis == r-1 {
			nodes := same(nkfile.OpSoftmax)
			nodes[0].Axis, nodes[0].Floats = axis, []float32{1}
			return nodes, nil
		}
		// Before opset 13 Softmax works on the input coerced to 2-D at axis.
		flat := &Tensor{Name: out.Name + "_2d", Shape: []int{prod(x.Shape[:axis]), prod(x.Shape[axis:])}}
		soft := &Tensor{Name: out.Name + "_softmax", Shape: slices.Clone(flat.Shape)}
		out.Shape = slices.Clone(x.Shape)
		return []*Node{
			{Op: n.Op, Kind: nkfile.OpReshape, Name: n.Name + "/to2d", In: []*Tensor{x}, Out: []*Tensor{flat}},
			{Op: n.Op, Kind: nkfile.OpSoftmax, Name: n.Name, In: []*Tensor{flat}, Out: []*Tensor{soft}, Axis: 1, Floats: []float32{1}},
			{Op: n.Op, Kind: nkfile.OpReshape, Name: n.Name + "/back", In: []*Tensor{soft}, Out: []*Tensor{out}},
		}, nil
	case "Add", "Mul", "Sub", "Div", "Pow", "Max", "Min", "Mean":
		return g.lowerBinary(n)
	case "Exp", "Sqrt", "Neg", "Abs", "Reciprocal", "HardSwish":
		return same(unaryKinds[n.Op]), nil
	case "ReduceMean", "ReduceSum", "ReduceMax":
		return g.lowerReduce(n)
	case "Slice":
		begin, step, count, err := sliceGeometry(n)
		if err != nil {
			return nil, err
		}
		out.Shape = count
		if prod(count) == 0 {
			return nil, nil // an empty result holds nothing to compute: a graph output or refused where read
		}
		m := nk(nkfile.OpSlice, x)
		m.Begin, m.Step = begin, step
		return []*Node{m}, nil
	case "HardSigmoid":
		nodes := same(nkfile.OpHardSigmoid)
		nodes[0].Floats = []float32{s.float("alpha", 0.2), s.float("beta", 0.5)}
		return nodes, nil
	case "Concat":
		shape, axis, err := concatShape(n)
		if err != nil {
			return nil, err
		}
		if len(n.In) > nkfile.MaxOpInputs {
			return nil, fmt.Errorf("%d inputs; netkit ops take at most %d", len(n.In), nkfile.MaxOpInputs)
		}
		runtime := false
		for _, t := range n.In {
			if t.Int {
				return nil, fmt.Errorf("integer input in a computed Concat")
			}
			runtime = runtime || !t.Const
		}
		if !runtime {
			return nil, fmt.Errorf("all inputs are constants")
		}
		out.Shape = shape
		m := nk(nkfile.OpConcat, n.In...)
		m.Axis = axis
		return []*Node{m}, nil
	case "Flatten", "Reshape", "Squeeze", "Unsqueeze":
		shape, _, err := g.reshapeLike(n)
		if err != nil {
			return nil, err
		}
		out.Shape = shape
		return []*Node{nk(nkfile.OpReshape, x)}, nil
	case "Transpose":
		shape, perm, err := g.reshapeLike(n)
		if err != nil {
			return nil, err
		}
		out.Shape = shape
		m := nk(nkfile.OpTranspose, x)
		m.Perm = perm
		return []*Node{m}, nil
	case "Pad":
		return g.lowerPad(n)
	case "Cast":
		// On a computed tensor only float to float is the identity; the
		// function bodies of LayerNormalization and friends cast that way.
		if to := s.int("to", 1); to != 1 {
			return nil, fmt.Errorf("Cast of a computed tensor to type %d is not supported; netkit runs float32", to)
		}
		out.Shape = slices.Clone(x.Shape)
		return []*Node{nk(nkfile.OpReshape, x)}, nil
	case "Identity", "Dropout":
		if !dropoutInference(n) {
			return nil, fmt.Errorf("training-mode Dropout is not supported")
		}
		out.Shape = slices.Clone(x.Shape)
		return []*Node{nk(nkfile.OpReshape, x)}, nil
	}
	return nil, fmt.Errorf("op type is not supported")
}

// binaryKinds maps the ONNX elementwise ops with two (Max, Min: one or
// more) broadcasting inputs to their nk op.
var binaryKinds = map[string]nkfile.OpType{
	"Add": nkfile.OpAdd, "Mul": nkfile.OpMul, "Sub": nkfile.OpSub, "Div": nkfile.OpDiv,
	"Pow": nkfile.OpPow, "Max": nkfile.OpMaximum, "Min": nkfile.OpMinimum, "Mean": nkfile.OpAdd,
}

// unaryKinds maps the parameterless ONNX elementwise math ops to their nk op.
var unaryKinds = map[string]nkfile.OpType{
	"Exp": nkfile.OpExp, "Sqrt": nkfile.OpSqrt, "Neg": nkfile.OpNeg, "Abs": nkfile.OpAbs,
	"Reciprocal": nkfile.OpReciprocal, "HardSwish": nkfile.OpHardSwish,
}

// typedInput is the first input of n that is not float32, or nil.
func typedInput(n *Node) *Tensor {
	for _, t := range n.In {
		if t != nil && t.DType != 0 {
			return t
		}
	}
	return nil
}

// lowerTypedBinary lowers Add, Sub, Mul, Div, Max or Min of two runtime
// tensors of one integer, float16 or double type to the nk op of that type.
func lowerTypedBinary(n *Node, kind nkfile.OpType) ([]*Node, error) {
	a, b := n.In[0], n.In[1]
	if len(n.In) != 2 || a.Const || b.Const || a.DType != b.DType {
		return nil, fmt.Errorf("on %s tensors netkit runs two runtime inputs of the same type", typedInput(n).DType)
	}
	if !nkfile.TypedOp(kind, a.DType) {
		return nil, fmt.Errorf("%s on %s tensors is not supported", n.Op, a.DType)
	}
	shape, err := broadcastShape(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	y := n.Out[0]
	y.Shape, y.DType = shape, a.DType
	m := &Node{Op: n.Op, Kind: kind, Name: n.Name, In: []*Tensor{a, b}, Out: []*Tensor{y}}
	m.HasAct, m.ActMin, m.ActMax = true, negInf, inf
	return []*Node{m}, nil
}

// lowerBinary lowers a broadcasting binary op; Max and Min over n inputs
// become a chain of n-1 ops (one input: a copy), Mean a chain of ADDs and a
// DIV by n (numpy's sum / n). x - c and x / c by a
// constant become ADD of -c and MUL by 1/c, which the Dense/Conv bias and
// scale folds recognise.
func (g *Graph) lowerBinary(n *Node) ([]*Node, error) {
	out := n.Out[0]
	kind := binaryKinds[n.Op]
	ins := n.In
	if slices.Contains(ins, nil) {
		return nil, fmt.Errorf("an input is absent")
	}
	if len(ins) == 1 {
		out.Shape = slices.Clone(ins[0].Shape)
		return []*Node{{Op: n.Op, Kind: nkfile.OpReshape, Name: n.Name, In: []*Tensor{ins[0]}, Out: []*Tensor{out}}}, nil
	}
	if len(ins) > 2 && n.Op != "Max" && n.Op != "Min" && n.Op != "Mean" {
		return nil, fmt.Errorf("%d inputs, want 2", len(ins))
	}
	if typedInput(n) != nil {
		return lowerTypedBinary(n, kind)
	}
	runtime := false
	for i, t := range ins {
		runtime = runtime || !t.Const
		// an integer exponent is exact in float; other integer operands are not float arithmetic
		if t.Int && !(n.Op == "Pow" && i == 1) {
			return nil, fmt.Errorf("integer constant %q in float arithmetic", t.Name)
		}
	}
	if !runtime {
		return nil, fmt.Errorf("all inputs are constants")
	}
	var nodes []*Node
	acc := ins[0]
	for i, b := range ins[1:] {
		a := acc
		k := kind
		if b.Int {
			b = &Tensor{Name: b.Name, Shape: slices.Clone(b.Shape), Const: true, F: floats(b)}
		}
		if (n.Op == "Sub" || n.Op == "Div") && b.Const && !a.Const {
			f := floats(b)
			c := &Tensor{Name: b.Name + "_" + n.Op, Shape: slices.Clone(b.Shape), Const: true, F: make([]float32, len(f))}
			for j, v := range f {
				if n.Op == "Sub" {
					c.F[j] = -v
				} else {
					c.F[j] = 1 / v
				}
			}
			b, k = c, map[string]nkfile.OpType{"Sub": nkfile.OpAdd, "Div": nkfile.OpMul}[n.Op]
		}
		shape, err := broadcastShape(a.Shape, b.Shape)
		if err != nil {
			return nil, err
		}
		y := out
		if i < len(ins)-2 || n.Op == "Mean" {
			y = &Tensor{Name: fmt.Sprintf("%s_%d", out.Name, i)}
		}
		y.Shape = shape
		m := &Node{Op: n.Op, Kind: k, Name: n.Name, In: []*Tensor{a, b}, Out: []*Tensor{y}}
		m.HasAct, m.ActMin, m.ActMax = true, negInf, inf
		nodes = append(nodes, m)
		acc = y
	}
	if n.Op == "Mean" {
		count := &Tensor{Name: out.Name + "_count", Shape: []int{1}, Const: true, F: []float32{float32(len(ins))}}
		out.Shape = slices.Clone(acc.Shape)
		m := &Node{Op: n.Op, Kind: nkfile.OpDiv, Name: n.Name, In: []*Tensor{acc, count}, Out: []*Tensor{out}}
		m.HasAct, m.ActMin, m.ActMax = true, negInf, inf
		nodes = append(nodes, m)
	}
	return nodes, nil
}

// lowerMatMul lowers a MatMul whose right-hand side is computed (attention's
// Q @ K^T, scores @ V) or a batched constant (rank 3 or more: DENSE has one
// weight matrix) to MATMUL; rank-1 operands are refused.
func (g *Graph) lowerMatMul(n *Node) ([]*Node, error) {
	a, b, out := n.In[0], n.In[1], n.Out[0]
	if a.Const {
		return nil, fmt.Errorf("a constant left-hand side with a computed right-hand side is not supported")
	}
	shape, err := nkfile.MatMulShape(a.Shape, b.Shape)
	if err != nil {
		return nil, fmt.Errorf("%v (rank-1 operands are not supported)", err)
	}
	out.Shape = shape
	m := &Node{Op: n.Op, Kind: nkfile.OpMatMul, Name: n.Name, In: []*Tensor{a, b}, Out: []*Tensor{out}}
	m.HasAct, m.ActMin, m.ActMax = true, negInf, inf
	return []*Node{m}, nil
}

// lowerLayerNorm lowers LayerNormalization to LAYER_NORM over dims axis..;
// a constant scale or bias that broadcasts to those dims is expanded. The
// optional Mean and InvStdDev outputs, when used, are computed by REDUCE_MEAN,
// SUB, MUL, ADD, SQRT and RECIPROCAL next to it.
func (g *Graph) lowerLayerNorm(n *Node) ([]*Node, error) {
	x, out, s := n.In[0], n.Out[0], n.src
	r := len(x.Shape)
	if st := s.int("stash_type", 1); st != 1 {
		return nil, fmt.Errorf("attribute stash_type=%d is not supported (float32 statistics only)", st)
	}
	axis, err := normAxis(s.int("axis", -1), r)
	if err != nil {
		return nil, fmt.Errorf("attribute %v", err)
	}
	eps := s.float("epsilon", 1e-5)
	norm := x.Shape[axis:]
	params := []*Tensor{x}
	for i, p := range n.In[1:min(len(n.In), 3)] {
		switch {
		case p == nil:
		case slices.Equal(p.Shape, norm):
		case p.Const:
			if _, err := broadcastShape(norm, p.Shape); err != nil || len(p.Shape) > len(norm) {
				return nil, fmt.Errorf("input %d %v does not broadcast to dims %d.. %v of the input", i+1, p.Shape, axis, norm)
			}
			full, f := make([]float32, prod(norm)), floats(p)
			for j, src := range broadcastIndex(norm, p.Shape) {
				full[j] = f[src]
			}
			p = &Tensor{Name: p.Name + "_full", Shape: slices.Clone(norm), Const: true, F: full}
		default:
			return nil, fmt.Errorf("input %d %v is computed and not dims %d.. %v of the input", i+1, p.Shape, axis, norm)
		}
		params = append(params, p)
	}
	if len(params) == 3 && params[2] == nil {
		params = params[:2]
	}
	if len(params) < 2 || params[1] == nil {
		return nil, fmt.Errorf("needs a scale (input 1)")
	}
	if p := params[1]; p.Int || (len(params) == 3 && params[2].Int) {
		return nil, fmt.Errorf("integer scale or bias")
	}
	out.Shape = slices.Clone(x.Shape)
	m := &Node{Op: n.Op, Kind: nkfile.OpLayerNorm, Name: n.Name, In: params, Out: []*Tensor{out}, Axis: axis, Floats: []float32{eps}}
	nodes := []*Node{m}
	var meanOut, invOut *Tensor
	if len(n.Out) > 1 && n.Out[1].Name != "" {
		meanOut = n.Out[1]
	}
	if len(n.Out) > 2 && n.Out[2].Name != "" {
		invOut = n.Out[2]
	}
	if meanOut == nil && invOut == nil {
		return nodes, nil
	}
	stat := slices.Clone(x.Shape)
	var axes []int
	for k := axis; k < r; k++ {
		stat[k] = 1
		axes = append(axes, k)
	}
	op := func(kind nkfile.OpType, name string, y *Tensor, in ...*Tensor) *Tensor {
		if y == nil {
			y = &Tensor{Name: n.Name + "/" + name}
		}
		y.Shape = slices.Clone(in[0].Shape)
		if kind == nkfile.OpReduceMean {
			y.Shape = slices.Clone(stat)
		}
		nd := &Node{Op: n.Op, Kind: kind, Name: n.Name + "/" + name, In: in, Out: []*Tensor{y}, Axes: axes}
		switch kind {
		case nkfile.OpSub, nkfile.OpMul, nkfile.OpAdd:
			nd.HasAct, nd.ActMin, nd.ActMax = true, negInf, inf
			y.Shape, _ = broadcastShape(in[0].Shape, in[1].Shape)
		}
		nodes = append(nodes, nd)
		return y
	}
	mean := op(nkfile.OpReduceMean, "mean", meanOut, x)
	if invOut != nil {
		d := op(nkfile.OpSub, "centered", nil, x, mean)
		v := op(nkfile.OpReduceMean, "var", nil, op(nkfile.OpMul, "squared", nil, d, d))
		e := &Tensor{Name: n.Name + "/epsilon", Shape: []int{}, Const: true, F: []float32{eps}}
		op(nkfile.OpReciprocal, "inv_std_dev", invOut, op(nkfile.OpSqrt, "std_dev", nil, op(nkfile.OpAdd, "var_eps", nil, v, e)))
	}
	return nodes, nil
}

// reduceKinds maps the ONNX reductions to their nk op.
var reduceKinds = map[string]nkfile.OpType{
	"ReduceMean": nkfile.OpReduceMean, "ReduceSum": nkfile.OpReduceSum, "ReduceMax": nkfile.OpReduceMax,
}

// lowerReduce lowers ReduceMean/Sum/Max: the nk op keeps the rank, and a
// RESHAPE (free) drops the reduced dims when keepdims is 0. The axes are an
// attribute, or from ReduceSum 13 and opset 18 a constant input 1.
func (g *Graph) lowerReduce(n *Node) ([]*Node, error) {
	x, out, s := n.In[0], n.Out[0], n.src
	r := len(x.Shape)
	var axes []int
	switch {
	case len(n.In) > 1 && n.In[1] != nil:
		if !n.In[1].Const {
			return nil, fmt.Errorf("axes (input 1) must be a constant")
		}
		for _, a := range ints(n.In[1]) {
			axes = append(axes, int(a))
		}
	default:
		axes = s.ints("axes", nil)
	}
	if len(axes) == 0 {
		if s.int("noop_with_empty_axes", 0) != 0 {
			out.Shape = slices.Clone(x.Shape)
			return []*Node{{Op: n.Op, Kind: nkfile.OpReshape, Name: n.Name, In: []*Tensor{x}, Out: []*Tensor{out}}}, nil
		}
		for k := range r {
			axes = append(axes, k)
		}
	}
	reduced := make([]bool, r)
	for _, a := range axes {
		k, err := normAxis(a, r)
		if err != nil {
			return nil, fmt.Errorf("axes %v: %v", axes, err)
		}
		reduced[k] = true
	}
	kept, dropped := slices.Clone(x.Shape), []int{}
	var logical []int
	for k := range r {
		if reduced[k] {
			kept[k] = 1
			logical = append(logical, k)
		} else {
			dropped = append(dropped, x.Shape[k])
		}
	}
	m := &Node{Op: n.Op, Kind: reduceKinds[n.Op], Name: n.Name, In: []*Tensor{x}, Out: []*Tensor{out}, Axes: logical}
	if s.int("keepdims", 1) != 0 {
		out.Shape = kept
		return []*Node{m}, nil
	}
	mid := &Tensor{Name: out.Name + "_keepdims", Shape: kept}
	m.Out = []*Tensor{mid}
	out.Shape = dropped
	return []*Node{m, {Op: n.Op, Kind: nkfile.OpReshape, Name: n.Name + "/squeeze", In: []*Tensor{mid}, Out: []*Tensor{out}}}, nil
}

// lowerSplit lowers Split into one SLICE per output along the axis: sizes
// from the constant input 1 (opset 13+), the split attribute, num_outputs
// (opset 18: the last part may be smaller) or equal parts.
func (g *Graph) lowerSplit(n *Node) ([]*Node, error) {
	x, s := n.In[0], n.src
	r := len(x.Shape)
	axis, err := normAxis(s.int("axis", 0), r)
	if err != nil {
		return nil, fmt.Errorf("attribute %v", err)
	}
	dim, parts := x.Shape[axis], len(n.Out)
	var sizes []int
	switch {
	case len(n.In) > 1 && n.In[1] != nil:
		if !n.In[1].Const {
			return nil, fmt.Errorf("split (input 1) must be a constant")
		}
		for _, v := range ints(n.In[1]) {
			sizes = append(sizes, int(v))
		}
	case s.attr("split") != nil:
		sizes = s.ints("split", nil)
	case s.attr("num_outputs") != nil:
		k := s.int("num_outputs", 0)
		if k != parts || k < 1 {
			return nil, fmt.Errorf("attribute num_outputs=%d for %d outputs", k, parts)
		}
		chunk := (dim + k - 1) / k
		for i := range k {
			sizes = append(sizes, max(0, min(chunk, dim-i*chunk)))
		}
	default:
		if dim%parts != 0 {
			return nil, fmt.Errorf("axis %d of %v does not split into %d equal parts", axis, x.Shape, parts)
		}
		for range parts {
			sizes = append(sizes, dim/parts)
		}
	}
	total := 0
	for _, v := range sizes {
		if v < 0 {
			return nil, fmt.Errorf("split sizes %v: negative size", sizes)
		}
		total += v
	}
	if len(sizes) != parts || total != dim {
		return nil, fmt.Errorf("split sizes %v do not cover axis %d (%d) in %d outputs", sizes, axis, dim, parts)
	}
	var nodes []*Node
	off := 0
	for i, out := range n.Out {
		begin, step := make([]int, r), make([]int, r)
		for k := range step {
			step[k] = 1
		}
		begin[axis] = off
		out.Shape = slices.Clone(x.Shape)
		out.Shape[axis] = sizes[i]
		off += sizes[i]
		if out.Name == "" || prod(out.Shape) == 0 {
			continue // an unused output, or an empty one (nothing to compute)
		}
		nodes = append(nodes, &Node{Op: n.Op, Kind: nkfile.OpSlice, Name: n.Name + "/" + out.Name, In: []*Tensor{x}, Out: []*Tensor{out}, Begin: begin, Step: step})
	}
	return nodes, nil
}

// resolvePads returns begin/end pads per spatial axis for a window op,
// resolving auto_pad the way ONNX defines it.
func resolvePads(s *srcNode, in, kernel, strides, dilations []int) (begin, end []int, err error) {
	nd := len(in)
	begin, end = make([]int, nd), make([]int, nd)
	switch ap := s.str("auto_pad", "NOTSET"); ap {
	case "NOTSET", "":
		pads := s.ints("pads", make([]int, 2*nd))
		if len(pads) != 2*nd {
			return nil, nil, fmt.Errorf("attribute pads=%v, want %d values", pads, 2*nd)
		}
		for k := range nd {
			begin[k], end[k] = pads[k], pads[k+nd]
			if begin[k] < 0 || end[k] < 0 {
				return nil, nil, fmt.Errorf("attribute pads=%v is negative", pads)
			}
		}
	case "VALID":
	case "SAME_UPPER", "SAME_LOWER":
		for k := range nd {
			outDim := (in[k] + strides[k] - 1) / strides[k]
			total := max(0, (outDim-1)*strides[k]+(kernel[k]-1)*dilations[k]+1-in[k])
			begin[k] = total / 2
			if ap == "SAME_LOWER" {
				begin[k] = total - total/2
			}
			end[k] = total - begin[k]
		}
	default:
		return nil, nil, fmt.Errorf("attribute auto_pad=%s is not supported", ap)
	}
	return begin, end, nil
}

func positive(name string, v []int, n int) error {
	if len(v) != n {
		return fmt.Errorf("attribute %s=%v, want %d values", name, v, n)
	}
	for _, x := range v {
		if x < 1 {
			return fmt.Errorf("attribute %s=%v must be positive", name, v)
		}
	}
	return nil
}

// convWindow checks what Conv and ConvTranspose share past their weights'
// layout: kernel_shape agrees with the weights' spatial dims, strides and
// dilations are two positive values each.
func convWindow(s *srcNode, w *Tensor) (strides, dil []int, err error) {
	k := w.Shape[2:]
	if ks := s.ints("kernel_shape", k); !slices.Equal(ks, k) {
		return nil, nil, fmt.Errorf("attribute kernel_shape=%v disagrees with weights %v", ks, w.Shape)
	}
	strides, dil = s.ints("strides", []int{1, 1}), s.ints("dilations", []int{1, 1})
	if err := positive("strides", strides, 2); err != nil {
		return nil, nil, err
	}
	if err := positive("dilations", dil, 2); err != nil {
		return nil, nil, err
	}
	return strides, dil, nil
}

// convBias is a Conv or ConvTranspose node's optional bias (input 2) as a
// float tensor of o values, nil when the node has none.
func convBias(n *Node, o int) (*Tensor, error) {
	if len(n.In) < 3 || n.In[2] == nil {
		return nil, nil
	}
	b := n.In[2]
	if !b.Const || b.Elems() != o {
		return nil, fmt.Errorf("bias (input 2) must be a constant of %d values", o)
	}
	return &Tensor{Name: b.Name, Shape: []int{o}, Const: true, F: floats(b)}, nil
}

func (g *Graph) lowerConv(n *Node) ([]*Node, error) {
	s := n.src
	x, w := n.In[0], n.In[1]
	if len(x.Shape) != 4 {
		return nil, fmt.Errorf("only 1-D and 2-D convolution are supported (input %v)", x.Shape)
	}
	if w == nil || !w.Const || len(w.Shape) != 4 {
		return nil, fmt.Errorf("weights (input 1) must be a rank-4 constant")
	}
	bias, err := convBias(n, w.Shape[0])
	if err != nil {
		return nil, err
	}
	group := s.int("group", 1)
	c, o, kh, kw := x.Shape[1], w.Shape[0], w.Shape[2], w.Shape[3]
	if group < 1 || c%group != 0 || o%group != 0 || w.Shape[1]*group != c {
		return nil, fmt.Errorf("attribute group=%d does not fit input channels %d and weights %v", group, c, w.Shape)
	}
	strides, dil, err := convWindow(s, w)
	if err != nil {
		return nil, err
	}
	begin, end, err := resolvePads(s, x.Shape[2:], []int{kh, kw}, strides, dil)
	if err != nil {
		return nil, err
	}
	oh := nkfile.ConvOutDim(x.Shape[2], kh, strides[0], dil[0], begin[0], end[0])
	ow := nkfile.ConvOutDim(x.Shape[3], kw, strides[1], dil[1], begin[1], end[1])
	if oh < 1 || ow < 1 {
		return nil, fmt.Errorf("kernel %dx%d does not fit input %v", kh, kw, x.Shape)
	}
	n.Out[0].Shape = []int{x.Shape[0], o, oh, ow}
	kind, last := nkfile.OpConv2D, group
	wt := &Tensor{Name: w.Name, Shape: slices.Clone(w.Shape), Const: true, F: floats(w), Q: w.Q}
	if group == c && c > 1 && w.Shape[1] == 1 {
		kind, last = nkfile.OpDepthwiseConv2D, o/c
	}
	in := []*Tensor{x, wt, bias}
	m := &Node{Op: n.Op, Kind: kind, Name: n.Name, In: in, Out: n.Out[:1], HasAct: true, ActMin: negInf, ActMax: inf}
	m.Ints = []int{strides[0], strides[1], dil[0], dil[1], begin[0], begin[1], end[0], end[1], last}
	return []*Node{m}, nil
}

func (g *Graph) lowerPool(n *Node) ([]*Node, error) {
	s := n.src
	x := n.In[0]
	if len(x.Shape) != 4 {
		return nil, fmt.Errorf("only 1-D, 2-D and 3-D pooling are supported (input %v)", x.Shape)
	}
	kernel := s.ints("kernel_shape", nil)
	if err := positive("kernel_shape", kernel, 2); err != nil {
		return nil, err
	}
	strides := s.ints("strides", []int{1, 1})
	if err := positive("strides", strides, 2); err != nil {
		return nil, err
	}
	dil := s.ints("dilations", []int{1, 1})
	if err := positive("dilations", dil, 2); err != nil {
		return nil, err
	}
	if so := s.int("storage_order", 0); so != 0 {
		return nil, fmt.Errorf("attribute storage_order=%d is not supported", so)
	}
	begin, end, err := resolvePads(s, x.Shape[2:], kernel, strides, dil)
	if err != nil {
		return nil, err
	}
	avg := n.Op == "AveragePool"
	includePad := avg && s.int("count_include_pad", 0) != 0
	var outHW [2]int
	for k := range 2 {
		in := x.Shape[2+k]
		extent := (kernel[k]-1)*dil[k] + 1 // the dilated window
		span := in + begin[k] + end[k] - extent
		if span < 0 {
			return nil, fmt.Errorf("kernel %v does not fit input %v", kernel, x.Shape)
		}
		outDim := span/strides[k] + 1
		if s.int("ceil_mode", 0) != 0 {
			outDim = (span+strides[k]-1)/strides[k] + 1
			// A window may not start in the end padding (PyTorch and ONNX agree).
			if (outDim-1)*strides[k] >= in+begin[k] {
				outDim--
			}
			// Let the floor formula of the kernels reach the ceil size by
			// padding the end; those cells never count for max or avg.
			if extra := (outDim-1)*strides[k] + extent - (in + begin[k] + end[k]); extra > 0 {
				if includePad {
					return nil, fmt.Errorf("ceil_mode=1 with count_include_pad=1 is not supported")
				}
				end[k] += extra
			}
		}
		if begin[k] >= kernel[k] || end[k] >= kernel[k] {
			return nil, fmt.Errorf("pads %v/%v must be smaller than kernel %v", begin, end, kernel)
		}
		outHW[k] = outDim
	}
	n.Out[0].Shape = []int{x.Shape[0], x.Shape[1], outHW[0], outHW[1]}
	kind := nkfile.OpMaxPool2D
	ints := []int{kernel[0], kernel[1], strides[0], strides[1], begin[0], begin[1], end[0], end[1]}
	if avg {
		kind = nkfile.OpAvgPool2D
		ints = append(ints, map[bool]int{false: 0, true: 1}[includePad])
	}
	m := &Node{Op: n.Op, Kind: kind, Name: n.Name, In: []*Tensor{x}, Out: n.Out[:1], Ints: ints, HasAct: true, ActMin: negInf, ActMax: inf}
	if !slices.Equal(dil, []int{1, 1}) {
		m.Dilation = dil
	}
	return []*Node{m}, nil
}

// lowerDense turns Gemm and MatMul with constant weights into DENSE with W
// [N, K]; alpha and beta are folded into the constants.
func (g *Graph) lowerDense(n *Node) ([]*Node, error) {
	s := n.src
	a, bm := n.In[0], n.In[1]
	out := n.Out[0]
	if bm == nil || !bm.Const || len(bm.Shape) != 2 {
		return nil, fmt.Errorf("input 1 must be a rank-2 constant (weights); a computed or batched right-hand side is not supported")
	}
	var nodes []*Node
	x := a
	k, nOut := bm.Shape[0], bm.Shape[1]
	wf := floats(bm)
	alpha := float32(1)
	transB := false
	if n.Op == "Gemm" {
		if s.attr("broadcast") != nil && s.opset >= 7 {
			return nil, fmt.Errorf("attribute broadcast belongs to opsets before 7")
		}
		if len(a.Shape) != 2 {
			return nil, fmt.Errorf("input 0 %v is not rank 2", a.Shape)
		}
		alpha, transB = s.float("alpha", 1), s.int("transB", 0) != 0
		if s.int("transA", 0) != 0 {
			x = &Tensor{Name: a.Name + "_T", Shape: []int{a.Shape[1], a.Shape[0]}}
			nodes = append(nodes, &Node{Op: n.Op, Kind: nkfile.OpTranspose, Name: n.Name + "/transA", In: []*Tensor{a}, Out: []*Tensor{x}, Perm: []int{1, 0}})
		}
	} else if len(a.Shape) < 2 {
		return nil, fmt.Errorf("input 0 %v must have rank 2 or more", a.Shape)
	}
	w := &Tensor{Name: bm.Name, Const: true, Q: bm.Q}
	if transB {
		k, nOut = nOut, k
		w.F = slices.Clone(wf)
	} else {
		w.F = transposeData(wf, bm.Shape, []int{1, 0})
	}
	w.Shape = []int{nOut, k}
	if x.Shape[len(x.Shape)-1] != k {
		return nil, fmt.Errorf("input %v and weights %v disagree on K", x.Shape, bm.Shape)
	}
	if alpha != 1 {
		for i := range w.F {
			w.F[i] *= alpha
		}
	}
	outShape := append(slices.Clone(x.Shape[:len(x.Shape)-1]), nOut)
	var c *Tensor
	if n.Op == "Gemm" && len(n.In) > 2 {
		c = n.In[2]
	}
	dense := &Node{Op: n.Op, Kind: nkfile.OpDense, Name: n.Name, In: []*Tensor{x, w, nil}, Out: []*Tensor{out}, HasAct: true, ActMin: negInf, ActMax: inf}
	out.Shape = outShape
	nodes = append(nodes, dense)
	if c == nil {
		return nodes, nil
	}
	if !c.Const {
		return nil, fmt.Errorf("input 2 (C) must be a constant")
	}
	if _, err := broadcastShape(outShape, c.Shape); err != nil {
		return nil, fmt.Errorf("input 2 (C) %v does not broadcast to %v", c.Shape, outShape)
	}
	beta := s.float("beta", 1)
	cf := floats(c)
	scaled := make([]float32, len(cf))
	for i, v := range cf {
		scaled[i] = beta * v
	}
	// C that varies only along N is a bias; anything else is added after.
	trimmed := slices.Clone(c.Shape)
	for len(trimmed) > 0 && trimmed[0] == 1 {
		trimmed = trimmed[1:]
	}
	if len(trimmed) <= 1 {
		bias := make([]float32, nOut)
		for i := range bias {
			bias[i] = scaled[i%len(scaled)]
		}
		dense.In[2] = &Tensor{Name: c.Name, Shape: []int{nOut}, Const: true, F: bias}
		return nodes, nil
	}
	mid := &Tensor{Name: out.Name + "_matmul", Shape: outShape}
	dense.Out = []*Tensor{mid}
	add := &Node{Op: n.Op, Kind: nkfile.OpAdd, Name: n.Name + "/C", In: []*Tensor{mid, {Name: c.Name, Shape: slices.Clone(c.Shape), Const: true, F: scaled}},
		Out: []*Tensor{out}, HasAct: true, ActMin: negInf, ActMax: inf}
	return append(nodes, add), nil
}

func (g *Graph) lowerPad(n *Node) ([]*Node, error) {
	s := n.src
	x := n.In[0]
	r := len(x.Shape)
	mode := map[string]int{"constant": 0, "reflect": 1, "edge": 2}
	m, ok := mode[s.str("mode", "constant")]
	if !ok {
		return nil, fmt.Errorf("attribute mode=%s is not supported", s.str("mode", ""))
	}
	var raw []int64
	if s.opset < 11 { // pads and value were attributes before opset 11
		for _, v := range s.ints("pads", nil) {
			raw = append(raw, int64(v))
		}
	} else {
		if s.attr("pads") != nil || s.attr("value") != nil {
			return nil, fmt.Errorf("attributes pads and value belong to opsets before 11")
		}
		if len(n.In) < 2 || n.In[1] == nil || !n.In[1].Const {
			return nil, fmt.Errorf("pads (input 1) must be a constant")
		}
		raw = ints(n.In[1])
	}
	axes := make([]int, r)
	for k := range axes {
		axes[k] = k
	}
	if len(n.In) > 3 && n.In[3] != nil {
		if !n.In[3].Const {
			return nil, fmt.Errorf("axes (input 3) must be a constant")
		}
		axes = axes[:0]
		for _, a := range ints(n.In[3]) {
			k, err := normAxis(int(a), r)
			if err != nil {
				return nil, err
			}
			axes = append(axes, k)
		}
	}
	if len(raw) != 2*len(axes) {
		return nil, fmt.Errorf("pads %v, want %d values", raw, 2*len(axes))
	}
	pads := make([]int, 2*r)
	for i, k := range axes {
		pads[k], pads[r+k] = int(raw[i]), int(raw[len(axes)+i])
	}
	value := s.float("value", 0)
	if len(n.In) > 2 && n.In[2] != nil {
		v, ok := constScalar(n.In[2])
		if !ok {
			return nil, fmt.Errorf("constant_value (input 2) must be a constant scalar")
		}
		value = float32(v)
	}
	shape := slices.Clone(x.Shape)
	for k := range r {
		if pads[k] < 0 || pads[r+k] < 0 {
			return nil, fmt.Errorf("negative pads %v (cropping) are not supported", raw)
		}
		if m == 1 && (pads[k] >= x.Shape[k] || pads[r+k] >= x.Shape[k]) {
			return nil, fmt.Errorf("reflect pads %v must be smaller than the input %v", raw, x.Shape)
		}
		shape[k] += pads[k] + pads[r+k]
	}
	if math.IsNaN(float64(value)) {
		return nil, fmt.Errorf("NaN pad value")
	}
	n.Out[0].Shape = shape
	return []*Node{{Op: n.Op, Kind: nkfile.OpPad, Name: n.Name, In: []*Tensor{x}, Out: n.Out[:1], Pads: pads, Mode: m, Floats: []float32{value}}}, nil
}

// pool3D runs a 3-D MaxPool or AveragePool ([N, C, D, H, W]) as two 2-D
// pools: over (H, W) on [N, C*D, H, W], then over (D, 1) on
// [N, C, D, OH*OW], with free reshapes around them. Max is separable, and
// so is the average: every depth slice of a window has the same (H, W) taps
// inside the input, so the mean of the slices' means is the window's mean
// (with count_include_pad too). auto_pad, ceil_mode and the rest apply per
// axis, so both pools take them as they are.
func (g *Graph) pool3D(n *Node) ([]*Node, error) {
	x, out := n.In[0], n.Out[0]
	var hwAttrs, dAttrs []*onnx.Attribute
	for _, a := range n.src.n.Attrs {
		hw, d := *a, *a
		switch a.Name {
		case "kernel_shape", "strides", "dilations":
			if len(a.Ints) != 3 {
				return nil, fmt.Errorf("attribute %s=%v, want 3 values", a.Name, a.Ints)
			}
			hw.Ints, d.Ints = []int64{a.Ints[1], a.Ints[2]}, []int64{a.Ints[0], 1}
		case "pads":
			if len(a.Ints) != 6 {
				return nil, fmt.Errorf("attribute pads=%v, want 6 values", a.Ints)
			}
			hw.Ints = []int64{a.Ints[1], a.Ints[2], a.Ints[4], a.Ints[5]}
			d.Ints = []int64{a.Ints[0], 0, a.Ints[3], 0}
		}
		hwAttrs, dAttrs = append(hwAttrs, &hw), append(dAttrs, &d)
	}
	src := func(attrs []*onnx.Attribute) *srcNode {
		return &srcNode{n: &onnx.Node{OpType: n.src.n.OpType, Name: n.Name, Attrs: attrs}, opset: n.src.opset}
	}
	s := x.Shape
	planes := &Tensor{Name: x.Name + "_planes", Shape: []int{s[0], s[1] * s[2], s[3], s[4]}}
	hwOut := &Tensor{Name: out.Name + "_hw"}
	hw, err := g.lowerPool(&Node{Op: n.Op, Name: n.Name + "/hw", In: []*Tensor{planes}, Out: []*Tensor{hwOut}, src: src(hwAttrs)})
	if err != nil {
		return nil, err
	}
	oh, ow := hwOut.Shape[2], hwOut.Shape[3]
	depth := &Tensor{Name: out.Name + "_depth", Shape: []int{s[0], s[1], s[2], oh * ow}}
	dOut := &Tensor{Name: out.Name + "_d"}
	d, err := g.lowerPool(&Node{Op: n.Op, Name: n.Name + "/d", In: []*Tensor{depth}, Out: []*Tensor{dOut}, src: src(dAttrs)})
	if err != nil {
		return nil, err
	}
	out.Shape = []int{s[0], s[1], dOut.Shape[2], oh, ow}
	reshape := func(name string, from, to *Tensor) *Node {
		return &Node{Op: n.Op, Kind: nkfile.OpReshape, Name: n.Name + "/" + name, In: []*Tensor{from}, Out: []*Tensor{to}}
	}
	nodes := append([]*Node{reshape("planes", x, planes)}, hw...)
	nodes = append(append(nodes, reshape("depth", hwOut, depth)), d...)
	return append(nodes, reshape("to3d", dOut, out)), nil
}

// lift1D runs a 1-D Conv or pool ([N, C, L]) as the 2-D op on [N, C, 1, L]:
// the spatial attributes gain a leading unit entry and reshapes go around it.
func (g *Graph) lift1D(n *Node, lower func(*Node) ([]*Node, error)) ([]*Node, error) {
	x, out := n.In[0], n.Out[0]
	var attrs []*onnx.Attribute
	for _, a := range n.src.n.Attrs {
		b := *a
		switch a.Name {
		case "strides", "dilations", "kernel_shape", "output_padding", "output_shape":
			v := int64(1)
			if a.Name == "output_padding" {
				v = 0
			}
			if len(a.Ints) != 1 {
				return nil, fmt.Errorf("attribute %s=%v, want 1 value", a.Name, a.Ints)
			}
			b.Ints = []int64{v, a.Ints[0]}
		case "pads":
			if len(a.Ints) != 2 {
				return nil, fmt.Errorf("attribute pads=%v, want 2 values", a.Ints)
			}
			b.Ints = []int64{0, a.Ints[0], 0, a.Ints[1]}
		}
		attrs = append(attrs, &b)
	}
	src := &srcNode{n: &onnx.Node{OpType: n.src.n.OpType, Name: n.Name, Attrs: attrs}, opset: n.src.opset}
	x4 := &Tensor{Name: x.Name + "_2d", Shape: []int{x.Shape[0], x.Shape[1], 1, x.Shape[2]}}
	in := []*Tensor{x4}
	if n.Op == "Conv" || n.Op == "ConvTranspose" {
		w := n.In[1]
		if !w.Const || len(w.Shape) != 3 {
			return nil, fmt.Errorf("weights (input 1) must be a rank-3 constant")
		}
		in = append(in, &Tensor{Name: w.Name, Shape: []int{w.Shape[0], w.Shape[1], 1, w.Shape[2]}, Const: true, F: floats(w), Q: w.Q})
		in = append(in, n.In[2:]...)
	}
	out4 := &Tensor{Name: out.Name + "_2d"}
	nodes, err := lower(&Node{Op: n.Op, Name: n.Name, In: in, Out: []*Tensor{out4}, src: src})
	if err != nil {
		return nil, err
	}
	out.Shape = []int{out4.Shape[0], out4.Shape[1], out4.Shape[3]}
	nodes = append([]*Node{{Op: n.Op, Kind: nkfile.OpReshape, Name: n.Name + "/to2d", In: []*Tensor{x}, Out: []*Tensor{x4}}}, nodes...)
	return append(nodes, &Node{Op: n.Op, Kind: nkfile.OpReshape, Name: n.Name + "/to1d", In: []*Tensor{out4}, Out: []*Tensor{out}}), nil
}
