package nkimage

import (
	"encoding/binary"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f32s(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// A 4x4 RGB image halved: with pixel centers at 0.5 + 2k, bilinear
// sampling averages each 2x2 block, computed by hand here.
func TestResizeRGBHalf(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for y := range 4 {
		for x := range 4 {
			img.Set(x, y, color.NRGBA{R: uint8(10 * (y*4 + x)), G: uint8(100 + x), B: uint8(200 - y), A: 255})
		}
	}
	out, rule, err := Tensor(img, Input{Name: "x", Shape: []int{1, 2, 2, 3}}, nil)
	require.NoError(t, err)
	assert.Contains(t, rule, "resized 4x4 -> 2x2 (bilinear)")
	assert.Contains(t, rule, "p / 255")
	// block (0,0): R of pixels 0,1,4,5 = 0,10,40,50 -> 25; G 100,101 -> 100.5; B 200,199 -> 199.5
	// block (1,0): R 20,30,60,70 -> 45; G 102,103 -> 102.5; B 199.5
	// block (0,1): R 80,90,120,130 -> 105; G 100.5; B 198,197 -> 197.5
	want := []float32{25, 100.5, 199.5, 45, 102.5, 199.5, 105, 100.5, 197.5, 125, 102.5, 197.5}
	got := f32s(out)
	require.Len(t, got, 12)
	for i := range want {
		assert.InDelta(t, want[i]/255, got[i], 1e-6, "value %d", i)
	}
	// NCHW: the same values, channel planes first
	out, _, err = Tensor(img, Input{Name: "x", Shape: []int{1, 3, 2, 2}, NCHW: true}, nil)
	require.NoError(t, err)
	got = f32s(out)
	for k := range 3 {
		for p := range 4 {
			assert.InDelta(t, want[p*3+k]/255, got[k*4+p], 1e-6)
		}
	}
}

// Gray is ITU-R 601 luma; int8 without preprocessing is p - 128; int8 with
// preprocessing is quantized with the input's scale and zero point.
func TestGrayAndInt8(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.NRGBA{R: 200, G: 100, B: 50, A: 255})
	luma := 0.299*200 + 0.587*100 + 0.114*50 // 124.2
	out, _, err := Tensor(img, Input{Shape: []int{1, 1, 1, 1}}, nil)
	require.NoError(t, err)
	assert.InDelta(t, luma/255, f32s(out)[0], 1e-6)
	out, rule, err := Tensor(img, Input{Shape: []int{1, 1, 1, 1}, Int8: true, Scale: 0.5, ZeroPoint: 3}, nil)
	require.NoError(t, err)
	assert.Equal(t, int8(math.Round(luma)-128), int8(out[0]))
	assert.Contains(t, rule, "p - 128")
	pre, err := ParsePreprocess("1", "100", "2")
	require.NoError(t, err)
	out, _, err = Tensor(img, Input{Shape: []int{1, 1, 1, 1}, Int8: true, Scale: 0.5, ZeroPoint: 3}, pre)
	require.NoError(t, err)
	// (124.2 - 100) / 2 = 12.1; / 0.5 = 24.2 -> 24; + 3
	assert.Equal(t, int8(27), int8(out[0]))
}

func TestErrors(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 2, 2))
	_, _, err := Tensor(img, Input{Name: "x", Shape: []int{1, 64}}, nil)
	assert.ErrorContains(t, err, "is not an image")
	_, _, err = Tensor(img, Input{Name: "x", Shape: []int{1, 2, 2, 2}}, nil)
	assert.ErrorContains(t, err, "has 2 channels")
	_, _, err = Tensor(img, Input{Name: "x", Shape: []int{2, 2, 2, 1}}, nil)
	assert.ErrorContains(t, err, "batch 2")
	pre, err := ParsePreprocess("", "0.5,0.4", "")
	require.NoError(t, err)
	_, _, err = Tensor(img, Input{Name: "x", Shape: []int{1, 2, 2, 3}}, pre)
	assert.ErrorContains(t, err, "2 means")
	_, err = ParsePreprocess("0", "", "")
	assert.Error(t, err)
	_, err = decodePGM([]byte("P5\n2 2\n255\n\x01"))
	assert.ErrorContains(t, err, "1 of 4 pixels")
	_, err = decodePGM([]byte("P5\n99999 2\n255\n"))
	assert.ErrorContains(t, err, "at most 16384")
	g, err := decodePGM([]byte("P2\n2 1\n15\n0 15\n"))
	require.NoError(t, err)
	assert.Equal(t, []uint8{0, 255}, g.(*image.Gray).Pix)
}

func TestMetaRoundTrip(t *testing.T) {
	pre, err := ParsePreprocess("0.5", "0.485,0.456,0.406", "0.229,0.224,0.225")
	require.NoError(t, err)
	meta := map[string]string{}
	for _, kv := range pre.Meta() {
		meta[kv[0]] = kv[1]
	}
	back, err := FromMeta(func(k string) (string, bool) { v, ok := meta[k]; return v, ok })
	require.NoError(t, err)
	assert.Equal(t, pre, back)
	none, err := FromMeta(func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	assert.Nil(t, none)
}
