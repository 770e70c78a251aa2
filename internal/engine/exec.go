package engine

import (
	"fmt"
	"unsafe"
)

// exec runs one execution context (a model's default context or a
// Session's): the I/O tensors' data pointers are fixed for the context's
// life, so a run copies in, makes one C call, and copies out.
type exec struct {
	invoke  func(h unsafe.Pointer, e *CError) Status
	profile profiler                      // the invoke that times each op (profile.go)
	reset   func(h unsafe.Pointer) Status // zeroes the context's STATE tensors
	batch   int                           // samples per invoke (batch.go)
	handle  unsafe.Pointer
	in, out []unsafe.Pointer // data of each I/O tensor (C memory)
	infoIn  []TensorInfo
	infoOut []TensorInfo
	cerr    *CError // heap-allocated once, so a run allocates nothing
}

type tensorFunc func(h unsafe.Pointer, i int32, t *CTensor) Status

func newExec(b *Backend, h unsafe.Pointer, input, output tensorFunc,
	invoke func(unsafe.Pointer, *CError) Status, nin, nout int32) (exec, error) {
	x := exec{invoke: invoke, handle: h, cerr: new(CError)}
	var err error
	if x.in, x.infoIn, err = views(h, input, nin, "input"); err != nil {
		return exec{}, err
	}
	if x.out, x.infoOut, err = views(h, output, nout, "output"); err != nil {
		return exec{}, err
	}
	return x, nil
}

func views(h unsafe.Pointer, get tensorFunc, n int32, what string) ([]unsafe.Pointer, []TensorInfo, error) {
	data := make([]unsafe.Pointer, n)
	infos := make([]TensorInfo, n)
	var t CTensor
	for i := range n {
		if s := get(h, i, &t); s != StatusOK {
			return nil, nil, errorf(s, fmt.Sprintf("netkit: cannot read %s %d: %v", what, i, s))
		}
		info := TensorInfo{
			Name:      GoString(t.Name),
			Shape:     make([]int, t.Rank),
			DType:     DType(t.DType),
			Layout:    Layout(t.Layout),
			Scale:     t.QuantScale,
			ZeroPoint: t.QuantZeroPoint,
		}
		for d := range info.Shape {
			info.Shape[d] = int(t.Dims[d])
		}
		if uint64(info.Bytes()) != t.Bytes {
			return nil, nil, errorf(StatusState, fmt.Sprintf("netkit: %s %d %q: %d B for shape %v %v", what, i, info.Name, t.Bytes, info.Shape, info.DType))
		}
		data[i], infos[i] = t.Data, info
	}
	return data, infos, nil
}

func (x *exec) call() error {
	if s := x.invoke(x.handle, x.cerr); s != StatusOK {
		return cError(s, x.cerr)
	}
	return nil
}

func (x *exec) run(in, out []float32) error {
	if len(x.in) != 1 || len(x.out) != 1 {
		return errorf(StatusArg, fmt.Sprintf("netkit: Run needs one input and one output, the model has %d and %d; use RunMulti", len(x.in), len(x.out)))
	}
	if err := checkF32(&x.infoIn[0], len(in), "input", 0); err != nil {
		return err
	}
	if err := checkF32(&x.infoOut[0], len(out), "output", 0); err != nil {
		return err
	}
	copy(unsafe.Slice((*float32)(x.in[0]), len(in)), in)
	if err := x.call(); err != nil {
		return err
	}
	copy(out, unsafe.Slice((*float32)(x.out[0]), len(out)))
	return nil
}

func (x *exec) runMulti(ins, outs [][]float32) error {
	if err := x.checkCounts(len(ins), len(outs)); err != nil {
		return err
	}
	for i := range ins {
		if err := checkF32(&x.infoIn[i], len(ins[i]), "input", i); err != nil {
			return err
		}
	}
	for i := range outs {
		if err := checkF32(&x.infoOut[i], len(outs[i]), "output", i); err != nil {
			return err
		}
	}
	for i, in := range ins {
		copy(unsafe.Slice((*float32)(x.in[i]), len(in)), in)
	}
	if err := x.call(); err != nil {
		return err
	}
	for i, out := range outs {
		copy(out, unsafe.Slice((*float32)(x.out[i]), len(out)))
	}
	return nil
}

func (x *exec) runRaw(ins, outs [][]byte) error { return x.runRawWith(ins, outs, x.call) }

// runRawWith is runRaw with call as the C invoke.
func (x *exec) runRawWith(ins, outs [][]byte, call func() error) error {
	if err := x.checkCounts(len(ins), len(outs)); err != nil {
		return err
	}
	for i := range ins {
		if err := checkBytes(&x.infoIn[i], len(ins[i]), "input", i); err != nil {
			return err
		}
	}
	for i := range outs {
		if err := checkBytes(&x.infoOut[i], len(outs[i]), "output", i); err != nil {
			return err
		}
	}
	for i, in := range ins {
		copy(unsafe.Slice((*byte)(x.in[i]), len(in)), in)
	}
	if err := call(); err != nil {
		return err
	}
	for i, out := range outs {
		copy(out, unsafe.Slice((*byte)(x.out[i]), len(out)))
	}
	return nil
}

func (x *exec) checkCounts(nin, nout int) error {
	if nin != len(x.in) || nout != len(x.out) {
		return errorf(StatusArg, fmt.Sprintf("netkit: got %d inputs and %d outputs, the model has %d and %d", nin, nout, len(x.in), len(x.out)))
	}
	return nil
}

func checkF32(t *TensorInfo, n int, what string, i int) error {
	if t.DType != F32 {
		return errorf(StatusDType, fmt.Sprintf("netkit: %s %d %q is %v, not f32; use RunRaw", what, i, t.Name, t.DType))
	}
	if n != t.Elems() {
		return errorf(StatusShape, fmt.Sprintf("netkit: %s %d %q: got %d values, want %d (shape %v)", what, i, t.Name, n, t.Elems(), t.Shape))
	}
	return nil
}

func checkBytes(t *TensorInfo, n int, what string, i int) error {
	if n != t.Bytes() {
		return errorf(StatusShape, fmt.Sprintf("netkit: %s %d %q: got %d B, want %d (shape %v %v)", what, i, t.Name, n, t.Bytes(), t.Shape, t.DType))
	}
	return nil
}

func (x *exec) resetState() error {
	if s := x.reset(x.handle); s != StatusOK {
		return s
	}
	return nil
}
