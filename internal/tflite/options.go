package tflite

import "fmt"

// BuiltinOp is a builtin operator code (schema enum BuiltinOperator).
type BuiltinOp int32

// The builtin codes netkit's importer knows about (and a few it names in
// messages). The numbering is the schema's and never changes.
const (
	OpAdd                   BuiltinOp = 0
	OpAveragePool2D         BuiltinOp = 1
	OpConcatenation         BuiltinOp = 2
	OpConv2D                BuiltinOp = 3
	OpDepthwiseConv2D       BuiltinOp = 4
	OpDequantize            BuiltinOp = 6
	OpFullyConnected        BuiltinOp = 9
	OpLogistic              BuiltinOp = 14
	OpMaxPool2D             BuiltinOp = 17
	OpMul                   BuiltinOp = 18
	OpRelu                  BuiltinOp = 19
	OpReluN1To1             BuiltinOp = 20
	OpRelu6                 BuiltinOp = 21
	OpReshape               BuiltinOp = 22
	OpResizeBilinear        BuiltinOp = 23
	OpSoftmax               BuiltinOp = 25
	OpSVDF                  BuiltinOp = 27
	OpTanh                  BuiltinOp = 28
	OpCustom                BuiltinOp = 32
	OpPad                   BuiltinOp = 34
	OpTranspose             BuiltinOp = 39
	OpMean                  BuiltinOp = 40
	OpSub                   BuiltinOp = 41
	OpDiv                   BuiltinOp = 42
	OpSqueeze               BuiltinOp = 43
	OpUnidirectionalLSTM    BuiltinOp = 44
	OpStridedSlice          BuiltinOp = 45
	OpExp                   BuiltinOp = 47
	OpMaximum               BuiltinOp = 55
	OpMinimum               BuiltinOp = 57
	OpSqrt                  BuiltinOp = 75
	OpPadV2                 BuiltinOp = 60
	OpTransposeConv         BuiltinOp = 67
	OpResizeNearestNeighbor BuiltinOp = 97
	OpLeakyRelu             BuiltinOp = 98
	OpQuantize              BuiltinOp = 114
	OpHardSwish             BuiltinOp = 117
	OpBatchMatMul           BuiltinOp = 126
	OpPlaceholderForGreater BuiltinOp = 127
	OpGelu                  BuiltinOp = 150
)

var opNames = map[BuiltinOp]string{
	OpAdd: "ADD", OpAveragePool2D: "AVERAGE_POOL_2D", OpConcatenation: "CONCATENATION", OpConv2D: "CONV_2D",
	OpDepthwiseConv2D: "DEPTHWISE_CONV_2D", 5: "DEPTH_TO_SPACE", OpDequantize: "DEQUANTIZE", 7: "EMBEDDING_LOOKUP",
	8: "FLOOR", OpFullyConnected: "FULLY_CONNECTED", 11: "L2_NORMALIZATION", 12: "L2_POOL_2D",
	OpLogistic: "LOGISTIC", 16: "LSTM", OpMaxPool2D: "MAX_POOL_2D", OpMul: "MUL", OpRelu: "RELU",
	OpReluN1To1: "RELU_N1_TO_1", OpRelu6: "RELU6", OpReshape: "RESHAPE", OpResizeBilinear: "RESIZE_BILINEAR",
	OpSoftmax: "SOFTMAX", 26: "SPACE_TO_DEPTH", OpSVDF: "SVDF", OpTanh: "TANH", OpCustom: "CUSTOM",
	OpPad: "PAD", 36: "GATHER", OpTranspose: "TRANSPOSE", OpMean: "MEAN", OpSub: "SUB", OpDiv: "DIV",
	OpSqueeze: "SQUEEZE", OpUnidirectionalLSTM: "UNIDIRECTIONAL_SEQUENCE_LSTM", OpStridedSlice: "STRIDED_SLICE", OpExp: "EXP",
	49: "SPLIT", 53: "CAST", 54: "PRELU", OpMaximum: "MAXIMUM", 56: "ARG_MAX", OpMinimum: "MINIMUM", OpPadV2: "PADV2",
	65: "SLICE", OpTransposeConv: "TRANSPOSE_CONV", 70: "EXPAND_DIMS", 74: "SUM", OpSqrt: "SQRT", 83: "PACK", 88: "UNPACK",
	OpResizeNearestNeighbor: "RESIZE_NEAREST_NEIGHBOR", OpLeakyRelu: "LEAKY_RELU", 100: "MIRROR_PAD", 102: "SPLIT_V",
	OpQuantize: "QUANTIZE", OpHardSwish: "HARD_SWISH", OpBatchMatMul: "BATCH_MATMUL",
	OpPlaceholderForGreater: "PLACEHOLDER_FOR_GREATER_OP_CODES", OpGelu: "GELU",
}

