package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/ptq"
)

// QDQ is the quantization an ONNX QDQ model gives a tensor: real =
// Scale[c] * (q - ZeroPoint[c]) along Axis (one entry: per tensor). Zero
// points are int8's: a uint8 one is shifted down by 128.
type QDQ struct {
	Scale     []float32
	ZeroPoint []int32
	Axis      int
}

func (q *QDQ) equal(o *QDQ) bool {
	return slices.Equal(q.Scale, o.Scale) && slices.Equal(q.ZeroPoint, o.ZeroPoint) && (len(q.Scale) == 1 || q.Axis == o.Axis)
}

// qdqParams reads the scale and zero point inputs of a QuantizeLinear or
// DequantizeLinear node (opset 10 to 13 forms, per tensor or per axis).
func qdqParams(n *Node, rank int) (*QDQ, error) {
	axis := -1
	if s := n.In[1]; s != nil && len(s.F) > 1 {
		var err error
		if axis, err = normAxis(n.src.int("axis", 1), rank); err != nil {
			return nil, err
		}
	}
	var zp *Tensor
	if len(n.In) > 2 {
		zp = n.In[2]
	}
	// an absent zero point is 0 of the integer type: x's for
	// DequantizeLinear, uint8 for QuantizeLinear
	return qparamsOf(n.In[1], zp, n.Op == "QuantizeLinear" || n.In[0].U8, axis)
}

// qparamsOf reads a scale and an optional zero point (absent: 0 of uint8
// if u8, else int8); several scales run along axis.
func qparamsOf(s, z *Tensor, u8 bool, axis int) (*QDQ, error) {
	if s == nil || !s.Const || s.Int {
		return nil, fmt.Errorf("a scale is not a float constant")
	}
	if len(s.F) == 0 {
		return nil, fmt.Errorf("a scale is empty")
	}
	q := &QDQ{Scale: slices.Clone(s.F), Axis: -1}
	zp := make([]int64, len(q.Scale))
	if z != nil {
		if !z.Const || !z.Int || len(z.I) != len(q.Scale) {
			return nil, fmt.Errorf("a zero point is not an integer constant with one value per scale")
		}
		zp, u8 = z.I, z.U8
	}
	for _, v := range q.Scale {
		if !(v > 0) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("scale %v is not a positive finite number", v)
		}
	}
	for _, z := range zp {
		if u8 {
			z -= 128
		}
		if z < -128 || z > 127 {
			return nil, fmt.Errorf("zero point %d is outside int8 (netkit runs int8 and uint8 quantization)", z)
		}
		q.ZeroPoint = append(q.ZeroPoint, int32(z))
	}
	if len(q.Scale) > 1 {
		q.Axis = axis
	}
	return q, nil
}

// dequantConst is the float constant named name holding integer constant
// x dequantized with q (zero points already int8's), keeping q.
func dequantConst(name string, x *Tensor, q *QDQ) (*Tensor, error) {
	if !x.Const || !x.Int {
		return nil, fmt.Errorf("%q is not an integer constant", x.Name)
	}
	stride, channels := 1, 1
	if q.Axis >= 0 {
		if q.Axis >= len(x.Shape) || x.Shape[q.Axis] != len(q.Scale) {
			return nil, fmt.Errorf("%d scales for %q of shape %v on axis %d", len(q.Scale), x.Name, x.Shape, q.Axis)
		}
		channels = x.Shape[q.Axis]
		stride = prod(x.Shape[q.Axis+1:])
	}
	shift := int64(0)
	if x.U8 {
		shift = 128
	}
	out := &Tensor{Name: name, Shape: slices.Clone(x.Shape), Const: true, F: make([]float32, len(x.I)), Q: q}
	for i, v := range x.I {
		k := (i / stride) % channels
		out.F[i] = q.Scale[k] * float32(v-shift-int64(q.ZeroPoint[k]))
	}
	return out, nil
}

