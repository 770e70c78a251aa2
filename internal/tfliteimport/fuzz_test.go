package tfliteimport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/tflite"
)

// FuzzConvert: any file the TFLite reader accepts either converts into a
// model that encodes, or is refused with an error; never a panic. Seeds are
// the two smallest shared models (when present).
func FuzzConvert(f *testing.F) {
	for _, name := range []string{"tflm_hello_world_int8", "tflm_micro_speech_quantized"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "models", "tflite", name+".tflite")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := tflite.Parse(b)
		if err != nil {
			return
		}
		for _, r := range []Options{{}, {Labels: "a\nb"}} {
			nm, err := Convert(m, r)
			if err != nil {
				continue
			}
			if _, err := nkfile.Encode(nm); err != nil {
				t.Fatalf("converted model does not encode: %v", err)
			}
		}
	})
}

// TestMutatedModels damages each tensor and operator of several shared
// models in turn (shape, type, quantization, buffer, operator inputs) and
// requires Convert to refuse or to produce a model that encodes: the
// error paths must not panic on what a reader lets through.
func TestMutatedModels(t *testing.T) {
	dir := modelDir(t)
	mutations := []func(tn *tflite.Tensor){
		func(tn *tflite.Tensor) { tn.Shape = nil },
		func(tn *tflite.Tensor) { tn.Shape = []int32{1} },
		func(tn *tflite.Tensor) { tn.Shape = append([]int32{0}, tn.Shape...) },
		func(tn *tflite.Tensor) { tn.Shape = []int32{-1, 2} },
		func(tn *tflite.Tensor) { tn.Quant = nil },
		func(tn *tflite.Tensor) {
			if tn.Quant != nil {
				q := *tn.Quant
				q.Scale, q.ZeroPoint = nil, nil
				tn.Quant = &q
			}
		},
		func(tn *tflite.Tensor) {
			if tn.Quant != nil {
				q := *tn.Quant
				q.QuantizedDimension = 7
				q.ZeroPoint = []int64{300}
				tn.Quant = &q
			}
		},
		func(tn *tflite.Tensor) { tn.Type = tflite.Int16 },
		func(tn *tflite.Tensor) { tn.Type = tflite.Float32 },
		func(tn *tflite.Tensor) { tn.Type = tflite.Int32 },
		func(tn *tflite.Tensor) { tn.Type = tflite.Int8 },
		func(tn *tflite.Tensor) { tn.Buffer = 0 },
		func(tn *tflite.Tensor) { tn.Buffer = 1 << 30 },
	}
	opMutations := []func(op *tflite.Operator){
		func(op *tflite.Operator) { op.Inputs = nil },
		func(op *tflite.Operator) { op.Inputs = append([]int32{}, op.Inputs[:len(op.Inputs)-1]...) },
		func(op *tflite.Operator) { op.Inputs = append(append([]int32{}, op.Inputs...), -1, 0) },
		func(op *tflite.Operator) { op.Inputs = []int32{-1} },
		func(op *tflite.Operator) { op.Inputs = []int32{1 << 20} },
		func(op *tflite.Operator) { op.Outputs = append(append([]int32{}, op.Outputs...), op.Outputs...) },
		func(op *tflite.Operator) { op.Outputs = []int32{0} },
		func(op *tflite.Operator) { op.Options = nil },
		func(op *tflite.Operator) { op.OpcodeIndex = 1 << 20 },
	}
	n := 0
	for _, name := range []string{"tflm_hello_world_int8", "tflm_micro_speech_quantized", "mlperf_kws_ref_model",
		"mlperf_kws_ref_model_float32", "mlperf_str_ww_ref_model", "mlperf_pretrainedResnet_quant"} {
		path := filepath.Join(dir, name+".tflite")
		try := func(mutate func(m *tflite.Model)) {
			m, err := tflite.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			mutate(m)
			n++
			if nm, err := Convert(m, Options{}); err == nil {
				if _, err := nkfile.Encode(nm); err != nil {
					t.Fatalf("%s: converted model does not encode: %v", name, err)
				}
			}
		}
		m, err := tflite.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for ti := range m.Subgraphs[0].Tensors {
			for _, mu := range mutations {
				try(func(m *tflite.Model) { mu(&m.Subgraphs[0].Tensors[ti]) })
			}
		}
		for oi := range m.Subgraphs[0].Operators {
			for _, mu := range opMutations {
				try(func(m *tflite.Model) { mu(&m.Subgraphs[0].Operators[oi]) })
			}
		}
	}
	t.Logf("%d mutated models, none panicked", n)
}
