package nkfile

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strings"
)

// Validate checks everything Encode needs: dtypes, ranks and dims, payload
// sizes, quantization records, op arities and tensor ids, and the graph
// rules of the format (each runtime tensor produced once, in topological
// order). It does not check op shapes: see CheckShapes.
func (m *Model) Validate() error {
	for i := range m.Tensors {
		if err := validateTensor(&m.Tensors[i]); err != nil {
			return fmt.Errorf("nkfile: tensor %d %q: %w", i, m.Tensors[i].Name, err)
		}
	}
	for i := range m.Ops {
		if err := validateOp(&m.Ops[i], len(m.Tensors)); err != nil {
			return fmt.Errorf("nkfile: op %d (%s %q): %w", i, m.Ops[i].Type, m.Ops[i].Name, err)
		}
	}
	for _, kv := range m.Meta {
		if strings.IndexByte(kv.Key, 0) >= 0 || strings.IndexByte(kv.Value, 0) >= 0 {
			return fmt.Errorf("nkfile: meta %q: strings may not contain NUL", kv.Key)
		}
	}
	if ge := checkGraph(m); ge != nil {
		return fmt.Errorf("nkfile: %s", ge.msg)
	}
	return nil
}

func validateTensor(t *Tensor) error {
	if t.DType.Size() == 0 {
		return fmt.Errorf("unknown dtype %d", t.DType)
	}
	if t.State && t.Const() {
		return fmt.Errorf("a STATE tensor cannot be constant")
	}
	if strings.IndexByte(t.Name, 0) >= 0 {
		return fmt.Errorf("name contains NUL")
	}
	if len(t.Shape) > MaxRank {
		return fmt.Errorf("rank %d above %d", len(t.Shape), MaxRank)
	}
	elems := uint64(1)
	for _, d := range t.Shape {
		if d < 0 || d > MaxDim || d == 0 && (t.Const() || t.State) {
			return fmt.Errorf("dim %d outside 1..%d (0: an empty graph input or output)", d, MaxDim)
		}
		elems *= uint64(d)
		if elems > math.MaxUint32 {
			return fmt.Errorf("element count overflows u32")
		}
	}
	if elems*uint64(t.DType.Size()) > math.MaxUint32 {
		return fmt.Errorf("byte size overflows u32")
	}
	if t.Data != nil && uint64(len(t.Data)) != elems*uint64(t.DType.Size()) {
		return fmt.Errorf("payload is %d B, shape %v of %s needs %d B", len(t.Data), t.Shape, t.DType, elems*uint64(t.DType.Size()))
	}
	if q := t.Quant; q != nil {
		if len(q.Scale) != len(q.ZeroPoint) {
			return fmt.Errorf("quant has %d scales and %d zero points", len(q.Scale), len(q.ZeroPoint))
		}
		want := 1
		switch {
		case q.Axis == -1:
		case q.Axis >= 0 && q.Axis < len(t.Shape):
			want = t.Shape[q.Axis]
		default:
			return fmt.Errorf("quant axis %d outside -1..%d", q.Axis, len(t.Shape)-1)
		}
		if len(q.Scale) != want {
			return fmt.Errorf("quant axis %d needs %d entries, has %d", q.Axis, want, len(q.Scale))
		}
	}
	return nil
}

func validateOp(op *Op, nTensors int) error {
	if !op.Type.Known() {
		return fmt.Errorf("unknown op type %d", op.Type)
	}
	if strings.IndexByte(op.Name, 0) >= 0 {
		return fmt.Errorf("name contains NUL")
	}
	if len(op.Inputs) > MaxOpInputs {
		return fmt.Errorf("%d inputs, at most %d", len(op.Inputs), MaxOpInputs)
	}
	if len(op.Outputs) < 1 || len(op.Outputs) > MaxOpOutputs {
		return fmt.Errorf("%d outputs, want 1..%d", len(op.Outputs), MaxOpOutputs)
	}
	if len(op.Params) > math.MaxUint16 {
		return fmt.Errorf("%d params, at most %d", len(op.Params), math.MaxUint16)
	}
	if op.Act > ActClamp {
		return fmt.Errorf("unknown activation %d", op.Act)
	}
	for _, id := range op.Inputs {
		if id != -1 && (id < 0 || id >= nTensors) {
			return fmt.Errorf("input tensor id %d out of range", id)
		}
	}
	for _, id := range op.Outputs {
		if id < 0 || id >= nTensors {
			return fmt.Errorf("output tensor id %d out of range", id)
		}
	}
	return nil
}

// graphError names the op (or -1) a graph rule failed at.
type graphError struct {
	op  int
	msg string
}

