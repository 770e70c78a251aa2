package tfliteimport

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
)

// lstmRef is testdata/gen/lstm_ref.py's PyTorch LSTM: its weights (gate
// blocks i, f, g, o, which are TFLite's i, f, c, o), an input batch and
// PyTorch's output sequence.
type lstmRef struct {
	wIH, wHH, bIH, bHH, x, y []float32
	batch, steps, in, hidden int
}

func readLSTMRef(t *testing.T) lstmRef {
	t.Helper()
	read := func(name string) ([]float32, []int) {
		a, err := npy.ReadFile(filepath.Join("..", "..", "testdata", "pytorch", "lstm_ref."+name+".npy"))
		require.NoError(t, err)
		v, err := a.F32()
		require.NoError(t, err)
		return v, a.Shape
	}
	var r lstmRef
	var xs, ws []int
	r.wIH, ws = read("w_ih")
	r.wHH, _ = read("w_hh")
	r.bIH, _ = read("b_ih")
	r.bHH, _ = read("b_hh")
	r.x, xs = read("x")
	r.y, _ = read("y")
	r.batch, r.steps, r.in, r.hidden = xs[0], xs[1], xs[2], ws[0]/4
	return r
}

// lstmModel builds a one-operator UNIDIRECTIONAL_SEQUENCE_LSTM model over
// `steps` time steps from the reference weights; mutate may change the
// operator before the model is returned.
func (r lstmRef) lstmModel(steps int, timeMajor bool, mutate func(b *tfliteBuilder, op *tflite.Operator)) *tflite.Model {
	b := newTFLite()
	h, i := r.hidden, r.in
	xShape, yShape := []int32{int32(r.batch), int32(steps), int32(i)}, []int32{int32(r.batch), int32(steps), int32(h)}
	if timeMajor {
		xShape, yShape = []int32{int32(steps), int32(r.batch), int32(i)}, []int32{int32(steps), int32(r.batch), int32(h)}
	}
	x := b.tensor("x", tflite.Float32, xShape, nil, nil)
	in := make([]int32, 24)
	for k := range in {
		in[k] = -1
	}
	in[0] = x
	for g := range 4 {
		in[lstmInputWeights+g] = b.tensor("w_in", tflite.Float32, []int32{int32(h), int32(i)}, nkfile.F32Bytes(r.wIH[g*h*i:(g+1)*h*i]), nil)
		in[lstmRecurrentWeights+g] = b.tensor("w_rec", tflite.Float32, []int32{int32(h), int32(h)}, nkfile.F32Bytes(r.wHH[g*h*h:(g+1)*h*h]), nil)
		bias := make([]float32, h)
		for k := range bias {
			bias[k] = r.bIH[g*h+k] + r.bHH[g*h+k]
		}
		in[lstmGateBiases+g] = b.tensor("bias", tflite.Float32, []int32{int32(h)}, nkfile.F32Bytes(bias), nil)
	}
	for _, slot := range []int{lstmOutputState, lstmCellState} {
		in[slot] = b.tensor("state", tflite.Float32, []int32{int32(r.batch), int32(h)}, nil, nil)
		b.sg().Tensors[in[slot]].IsVariable = true
	}
	y := b.tensor("y", tflite.Float32, yShape, nil, nil)
	b.op(tflite.OpUnidirectionalLSTM, tflite.UnidirectionalLSTMOptions{Activation: tflite.ActTanh, TimeMajor: timeMajor}, in, y)
	if mutate != nil {
		mutate(b, &b.sg().Operators[0])
	}
	b.sg().Inputs = []int32{x}
	b.sg().Outputs = []int32{y}
	return &b.m
}

// loadConverted converts a TFLite model and loads it in the C core (closed
// when the test ends).
func loadConverted(t *testing.T, m *tflite.Model) *nk.Model {
	t.Helper()
	nm, err := Convert(m, Options{})
	require.NoError(t, err)
	img, err := nkfile.Encode(nm)
	require.NoError(t, err)
	model, err := nk.LoadBytes(img)
	require.NoError(t, err)
	t.Cleanup(func() { model.Close() })
	return model
}

// at is element [b, t, k] of a batch-first [batch, steps, n] sequence.
func (r lstmRef) at(v []float32, n, b, t, k int) float32 { return v[(b*r.steps+t)*n+k] }

