package graph

import (
	"fmt"
	"math"
	"slices"
)

// Constant folding: nodes whose inputs are all constants are evaluated here,
// in Go, so weight-only subgraphs (reshapes of shape tensors, transposed or
// scaled weights) never reach the file. Shape is folded even on a runtime
// input, because shapes are static.

var foldable = map[string]bool{
	"Add": true, "Sub": true, "Mul": true, "Div": true, "Pow": true, "Sqrt": true, "Neg": true,
	"Reciprocal": true, "Relu": true, "Sigmoid": true, "Tanh": true, "Erf": true, "Exp": true,
	"Transpose": true, "Reshape": true, "Flatten": true, "Squeeze": true, "Unsqueeze": true,
	"Concat": true, "Gather": true, "Cast": true, "Identity": true, "Dropout": true,
	"ConstantOfShape": true, "Slice": true, "Expand": true, "Size": true,
}

// broadcastShape is numpy broadcasting of two shapes.
func broadcastShape(a, b []int) ([]int, error) {
	r := max(len(a), len(b))
	out := make([]int, r)
	for k := range r {
		da, db := 1, 1
		if i := k - (r - len(a)); i >= 0 {
			da = a[i]
		}
		if i := k - (r - len(b)); i >= 0 {
			db = b[i]
		}
		switch {
		case da == db || db == 1:
			out[k] = da
		case da == 1:
			out[k] = db
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// broadcastIndex maps each flat index of out to the flat index of in.
func broadcastIndex(out, in []int) []int {
	r := len(out)
	strides := make([]int, r)
	s := 1
	for k := len(in) - 1; k >= 0; k-- {
		if in[k] != 1 {
			strides[k+r-len(in)] = s
		}
		s *= in[k]
	}
	idx := make([]int, prod(out))
	pos := make([]int, r)
	for i := range idx {
		off := 0
		for k := range r {
			off += pos[k] * strides[k]
		}
		idx[i] = off
		for k := r - 1; k >= 0; k-- {
			pos[k]++
			if pos[k] < out[k] {
				break
			}
			pos[k] = 0
		}
	}
	return idx
}

// sizeOf is ONNX Size: the element count of t as an int64 scalar. Shapes are
// static, so it folds on a run-time tensor too.
func sizeOf(t *Tensor) *Tensor {
	return &Tensor{Const: true, Int: true, Shape: []int{}, I: []int64{int64(prod(t.Shape))}}
}

func floats(t *Tensor) []float32 {
	if !t.Int {
		return t.F
	}
	out := make([]float32, len(t.I))
	for i, v := range t.I {
		out[i] = float32(v)
	}
	return out
}

func ints(t *Tensor) []int64 {
	if t.Int {
		return t.I
	}
	out := make([]int64, len(t.F))
	for i, v := range t.F {
		out[i] = int64(v)
	}
	return out
}

// gatherData picks elements of t (logical order) by index.
func gatherData(t *Tensor, idx []int) *Tensor {
	out := &Tensor{Const: true, Int: t.Int}
	if t.Int {
		out.I = make([]int64, len(idx))
		for i, j := range idx {
			out.I[i] = t.I[j]
		}
	} else {
		out.F = make([]float32, len(idx))
		for i, j := range idx {
			out.F[i] = t.F[j]
		}
	}
	return out
}

func normAxis(axis, rank int) (int, error) {
	if axis < -rank || axis >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	return axis, nil
}

// fold evaluates n on constant inputs, returning its constant outputs.
func (g *Graph) fold(n *Node) ([]*Tensor, error) {
	in := n.In
	s := n.src
	one := func(t *Tensor) ([]*Tensor, error) { return []*Tensor{t}, nil }
	switch n.Op {
	case "Identity", "Dropout":
		t := *in[0]
		return one(&t)
	case "Size":
		return one(sizeOf(in[0]))
	case "Add", "Sub", "Mul", "Div", "Pow":
		a, b := in[0], in[1]
		shape, err := broadcastShape(a.Shape, b.Shape)
		if err != nil {
			return nil, err
		}
		ia, ib := broadcastIndex(shape, a.Shape), broadcastIndex(shape, b.Shape)
		out := &Tensor{Shape: shape, Const: true}
		if a.Int && b.Int {
			out.Int = true
			out.I = make([]int64, len(ia))
			for i := range ia {
				x, y := a.I[ia[i]], b.I[ib[i]]
				switch n.Op {
				case "Add":
					out.I[i] = x + y
				case "Sub":
					out.I[i] = x - y
				case "Mul":
					out.I[i] = x * y
				case "Div":
					if y == 0 {
						return nil, fmt.Errorf("integer division by zero")
					}
					out.I[i] = x / y
				case "Pow":
					out.I[i] = int64(math.Pow(float64(x), float64(y)))
				}
			}
			return one(out)
		}
		fa, fb := floats(a), floats(b)
		out.F = make([]float32, len(ia))
		for i := range ia {
			x, y := fa[ia[i]], fb[ib[i]]
			switch n.Op {
			case "Add":
				out.F[i] = x + y
			case "Sub":
				out.F[i] = x - y
			case "Mul":
				out.F[i] = x * y
			case "Div":
				out.F[i] = x / y
			case "Pow":
				out.F[i] = float32(math.Pow(float64(x), float64(y)))
			}
		}
		return one(out)
	case "Sqrt", "Neg", "Reciprocal", "Relu", "Sigmoid", "Tanh", "Erf", "Exp":
		x := in[0]
		if x.Int && n.Op != "Neg" && n.Op != "Relu" {
			return nil, fmt.Errorf("integer input")
		}
		out := &Tensor{Shape: slices.Clone(x.Shape), Const: true, Int: x.Int}
		if x.Int {
			out.I = make([]int64, len(x.I))
			for i, v := range x.I {
				if n.Op == "Neg" {
					out.I[i] = -v
				} else {
					out.I[i] = max(v, 0)
				}
			}
			return one(out)
		}
		f := map[string]func(float64) float64{
			"Sqrt": math.Sqrt, "Neg": func(v float64) float64 { return -v },
			"Reciprocal": func(v float64) float64 { return 1 / v },
			"Relu":       func(v float64) float64 { return math.Max(v, 0) },
			"Sigmoid":    func(v float64) float64 { return 1 / (1 + math.Exp(-v)) },
			"Tanh":       math.Tanh, "Erf": math.Erf, "Exp": math.Exp,
		}[n.Op]
		out.F = make([]float32, len(x.F))
		for i, v := range x.F {
			out.F[i] = float32(f(float64(v)))
		}
		return one(out)
	case "Cast":
		x := in[0]
		to := s.int("to", 1)
		out := &Tensor{Shape: slices.Clone(x.Shape), Const: true}
		switch to {
		case 1, 11: // float, double
			out.F = slices.Clone(floats(x))
		case 2, 3, 4, 5, 6, 7, 9, 12, 13:
			out.Int, out.I, out.U8 = true, slices.Clone(ints(x)), to == 2
		default:
			return nil, fmt.Errorf("Cast to type %d", to)
		}
		return one(out)
	case "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze":
		shape, perm, err := g.reshapeLike(n)
		if err != nil {
			return nil, err
		}
		x := in[0]
		out := &Tensor{Shape: shape, Const: true, Int: x.Int}
		if perm != nil {
			out.F, out.I = transposeData(x.F, x.Shape, perm), transposeData(x.I, x.Shape, perm)
		} else {
			out.F, out.I = x.F, x.I
		}
		return one(out)
	case "Concat":
		shape, axis, err := concatShape(n)
		if err != nil {
			return nil, err
		}
		out := &Tensor{Shape: shape, Const: true, Int: in[0].Int}
		outer := prod(shape[:axis])
		for o := range outer {
			for _, t := range in {
				chunk := prod(t.Shape[axis:])
				if t.Int {
					out.I = append(out.I, ints(t)[o*chunk:(o+1)*chunk]...)
				} else {
					out.F = append(out.F, floats(t)[o*chunk:(o+1)*chunk]...)
				}
			}
		}
		return one(out)
	case "Expand":
		// numpy broadcast of the input and the requested shape (PyTorch's
		// export of an RNN's zero initial state expands a constant)
		dims := ints(in[1])
		want := make([]int, len(dims))
		for i, d := range dims {
			if d < 1 || d > 1<<24 {
				return nil, fmt.Errorf("Expand shape %v", dims)
			}
			want[i] = int(d)
		}
		shape, err := broadcastShape(in[0].Shape, want)
		if err != nil {
			return nil, err
		}
		if exceeds(shape, 1<<24) {
			return nil, fmt.Errorf("Expand to %v is too large", shape)
		}
		out := gatherData(in[0], broadcastIndex(shape, in[0].Shape))
		out.Shape = shape
		return one(out)
	case "ConstantOfShape":
		dims := ints(in[0])
		shape := make([]int, len(dims))
		for i, d := range dims {
			if d < 0 || d > 1<<24 {
				return nil, fmt.Errorf("ConstantOfShape dims %v", dims)
			}
			shape[i] = int(d)
		}
		if exceeds(shape, 1<<24) {
			return nil, fmt.Errorf("ConstantOfShape of %v is too large", shape)
		}
		out := &Tensor{Shape: shape, Const: true}
		val := &Tensor{Shape: []int{1}, F: []float32{0}}
		if a := s.attr("value"); a != nil && a.T != nil {
			v, err := tensorFromONNX("value", a.T)
			if err != nil || v.Elems() != 1 {
				return nil, fmt.Errorf("ConstantOfShape value must be one number")
			}
			val = v
		}
		idx := make([]int, prod(shape))
		out = gatherData(val, idx)
		out.Shape = shape
		return one(out)
	case "Slice":
		return g.foldSlice(n)
	case "Gather":
		x, idx := in[0], in[1]
		axis, err := normAxis(s.int("axis", 0), len(x.Shape))
		if err != nil {
			return nil, err
		}
		indices := ints(idx)
		shape := append(append(slices.Clone(x.Shape[:axis]), idx.Shape...), x.Shape[axis+1:]...)
		outer, inner, dim := prod(x.Shape[:axis]), prod(x.Shape[axis+1:]), x.Shape[axis]
		var pick []int
		for o := range outer {
			for _, j := range indices {
				if j < 0 {
					j += int64(dim)
				}
				if j < 0 || j >= int64(dim) {
					return nil, fmt.Errorf("Gather index %d out of range", j)
				}
				for k := range inner {
					pick = append(pick, (o*dim+int(j))*inner+k)
				}
			}
		}
		out := gatherData(x, pick)
		out.Shape = shape
		return one(out)
	}
	return nil, fmt.Errorf("no constant evaluator")
}

// reshapeLike infers the output shape of the pure data-movement ops, and for
// Transpose the permutation.
func (g *Graph) reshapeLike(n *Node) (shape, perm []int, err error) {
	x := n.In[0]
	r := len(x.Shape)
	s := n.src
	switch n.Op {
	case "Transpose":
		perm = s.ints("perm", nil)
		if perm == nil {
			for k := r - 1; k >= 0; k-- {
				perm = append(perm, k)
			}
		}
		seen := make([]bool, r)
		for _, p := range perm {
			if p < 0 || p >= r || seen[p] || len(perm) != r {
				return nil, nil, fmt.Errorf("attribute perm=%v is not a permutation of rank %d", perm, r)
			}
			seen[p] = true
		}
		return permute(x.Shape, perm), perm, nil
	case "Flatten":
		axis := s.int("axis", 1)
		if axis < 0 {
			axis += r
		}
		if axis < 0 || axis > r {
			return nil, nil, fmt.Errorf("attribute axis=%d out of range for rank %d", s.int("axis", 1), r)
		}
		return []int{prod(x.Shape[:axis]), prod(x.Shape[axis:])}, nil, nil
	case "Reshape":
		if len(n.In) < 2 || n.In[1] == nil || !n.In[1].Const {
			return nil, nil, fmt.Errorf("the target shape (input 1) must be a constant")
		}
		want := ints(n.In[1])
		allowZero := s.int("allowzero", 0) == 1
		shape = make([]int, len(want))
		infer := -1
		for i, d := range want {
			switch {
			case d == 0 && !allowZero:
				if i >= r {
					return nil, nil, fmt.Errorf("shape %v copies dim %d of a rank-%d input", want, i, r)
				}
				shape[i] = x.Shape[i]
			case d == -1:
				if infer >= 0 {
					return nil, nil, fmt.Errorf("shape %v has two -1 entries", want)
				}
				infer = i
			case d <= 0:
				return nil, nil, fmt.Errorf("shape %v has a zero or negative dim", want)
			default:
				shape[i] = int(d)
			}
		}
		if infer >= 0 {
			known := 1
			for i, d := range shape {
				if i != infer {
					known *= d
				}
			}
			if known == 0 || x.Elems()%known != 0 {
				return nil, nil, fmt.Errorf("shape %v does not fit %v", want, x.Shape)
			}
			shape[infer] = x.Elems() / known
		}
		if prod(shape) != x.Elems() {
			return nil, nil, fmt.Errorf("shape %v does not hold the %d elements of %v", want, x.Elems(), x.Shape)
		}
		return shape, nil, nil
	case "Squeeze", "Unsqueeze":
		var axes []int
		if s.opset >= 13 {
			if len(n.In) > 1 && n.In[1] != nil {
				if !n.In[1].Const {
					return nil, nil, fmt.Errorf("axes (input 1) must be a constant")
				}
				for _, a := range ints(n.In[1]) {
					axes = append(axes, int(a))
				}
			}
		} else {
			axes = s.ints("axes", nil)
		}
		if n.Op == "Squeeze" {
			drop := make([]bool, r)
			for _, a := range axes {
				a, err := normAxis(a, r)
				if err != nil || x.Shape[a] != 1 {
					return nil, nil, fmt.Errorf("cannot squeeze axis %d of %v", a, x.Shape)
				}
				drop[a] = true
			}
			for k, d := range x.Shape {
				if !drop[k] && (axes != nil || d != 1) {
					shape = append(shape, d)
				}
			}
			return shape, nil, nil
		}
		outRank := r + len(axes)
		ins := make([]bool, outRank)
		for _, a := range axes {
			a, err := normAxis(a, outRank)
			if err != nil || ins[a] {
				return nil, nil, fmt.Errorf("bad Unsqueeze axes %v", axes)
			}
			ins[a] = true
		}
		j := 0
		for k := range outRank {
			if ins[k] {
				shape = append(shape, 1)
			} else {
				shape = append(shape, x.Shape[j])
				j++
			}
		}
		return shape, nil, nil
	}
	return nil, nil, fmt.Errorf("not a reshape")
}

func concatShape(n *Node) ([]int, int, error) {
	x := n.In[0]
	if n.src.opset < 4 && n.src.attr("axis") == nil {
		return nil, 0, fmt.Errorf("Concat before opset 4 without an axis attribute (default 1) is not supported")
	}
	axis, err := normAxis(n.src.int("axis", 0), len(x.Shape))
	if err != nil {
		return nil, 0, err
	}
	shape := slices.Clone(x.Shape)
	for _, t := range n.In[1:] {
		if t == nil || len(t.Shape) != len(x.Shape) {
			return nil, 0, fmt.Errorf("inputs differ in rank")
		}
		for k := range shape {
			if k != axis && t.Shape[k] != shape[k] {
				return nil, 0, fmt.Errorf("inputs %v and %v differ off axis %d", x.Shape, t.Shape, axis)
			}
		}
		shape[axis] += t.Shape[axis]
	}
	return shape, axis, nil
}

// foldSlice evaluates Slice (opset 10+: starts, ends, axes, steps inputs;
// before: attributes) on a constant.
// sliceGeometry resolves an ONNX Slice (starts, ends, axes, steps as
// constant inputs, or attributes before opset 10) into the first index, the
// step and the element count per dim of its input. A count may be 0: folding
// keeps such an empty constant (a shape prefix of length 0 that a Concat then
// completes), the run-time Slice refuses it.
func sliceGeometry(n *Node) (begin, step, count []int, err error) {
	x := n.In[0]
	r := len(x.Shape)
	var starts, ends, axes, steps []int64
	if n.src.opset >= 10 {
		if len(n.In) < 3 || n.In[1] == nil || n.In[2] == nil {
			return nil, nil, nil, fmt.Errorf("Slice needs starts and ends")
		}
		for _, t := range n.In[1:] {
			if t != nil && !t.Const {
				return nil, nil, nil, fmt.Errorf("starts, ends, axes and steps must be constants")
			}
		}
		starts, ends = ints(n.In[1]), ints(n.In[2])
		if len(n.In) > 3 && n.In[3] != nil {
			axes = ints(n.In[3])
		}
		if len(n.In) > 4 && n.In[4] != nil {
			steps = ints(n.In[4])
		}
	} else {
		for _, v := range n.src.ints("starts", nil) {
			starts = append(starts, int64(v))
		}
		for _, v := range n.src.ints("ends", nil) {
			ends = append(ends, int64(v))
		}
		for _, v := range n.src.ints("axes", nil) {
			axes = append(axes, int64(v))
		}
	}
	if len(ends) != len(starts) || (axes != nil && len(axes) != len(starts)) || (steps != nil && len(steps) != len(starts)) {
		return nil, nil, nil, fmt.Errorf("Slice inputs disagree in length")
	}
	begin, step, count = make([]int, r), make([]int, r), slices.Clone(x.Shape)
	for k := range step {
		step[k] = 1
	}
	for i := range starts {
		axis := i
		if axes != nil {
			a, err := normAxis(int(axes[i]), r)
			if err != nil {
				return nil, nil, nil, err
			}
			axis = a
		}
		st := int64(1)
		if steps != nil {
			st = steps[i]
		}
		if st == 0 {
			return nil, nil, nil, fmt.Errorf("Slice step 0")
		}
		dim := int64(x.Shape[axis])
		clampIdx := func(v, lo, hi int64) int64 {
			if v < 0 {
				v += dim
			}
			return min(max(v, lo), hi)
		}
		var b, e int64
		if st > 0 {
			b, e = clampIdx(starts[i], 0, dim), clampIdx(ends[i], 0, dim)
		} else {
			b, e = clampIdx(starts[i], -1, dim-1), clampIdx(ends[i], -1, dim-1)
			if ends[i] < -dim { // "to the very beginning"
				e = -1
			}
		}
		c := int64(0)
		if st > 0 && e > b {
			c = (e - b + st - 1) / st
		} else if st < 0 && b > e {
			c = (b - e - st - 1) / -st
		}
		begin[axis], step[axis], count[axis] = int(b), int(st), int(c)
	}
	return begin, step, count, nil
}

func (g *Graph) foldSlice(n *Node) ([]*Tensor, error) {
	x := n.In[0]
	r := len(x.Shape)
	begin, step, count, err := sliceGeometry(n)
	if err != nil {
		return nil, err
	}
	strides := make([]int, r)
	sz := 1
	for k := r - 1; k >= 0; k-- {
		strides[k] = sz
		sz *= x.Shape[k]
	}
	pick := make([]int, 0, prod(count))
	pos := make([]int, r)
	for range prod(count) {
		off := 0
		for k := range r {
			off += (begin[k] + pos[k]*step[k]) * strides[k]
		}
		pick = append(pick, off)
		for k := r - 1; k >= 0; k-- {
			pos[k]++
			if pos[k] < count[k] {
				break
			}
			pos[k] = 0
		}
	}
	out := gatherData(x, pick)
	out.Shape = count
	return []*Tensor{out}, nil
}