// checkGraph enforces the GRAPH and OPS rules of the spec on a model whose
// ids are already in range.
func checkGraph(m *Model) *graphError {
	n := len(m.Tensors)
	if len(m.Inputs) < 1 || len(m.Inputs) > MaxGraphIO || len(m.Outputs) < 1 || len(m.Outputs) > MaxGraphIO {
		return &graphError{-1, fmt.Sprintf("graph has %d inputs and %d outputs, want 1..%d each", len(m.Inputs), len(m.Outputs), MaxGraphIO)}
	}
	avail := make([]bool, n) // runtime tensor has a value at this point of the order
	for _, io := range m.Inputs {
		if io.Tensor < 0 || io.Tensor >= n {
			return &graphError{-1, fmt.Sprintf("graph input tensor %d out of range", io.Tensor)}
		}
		if io.Layout > LayoutNCHW {
			return &graphError{-1, fmt.Sprintf("graph input tensor %d has unknown layout %d", io.Tensor, io.Layout)}
		}
		if m.Tensors[io.Tensor].Const() || m.Tensors[io.Tensor].State {
			return &graphError{-1, fmt.Sprintf("graph input tensor %d is constant or a STATE tensor", io.Tensor)}
		}
		if avail[io.Tensor] {
			return &graphError{-1, fmt.Sprintf("tensor %d appears twice among the graph inputs", io.Tensor)}
		}
		avail[io.Tensor] = true
	}
	for i, op := range m.Ops {
		for _, id := range slices.Concat(op.Inputs, op.Outputs) {
			if id != -1 && m.Tensors[id].Elems() == 0 {
				return &graphError{i, fmt.Sprintf("op %d (%s) reads or writes tensor %d, which is empty: only graph inputs and outputs may be", i, op.Type, id)}
			}
		}
		for _, id := range op.Inputs {
			if id == -1 || m.Tensors[id].Const() || m.Tensors[id].State {
				continue // a STATE tensor has a value from the start
			}
			if !avail[id] {
				return &graphError{i, fmt.Sprintf("op %d (%s) reads tensor %d before any op produces it", i, op.Type, id)}
			}
		}
		for _, id := range op.Outputs {
			if m.Tensors[id].Const() {
				return &graphError{i, fmt.Sprintf("op %d (%s) writes constant tensor %d", i, op.Type, id)}
			}
			if avail[id] {
				return &graphError{i, fmt.Sprintf("op %d (%s) writes tensor %d, already a graph input or produced earlier", i, op.Type, id)}
			}
			avail[id] = true
		}
	}
	for _, io := range m.Outputs {
		if io.Tensor < 0 || io.Tensor >= n {
			return &graphError{-1, fmt.Sprintf("graph output tensor %d out of range", io.Tensor)}
		}
		if io.Layout > LayoutNCHW {
			return &graphError{-1, fmt.Sprintf("graph output tensor %d has unknown layout %d", io.Tensor, io.Layout)}
		}
		if m.Tensors[io.Tensor].Const() {
			return &graphError{-1, fmt.Sprintf("graph output tensor %d is constant", io.Tensor)}
		}
		if !avail[io.Tensor] && m.Tensors[io.Tensor].Elems() != 0 { // an empty one holds nothing to produce
			return &graphError{-1, fmt.Sprintf("graph output tensor %d is never produced", io.Tensor)}
		}
	}
	return nil
}

// stringTable builds the STRINGS section; offset 0 is the empty string.
type stringTable struct {
	buf []byte
	at  map[string]uint32
}

func newStringTable() *stringTable {
	return &stringTable{buf: []byte{0}, at: map[string]uint32{"": 0}}
}

func (s *stringTable) ref(v string) uint32 {
	if off, ok := s.at[v]; ok {
		return off
	}
	off := uint32(len(s.buf))
	s.buf = append(append(s.buf, v...), 0)
	s.at[v] = off
	return off
}

// name refs an optional name: NONE when empty.
func (s *stringTable) name(v string) uint32 {
	if v == "" {
		return None
	}
	return s.ref(v)
}

func alignUp(n, a int) int { return (n + a - 1) &^ (a - 1) }

func idWord(id int) uint32 {
	if id < 0 {
		return None
	}
	return uint32(id)
}

