package nkfile

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixCRC rewrites the checksum after a test mutated the image, so the
// mutation reaches the structural checks.
func fixCRC(b []byte) []byte {
	if len(b) >= HeaderSize {
		size := binary.LittleEndian.Uint32(b[12:])
		if uint64(size) <= uint64(len(b)) && size >= 12 {
			binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:size]))
		}
	}
	return b
}

func seq(n int, scale float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i%7-3) * scale
	}
	return v
}

// richModel exercises every record kind: const payloads, an absent
// optional input, per-tensor and per-channel quantization, metadata, two
// graph outputs and an NCHW-tagged input.
func richModel(t testing.TB) *Model {
	b := NewBuilder()
	x := b.Input("x", F32, 1, 6, 6, 2)
	b.m.Inputs[0].Layout = LayoutNCHW
	w := b.ConstF32("w", []int{4, 3, 3, 2}, seq(72, 0.25))
	b.m.Tensors[w].Quant = &Quant{Axis: 0, Scale: []float32{0.5, 0.25, 1, 2}, ZeroPoint: []int32{0, 1, -2, 3}}
	c := b.Conv2D("conv", x, w, -1, ConvParams{Window: Window{PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}}, ActRelu6)
	p := b.Pool(OpMaxPool2D, "pool", c, PoolParams{KernelH: 2, KernelW: 2, Window: Window{StrideH: 2, StrideW: 2}})
	g := b.Op(OpGlobalAvgPool, "gap", []int{p}, nil, ActNone)
	r := b.Reshape("flat", g, 1, 4)
	fw := b.ConstF32("fc.w", []int{3, 4}, seq(12, 0.5))
	fb := b.ConstF32("fc.b", []int{3}, []float32{0.1, -0.2, 0.3})
	b.m.Tensors[fb].Quant = &Quant{Axis: -1, Scale: []float32{0.125}, ZeroPoint: []int32{-7}}
	y := b.Dense("fc", r, fw, fb, ActNone)
	s := b.Op(OpSoftmax, "", []int{y}, F32Words(1), ActNone)
	b.Output(s, p)
	b.Meta("producer", "nkfile test")
	b.Meta("labels", "a\nb\nc")
	b.Meta("empty", "")
	m, err := b.Model()
	require.NoError(t, err)
	return m
}

func TestRoundTrip(t *testing.T) {
	m := richModel(t)
	img, err := Encode(m)
	require.NoError(t, err)
	got, err := Decode(img)
	require.NoError(t, err)
	assert.Equal(t, m, got)

	again, err := Encode(got)
	require.NoError(t, err)
	assert.Equal(t, img, again, "encoding is canonical")
}

func TestEncodeLayoutByHand(t *testing.T) {
	// One RELU on [1,4]: header 32 B, 4 section entries (64 B), TENSORS at
	// 96 (8 + 2*48 = 104 B), OPS at 200 (8 + 12 + 2 ids = 28 B), GRAPH at
	// 228 (8 + 2*8 = 24 B), STRINGS at 252: "\0x\0y\0" = 5 B, file 257 B.
	b := NewBuilder()
	x := b.Input("x", F32, 1, 4)
	y := b.Op(OpRelu, "y", []int{x}, nil, ActNone)
	b.Output(y)
	m, err := b.Model()
	require.NoError(t, err)
	img, err := Encode(m)
	require.NoError(t, err)

	le := binary.LittleEndian
	require.Len(t, img, 257)
	assert.Equal(t, "NKIT", string(img[:4]))
	assert.Equal(t, uint16(1), le.Uint16(img[4:]))
	assert.Equal(t, uint32(257), le.Uint32(img[12:]))
	assert.Equal(t, uint32(4), le.Uint32(img[16:]))
	wantSecs := [][3]uint32{{1, 96, 104}, {2, 200, 28}, {3, 228, 24}, {4, 252, 5}}
	for i, s := range wantSecs {
		e := img[32+16*i:]
		assert.Equal(t, s, [3]uint32{le.Uint32(e), le.Uint32(e[4:]), le.Uint32(e[8:])}, "section %d", i)
	}
	assert.Equal(t, []byte("\x00x\x00y\x00"), img[252:257])
	// Tensor 1 ("y"): name ref 3, f32, rank 2, dims 1 4, no payload, no quant.
	r := img[96+8+48:]
	assert.Equal(t, uint32(3), le.Uint32(r))
	assert.Equal(t, []byte{1, 2, 0, 0}, r[4:8])
	assert.Equal(t, []uint32{1, 4, 0, 0, 0, 0}, []uint32{le.Uint32(r[8:]), le.Uint32(r[12:]), le.Uint32(r[16:]), le.Uint32(r[20:]), le.Uint32(r[24:]), le.Uint32(r[28:])})
	assert.Equal(t, uint32(None), le.Uint32(r[32:]))
	assert.Equal(t, uint32(None), le.Uint32(r[40:]))
	// The op: type 8, 1 in, 1 out, name "y" (3), 0 params, in 0, out 1.
	o := img[208:]
	assert.Equal(t, []byte{8, 0, 1, 1}, o[:4])
	assert.Equal(t, uint32(3), le.Uint32(o[4:]))
	assert.Equal(t, []uint32{0, 1}, []uint32{le.Uint32(o[12:]), le.Uint32(o[16:])})
	// zlib's crc32 of bytes [12, 257).
	assert.Equal(t, crc32.Checksum(img[12:], crc32.MakeTable(0xEDB88320)), le.Uint32(img[8:]))
}