// lowerQDQ folds QuantizeLinear / DequantizeLinear (and a Cast between
// them that keeps the integer type) into annotations: a float tensor read
// through Q then DQ gets Q's quantization and its readers read it directly;
// DQ of an integer constant becomes the float constant, keeping its
// quantization. It reports whether n was such a node. A node that reads the
// integer output of a QuantizeLinear any other way is refused.
func (g *Graph) lowerQDQ(n *Node) (bool, error) {
	for _, t := range n.In {
		if t != nil && t.quantOf != nil && n.Op != "Cast" && n.Op != "DequantizeLinear" {
			return true, fmt.Errorf("reads %q, the integer output of a QuantizeLinear; netkit folds only QuantizeLinear -> DequantizeLinear pairs", t.Name)
		}
	}
	switch n.Op {
	case "QuantizeLinear", "DequantizeLinear":
	case "Cast":
		if n.In[0].quantOf == nil {
			return false, nil
		}
		if to := n.src.int("to", 1); to != 2 && to != 3 || (to == 2) != n.In[0].U8 {
			return true, fmt.Errorf("casts a quantized tensor to another type (%d)", to)
		}
		out := n.Out[0]
		out.Shape, out.quantOf, out.Q, out.U8 = n.In[0].Shape, n.In[0].quantOf, n.In[0].Q, n.In[0].U8
		return true, nil
	default:
		return false, nil
	}
	if err := checkOpAndAttrs(n); err != nil {
		return true, err
	}
	x, out := n.In[0], n.Out[0]
	q, err := qdqParams(n, len(x.Shape))
	if err != nil {
		return true, err
	}
	if n.Op == "QuantizeLinear" {
		if x.Const || x.quantOf != nil {
			return true, fmt.Errorf("quantizes a constant or an integer tensor; netkit takes float weights only through DequantizeLinear")
		}
		if len(q.Scale) != 1 {
			return true, fmt.Errorf("per-axis activation quantization (int8 activations are per tensor)")
		}
		if x.Q != nil && !x.Q.equal(q) {
			return true, fmt.Errorf("%q is quantized twice with different scales or zero points", x.Name)
		}
		x.Q = q
		out.Shape, out.quantOf, out.Q = x.Shape, x, q
		out.U8 = len(n.In) < 3 || n.In[2] == nil || n.In[2].U8
		return true, nil
	}
	if x.Const {
		if !x.Int {
			return true, fmt.Errorf("dequantizes a float constant")
		}
		c, err := dequantConst(out.Name, x, q)
		if err != nil {
			return true, err
		}
		*out = *c
		g.Stats.FoldedConstants++
		return true, nil
	}
	src := x.quantOf
	if src == nil {
		return true, fmt.Errorf("dequantizes %q, which no QuantizeLinear makes (int8 graph inputs are not supported)", x.Name)
	}
	if !q.equal(x.Q) {
		return true, fmt.Errorf("scale or zero point differs from its QuantizeLinear's (a requantization netkit cannot fold)")
	}
	if src.Q != nil && !src.Q.equal(q) {
		return true, fmt.Errorf("%q is quantized twice with different scales or zero points", src.Name)
	}
	src.Q = q
	if g.isOutput(out) {
		src.Name = out.Name // the graph output keeps its name
	}
	g.replaceUses(out, src)
	return true, nil
}

// HasQDQ reports whether the model had QuantizeLinear/DequantizeLinear
// pairs, so it is an int8 model to be built from the quantization they give.
func (g *Graph) HasQDQ() bool {
	for _, t := range g.Inputs {
		if t.Q != nil {
			return true
		}
	}
	for _, n := range g.Nodes {
		for _, t := range slices.Concat(n.In, n.Out) {
			if t != nil && t.Q != nil {
				return true
			}
		}
	}
	return false
}

// qdqOf collects, by .nk tensor id, the quantization of every tensor that
// has one.
func qdqOf(ids map[*Tensor]int) map[int]*QDQ {
	out := map[int]*QDQ{}
	for t, id := range ids {
		if t.Q != nil {
			out[id] = t.Q
		}
	}
	return out
}

// ToNKQDQ is ToNK plus, by tensor id, the quantization the QDQ model gave
// each tensor (activations and weights).
func (g *Graph) ToNKQDQ() (*nkfile.Model, map[int]*QDQ, error) {
	m, ids, err := g.toNK()
	if err != nil {
		return nil, nil, err
	}
	return m, qdqOf(ids), nil
}

// qlinearOps maps each supported QLinear operator to the float op it
// computes; the QDQ folding then treats it as that op between
// DequantizeLinear and QuantizeLinear.
var qlinearOps = map[string]string{
	"QLinearConv": "Conv", "QLinearMatMul": "MatMul",
	"com.microsoft.QGemm": "Gemm", "com.microsoft.QLinearAdd": "Add",
}

// movesValues lists the ONNX ops that run on integer tensors in a QLinear
// (QOperator) model without changing the quantization.
var movesValues = map[string]bool{"MaxPool": true, "Reshape": true, "Flatten": true, "Transpose": true, "Squeeze": true, "Unsqueeze": true}

