package graph

import (
	"fmt"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
)

// ToNK lowers a converted graph to a .nk model: physical shapes, payloads
// in physical order, and op params as the format lists them.
func (g *Graph) ToNK() (*nkfile.Model, error) {
	m, _, err := g.toNK()
	return m, err
}

// toNK is ToNK, also returning the tensor id of each graph tensor.
func (g *Graph) toNK() (*nkfile.Model, map[*Tensor]int, error) {
	m := &nkfile.Model{Meta: g.Meta}
	ids := map[*Tensor]int{}
	id := func(t *Tensor) (int, error) {
		if t == nil {
			return -1, nil
		}
		if i, ok := ids[t]; ok {
			return i, nil
		}
		if t.Int {
			return 0, fmt.Errorf("integer constant %q reached the file", t.Name)
		}
		nt := nkfile.Tensor{Name: t.Name, DType: t.dtype(), Shape: permute(t.Shape, t.Perm), State: t.State}
		if t.Const {
			nt.Data = nkfile.F32Bytes(transposeData(t.F, t.Shape, t.Perm))
		}
		ids[t] = len(m.Tensors)
		m.Tensors = append(m.Tensors, nt)
		return ids[t], nil
	}
	for i, t := range g.Inputs {
		j, err := id(t)
		if err != nil {
			return nil, nil, err
		}
		m.Inputs = append(m.Inputs, nkfile.IO{Tensor: j, Layout: g.InputLayouts[i]})
	}
	for _, n := range g.Nodes {
		op := nkfile.Op{Type: n.Kind, Name: n.Name}
		for _, t := range n.In {
			j, err := id(t)
			if err != nil {
				return nil, nil, err
			}
			op.Inputs = append(op.Inputs, j)
		}
		for _, t := range n.Out {
			j, err := id(t)
			if err != nil {
				return nil, nil, err
			}
			op.Outputs = append(op.Outputs, j)
		}
		for _, v := range n.Ints {
			op.Params = append(op.Params, nkfile.I32Word(v))
		}
		switch n.Kind {
		case nkfile.OpBatchNorm, nkfile.OpClip, nkfile.OpLeakyRelu, nkfile.OpSoftmax, nkfile.OpHardSigmoid:
			op.Params = append(op.Params, nkfile.F32Words(n.Floats...)...)
		case nkfile.OpGelu:
			op.Params = nkfile.I32Words(n.Mode)
		case nkfile.OpConcat:
			op.Params = nkfile.I32Words(n.Axis)
		case nkfile.OpLSTM, nkfile.OpGRU:
			op.Params = n.RNN.Words()
		case nkfile.OpResize2D:
			op.Params = n.Resize.Words()
		case nkfile.OpLayerNorm:
			op.Params = append(nkfile.I32Words(n.Axis), nkfile.F32Words(n.Floats...)...)
		case nkfile.OpPad:
			r := len(n.Pads) / 2
			op.Params = nkfile.PadWords(nkfile.PadMode(n.Mode), n.Floats[0], n.Pads[:r], n.Pads[r:])
		case nkfile.OpTranspose:
			op.Params = nkfile.I32Words(n.Perm...)
		case nkfile.OpReduceMean, nkfile.OpReduceSum, nkfile.OpReduceMax:
			// physical dim k holds logical dim p[k]
			p := permOrIdentity(n.In[0].Perm, len(n.In[0].Shape))
			mask := uint32(0)
			for k, lk := range p {
				if slices.Contains(n.Axes, lk) {
					mask |= 1 << k
				}
			}
			op.Params = []uint32{mask}
		case nkfile.OpSlice:
			p := permOrIdentity(n.In[0].Perm, len(n.In[0].Shape))
			begin, step := make([]int, len(p)), make([]int, len(p))
			for k, lk := range p {
				begin[k], step[k] = n.Begin[lk], n.Step[lk]
			}
			op.Params = nkfile.SliceWords(begin, step)
		}
		if n.HasAct {
			c := nkfile.Clamp{Min: n.ActMin, Max: n.ActMax}
			op.Params = append(op.Params, nkfile.F32Words(c.Min, c.Max)...)
			op.Act = c.Act()
		}
		if n.Kind == nkfile.OpMaxPool2D && n.Dilation != nil {
			op.Params = append(op.Params, nkfile.I32Words(n.Dilation...)...) // after the clamp
		}
		m.Ops = append(m.Ops, op)
	}
	for _, t := range g.Outputs {
		j, err := id(t)
		if err != nil {
			return nil, nil, err
		}
		layout := nkfile.LayoutNative
		if len(t.Shape) == 4 {
			layout = nkfile.LayoutNCHW
		}
		m.Outputs = append(m.Outputs, nkfile.IO{Tensor: j, Layout: layout})
	}
	if err := m.CheckShapes(); err != nil {
		return nil, nil, fmt.Errorf("internal error: lowered model is inconsistent: %w", err)
	}
	return m, ids, nil
}

// Params counts the constant elements (weights and biases) the graph keeps.
func (g *Graph) Params() int {
	seen := map[*Tensor]bool{}
	n := 0
	for _, nd := range g.Nodes {
		for _, t := range nd.In {
			if t != nil && t.Const && !seen[t] {
				seen[t] = true
				n += t.Elems()
			}
		}
	}
	return n
}
