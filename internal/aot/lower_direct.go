package aot

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/netkit/netkit/internal/nkfile"
)

// The ops lowered to direct kernel calls (nk_lowered.h's entry points and
// the portable int8 kernels) with their arguments as constants: they need
// no tensor or op records. Every other op runs through its eval over const
// records.
func direct(m *nkfile.Model, op *nkfile.Op) bool {
	switch op.Type {
	case nkfile.OpConv2DI8, nkfile.OpDepthwiseConv2DI8, nkfile.OpDenseI8, nkfile.OpAvgPool2DI8,
		nkfile.OpMaxPool2DI8, nkfile.OpSoftmaxI8, nkfile.OpLogisticI8, nkfile.OpTanhI8, nkfile.OpReshape:
		return true
	case nkfile.OpAddI8, nkfile.OpMulI8: // the broadcast ones run through their eval
		n := m.Tensors[op.Outputs[0]].Elems()
		return m.Tensors[op.Inputs[0]].Elems() == n && m.Tensors[op.Inputs[1]].Elems() == n
	}
	return false
}

// directGen writes the const argument structs and the calls of the direct
// ops; geometries equal between ops are emitted once.
type directGen struct {
	l     *Lowered
	decls bytes.Buffer
	geoms map[string]string
}

func (d *directGen) param(op *nkfile.Op, k int) int32 { return int32(op.Params[k]) }

// ptr is the C expression of tensor i's data as a `ctype *`.
func (d *directGen) ptr(i int, ctype string) string {
	if i < 0 {
		return "NULL"
	}
	if d.l.Model.Tensors[i].Const() {
		return fmt.Sprintf("(%s *)%s_w%d", ctype, d.l.Ident, i)
	}
	return fmt.Sprintf("(%s *)(act + %du)", ctype, d.l.Plan.TensorOffsets[i])
}

func (d *directGen) in(op *nkfile.Op, k int, ctype string) string {
	if k >= len(op.Inputs) {
		return "NULL"
	}
	return d.ptr(op.Inputs[k], "const "+ctype)
}

func (d *directGen) out(op *nkfile.Op, ctype string) string { return d.ptr(op.Outputs[0], ctype) }

func (d *directGen) tensor(i int) *nkfile.Tensor { return &d.l.Model.Tensors[i] }

// geom names the nk_ref_conv_geom of a window op (nk_ops_window_geom and
// nk_ops_conv_geom in csrc/ops/ops_common.c): win is k_h, k_w, stride_h,
// stride_w, dil_h, dil_w, pad_top, pad_left.
func (d *directGen) geom(op *nkfile.Op, win [8]int32, groups, multiplier int32) string {
	in, out := d.tensor(op.Inputs[0]), d.tensor(op.Outputs[0])
	v := []int32{int32(in.Shape[0]), int32(in.Shape[1]), int32(in.Shape[2]), int32(in.Shape[3]),
		int32(out.Shape[1]), int32(out.Shape[2]), int32(out.Shape[3])}
	v = append(v, win[:]...)
	v = append(v, groups, multiplier, 0) // count_include_pad 0
	words := make([]string, len(v))
	for i, x := range v {
		words[i] = fmt.Sprint(x)
	}
	key := strings.Join(words, ", ") + ", 0.0f, 0.0f" // int8 ops clamp in their quantization
	if name, ok := d.geoms[key]; ok {
		return name
	}
	name := fmt.Sprintf("%s_g%d", d.l.Ident, len(d.geoms))
	d.geoms[key] = name
	fmt.Fprintf(&d.decls, "static const nk_ref_conv_geom %s = {%s};\n", name, key)
	return name
}

// stagingBytes is a stage's slots ahead of the op's own workspace
// (nk_i8_stage_bytes in csrc/nk_lowered.h): its rows of outRow bytes,
// 16-rounded; 0 when the op does not stage.
func stagingBytes(st Stage, outRow int64) int64 {
	return (int64(st.Slots)*int64(st.Band)*outRow + 15) &^ 15
}

// quant is an nk_ref_i8_quant initializer (nk_i8_quant_params in
// csrc/ops/conv_i8.c): zero points and clamp at params k..k+3,
// multipliers and shifts in inputs 3 and 4.
func (d *directGen) quant(op *nkfile.Op, k int) string {
	perChannel := 0
	if d.tensor(op.Inputs[3]).Shape[0] > 1 {
		perChannel = 1
	}
	// rq_right 0: the kernels check the requantization pairs themselves
	return fmt.Sprintf("{%d, %d, %d, %d, %s, %s, %d, 0}", d.param(op, k), d.param(op, k+1), d.param(op, k+2),
		d.param(op, k+3), d.in(op, 3, "int32_t"), d.in(op, 4, "int32_t"), perChannel)
}

