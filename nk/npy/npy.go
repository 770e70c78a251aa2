// Package npy reads and writes NumPy .npy files (format versions 1.0, 2.0
// and 3.0) holding little-endian numeric arrays in C order: the inputs and
// outputs of netkit models (float32, int8, int16, int32), and float64,
// int64 and uint8 arrays to read. It is pure Go and needs neither cgo nor
// the C core, so it serves users of package nk and of package nkc alike.
//
// An Array keeps its elements as raw little-endian bytes, the form
// nk.Model.RunRaw takes and returns; F32, I8, I16 and I32 decode them and
// FromF32, FromI8, FromI16 and FromI32 build arrays from Go slices.
package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

const magic = "\x93NUMPY"

// maxHeader bounds the header a reader accepts (numpy itself caps it near 10 KiB).
const maxHeader = 1 << 16

// Array is an n-dimensional array: Data holds the elements in C order,
// little-endian, as described by Descr ("<f4", "|i1", ...).
type Array struct {
	Descr string
	Shape []int
	Data  []byte
}

// The descrs this package reads and writes, with their element sizes.
var itemSize = map[string]int{
	"<f4": 4, "<f8": 8, "<f2": 2, "|i1": 1, "<i2": 2, "<i4": 4, "<i8": 8, "|u1": 1, "<u2": 2, "<u4": 4, "<u8": 8,
}

// Descriptors of the element types netkit tensors use.
const (
	F32 = "<f4"
	I8  = "|i1"
	I16 = "<i2"
	I32 = "<i4"
	U8  = "|u1"
	U16 = "<u2"
	U32 = "<u4"
	I64 = "<i8"
	U64 = "<u8"
	F16 = "<f2"
	F64 = "<f8"
)

// Elems is the element count (1 for a 0-d array).
func (a *Array) Elems() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// FromF32 wraps float32 values in an array of the given shape.
func FromF32(shape []int, v []float32) *Array {
	data := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(f))
	}
	return &Array{Descr: F32, Shape: shape, Data: data}
}

// FromI8 wraps int8 values in an array of the given shape.
func FromI8(shape []int, v []int8) *Array {
	data := make([]byte, len(v))
	for i, x := range v {
		data[i] = byte(x)
	}
	return &Array{Descr: I8, Shape: shape, Data: data}
}

// FromI16 wraps int16 values in an array of the given shape.
func FromI16(shape []int, v []int16) *Array {
	data := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(data[2*i:], uint16(x))
	}
	return &Array{Descr: I16, Shape: shape, Data: data}
}

// FromI32 wraps int32 values in an array of the given shape.
func FromI32(shape []int, v []int32) *Array {
	data := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(x))
	}
	return &Array{Descr: I32, Shape: shape, Data: data}
}

// I8 returns the elements of an int8 array.
func (a *Array) I8() ([]int8, error) {
	if err := a.want(I8, "int8"); err != nil {
		return nil, err
	}
	v := make([]int8, len(a.Data))
	for i, b := range a.Data {
		v[i] = int8(b)
	}
	return v, nil
}

// I16 returns the elements of an int16 array.
func (a *Array) I16() ([]int16, error) {
	if err := a.want(I16, "int16"); err != nil {
		return nil, err
	}
	v := make([]int16, len(a.Data)/2)
	for i := range v {
		v[i] = int16(binary.LittleEndian.Uint16(a.Data[2*i:]))
	}
	return v, nil
}

// I32 returns the elements of an int32 array.
func (a *Array) I32() ([]int32, error) {
	if err := a.want(I32, "int32"); err != nil {
		return nil, err
	}
	v := make([]int32, len(a.Data)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(a.Data[4*i:]))
	}
	return v, nil
}

func (a *Array) want(descr, name string) error {
	if a.Descr != descr {
		return fmt.Errorf("npy: array holds %s, not %s (%s)", a.Descr, name, descr)
	}
	return nil
}