// floatOfQLinear rewrites a QLinear node into its float op reading the
// float twins of its quantized inputs (weights and bias dequantized), and
// marks its integer output as the quantization of the float result. It
// returns n itself for any other node.
func (g *Graph) floatOfQLinear(n *Node) (*Node, error) {
	op, ok := qlinearOps[n.Op]
	if !ok {
		if len(n.In) == 0 || n.In[0] == nil || n.In[0].quantOf == nil || !movesValues[n.Op] {
			return n, nil
		}
		// an op that only moves values runs on the float twin; its integer
		// output keeps the input's quantization
		x := n.In[0]
		yf := &Tensor{Name: n.Out[0].Name, Q: x.Q}
		n.Out[0].quantOf, n.Out[0].Q, n.Out[0].U8 = yf, x.Q, x.U8
		return &Node{Op: n.Op, Name: n.Name, In: append([]*Tensor{x.quantOf}, n.In[1:]...), Out: []*Tensor{yf}, src: n.src}, nil
	}
	in := func(i int) *Tensor {
		if i < len(n.In) {
			return n.In[i]
		}
		return nil
	}
	// operand reads integer input i with scale i+1 and zero point i+2;
	// a constant is dequantized (per axis along axis).
	operand := func(i, axis int) (*Tensor, error) {
		x := in(i)
		if x == nil {
			return nil, fmt.Errorf("input %d is missing", i)
		}
		q, err := qparamsOf(in(i+1), in(i+2), x.U8, axis)
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		if x.Const {
			return dequantConst(x.Name, x, q)
		}
		if x.quantOf == nil {
			return nil, fmt.Errorf("input %d (%q) is not made by QuantizeLinear or a QLinear op (int8 graph inputs are not supported)", i, x.Name)
		}
		if !q.equal(x.Q) {
			return nil, fmt.Errorf("input %d: scale or zero point differs from the one %q was written with", i, x.Name)
		}
		x.quantOf.Q = q
		return x.quantOf, nil
	}
	var ins []*Tensor
	var ys, yz *Tensor
	var err error
	add := func(i, axis int) {
		if err == nil {
			var t *Tensor
			t, err = operand(i, axis)
			ins = append(ins, t)
		}
	}
	// bias is an int32 constant in steps of a_scale * w_scale[c].
	bias := func(b *Tensor) {
		if err != nil || b == nil {
			return
		}
		if !b.Const || !b.Int || len(ins) < 2 || ins[0].Q == nil || ins[1].Q == nil {
			err = fmt.Errorf("the bias is not an integer constant")
			return
		}
		w := ins[1].Q.Scale
		if len(w) != 1 && len(w) != len(b.I) {
			err = fmt.Errorf("%d bias values for %d weight scales", len(b.I), len(w))
			return
		}
		f := &Tensor{Name: b.Name, Shape: slices.Clone(b.Shape), Const: true, F: make([]float32, len(b.I))}
		for c, v := range b.I {
			f.F[c] = float32(float64(v) * float64(ins[0].Q.Scale[0]) * float64(w[c%len(w)]))
		}
		ins = append(ins, f)
	}
	switch n.Op {
	case "QLinearConv":
		add(0, 1)
		add(3, 0)
		bias(in(8))
		ys, yz = in(6), in(7)
	case "QLinearMatMul":
		add(0, 1)
		add(3, 1)
		ys, yz = in(6), in(7)
	case "com.microsoft.QGemm":
		add(0, 1)
		add(3, map[bool]int{true: 0, false: 1}[n.src.int("transB", 0) != 0])
		bias(in(6))
		ys, yz = in(7), in(8)
	case "com.microsoft.QLinearAdd":
		add(0, 1)
		add(3, 1)
		ys, yz = in(6), in(7)
	}
	if err != nil {
		return nil, err
	}
	if ys == nil {
		return nil, fmt.Errorf("no output scale (a float output is not supported)")
	}
	u8 := n.In[0].U8
	yq, err := qparamsOf(ys, yz, u8, -1)
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	if len(yq.Scale) != 1 {
		return nil, fmt.Errorf("per-axis output quantization (int8 activations are per tensor)")
	}
	out := n.Out[0]
	yf := &Tensor{Name: out.Name, Q: yq}
	out.quantOf, out.Q, out.U8 = yf, yq, yz != nil && yz.U8 || yz == nil && u8
	return &Node{Op: op, Name: n.Name, In: ins, Out: []*Tensor{yf}, src: n.src}, nil
}

// ToInt8NK lowers a converted QDQ or QLinear graph to an int8 .nk model:
// the float lowering, quantized by ptq with the scales and zero points the
// model gave (float I/O, as the ONNX model has).
func (g *Graph) ToInt8NK() (*nkfile.Model, error) {
	m, qdq, err := g.ToNKQDQ()
	if err != nil {
		return nil, err
	}
	given := &ptq.Given{Act: map[int]ptq.QParams{}, Weights: map[int][]float32{}, Source: "the model has no QuantizeLinear/DequantizeLinear for it"}
	for id, q := range qdq {
		t := m.Tensors[id]
		if !t.Const() {
			if len(q.Scale) != 1 {
				return nil, fmt.Errorf("activation %q is quantized per axis; netkit's int8 activations are per tensor", t.Name)
			}
			given.Act[id] = ptq.QParams{Scale: q.Scale[0], ZeroPoint: q.ZeroPoint[0]}
			continue
		}
		if slices.ContainsFunc(q.ZeroPoint, func(z int32) bool { return z != 0 }) {
			continue // a bias (re-quantized from the input and weight scales) or asymmetric weights (refused when used)
		}
		given.Weights[id] = q.Scale
	}
	out, sum, err := ptq.Quantize(m, nil, ptq.Options{Given: given})
	if err != nil {
		return nil, err
	}
	g.Stats.FloatOps = sum.FloatOps
	return out, nil
}
