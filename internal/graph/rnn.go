package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/netkit/netkit/internal/nkfile"
)

// rnnActKinds maps the ONNX activation names LSTM and GRU take to nk's, with
// their default alpha and beta.
var rnnActKinds = map[string]nkfile.RNNAct{
	"sigmoid":     {Kind: nkfile.RNNSigmoid},
	"tanh":        {Kind: nkfile.RNNTanh},
	"relu":        {Kind: nkfile.RNNRelu},
	"hardsigmoid": {Kind: nkfile.RNNHardSigmoid, Alpha: 0.2, Beta: 0.5},
	"leakyrelu":   {Kind: nkfile.RNNLeakyRelu, Alpha: 0.01},
}

// rnnActs reads activations, activation_alpha and activation_beta: per
// direction the cell's functions (f, g, h for LSTM; f, g for GRU).
func rnnActs(s *srcNode, perDir, dirs int) ([6]nkfile.RNNAct, error) {
	acts := nkfile.DefaultRNNActs()
	a := s.attr("activations")
	alpha, beta := s.attr("activation_alpha"), s.attr("activation_beta")
	if a == nil {
		if alpha != nil || beta != nil {
			return acts, fmt.Errorf("activation_alpha/beta without activations")
		}
		return acts, nil
	}
	if len(a.Strings) != perDir*dirs {
		return acts, fmt.Errorf("attribute activations has %d names, want %d (%d per direction)", len(a.Strings), perDir*dirs, perDir)
	}
	for i, name := range a.Strings {
		act, ok := rnnActKinds[strings.ToLower(string(name))]
		if !ok {
			return acts, fmt.Errorf("activation %q is not supported (Sigmoid, Tanh, Relu, HardSigmoid, LeakyRelu are)", name)
		}
		// alpha and beta are listed per activation, in the order of activations
		if alpha != nil {
			if len(alpha.Floats) != len(a.Strings) {
				return acts, fmt.Errorf("attribute activation_alpha has %d values, want one per activation (%d)", len(alpha.Floats), len(a.Strings))
			}
			act.Alpha = alpha.Floats[i]
		}
		if beta != nil {
			if len(beta.Floats) != len(a.Strings) {
				return acts, fmt.Errorf("attribute activation_beta has %d values, want one per activation (%d)", len(beta.Floats), len(a.Strings))
			}
			act.Beta = beta.Floats[i]
		}
		acts[3*(i/perDir)+i%perDir] = act
	}
	return acts, nil
}

