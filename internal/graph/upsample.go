package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
)

// ONNX Resize / Upsample attribute values and their RESIZE2D codes.
var (
	resizeCoords = map[string]int{
		"half_pixel": nkfile.ResizeHalfPixel, "align_corners": nkfile.ResizeAlignCorners,
		"asymmetric": nkfile.ResizeAsymmetric, "pytorch_half_pixel": nkfile.ResizePytorchHalfPixel,
		"tf_half_pixel_for_nn": nkfile.ResizeTFHalfPixelForNN, "tf_crop_and_resize": nkfile.ResizeTFCropAndResize,
	}
	resizeRoundings = map[string]int{
		"round_prefer_floor": nkfile.ResizeRoundPreferFloor, "round_prefer_ceil": nkfile.ResizeRoundPreferCeil,
		"floor": nkfile.ResizeFloor, "ceil": nkfile.ResizeCeil,
	}
)

// lowerResize turns Resize (opset 10+) and Upsample over the two spatial
// axes of a rank-4 [N,C,H,W] tensor, with constant scales or sizes, into
// RESIZE2D.
func (g *Graph) lowerResize(n *Node) ([]*Node, error) {
	s := n.src
	x, out := n.In[0], n.Out[0]
	if len(x.Shape) != 4 {
		return nil, fmt.Errorf("only rank-4 [N,C,H,W] input is supported, got %v", x.Shape)
	}
	p := nkfile.Resize2DParams{Coord: nkfile.ResizeHalfPixel, Rounding: nkfile.ResizeRoundPreferFloor}
	switch mode := s.str("mode", "nearest"); mode {
	case "nearest":
		p.Mode = nkfile.ResizeNearest
	case "linear", "bilinear":
		p.Mode = nkfile.ResizeBilinear
	case "cubic":
		p.Mode, p.CubicA = nkfile.ResizeCubic, s.float("cubic_coeff_a", -0.75)
		p.ExcludeOutside = s.int("exclude_outside", 0) != 0
		if n.Op == "Upsample" || s.opset < 11 {
			return nil, fmt.Errorf("attribute mode=cubic needs Resize of opset 11 or later")
		}
	default:
		return nil, fmt.Errorf("attribute mode=%s is not supported (nearest, linear and cubic are)", mode)
	}
	// Upsample and opset-10 Resize: scales at input 1, asymmetric, and
	// nearest takes the floor (element repeat).
	scalesAt, sizesAt := 1, -1
	if n.Op == "Upsample" || s.opset < 11 {
		p.Coord, p.Rounding = nkfile.ResizeAsymmetric, nkfile.ResizeFloor
		if n.Op == "Upsample" && s.opset < 9 {
			return nil, fmt.Errorf("Upsample before opset 9 (scales as an attribute) is not supported")
		}
	} else {
		scalesAt, sizesAt = 2, 3
		ct := s.str("coordinate_transformation_mode", "half_pixel")
		c, ok := resizeCoords[ct]
		if !ok {
			return nil, fmt.Errorf("attribute coordinate_transformation_mode=%s is not supported", ct)
		}
		p.Coord = c
		nm := s.str("nearest_mode", "round_prefer_floor")
		if p.Rounding, ok = resizeRoundings[nm]; !ok {
			return nil, fmt.Errorf("attribute nearest_mode=%s is not supported", nm)
		}
		if e := s.int("exclude_outside", 0); e != 0 && p.Mode != nkfile.ResizeCubic {
			return nil, fmt.Errorf("attribute exclude_outside=%d is not supported", e)
		}
	}
	input := func(i int) *Tensor {
		if i >= 0 && i < len(n.In) && n.In[i] != nil && n.In[i].Elems() > 0 {
			return n.In[i]
		}
		return nil
	}
	sizes, scales := input(sizesAt), input(scalesAt)
	outShape := make([]int, 4)
	scale := make([]float64, 4)
	switch {
	case sizes != nil:
		if !sizes.Const || sizes.Elems() != 4 {
			return nil, fmt.Errorf("sizes (input %d) must be a constant of 4 values", sizesAt)
		}
		for k, v := range ints(sizes) {
			if v < 1 || v > nkfile.MaxDim {
				return nil, fmt.Errorf("sizes %v out of range", ints(sizes))
			}
			outShape[k] = int(v)
			scale[k] = float64(v) / float64(x.Shape[k])
		}
	case scales != nil:
		if !scales.Const || scales.Int || scales.Elems() != 4 {
			return nil, fmt.Errorf("scales (input %d) must be a constant of 4 floats", scalesAt)
		}
		for k, v := range scales.F {
			if !(v > 0) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("scales %v must be positive and finite", scales.F)
			}
			scale[k] = float64(v)
			o := math.Floor(float64(x.Shape[k]) * float64(v))
			if o < 1 || o > nkfile.MaxDim {
				return nil, fmt.Errorf("scales %v give an output of %v along axis %d", scales.F, o, k)
			}
			outShape[k] = int(o)
		}
	default:
		return nil, fmt.Errorf("needs constant scales or sizes")
	}
	if outShape[0] != x.Shape[0] || outShape[1] != x.Shape[1] {
		return nil, fmt.Errorf("resizing the batch or channel axis (output %v from %v) is not supported", outShape, x.Shape)
	}
	if p.Coord == nkfile.ResizeTFCropAndResize {
		roi := input(1)
		if roi == nil || !roi.Const || roi.Elems() != 8 {
			return nil, fmt.Errorf("coordinate_transformation_mode=tf_crop_and_resize needs roi (input 1) as a constant of 8 values")
		}
		r := floats(roi) // starts, then ends, per axis
		if r[0] != 0 || r[4] != 1 || r[1] != 0 || r[5] != 1 {
			return nil, fmt.Errorf("roi %v crops the batch or channel axis; only H and W are supported", r)
		}
		p.CropH, p.CropW = [2]float32{r[2], r[6]}, [2]float32{r[3], r[7]}
		p.Extrapolation = s.float("extrapolation_value", 0)
		for _, v := range append(r, p.Extrapolation) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("roi %v and extrapolation_value %g must be finite", r, p.Extrapolation)
			}
		}
	}
	p.OutH, p.OutW = outShape[2], outShape[3]
	p.ScaleH, p.ScaleW = float32(scale[2]), float32(scale[3])
	out.Shape = outShape
	m := &Node{Op: n.Op, Kind: nkfile.OpResize2D, Name: n.Name, In: []*Tensor{x}, Out: n.Out[:1],
		Resize: &p}
	return []*Node{m}, nil
}