func (o BuiltinOp) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return fmt.Sprintf("BUILTIN_%d", int32(o))
}

// Padding is the SAME/VALID padding of convolutions and pools.
type Padding int8

const (
	PaddingSame  Padding = 0
	PaddingValid Padding = 1
)

func (p Padding) String() string {
	switch p {
	case PaddingSame:
		return "SAME"
	case PaddingValid:
		return "VALID"
	}
	return fmt.Sprintf("Padding(%d)", int8(p))
}

// Activation is a fused activation function.
type Activation int8

const (
	ActNone      Activation = 0
	ActRelu      Activation = 1
	ActReluN1To1 Activation = 2
	ActRelu6     Activation = 3
	ActTanh      Activation = 4
	ActSignBit   Activation = 5
)

func (a Activation) String() string {
	switch a {
	case ActNone:
		return "NONE"
	case ActRelu:
		return "RELU"
	case ActReluN1To1:
		return "RELU_N1_TO_1"
	case ActRelu6:
		return "RELU6"
	case ActTanh:
		return "TANH"
	case ActSignBit:
		return "SIGN_BIT"
	}
	return fmt.Sprintf("Activation(%d)", int8(a))
}

// Options is a decoded BuiltinOptions table.
type Options interface{ builtinOptions() }

// The BuiltinOptions union tags this reader decodes.
const (
	optConv2D          = 1
	optDepthwiseConv2D = 2
	optPool2D          = 5
	optSVDF            = 6
	optFullyConnected  = 8
	optSoftmax         = 9
	optConcatenation   = 10
	optAdd             = 11
	optReshape         = 17
	optReducer         = 27
	optSub             = 28
	optDiv             = 29
	optSqueeze         = 30
	optStridedSlice    = 32
	optMul             = 21
	optPad             = 22
	optResizeBilinear  = 15
	optTransposeConv   = 49
	optUniLSTM         = 71
	optResizeNearest   = 74
	optGelu            = 116
)

type Conv2DOptions struct {
	Padding              Padding
	StrideW, StrideH     int32
	Activation           Activation
	DilationW, DilationH int32
}

type DepthwiseConv2DOptions struct {
	Padding              Padding
	StrideW, StrideH     int32
	DepthMultiplier      int32
	Activation           Activation
	DilationW, DilationH int32
}

type Pool2DOptions struct {
	Padding                   Padding
	StrideW, StrideH          int32
	FilterWidth, FilterHeight int32
	Activation                Activation
}

type FullyConnectedOptions struct {
	Activation               Activation
	WeightsFormat            int8 // 0 DEFAULT, 1 SHUFFLED4x16INT8
	KeepNumDims              bool
	AsymmetricQuantizeInputs bool
}

type SoftmaxOptions struct{ Beta float32 }

type ConcatenationOptions struct {
	Axis       int32
	Activation Activation
}

type AddOptions struct {
	Activation    Activation
	PotScaleInt16 bool
}

type MulOptions struct{ Activation Activation }

