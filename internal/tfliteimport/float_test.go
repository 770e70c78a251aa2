package tfliteimport

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/nk"
)

// Float models are checked against floatRef: a float64 interpreter of the
// TFLite graph written for this test from TFLite's op semantics (NHWC,
// OHWI weights, SAME padding with the odd pixel after, averages over valid
// taps), reading the .tflite directly, so a layout, padding or clamp
// mistake in the importer shows. Inputs are the int8 golden inputs
// dequantized with the int8 twin model's input quantization.
var floatTwins = map[string]string{
	"mlperf_ad01_fp32":                    "mlperf_ad01_int8",
	"mlperf_kws_ref_model_float32":        "mlperf_kws_ref_model",
	"mlperf_pretrainedResnet":             "mlperf_pretrainedResnet_quant",
	"mlperf_pretrainedResnet_large_float": "mlperf_pretrainedResnet_large_int8",
	"mlperf_vww_96_float":                 "mlperf_vww_96_int8",
}

func TestFloatModelsMatchReference(t *testing.T) {
	dir := modelDir(t)
	gold := loadGolden(t)
	for fname, qname := range floatTwins {
		t.Run(fname, func(t *testing.T) {
			fm, err := tflite.ReadFile(filepath.Join(dir, fname+".tflite"))
			require.NoError(t, err)
			qm, err := tflite.ReadFile(filepath.Join(dir, qname+".tflite"))
			require.NoError(t, err)
			_, img := convertFile(t, filepath.Join(dir, fname+".tflite"))
			model, err := nk.LoadBytes(img)
			require.NoError(t, err)
			defer model.Close()
			qsg := &qm.Subgraphs[0]
			qin, qout := &qsg.Tensors[qsg.Inputs[0]], &qsg.Tensors[qsg.Outputs[0]]
			for k, run := range []tflmRun{gold.Models[qname].In1, gold.Models[qname].In2} {
				raw := goldenInput(t, qname, k+1)
				in := make([]float32, len(raw))
				for i, v := range raw {
					in[i] = qin.Quant.Scale[0] * float32(int64(v)-qin.Quant.ZeroPoint[0])
				}
				got, err := model.Predict(in)
				require.NoError(t, err)
				want, err := floatRef(fm, in)
				require.NoError(t, err)
				require.Len(t, got, len(want))
				bound := 0.0
				for _, v := range want {
					bound = math.Max(bound, math.Abs(v))
				}
				tol := 1e-4 * math.Max(1, bound)
				for i := range want {
					require.InDelta(t, want[i], float64(got[i]), tol, "input %d output %d", k+1, i)
				}
				// the int8 twin, dequantized, for scale (not asserted: the
				// inputs are random, so near-ties may flip the top class)
				var maxDiff float64
				for i, q := range run.Output {
					d := float64(qout.Quant.Scale[0]) * float64(int64(q)-qout.Quant.ZeroPoint[0])
					maxDiff = math.Max(maxDiff, math.Abs(d-float64(got[i])))
				}
				t.Logf("input %d: netkit f32 matches the float64 reference within %.2g; vs the int8 model (TFLM) max |diff| %.4g, top-1 %d vs %d",
					k+1, tol, maxDiff, argmax32(got), argmax8(run.Output))
			}
		})
	}
}

