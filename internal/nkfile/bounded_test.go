package nkfile

import (
	"hash/crc32"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileShared is a valid image of n extra runtime tensors [dim] that all
// name one string of nameLen bytes and all point at one per-channel QUANT
// record of dim entries: each string and record is stored once but
// referenced n times.
func hostileShared(t *testing.T, n, dim, nameLen int) []byte {
	t.Helper()
	name := strings.Repeat("n", nameLen)
	m := &Model{}
	for i := 0; i < n; i++ {
		m.Tensors = append(m.Tensors, Tensor{Name: name, DType: F32, Shape: []int{dim}})
	}
	m.Tensors[0].Quant = &Quant{Axis: 0, Scale: make([]float32, dim), ZeroPoint: make([]int32, dim)}
	x := len(m.Tensors)
	m.Tensors = append(m.Tensors, Tensor{DType: F32, Shape: []int{4}}, Tensor{DType: F32, Shape: []int{4}})
	m.Inputs = []IO{{Tensor: x}}
	m.Outputs = []IO{{Tensor: x + 1}}
	m.Ops = []Op{{Type: OpRelu, Inputs: []int{x}, Outputs: []int{x + 1}}}
	img, err := Encode(m)
	require.NoError(t, err)
	// every tensor record points at tensor 0's quantization record (offset 0)
	tensors := le.Uint32(img[HeaderSize+4:])
	require.Equal(t, uint32(SectionTensors), le.Uint32(img[HeaderSize:]))
	for i := 1; i < n; i++ {
		le.PutUint32(img[tensors+8+TensorRecordSize*uint32(i)+40:], 0)
	}
	le.PutUint32(img[8:], crc32.ChecksumIEEE(img[12:]))
	return img
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Decoding reads each shared string and QUANT record once: memory (and so
// work) stays proportional to the image, where a copy per reference was
// n times the shared bytes (1.3 GB for each of these two images).
func TestDecodeSharedRecordsBounded(t *testing.T) {
	const n = 20000
	for _, tc := range []struct {
		name         string
		dim, nameLen int
	}{
		{"one long name", 4, 64 << 10},
		{"one large QUANT record", 8 << 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := hostileShared(t, n, tc.dim, tc.nameLen)
			var m *Model
			var err error
			got := allocated(func() { m, err = Decode(img) })
			require.NoError(t, err)
			require.Len(t, m.Tensors, n+2)
			last := m.Tensors[n-1]
			require.Len(t, last.Name, tc.nameLen)
			require.NotNil(t, last.Quant)
			require.Len(t, last.Quant.Scale, tc.dim)
			// the tensor records alone take about 100 B each in Go
			require.Less(t, got, uint64(4*len(img)+200*n), "Decode allocated %d B for a %d B image", got, len(img))
		})
	}
}
