package tflite

import (
	"encoding/binary"
	"math"
	"testing"
)

// A tiny FlatBuffers writer for tests, built like the real format: back to
// front, so every reference points forward. Positions are kept as offsets
// from the end of the buffer ("end offsets") until finish.
type fbWriter struct {
	data []byte // the tail of the final buffer
}

// prepend places chunk before the current data so that its start is
// aligned, and returns the chunk's end offset.
func (w *fbWriter) prepend(chunk []byte, align int) int {
	pad := (align - (len(w.data)+len(chunk))%align) % align
	out := make([]byte, 0, len(chunk)+pad+len(w.data))
	out = append(out, chunk...)
	out = append(out, make([]byte, pad)...)
	w.data = append(out, w.data...)
	return len(w.data)
}

// nextStart is the end offset a chunk of n bytes will get.
func (w *fbWriter) nextStart(n, align int) int {
	pad := (align - (len(w.data)+n)%align) % align
	return len(w.data) + pad + n
}

func (w *fbWriter) str(s string) int {
	b := make([]byte, 4, 4+len(s)+1)
	binary.LittleEndian.PutUint32(b, uint32(len(s)))
	b = append(append(b, s...), 0)
	return w.prepend(b, 4)
}

func (w *fbWriter) ints(v []int32) int {
	b := make([]byte, 4+4*len(v))
	binary.LittleEndian.PutUint32(b, uint32(len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4+4*i:], uint32(x))
	}
	return w.prepend(b, 4)
}

func (w *fbWriter) floats(v []float32) int {
	u := make([]int32, len(v))
	for i, x := range v {
		u[i] = int32(math.Float32bits(x))
	}
	return w.ints(u)
}

func (w *fbWriter) longs(v []int64) int {
	b := make([]byte, 4+8*len(v))
	binary.LittleEndian.PutUint32(b, uint32(len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[4+8*i:], uint64(x))
	}
	// the elements (not the length) must be 8-aligned
	pad := (8 - (len(w.data)+8*len(v))%8) % 8
	w.data = append(make([]byte, pad), w.data...)
	return w.prepend(b, 4)
}

func (w *fbWriter) bytesVec(v []byte) int {
	b := make([]byte, 4, 4+len(v))
	binary.LittleEndian.PutUint32(b, uint32(len(v)))
	return w.prepend(append(b, v...), 4)
}

func (w *fbWriter) refs(targets []int) int {
	n := 4 + 4*len(targets)
	start := w.nextStart(n, 4)
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b, uint32(len(targets)))
	for i, tg := range targets {
		binary.LittleEndian.PutUint32(b[4+4*i:], uint32(start-4-4*i-tg))
	}
	return w.prepend(b, 4)
}

// fld is one table field: a scalar (size 1, 4 or 8 bytes) or a reference.
type fld struct {
	id    int
	size  int
	val   uint64
	ref   int // end offset of the target when isRef
	isRef bool
}

func u8f(id int, v uint8) fld     { return fld{id: id, size: 1, val: uint64(v)} }
func i32f(id int, v int32) fld    { return fld{id: id, size: 4, val: uint64(uint32(v))} }
func f32f(id int, v float32) fld  { return fld{id: id, size: 4, val: uint64(math.Float32bits(v))} }
func reff(id int, target int) fld { return fld{id: id, size: 4, ref: target, isRef: true} }