// call returns op k's statement(s) in IDENT_run, declaring its constants.
func (d *directGen) call(k int) (string, error) {
	l, op := d.l, &d.l.Model.Ops[k]
	id := l.Ident
	room := l.Plan.room(k)
	ws := fmt.Sprintf("act + %du", l.workspaceOffset()-room)
	switch op.Type {
	case nkfile.OpConv2DI8, nkfile.OpDepthwiseConv2DI8:
		w := d.tensor(op.Inputs[1])
		win := [8]int32{int32(w.Shape[1]), int32(w.Shape[2]), d.param(op, 0), d.param(op, 1), d.param(op, 2),
			d.param(op, 3), d.param(op, 4), d.param(op, 5)}
		fn, groups, multiplier := "nk_conv2d_i8_run", d.param(op, 8), int32(1)
		if op.Type == nkfile.OpDepthwiseConv2DI8 {
			fn, groups, multiplier = "nk_depthwise_i8_run", 1, d.param(op, 8)
		}
		g := d.geom(op, win, groups, multiplier)
		st, _ := l.Plan.staged(k) // band 0: the direct order
		out := d.tensor(op.Outputs[0])
		fmt.Fprintf(&d.decls, "static const nk_i8_conv_args %s_a%d = {&%s, %s, %s, %s, %d, %d, %du};\n", id, k, g,
			d.in(op, 1, "int8_t"), d.in(op, 2, "int32_t"), d.quant(op, 9), st.Band, st.Slots,
			l.Plan.Workspace+room-stagingBytes(st, int64(out.Shape[2])*int64(out.Shape[3])))
		return fmt.Sprintf("%s(&%s_a%d, %s, %s, %s);", fn, id, k, d.in(op, 0, "int8_t"), d.out(op, "int8_t"), ws), nil
	case nkfile.OpDenseI8:
		w := d.tensor(op.Inputs[1])
		kk, n := w.Shape[1], w.Shape[0]
		rows := d.tensor(op.Inputs[0]).Elems() / kk
		fmt.Fprintf(&d.decls, "static const nk_i8_dense_args %s_a%d = {%s, %s, %du, %d, %d, %s, %du};\n", id, k,
			d.in(op, 1, "int8_t"), d.in(op, 2, "int32_t"), rows, kk, n, d.quant(op, 0), l.Plan.Workspace+room)
		return fmt.Sprintf("nk_dense_i8_run(&%s_a%d, %s, %s, %s);", id, k, d.in(op, 0, "int8_t"), d.out(op, "int8_t"), ws), nil
	case nkfile.OpAvgPool2DI8, nkfile.OpMaxPool2DI8:
		var win [8]int32
		for i, p := range []int{0, 1, 2, 3, -1, -1, 4, 5} {
			win[i] = 1 // dilation
			if p >= 0 {
				win[i] = d.param(op, p)
			}
		}
		fmt.Fprintf(&d.decls, "static const nk_i8_pool_args %s_a%d = {&%s, %d, %d, %d};\n", id, k,
			d.geom(op, win, 1, 1), d.param(op, 8), d.param(op, 9), b2i(op.Type == nkfile.OpMaxPool2DI8))
		return fmt.Sprintf("nk_pool2d_i8_run(&%s_a%d, %s, %s);", id, k, d.in(op, 0, "int8_t"), d.out(op, "int8_t")), nil
	case nkfile.OpSoftmaxI8:
		in := d.tensor(op.Inputs[0])
		cols := in.Shape[len(in.Shape)-1]
		fn, outType := "nk_ref_softmax_i8", "int8_t"
		if d.tensor(op.Outputs[0]).DType == nkfile.I16 { // TFLite's int8 -> int16 softmax
			fn, outType = "nk_ref_softmax_i8_i16", "int16_t"
		}
		return fmt.Sprintf("%s(%s, %s, %du, %du, %d, %d, %d);", fn, d.in(op, 0, "int8_t"), d.out(op, outType),
			in.Elems()/cols, cols, d.param(op, 0), d.param(op, 1), d.param(op, 2)), nil
	case nkfile.OpAddI8:
		p := make([]string, 12)
		for i := range p {
			p[i] = fmt.Sprint(d.param(op, i))
		}
		fmt.Fprintf(&d.decls, "static const nk_ref_add_i8_params %s_a%d = {%s};\n", id, k, strings.Join(p, ", "))
		return fmt.Sprintf("nk_add_i8_run(&%s_a%d, %s, %s, %s, %du, %s);", id, k, d.in(op, 0, "int8_t"),
			d.in(op, 1, "int8_t"), d.out(op, "int8_t"), d.tensor(op.Outputs[0]).Elems(), ws), nil
	case nkfile.OpMulI8:
		p := make([]string, 7)
		for i := range p {
			p[i] = fmt.Sprint(d.param(op, i))
		}
		fmt.Fprintf(&d.decls, "static const nk_ref_mul_i8_params %s_a%d = {%s};\n", id, k, strings.Join(p, ", "))
		return fmt.Sprintf("nk_ref_mul_i8(%s, %s, %s, %du, &%s_a%d);", d.in(op, 0, "int8_t"), d.in(op, 1, "int8_t"),
			d.out(op, "int8_t"), d.tensor(op.Outputs[0]).Elems(), id, k), nil
	case nkfile.OpLogisticI8, nkfile.OpTanhI8:
		n := d.tensor(op.Outputs[0]).Elems()
		lut := "NULL"
		if n > 256 { // nk_actfn_i8_workspace: a 256-entry table
			lut = "(int8_t *)(" + ws + ")"
		}
		return fmt.Sprintf("nk_ref_logistic_tanh_i8(%s, %s, %du, %d, %d, %d, %d, %d, %s);", d.in(op, 0, "int8_t"),
			d.out(op, "int8_t"), n, b2i(op.Type == nkfile.OpTanhI8), d.param(op, 0), d.param(op, 1), d.param(op, 2),
			d.param(op, 3), lut), nil
	case nkfile.OpReshape:
		src, dst := op.Inputs[0], op.Outputs[0]
		if !d.tensor(src).Const() && l.Plan.TensorOffsets[src] == l.Plan.TensorOffsets[dst] {
			return "/* in place, no copy: */", nil
		}
		return fmt.Sprintf("memmove(%s, %s, %du);", d.out(op, "void"), d.in(op, 0, "void"), d.tensor(dst).Bytes()), nil
	}
	return "", fmt.Errorf("op %d %s: not a direct op", k, op.Type)
}
