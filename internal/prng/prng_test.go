package prng

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplitMix64ReferenceValues(t *testing.T) {
	// First outputs of splitmix64 seeded with 0 (Vigna's reference values).
	r := New(0)
	assert.Equal(t, uint64(0xE220A8397B1DCDAF), r.Uint64())
	assert.Equal(t, uint64(0x6E789E6AA1B965F4), r.Uint64())
	assert.Equal(t, uint64(0x06C45D188009454F), r.Uint64())
}

func TestFloat32Range(t *testing.T) {
	r := New(7)
	for _, v := range r.Float32s(10000, -1, 1) {
		assert.True(t, v >= -1 && v < 1, v)
	}
}
