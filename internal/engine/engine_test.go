package engine

import (
	"errors"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatusIsSentinel(t *testing.T) {
	var err error = &Error{Status: StatusArenaOverflow, Op: 3, Message: "arena overflow: 16384 B"}
	assert.ErrorIs(t, err, ErrArenaOverflow)
	assert.NotErrorIs(t, err, ErrFormat)
	assert.Equal(t, "arena overflow: 16384 B", err.Error())

	wrapped := fmt.Errorf("loading: %w", err)
	var e *Error
	require.ErrorAs(t, wrapped, &e)
	assert.Equal(t, 3, e.Op)

	assert.ErrorIs(t, StatusUnsupported, errors.ErrUnsupported)
	assert.NotErrorIs(t, StatusShape, errors.ErrUnsupported)
	assert.Equal(t, "netkit: shape mismatch", StatusShape.Error())
	assert.Equal(t, "netkit: status 99", Status(99).Error())
	assert.Equal(t, "netkit: invalid argument", (&Error{Status: StatusArg}).Error())
}

func TestErrClosedIsState(t *testing.T) {
	assert.ErrorIs(t, ErrClosed, ErrState)
	assert.NotErrorIs(t, ErrState, ErrClosed)
	assert.NotErrorIs(t, ErrClosed, ErrArg)
}

func TestCErrorConversion(t *testing.T) {
	ce := CError{Status: int32(StatusArenaOverflow), OpIndex: 2, Requested: 4096, FreeBytes: 100, Capacity: 8192}
	copy(ce.Message[:], "arena overflow: 4096 B\x00garbage")
	e := cError(StatusArenaOverflow, &ce)
	assert.Equal(t, &Error{Status: StatusArenaOverflow, Op: 2, Requested: 4096, Free: 100, Capacity: 8192,
		Message: "arena overflow: 4096 B"}, e)

	// A status with an untouched record: no op, the status name as message.
	e = cError(StatusIO, &CError{})
	assert.Equal(t, -1, e.Op)
	assert.Equal(t, "netkit: i/o error", e.Error())
}

func TestDType(t *testing.T) {
	for _, c := range []struct {
		d    DType
		name string
		size int
	}{{F32, "f32", 4}, {I8, "i8", 1}, {I16, "i16", 2}, {I32, "i32", 4}, {0, "dtype(0)", 0}} {
		assert.Equal(t, c.name, c.d.String())
		assert.Equal(t, c.size, c.d.Size())
	}
}

func TestTensorInfoSizes(t *testing.T) {
	ti := TensorInfo{Shape: []int{1, 28, 28, 3}, DType: I16}
	assert.Equal(t, 2352, ti.Elems())
	assert.Equal(t, 4704, ti.Bytes())
	assert.Equal(t, 1, TensorInfo{DType: F32}.Elems(), "a scalar has one element")
}

func TestAlignedCopiesOnlyMisaligned(t *testing.T) {
	buf := make([]byte, 64)
	for i := range buf {
		buf[i] = byte(i)
	}
	require.Zero(t, uintptr(unsafe.Pointer(&buf[0]))%16, "make of 64 B is 16-aligned")
	a := aligned(buf)
	assert.Same(t, &buf[0], &a[0], "an aligned slice is used in place")

	mis := buf[3:40]
	b := aligned(mis)
	assert.Zero(t, uintptr(unsafe.Pointer(&b[0]))%16)
	assert.NotSame(t, &mis[0], &b[0])
	assert.Equal(t, mis, b)
}

func TestCStrings(t *testing.T) {
	assert.Equal(t, "conv2d", cstring([]byte("conv2d\x00\x00xx")))
	assert.Equal(t, "full", cstring([]byte("full")))
	c := CString("labels")
	assert.Equal(t, []byte("labels\x00"), c)
	assert.Equal(t, "labels", GoString(unsafe.Pointer(&c[0])))
	assert.Equal(t, "", GoString(nil))
}

func TestOptions(t *testing.T) {
	o := collect([]Option{WithArenaSize(4096), nil, WithLibrary("/x/libnetkit.so")})
	assert.Equal(t, options{arenaSize: 4096, library: "/x/libnetkit.so"}, o)
}
