package conformance

import "testing"

// OneOpModel is the smallest test model: per-call overhead dominates it.
const OneOpModel = "tiny_relu.nk"

// BenchRunOneOp measures one Run of the one-op model on a Session and on
// the Model's default context: the binding's per-call overhead.
func BenchRunOneOp(b *testing.B, bind Binding) {
	m, err := bind.Load(ModelPath(b, OneOpModel))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	in := make([]float32, m.Inputs()[0].Elems())
	for i := range in {
		in[i] = float32(i%7) - 3
	}
	out := make([]float32, m.Outputs()[0].Elems())
	s, err := m.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name string
		run  func(in, out []float32) error
	}{{"Session", s.Run}, {"Model", m.Run}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.run(in, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
