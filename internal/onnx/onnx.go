// Package onnx decodes the parts of an ONNX model file (a ModelProto in protobuf
// wire format) that netkit's importer needs: the graph, its nodes and attributes,
// initializers, value infos and opset imports.
//
// The decoder is written against the field numbers of the public onnx.proto
// specification with protowire; unknown fields are skipped, as protobuf
// requires, so files from newer exporters still load.
package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// DataType is TensorProto.DataType.
type DataType int32

// The tensor element types of onnx.proto.
const (
	Undefined DataType = 0
	Float     DataType = 1
	Uint8     DataType = 2
	Int8      DataType = 3
	Uint16    DataType = 4
	Int16     DataType = 5
	Int32     DataType = 6
	Int64     DataType = 7
	String    DataType = 8
	Bool      DataType = 9
	Float16   DataType = 10
	Double    DataType = 11
	Uint32    DataType = 12
	Uint64    DataType = 13
	BFloat16  DataType = 16
)

var dataTypeNames = map[DataType]string{
	Undefined: "undefined", Float: "float", Uint8: "uint8", Int8: "int8", Uint16: "uint16",
	Int16: "int16", Int32: "int32", Int64: "int64", String: "string", Bool: "bool",
	Float16: "float16", Double: "double", Uint32: "uint32", Uint64: "uint64", BFloat16: "bfloat16",
}

func (d DataType) String() string {
	if s, ok := dataTypeNames[d]; ok {
		return s
	}
	return fmt.Sprintf("dtype(%d)", int32(d))
}

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// The attribute kinds of onnx.proto.
const (
	AttrUndefined AttrType = 0
	AttrFloat     AttrType = 1
	AttrInt       AttrType = 2
	AttrString    AttrType = 3
	AttrTensor    AttrType = 4
	AttrGraph     AttrType = 5
	AttrFloats    AttrType = 6
	AttrInts      AttrType = 7
	AttrStrings   AttrType = 8
	AttrTensors   AttrType = 9
	AttrGraphs    AttrType = 10
)

// Model is a decoded ModelProto.
type Model struct {
	IRVersion       int64
	ProducerName    string
	ProducerVersion string
	// Opsets maps an operator-set domain ("" is the default ai.onnx domain) to its version.
	Opsets map[string]int64
	Graph  *Graph
}

// Graph is a decoded GraphProto.
type Graph struct {
	Name         string
	Nodes        []*Node
	Initializers []*Tensor
	Inputs       []*ValueInfo
	Outputs      []*ValueInfo
	ValueInfo    []*ValueInfo
	// SparseInitializers counts sparse initializers, which netkit does not support.
	SparseInitializers int
}

// Node is a decoded NodeProto.
type Node struct {
	Name    string
	OpType  string
	Domain  string
	Inputs  []string // "" marks an absent optional input
	Outputs []string
	Attrs   []*Attribute
}

