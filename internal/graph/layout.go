package graph

import (
	"fmt"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
)

// nhwc is the physical order of a logical NCHW tensor in channels-last memory.
var nhwc = []int{0, 2, 3, 1}

func normPerm(p []int) []int {
	if p == nil || isIdentity(p) {
		return nil
	}
	return p
}

func permKey(p []int) string { return fmt.Sprint(normPerm(p)) }

// sameMemory reports whether two physical orders of a shape store the
// elements in the same sequence: they differ only in where size-1 dims go.
func sameMemory(shape, p, q []int) bool {
	seq := func(perm []int) []int {
		var s []int
		if perm == nil {
			for k, d := range shape {
				if d != 1 {
					s = append(s, k)
				}
			}
			return s
		}
		for _, k := range perm {
			if shape[k] != 1 {
				s = append(s, k)
			}
		}
		return s
	}
	return slices.Equal(seq(p), seq(q))
}

type layouter struct {
	g     *Graph
	out   []*Node
	cache map[*Tensor]map[string]*Tensor
}

// ensure returns t in physical order perm, inserting a TRANSPOSE (or a free
// RESHAPE when only size-1 dims move) before the current node if needed.
func (l *layouter) ensure(t *Tensor, perm []int) *Tensor {
	perm = normPerm(perm)
	if t == nil || slices.Equal(normPerm(t.Perm), perm) {
		return t
	}
	key := permKey(perm)
	if u, ok := l.cache[t][key]; ok {
		return u
	}
	u := &Tensor{Name: t.Name + "_" + map[bool]string{true: "nhwc", false: "nchw"}[slices.Equal(perm, nhwc)], Shape: slices.Clone(t.Shape), Perm: perm}
	if t.Const {
		u.Name, u.Const, u.F = t.Name, true, t.F
	} else if sameMemory(t.Shape, t.Perm, perm) {
		l.out = append(l.out, &Node{Op: "layout", Kind: nkfile.OpReshape, Name: u.Name, In: []*Tensor{t}, Out: []*Tensor{u}})
	} else {
		inv := invert(permOrIdentity(t.Perm, len(t.Shape)))
		phys := make([]int, len(t.Shape))
		for k, p := range permOrIdentity(perm, len(t.Shape)) {
			phys[k] = inv[p]
		}
		l.out = append(l.out, &Node{Op: "layout", Kind: nkfile.OpTranspose, Name: u.Name, In: []*Tensor{t}, Out: []*Tensor{u}, Perm: phys})
		l.g.Stats.Transposes++
	}
	if l.cache[t] == nil {
		l.cache[t] = map[string]*Tensor{}
	}
	l.cache[t][key] = u
	return u
}

func permOrIdentity(p []int, r int) []int {
	if p != nil {
		return p
	}
	id := make([]int, r)
	for k := range id {
		id[k] = k
	}
	return id
}

// channelsLast moves axis 1 of a rank-r tensor to the end.
func channelsLast(r int) []int {
	if r <= 2 {
		return nil
	}
	p := []int{0}
	for k := 2; k < r; k++ {
		p = append(p, k)
	}
	return append(p, 1)
}

