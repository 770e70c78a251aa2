package tfliteimport

import (
	"fmt"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/tflite"
)

// resize maps RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (float) to
// RESIZE2D: TFLite's source coordinate, (o + offset) * in/out, is ONNX
// Resize's asymmetric, tf_half_pixel_for_nn (nearest) or half_pixel
// (bilinear) transform, and align_corners is align_corners; nearest
// floors, or rounds half up with align_corners.
func (c *converter) resize(op *tflite.Operator, code tflite.BuiltinOp, isInt8 bool) error {
	if isInt8 && code == tflite.OpResizeBilinear {
		return fmt.Errorf("%w: int8 %v (float only; int8 nearest is supported)", ErrUnsupported, code)
	}
	o, ok := op.Options.(tflite.ResizeOptions)
	if !ok {
		return fmt.Errorf("%w: options %T", ErrUnsupported, op.Options)
	}
	x, _ := c.tensor(op.Inputs[0])
	y, _ := c.tensor(op.Outputs[0])
	xs, ys := shapeOf(x), shapeOf(y)
	if len(xs) != 4 || len(ys) != 4 || xs[0] != ys[0] || xs[3] != ys[3] {
		return fmt.Errorf("%w: resize from %v to %v: want [N,H,W,C] to [N,H',W',C]", ErrUnsupported, xs, ys)
	}
	if len(op.Inputs) < 2 {
		return fmt.Errorf("%w: no size input", ErrUnsupported)
	}
	st, err := c.tensor(op.Inputs[1])
	if err != nil {
		return err
	}
	if raw := c.data(st); st.Type != tflite.Int32 || len(raw) != 8 || !slices.Equal(nkfile.BytesI32(raw), []int32{int32(ys[1]), int32(ys[2])}) {
		return fmt.Errorf("%w: size %q must be a constant INT32 [2] equal to the output's H, W %v", ErrUnsupported, st.Name, ys[1:3])
	}
	if o.AlignCorners && o.HalfPixelCenters {
		return fmt.Errorf("%w: %v with both align_corners and half_pixel_centers", ErrUnsupported, code)
	}
	p := nkfile.Resize2DParams{OutH: ys[1], OutW: ys[2],
		ScaleH: float32(float64(ys[1]) / float64(xs[1])), ScaleW: float32(float64(ys[2]) / float64(xs[2]))}
	switch {
	case o.AlignCorners:
		p.Coord = nkfile.ResizeAlignCorners
	case o.HalfPixelCenters && code == tflite.OpResizeBilinear:
		p.Coord = nkfile.ResizeHalfPixel
	case o.HalfPixelCenters:
		p.Coord = nkfile.ResizeTFHalfPixelForNN
	default:
		p.Coord = nkfile.ResizeAsymmetric
	}
	if code == tflite.OpResizeBilinear {
		p.Mode = nkfile.ResizeBilinear
	} else {
		p.Mode, p.Rounding = nkfile.ResizeNearest, nkfile.ResizeFloor
		if o.AlignCorners {
			p.Rounding = nkfile.ResizeRoundPreferCeil // round() of a non-negative value
		}
	}
	if isInt8 {
		if err := sameQuant(x, y); err != nil { // TFLite's int8 nearest copies bytes
			return err
		}
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	return c.emit(nkfile.OpResize2D, op.Outputs[0], []int{xid}, p.Words(), nkfile.ActNone)
}

// transposeConv maps TRANSPOSE_CONV (inputs: output shape, weights
// [O,KH,KW,C], input, optional bias; float) to CONV_TRANSPOSE2D. TFLite
// places input pixel i at output i*stride - pad + k with the leading pad
// of ComputePaddingHeightWidth run from the output back to the input.
func (c *converter) transposeConv(op *tflite.Operator, y *tflite.Tensor) error {
	if len(op.Inputs) < 3 {
		return fmt.Errorf("%w: TRANSPOSE_CONV with %d inputs", ErrUnsupported, len(op.Inputs))
	}
	o, ok := op.Options.(tflite.TransposeConvOptions)
	if !ok {
		return fmt.Errorf("%w: options %T", ErrUnsupported, op.Options)
	}
	x, err := c.tensor(op.Inputs[2])
	if err != nil {
		return err
	}
	w, err := c.tensor(op.Inputs[1])
	if err != nil {
		return err
	}
	if y.Type != tflite.Float32 || x.Type != tflite.Float32 {
		return fmt.Errorf("%w: TRANSPOSE_CONV on %v (float only)", ErrUnsupported, x.Type)
	}
	xs, ws, ys := shapeOf(x), shapeOf(w), shapeOf(y)
	if len(xs) != 4 || len(ws) != 4 || len(ys) != 4 || ws[3] != xs[3] || ys[3] != ws[0] || ys[0] != xs[0] {
		return fmt.Errorf("%w: TRANSPOSE_CONV input %v, weights %v, output %v", ErrUnsupported, xs, ws, ys)
	}
	stride := []int{int(o.StrideH), int(o.StrideW)}
	if stride[0] < 1 || stride[1] < 1 {
		return fmt.Errorf("%w: strides %v", ErrUnsupported, stride)
	}
	var ints []int
	begin, end := make([]int, 2), make([]int, 2)
	for k := range 2 {
		in, kern, out := xs[1+k], ws[1+k], ys[1+k]
		// the size a convolution would give from an input of `out`
		var back int
		switch o.Padding {
		case tflite.PaddingSame:
			back = (out + stride[k] - 1) / stride[k]
		case tflite.PaddingValid:
			back = (out + stride[k] - kern) / stride[k]
		default:
			return fmt.Errorf("%w: padding %v", ErrUnsupported, o.Padding)
		}
		begin[k] = max(0, (back-1)*stride[k]+kern-out) / 2
		end[k] = nkfile.ConvTransposeOutDim(in, kern, stride[k], 1, begin[k], 0) - out
	}
	ints = []int{stride[0], stride[1], 1, 1, begin[0], begin[1], end[0], end[1]}
	clamp, err := floatClamp(o.Activation)
	if err != nil {
		return err
	}
	xid, err := c.input(op.Inputs[2])
	if err != nil {
		return err
	}
	wid, err := c.floatConstant(op.Inputs[1])
	if err != nil {
		return err
	}
	bias := -1
	if len(op.Inputs) > 3 && op.Inputs[3] >= 0 {
		if bias, err = c.floatConstant(op.Inputs[3]); err != nil {
			return err
		}
	}
	params := append(nkfile.I32Words(ints...), nkfile.ClampWords(clamp)...)
	return c.emit(nkfile.OpConvTranspose2D, op.Outputs[0], []int{xid, wid, bias}, params, clamp.Act())
}

// gelu maps GELU: float to GELU, int8 to LUT_I8 with the table TFLite's
// int8 GELU builds from the input and output quantization.
func (c *converter) gelu(op *tflite.Operator, isInt8 bool) error {
	approximate := false
	if o, ok := op.Options.(tflite.GeluOptions); ok {
		approximate = o.Approximate
	}
	if isInt8 {
		return c.lutI8(op, "gelu", func(sIn float32, zpIn int32, sOut float32, zpOut int32) ([256]int8, error) {
			return quant.GeluLUT(sIn, zpIn, sOut, zpOut, approximate)
		})
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	return c.emit(nkfile.OpGelu, op.Outputs[0], []int{xid}, nkfile.I32Words(map[bool]int{false: 0, true: 1}[approximate]), nkfile.ActNone)
}