// lowerConvTranspose turns a 2-D ConvTranspose with constant weights
// [C, O, KH, KW] (group 1) into CONV_TRANSPOSE2D, resolving auto_pad,
// output_shape and output_padding into the op's pads.
func (g *Graph) lowerConvTranspose(n *Node) ([]*Node, error) {
	s := n.src
	x, w := n.In[0], n.In[1]
	if len(x.Shape) != 4 {
		return nil, fmt.Errorf("only 1-D and 2-D transposed convolution are supported (input %v)", x.Shape)
	}
	if w == nil || !w.Const || len(w.Shape) != 4 || w.Shape[0] != x.Shape[1] {
		return nil, fmt.Errorf("weights (input 1) must be a rank-4 constant [%d, O, KH, KW]", x.Shape[1])
	}
	if group := s.int("group", 1); group != 1 {
		return nil, fmt.Errorf("attribute group=%d is not supported (only 1)", group)
	}
	o, kh, kw := w.Shape[1], w.Shape[2], w.Shape[3]
	bias, err := convBias(n, o)
	if err != nil {
		return nil, err
	}
	strides, dil, err := convWindow(s, w)
	if err != nil {
		return nil, err
	}
	outPad := s.ints("output_padding", []int{0, 0})
	if len(outPad) != 2 || outPad[0] < 0 || outPad[1] < 0 {
		return nil, fmt.Errorf("attribute output_padding=%v, want 2 non-negative values", outPad)
	}
	k := []int{kh, kw}
	full := func(i int) int { return nkfile.ConvTransposeOutDim(x.Shape[2+i], k[i], strides[i], dil[i], 0, 0) }
	begin, end := make([]int, 2), make([]int, 2)
	outShape := s.ints("output_shape", nil)
	if len(outShape) == 4 {
		outShape = outShape[2:]
	}
	ap := s.str("auto_pad", "NOTSET")
	if outShape == nil && (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
		outShape = []int{x.Shape[2] * strides[0], x.Shape[3] * strides[1]}
	}
	switch {
	case outShape != nil:
		if len(outShape) != 2 {
			return nil, fmt.Errorf("attribute output_shape=%v, want 2 values", s.ints("output_shape", nil))
		}
		for i := range 2 {
			total := full(i) + outPad[i] - outShape[i]
			if total < 0 {
				// a larger output_shape appends rows of bias only (onnxruntime's reading)
				begin[i], end[i] = 0, total
				continue
			}
			begin[i] = total - total/2
			if ap == "SAME_UPPER" {
				begin[i] = total / 2
			}
			end[i] = total - begin[i]
		}
	case ap == "NOTSET" || ap == "" || ap == "VALID":
		if ap != "VALID" {
			pads := s.ints("pads", []int{0, 0, 0, 0})
			if len(pads) != 4 || slices.ContainsFunc(pads, func(v int) bool { return v < 0 }) {
				return nil, fmt.Errorf("attribute pads=%v, want 4 non-negative values", pads)
			}
			begin, end = pads[:2], pads[2:]
		}
	default:
		return nil, fmt.Errorf("attribute auto_pad=%s is not supported", ap)
	}
	shape := []int{x.Shape[0], o, 0, 0}
	for i := range 2 {
		end[i] -= outPad[i] // output_padding extends the end: a negative crop
		shape[2+i] = full(i) - begin[i] - end[i]
		if shape[2+i] < 1 {
			return nil, fmt.Errorf("pads %v/%v leave no output", begin, end)
		}
	}
	n.Out[0].Shape = shape
	// [C, O, KH, KW] stored as [O, KH, KW, C]
	wt := &Tensor{Name: w.Name, Shape: slices.Clone(w.Shape), Const: true, F: floats(w), Perm: []int{1, 2, 3, 0}}
	in := []*Tensor{x, wt, bias}
	m := &Node{Op: n.Op, Kind: nkfile.OpConvTranspose2D, Name: n.Name, In: in, Out: n.Out[:1], HasAct: true, ActMin: negInf, ActMax: inf}
	m.Ints = []int{strides[0], strides[1], dil[0], dil[1], begin[0], begin[1], end[0], end[1]}
	return []*Node{m}, nil
}

