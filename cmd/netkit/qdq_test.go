package main

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
)

// The Fashion MLP and CNN quantized by PyTorch (qnnpack, uint8
// activations) and exported as QDQ ONNX by torch.onnx (MLP per-tensor, CNN
// per-channel weights) and as QLinear ONNX (QLinearConv, QGemm; MLP
// per-channel, CNN per-tensor) by testdata/gen/fashion_qdq.py convert to int8 models that agree with
// PyTorch's own quantized outputs on the 100 images: the same top-1 class
// on >= 98, every logit within 2 steps of the output scale.
func TestConvertQDQAgreesWithTorch(t *testing.T) {
	dir := t.TempDir()
	in := f32(t, readNpy(t, filepath.Join(fashion, "input.npy")))
	for _, name := range []string{"mlp_qdq", "cnn_qdq", "mlp_qlinear", "cnn_qlinear"} {
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(dir, name+".nk")
			code, stdout, stderr := cli(t, "convert", filepath.Join(fashion, name+".onnx"), "-o", dst)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, "none", summaryValue(t, stdout, "float ops"))
			file, err := nkfile.Decode(mustRead(t, dst))
			require.NoError(t, err)
			for _, op := range file.Ops {
				switch op.Type {
				case nkfile.OpQuantize, nkfile.OpDequantize, nkfile.OpReshape, nkfile.OpDenseI8, nkfile.OpConv2DI8, nkfile.OpMaxPool2DI8:
				default:
					t.Errorf("op %q is %s, not an int8 op: %s", op.Name, op.Type, stdout)
				}
			}
			var scale float64
			var zp int32
			_, err = fmt.Sscan(string(mustRead(t, filepath.Join(fashion, name+"_scale.txt"))), &scale, &zp)
			require.NoError(t, err)
			q := file.Tensors[file.Ops[len(file.Ops)-1].Inputs[0]].Quant
			assert.InDelta(t, scale, q.Scale[0], 1e-6*scale, "the output scale is PyTorch's")
			assert.Equal(t, zp-128, q.ZeroPoint[0], "uint8 zero point shifted to int8")

			m, err := nk.Load(dst)
			require.NoError(t, err)
			defer m.Close()
			got := make([]float32, 100*10)
			require.NoError(t, m.RunBatch(in, got))
			want := f32(t, readNpy(t, filepath.Join(fashion, name+"_logits.npy")))
			same, worst, off := 0, 0.0, 0
			for i := range 100 {
				if argmaxF32(want[i*10:(i+1)*10]) == argmaxF32(got[i*10:(i+1)*10]) {
					same++
				}
				for k := range 10 {
					d := math.Abs(float64(want[i*10+k]-got[i*10+k])) / scale
					worst = max(worst, d)
					if d > 0.5 {
						off++
					}
				}
			}
			t.Logf("top-1 equal %d/100; %d of 1000 logits differ, by at most %.2f output steps", same, off, worst)
			assert.GreaterOrEqual(t, same, 98, "top-1 equal to PyTorch's")
			assert.LessOrEqual(t, worst, 2.01, "|netkit - PyTorch| in output steps (step %g)", scale)
		})
	}
}

// netkit quantize refuses an already quantized model and says what to do.
func TestQuantizeRefusesQDQ(t *testing.T) {
	src := filepath.Join(fashion, "mlp_qdq.onnx")
	code, _, stderr := cli(t, "quantize", src, "--calib", filepath.Join(fashion, "input.npy"), "-o", filepath.Join(t.TempDir(), "x.nk"))
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "already quantized")
	assert.Contains(t, stderr, "'netkit convert' it as it is")
}