// A float UNIDIRECTIONAL_SEQUENCE_LSTM converted and run in the C core
// gives PyTorch's torch.nn.LSTM outputs (testdata/gen/lstm_ref.py): over
// the whole sequence, batch first and time major, and over the sequence in
// two invokes of half its length, where the variable state tensors carry
// the state from one to the next as TFLite's do; ResetState starts over.
func TestUnidirectionalLSTMMatchesPyTorch(t *testing.T) {
	r := readLSTMRef(t)
	const tol = 1e-5
	t.Run("whole sequence", func(t *testing.T) {
		got, err := loadConverted(t, r.lstmModel(r.steps, false, nil)).Predict(r.x)
		require.NoError(t, err)
		require.Len(t, got, len(r.y))
		for k := range r.y {
			require.InDelta(t, r.y[k], got[k], tol, "element %d", k)
		}
	})
	t.Run("time major", func(t *testing.T) {
		x := make([]float32, 0, len(r.x))
		for s := range r.steps {
			for b := range r.batch {
				for k := range r.in {
					x = append(x, r.at(r.x, r.in, b, s, k))
				}
			}
		}
		got, err := loadConverted(t, r.lstmModel(r.steps, true, nil)).Predict(x)
		require.NoError(t, err)
		for s := range r.steps {
			for b := range r.batch {
				for k := range r.hidden {
					require.InDelta(t, r.at(r.y, r.hidden, b, s, k), got[(s*r.batch+b)*r.hidden+k], tol, "step %d batch %d cell %d", s, b, k)
				}
			}
		}
	})
	t.Run("streaming", func(t *testing.T) {
		half := r.steps / 2
		model := loadConverted(t, r.lstmModel(half, false, nil))
		chunk := func(c int) []float32 {
			var x []float32
			for b := range r.batch {
				for s := c * half; s < (c+1)*half; s++ {
					for k := range r.in {
						x = append(x, r.at(r.x, r.in, b, s, k))
					}
				}
			}
			return x
		}
		check := func(c int) {
			got, err := model.Predict(chunk(c))
			require.NoError(t, err)
			for b := range r.batch {
				for s := range half {
					for k := range r.hidden {
						require.InDelta(t, r.at(r.y, r.hidden, b, c*half+s, k), got[(b*half+s)*r.hidden+k], tol, "chunk %d batch %d step %d cell %d", c, b, s, k)
					}
				}
			}
		}
		check(0)
		check(1)
		require.NoError(t, model.ResetState())
		check(0)
	})
}

// A hybrid LSTM (int8 weights, float activations) runs its weights
// dequantized, scale * (q - zero point): the same outputs as the float LSTM
// given those values.
func TestUnidirectionalLSTMHybrid(t *testing.T) {
	r := readLSTMRef(t)
	const scale, zp = float32(0.01), 3
	quantized := make([]int8, len(r.wIH))
	deq := make([]float32, len(r.wIH))
	for k, v := range r.wIH {
		q := max(-128, min(127, int(math.Round(float64(v/scale)))+zp))
		quantized[k], deq[k] = int8(q), scale*float32(q-zp)
	}
	h, i := r.hidden, r.in
	hybrid := r.lstmModel(r.steps, false, func(b *tfliteBuilder, op *tflite.Operator) {
		for g := range 4 {
			raw := make([]byte, h*i)
			for k, q := range quantized[g*h*i : (g+1)*h*i] {
				raw[k] = byte(q)
			}
			op.Inputs[lstmInputWeights+g] = b.tensor("w_in_q", tflite.Int8, []int32{int32(h), int32(i)}, raw, perTensor(scale, zp))
		}
	})
	deqRef := r
	deqRef.wIH = deq
	want, err := loadConverted(t, deqRef.lstmModel(r.steps, false, nil)).Predict(r.x)
	require.NoError(t, err)
	got, err := loadConverted(t, hybrid).Predict(r.x)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.NotEqual(t, r.y, got, "the quantized weights must change the outputs")
}

// What the LSTM op cannot run exactly is refused by name, all of it in one
// message.
func TestUnidirectionalLSTMRefusals(t *testing.T) {
	r := readLSTMRef(t)
	m := r.lstmModel(r.steps, false, func(b *tfliteBuilder, op *tflite.Operator) {
		op.Inputs[lstmPeepholes+1] = b.tensor("peephole", tflite.Float32, []int32{int32(r.hidden)}, nkfile.F32Bytes(make([]float32, r.hidden)), nil)
		op.Inputs[lstmInputWeights] = -1
		op.Options = tflite.UnidirectionalLSTMOptions{Activation: tflite.ActRelu, CellClip: 3}
	})
	_, err := Convert(m, Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	for _, want := range []string{"no input gate (CIFG)", "peepholes", "a cell or projection clip", "tanh only"} {
		require.ErrorContains(t, err, want)
	}
	m = r.lstmModel(r.steps, false, func(b *tfliteBuilder, op *tflite.Operator) {
		b.sg().Tensors[op.Inputs[lstmCellState]].IsVariable = false
	})
	_, err = Convert(m, Options{})
	require.ErrorContains(t, err, "must be a float32 variable tensor")
}
