package nkfile

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"sort"
	"strings"
)

// Decode parses and validates a .nk image. Every malformed input yields a
// *FormatError; Decode never panics and never reads outside b. Constant
// payloads in the result alias b (no copy); tensors that share a
// quantization record share its Scale and ZeroPoint slices. A buffer longer
// than the header's file_size is accepted and its tail ignored, as the C
// loader does.
//
// Work and memory are O(n log n) in the image's size n, however its counts
// and references are chosen: every string and quantization record is read
// once, whatever the number of references to it.
func Decode(b []byte) (*Model, error) {
	d := &decoder{b: b}
	m, err := d.decode()
	if err != nil {
		return nil, err
	}
	return m, nil
}

type decoder struct {
	b      []byte // the image, cut to file_size
	minor  uint16 // version_minor
	secs   [SectionData + 1]secRange
	strs   string            // the STRINGS section, copied once; names are substrings
	nuls   []uint32          // offsets of its NUL bytes, ascending
	quants map[uint32]*Quant // decoded records by offset
}

type secRange struct {
	off, size uint32
	present   bool
}

func (s secRange) end() uint64 { return uint64(s.off) + uint64(s.size) }

var le = binary.LittleEndian

func ferr(off uint64, format string, args ...any) *FormatError {
	return &FormatError{Off: int64(off), Msg: fmt.Sprintf(format, args...)}
}

// u32 reads a word that the caller has bounds-checked.
func (d *decoder) u32(off uint64) uint32 { return le.Uint32(d.b[off:]) }

// need checks that [off, off+n) lies inside the image.
func (d *decoder) need(off, n uint64, what string) error {
	if off > uint64(len(d.b)) || n > uint64(len(d.b))-off {
		return ferr(off, "%s: %d B at offset %d run past the end of the %d B image", what, n, off, len(d.b))
	}
	return nil
}

func (d *decoder) decode() (*Model, error) {
	b := d.b
	if len(b) < HeaderSize {
		return nil, ferr(0, "image of %d B is shorter than the %d B header", len(b), HeaderSize)
	}
	if string(b[:4]) != Magic {
		return nil, ferr(0, "bad magic %q, want %q", b[:4], Magic)
	}
	if major := le.Uint16(b[4:]); major != VersionMajor {
		return nil, ferr(4, "unsupported format version %d.%d (this reader reads %d.x)", major, le.Uint16(b[6:]), VersionMajor)
	}
	size := le.Uint32(b[12:])
	if size < HeaderSize || uint64(size) > uint64(len(b)) {
		return nil, ferr(12, "file_size %d outside %d..%d (the buffer length)", size, HeaderSize, len(b))
	}
	d.b = b[:size]
	d.minor = le.Uint16(b[6:])
	if want, got := le.Uint32(b[8:]), crc32.ChecksumIEEE(d.b[12:]); want != got {
		return nil, ferr(8, "checksum mismatch: header says %08x, bytes give %08x", want, got)
	}
	if flags := le.Uint32(b[20:]); flags != 0 {
		return nil, ferr(20, "unknown flags %#x", flags)
	}
	if le.Uint32(b[24:]) != 0 || le.Uint32(b[28:]) != 0 {
		return nil, ferr(24, "reserved header words are not 0")
	}
	if err := d.sections(); err != nil {
		return nil, err
	}
	m := &Model{}
	if err := d.strings(); err != nil {
		return nil, err
	}
	if err := d.tensors(m); err != nil {
		return nil, err
	}
	opOffs, err := d.ops(m)
	if err != nil {
		return nil, err
	}
	if err := d.graph(m); err != nil {
		return nil, err
	}
	if err := d.meta(m); err != nil {
		return nil, err
	}
	if ge := checkGraph(m); ge != nil {
		off := uint64(d.secs[SectionGraph].off)
		if ge.op >= 0 {
			off = opOffs[ge.op]
		}
		return nil, ferr(off, "%s", ge.msg)
	}
	return m, nil
}