// Attr returns the attribute called name, or nil.
func (n *Node) Attr(name string) *Attribute {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Attribute is a decoded AttributeProto.
type Attribute struct {
	Name        string
	RefAttrName string
	Type        AttrType
	F           float32
	I           int64
	S           []byte
	T           *Tensor
	G           *Graph
	Floats      []float32
	Ints        []int64
	Strings     [][]byte
	Tensors     []*Tensor
	Graphs      []*Graph
}

// Tensor is a decoded TensorProto. Element data is kept as stored; use
// Float32s or Int64s to read it whatever field carried it.
type Tensor struct {
	Name         string
	DataType     DataType
	Dims         []int64
	RawData      []byte
	FloatData    []float32
	Int32Data    []int32
	Int64Data    []int64
	DoubleData   []float64
	Uint64Data   []uint64
	StringCount  int
	External     bool // data_location EXTERNAL: payload lives in another file
	HasSegment   bool
	rawDataFound bool
}

// ValueInfo is a decoded ValueInfoProto restricted to tensor types.
type ValueInfo struct {
	Name     string
	ElemType DataType
	// Dims holds one entry per dimension; a symbolic or unknown one is -1.
	Dims     []int64
	HasShape bool
	IsTensor bool
}

// Elems is the number of elements the dims describe.
// It is -1 when the count would exceed 2^31-1, more than a .nk file can
// hold (and than an int indexes on 32-bit hosts).
func (t *Tensor) Elems() int {
	n := 1
	for _, d := range t.Dims {
		if d < 0 || (d != 0 && int64(n) > math.MaxInt32/d) {
			return -1
		}
		n *= int(d)
	}
	return n
}

// Float32s returns the tensor's elements converted to float32. Integer types
// convert exactly where float32 can represent them.
func (t *Tensor) Float32s() ([]float32, error) {
	if t.External {
		return nil, fmt.Errorf("tensor %q: external data is not supported", t.Name)
	}
	n := t.Elems()
	if n < 0 {
		return nil, fmt.Errorf("tensor %q: dims %v are too large", t.Name, t.Dims)
	}
	if t.DataType == Float && t.rawDataFound {
		if len(t.RawData) != 4*n {
			return nil, fmt.Errorf("tensor %q: raw_data holds %d bytes, want %d", t.Name, len(t.RawData), 4*n)
		}
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.RawData[4*i:]))
		}
		return out, nil
	}
	if t.DataType == Float {
		if len(t.FloatData) != n {
			return nil, fmt.Errorf("tensor %q: float_data holds %d values, want %d", t.Name, len(t.FloatData), n)
		}
		return append([]float32(nil), t.FloatData...), nil
	}
	if t.DataType == Double {
		var vals []float64
		if t.rawDataFound {
			if len(t.RawData) != 8*n {
				return nil, fmt.Errorf("tensor %q: raw_data holds %d bytes, want %d", t.Name, len(t.RawData), 8*n)
			}
			vals = make([]float64, n)
			for i := range vals {
				vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.RawData[8*i:]))
			}
		} else {
			vals = t.DoubleData
		}
		if len(vals) != n {
			return nil, fmt.Errorf("tensor %q: holds %d values, want %d", t.Name, len(vals), n)
		}
		out := make([]float32, n)
		for i, v := range vals {
			out[i] = float32(v)
		}
		return out, nil
	}
	ints, err := t.Int64s()
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(ints))
	for i, v := range ints {
		out[i] = float32(v)
	}
	return out, nil
}

// ElemSize is the bytes of one element of the numeric types, 0 for others.
func (d DataType) ElemSize() int {
	return map[DataType]int{Float: 4, Double: 8, Float16: 2, Int8: 1, Uint8: 1, Bool: 1, Int16: 2, Uint16: 2,
		Int32: 4, Uint32: 4, Int64: 8, Uint64: 8}[d]
}

// LittleEndian returns the tensor's elements as little-endian bytes of its
// own type (float16 as IEEE binary16 bits), as raw_data stores them.
func (t *Tensor) LittleEndian() ([]byte, error) {
	size, n := t.DataType.ElemSize(), t.Elems()
	switch {
	case t.External:
		return nil, fmt.Errorf("tensor %q: external data is not supported", t.Name)
	case size == 0:
		return nil, fmt.Errorf("tensor %q: %s is not a numeric type", t.Name, t.DataType)
	case n < 0:
		return nil, fmt.Errorf("tensor %q: dims %v are too large", t.Name, t.Dims)
	case t.rawDataFound:
		if len(t.RawData) != size*n {
			return nil, fmt.Errorf("tensor %q: raw_data holds %d bytes, want %d", t.Name, len(t.RawData), size*n)
		}
		return slices.Clone(t.RawData), nil
	}
	out := make([]byte, size*n)
	switch t.DataType {
	case Float:
		if len(t.FloatData) != n {
			return nil, fmt.Errorf("tensor %q: float_data holds %d values, want %d", t.Name, len(t.FloatData), n)
		}
		for i, v := range t.FloatData {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
		}
	case Double:
		if len(t.DoubleData) != n {
			return nil, fmt.Errorf("tensor %q: double_data holds %d values, want %d", t.Name, len(t.DoubleData), n)
		}
		for i, v := range t.DoubleData {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
		}
	case Float16: // the bits travel in int32_data
		if len(t.Int32Data) != n {
			return nil, fmt.Errorf("tensor %q: int32_data holds %d values, want %d", t.Name, len(t.Int32Data), n)
		}
		for i, v := range t.Int32Data {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(v))
		}
	default:
		ints, err := t.Int64s()
		if err != nil {
			return nil, err
		}
		var word [8]byte
		for i, v := range ints {
			binary.LittleEndian.PutUint64(word[:], uint64(v))
			copy(out[size*i:], word[:size])
		}
	}
	return out, nil
}

