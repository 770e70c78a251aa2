// Package prng is splitmix64 (Steele, Lea and Flood; Vigna's constants): a
// tiny generator whose streams are identical on every platform, for test
// weights and the CLI's deterministic inputs.
package prng

// SplitMix64 is the generator's state; the zero value is seed 0.
type SplitMix64 struct{ State uint64 }

// New returns a generator seeded with seed.
func New(seed uint64) *SplitMix64 { return &SplitMix64{State: seed} }

// Uint64 returns the next value.
func (r *SplitMix64) Uint64() uint64 {
	r.State += 0x9E3779B97F4A7C15
	z := r.State
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Float32 returns a value in [lo, hi) from 24 random bits (exact in float32).
func (r *SplitMix64) Float32(lo, hi float32) float32 {
	u := float32(r.Uint64()>>40) / float32(1<<24)
	return lo + (hi-lo)*u
}

// Float32s returns n values in [lo, hi).
func (r *SplitMix64) Float32s(n int, lo, hi float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32(lo, hi)
	}
	return v
}
