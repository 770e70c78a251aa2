// Package tflite reads TensorFlow Lite model files (.tflite flatbuffers)
// into plain Go structs: operator codes, subgraphs with their tensors
// (shape, type, buffer, quantization), operators with the builtin options
// netkit's importer needs, and buffers. It is netkit's own reader, written
// from the schema's field numbering (tensorflow/lite/schema/schema.fbs);
// it uses no generated code and no flatbuffers library, and it returns a
// *FormatError for malformed input instead of panicking.
package tflite

import (
	"fmt"
	"os"
)

// FormatError reports a malformed or unsupported file.
type FormatError struct {
	Offset int64 // byte offset the problem was found at, -1 if none
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return "tflite: " + e.Msg
	}
	return fmt.Sprintf("tflite: %s (offset %d)", e.Msg, e.Offset)
}

// TensorType is a tensor element type (schema enum TensorType).
type TensorType int8

const (
	Float32 TensorType = 0
	Float16 TensorType = 1
	Int32   TensorType = 2
	UInt8   TensorType = 3
	Int64   TensorType = 4
	String  TensorType = 5
	Bool    TensorType = 6
	Int16   TensorType = 7
	Int8    TensorType = 9
	Float64 TensorType = 10
	Int4    TensorType = 17
)

var tensorTypeNames = map[TensorType]string{
	Float32: "FLOAT32", Float16: "FLOAT16", Int32: "INT32", UInt8: "UINT8", Int64: "INT64",
	String: "STRING", Bool: "BOOL", Int16: "INT16", 8: "COMPLEX64", Int8: "INT8", Float64: "FLOAT64",
	11: "COMPLEX128", 12: "UINT64", 13: "RESOURCE", 14: "VARIANT", 15: "UINT32", 16: "UINT16", Int4: "INT4",
}

func (t TensorType) String() string {
	if s, ok := tensorTypeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("TensorType(%d)", int8(t))
}

// Quantization holds a tensor's affine quantization: real = scale *
// (q - zero_point), per tensor (one scale) or per channel along
// QuantizedDimension. The reader does not check QuantizedDimension against
// the shape: old converters left it wrong on per-channel biases (the TFLM
// person-detection model has 3 on a rank-1 bias), and TFLite ignores it
// there; the importer checks what each op uses.
type Quantization struct {
	Min, Max           []float32
	Scale              []float32
	ZeroPoint          []int64
	QuantizedDimension int32
}

// Tensor is one tensor of a subgraph.
type Tensor struct {
	Name           string
	Shape          []int32
	ShapeSignature []int32 // -1 marks a dynamic dimension
	Type           TensorType
	Buffer         uint32 // index into Model.Buffers; 0 is the empty buffer
	Quant          *Quantization
	IsVariable     bool
}

// Operator is one node of a subgraph.
type Operator struct {
	OpcodeIndex   uint32
	Inputs        []int32 // tensor indices; -1 marks an absent optional input
	Outputs       []int32
	OptionsType   uint8   // the BuiltinOptions union tag, 0 for none
	Options       Options // decoded for the types below, nil otherwise
	CustomOptions []byte
}

// Subgraph is a graph of operators over tensors.
type Subgraph struct {
	Name      string
	Tensors   []Tensor
	Inputs    []int32
	Outputs   []int32
	Operators []Operator
}

// OperatorCode names the operator an Operator's OpcodeIndex refers to.
type OperatorCode struct {
	// Builtin is the resolved code: the larger of the int32 builtin_code
	// and the legacy int8 deprecated_builtin_code (files written before
	// codes passed 127 only fill the latter; newer ones fill both).
	Builtin    BuiltinOp
	Deprecated int8
	Custom     string
	Version    int32
}

// Buffer is constant tensor data. Data aliases the file's bytes.
type Buffer struct {
	Data []byte
}

// Model is a parsed .tflite file.
type Model struct {
	Version       uint32
	Description   string
	OperatorCodes []OperatorCode
	Subgraphs     []Subgraph
	Buffers       []Buffer
}

// Op returns the builtin code of an operator, or an error when its opcode
// index is out of range.
func (m *Model) Op(op *Operator) (BuiltinOp, error) {
	if int(op.OpcodeIndex) >= len(m.OperatorCodes) {
		return 0, &FormatError{Offset: -1, Msg: fmt.Sprintf("opcode index %d out of %d", op.OpcodeIndex, len(m.OperatorCodes))}
	}
	return m.OperatorCodes[op.OpcodeIndex].Builtin, nil
}