func TestPayloadsAligned(t *testing.T) {
	m := richModel(t)
	img, err := Encode(m)
	require.NoError(t, err)
	le := binary.LittleEndian
	toff := le.Uint32(img[32+4:])
	n := le.Uint32(img[toff:])
	consts := 0
	for i := range n {
		r := img[toff+8+48*i:]
		if r[6]&1 != 0 {
			consts++
			assert.Zero(t, le.Uint32(r[32:])%16, "tensor %d payload offset", i)
		}
	}
	assert.Equal(t, 3, consts)
}

func TestDecodeAcceptsLongerBufferHigherMinorUnknownSection(t *testing.T) {
	img, err := Encode(richModel(t))
	require.NoError(t, err)

	longer := append(append([]byte(nil), img...), 0xAA, 0xBB, 0xCC)
	_, err = Decode(longer)
	require.NoError(t, err)

	minor := append([]byte(nil), img...)
	binary.LittleEndian.PutUint16(minor[6:], 3)
	_, err = Decode(fixCRC(minor))
	require.NoError(t, err)

	// An unknown section kind appended at the end is skipped.
	m := richModel(t)
	ext := withExtraSection(t, m, 99, []byte{1, 2, 3, 4})
	got, err := Decode(ext)
	require.NoError(t, err)
	assert.Equal(t, m, got)
}

// withExtraSection re-lays an encoded model with one more section entry.
func withExtraSection(t *testing.T, m *Model, kind uint32, body []byte) []byte {
	img, err := Encode(m)
	require.NoError(t, err)
	le := binary.LittleEndian
	n := le.Uint32(img[16:])
	// Shift every section by 16 bytes to make room for one more table entry.
	out := make([]byte, 0, len(img)+32+len(body))
	out = append(out, img[:32]...)
	for i := range n {
		e := append([]byte(nil), img[32+16*i:32+16*i+16]...)
		le.PutUint32(e[4:], le.Uint32(e[4:])+16)
		out = append(out, e...)
	}
	extraOff := uint32(len(img) + 16)
	extraOff = (extraOff + 3) &^ 3
	var e [16]byte
	le.PutUint32(e[0:], kind)
	le.PutUint32(e[4:], extraOff)
	le.PutUint32(e[8:], uint32(len(body)))
	out = append(out, e[:]...)
	out = append(out, img[32+16*n:]...)
	// Payload offsets in tensor records move too.
	toff := le.Uint32(out[32+4:])
	for i := range le.Uint32(out[toff:]) {
		r := out[toff+8+48*i:]
		if r[6]&1 != 0 {
			le.PutUint32(r[32:], le.Uint32(r[32:])+16)
		}
	}
	for uint32(len(out)) < extraOff {
		out = append(out, 0)
	}
	out = append(out, body...)
	le.PutUint32(out[16:], n+1)
	le.PutUint32(out[12:], uint32(len(out)))
	return fixCRC(out)
}

