package tflite

import (
	"encoding/binary"
	"fmt"
	"math"
)

// A minimal, bounds-checked reader of the FlatBuffers binary layout, enough
// for the TFLite schema:
//
//   - the file starts with a uoffset (u32) to the root table;
//   - a table starts with an soffset (i32): the table's vtable lives at
//     table - soffset;
//   - a vtable is u16 vtable size in bytes, u16 table size, then one u16 per
//     field id: the field's byte offset inside the table, 0 when absent
//     (the reader then uses the schema default);
//   - a reference field (table, vector, string) holds a uoffset relative to
//     the field's own position; vectors and strings start with a u32
//     element count; a vector of tables holds one uoffset per element;
//   - a union is two fields: a u8 type, then a reference to the table.
//
// Every read checks its range and returns a *FormatError instead of
// panicking; every count is checked against the bytes left before anything
// is allocated for it. References may share substructures, so a hostile
// file could make a small image decode into a huge model (N references to
// one table holding N elements); a budget of decoded elements, proportional
// to the file size, bounds that.

type fbuf struct {
	b      []byte
	budget int64 // vector elements left to decode
}

func newFbuf(b []byte) *fbuf {
	return &fbuf{b: b, budget: 2*int64(len(b)) + 1<<16}
}

// table is a located table: its position and the field offsets of its vtable.
type table struct {
	buf    *fbuf
	pos    uint32
	fields []byte // the vtable's field slots, 2 bytes each
	size   uint32 // inline size of the table, from the vtable
	what   string // for error messages
}