func (d *decoder) sections() error {
	n := d.u32(16)
	if n < 1 || n > MaxSections {
		return ferr(16, "section_count %d outside 1..%d", n, MaxSections)
	}
	tableEnd := uint64(HeaderSize) + uint64(n)*SectionEntrySize
	if err := d.need(HeaderSize, tableEnd-HeaderSize, "section table"); err != nil {
		return err
	}
	type span struct{ start, end, entry uint64 }
	var spans []span
	for i := range uint64(n) {
		e := HeaderSize + SectionEntrySize*i
		kind, off, sz := d.u32(e), d.u32(e+4), d.u32(e+8)
		if d.u32(e+12) != 0 {
			return ferr(e+12, "section %d: reserved word is not 0", i)
		}
		if err := d.need(uint64(off), uint64(sz), fmt.Sprintf("section %d (kind %d)", i, kind)); err != nil {
			return err
		}
		if uint64(off) < tableEnd {
			return ferr(e+4, "section %d (kind %d) at offset %d overlaps the header or section table", i, kind, off)
		}
		align := uint32(4)
		if kind == SectionData {
			align = PayloadAlign
		}
		if off%align != 0 {
			return ferr(e+4, "section %d (kind %d) offset %d is not %d-byte aligned", i, kind, off, align)
		}
		spans = append(spans, span{uint64(off), uint64(off) + uint64(sz), e})
		if kind >= SectionTensors && kind <= SectionData {
			if d.secs[kind].present {
				return ferr(e, "section kind %d appears twice", kind)
			}
			d.secs[kind] = secRange{off: off, size: sz, present: true}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return ferr(spans[i].entry, "sections overlap at offset %d", spans[i].start)
		}
	}
	for _, k := range []struct {
		kind int
		name string
	}{{SectionTensors, "TENSORS"}, {SectionOps, "OPS"}, {SectionGraph, "GRAPH"}, {SectionStrings, "STRINGS"}} {
		if !d.secs[k.kind].present {
			return ferr(16, "required section %s is missing", k.name)
		}
	}
	return nil
}

func (d *decoder) strings() error {
	s := d.secs[SectionStrings]
	d.strs = string(d.b[s.off:s.end()])
	if len(d.strs) == 0 || d.strs[len(d.strs)-1] != 0 {
		return ferr(s.end(), "STRINGS section does not end with NUL")
	}
	for i := 0; i < len(d.strs); i++ {
		i += strings.IndexByte(d.strs[i:], 0)
		d.nuls = append(d.nuls, uint32(i))
	}
	return nil
}

// str resolves a string ref found at file offset at. NONE is "".
func (d *decoder) str(ref uint32, at uint64) (string, error) {
	if ref == None {
		return "", nil
	}
	if uint64(ref) >= uint64(len(d.strs)) {
		return "", ferr(at, "string ref %d outside the %d B STRINGS section", ref, len(d.strs))
	}
	// the first NUL at or after ref ends the string (the section ends with one)
	end := d.nuls[sort.Search(len(d.nuls), func(i int) bool { return d.nuls[i] >= ref })]
	return d.strs[ref:end], nil
}

// count reads the leading `u32 count, u32 reserved` of a section.
func (d *decoder) count(s secRange, name string) (uint32, error) {
	if s.size < 8 {
		return 0, ferr(uint64(s.off), "%s section of %d B is shorter than its 8 B count", name, s.size)
	}
	if d.u32(uint64(s.off)+4) != 0 {
		return 0, ferr(uint64(s.off)+4, "%s reserved word is not 0", name)
	}
	return d.u32(uint64(s.off)), nil
}

