package nkfile

import "fmt"

// Resize2D modes, coordinate transforms and nearest roundings (RESIZE2D's
// first three params; the ONNX Resize attribute values they stand for).
const (
	ResizeNearest  = 0
	ResizeBilinear = 1
	ResizeCubic    = 2 // two more params: cubic_coeff_a, exclude_outside

	ResizeHalfPixel        = 0
	ResizeAlignCorners     = 1
	ResizeAsymmetric       = 2
	ResizePytorchHalfPixel = 3
	ResizeTFHalfPixelForNN = 4
	ResizeTFCropAndResize  = 5 // five more params: the crop box and the extrapolation value

	ResizeRoundPreferFloor = 0
	ResizeRoundPreferCeil  = 1
	ResizeFloor            = 2
	ResizeCeil             = 3
)

// Resize2DParams are RESIZE2D's parameters.
type Resize2DParams struct {
	Mode, Coord, Rounding int
	OutH, OutW            int
	ScaleH, ScaleW        float32 // output/input
	// Cubic only: Keys' coefficient a (ONNX cubic_coeff_a) and whether taps
	// outside the input get weight 0 (the others renormalized).
	CubicA         float32
	ExcludeOutside bool
	// tf_crop_and_resize only: the crop box as fractions of the input
	// (start, end along H, then along W) and the value of an output pixel
	// whose source lies outside the input.
	CropH, CropW  [2]float32
	Extrapolation float32
}

// resize2DWords is RESIZE2D's param count for a mode and coordinate transform.
func resize2DWords(mode, coord int) int {
	n := 7
	if mode == ResizeCubic {
		n += 2
	}
	if coord == ResizeTFCropAndResize {
		n += 5
	}
	return n
}

// Words encodes the params in file order: 7 words, then 2 for cubic, then
// 5 for tf_crop_and_resize.
func (p Resize2DParams) Words() []uint32 {
	w := append(I32Words(p.Mode, p.Coord, p.Rounding, p.OutH, p.OutW), F32Words(p.ScaleH, p.ScaleW)...)
	if p.Mode == ResizeCubic {
		w = append(w, F32Words(p.CubicA)...)
		w = append(w, I32Words(map[bool]int{false: 0, true: 1}[p.ExcludeOutside])...)
	}
	if p.Coord == ResizeTFCropAndResize {
		w = append(w, F32Words(p.CropH[0], p.CropH[1], p.CropW[0], p.CropW[1], p.Extrapolation)...)
	}
	return w
}

func resize2DShape(w []uint32, x []int) ([]int, error) {
	if len(x) != 4 {
		return nil, fmt.Errorf("input %v, want rank 4 [N,H,W,C]", x)
	}
	if len(w) < 7 {
		return nil, fmt.Errorf("%d params, want 7 or more", len(w))
	}
	mode, coord, rounding := WordI32(w[0]), WordI32(w[1]), WordI32(w[2])
	if mode < ResizeNearest || mode > ResizeCubic || coord < 0 || coord > ResizeTFCropAndResize || rounding < 0 || rounding > ResizeCeil {
		return nil, fmt.Errorf("mode %d, coord %d, rounding %d out of range", mode, coord, rounding)
	}
	if want := resize2DWords(mode, coord); len(w) != want {
		return nil, fmt.Errorf("%d params, want %d for mode %d, coord %d", len(w), want, mode, coord)
	}
	if mode == ResizeCubic && (!finite(WordF32(w[7])) || WordI32(w[8]) < 0 || WordI32(w[8]) > 1) {
		return nil, fmt.Errorf("cubic coefficient %g, exclude_outside %d out of range", WordF32(w[7]), WordI32(w[8]))
	}
	if coord == ResizeTFCropAndResize {
		for _, v := range w[len(w)-5:] {
			if !finite(WordF32(v)) {
				return nil, fmt.Errorf("crop box or extrapolation value %g is not finite", WordF32(v))
			}
		}
	}
	oh, ow := WordI32(w[3]), WordI32(w[4])
	for _, v := range []float32{WordF32(w[5]), WordF32(w[6])} {
		if !finite(v) || v <= 0 {
			return nil, fmt.Errorf("scale %g is not positive and finite", v)
		}
	}
	if oh < 1 || ow < 1 || oh > MaxDim || ow > MaxDim {
		return nil, fmt.Errorf("output %dx%d out of range", oh, ow)
	}
	return []int{x[0], oh, ow, x[3]}, nil
}

// ConvTransposeOutDim is the output extent of a transposed convolution
// along one axis: the full scatter extent cropped by the pads (padAfter
// may be negative: ONNX output_padding).
func ConvTransposeOutDim(in, kernel, stride, dilation, padBefore, padAfter int) int {
	return (in-1)*stride + (kernel-1)*dilation + 1 - padBefore - padAfter
}

func convTranspose2DShape(w []uint32, in [][]int) ([]int, error) {
	x, wt := in[0], in[1]
	if len(x) != 4 || len(wt) != 4 || wt[3] != x[3] {
		return nil, fmt.Errorf("x %v and W %v: want x [N,H,W,C] and W [O,KH,KW,C]", x, wt)
	}
	if err := checkBias(in, wt[0]); err != nil {
		return nil, err
	}
	if err := checkClamp(clampAt(w, 8)); err != nil {
		return nil, err
	}
	out := []int{x[0], 0, 0, wt[0]}
	for k := range 2 {
		s, d, b, a := WordI32(w[k]), WordI32(w[2+k]), WordI32(w[4+k]), WordI32(w[6+k])
		if s < 1 || s > MaxDim || d < 1 || d > MaxDim || b < 0 || b > MaxDim || a < -MaxDim || a > MaxDim {
			return nil, fmt.Errorf("stride %d, dilation %d, pads %d,%d out of range", s, d, b, a)
		}
		out[1+k] = ConvTransposeOutDim(x[1+k], wt[1+k], s, d, b, a)
		if out[1+k] < 1 || out[1+k] > MaxDim {
			return nil, fmt.Errorf("output extent %d out of range", out[1+k])
		}
	}
	return out, nil
}
