package engine

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/netkit/netkit/internal/nkfile"
)

const metaBatch = nkfile.MetaBatch

// batchSize is the samples one invoke runs: META batch (netkit convert
// --batch N) when every input and output leads with it, else 1.
func batchSize(meta unsafe.Pointer, ins, outs []TensorInfo) int {
	if meta == nil {
		return 1
	}
	n, err := strconv.Atoi(GoString(meta))
	if err != nil || n < 1 {
		return 1
	}
	for _, t := range append(append([]TensorInfo(nil), ins...), outs...) {
		if len(t.Shape) == 0 || t.Shape[0] != n {
			return 1
		}
	}
	return n
}

// runBatchRaw runs the samples in ins (each holding the same number of
// samples of its input, back to back) Batch at a time, the last group
// padded with zeros, and writes the samples' outputs to outs.
func (x *exec) runBatchRaw(ins, outs [][]byte) error {
	if err := x.checkCounts(len(ins), len(outs)); err != nil {
		return err
	}
	b := x.batch
	n := -1
	for i, t := range x.infoIn {
		per := t.Bytes() / b
		if per == 0 { // an empty input holds no bytes for any number of samples
			if len(ins[i]) != 0 {
				return errorf(StatusShape, fmt.Sprintf("netkit: input %d %q is empty (shape %v), got %d B", i, t.Name, t.Shape, len(ins[i])))
			}
			continue
		}
		if len(ins[i]) == 0 || len(ins[i])%per != 0 {
			return errorf(StatusShape, fmt.Sprintf("netkit: input %d %q: %d B is not a whole number of samples of %d B (shape %v %v, %d per invoke)", i, t.Name, len(ins[i]), per, t.Shape, t.DType, b))
		}
		if k := len(ins[i]) / per; n < 0 {
			n = k
		} else if k != n {
			return errorf(StatusShape, fmt.Sprintf("netkit: input %d %q holds %d samples, the inputs before it %d", i, t.Name, k, n))
		}
	}
	n = max(n, 1) // every input is empty: one sample
	for i, t := range x.infoOut {
		if want := n * (t.Bytes() / b); len(outs[i]) != want {
			return errorf(StatusShape, fmt.Sprintf("netkit: output %d %q: got %d B, want %d for %d samples (shape %v %v, %d per invoke)", i, t.Name, len(outs[i]), want, n, t.Shape, t.DType, b))
		}
	}
	for first := 0; first < n; first += b {
		k := min(b, n-first) // samples in this invoke
		for i, t := range x.infoIn {
			per := t.Bytes() / b
			dst := unsafe.Slice((*byte)(x.in[i]), t.Bytes())
			copy(dst, ins[i][first*per:(first+k)*per])
			clear(dst[k*per:])
		}
		if err := x.call(); err != nil {
			return err
		}
		for i, t := range x.infoOut {
			per := t.Bytes() / b
			copy(outs[i][first*per:(first+k)*per], unsafe.Slice((*byte)(x.out[i]), k*per))
		}
	}
	return nil
}

// runBatch is runBatchRaw for one f32 input and output.
func (x *exec) runBatch(in, out []float32) error {
	if len(x.in) != 1 || len(x.out) != 1 {
		return errorf(StatusArg, fmt.Sprintf("netkit: RunBatch needs one input and one output, the model has %d and %d; use RunBatchRaw", len(x.in), len(x.out)))
	}
	for i, t := range []*TensorInfo{&x.infoIn[0], &x.infoOut[0]} {
		if t.DType != F32 {
			return errorf(StatusDType, fmt.Sprintf("netkit: %s %q is %v, not f32; use RunBatchRaw", []string{"input", "output"}[i], t.Name, t.DType))
		}
	}
	return x.runBatchRaw([][]byte{f32Bytes(in)}, [][]byte{f32Bytes(out)})
}

func f32Bytes(v []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

// Batch is the number of samples one invoke runs: N for a model converted
// with --batch N (META batch; every input and output then leads with N),
// else 1. RunBatch takes any number of samples either way.
func (m *Model) Batch() int { return m.s.def.batch }

// RunBatch runs k samples in one call: in holds k samples of the single f32
// input back to back (k times its elements divided by Batch), out gets the
// k samples of the output. k is any count from 1: a batch model runs
// Batch samples per invoke (the last invoke padded with zeros), any other
// one sample per invoke, so k = Batch() is a single invoke.
func (m *Model) RunBatch(in, out []float32) error {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	return st.def.runBatch(in, out)
}

// RunBatchRaw is RunBatch for any number of inputs and outputs of any
// dtype, as raw little-endian bytes: one slice per tensor, all holding the
// same number of samples.
func (m *Model) RunBatchRaw(ins, outs [][]byte) error {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	return st.def.runBatchRaw(ins, outs)
}

// Batch is Model.Batch.
func (s *Session) Batch() int { return s.s.x.batch }

// RunBatch is Model.RunBatch on this session's context.
func (s *Session) RunBatch(in, out []float32) error {
	ss := s.s
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return ErrClosed
	}
	return ss.x.runBatch(in, out)
}

// RunBatchRaw is Model.RunBatchRaw on this session's context.
func (s *Session) RunBatchRaw(ins, outs [][]byte) error {
	ss := s.s
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return ErrClosed
	}
	return ss.x.runBatchRaw(ins, outs)
}