func TestDecodeRejects(t *testing.T) {
	base, err := Encode(richModel(t))
	require.NoError(t, err)
	le := binary.LittleEndian
	toff := le.Uint32(base[32+4:])
	ooff := le.Uint32(base[48+4:])

	cases := []struct {
		name   string
		mutate func(b []byte) []byte
		off    int64
		msg    string
	}{
		{"short", func(b []byte) []byte { return b[:20] }, 0, "shorter than"},
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, 0, "bad magic"},
		{"major", func(b []byte) []byte { le.PutUint16(b[4:], 2); return fixCRC(b) }, 4, "version 2"},
		{"checksum", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, 8, "checksum"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, 12, "file_size"},
		{"flags", func(b []byte) []byte { le.PutUint32(b[20:], 1); return fixCRC(b) }, 20, "flags"},
		{"sections0", func(b []byte) []byte { le.PutUint32(b[16:], 0); return fixCRC(b) }, 16, "section_count"},
		{"sections65", func(b []byte) []byte { le.PutUint32(b[16:], 65); return fixCRC(b) }, 16, "section_count"},
		{"section past end", func(b []byte) []byte { le.PutUint32(b[32+8:], 1<<30); return fixCRC(b) }, int64(toff), "past the end"},
		{"section overlaps table", func(b []byte) []byte { le.PutUint32(b[32+4:], 36); return fixCRC(b) }, 36, "overlaps the header"},
		{"sections overlap", func(b []byte) []byte { le.PutUint32(b[48+4:], toff+8); return fixCRC(b) }, 48, "overlap"},
		{"duplicate kind", func(b []byte) []byte { le.PutUint32(b[48:], 1); return fixCRC(b) }, 48, "twice"},
		{"missing OPS", func(b []byte) []byte { le.PutUint32(b[48:], 50); return fixCRC(b) }, 16, "OPS is missing"},
		{"tensor count huge", func(b []byte) []byte { le.PutUint32(b[toff:], 0xFFFFFFFF); return fixCRC(b) }, int64(toff), "records need"},
		{"dtype", func(b []byte) []byte { b[toff+8+4] = 12; return fixCRC(b) }, int64(toff) + 12, "dtype"},
		{"rank", func(b []byte) []byte { b[toff+8+5] = 7; return fixCRC(b) }, int64(toff) + 13, "rank"},
		{"zero dim", func(b []byte) []byte { le.PutUint32(b[toff+8+8:], 0); return fixCRC(b) }, int64(toff) + 52, "element count word"},
		{"empty constant", func(b []byte) []byte { le.PutUint32(b[toff+8+48+8:], 0); return fixCRC(b) }, int64(toff) + 64, "dim 0 is 0"},
		{"op reads empty", func(b []byte) []byte {
			le.PutUint32(b[toff+8+8:], 0)
			le.PutUint32(b[toff+8+44:], 0)
			return fixCRC(b)
		}, int64(ooff) + 8, "which is empty"},
		{"dim overflow", func(b []byte) []byte {
			for k := range uint32(4) {
				le.PutUint32(b[toff+8+8+4*k:], 1<<24)
			}
			return fixCRC(b)
		}, int64(toff) + 16, "overflows"},
		{"string ref", func(b []byte) []byte { le.PutUint32(b[toff+8:], 1<<20); return fixCRC(b) }, int64(toff) + 8, "string ref"},
		{"payload misaligned", func(b []byte) []byte {
			r := toff + 8 + 48
			le.PutUint32(b[r+32:], le.Uint32(b[r+32:])+4)
			return fixCRC(b)
		}, int64(toff) + 8 + 48 + 32, "aligned"},
		{"payload size", func(b []byte) []byte {
			r := toff + 8 + 48
			le.PutUint32(b[r+36:], 4)
			return fixCRC(b)
		}, int64(toff) + 8 + 48 + 36, "needs 288 B"},
		{"op count", func(b []byte) []byte { le.PutUint32(b[ooff:], 1000); return fixCRC(b) }, int64(ooff), "cannot fit"},
		{"op type", func(b []byte) []byte { le.PutUint16(b[ooff+8:], 200); return fixCRC(b) }, int64(ooff) + 8, "unsupported op type 200"},
		{"op input id", func(b []byte) []byte { le.PutUint32(b[ooff+8+12:], 500); return fixCRC(b) }, int64(ooff) + 20, "tensor 500"},
		{"op reads before produced", func(b []byte) []byte {
			// conv's input becomes the pool output, which only op 1 produces.
			le.PutUint32(b[ooff+8+12:], 3)
			return fixCRC(b)
		}, int64(ooff) + 8, "before any op produces it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := c.mutate(append([]byte(nil), base...))
			m, err := Decode(img)
			require.Error(t, err)
			assert.Nil(t, m)
			var fe *FormatError
			require.True(t, errors.As(err, &fe), "error %v is not a *FormatError", err)
			assert.Contains(t, fe.Msg, c.msg)
			assert.Equal(t, c.off, fe.Off, "offset of %q", fe.Msg)
		})
	}
}