func (w *fbWriter) table(fields ...fld) int {
	maxID := -1
	for _, f := range fields {
		maxID = max(maxID, f.id)
	}
	nslots := maxID + 1
	if nslots%2 == 1 {
		nslots++ // keep the vtable a multiple of 4 bytes
	}
	vtsize := 4 + 2*nslots
	// table body: soffset, then fields in order, each aligned to its size
	body := make([]byte, 4)
	rel := make([]int, len(fields))
	for i, f := range fields {
		for len(body)%f.size != 0 {
			body = append(body, 0)
		}
		rel[i] = len(body)
		body = append(body, make([]byte, f.size)...)
	}
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	chunk := make([]byte, vtsize+len(body))
	start := w.nextStart(len(chunk), 8)
	tableEnd := start - vtsize
	binary.LittleEndian.PutUint16(chunk, uint16(vtsize))
	binary.LittleEndian.PutUint16(chunk[2:], uint16(len(body)))
	copy(chunk[vtsize:], body)
	binary.LittleEndian.PutUint32(chunk[vtsize:], uint32(vtsize)) // vtable = table - vtsize
	for i, f := range fields {
		binary.LittleEndian.PutUint16(chunk[4+2*f.id:], uint16(rel[i]))
		at := chunk[vtsize+rel[i]:]
		switch {
		case f.isRef:
			binary.LittleEndian.PutUint32(at, uint32(tableEnd-rel[i]-f.ref))
		case f.size == 1:
			at[0] = byte(f.val)
		case f.size == 4:
			binary.LittleEndian.PutUint32(at, uint32(f.val))
		default:
			binary.LittleEndian.PutUint64(at, f.val)
		}
	}
	return w.prepend(chunk, 8) - vtsize
}

// finish writes the root offset and the "TFL3" identifier.
func (w *fbWriter) finish(root int) []byte {
	head := make([]byte, 8)
	total := len(w.data) + 8
	pad := (16 - total%16) % 16
	total += pad
	binary.LittleEndian.PutUint32(head, uint32(total-root))
	copy(head[4:], "TFL3")
	out := append(head, make([]byte, pad)...)
	return append(out, w.data...)
}

// buildTiny writes a small valid model: two opcodes (one old-style with
// only deprecated_builtin_code, one with a code past 127), two tensors (one
// quantized), two buffers and one CONV_2D with options.
func buildTiny(t testing.TB) []byte {
	t.Helper()
	return buildTinyWith(optConv2D, u8f(0, uint8(PaddingValid)), i32f(1, 1), i32f(2, 2), u8f(3, uint8(ActRelu6)))
}

// buildTinyWith is buildTiny with the operator's options a table of the
// given union tag and fields.
func buildTinyWith(optTag uint8, optFields ...fld) []byte {
	return buildTinyOpts(optTag, func(*fbWriter) []fld { return optFields })
}

// buildTinyOpts is buildTinyWith with option fields that may refer to
// vectors written first into the same file.
func buildTinyOpts(optTag uint8, optFields func(w *fbWriter) []fld) []byte {
	w := &fbWriter{}
	// leaves first (they end up last in the file)
	opts := w.table(optFields(w)...)
	opIn := w.ints([]int32{0, -1})
	opOut := w.ints([]int32{1})
	op := w.table(i32f(0, 0), reff(1, opIn), reff(2, opOut), u8f(3, optTag), reff(4, opts))
	qScale := w.floats([]float32{0.5})
	qZp := w.longs([]int64{-3})
	quant := w.table(reff(2, qScale), reff(3, qZp))
	shape0 := w.ints([]int32{1, 4, 4, 2})
	name0 := w.str("x")
	t0 := w.table(reff(0, shape0), u8f(1, uint8(Int8)), i32f(2, 1), reff(3, name0), reff(4, quant))
	shape1 := w.ints([]int32{1, 2, 2, 2})
	name1 := w.str("y")
	t1 := w.table(reff(0, shape1), u8f(1, uint8(Int8)), reff(3, name1))
	tensors := w.refs([]int{t0, t1})
	ins := w.ints([]int32{0})
	outs := w.ints([]int32{1})
	ops := w.refs([]int{op})
	sgName := w.str("main")
	sg := w.table(reff(0, tensors), reff(1, ins), reff(2, outs), reff(3, ops), reff(4, sgName))
	sgs := w.refs([]int{sg})
	data := w.bytesVec([]byte{1, 2, 3, 4})
	b0 := w.table()
	b1 := w.table(reff(0, data))
	bufs := w.refs([]int{b0, b1})
	oc0 := w.table(u8f(0, uint8(OpConv2D)))
	oc1 := w.table(u8f(0, 127), i32f(2, 1), i32f(3, 150))
	codes := w.refs([]int{oc0, oc1})
	desc := w.str("tiny")
	model := w.table(i32f(0, 3), reff(1, codes), reff(2, sgs), reff(3, desc), reff(4, bufs))
	return w.finish(model)
}