// convTranspose3D runs a 3-D ConvTranspose (x [N, C, D, H, W], weights
// [C, O, KD, KH, KW], group 1) as two 2-D ones. First every depth slice,
// as a batch entry, goes through the (H, W) transposed convolution with the
// weights read as [C, O*KD, KH, KW] (the same bytes): channel o*KD+kd holds
// slice d's contribution through depth tap kd. Then a transposed
// convolution over (D, 1) on [N, O*KD, D, OH*OW] scatters each to output
// depth d*stride + kd*dilation - pad, with 0/1 weights that pick channel
// o*KD+kd for output o at tap kd, and adds the bias. auto_pad, pads,
// output_padding and output_shape split per axis.
func (g *Graph) convTranspose3D(n *Node) ([]*Node, error) {
	x, w, out := n.In[0], n.In[1], n.Out[0]
	if w == nil || !w.Const || len(w.Shape) != 5 || w.Shape[0] != x.Shape[1] {
		return nil, fmt.Errorf("weights (input 1) must be a rank-5 constant [%d, O, KD, KH, KW]", x.Shape[1])
	}
	if group := n.src.int("group", 1); group != 1 {
		return nil, fmt.Errorf("attribute group=%d is not supported (only 1)", group)
	}
	nb, c, d, h, wd := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4]
	o, kd := w.Shape[1], w.Shape[2]
	var hwAttrs, dAttrs []*onnx.Attribute
	for _, a := range n.src.n.Attrs {
		hw, dp := *a, *a
		v := a.Ints
		switch a.Name {
		case "kernel_shape", "strides", "dilations", "output_padding", "output_shape":
			if a.Name == "output_shape" && len(v) == 5 {
				v = v[2:]
			}
			if len(v) != 3 {
				return nil, fmt.Errorf("attribute %s=%v, want 3 values", a.Name, a.Ints)
			}
			other := int64(1) // the second axis of the depth pass: one tap, stride 1
			switch a.Name {
			case "output_padding":
				other = 0
			case "output_shape":
				other = -1 // filled in below, once OH*OW is known
			}
			hw.Ints, dp.Ints = []int64{v[1], v[2]}, []int64{v[0], other}
		case "pads":
			if len(v) != 6 {
				return nil, fmt.Errorf("attribute pads=%v, want 6 values", v)
			}
			hw.Ints, dp.Ints = []int64{v[1], v[2], v[4], v[5]}, []int64{v[0], 0, v[3], 0}
		}
		hwAttrs, dAttrs = append(hwAttrs, &hw), append(dAttrs, &dp)
	}
	src := func(attrs []*onnx.Attribute) *srcNode {
		return &srcNode{n: &onnx.Node{OpType: n.src.n.OpType, Name: n.Name, Attrs: attrs}, opset: n.src.opset}
	}
	var nodes []*Node
	add := func(kind nkfile.OpType, name string, in, to *Tensor, perm []int) {
		nodes = append(nodes, &Node{Op: n.Op, Kind: kind, Name: n.Name + "/" + name, In: []*Tensor{in}, Out: []*Tensor{to}, Perm: perm})
	}
	// depth into the batch: [N, C, D, H, W] -> [N*D, C, H, W]
	ndchw := &Tensor{Name: x.Name + "_ndchw", Shape: []int{nb, d, c, h, wd}}
	add(nkfile.OpTranspose, "depth_first", x, ndchw, []int{0, 2, 1, 3, 4})
	slices2D := &Tensor{Name: x.Name + "_slices", Shape: []int{nb * d, c, h, wd}}
	add(nkfile.OpReshape, "slices", ndchw, slices2D, nil)
	w2 := &Tensor{Name: w.Name + "_hw", Shape: []int{c, o * kd, w.Shape[3], w.Shape[4]}, Const: true, F: floats(w)}
	hwOut := &Tensor{Name: out.Name + "_hw"}
	hw, err := g.lowerConvTranspose(&Node{Op: n.Op, Name: n.Name + "/hw", In: []*Tensor{slices2D, w2, nil}, Out: []*Tensor{hwOut}, src: src(hwAttrs)})
	if err != nil {
		return nil, err
	}
	nodes = append(nodes, hw...)
	oh, ow := hwOut.Shape[2], hwOut.Shape[3]
	for _, a := range dAttrs {
		if a.Name == "output_shape" {
			a.Ints[1] = int64(oh * ow)
		}
	}
	// [N*D, O*KD, OH, OW] -> [N, O*KD, D, OH*OW]
	perDepth := &Tensor{Name: out.Name + "_per_depth", Shape: []int{nb, d, o * kd, oh * ow}}
	add(nkfile.OpReshape, "per_depth", hwOut, perDepth, nil)
	taps := &Tensor{Name: out.Name + "_taps", Shape: []int{nb, o * kd, d, oh * ow}}
	add(nkfile.OpTranspose, "taps", perDepth, taps, []int{0, 2, 1, 3})
	pick := make([]float32, o*kd*o*kd) // [O*KD, O, KD, 1]
	for oc := range o {
		for k := range kd {
			pick[((oc*kd+k)*o+oc)*kd+k] = 1
		}
	}
	sel := &Tensor{Name: w.Name + "_depth_taps", Shape: []int{o * kd, o, kd, 1}, Const: true, F: pick}
	dOut := &Tensor{Name: out.Name + "_d"}
	in := []*Tensor{taps, sel, nil}
	if len(n.In) > 2 {
		in[2] = n.In[2]
	}
	dp, err := g.lowerConvTranspose(&Node{Op: n.Op, Name: n.Name + "/d", In: in, Out: []*Tensor{dOut}, src: src(dAttrs)})
	if err != nil {
		return nil, err
	}
	nodes = append(nodes, dp...)
	out.Shape = []int{nb, o, dOut.Shape[2], oh, ow}
	add(nkfile.OpReshape, "to3d", dOut, out, nil)
	return nodes, nil
}