func (d *decoder) tensors(m *Model) error {
	s := d.secs[SectionTensors]
	n, err := d.count(s, "TENSORS")
	if err != nil {
		return err
	}
	if uint64(s.size) != 8+TensorRecordSize*uint64(n) {
		return ferr(uint64(s.off), "TENSORS section is %d B, %d records need %d B", s.size, n, 8+TensorRecordSize*uint64(n))
	}
	data := d.secs[SectionData]
	type payload struct {
		start, end uint64
		id         int
	}
	var payloads []payload
	m.Tensors = make([]Tensor, n)
	for i := range uint64(n) {
		r := uint64(s.off) + 8 + TensorRecordSize*i
		t := &m.Tensors[i]
		var err error
		if t.Name, err = d.str(d.u32(r), r); err != nil {
			return err
		}
		dt, rank, flags := DType(d.b[r+4]), int(d.b[r+5]), d.b[r+6]
		if dt.Size() == 0 {
			return ferr(r+4, "tensor %d: unknown dtype %d", i, dt)
		}
		t.DType = dt
		if rank > MaxRank {
			return ferr(r+5, "tensor %d: rank %d above %d", i, rank, MaxRank)
		}
		if flags&^1 != 0 || d.b[r+7]&^1 != 0 || flags != 0 && d.b[r+7] != 0 {
			return ferr(r+6, "tensor %d: unknown flags %#x or state byte %d, or a constant STATE tensor", i, flags, d.b[r+7])
		}
		t.State = d.b[r+7] == 1
		elems := uint64(1)
		if rank > 0 {
			t.Shape = make([]int, rank)
		}
		for k := range MaxRank {
			dim := d.u32(r + 8 + 4*uint64(k))
			if k >= rank {
				if dim != 0 {
					return ferr(r+8+4*uint64(k), "tensor %d: dim %d past rank %d is %d, want 0", i, k, rank, dim)
				}
				continue
			}
			if dim > MaxDim || dim == 0 && (flags != 0 || t.State) {
				return ferr(r+8+4*uint64(k), "tensor %d: dim %d is %d, outside 1..%d (0: an empty graph input or output)", i, k, dim, MaxDim)
			}
			t.Shape[k] = int(dim)
			elems *= uint64(dim)
			if elems > math.MaxUint32 {
				return ferr(r+8, "tensor %d: element count overflows u32", i)
			}
		}
		nbytes := elems * uint64(dt.Size())
		if nbytes > math.MaxUint32 {
			return ferr(r+8, "tensor %d: byte size overflows u32", i)
		}
		doff, dsize := d.u32(r+32), d.u32(r+36)
		if flags&1 != 0 {
			if !data.present {
				return ferr(r+32, "tensor %d is CONST but there is no DATA section", i)
			}
			if doff%PayloadAlign != 0 {
				return ferr(r+32, "tensor %d: payload offset %d is not %d-byte aligned", i, doff, PayloadAlign)
			}
			if uint64(dsize) != nbytes {
				return ferr(r+36, "tensor %d: payload is %d B, shape %v of %s needs %d B", i, dsize, t.Shape, dt, nbytes)
			}
			if uint64(doff) < uint64(data.off) || uint64(doff)+uint64(dsize) > data.end() {
				return ferr(r+32, "tensor %d: payload [%d, %d) outside the DATA section [%d, %d)", i, doff, uint64(doff)+uint64(dsize), data.off, data.end())
			}
			t.Data = d.b[doff : uint64(doff)+uint64(dsize) : uint64(doff)+uint64(dsize)]
			payloads = append(payloads, payload{uint64(doff), uint64(doff) + uint64(dsize), int(i)})
		} else if doff != None || dsize != 0 {
			return ferr(r+32, "tensor %d is not CONST but has payload offset %#x size %d", i, doff, dsize)
		}
		// format 1.1 stores the element count there (the C runtime reads the
		// record in place); 1.0 a 0
		wantElems := uint32(0)
		if d.minor >= MinorElems {
			wantElems = uint32(elems)
		}
		if got := d.u32(r + 44); got != wantElems {
			return ferr(r+44, "tensor %d: element count word is %d, format 1.%d needs %d", i, got, d.minor, wantElems)
		}
		if qref := d.u32(r + 40); qref != None {
			if t.Quant, err = d.quant(qref, r+40, t.Shape); err != nil {
				return err
			}
		}
	}
	sort.Slice(payloads, func(i, j int) bool { return payloads[i].start < payloads[j].start })
	for i := 1; i < len(payloads); i++ {
		if payloads[i].start < payloads[i-1].end {
			return ferr(payloads[i].start, "payloads of tensors %d and %d overlap", payloads[i-1].id, payloads[i].id)
		}
	}
	return nil
}

