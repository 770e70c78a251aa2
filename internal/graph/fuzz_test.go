package graph

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
)

// FuzzConvert feeds arbitrary bytes through the decoder, the passes and the
// writer: a hostile file must end in an error, never a panic. Large seeds
// make the fuzzer's minimizer slow; run with -fuzzminimizetime 50x.
func FuzzConvert(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/fashion/cnn_[dq]*.onnx") // cnn_dw, cnn_qdq, cnn_qlinear
	more, _ := filepath.Glob("/usr/share/libonnx-testdata/data/node/test_*conv*/model.onnx")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := onnx.Decode(b)
		if err != nil {
			return
		}
		g, err := Convert(m, Options{})
		if err != nil {
			return
		}
		toNK := g.ToNK
		if g.HasQDQ() {
			toNK = g.ToInt8NK
		}
		nm, err := toNK()
		if err != nil {
			return
		}
		_, _ = nkfile.Encode(nm)
	})
}
