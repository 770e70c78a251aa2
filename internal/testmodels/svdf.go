package testmodels

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/netkit/netkit/internal/tflite"
)

// SVDFRescale are the factors RescaleSVDF applies to the stored integers
// of an SVDF model's constant weights.
type SVDFRescale struct {
	Feature, Time, Bias, FC float64
}

// Flags registers the factors as -feature, -time, -bias and -fc (default 1).
func (r *SVDFRescale) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&r.Feature, "feature", 1, "factor for SVDF weights_feature")
	fs.Float64Var(&r.Time, "time", 1, "factor for SVDF weights_time")
	fs.Float64Var(&r.Bias, "bias", 1, "factor for SVDF and FULLY_CONNECTED biases")
	fs.Float64Var(&r.FC, "fc", 1, "factor for FULLY_CONNECTED weights")
}

// ParseSVDFRescale reads factors written as flags ("-time 0.3 -bias 1e-6").
func ParseSVDFRescale(args []string) (SVDFRescale, error) {
	var r SVDFRescale
	fs := flag.NewFlagSet("svdfvariant", flag.ContinueOnError)
	r.Flags(fs)
	err := fs.Parse(args)
	return r, err
}

// RescaleSVDF returns a copy of a TFLite model whose constant weights are
// rescaled: every SVDF's weights_feature, weights_time and bias, and every
// FULLY_CONNECTED's weights and bias, become round(q * factor) clamped to
// their type. Only the stored integers change (scales and zero points
// stay), so the model keeps its graph and quantization while its
// activations move: tflm_keyword_scrambled_8bit's scrambled weights
// saturate every SVDF output, which makes its output the same for every
// input (testdata/gen/tflm_svdf.sh).
func RescaleSVDF(model []byte, r SVDFRescale) ([]byte, error) {
	b := slices.Clone(model)
	// the parsed buffers are views of b: rescaling them in place rewrites b
	m, err := tflite.Parse(b)
	if err != nil {
		return nil, err
	}
	if len(m.Subgraphs) != 1 {
		return nil, fmt.Errorf("%d subgraphs, want 1", len(m.Subgraphs))
	}
	f := map[string]float64{"feature": r.Feature, "time": r.Time, "bias": r.Bias, "fc": r.FC}
	sg := &m.Subgraphs[0]
	done := map[uint32]bool{}
	for i := range sg.Operators {
		op := &sg.Operators[i]
		code, err := m.Op(op)
		if err != nil {
			return nil, err
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
				return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
			}
		}
	}
	return b, nil
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

// SVDFGolden is testdata/tflm_svdf/golden.json: TFLite Micro's outputs for
// tflm_keyword_scrambled_8bit and its rescaled variant over a stream of
// inputs (testdata/gen/tflm_svdf.sh).
type SVDFGolden struct {
	Inputs string                     `json:"inputs"` // file beside the JSON
	Models map[string]SVDFGoldenModel `json:"models"`
}

// SVDFGoldenModel is one model's record: per invoke, the output bytes and
// every operator's output tensor keyed by its TFLite tensor index (hex).
type SVDFGoldenModel struct {
	Steps []struct {
		Output string            `json:"output"`
		Ops    map[string]string `json:"ops"`
	} `json:"steps"`
	ArenaUsedBytes int    `json:"arena_used_bytes_x86_64"`
	SVDFVariant    string `json:"svdfvariant"` // the rescale flags; "" for the shared model
}

// SVDFShared is the shared model both golden records derive from.
const SVDFShared = "tflm_keyword_scrambled_8bit"

// ReadSVDFGolden reads golden.json and its inputs (one step's bytes each).
func ReadSVDFGolden(path string) (*SVDFGolden, [][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var g SVDFGolden
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, nil, err
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(path), g.Inputs))
	if err != nil {
		return nil, nil, err
	}
	const step = 96 * 2 // int16 [1, 96]
	var ins [][]byte
	for len(raw) >= step {
		ins = append(ins, raw[:step])
		raw = raw[step:]
	}
	return &g, ins, nil
}

// TFLite returns the model the record is about: the shared model read
// from tfliteDir, rescaled as SVDFVariant says.
func (m *SVDFGoldenModel) TFLite(tfliteDir string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(tfliteDir, SVDFShared+".tflite"))
	if err != nil || m.SVDFVariant == "" {
		return b, err
	}
	r, err := ParseSVDFRescale(strings.Fields(m.SVDFVariant))
	if err != nil {
		return nil, err
	}
	return RescaleSVDF(b, r)
}