// quant resolves the quantization record at ref for a tensor of shape
// shape. Each record is decoded once and then shared.
func (d *decoder) quant(ref uint32, at uint64, shape []int) (*Quant, error) {
	s := d.secs[SectionQuant]
	if !s.present {
		return nil, ferr(at, "quant ref %d but there is no QUANT section", ref)
	}
	if ref%4 != 0 || uint64(ref)+8 > uint64(s.size) {
		return nil, ferr(at, "quant ref %d is misaligned or outside the %d B QUANT section", ref, s.size)
	}
	r := uint64(s.off) + uint64(ref)
	axis, count := int32(d.u32(r)), d.u32(r+4)
	want := uint64(1)
	switch {
	case axis == -1:
	case axis >= 0 && int(axis) < len(shape):
		want = uint64(shape[axis])
	default:
		return nil, ferr(r, "quant axis %d outside -1..%d", axis, len(shape)-1)
	}
	if uint64(count) != want {
		return nil, ferr(r+4, "quant count %d, axis %d needs %d", count, axis, want)
	}
	if uint64(ref)+8+8*uint64(count) > uint64(s.size) {
		return nil, ferr(r+4, "quant record of %d entries runs past the QUANT section", count)
	}
	if q, ok := d.quants[ref]; ok {
		return q, nil
	}
	q := &Quant{Axis: int(axis), Scale: make([]float32, count), ZeroPoint: make([]int32, count)}
	for k := range uint64(count) {
		q.Scale[k] = math.Float32frombits(d.u32(r + 8 + 4*k))
		q.ZeroPoint[k] = int32(d.u32(r + 8 + 4*uint64(count) + 4*k))
	}
	if d.quants == nil {
		d.quants = map[uint32]*Quant{}
	}
	d.quants[ref] = q
	return q, nil
}

// ops parses the OPS section and returns each record's file offset.
func (d *decoder) ops(m *Model) ([]uint64, error) {
	s := d.secs[SectionOps]
	n, err := d.count(s, "OPS")
	if err != nil {
		return nil, err
	}
	end := s.end()
	// Each record takes at least 16 bytes: reject absurd counts before allocating.
	if uint64(n) > (uint64(s.size)-8)/16 {
		return nil, ferr(uint64(s.off), "OPS count %d cannot fit in %d B", n, s.size)
	}
	nt := len(m.Tensors)
	m.Ops = make([]Op, n)
	offs := make([]uint64, n)
	r := uint64(s.off) + 8
	for i := range uint64(n) {
		offs[i] = r
		if r+12 > end {
			return nil, ferr(r, "op %d: record header runs past the OPS section", i)
		}
		op := &m.Ops[i]
		op.Type = OpType(le.Uint16(d.b[r:]))
		nin, nout := int(d.b[r+2]), int(d.b[r+3])
		nparams := int(le.Uint16(d.b[r+8:]))
		op.Act = Activation(d.b[r+10])
		if !op.Type.Known() {
			return nil, ferr(r, "op %d: unsupported op type %d", i, op.Type)
		}
		if nin > MaxOpInputs || nout < 1 || nout > MaxOpOutputs {
			return nil, ferr(r+2, "op %d (%s): %d inputs and %d outputs, want 0..%d and 1..%d", i, op.Type, nin, nout, MaxOpInputs, MaxOpOutputs)
		}
		if op.Act > ActClamp || d.b[r+11] != 0 {
			return nil, ferr(r+10, "op %d (%s): unknown activation %d or reserved byte set", i, op.Type, op.Act)
		}
		if op.Name, err = d.str(d.u32(r+4), r+4); err != nil {
			return nil, err
		}
		words := uint64(nin + nout + nparams)
		if r+12+4*words > end {
			return nil, ferr(r, "op %d (%s): record of %d words runs past the OPS section", i, op.Type, words)
		}
		w := r + 12
		op.Inputs = nilIfEmpty(make([]int, nin))
		for k := range op.Inputs {
			id := d.u32(w)
			if id == None {
				op.Inputs[k] = -1
			} else if uint64(id) >= uint64(nt) {
				return nil, ferr(w, "op %d (%s): input %d is tensor %d, only %d tensors", i, op.Type, k, id, nt)
			} else {
				op.Inputs[k] = int(id)
			}
			w += 4
		}
		op.Outputs = make([]int, nout)
		for k := range op.Outputs {
			id := d.u32(w)
			if uint64(id) >= uint64(nt) {
				return nil, ferr(w, "op %d (%s): output %d is tensor %d, only %d tensors", i, op.Type, k, id, nt)
			}
			op.Outputs[k] = int(id)
			w += 4
		}
		op.Params = nilIfEmpty(make([]uint32, nparams))
		for k := range op.Params {
			op.Params[k] = d.u32(w)
			w += 4
		}
		r = w
	}
	if r != end {
		return nil, ferr(r, "OPS records end at %d but the section ends at %d", r, end)
	}
	return offs, nil
}