// Int64s returns the elements of an integer or bool tensor as int64.
func (t *Tensor) Int64s() ([]int64, error) {
	if t.External {
		return nil, fmt.Errorf("tensor %q: external data is not supported", t.Name)
	}
	n := t.Elems()
	size := map[DataType]int{Int8: 1, Uint8: 1, Bool: 1, Int16: 2, Uint16: 2, Int32: 4, Uint32: 4, Int64: 8, Uint64: 8}[t.DataType]
	if size == 0 {
		return nil, fmt.Errorf("tensor %q: %s is not an integer type", t.Name, t.DataType)
	}
	held := len(t.RawData) / size
	switch {
	case t.rawDataFound:
	case t.DataType == Int64:
		held = len(t.Int64Data)
	case t.DataType == Uint32 || t.DataType == Uint64:
		held = len(t.Uint64Data)
	default:
		held = len(t.Int32Data)
	}
	if n < 0 || held != n {
		return nil, fmt.Errorf("tensor %q: holds %d values, want %d", t.Name, held, n)
	}
	out := make([]int64, n)
	switch {
	case t.rawDataFound:
		if len(t.RawData) != size*n {
			return nil, fmt.Errorf("tensor %q: raw_data holds %d bytes, want %d", t.Name, len(t.RawData), size*n)
		}
		for i := range out {
			b := t.RawData[size*i:]
			switch t.DataType {
			case Int8:
				out[i] = int64(int8(b[0]))
			case Uint8, Bool:
				out[i] = int64(b[0])
			case Int16:
				out[i] = int64(int16(binary.LittleEndian.Uint16(b)))
			case Uint16:
				out[i] = int64(binary.LittleEndian.Uint16(b))
			case Int32:
				out[i] = int64(int32(binary.LittleEndian.Uint32(b)))
			case Uint32:
				out[i] = int64(binary.LittleEndian.Uint32(b))
			default:
				out[i] = int64(binary.LittleEndian.Uint64(b))
			}
		}
	case t.DataType == Int64:
		if len(t.Int64Data) != n {
			return nil, fmt.Errorf("tensor %q: int64_data holds %d values, want %d", t.Name, len(t.Int64Data), n)
		}
		copy(out, t.Int64Data)
	case t.DataType == Uint32 || t.DataType == Uint64:
		if len(t.Uint64Data) != n {
			return nil, fmt.Errorf("tensor %q: uint64_data holds %d values, want %d", t.Name, len(t.Uint64Data), n)
		}
		for i, v := range t.Uint64Data {
			out[i] = int64(v)
		}
	default: // the small integer types and bool travel in int32_data
		if len(t.Int32Data) != n {
			return nil, fmt.Errorf("tensor %q: int32_data holds %d values, want %d", t.Name, len(t.Int32Data), n)
		}
		for i, v := range t.Int32Data {
			out[i] = int64(v)
		}
	}
	return out, nil
}