// lowerRNN lowers ONNX LSTM and GRU to the nk op of the same name: W, R, B
// and P constant; initial states constant or computed; sequence_lens
// constant (into the params); every output present (unused ones unnamed).
func (g *Graph) lowerRNN(n *Node) ([]*Node, error) {
	s, x := n.src, n.In[0]
	kind, perDir, gates := nkfile.OpLSTM, 3, 4
	if n.Op == "GRU" {
		kind, perDir, gates = nkfile.OpGRU, 2, 3
	}
	in := func(k int) *Tensor {
		if k < len(n.In) {
			return n.In[k]
		}
		return nil
	}
	var p nkfile.RNN
	switch dir := s.str("direction", "forward"); dir {
	case "forward":
	case "reverse":
		p.Direction = 1
	case "bidirectional":
		p.Direction = 2
	default:
		return nil, fmt.Errorf("attribute direction=%q is not supported", dir)
	}
	dirs := 1 + p.Direction/2
	switch l := s.int("layout", 0); l {
	case 0:
	case 1:
		p.BatchFirst = true
	default:
		return nil, fmt.Errorf("attribute layout=%d is not supported", l)
	}
	p.Clip = nkfile.NoClip
	if a := s.attr("clip"); a != nil {
		if !(a.F > 0) {
			return nil, fmt.Errorf("attribute clip=%g must be > 0", a.F)
		}
		p.Clip = a.F
	}
	if s.int("input_forget", 0) != 0 {
		return nil, fmt.Errorf("attribute input_forget=1 is not supported")
	}
	p.LinearBeforeReset = s.int("linear_before_reset", 0) != 0
	acts, err := rnnActs(s, perDir, dirs)
	if err != nil {
		return nil, err
	}
	p.Acts = acts
	if dirs == 1 {
		copy(p.Acts[3:], p.Acts[:3])
	}
	if len(x.Shape) != 3 {
		return nil, fmt.Errorf("input X %v must have rank 3", x.Shape)
	}
	seq, batch := x.Shape[0], x.Shape[1]
	if p.BatchFirst {
		seq, batch = batch, seq
	}
	w := in(1)
	if w == nil || in(2) == nil || len(w.Shape) != 3 {
		return nil, fmt.Errorf("needs W and R of rank 3")
	}
	hidden := w.Shape[1] / gates
	if hs := s.int("hidden_size", hidden); hs != hidden || hidden*gates != w.Shape[1] || w.Shape[0] != dirs {
		return nil, fmt.Errorf("W %v does not fit hidden_size %d, %d gates and %d directions", w.Shape, hs, gates, dirs)
	}
	for k, name := range map[int]string{1: "W", 2: "R", 3: "B", 7: "P"} {
		if t := in(k); t != nil && (!t.Const || t.Int) {
			return nil, fmt.Errorf("input %s must be a float constant", name)
		}
	}
	if sl := in(4); sl != nil {
		if !sl.Const || !sl.Int || len(sl.I) != batch {
			return nil, fmt.Errorf("sequence_lens must be a constant of %d integers (one per batch entry)", batch)
		}
		whole := true
		for _, v := range sl.I {
			if v < 1 || int(v) > seq {
				return nil, fmt.Errorf("sequence_lens value %d is outside 1..%d", v, seq)
			}
			whole = whole && int(v) == seq
			p.SeqLens = append(p.SeqLens, int(v))
		}
		if whole { // the params then say nothing
			p.SeqLens = nil
		}
	}
	ins := []*Tensor{x, in(1), in(2), in(3), in(5)}
	if kind == nkfile.OpLSTM {
		ins = append(ins, in(6), in(7))
	}
	for k, t := range ins {
		if t != nil && t.Int {
			return nil, fmt.Errorf("input %d is an integer tensor", k)
		}
		if t != nil && t.Const {
			ins[k] = &Tensor{Name: t.Name, Shape: slices.Clone(t.Shape), Const: true, F: floats(t)}
		}
	}
	for len(ins) > 3 && ins[len(ins)-1] == nil {
		ins = ins[:len(ins)-1]
	}
	state := []int{dirs, batch, hidden}
	y := []int{seq, dirs, batch, hidden}
	if p.BatchFirst {
		state, y = []int{batch, dirs, hidden}, []int{batch, seq, dirs, hidden}
	}
	outs := make([]*Tensor, perDir)
	for k := range outs {
		if k < len(n.Out) && n.Out[k] != nil && n.Out[k].Name != "" {
			outs[k] = n.Out[k]
		} else {
			outs[k] = &Tensor{Name: n.Name + "/" + []string{"Y", "Y_h", "Y_c"}[k]}
		}
		outs[k].Shape = slices.Clone(state)
	}
	outs[0].Shape = y
	if g.streamState {
		// the final states become the next run's initial ones: Y_h (and Y_c)
		// are STATE tensors the op reads and rewrites
		switch {
		case p.Direction != 0:
			return nil, fmt.Errorf("--stream-state needs a forward layer (direction %q reads the sequence from its end)", s.str("direction", ""))
		case !zeroOrAbsent(in(5)) || !zeroOrAbsent(in(6)):
			return nil, fmt.Errorf("--stream-state carries the state between runs: initial_h and initial_c must be absent or constant zeros")
		case p.SeqLens != nil:
			return nil, fmt.Errorf("--stream-state runs whole chunks: sequence_lens must be absent or all %d", seq)
		}
		for k := 1; k < len(outs); k++ {
			outs[k].State = true
			for len(ins) <= 3+k {
				ins = append(ins, nil)
			}
			ins[3+k] = outs[k]
		}
	}
	return []*Node{{Op: n.Op, Kind: kind, Name: n.Name, In: ins, Out: outs, RNN: &p}}, nil
}

// zeroOrAbsent: an initial state that is the reset state (PyTorch exports
// its default zero state as a constant).
func zeroOrAbsent(t *Tensor) bool {
	if t == nil {
		return true
	}
	if !t.Const || t.Int {
		return false
	}
	for _, v := range floats(t) {
		if v != 0 {
			return false
		}
	}
	return true
}
