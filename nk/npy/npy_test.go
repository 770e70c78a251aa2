package npy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	for _, shape := range [][]int{nil, {5}, {2, 3}, {1, 2, 2, 3}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i)*0.5 - 1
		}
		var buf bytes.Buffer
		require.NoError(t, Write(&buf, FromF32(shape, v)))
		assert.Zero(t, (buf.Len()-4*n)%64, "data starts 64-byte aligned")
		a, err := Read(&buf)
		require.NoError(t, err)
		assert.Equal(t, shape, a.Shape)
		got, err := a.F32()
		require.NoError(t, err)
		assert.Equal(t, v, got)
	}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, &Array{Descr: I8, Shape: []int{3}, Data: []byte{0x80, 0, 0x7f}}))
	a, err := Read(&buf)
	require.NoError(t, err)
	assert.Equal(t, &Array{Descr: I8, Shape: []int{3}, Data: []byte{0x80, 0, 0x7f}}, a)
}

// A file numpy wrote (testdata/gen/reference_outputs.py).
func TestReadNumpyFile(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "models", "mlp.input.npy"))
	require.NoError(t, err)
	defer f.Close()
	a, err := Read(f)
	require.NoError(t, err)
	assert.Equal(t, F32, a.Descr)
	assert.Equal(t, []int{3, 1, 64}, a.Shape)
	assert.Len(t, a.Data, 3*64*4)
}

// numpy reads what we write (skipped where numpy is missing).
func TestNumpyReadsOurFile(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("no /usr/bin/python3 with numpy")
	}
	path := filepath.Join(t.TempDir(), "a.npy")
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, FromF32([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6.5})))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	out, err := exec.Command("/usr/bin/python3", "-c",
		"import numpy,sys; a=numpy.load(sys.argv[1]); print(a.dtype, a.shape, a.sum())", path).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "float32 (2, 3) 21.5", strings.TrimSpace(string(out)))
}

func TestReadRejects(t *testing.T) {
	good := func(hdr string, data []byte) []byte {
		b := []byte("\x93NUMPY\x01\x00")
		b = append(b, byte(len(hdr)), byte(len(hdr)>>8))
		return append(append(b, hdr...), data...)
	}
	cases := map[string][]byte{
		"magic":     []byte("NOTNUMPY\x00\x00"),
		"version":   []byte("\x93NUMPY\x09\x00\x00\x00"),
		"fortran":   good("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }\n", make([]byte, 4)),
		"bigendian": good("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n", make([]byte, 4)),
		"object":    good("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }\n", make([]byte, 8)),
		"short":     good("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n", make([]byte, 8)),
		"huge":      good("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }\n", nil),
		"noshape":   good("{'descr': '<f4', 'fortran_order': False}\n", nil),
		"truncated": []byte("\x93NUMPY\x01\x00\xff\x00{'descr'"),
	}
	for name, b := range cases {
		_, err := Read(bytes.NewReader(b))
		assert.Error(t, err, name)
	}
	// The 'short' case names what was missing.
	_, err := Read(bytes.NewReader(cases["short"]))
	assert.ErrorContains(t, err, "needs 12 B of data, file has 8")
}

// Every dtype netkit tensors use round-trips through its From and accessor
// pair, and numpy reads the files as those dtypes with those values.
func TestIntegerDTypes(t *testing.T) {
	dir := t.TempDir()
	i8 := FromI8([]int{3}, []int8{-128, -1, 127})
	i16 := FromI16([]int{3}, []int16{-32768, -2, 32767})
	i32 := FromI32([]int{3}, []int32{-2147483648, -3, 2147483647})
	for name, a := range map[string]*Array{"i8": i8, "i16": i16, "i32": i32} {
		require.NoError(t, WriteFile(filepath.Join(dir, name+".npy"), a))
		b, err := ReadFile(filepath.Join(dir, name+".npy"))
		require.NoError(t, err)
		assert.Equal(t, a, b, name)
	}
	v8, err := i8.I8()
	require.NoError(t, err)
	assert.Equal(t, []int8{-128, -1, 127}, v8)
	v16, err := i16.I16()
	require.NoError(t, err)
	assert.Equal(t, []int16{-32768, -2, 32767}, v16)
	v32, err := i32.I32()
	require.NoError(t, err)
	assert.Equal(t, []int32{-2147483648, -3, 2147483647}, v32)
	_, err = i8.I32()
	assert.ErrorContains(t, err, "not int32")

	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("no /usr/bin/python3 with numpy")
	}
	out, err := exec.Command("/usr/bin/python3", "-c",
		"import numpy,sys; print(*[str(numpy.load(p).dtype)+':'+','.join(map(str,numpy.load(p))) for p in sys.argv[1:]])",
		filepath.Join(dir, "i8.npy"), filepath.Join(dir, "i16.npy"), filepath.Join(dir, "i32.npy")).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "int8:-128,-1,127 int16:-32768,-2,32767 int32:-2147483648,-3,2147483647", strings.TrimSpace(string(out)))
}