// ReadFile decodes the ONNX model in the file at path.
func ReadFile(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Decode decodes a serialized ModelProto.
func Decode(b []byte) (*Model, error) {
	m := &Model{Opsets: map[string]int64{}}
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v field) error {
		switch num {
		case 1:
			m.IRVersion = int64(v.varint)
		case 2:
			m.ProducerName = string(v.bytes)
		case 3:
			m.ProducerVersion = string(v.bytes)
		case 7:
			g, err := decodeGraph(v.bytes)
			if err != nil {
				return fmt.Errorf("graph: %w", err)
			}
			m.Graph = g
		case 8:
			var domain string
			var version int64
			err := eachField(v.bytes, func(n protowire.Number, _ protowire.Type, f field) error {
				switch n {
				case 1:
					domain = string(f.bytes)
				case 2:
					version = int64(f.varint)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("opset_import: %w", err)
			}
			m.Opsets[domain] = version
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	if m.Graph == nil {
		return nil, fmt.Errorf("onnx: model has no graph")
	}
	return m, nil
}

// DecodeTensor decodes a serialized TensorProto, the format of the
// input_*.pb and output_*.pb files of ONNX's test data.
func DecodeTensor(b []byte) (*Tensor, error) {
	t, err := decodeTensor(b)
	if err != nil {
		return nil, fmt.Errorf("onnx: tensor: %w", err)
	}
	return t, nil
}

// ReadTensorFile decodes the TensorProto in the file at path.
func ReadTensorFile(path string) (*Tensor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := DecodeTensor(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// field is one decoded field value: varint/fixed values in varint (fixed32
// and fixed64 bits too), length-delimited payloads in bytes.
type field struct {
	varint uint64
	bytes  []byte
}

// eachField walks the fields of one message, calling fn for each.
func eachField(b []byte, fn func(protowire.Number, protowire.Type, field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var f field
		switch typ {
		case protowire.VarintType:
			f.varint, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.varint = uint64(v)
		case protowire.Fixed64Type:
			f.varint, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.bytes, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, f); err != nil {
			return err
		}
	}
	return nil
}

// The repeated scalar fields may be packed (one length-delimited run) or not.
func appendVarints(dst []int64, typ protowire.Type, f field) ([]int64, error) {
	if typ == protowire.VarintType {
		return append(dst, int64(f.varint)), nil
	}
	if typ != protowire.BytesType {
		return nil, fmt.Errorf("wire type %d for a varint list", typ)
	}
	b := f.bytes
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		dst = append(dst, int64(v))
		b = b[n:]
	}
	return dst, nil
}

func appendFloats(dst []float32, typ protowire.Type, f field) ([]float32, error) {
	if typ == protowire.Fixed32Type {
		return append(dst, math.Float32frombits(uint32(f.varint))), nil
	}
	if typ != protowire.BytesType || len(f.bytes)%4 != 0 {
		return nil, fmt.Errorf("malformed float list")
	}
	for i := 0; i < len(f.bytes); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(f.bytes[i:])))
	}
	return dst, nil
}

func appendDoubles(dst []float64, typ protowire.Type, f field) ([]float64, error) {
	if typ == protowire.Fixed64Type {
		return append(dst, math.Float64frombits(f.varint)), nil
	}
	if typ != protowire.BytesType || len(f.bytes)%8 != 0 {
		return nil, fmt.Errorf("malformed double list")
	}
	for i := 0; i < len(f.bytes); i += 8 {
		dst = append(dst, math.Float64frombits(binary.LittleEndian.Uint64(f.bytes[i:])))
	}
	return dst, nil
}

func decodeGraph(b []byte) (*Graph, error) {
	g := &Graph{}
	err := eachField(b, func(num protowire.Number, _ protowire.Type, v field) error {
		switch num {
		case 1:
			n, err := decodeNode(v.bytes)
			if err != nil {
				return fmt.Errorf("node %d: %w", len(g.Nodes), err)
			}
			g.Nodes = append(g.Nodes, n)
		case 2:
			g.Name = string(v.bytes)
		case 5:
			t, err := decodeTensor(v.bytes)
			if err != nil {
				return fmt.Errorf("initializer %d: %w", len(g.Initializers), err)
			}
			g.Initializers = append(g.Initializers, t)
		case 11, 12, 13:
			vi, err := decodeValueInfo(v.bytes)
			if err != nil {
				return fmt.Errorf("value info: %w", err)
			}
			switch num {
			case 11:
				g.Inputs = append(g.Inputs, vi)
			case 12:
				g.Outputs = append(g.Outputs, vi)
			default:
				g.ValueInfo = append(g.ValueInfo, vi)
			}
		case 15:
			g.SparseInitializers++
		}
		return nil
	})
	return g, err
}

func decodeNode(b []byte) (*Node, error) {
	n := &Node{}
	err := eachField(b, func(num protowire.Number, _ protowire.Type, v field) error {
		switch num {
		case 1:
			n.Inputs = append(n.Inputs, string(v.bytes))
		case 2:
			n.Outputs = append(n.Outputs, string(v.bytes))
		case 3:
			n.Name = string(v.bytes)
		case 4:
			n.OpType = string(v.bytes)
		case 7:
			n.Domain = string(v.bytes)
		case 5:
			a, err := decodeAttribute(v.bytes)
			if err != nil {
				return fmt.Errorf("attribute: %w", err)
			}
			n.Attrs = append(n.Attrs, a)
		}
		return nil
	})
	return n, err
}

func decodeAttribute(b []byte) (*Attribute, error) {
	a := &Attribute{}
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v field) error {
		var err error
		switch num {
		case 1:
			a.Name = string(v.bytes)
		case 21:
			a.RefAttrName = string(v.bytes)
		case 20:
			a.Type = AttrType(v.varint)
		case 2:
			a.F = math.Float32frombits(uint32(v.varint))
		case 3:
			a.I = int64(v.varint)
		case 4:
			a.S = v.bytes
		case 5:
			a.T, err = decodeTensor(v.bytes)
		case 6:
			a.G, err = decodeGraph(v.bytes)
		case 7:
			a.Floats, err = appendFloats(a.Floats, typ, v)
		case 8:
			a.Ints, err = appendVarints(a.Ints, typ, v)
		case 9:
			a.Strings = append(a.Strings, v.bytes)
		case 10:
			var t *Tensor
			if t, err = decodeTensor(v.bytes); err == nil {
				a.Tensors = append(a.Tensors, t)
			}
		case 11:
			var g *Graph
			if g, err = decodeGraph(v.bytes); err == nil {
				a.Graphs = append(a.Graphs, g)
			}
		}
		return err
	})
	return a, err
}