func (d *decoder) graph(m *Model) error {
	s := d.secs[SectionGraph]
	if s.size < 8 {
		return ferr(uint64(s.off), "GRAPH section of %d B is shorter than its 8 B counts", s.size)
	}
	ni, no := d.u32(uint64(s.off)), d.u32(uint64(s.off)+4)
	if ni < 1 || ni > MaxGraphIO || no < 1 || no > MaxGraphIO {
		return ferr(uint64(s.off), "graph has %d inputs and %d outputs, want 1..%d each", ni, no, MaxGraphIO)
	}
	if uint64(s.size) != 8+8*uint64(ni+no) {
		return ferr(uint64(s.off), "GRAPH section is %d B, %d entries need %d B", s.size, ni+no, 8+8*(ni+no))
	}
	read := func(k uint32) (IO, error) {
		e := uint64(s.off) + 8 + 8*uint64(k)
		id, layout := d.u32(e), d.u32(e+4)
		if uint64(id) >= uint64(len(m.Tensors)) {
			return IO{}, ferr(e, "graph entry %d names tensor %d, only %d tensors", k, id, len(m.Tensors))
		}
		if layout > uint32(LayoutNCHW) {
			return IO{}, ferr(e+4, "graph entry %d has unknown layout %d", k, layout)
		}
		return IO{Tensor: int(id), Layout: Layout(layout)}, nil
	}
	m.Inputs = make([]IO, ni)
	m.Outputs = make([]IO, no)
	var err error
	for k := range ni {
		if m.Inputs[k], err = read(k); err != nil {
			return err
		}
	}
	for k := range no {
		if m.Outputs[k], err = read(ni + k); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) meta(m *Model) error {
	s := d.secs[SectionMeta]
	if !s.present {
		return nil
	}
	n, err := d.count(s, "META")
	if err != nil {
		return err
	}
	if uint64(s.size) != 8+8*uint64(n) {
		return ferr(uint64(s.off), "META section is %d B, %d pairs need %d B", s.size, n, 8+8*uint64(n))
	}
	m.Meta = nilIfEmpty(make([]KV, n))
	for k := range uint64(n) {
		e := uint64(s.off) + 8 + 8*k
		kref, vref := d.u32(e), d.u32(e+4)
		if kref == None || vref == None {
			return ferr(e, "meta pair %d has an absent key or value", k)
		}
		if m.Meta[k].Key, err = d.str(kref, e); err != nil {
			return err
		}
		if m.Meta[k].Value, err = d.str(vref, e+4); err != nil {
			return err
		}
		if kv := m.Meta[k]; kv.Key == MetaInt8Rounding && kv.Value != RoundingDouble && kv.Value != RoundingSingle {
			return ferr(e+4, "meta %s is %q, want %q or %q", kv.Key, kv.Value, RoundingDouble, RoundingSingle)
		}
	}
	return nil
}

// nilIfEmpty keeps decoded models comparable with built ones, which leave
// empty lists nil.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
