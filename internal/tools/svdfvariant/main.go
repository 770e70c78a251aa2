// Command svdfvariant writes a copy of a TFLite SVDF model with its
// constant weights rescaled: every SVDF's weights_feature, weights_time and
// bias, and every FULLY_CONNECTED's weights and bias, become
// round(q * factor) clamped to their type. Only the stored integers change
// (scales and zero points stay), so the model keeps its graph and
// quantization while its activations move out of saturation:
// tflm_keyword_scrambled_8bit's scrambled weights saturate every SVDF
// output, which makes its output the same for every input.
//
//	go run ./internal/tools/svdfvariant -in MODEL.tflite -out VARIANT.tflite \
//	    -feature 0.25 -time 0.5 -bias 0.1 -fc 0.5
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/netkit/netkit/internal/tflite"
)

func main() {
	in := flag.String("in", "", "TFLite model")
	out := flag.String("out", "", "variant to write")
	feature := flag.Float64("feature", 1, "factor for SVDF weights_feature")
	time := flag.Float64("time", 1, "factor for SVDF weights_time")
	bias := flag.Float64("bias", 1, "factor for SVDF and FULLY_CONNECTED biases")
	fc := flag.Float64("fc", 1, "factor for FULLY_CONNECTED weights")
	flag.Parse()
	if err := run(*in, *out, map[string]float64{"feature": *feature, "time": *time, "bias": *bias, "fc": *fc}); err != nil {
		fmt.Fprintln(os.Stderr, "svdfvariant:", err)
		os.Exit(1)
	}
}

func run(in, out string, f map[string]float64) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	// the parsed buffers are views of b: rescaling them in place rewrites b
	m, err := tflite.Parse(b)
	if err != nil {
		return err
	}
	sg := &m.Subgraphs[0]
	done := map[uint32]bool{}
	for i := range sg.Operators {
		op := &sg.Operators[i]
		code, err := m.Op(op)
		if err != nil {
			return err
		}
		var roles []string
		switch code {
		case tflite.OpSVDF:
			roles = []string{"", "feature", "time", "bias", ""}
		case tflite.OpFullyConnected:
			roles = []string{"", "fc", "bias"}
		}
		for k, role := range roles {
			if role == "" || k >= len(op.Inputs) || op.Inputs[k] < 0 {
				continue
			}
			t := &sg.Tensors[op.Inputs[k]]
			if done[t.Buffer] || len(m.Buffers[t.Buffer].Data) == 0 {
				continue
			}
			done[t.Buffer] = true
			if err := rescale(m.Buffers[t.Buffer].Data, t.Type, f[role]); err != nil {
				return fmt.Errorf("tensor %q: %w", t.Name, err)
			}
		}
	}
	return os.WriteFile(out, b, 0o644)
}

func rescale(d []byte, typ tflite.TensorType, factor float64) error {
	scale := func(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, math.Round(v*factor))) }
	switch typ {
	case tflite.Int8:
		for i := range d {
			d[i] = byte(int8(scale(float64(int8(d[i])), math.MinInt8, math.MaxInt8)))
		}
	case tflite.Int16:
		for i := 0; i+1 < len(d); i += 2 {
			v := int16(binary.LittleEndian.Uint16(d[i:]))
			binary.LittleEndian.PutUint16(d[i:], uint16(int16(scale(float64(v), math.MinInt16, math.MaxInt16))))
		}
	case tflite.Int32:
		for i := 0; i+3 < len(d); i += 4 {
			v := int32(binary.LittleEndian.Uint32(d[i:]))
			binary.LittleEndian.PutUint32(d[i:], uint32(int32(scale(float64(v), math.MinInt32, math.MaxInt32))))
		}
	default:
		return fmt.Errorf("type %v", typ)
	}
	return nil
}
