package graph_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/graph"
	"github.com/netkit/netkit/internal/onnx"
	"github.com/netkit/netkit/internal/prng"
	"github.com/netkit/netkit/nk"
)

// rnnCaseModel reads an ONNX LSTM/GRU node test, freezes its parameters
// (the test's own values) and gives X a sequence length of seq.
func rnnCaseModel(t *testing.T, name string, seq int64) (*onnx.Model, graph.Options) {
	dir := filepath.Join(onnxTestData, "node", name)
	m, err := onnx.ReadFile(filepath.Join(dir, "model.onnx"))
	require.NoError(t, err)
	opts := graph.Options{Freeze: map[string]*onnx.Tensor{}}
	for i, in := range m.Graph.Inputs[1:] {
		opts.Freeze[in.Name] = readTensorPB(t, filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i+1)))
	}
	m.Graph.Inputs[0].Dims[0] = seq
	return m, opts
}

// A model converted with StreamState carries the LSTM/GRU state across
// runs: the chunks of a sequence run one after another give the final
// state of one run over the whole sequence, and ResetState starts over.
func TestRNNStreamState(t *testing.T) {
	if _, err := os.Stat(onnxTestData); err != nil {
		t.Skip("ONNX conformance data not found")
	}
	lds := loaders(t)
	for _, c := range []struct {
		name         string
		whole, chunk int64
	}{
		{"test_gru_seq_length", 2, 1},         // GRU with bias, batch 3
		{"test_gru_seq_length", 6, 3},         // longer sequences
		{"test_lstm_with_initial_bias", 6, 2}, // LSTM with bias, three chunks
	} {
		t.Run(fmt.Sprintf("%s/%d_in_%d", c.name, c.whole, c.chunk), func(t *testing.T) {
			m, opts := rnnCaseModel(t, c.name, c.whole)
			b, _, err := convert(t, m, opts)
			require.NoError(t, err)
			whole, err := nk.LoadBytes(b)
			require.NoError(t, err)
			defer whole.Close()

			m, opts = rnnCaseModel(t, c.name, c.chunk)
			opts.StreamState = true
			b, _, err = convert(t, m, opts)
			require.NoError(t, err)
			rep, err := nk.InspectBytes(b)
			require.NoError(t, err)
			// Y_h (and Y_c for LSTM) of batch x hidden floats each
			h := whole.Outputs()[0].Bytes()
			states := map[bool]int{true: 2, false: 1}[m.Graph.Nodes[0].OpType == "LSTM"]
			assert.EqualValues(t, states*h, rep.BytesState, "inspect counts the state")

			x := prng.New(uint64(c.whole)).Float32s(whole.Inputs()[0].Elems(), -1, 1)
			want := make([]float32, whole.Outputs()[0].Elems())
			require.NoError(t, whole.Run(x, want))
			n := len(x) * int(c.chunk) / int(c.whole)
			for _, ld := range lds {
				stream, err := ld.load(b)
				require.NoError(t, err, ld.name)
				streamed := func() []float32 {
					got := make([]float32, len(want))
					for k := 0; k < len(x); k += n {
						require.NoError(t, stream.Run(x[k:k+n], got))
					}
					return got
				}
				first := streamed()
				assert.InDeltaSlice(t, want, first, 1e-5, "%s: chunks in a row equal the whole sequence", ld.name)
				again := streamed()
				assert.NotEqual(t, first, again, "%s: without a reset the state carries on", ld.name)
				require.NoError(t, stream.ResetState())
				assert.Equal(t, first, streamed(), "%s: after ResetState the stream starts over", ld.name)
				require.NoError(t, stream.Close())
			}
		})
	}
}

// The stream of a whole ONNX case: its own expected Y_h (test_gru_seq_length
// is T=2), run as two single steps.
func TestRNNStreamStateMatchesONNX(t *testing.T) {
	dir := filepath.Join(onnxTestData, "node", "test_gru_seq_length")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("ONNX conformance data not found")
	}
	m, opts := rnnCaseModel(t, "test_gru_seq_length", 1)
	opts.StreamState = true
	b, _, err := convert(t, m, opts)
	require.NoError(t, err)
	stream, err := nk.LoadBytes(b)
	require.NoError(t, err)
	defer stream.Close()
	x, err := readTensorPB(t, filepath.Join(dir, "test_data_set_0", "input_0.pb")).Float32s()
	require.NoError(t, err)
	want, err := readTensorPB(t, filepath.Join(dir, "test_data_set_0", "output_0.pb")).Float32s()
	require.NoError(t, err)
	got := make([]float32, len(want))
	require.NoError(t, stream.Run(x[:len(x)/2], got))
	require.NoError(t, stream.Run(x[len(x)/2:], got))
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-5+1e-4*float64(abs32(want[i])), "element %d", i)
	}
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// The GRU keyword spotter of testdata/gen/kws_gru.py (PyTorch GRU: ONNX GRU
// with linear_before_reset=1, then a Linear head) gives PyTorch's logits
// within 1e-4 through nk and nkc, run whole and, converted with
// StreamState over 10-frame chunks, run as two halves.
func TestKWSGRU(t *testing.T) {
	dir := "../../testdata/pytorch"
	xs, xshape := readNpy(t, filepath.Join(dir, "kws_gru.input.npy"))
	require.Equal(t, []int{16, 20, 1, 10}, xshape)
	want, wshape := readNpy(t, filepath.Join(dir, "kws_gru.expected.npy"))
	require.Equal(t, []int{16, 1, 4}, wshape)
	per := 20 * 10
	for _, streamed := range []bool{false, true} {
		m, err := onnx.ReadFile(filepath.Join(dir, "kws_gru.onnx"))
		require.NoError(t, err)
		require.True(t, slices.ContainsFunc(m.Graph.Nodes, func(n *onnx.Node) bool { return n.OpType == "GRU" }))
		chunks := 1
		if streamed {
			chunks = 2
			m.Graph.Inputs[0].Dims[0] = 20 / int64(chunks)
		}
		b, _, err := convert(t, m, graph.Options{StreamState: streamed})
		require.NoError(t, err)
		for _, l := range loaders(t) {
			t.Run(fmt.Sprintf("%s/chunks%d", l.name, chunks), func(t *testing.T) {
				model, err := l.load(b)
				require.NoError(t, err)
				defer model.Close()
				out := make([]float32, 4)
				worst := 0.0
				for i := range 16 {
					x := xs[i*per : (i+1)*per]
					require.NoError(t, model.ResetState())
					for k := 0; k < per; k += per / chunks {
						require.NoError(t, model.Run(x[k:k+per/chunks], out))
					}
					for k := range out {
						worst = math.Max(worst, math.Abs(float64(out[k]-want[i*4+k])))
					}
				}
				t.Logf("GRU keyword spotter via %s in %d chunk(s): max |logit - PyTorch| = %.3g", l.name, chunks, worst)
				assert.LessOrEqual(t, worst, 1e-4)
			})
		}
	}
}