func decodeTensor(b []byte) (*Tensor, error) {
	t := &Tensor{}
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v field) error {
		var err error
		switch num {
		case 1:
			t.Dims, err = appendVarints(t.Dims, typ, v)
		case 2:
			t.DataType = DataType(v.varint)
		case 3:
			t.HasSegment = true
		case 4:
			t.FloatData, err = appendFloats(t.FloatData, typ, v)
		case 5:
			var vals []int64
			vals, err = appendVarints(nil, typ, v)
			for _, x := range vals {
				t.Int32Data = append(t.Int32Data, int32(x))
			}
		case 6:
			t.StringCount++
		case 7:
			t.Int64Data, err = appendVarints(t.Int64Data, typ, v)
		case 8:
			t.Name = string(v.bytes)
		case 9:
			t.RawData, t.rawDataFound = v.bytes, true
		case 10:
			t.DoubleData, err = appendDoubles(t.DoubleData, typ, v)
		case 11:
			var vals []int64
			vals, err = appendVarints(nil, typ, v)
			for _, x := range vals {
				t.Uint64Data = append(t.Uint64Data, uint64(x))
			}
		case 13:
			t.External = true
		case 14:
			t.External = t.External || v.varint == 1
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, d := range t.Dims {
		if d < 0 || d > 1<<31 {
			return nil, fmt.Errorf("tensor %q: dimension %d out of range", t.Name, d)
		}
	}
	return t, nil
}

func decodeValueInfo(b []byte) (*ValueInfo, error) {
	vi := &ValueInfo{}
	err := eachField(b, func(num protowire.Number, _ protowire.Type, v field) error {
		switch num {
		case 1:
			vi.Name = string(v.bytes)
		case 2: // TypeProto: only tensor_type (1) matters to netkit
			return eachField(v.bytes, func(n protowire.Number, _ protowire.Type, tt field) error {
				if n != 1 {
					return nil
				}
				vi.IsTensor = true
				return eachField(tt.bytes, func(n protowire.Number, _ protowire.Type, f field) error {
					switch n {
					case 1:
						vi.ElemType = DataType(f.varint)
					case 2:
						vi.HasShape = true
						return eachField(f.bytes, func(n protowire.Number, _ protowire.Type, d field) error {
							if n != 1 {
								return nil
							}
							dim := int64(-1)
							err := eachField(d.bytes, func(n protowire.Number, _ protowire.Type, x field) error {
								if n == 1 {
									dim = int64(x.varint)
								}
								return nil
							})
							vi.Dims = append(vi.Dims, dim)
							return err
						})
					}
					return nil
				})
			})
		}
		return nil
	})
	return vi, err
}
