// Package testmodels builds the small hand-written models under
// testdata/models with deterministic pseudo-random weights:
//
//   - mlp:        [1,64] -> dense 32 + relu -> dense 10 -> softmax, digit labels
//   - cnn:        [1,16,16,3] NHWC -> conv3x3 8 relu -> maxpool 2 -> depthwise 3x3
//     -> batch_norm (left unfolded for the loader to fold) -> conv1x1 16
//     -> clip 0..6 -> conv3x3 16 -> add residual + relu -> global avg pool
//     -> reshape [1,16] -> dense 10 -> softmax
//   - tiny_relu:  one relu on [1,16], for per-call overhead benchmarks
//   - branch:     two inputs, two outputs; parallel convs joined by concat,
//     a residual add, a broadcast mul and an avg pool, for the planner
//
// `go generate ./internal/testmodels` writes the .nk files, then runs
// testdata/gen/reference_outputs.py, which reads them with its own numpy
// reader, runs them in PyTorch and writes <name>.input.npy and
// <name>.expected.npy (<name>.inputK.npy / .expectedK.npy for the model
// with several inputs or outputs), batches of whole inputs along a new
// leading axis.
package testmodels

//go:generate go run ./gen -out ../../testdata/models
//go:generate /usr/bin/python3 ../../testdata/gen/reference_outputs.py ../../testdata/models

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/prng"
)

// rng draws the weights; splitmix64 streams are the same on every platform.
type rng struct{ *prng.SplitMix64 }

// uniform returns n values in [lo, hi).
func (r rng) uniform(n int, lo, hi float32) []float32 { return r.Float32s(n, lo, hi) }

// weights returns He-like uniform weights for a layer with fanIn inputs.
func (r rng) weights(n, fanIn int) []float32 {
	a := float32(math.Sqrt(3.0 / float64(fanIn)))
	return r.uniform(n, -a, a)
}

