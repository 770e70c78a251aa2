package graph

import (
	"math"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
)

// producers maps each runtime tensor to the node that makes it.
func (g *Graph) producers() map[*Tensor]*Node {
	m := map[*Tensor]*Node{}
	for _, n := range g.Nodes {
		for _, t := range n.Out {
			m[t] = n
		}
	}
	return m
}

// soleReader returns the node that makes t when t feeds only consumer and
// is not a graph output, so consumer can be merged into it.
func (g *Graph) soleReader(t *Tensor, consumer *Node, prod map[*Tensor]*Node, cons map[*Tensor][]*Node) *Node {
	if t == nil || t.Const || g.isOutput(t) || len(cons[t]) != 1 || cons[t][0] != consumer {
		return nil
	}
	return prod[t]
}

func (g *Graph) without(drop map[*Node]bool) {
	g.Nodes = slices.DeleteFunc(g.Nodes, func(n *Node) bool { return drop[n] })
}

// foldBatchNorms folds an inference BatchNorm into the Conv, depthwise Conv
// or Dense before it: scale = gamma / sqrt(var + eps) multiplies each output
// channel's weights (dim 0 of every logical weight layout here) and the bias
// becomes (bias - mean) * scale + beta.
func (g *Graph) foldBatchNorms() {
	prod, cons := g.producers(), g.consumers()
	drop := map[*Node]bool{}
	for _, bn := range g.Nodes {
		if bn.Kind != nkfile.OpBatchNorm {
			continue
		}
		p := g.soleReader(bn.In[0], bn, prod, cons)
		if p == nil || (p.Kind != nkfile.OpConv2D && p.Kind != nkfile.OpDepthwiseConv2D && p.Kind != nkfile.OpDense) {
			continue
		}
		if p.Kind == nkfile.OpDense && len(p.Out[0].Shape) != 2 {
			continue // BatchNorm's channel axis 1 is Dense's N only for 2-D outputs
		}
		if p.ActMin != negInf || p.ActMax != inf {
			continue
		}
		w := p.In[1]
		c := w.Shape[0]
		per := w.Elems() / c
		eps := float64(bn.Floats[0])
		gamma, beta, mean, vr := bn.In[1].F, bn.In[2].F, bn.In[3].F, bn.In[4].F
		nw := &Tensor{Name: w.Name, Shape: slices.Clone(w.Shape), Const: true, F: make([]float32, len(w.F))}
		bias := &Tensor{Name: bn.Out[0].Name + "_bias", Shape: []int{c}, Const: true, F: make([]float32, c)}
		for o := range c {
			scale := float64(gamma[o]) / math.Sqrt(float64(vr[o])+eps)
			for i := range per {
				nw.F[o*per+i] = float32(float64(w.F[o*per+i]) * scale)
			}
			b := 0.0
			if p.In[2] != nil {
				b = float64(p.In[2].F[o])
			}
			bias.F[o] = float32((b-float64(mean[o]))*scale + float64(beta[o]))
		}
		p.In[1], p.In[2] = nw, bias
		p.Out[0] = bn.Out[0]
		drop[bn] = true
		g.Stats.FoldedBatchNorms++
	}
	g.without(drop)
}

// fuseDenseBias turns MatMul followed by Add of a per-column constant into
// one DENSE with a bias.
func (g *Graph) fuseDenseBias() {
	prod, cons := g.producers(), g.consumers()
	drop := map[*Node]bool{}
	for _, add := range g.Nodes {
		if add.Kind != nkfile.OpAdd || add.ActMin != negInf || add.ActMax != inf {
			continue
		}
		for side := range 2 {
			x, c := add.In[side], add.In[1-side]
			p := g.soleReader(x, add, prod, cons)
			if p == nil || p.Kind != nkfile.OpDense || p.In[2] != nil || !c.Const || !slices.Equal(add.Out[0].Shape, x.Shape) {
				continue
			}
			n := p.In[1].Shape[0]
			trimmed := slices.Clone(c.Shape)
			for len(trimmed) > 0 && trimmed[0] == 1 {
				trimmed = trimmed[1:]
			}
			if !slices.Equal(trimmed, []int{n}) {
				continue
			}
			p.In[2] = &Tensor{Name: c.Name, Shape: []int{n}, Const: true, F: slices.Clone(c.F)}
			p.Out[0] = add.Out[0]
			p.Name = p.Name + "+" + add.Name
			drop[add] = true
			break
		}
	}
	g.without(drop)
}

// fuseActivations folds Relu and Clip into the clamp of the op before them.
func (g *Graph) fuseActivations() {
	prod, cons := g.producers(), g.consumers()
	drop := map[*Node]bool{}
	for _, a := range g.Nodes {
		var lo, hi float32
		switch a.Kind {
		case nkfile.OpRelu:
			lo, hi = 0, inf
		case nkfile.OpClip:
			lo, hi = a.Floats[0], a.Floats[1]
		default:
			continue
		}
		p := g.soleReader(a.In[0], a, prod, cons)
		if p == nil || !p.HasAct || drop[p] {
			continue
		}
		p.ActMin, p.ActMax = max(p.ActMin, lo), min(p.ActMax, hi)
		p.Out[0] = a.Out[0]
		drop[a] = true
		g.Stats.FusedActivations++
		prod[a.Out[0]] = p
	}
	g.without(drop)
}