// ReadFile parses the model in the named file.
func ReadFile(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse parses a .tflite image. Buffer data in the result aliases b.
func Parse(b []byte) (*Model, error) {
	f := newFbuf(b)
	root, err := f.u32(0, "root offset")
	if err != nil {
		return nil, err
	}
	if len(b) >= 8 && string(b[4:8]) != "TFL3" {
		return nil, f.errf(4, "file identifier %q is not \"TFL3\"", b[4:8])
	}
	mt, err := f.tableAt(uint64(root), "model")
	if err != nil {
		return nil, err
	}
	m := &Model{}
	if m.Version, err = mt.u32(0, 0); err != nil {
		return nil, err
	}
	if m.Version != 3 {
		return nil, f.errf(uint64(root), "schema version %d, want 3", m.Version)
	}
	if m.Description, err = mt.str(3, "description"); err != nil {
		return nil, err
	}
	codes, err := mt.tables(1, "operator_codes")
	if err != nil {
		return nil, err
	}
	for _, ct := range codes {
		c, err := parseOpcode(ct)
		if err != nil {
			return nil, err
		}
		m.OperatorCodes = append(m.OperatorCodes, c)
	}
	bufs, err := mt.tables(4, "buffers")
	if err != nil {
		return nil, err
	}
	for i, bt := range bufs {
		buf, err := parseBuffer(f, bt, i)
		if err != nil {
			return nil, err
		}
		m.Buffers = append(m.Buffers, buf)
	}
	sgs, err := mt.tables(2, "subgraphs")
	if err != nil {
		return nil, err
	}
	if len(sgs) == 0 {
		return nil, f.errf(uint64(root), "model has no subgraph")
	}
	for i, st := range sgs {
		sg, err := parseSubgraph(st, i)
		if err != nil {
			return nil, err
		}
		if err := m.checkSubgraph(&sg, i); err != nil {
			return nil, err
		}
		m.Subgraphs = append(m.Subgraphs, sg)
	}
	return m, nil
}

func parseOpcode(t table) (OperatorCode, error) {
	var c OperatorCode
	var err error
	if c.Deprecated, err = t.i8(0, 0); err != nil {
		return c, err
	}
	if c.Custom, err = t.str(1, "custom_code"); err != nil {
		return c, err
	}
	if c.Version, err = t.i32(2, 1); err != nil {
		return c, err
	}
	code, err := t.i32(3, 0)
	if err != nil {
		return c, err
	}
	c.Builtin = BuiltinOp(max(code, int32(c.Deprecated)))
	if c.Builtin < 0 {
		return c, t.buf.errf(uint64(t.pos), "negative builtin code %d", c.Builtin)
	}
	return c, nil
}

func parseBuffer(f *fbuf, t table, i int) (Buffer, error) {
	data, err := t.bytes(0, fmt.Sprintf("buffer %d data", i))
	if err != nil {
		return Buffer{}, err
	}
	off, err := t.u64(1, 0)
	if err != nil {
		return Buffer{}, err
	}
	size, err := t.u64(2, 0)
	if err != nil {
		return Buffer{}, err
	}
	// files over 2 GB keep buffers after the flatbuffer, by absolute offset
	// (offset 1 is the writer's placeholder for "none")
	if off > 1 {
		if data != nil {
			return Buffer{}, f.errf(uint64(t.pos), "buffer %d has both inline data and an offset", i)
		}
		if err := f.need(off, size, fmt.Sprintf("buffer %d", i)); err != nil {
			return Buffer{}, err
		}
		data = f.b[off : off+size]
	}
	return Buffer{Data: data}, nil
}

func parseSubgraph(t table, idx int) (Subgraph, error) {
	var sg Subgraph
	var err error
	what := fmt.Sprintf("subgraph %d", idx)
	if sg.Name, err = t.str(4, what+" name"); err != nil {
		return sg, err
	}
	if sg.Inputs, err = t.i32s(1, what+" inputs"); err != nil {
		return sg, err
	}
	if sg.Outputs, err = t.i32s(2, what+" outputs"); err != nil {
		return sg, err
	}
	tts, err := t.tables(0, what+" tensors")
	if err != nil {
		return sg, err
	}
	sg.Tensors = make([]Tensor, len(tts))
	for i, tt := range tts {
		if sg.Tensors[i], err = parseTensor(tt); err != nil {
			return sg, err
		}
	}
	ots, err := t.tables(3, what+" operators")
	if err != nil {
		return sg, err
	}
	sg.Operators = make([]Operator, len(ots))
	for i, ot := range ots {
		if sg.Operators[i], err = parseOperator(ot); err != nil {
			return sg, err
		}
	}
	return sg, nil
}

func parseTensor(t table) (Tensor, error) {
	var x Tensor
	var err error
	if x.Shape, err = t.i32s(0, t.what+" shape"); err != nil {
		return x, err
	}
	ty, err := t.i8(1, 0)
	if err != nil {
		return x, err
	}
	x.Type = TensorType(ty)
	if x.Buffer, err = t.u32(2, 0); err != nil {
		return x, err
	}
	if x.Name, err = t.str(3, t.what+" name"); err != nil {
		return x, err
	}
	if x.IsVariable, err = t.boolean(5, false); err != nil {
		return x, err
	}
	if x.ShapeSignature, err = t.i32s(7, t.what+" shape_signature"); err != nil {
		return x, err
	}
	qt, ok, err := t.subtable(4, t.what+" quantization")
	if err != nil {
		return x, err
	}
	if ok {
		q := &Quantization{}
		if q.Min, err = qt.f32s(0, "quantization min"); err != nil {
			return x, err
		}
		if q.Max, err = qt.f32s(1, "quantization max"); err != nil {
			return x, err
		}
		if q.Scale, err = qt.f32s(2, "quantization scale"); err != nil {
			return x, err
		}
		if q.ZeroPoint, err = qt.i64s(3, "quantization zero_point"); err != nil {
			return x, err
		}
		if q.QuantizedDimension, err = qt.i32(6, 0); err != nil {
			return x, err
		}
		if len(q.Scale) > 0 || len(q.ZeroPoint) > 0 || len(q.Min) > 0 {
			x.Quant = q // an empty table means "not quantized"
		}
	}
	return x, nil
}

func parseOperator(t table) (Operator, error) {
	var op Operator
	var err error
	if op.OpcodeIndex, err = t.u32(0, 0); err != nil {
		return op, err
	}
	if op.Inputs, err = t.i32s(1, t.what+" inputs"); err != nil {
		return op, err
	}
	if op.Outputs, err = t.i32s(2, t.what+" outputs"); err != nil {
		return op, err
	}
	if op.OptionsType, err = t.u8(3, 0); err != nil {
		return op, err
	}
	if op.CustomOptions, err = t.bytes(5, t.what+" custom_options"); err != nil {
		return op, err
	}
	ot, ok, err := t.subtable(4, t.what+" builtin_options")
	if err != nil {
		return op, err
	}
	if ok && op.OptionsType != 0 {
		if op.Options, err = parseOptions(op.OptionsType, ot); err != nil {
			return op, err
		}
	}
	return op, nil
}

// checkSubgraph checks every index the subgraph holds.
func (m *Model) checkSubgraph(sg *Subgraph, idx int) error {
	nt := int32(len(sg.Tensors))
	bad := func(format string, args ...any) error {
		return &FormatError{Offset: -1, Msg: fmt.Sprintf("subgraph %d: ", idx) + fmt.Sprintf(format, args...)}
	}
	for _, list := range [][]int32{sg.Inputs, sg.Outputs} {
		for _, ti := range list {
			if ti < 0 || ti >= nt {
				return bad("graph input/output tensor %d out of %d", ti, nt)
			}
		}
	}
	for i := range sg.Tensors {
		tn := &sg.Tensors[i]
		if int(tn.Buffer) >= len(m.Buffers) {
			return bad("tensor %d (%q) buffer %d out of %d", i, tn.Name, tn.Buffer, len(m.Buffers))
		}
		for _, d := range tn.Shape {
			if d < 0 {
				return bad("tensor %d (%q) has negative dimension %d", i, tn.Name, d)
			}
		}
		if q := tn.Quant; q != nil {
			if len(q.ZeroPoint) != 0 && len(q.ZeroPoint) != len(q.Scale) {
				return bad("tensor %d (%q): %d scales but %d zero points", i, tn.Name, len(q.Scale), len(q.ZeroPoint))
			}
		}
	}
	for i := range sg.Operators {
		op := &sg.Operators[i]
		if int(op.OpcodeIndex) >= len(m.OperatorCodes) {
			return bad("operator %d opcode index %d out of %d", i, op.OpcodeIndex, len(m.OperatorCodes))
		}
		for _, list := range [][]int32{op.Inputs, op.Outputs} {
			for _, ti := range list {
				if ti < -1 || ti >= nt {
					return bad("operator %d tensor %d out of %d", i, ti, nt)
				}
			}
		}
	}
	return nil
}