// Encode validates m and returns its .nk image. The layout is canonical:
// header, section table, TENSORS, OPS, GRAPH, QUANT, META, STRINGS, DATA,
// so Encode(Decode(Encode(m))) reproduces the same bytes.
func Encode(m *Model) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	strs := newStringTable()

	// QUANT records and DATA placement first: tensor records point at them.
	var quant []byte
	quantRef := make([]uint32, len(m.Tensors))
	dataOff := make([]int, len(m.Tensors)) // relative to the DATA section
	dataSize := 0
	for i := range m.Tensors {
		t := &m.Tensors[i]
		quantRef[i] = None
		if t.Quant != nil {
			quantRef[i] = uint32(len(quant))
			quant = le.AppendUint32(quant, uint32(int32(t.Quant.Axis)))
			quant = le.AppendUint32(quant, uint32(len(t.Quant.Scale)))
			for _, s := range t.Quant.Scale {
				quant = le.AppendUint32(quant, math.Float32bits(s))
			}
			for _, z := range t.Quant.ZeroPoint {
				quant = le.AppendUint32(quant, uint32(z))
			}
		}
		if t.Const() {
			dataOff[i] = dataSize
			dataSize += alignUp(len(t.Data), PayloadAlign)
		}
	}

	// Strings in file order: tensor names, op names, metadata.
	tensorName := make([]uint32, len(m.Tensors))
	for i := range m.Tensors {
		tensorName[i] = strs.name(m.Tensors[i].Name)
	}

	var ops []byte
	ops = le.AppendUint32(ops, uint32(len(m.Ops)))
	ops = le.AppendUint32(ops, 0)
	for i := range m.Ops {
		op := &m.Ops[i]
		ops = le.AppendUint16(ops, uint16(op.Type))
		ops = append(ops, uint8(len(op.Inputs)), uint8(len(op.Outputs)))
		ops = le.AppendUint32(ops, strs.name(op.Name))
		ops = le.AppendUint16(ops, uint16(len(op.Params)))
		ops = append(ops, uint8(op.Act), 0)
		for _, id := range op.Inputs {
			ops = le.AppendUint32(ops, idWord(id))
		}
		for _, id := range op.Outputs {
			ops = le.AppendUint32(ops, uint32(id))
		}
		for _, w := range op.Params {
			ops = le.AppendUint32(ops, w)
		}
	}

	var graph []byte
	graph = le.AppendUint32(graph, uint32(len(m.Inputs)))
	graph = le.AppendUint32(graph, uint32(len(m.Outputs)))
	for _, io := range append(append([]IO(nil), m.Inputs...), m.Outputs...) {
		graph = le.AppendUint32(graph, uint32(io.Tensor))
		graph = le.AppendUint32(graph, uint32(io.Layout))
	}

	var meta []byte
	if len(m.Meta) > 0 {
		meta = le.AppendUint32(meta, uint32(len(m.Meta)))
		meta = le.AppendUint32(meta, 0)
		for _, kv := range m.Meta {
			meta = le.AppendUint32(meta, strs.ref(kv.Key))
			meta = le.AppendUint32(meta, strs.ref(kv.Value))
		}
	}

	type section struct {
		kind uint32
		body []byte // nil for DATA, written separately
		size int
		off  int
	}
	tensorsSize := 8 + TensorRecordSize*len(m.Tensors)
	secs := []*section{
		{kind: SectionTensors, size: tensorsSize},
		{kind: SectionOps, body: ops, size: len(ops)},
		{kind: SectionGraph, body: graph, size: len(graph)},
	}
	if len(quant) > 0 {
		secs = append(secs, &section{kind: SectionQuant, body: quant, size: len(quant)})
	}
	if len(meta) > 0 {
		secs = append(secs, &section{kind: SectionMeta, body: meta, size: len(meta)})
	}
	secs = append(secs, &section{kind: SectionStrings, body: strs.buf, size: len(strs.buf)})
	var data *section
	if dataSize > 0 {
		data = &section{kind: SectionData, size: dataSize}
		secs = append(secs, data)
	}

	off := HeaderSize + SectionEntrySize*len(secs)
	for _, s := range secs {
		align := 4
		if s.kind == SectionData {
			align = PayloadAlign
		}
		off = alignUp(off, align)
		s.off = off
		off += s.size
	}
	total := off
	if uint64(total) > math.MaxUint32 {
		return nil, fmt.Errorf("nkfile: image of %d B exceeds the 4 GiB - 1 limit", total)
	}

	out := make([]byte, total)
	copy(out, Magic)
	le.PutUint16(out[4:], VersionMajor)
	le.PutUint16(out[6:], VersionMinor)
	le.PutUint32(out[12:], uint32(total))
	le.PutUint32(out[16:], uint32(len(secs)))
	for i, s := range secs {
		e := out[HeaderSize+SectionEntrySize*i:]
		le.PutUint32(e[0:], s.kind)
		le.PutUint32(e[4:], uint32(s.off))
		le.PutUint32(e[8:], uint32(s.size))
		if s.body != nil {
			copy(out[s.off:], s.body)
		}
	}

	tsec := out[secs[0].off:]
	le.PutUint32(tsec[0:], uint32(len(m.Tensors)))
	for i := range m.Tensors {
		t := &m.Tensors[i]
		r := tsec[8+TensorRecordSize*i:]
		le.PutUint32(r[0:], tensorName[i])
		r[4], r[5] = uint8(t.DType), uint8(len(t.Shape))
		for k, d := range t.Shape {
			le.PutUint32(r[8+4*k:], uint32(d))
		}
		le.PutUint32(r[32:], None)
		if t.State {
			r[7] = 1
		}
		if t.Const() {
			r[6] = 1
			abs := data.off + dataOff[i]
			le.PutUint32(r[32:], uint32(abs))
			le.PutUint32(r[36:], uint32(len(t.Data)))
			copy(out[abs:], t.Data)
		}
		le.PutUint32(r[40:], quantRef[i])
		le.PutUint32(r[44:], uint32(t.Elems()))
	}

	le.PutUint32(out[8:], crc32.ChecksumIEEE(out[12:]))
	return out, nil
}