// assignLayout chooses every runtime tensor's physical order: channels-last
// for the convolution family, the logical order where an op needs it, and
// whatever the producer gave otherwise, inserting the transposes between.
func (g *Graph) assignLayout() {
	l := &layouter{g: g, cache: map[*Tensor]map[string]*Tensor{}}
	cons := g.consumers()
	for _, n := range g.Nodes {
		out := n.Out[0]
		switch n.Kind {
		case nkfile.OpConv2D, nkfile.OpDepthwiseConv2D, nkfile.OpMaxPool2D, nkfile.OpAvgPool2D, nkfile.OpGlobalAvgPool:
			n.In[0] = l.ensure(n.In[0], nhwc)
			out.Perm = nhwc
			if n.Kind == nkfile.OpConv2D {
				n.In[1].Perm = []int{0, 2, 3, 1} // OIHW -> OHWI
			} else if n.Kind == nkfile.OpDepthwiseConv2D {
				n.In[1].Perm = []int{1, 2, 3, 0} // [C*M,1,KH,KW] -> [1,KH,KW,C*M]
			}
		case nkfile.OpResize2D, nkfile.OpConvTranspose2D:
			n.In[0] = l.ensure(n.In[0], nhwc)
			out.Perm = nhwc
		case nkfile.OpBatchNorm:
			p := channelsLast(len(n.In[0].Shape))
			n.In[0] = l.ensure(n.In[0], p)
			out.Perm = p
		case nkfile.OpDense:
			n.In[0] = l.ensure(n.In[0], nil)
		case nkfile.OpMatMul:
			n.In[0], n.In[1] = l.ensure(n.In[0], nil), l.ensure(n.In[1], nil)
		case nkfile.OpLSTM, nkfile.OpGRU:
			// x and computed initial states in logical order
			for k, t := range n.In {
				if t != nil && !t.Const && k != 1 && k != 2 {
					n.In[k] = l.ensure(t, nil)
				}
			}
		case nkfile.OpLayerNorm:
			// normalizes the trailing logical dims: the input in logical order
			n.In[0] = l.ensure(n.In[0], nil)
		case nkfile.OpReshape:
			x := n.In[0]
			if !l.flattenIntoDense(n, cons) {
				n.In[0] = l.ensure(x, nil)
			}
		case nkfile.OpRelu, nkfile.OpClip, nkfile.OpLeakyRelu, nkfile.OpSigmoid, nkfile.OpTanh, nkfile.OpGelu,
			nkfile.OpExp, nkfile.OpSqrt, nkfile.OpNeg, nkfile.OpAbs, nkfile.OpReciprocal, nkfile.OpHardSigmoid, nkfile.OpHardSwish:
			out.Perm = n.In[0].Perm
		case nkfile.OpAdd, nkfile.OpMul, nkfile.OpSub, nkfile.OpDiv, nkfile.OpMaximum, nkfile.OpMinimum, nkfile.OpPow:
			r := len(out.Shape)
			var target []int
			for _, t := range n.In {
				if !t.Const && len(t.Shape) == r && t.Perm != nil {
					target = t.Perm
					break
				}
			}
			for i, t := range n.In {
				if len(t.Shape) < r && target != nil {
					padded := append(slices.Repeat([]int{1}, r-len(t.Shape)), t.Shape...)
					if t.Const {
						t = &Tensor{Name: t.Name, Shape: padded, Const: true, F: t.F}
					} else {
						t = l.ensure(t, nil)
						u := &Tensor{Name: t.Name + "_r" + fmt.Sprint(r), Shape: padded}
						l.out = append(l.out, &Node{Op: "layout", Kind: nkfile.OpReshape, Name: u.Name, In: []*Tensor{t}, Out: []*Tensor{u}})
						t = u
					}
				}
				n.In[i] = l.ensure(t, target)
			}
			out.Perm = target
		case nkfile.OpReduceMean, nkfile.OpReduceSum, nkfile.OpReduceMax, nkfile.OpSlice:
			// rank-keeping: the op works on the input's physical dims
			// (ToNK maps the axes, begins and steps), the output keeps its order
			out.Perm = n.In[0].Perm
		case nkfile.OpSoftmax:
			x := n.In[0]
			r := len(x.Shape)
			p := permOrIdentity(x.Perm, r)
			if p[r-1] != n.Axis {
				target := []int{}
				for k := range r {
					if k != n.Axis {
						target = append(target, k)
					}
				}
				target = append(target, n.Axis)
				if n.Axis == 1 && r == 4 {
					target = nhwc
				}
				x = l.ensure(x, target)
				n.In[0] = x
			}
			out.Perm = x.Perm
		case nkfile.OpConcat:
			var target []int
			for _, t := range n.In {
				if !t.Const {
					target = t.Perm
					break
				}
			}
			for i, t := range n.In {
				n.In[i] = l.ensure(t, target)
			}
			out.Perm = target
			n.Axis = slices.Index(permOrIdentity(target, len(out.Shape)), n.Axis)
		case nkfile.OpPad:
			p := permOrIdentity(n.In[0].Perm, len(out.Shape))
			r := len(p)
			phys := make([]int, 2*r)
			for k, lk := range p {
				phys[k], phys[r+k] = n.Pads[lk], n.Pads[r+lk]
			}
			n.Pads = phys
			out.Perm = n.In[0].Perm
		case nkfile.OpTranspose:
			if n.Op == "layout" {
				break
			}
			// A source Transpose only relabels dims: keep the bytes where they
			// are and give the output the matching physical order.
			x := n.In[0]
			p := permOrIdentity(x.Perm, len(x.Shape))
			qinv := invert(n.Perm)
			np := make([]int, len(p))
			for k := range p {
				np[k] = qinv[p[k]]
			}
			out.Perm = normPerm(np)
			n.Kind, n.Perm = nkfile.OpReshape, nil
		}
		out.Perm = normPerm(out.Perm)
		l.out = append(l.out, n)
	}
	g.Nodes = l.out
	// Graph outputs are delivered in the source layout under their own names.
	for i, t := range g.Outputs {
		if t.Perm == nil {
			continue
		}
		u := l.ensure(t, nil)
		u.Name, t.Name = t.Name, t.Name+"_internal"
		g.Outputs[i] = u
	}
	g.Nodes = l.out
}

// flattenIntoDense handles Flatten/Reshape from a channels-last [N,C,H,W] to
// [N, C*H*W] read only by Dense ops: instead of transposing the activations
// back to NCHW, the Dense weights' K columns are permuted to the NHWC order.
func (l *layouter) flattenIntoDense(n *Node, cons map[*Tensor][]*Node) bool {
	x, out := n.In[0], n.Out[0]
	if x.Perm == nil || x.Perm[0] != 0 || len(out.Shape) != 2 || out.Shape[0] != x.Shape[0] || l.g.isOutput(out) {
		return false
	}
	readers := cons[out]
	if len(readers) == 0 {
		return false
	}
	for _, r := range readers {
		if r.Kind != nkfile.OpDense || r.In[0] != out || slices.Contains(r.In[1:], out) {
			return false
		}
	}
	inner := x.Shape[1:]
	sub := make([]int, len(inner))
	for k := range sub {
		sub[k] = x.Perm[k+1] - 1
	}
	idx := make([]int, prod(inner))
	for i := range idx {
		idx[i] = i
	}
	order := transposeData(idx, inner, sub) // physical position -> logical column
	for _, r := range readers {
		w := r.In[1]
		nOut, k := w.Shape[0], w.Shape[1]
		nw := &Tensor{Name: w.Name, Shape: slices.Clone(w.Shape), Const: true, F: make([]float32, len(w.F)), Q: w.Q}
		for o := range nOut {
			for j := range k {
				nw.F[o*k+j] = w.F[o*k+order[j]]
			}
		}
		r.In[1] = nw
	}
	return true
}