func argmax32(v []float32) int {
	best := 0
	for i := range v {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

func argmax8(v []int8) int {
	best := 0
	for i := range v {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

// floatRef runs a float (or hybrid) TFLite model in float64.
func floatRef(m *tflite.Model, input []float32) ([]float64, error) {
	sg := &m.Subgraphs[0]
	vals := map[int32][]float64{}
	x0 := make([]float64, len(input))
	for i, v := range input {
		x0[i] = float64(v)
	}
	vals[sg.Inputs[0]] = x0
	get := func(ti int32) []float64 {
		if v, ok := vals[ti]; ok {
			return v
		}
		t := &sg.Tensors[ti]
		d := m.Buffers[t.Buffer].Data
		switch t.Type {
		case tflite.Float32:
			v := make([]float64, len(d)/4)
			for i := range v {
				v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:])))
			}
			return v
		case tflite.Int8: // hybrid weights: scale[c] * (q - zp[c]) along the quantized dimension
			q := t.Quant
			inner := 1
			for _, s := range t.Shape[q.QuantizedDimension+1:] {
				inner *= int(s)
			}
			v := make([]float64, len(d))
			for i, b := range d {
				c := 0
				if len(q.Scale) > 1 {
					c = (i / inner) % len(q.Scale)
				}
				v[i] = float64(q.Scale[c]) * float64(int64(int8(b))-q.ZeroPoint[c])
			}
			return v
		}
		panic(fmt.Sprintf("constant %q of type %v", t.Name, t.Type))
	}
	clamp := func(v float64, a tflite.Activation) float64 {
		switch a {
		case tflite.ActRelu:
			return math.Max(v, 0)
		case tflite.ActRelu6:
			return math.Min(math.Max(v, 0), 6)
		case tflite.ActReluN1To1:
			return math.Min(math.Max(v, -1), 1)
		}
		return v
	}
	// padBefore: SAME pads total = max(0, (out-1)*s + eff - in), half before
	padBefore := func(same bool, in, out, k, s, d int) int {
		if !same {
			return 0
		}
		return max(0, (out-1)*s+(k-1)*d+1-in) / 2
	}
	dims := func(ti int32) []int {
		s := make([]int, len(sg.Tensors[ti].Shape))
		for i, d := range sg.Tensors[ti].Shape {
			s[i] = int(d)
		}
		return s
	}
	for i := range sg.Operators {
		op := &sg.Operators[i]
		code, _ := m.Op(op)
		x := get(op.Inputs[0])
		xs, ys := dims(op.Inputs[0]), dims(op.Outputs[0])
		n := 1
		for _, d := range ys {
			n *= d
		}
		y := make([]float64, n)
		switch code {
		case tflite.OpConv2D, tflite.OpDepthwiseConv2D:
			w, ws := get(op.Inputs[1]), dims(op.Inputs[1])
			var b []float64
			if len(op.Inputs) > 2 && op.Inputs[2] >= 0 {
				b = get(op.Inputs[2])
			}
			var same bool
			var sh, sw, dh, dw int
			var act tflite.Activation
			if o, ok := op.Options.(tflite.Conv2DOptions); ok {
				same, sh, sw, dh, dw, act = o.Padding == tflite.PaddingSame, int(o.StrideH), int(o.StrideW), int(o.DilationH), int(o.DilationW), o.Activation
			} else {
				o := op.Options.(tflite.DepthwiseConv2DOptions)
				same, sh, sw, dh, dw, act = o.Padding == tflite.PaddingSame, int(o.StrideH), int(o.StrideW), int(o.DilationH), int(o.DilationW), o.Activation
			}
			H, W, C := xs[1], xs[2], xs[3]
			OH, OW, O := ys[1], ys[2], ys[3]
			KH, KW := ws[1], ws[2]
			pt, pl := padBefore(same, H, OH, KH, sh, dh), padBefore(same, W, OW, KW, sw, dw)
			for oy := 0; oy < OH; oy++ {
				for ox := 0; ox < OW; ox++ {
					for oc := 0; oc < O; oc++ {
						acc := 0.0
						if b != nil {
							acc = b[oc]
						}
						for ky := 0; ky < KH; ky++ {
							iy := oy*sh - pt + ky*dh
							if iy < 0 || iy >= H {
								continue
							}
							for kx := 0; kx < KW; kx++ {
								ix := ox*sw - pl + kx*dw
								if ix < 0 || ix >= W {
									continue
								}
								if code == tflite.OpConv2D {
									I := ws[3]
									g := oc / (O / (C / I))
									for ic := 0; ic < I; ic++ {
										acc += x[(iy*W+ix)*C+g*I+ic] * w[((oc*KH+ky)*KW+kx)*I+ic]
									}
								} else {
									acc += x[(iy*W+ix)*C+oc/(O/C)] * w[(ky*KW+kx)*O+oc]
								}
							}
						}
						y[(oy*OW+ox)*O+oc] = clamp(acc, act)
					}
				}
			}
		case tflite.OpFullyConnected:
			o := op.Options.(tflite.FullyConnectedOptions)
			w, ws := get(op.Inputs[1]), dims(op.Inputs[1])
			var b []float64
			if len(op.Inputs) > 2 && op.Inputs[2] >= 0 {
				b = get(op.Inputs[2])
			}
			N, K := ws[0], ws[1]
			for r := 0; r < len(x)/K; r++ {
				for u := 0; u < N; u++ {
					acc := 0.0
					if b != nil {
						acc = b[u]
					}
					for k := 0; k < K; k++ {
						acc += x[r*K+k] * w[u*K+k]
					}
					y[r*N+u] = clamp(acc, o.Activation)
				}
			}
		case tflite.OpAveragePool2D:
			o := op.Options.(tflite.Pool2DOptions)
			same := o.Padding == tflite.PaddingSame
			H, W, C, OH, OW := xs[1], xs[2], xs[3], ys[1], ys[2]
			KH, KW, sh, sw := int(o.FilterHeight), int(o.FilterWidth), int(o.StrideH), int(o.StrideW)
			pt, pl := padBefore(same, H, OH, KH, sh, 1), padBefore(same, W, OW, KW, sw, 1)
			for oy := 0; oy < OH; oy++ {
				for ox := 0; ox < OW; ox++ {
					for c := 0; c < C; c++ {
						sum, cnt := 0.0, 0
						for ky := 0; ky < KH; ky++ {
							for kx := 0; kx < KW; kx++ {
								iy, ix := oy*sh-pt+ky, ox*sw-pl+kx
								if iy >= 0 && iy < H && ix >= 0 && ix < W {
									sum += x[(iy*W+ix)*C+c]
									cnt++
								}
							}
						}
						y[(oy*OW+ox)*C+c] = clamp(sum/float64(cnt), o.Activation)
					}
				}
			}
		case tflite.OpAdd:
			o := op.Options.(tflite.AddOptions)
			b := get(op.Inputs[1])
			for i := range y {
				y[i] = clamp(x[i]+b[i], o.Activation)
			}
		case tflite.OpReshape:
			copy(y, x)
		case tflite.OpSoftmax:
			beta := float64(op.Options.(tflite.SoftmaxOptions).Beta)
			L := xs[len(xs)-1]
			for r := 0; r < len(x)/L; r++ {
				row := x[r*L : (r+1)*L]
				mx := row[0]
				for _, v := range row {
					mx = math.Max(mx, v)
				}
				sum := 0.0
				for j, v := range row {
					y[r*L+j] = math.Exp(beta * (v - mx))
					sum += y[r*L+j]
				}
				for j := range row {
					y[r*L+j] /= sum
				}
			}
		default:
			return nil, fmt.Errorf("operator %d %v not in the reference", i, code)
		}
		vals[op.Outputs[0]] = y
	}
	return vals[sg.Outputs[0]], nil
}