func prod(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

type builder struct {
	*nkfile.Builder
	r rng
}

func newBuilder(seed uint64) *builder {
	return &builder{Builder: nkfile.NewBuilder(), r: rng{prng.New(seed)}}
}

// w adds a random weight tensor; fanIn scales it.
func (b *builder) w(name string, fanIn int, shape ...int) int {
	return b.ConstF32(name, shape, b.r.weights(prod(shape), fanIn))
}

// bias adds a small random bias.
func (b *builder) bias(name string, n int) int {
	return b.ConstF32(name, []int{n}, b.r.uniform(n, -0.1, 0.1))
}

func same(k int) nkfile.ConvParams {
	p := k / 2
	return nkfile.ConvParams{Window: nkfile.Window{PadTop: p, PadLeft: p, PadBottom: p, PadRight: p}}
}

// MLP is mlp.nk.
func MLP() (*nkfile.Model, error) {
	b := newBuilder(1)
	x := b.Input("input", nkfile.F32, 1, 64)
	h := b.Dense("fc1", x, b.w("fc1.weight", 64, 32, 64), b.bias("fc1.bias", 32), nkfile.ActRelu)
	y := b.Dense("fc2", h, b.w("fc2.weight", 32, 10, 32), b.bias("fc2.bias", 10), nkfile.ActNone)
	p := b.Op(nkfile.OpSoftmax, "softmax", []int{y}, nkfile.F32Words(1), nkfile.ActNone)
	b.Output(p)
	b.Meta("producer", "netkit testmodels")
	b.Meta("labels", "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine")
	return b.Model()
}

// CNN is cnn.nk.
func CNN() (*nkfile.Model, error) {
	b := newBuilder(2)
	x := b.Input("image", nkfile.F32, 1, 16, 16, 3)
	c1 := b.Conv2D("conv1", x, b.w("conv1.weight", 27, 8, 3, 3, 3), b.bias("conv1.bias", 8), same(3), nkfile.ActRelu)
	p1 := b.Pool(nkfile.OpMaxPool2D, "pool1", c1, nkfile.PoolParams{KernelH: 2, KernelW: 2, Window: nkfile.Window{StrideH: 2, StrideW: 2}})
	dw := b.DepthwiseConv2D("dw", p1, b.w("dw.weight", 9, 1, 3, 3, 8), b.bias("dw.bias", 8), same(3), nkfile.ActNone)
	bn := b.Op(nkfile.OpBatchNorm, "bn", []int{dw,
		b.ConstF32("bn.gamma", []int{8}, b.r.uniform(8, 0.5, 1.5)),
		b.ConstF32("bn.beta", []int{8}, b.r.uniform(8, -0.2, 0.2)),
		b.ConstF32("bn.mean", []int{8}, b.r.uniform(8, -0.3, 0.3)),
		b.ConstF32("bn.var", []int{8}, b.r.uniform(8, 0.5, 2)),
	}, nkfile.F32Words(1e-5), nkfile.ActNone)
	pw := b.Conv2D("pw", bn, b.w("pw.weight", 8, 16, 1, 1, 8), b.bias("pw.bias", 16), nkfile.ConvParams{}, nkfile.ActNone)
	r6 := b.Op(nkfile.OpClip, "relu6", []int{pw}, nkfile.F32Words(0, 6), nkfile.ActNone)
	c3 := b.Conv2D("conv3", r6, b.w("conv3.weight", 144, 16, 3, 3, 16), b.bias("conv3.bias", 16), same(3), nkfile.ActNone)
	res := b.Op(nkfile.OpAdd, "residual", []int{r6, c3}, nkfile.ClampWords(nkfile.ClampOf(nkfile.ActRelu)), nkfile.ActRelu)
	g := b.Op(nkfile.OpGlobalAvgPool, "gap", []int{res}, nil, nkfile.ActNone)
	f := b.Reshape("flatten", g, 1, 16)
	y := b.Dense("fc", f, b.w("fc.weight", 16, 10, 16), b.bias("fc.bias", 10), nkfile.ActNone)
	p := b.Op(nkfile.OpSoftmax, "softmax", []int{y}, nkfile.F32Words(1), nkfile.ActNone)
	b.Output(p)
	b.Meta("producer", "netkit testmodels")
	return b.Model()
}

// TinyRelu is tiny_relu.nk: the smallest useful graph.
func TinyRelu() (*nkfile.Model, error) {
	b := newBuilder(3)
	x := b.Input("x", nkfile.F32, 1, 16)
	b.Output(b.Op(nkfile.OpRelu, "relu", []int{x}, nil, nkfile.ActNone))
	return b.Model()
}

// Branch is branch.nk: x [1,8,8,4] and y [1,4] in; z [1,4] and pool [1,4,4,4] out.
func Branch() (*nkfile.Model, error) {
	b := newBuilder(4)
	x := b.Input("x", nkfile.F32, 1, 8, 8, 4)
	y := b.Input("y", nkfile.F32, 1, 4)
	a := b.Conv2D("branch_a", x, b.w("a.weight", 4, 6, 1, 1, 4), b.bias("a.bias", 6), nkfile.ConvParams{}, nkfile.ActRelu)
	c := b.Conv2D("branch_b", x, b.w("b.weight", 36, 6, 3, 3, 4), b.bias("b.bias", 6), same(3), nkfile.ActRelu)
	cat := b.Op(nkfile.OpConcat, "concat", []int{a, c}, nkfile.I32Words(3), nkfile.ActNone)
	m := b.Conv2D("merge", cat, b.w("merge.weight", 12, 4, 1, 1, 12), -1, nkfile.ConvParams{}, nkfile.ActNone)
	s := b.Op(nkfile.OpAdd, "skip", []int{m, x}, nkfile.ClampWords(nkfile.NoClamp), nkfile.ActNone)
	sc := b.Op(nkfile.OpMul, "scale", []int{s, b.ConstF32("scale", []int{4}, b.r.uniform(4, 0.5, 1.5))}, nkfile.ClampWords(nkfile.NoClamp), nkfile.ActNone)
	t := b.Op(nkfile.OpTanh, "tanh", []int{sc}, nil, nkfile.ActNone)
	pool := b.Pool(nkfile.OpAvgPool2D, "pool", t, nkfile.PoolParams{KernelH: 2, KernelW: 2, Window: nkfile.Window{StrideH: 2, StrideW: 2}})
	g := b.Op(nkfile.OpGlobalAvgPool, "gap", []int{t}, nil, nkfile.ActNone)
	f := b.Reshape("flatten", g, 1, 4)
	z := b.Op(nkfile.OpAdd, "z", []int{f, y}, nkfile.ClampWords(nkfile.NoClamp), nkfile.ActNone)
	b.Output(z, pool)
	b.Meta("producer", "netkit testmodels")
	return b.Model()
}

// EmptyIO is empty_io.nk: x [1,16] and an empty e [4,0] in; relu(x) and an
// empty z [2,0] out (what ONNX's Slice past the end gives).
func EmptyIO() (*nkfile.Model, error) {
	b := newBuilder(5)
	x := b.Input("x", nkfile.F32, 1, 16)
	b.Input("e", nkfile.F32, 4, 0)
	b.Output(b.Op(nkfile.OpRelu, "relu", []int{x}, nil, nkfile.ActNone))
	b.EmptyOutput("z", nkfile.F32, 2, 0)
	return b.Model()
}

// All maps each model's file stem to its builder.
var All = map[string]func() (*nkfile.Model, error){
	"mlp":       MLP,
	"cnn":       CNN,
	"tiny_relu": TinyRelu,
	"branch":    Branch,
	"empty_io":  EmptyIO,
}

// Names lists the models in a stable order.
func Names() []string {
	var names []string
	for n := range All {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Encode builds and encodes the named model.
func Encode(name string) ([]byte, error) {
	build, ok := All[name]
	if !ok {
		return nil, fmt.Errorf("testmodels: no model %q (have %s)", name, strings.Join(Names(), ", "))
	}
	m, err := build()
	if err != nil {
		return nil, fmt.Errorf("testmodels: %s: %w", name, err)
	}
	return nkfile.Encode(m)
}
