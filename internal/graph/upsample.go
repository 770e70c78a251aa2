package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
)

// ONNX Resize / Upsample attribute values and their RESIZE2D codes.
var (
	resizeCoords = map[string]int{
		"half_pixel": nkfile.ResizeHalfPixel, "align_corners": nkfile.ResizeAlignCorners,
		"asymmetric": nkfile.ResizeAsymmetric, "pytorch_half_pixel": nkfile.ResizePytorchHalfPixel,
		"tf_half_pixel_for_nn": nkfile.ResizeTFHalfPixelForNN,
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
