package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
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
	s := n.In[1]
	if !s.Const || s.Int {
		return nil, fmt.Errorf("the scale is not a float constant")
	}
	q := &QDQ{Scale: slices.Clone(s.F), Axis: -1}
	zp := make([]int64, len(q.Scale))
	// an absent zero point is 0 of the integer type: x's for
	// DequantizeLinear, uint8 for QuantizeLinear
	u8 := n.Op == "QuantizeLinear" || n.In[0].U8
	if len(n.In) > 2 && n.In[2] != nil {
		z := n.In[2]
		if !z.Const || !z.Int || len(z.I) != len(q.Scale) {
			return nil, fmt.Errorf("the zero point is not an integer constant with one value per scale")
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
		axis, err := normAxis(n.src.int("axis", 1), rank)
		if err != nil {
			return nil, err
		}
		q.Axis = axis
	}
	return q, nil
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
		out.Shape, out.quantOf, out.Q = x.Shape, x, q
		out.U8 = len(n.In) < 3 || n.In[2] == nil || n.In[2].U8
		return true, nil
	}
	if x.Const {
		if !x.Int {
			return true, fmt.Errorf("dequantizes a float constant")
		}
		c := q.Axis
		stride, channels := 1, 1
		if c >= 0 {
			channels = x.Shape[c]
			stride = prod(x.Shape[c+1:])
			if channels != len(q.Scale) {
				return true, fmt.Errorf("%d scales for %d channels on axis %d", len(q.Scale), channels, c)
			}
		}
		shift := int64(0)
		if x.U8 {
			shift = 128
		}
		name := out.Name
		*out = Tensor{Name: name, Shape: slices.Clone(x.Shape), Const: true, F: make([]float32, len(x.I)), Q: q}
		for i, v := range x.I {
			k := (i / stride) % channels
			out.F[i] = q.Scale[k] * float32(v-shift-int64(q.ZeroPoint[k]))
		}
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