func (f *fbuf) errf(off uint64, format string, args ...any) error {
	return &FormatError{Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

func (f *fbuf) need(off, n uint64, what string) error {
	if off > uint64(len(f.b)) || n > uint64(len(f.b))-off {
		return f.errf(off, "%s: %d bytes at offset %d run past the end of the %d-byte file", what, n, off, len(f.b))
	}
	return nil
}

func (f *fbuf) u16(off uint64, what string) (uint16, error) {
	if err := f.need(off, 2, what); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(f.b[off:]), nil
}

func (f *fbuf) u32(off uint64, what string) (uint32, error) {
	if err := f.need(off, 4, what); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(f.b[off:]), nil
}

// tableAt locates the table at pos and its vtable.
func (f *fbuf) tableAt(pos uint64, what string) (table, error) {
	if pos%4 != 0 {
		return table{}, f.errf(pos, "%s: table at unaligned offset %d", what, pos)
	}
	so, err := f.u32(pos, what)
	if err != nil {
		return table{}, err
	}
	vt := int64(pos) - int64(int32(so))
	if vt < 0 || vt%2 != 0 {
		return table{}, f.errf(pos, "%s: vtable offset %d is outside the file", what, vt)
	}
	vsize, err := f.u16(uint64(vt), what+" vtable")
	if err != nil {
		return table{}, err
	}
	tsize, err := f.u16(uint64(vt)+2, what+" vtable")
	if err != nil {
		return table{}, err
	}
	if vsize < 4 || vsize%2 != 0 {
		return table{}, f.errf(uint64(vt), "%s: vtable size %d is invalid", what, vsize)
	}
	if err := f.need(uint64(vt), uint64(vsize), what+" vtable"); err != nil {
		return table{}, err
	}
	if tsize < 4 {
		return table{}, f.errf(uint64(vt), "%s: table size %d is smaller than its vtable reference", what, tsize)
	}
	if err := f.need(pos, uint64(tsize), what); err != nil {
		return table{}, err
	}
	return table{buf: f, pos: uint32(pos), fields: f.b[uint64(vt)+4 : uint64(vt)+uint64(vsize)], size: uint32(tsize), what: what}, nil
}

// field returns the absolute offset of field id and whether it is present;
// n is the field's inline size, checked against the table size.
func (t table) field(id int, n uint32) (uint64, bool, error) {
	if 2*id+2 > len(t.fields) {
		return 0, false, nil // written by an older schema: absent
	}
	rel := uint32(binary.LittleEndian.Uint16(t.fields[2*id:]))
	if rel == 0 {
		return 0, false, nil
	}
	if rel < 4 || rel > t.size || n > t.size-rel {
		return 0, false, t.buf.errf(uint64(t.pos), "%s: field %d at %d (%d bytes) is outside the %d-byte table", t.what, id, rel, n, t.size)
	}
	return uint64(t.pos) + uint64(rel), true, nil
}

func (t table) u8(id int, def uint8) (uint8, error) {
	off, ok, err := t.field(id, 1)
	if err != nil || !ok {
		return def, err
	}
	return t.buf.b[off], nil
}

func (t table) i8(id int, def int8) (int8, error) {
	v, err := t.u8(id, uint8(def))
	return int8(v), err
}

func (t table) boolean(id int, def bool) (bool, error) {
	d := uint8(0)
	if def {
		d = 1
	}
	v, err := t.u8(id, d)
	return v != 0, err
}

func (t table) u32(id int, def uint32) (uint32, error) {
	off, ok, err := t.field(id, 4)
	if err != nil || !ok {
		return def, err
	}
	return binary.LittleEndian.Uint32(t.buf.b[off:]), nil
}

func (t table) i32(id int, def int32) (int32, error) {
	v, err := t.u32(id, uint32(def))
	return int32(v), err
}

func (t table) u64(id int, def uint64) (uint64, error) {
	off, ok, err := t.field(id, 8)
	if err != nil || !ok {
		return def, err
	}
	return binary.LittleEndian.Uint64(t.buf.b[off:]), nil
}

func (t table) f32(id int, def float32) (float32, error) {
	v, err := t.u32(id, math.Float32bits(def))
	return math.Float32frombits(v), err
}

// ref follows a reference field; ok is false when the field is absent.
func (t table) ref(id int) (uint64, bool, error) {
	off, ok, err := t.field(id, 4)
	if err != nil || !ok {
		return 0, false, err
	}
	rel := binary.LittleEndian.Uint32(t.buf.b[off:])
	target := off + uint64(rel)
	if rel == 0 || target >= uint64(len(t.buf.b)) {
		return 0, false, t.buf.errf(off, "%s: field %d points to %d, outside the file", t.what, id, target)
	}
	return target, true, nil
}

// subtable reads a table-typed field (absent: ok false).
func (t table) subtable(id int, what string) (table, bool, error) {
	pos, ok, err := t.ref(id)
	if err != nil || !ok {
		return table{}, false, err
	}
	sub, err := t.buf.tableAt(pos, what)
	return sub, err == nil, err
}

// vector returns the element count and the offset of the first element of
// a vector field whose elements are elem bytes each.
func (t table) vector(id int, elem uint64, what string) (uint64, uint64, error) {
	pos, ok, err := t.ref(id)
	if err != nil || !ok {
		return 0, 0, err
	}
	if pos%4 != 0 {
		return 0, 0, t.buf.errf(pos, "%s: vector at unaligned offset %d", what, pos)
	}
	n, err := t.buf.u32(pos, what)
	if err != nil {
		return 0, 0, err
	}
	if err := t.buf.need(pos+4, uint64(n)*elem, what); err != nil {
		return 0, 0, err
	}
	if t.buf.budget -= int64(n); t.buf.budget < 0 {
		return 0, 0, t.buf.errf(pos, "%s: the file's references decode to more elements than a %d-byte file can hold", what, len(t.buf.b))
	}
	return uint64(n), pos + 4, nil
}

func (t table) bytes(id int, what string) ([]byte, error) {
	n, start, err := t.vector(id, 1, what)
	if err != nil || n == 0 {
		return nil, err
	}
	return t.buf.b[start : start+n], nil
}

func (t table) str(id int, what string) (string, error) {
	b, err := t.bytes(id, what)
	return string(b), err
}

func (t table) i32s(id int, what string) ([]int32, error) {
	n, start, err := t.vector(id, 4, what)
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(t.buf.b[start+4*uint64(i):]))
	}
	return out, nil
}

func (t table) f32s(id int, what string) ([]float32, error) {
	v, err := t.i32s(id, what)
	if v == nil {
		return nil, err
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = math.Float32frombits(uint32(x))
	}
	return out, err
}

func (t table) i64s(id int, what string) ([]int64, error) {
	n, start, err := t.vector(id, 8, what)
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.buf.b[start+8*uint64(i):]))
	}
	return out, nil
}

// tables reads a vector of tables.
func (t table) tables(id int, what string) ([]table, error) {
	n, start, err := t.vector(id, 4, what)
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]table, n)
	for i := range out {
		off := start + 4*uint64(i)
		rel := binary.LittleEndian.Uint32(t.buf.b[off:])
		if rel == 0 {
			return nil, t.buf.errf(off, "%s[%d]: null table reference", what, i)
		}
		if out[i], err = t.buf.tableAt(off+uint64(rel), fmt.Sprintf("%s[%d]", what, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
