package main

import (
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// netkit run --input IMAGE on the Fashion-MNIST CNN converted with the data
// set's mean and std: the first test image, as PNG and as PGM, gives
// PyTorch's logits for it (testdata/gen/fashion_mnist.py normalized the
// uint8 pixels as (p/255 - 0.2860) / 0.3530, which the .npy holds).
func TestRunImageInput(t *testing.T) {
	fashion := filepath.Join("..", "..", "testdata", "fashion")
	x := f32(t, readNpy(t, filepath.Join(fashion, "input.npy")))
	want := f32(t, readNpy(t, filepath.Join(fashion, "cnn_bn_logits.npy")))[:10]
	img := image.NewGray(image.Rect(0, 0, 28, 28))
	var pgm strings.Builder
	pgm.WriteString("P5\n# first test image\n28 28\n255\n")
	for i := range 28 * 28 {
		p := math.Round((float64(x[i])*0.3530 + 0.2860) * 255)
		require.InDelta(t, p, (float64(x[i])*0.3530+0.2860)*255, 1e-3, "pixel %d is not a whole 0..255 value", i)
		img.Pix[i] = uint8(p)
		pgm.WriteByte(uint8(p))
	}
	dir := t.TempDir()
	pngPath, pgmPath := filepath.Join(dir, "shoe.png"), filepath.Join(dir, "shoe.pgm")
	f, err := os.Create(pngPath)
	require.NoError(t, err)
	require.NoError(t, png.Encode(f, img))
	require.NoError(t, f.Close())
	require.NoError(t, os.WriteFile(pgmPath, []byte(pgm.String()), 0o644))

	nkPath := filepath.Join(dir, "cnn.nk")
	code, _, stderr := cli(t, "convert", filepath.Join(fashion, "cnn_bn.onnx"), "-o", nkPath,
		"--mean", "0.2860", "--std", "0.3530", "--labels", filepath.Join(fashion, "labels.txt"))
	require.Equal(t, 0, code, stderr)
	for _, in := range []string{pngPath, pgmPath} {
		out := filepath.Join(dir, "out.npy")
		code, stdout, stderr := cli(t, "run", nkPath, "--input", in, "--output", out)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "input 0: "+in+": pixels p in 0..255 as gray: (p * 0.003921569 - mean) / std with mean 0.286, std 0.353 (the model's preprocessing)")
		got := f32(t, readNpy(t, out))
		require.Len(t, got, 10)
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-4, "%s logit %d", in, i)
		}
	}

	// Without preprocessing metadata: [0, 1], and the run says so.
	plain := filepath.Join(dir, "plain.nk")
	code, _, stderr = cli(t, "convert", filepath.Join(fashion, "cnn_bn.onnx"), "-o", plain)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := cli(t, "run", plain, "--input", pngPath)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "p / 255, the range [0, 1] (the model records no preprocessing")

	// An input that is not image-shaped, and a file that is not an image.
	code, _, stderr = cli(t, "run", model("mlp.nk"), "--input", pngPath)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `[1 64] is not an image`)
	bad := filepath.Join(dir, "bad.png")
	require.NoError(t, os.WriteFile(bad, []byte("not a png"), 0o644))
	code, _, stderr = cli(t, "run", nkPath, "--input", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not a PNG, JPEG or PGM image")
	code, _, stderr = cli(t, "convert", filepath.Join(fashion, "cnn_bn.onnx"), "-o", plain, "--std", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "each positive")
}
