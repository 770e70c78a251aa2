package aot

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIdent(t *testing.T) {
	assert.Equal(t, "mlp", Ident("mlp"))
	assert.Equal(t, "fashion_mnist_v2", Ident("Fashion-MNIST.v2"))
	assert.Equal(t, "model_3layer", Ident("3layer"))
	assert.Equal(t, "model_", Ident(""))
	assert.Equal(t, "caf_", Ident("café"))
}

// The array spells out every byte of the image, in order.
func TestSourceHoldsTheImage(t *testing.T) {
	img := make([]byte, 37)
	for i := range img {
		img[i] = byte(i * 7)
	}
	e := &Embed{Ident: "m", ModelFile: "m.nk", Image: img, ArenaBytes: 4096,
		Inputs:  []Tensor{{Name: "x", Shape: []int{1, 4}, DType: "f32", Bytes: 16}},
		Outputs: []Tensor{{Name: "y*/", Shape: []int{1, 2}, DType: "f32", Bytes: 8}}}
	src := string(e.Source())
	var got []byte
	for _, m := range regexp.MustCompile(`0x([0-9a-f]{2}),`).FindAllStringSubmatch(src, -1) {
		v, err := strconv.ParseUint(m[1], 16, 8)
		require.NoError(t, err)
		got = append(got, byte(v))
	}
	assert.Equal(t, img, got)
	assert.Contains(t, src, "const uint8_t m_nk[37] NK_AOT_ALIGN16 = {")

	h := string(e.Header())
	assert.Contains(t, h, "#define M_ARENA_SIZE 4096u")
	assert.Contains(t, h, "#define M_INPUT0_BYTES 16u")
	assert.Contains(t, h, "#define M_OUTPUT0_BYTES 8u")
	assert.Equal(t, 1, strings.Count(h, "*/\n#define M_OUTPUT0"), "a name cannot end the comment early")
}