// SubOptions are SUB's.
type SubOptions struct {
	Activation    Activation
	PotScaleInt16 bool
}

// DivOptions are DIV's.
type DivOptions struct{ Activation Activation }

// SqueezeOptions are SQUEEZE's: the dims to drop (all of size 1 when empty).
type SqueezeOptions struct{ Dims []int32 }

// StridedSliceOptions are STRIDED_SLICE's masks (bit i: dim i) and its
// offset flag (end counted from begin).
type StridedSliceOptions struct {
	BeginMask, EndMask, EllipsisMask, NewAxisMask, ShrinkAxisMask int32
	Offset                                                        bool
}

type ReshapeOptions struct{ NewShape []int32 }

type PadOptions struct{}

// ReducerOptions are MEAN's (and the other reductions').
type ReducerOptions struct{ KeepDims bool }

type GeluOptions struct{ Approximate bool }

// ResizeOptions are RESIZE_BILINEAR's and RESIZE_NEAREST_NEIGHBOR's.
type ResizeOptions struct{ AlignCorners, HalfPixelCenters bool }

type TransposeConvOptions struct {
	Padding          Padding
	StrideW, StrideH int32
	Activation       Activation
}

type SVDFOptions struct {
	Rank                     int32
	Activation               Activation
	AsymmetricQuantizeInputs bool
}

// UnidirectionalLSTMOptions are UNIDIRECTIONAL_SEQUENCE_LSTM's: the
// activation of the cell gate and of the cell output, the clips of the cell
// state and of the projection (0: none) and the input layout.
type UnidirectionalLSTMOptions struct {
	Activation               Activation
	CellClip, ProjClip       float32
	TimeMajor                bool
	AsymmetricQuantizeInputs bool
	DiagonalRecurrent        bool
}

func (Conv2DOptions) builtinOptions()             {}
func (DepthwiseConv2DOptions) builtinOptions()    {}
func (Pool2DOptions) builtinOptions()             {}
func (FullyConnectedOptions) builtinOptions()     {}
func (SoftmaxOptions) builtinOptions()            {}
func (ConcatenationOptions) builtinOptions()      {}
func (AddOptions) builtinOptions()                {}
func (MulOptions) builtinOptions()                {}
func (SubOptions) builtinOptions()                {}
func (DivOptions) builtinOptions()                {}
func (SqueezeOptions) builtinOptions()            {}
func (StridedSliceOptions) builtinOptions()       {}
func (ReshapeOptions) builtinOptions()            {}
func (PadOptions) builtinOptions()                {}
func (ReducerOptions) builtinOptions()            {}
func (SVDFOptions) builtinOptions()               {}
func (ResizeOptions) builtinOptions()             {}
func (GeluOptions) builtinOptions()               {}
func (TransposeConvOptions) builtinOptions()      {}
func (UnidirectionalLSTMOptions) builtinOptions() {}

// fieldReader collects the first error of a run of field reads.
type fieldReader struct {
	t   table
	err error
}

func (r *fieldReader) i32(id int, def int32) int32 {
	v, err := r.t.i32(id, def)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *fieldReader) i8(id int, def int8) int8 {
	v, err := r.t.i8(id, def)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *fieldReader) f32(id int, def float32) float32 {
	v, err := r.t.f32(id, def)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *fieldReader) boolean(id int, def bool) bool {
	v, err := r.t.boolean(id, def)
	if r.err == nil {
		r.err = err
	}
	return v
}