// ReadFile reads the one array of the .npy file at path.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := Read(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// WriteFile writes a to a new .npy file at path (replacing any file there).
func WriteFile(path string, a *Array) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := Write(w, a); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// F32 returns the elements of a float32 array.
func (a *Array) F32() ([]float32, error) {
	if a.Descr != F32 {
		return nil, fmt.Errorf("npy: array holds %s, not float32 (<f4)", a.Descr)
	}
	v := make([]float32, len(a.Data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
	}
	return v, nil
}

// Write writes a as a version 1.0 .npy file (2.0 if the header needs it).
func Write(w io.Writer, a *Array) error {
	size, ok := itemSize[a.Descr]
	if !ok {
		return fmt.Errorf("npy: unsupported descr %q", a.Descr)
	}
	if a.Elems()*size != len(a.Data) {
		return fmt.Errorf("npy: shape %v of %s needs %d B, have %d", a.Shape, a.Descr, a.Elems()*size, len(a.Data))
	}
	dims := make([]string, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := strings.Join(dims, ", ")
	if len(a.Shape) == 1 {
		shape += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", a.Descr, shape)
	// Pad with spaces and end with '\n' so the data starts 64-byte aligned.
	version, lenBytes := byte(1), 2
	total := len(magic) + 2 + lenBytes + len(dict) + 1
	if total > math.MaxUint16 {
		version, lenBytes = 2, 4
		total += 2
	}
	pad := (64 - total%64) % 64
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	var buf bytes.Buffer
	buf.WriteString(magic)
	buf.WriteByte(version)
	buf.WriteByte(0)
	if lenBytes == 2 {
		_ = binary.Write(&buf, binary.LittleEndian, uint16(len(hdr)))
	} else {
		_ = binary.Write(&buf, binary.LittleEndian, uint32(len(hdr)))
	}
	buf.WriteString(hdr)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(a.Data)
	return err
}

// Read reads one .npy array. It rejects Fortran order, big-endian and
// object arrays, and a data size that disagrees with the shape.
func Read(r io.Reader) (*Array, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("npy: reading the preamble: %w", err)
	}
	if string(pre[:6]) != magic {
		return nil, errors.New("npy: not a .npy file (bad magic)")
	}
	var hlen int
	switch pre[6] {
	case 1:
		var n [2]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return nil, fmt.Errorf("npy: reading the header length: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint16(n[:]))
	case 2, 3:
		var n [4]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return nil, fmt.Errorf("npy: reading the header length: %w", err)
		}
		if v := binary.LittleEndian.Uint32(n[:]); v <= maxHeader {
			hlen = int(v)
		} else {
			return nil, fmt.Errorf("npy: header of %d B is too long", v)
		}
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", pre[6], pre[7])
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("npy: reading the header: %w", err)
	}
	a, err := parseHeader(string(hdr))
	if err != nil {
		return nil, err
	}
	size := itemSize[a.Descr]
	n := uint64(size)
	for _, d := range a.Shape {
		n *= uint64(d)
		if n > math.MaxInt32 {
			return nil, fmt.Errorf("npy: array of shape %v is too large", a.Shape)
		}
	}
	// Read what the shape promises, growing as bytes arrive, so a lying
	// header cannot make us allocate more than the file holds.
	var data bytes.Buffer
	got, err := io.CopyN(&data, r, int64(n))
	if err != nil {
		return nil, fmt.Errorf("npy: shape %v of %s needs %d B of data, file has %d", a.Shape, a.Descr, n, got)
	}
	a.Data = data.Bytes()
	return a, nil
}

// parseHeader reads numpy's header dict: {'descr': ..., 'fortran_order': ..., 'shape': (...), }.
func parseHeader(h string) (*Array, error) {
	h = strings.TrimSpace(h)
	if !strings.HasPrefix(h, "{") || !strings.HasSuffix(h, "}") {
		return nil, fmt.Errorf("npy: header %q is not a dict", h)
	}
	a := &Array{}
	descr, err := field(h, "descr")
	if err != nil {
		return nil, err
	}
	descr = strings.Trim(descr, "'\"")
	if strings.HasPrefix(descr, "=") {
		descr = "<" + descr[1:] // native order: every supported host is little-endian
	}
	if _, ok := itemSize[descr]; !ok {
		return nil, fmt.Errorf("npy: unsupported dtype %q (want little-endian float or int)", descr)
	}
	a.Descr = descr
	order, err := field(h, "fortran_order")
	if err != nil {
		return nil, err
	}
	if order != "False" {
		return nil, errors.New("npy: Fortran-order arrays are not supported")
	}
	shape, err := field(h, "shape")
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(shape, "(") || !strings.HasSuffix(shape, ")") {
		return nil, fmt.Errorf("npy: bad shape %q", shape)
	}
	for _, s := range strings.Split(shape[1:len(shape)-1], ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		s = strings.TrimSuffix(s, "L") // Python 2 longs
		d, err := strconv.Atoi(s)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("npy: bad dimension %q in shape %s", s, shape)
		}
		a.Shape = append(a.Shape, d)
	}
	return a, nil
}

// field returns the raw value text of key in the header dict.
func field(h, key string) (string, error) {
	for _, q := range []string{"'", "\""} {
		k := q + key + q
		i := strings.Index(h, k)
		if i < 0 {
			continue
		}
		rest := strings.TrimSpace(h[i+len(k):])
		if !strings.HasPrefix(rest, ":") {
			break
		}
		rest = strings.TrimSpace(rest[1:])
		end := 0
		switch rest[0:min(1, len(rest))] {
		case "(":
			end = strings.IndexByte(rest, ')') + 1
		case "'", "\"":
			end = strings.IndexByte(rest[1:], rest[0]) + 2
		default:
			end = strings.IndexAny(rest, ",}")
		}
		if end <= 0 {
			break
		}
		return strings.TrimSpace(rest[:end]), nil
	}
	return "", fmt.Errorf("npy: header has no %q", key)
}