// Every prefix of a valid image and every single-byte corruption (with the
// checksum repaired) is either a valid model or a *FormatError.
func TestDecodeExhaustiveCorruption(t *testing.T) {
	img, err := Encode(richModel(t))
	require.NoError(t, err)
	for n := range len(img) {
		_, err := Decode(img[:n])
		var fe *FormatError
		require.True(t, errors.As(err, &fe), "prefix %d: %v", n, err)
	}
	for i := 12; i < len(img); i++ {
		for _, x := range []byte{0x01, 0x80, 0xFF} {
			b := append([]byte(nil), img...)
			b[i] ^= x
			m, err := Decode(fixCRC(b))
			if err != nil {
				var fe *FormatError
				require.True(t, errors.As(err, &fe), "byte %d ^ %#x: %v", i, x, err)
				continue
			}
			_, err = Encode(m)
			require.NoError(t, err, "byte %d ^ %#x decoded to a model Encode rejects", i, x)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	mk := func(edit func(m *Model)) error {
		m := richModel(t)
		edit(m)
		_, err := Encode(m)
		return err
	}
	cases := []struct {
		name string
		edit func(m *Model)
		msg  string
	}{
		{"dtype", func(m *Model) { m.Tensors[0].DType = 0 }, "unknown dtype"},
		{"rank", func(m *Model) { m.Tensors[0].Shape = []int{1, 1, 1, 1, 1, 1, 1} }, "rank 7"},
		{"dim", func(m *Model) { m.Tensors[0].Shape = []int{1, -1} }, "dim -1"},
		{"empty read", func(m *Model) { m.Tensors[0].Shape = []int{1, 0} }, "which is empty"},
		{"empty constant", func(m *Model) { m.Tensors[1].Shape[0], m.Tensors[1].Data, m.Tensors[1].Quant = 0, []byte{}, nil }, "dim 0 outside"},
		{"payload", func(m *Model) { m.Tensors[1].Data = m.Tensors[1].Data[:8] }, "payload is 8 B"},
		{"quant count", func(m *Model) { m.Tensors[1].Quant.Scale = m.Tensors[1].Quant.Scale[:2] }, "scales"},
		{"quant axis", func(m *Model) { m.Tensors[1].Quant.Axis = 4 }, "axis 4"},
		{"op type", func(m *Model) { m.Ops[0].Type = 99 }, "unknown op type"},
		{"op id", func(m *Model) { m.Ops[0].Inputs[0] = 100 }, "out of range"},
		{"no outputs", func(m *Model) { m.Ops[0].Outputs = nil }, "0 outputs"},
		{"writes const", func(m *Model) { m.Ops[0].Outputs[0] = 1 }, "writes constant"},
		{"writes input", func(m *Model) { m.Ops[0].Outputs[0] = 0 }, "already a graph input"},
		{"order", func(m *Model) { m.Ops[0], m.Ops[1] = m.Ops[1], m.Ops[0] }, "before any op produces"},
		{"no graph output", func(m *Model) { m.Outputs = nil }, "0 outputs"},
		{"const input", func(m *Model) { m.Inputs = append(m.Inputs, IO{Tensor: 1}) }, "is constant"},
		{"dup input", func(m *Model) { m.Inputs = append(m.Inputs, IO{Tensor: 0}) }, "twice"},
		{"unproduced output", func(m *Model) {
			m.Tensors = append(m.Tensors, Tensor{DType: F32, Shape: []int{1}})
			m.Outputs = append(m.Outputs, IO{Tensor: len(m.Tensors) - 1})
		}, "never produced"},
		{"nul name", func(m *Model) { m.Tensors[0].Name = "a\x00b" }, "NUL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := mk(c.edit)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
}

func TestParamsRoundTrip(t *testing.T) {
	p := ConvParams{Window: Window{StrideH: 2, StrideW: 1, PadTop: 1, PadLeft: 0, PadBottom: 2, PadRight: 3}, Groups: 4, Clamp: ClampOf(ActRelu6)}
	got, err := ParseConvParams(OpConv2D, p.Words())
	require.NoError(t, err)
	p.DilationH, p.DilationW = 1, 1 // zero means 1
	assert.Equal(t, p, got)
	assert.Equal(t, ActRelu6, got.Clamp.Act())
	assert.Equal(t, ActRelu, ClampOf(ActRelu).Act())
	assert.Equal(t, ActNone, NoClamp.Act())
	assert.Equal(t, ActClamp, Clamp{-1, 1}.Act())
	// relu is [0, +inf] as raw words: 0x00000000, 0x7F800000.
	assert.Equal(t, []uint32{0, 0x7F800000}, ClampWords(ClampOf(ActRelu)))
	assert.Equal(t, []uint32{0xFF800000, 0x7F800000}, ClampWords(NoClamp))

	pp := PoolParams{KernelH: 3, KernelW: 3, Window: Window{StrideH: 2, StrideW: 2, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1, DilationH: 1, DilationW: 1}, CountIncludePad: true, Clamp: NoClamp}
	words := pp.Words(OpAvgPool2D)
	require.Len(t, words, 11)
	gotp, err := ParsePoolParams(OpAvgPool2D, words)
	require.NoError(t, err)
	assert.Equal(t, pp, gotp)
	assert.Len(t, pp.Words(OpMaxPool2D), 10)

	// TF SAME on 7 wide, kernel 3, stride 2: out 4, total pad 2 -> 1/1;
	// on 8 wide: out 4, total pad 1 -> 0/1.
	w := Window{StrideH: 2, StrideW: 2}.SamePads(7, 8, 3, 3)
	assert.Equal(t, [4]int{1, 0, 1, 1}, [4]int{w.PadTop, w.PadLeft, w.PadBottom, w.PadRight})
}