func parseOptions(tag uint8, t table) (Options, error) {
	r := &fieldReader{t: t}
	var o Options
	switch tag {
	case optConv2D:
		o = Conv2DOptions{Padding: Padding(r.i8(0, 0)), StrideW: r.i32(1, 0), StrideH: r.i32(2, 0),
			Activation: Activation(r.i8(3, 0)), DilationW: r.i32(4, 1), DilationH: r.i32(5, 1)}
	case optDepthwiseConv2D:
		o = DepthwiseConv2DOptions{Padding: Padding(r.i8(0, 0)), StrideW: r.i32(1, 0), StrideH: r.i32(2, 0),
			DepthMultiplier: r.i32(3, 0), Activation: Activation(r.i8(4, 0)), DilationW: r.i32(5, 1), DilationH: r.i32(6, 1)}
	case optPool2D:
		o = Pool2DOptions{Padding: Padding(r.i8(0, 0)), StrideW: r.i32(1, 0), StrideH: r.i32(2, 0),
			FilterWidth: r.i32(3, 0), FilterHeight: r.i32(4, 0), Activation: Activation(r.i8(5, 0))}
	case optFullyConnected:
		o = FullyConnectedOptions{Activation: Activation(r.i8(0, 0)), WeightsFormat: r.i8(1, 0),
			KeepNumDims: r.boolean(2, false), AsymmetricQuantizeInputs: r.boolean(3, false)}
	case optSoftmax:
		beta, err := t.f32(0, 0)
		if err != nil {
			return nil, err
		}
		o = SoftmaxOptions{Beta: beta}
	case optConcatenation:
		o = ConcatenationOptions{Axis: r.i32(0, 0), Activation: Activation(r.i8(1, 0))}
	case optAdd:
		o = AddOptions{Activation: Activation(r.i8(0, 0)), PotScaleInt16: r.boolean(1, true)}
	case optMul:
		o = MulOptions{Activation: Activation(r.i8(0, 0))}
	case optSub:
		o = SubOptions{Activation: Activation(r.i8(0, 0)), PotScaleInt16: r.boolean(1, true)}
	case optDiv:
		o = DivOptions{Activation: Activation(r.i8(0, 0))}
	case optSqueeze:
		dims, err := t.i32s(0, "squeeze dims")
		if err != nil {
			return nil, err
		}
		o = SqueezeOptions{Dims: dims}
	case optStridedSlice:
		o = StridedSliceOptions{BeginMask: r.i32(0, 0), EndMask: r.i32(1, 0), EllipsisMask: r.i32(2, 0),
			NewAxisMask: r.i32(3, 0), ShrinkAxisMask: r.i32(4, 0), Offset: r.boolean(5, false)}
	case optReshape:
		shape, err := t.i32s(0, "reshape new_shape")
		if err != nil {
			return nil, err
		}
		o = ReshapeOptions{NewShape: shape}
	case optPad:
		o = PadOptions{}
	case optReducer:
		o = ReducerOptions{KeepDims: r.boolean(0, false)}
	case optResizeBilinear: // fields 0, 1: the deprecated new_height, new_width
		o = ResizeOptions{AlignCorners: r.boolean(2, false), HalfPixelCenters: r.boolean(3, false)}
	case optGelu:
		o = GeluOptions{Approximate: r.boolean(0, false)}
	case optResizeNearest:
		o = ResizeOptions{AlignCorners: r.boolean(0, false), HalfPixelCenters: r.boolean(1, false)}
	case optTransposeConv:
		o = TransposeConvOptions{Padding: Padding(r.i8(0, 0)), StrideW: r.i32(1, 0), StrideH: r.i32(2, 0), Activation: Activation(r.i8(3, 0))}
	case optSVDF:
		o = SVDFOptions{Rank: r.i32(0, 0), Activation: Activation(r.i8(1, 0)), AsymmetricQuantizeInputs: r.boolean(2, false)}
	case optUniLSTM:
		o = UnidirectionalLSTMOptions{Activation: Activation(r.i8(0, 0)), CellClip: r.f32(1, 0), ProjClip: r.f32(2, 0),
			TimeMajor: r.boolean(3, false), AsymmetricQuantizeInputs: r.boolean(4, false), DiagonalRecurrent: r.boolean(5, false)}
	default:
		return nil, nil // a union member this reader does not decode
	}
	if r.err != nil {
		return nil, r.err
	}
	return o, nil
}
