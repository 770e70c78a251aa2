package nkfile

import (
	"fmt"
	"math"
	"slices"
)

// RNNAct is a gate activation of LSTM and GRU (the kind codes of their
// params, docs/NK_FORMAT.md).
type RNNAct struct {
	Kind        RNNActKind
	Alpha, Beta float32
}

// RNNActKind names an activation function of LSTM and GRU.
type RNNActKind int32

// The activation kinds LSTM and GRU support.
const (
	RNNSigmoid RNNActKind = iota
	RNNTanh
	RNNRelu
	RNNHardSigmoid
	RNNLeakyRelu
	rnnActEnd
)

// RNN holds the params of LSTM and GRU.
type RNN struct {
	Direction         int // 0 forward, 1 reverse, 2 bidirectional
	BatchFirst        bool
	Clip              float32 // +Inf: none
	LinearBeforeReset bool    // GRU
	// Acts are f, g, h of direction 0 then of direction 1 (GRU: h unused).
	Acts    [6]RNNAct
	SeqLens []int // one per batch entry, or nil: every sequence is whole
}

// rnnFixedWords is the number of param words before the sequence lengths.
const rnnFixedWords = 22

// Words encodes the params.
func (r RNN) Words() []uint32 {
	w := I32Words(r.Direction, b2i(r.BatchFirst))
	w = append(w, F32Word(r.Clip), I32Word(b2i(r.LinearBeforeReset)))
	for _, a := range r.Acts {
		w = append(w, I32Word(int(a.Kind)), F32Word(a.Alpha), F32Word(a.Beta))
	}
	return append(w, I32Words(r.SeqLens...)...)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DecodeRNN reads LSTM/GRU params.
func DecodeRNN(w []uint32) (RNN, error) {
	var r RNN
	if len(w) < rnnFixedWords {
		return r, fmt.Errorf("%d params, want at least %d", len(w), rnnFixedWords)
	}
	r.Direction, r.BatchFirst = WordI32(w[0]), WordI32(w[1]) == 1
	r.Clip, r.LinearBeforeReset = WordF32(w[2]), WordI32(w[3]) == 1
	if r.Direction < 0 || r.Direction > 2 || WordI32(w[1])&^1 != 0 || WordI32(w[3])&^1 != 0 {
		return r, fmt.Errorf("direction must be 0..2, layout and linear_before_reset 0 or 1")
	}
	if !(r.Clip > 0) {
		return r, fmt.Errorf("clip must be > 0 (+inf: none)")
	}
	for k := range r.Acts {
		a := RNNAct{RNNActKind(WordI32(w[4+3*k])), WordF32(w[5+3*k]), WordF32(w[6+3*k])}
		if a.Kind < 0 || a.Kind >= rnnActEnd || !finite(a.Alpha) || !finite(a.Beta) {
			return r, fmt.Errorf("activation %d: unknown kind or non-finite alpha/beta", k)
		}
		r.Acts[k] = a
	}
	for _, v := range w[rnnFixedWords:] {
		r.SeqLens = append(r.SeqLens, WordI32(v))
	}
	return r, nil
}

// DefaultRNNActs are ONNX's defaults: sigmoid, tanh, tanh per direction.
func DefaultRNNActs() [6]RNNAct {
	s, t := RNNAct{Kind: RNNSigmoid}, RNNAct{Kind: RNNTanh}
	return [6]RNNAct{s, t, t, s, t, t}
}

// NoClip is the clip param of an LSTM/GRU without a cell clip.
var NoClip = float32(math.Inf(1))

// rnnGates is the number of gate blocks of W and R.
func rnnGates(t OpType) int {
	if t == OpLSTM {
		return 4
	}
	return 3
}

// RNNShapes returns the output shapes of an LSTM (Y, Y_h, Y_c) or GRU (Y,
// Y_h) given its input shapes (nil for an absent optional input).
func RNNShapes(op *Op, in [][]int) ([][]int, error) {
	p, err := DecodeRNN(op.Params)
	if err != nil {
		return nil, err
	}
	x, w := in[0], in[1]
	if len(x) != 3 || len(w) != 3 {
		return nil, fmt.Errorf("x %v and W %v must have rank 3", x, w)
	}
	g := rnnGates(op.Type)
	seq, batch := x[0], x[1]
	if p.BatchFirst {
		seq, batch = batch, seq
	}
	dirs := 1
	if p.Direction == 2 {
		dirs = 2
	}
	h := w[1] / g
	if h < 1 || w[1] != g*h {
		return nil, fmt.Errorf("W %v is not [directions, %d*hidden, input]", w, g)
	}
	state := []int{dirs, batch, h}
	y := []int{seq, dirs, batch, h}
	if p.BatchFirst {
		state = []int{batch, dirs, h}
		y = []int{batch, seq, dirs, h}
	}
	want := [][]int{x, {dirs, g * h, x[2]}, {dirs, g * h, h}, {dirs, 2 * g * h}, state, state, {dirs, 3 * h}}
	names := []string{"x", "W", "R", "B", "initial_h", "initial_c", "P"}
	for k, s := range in {
		if s != nil && !slices.Equal(s, want[k]) {
			return nil, fmt.Errorf("%s %v, want %v", names[k], s, want[k])
		}
	}
	if n := len(p.SeqLens); n != 0 && n != batch {
		return nil, fmt.Errorf("%d sequence lengths for batch %d", n, batch)
	}
	for _, l := range p.SeqLens {
		if l < 1 || l > seq {
			return nil, fmt.Errorf("sequence length %d outside 1..%d", l, seq)
		}
	}
	outs := [][]int{y, state}
	if op.Type == OpLSTM {
		outs = append(outs, state)
	}
	return outs, nil
}

// checkRNNOutputs checks the outputs after the first of an LSTM or GRU
// (CheckShapes checks the first like every op's) and their count.
func (m *Model) checkRNNOutputs(op *Op, in [][]int) error {
	outs, err := RNNShapes(op, in)
	if err != nil {
		return err
	}
	if len(op.Outputs) != len(outs) {
		return fmt.Errorf("%d outputs, want %d", len(op.Outputs), len(outs))
	}
	for k, id := range op.Outputs {
		if id < 0 || id >= len(m.Tensors) {
			return fmt.Errorf("output %d is not a valid tensor", k)
		}
		if got := m.Tensors[id]; !slices.Equal(got.Shape, outs[k]) || got.DType != F32 {
			return fmt.Errorf("output %d is %s %v, the op produces f32 %v", k, got.DType, got.Shape, outs[k])
		}
	}
	return nil
}
