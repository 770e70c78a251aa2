package aot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/netkit/netkit/internal/nkfile"
)

// evalOf names the eval (nk_op_def.eval) of each op table entry in
// csrc/ops/; lower.go's test checks it against the C sources.
var evalOf = map[string]string{
	"nk_op_dense_f32":            "nk_dense_eval",
	"nk_op_conv2d_f32":           "nk_conv2d_eval",
	"nk_op_depthwise_conv2d_f32": "nk_depthwise_eval",
	"nk_op_max_pool2d_f32":       "nk_max_pool_eval",
	"nk_op_avg_pool2d_f32":       "nk_avg_pool_eval",
	"nk_op_global_avg_pool_f32":  "nk_gap_eval",
	"nk_op_batch_norm_f32":       "nk_bn_eval",
	"nk_op_relu_f32":             "nk_relu_eval",
	"nk_op_clip_f32":             "nk_clip_eval",
	"nk_op_leaky_relu_f32":       "nk_leaky_eval",
	"nk_op_sigmoid_f32":          "nk_sigmoid_eval",
	"nk_op_tanh_f32":             "nk_tanh_eval",
	"nk_op_gelu_f32":             "nk_gelu_eval",
	"nk_op_softmax_f32":          "nk_softmax_eval",
	"nk_op_add_f32":              "nk_add_eval",
	"nk_op_mul_f32":              "nk_mul_eval",
	"nk_op_concat_f32":           "nk_ops_concat_eval",
	"nk_op_reshape_f32":          "nk_ops_reshape_eval",
	"nk_op_pad_f32":              "nk_ops_pad_eval",
	"nk_op_transpose_f32":        "nk_ops_transpose_eval",
	"nk_op_sub_f32":              "nk_binop_eval",
	"nk_op_div_f32":              "nk_binop_eval",
	"nk_op_maximum_f32":          "nk_binop_eval",
	"nk_op_minimum_f32":          "nk_binop_eval",
	"nk_op_pow_f32":              "nk_binop_eval",
	"nk_op_exp_f32":              "nk_unop_eval",
	"nk_op_sqrt_f32":             "nk_unop_eval",
	"nk_op_neg_f32":              "nk_unop_eval",
	"nk_op_abs_f32":              "nk_unop_eval",
	"nk_op_reciprocal_f32":       "nk_unop_eval",
	"nk_op_hard_sigmoid_f32":     "nk_hard_sigmoid_eval",
	"nk_op_reduce_mean_f32":      "nk_reduce_eval",
	"nk_op_reduce_sum_f32":       "nk_reduce_eval",
	"nk_op_reduce_max_f32":       "nk_reduce_eval",
	"nk_op_layer_norm_f32":       "nk_layer_norm_eval",
	"nk_op_lstm_f32":             "nk_rnn_eval",
	"nk_op_gru_f32":              "nk_rnn_eval",
	"nk_op_matmul_f32":           "nk_matmul_eval",
	"nk_op_slice_f32":            "nk_ops_slice_eval",
	"nk_op_hard_swish_f32":       "nk_hard_swish_eval",
	"nk_op_resize2d_f32":         "nk_resize2d_eval",
	"nk_op_conv_transpose2d_f32": "nk_conv_transpose2d_eval",
	"nk_op_conv2d_i8":            "nk_conv_i8_eval",
	"nk_op_depthwise_conv2d_i8":  "nk_conv_i8_eval",
	"nk_op_dense_i8":             "nk_dense_i8_eval",
	"nk_op_avg_pool2d_i8":        "nk_pool_i8_eval",
	"nk_op_max_pool2d_i8":        "nk_pool_i8_eval",
	"nk_op_add_i8":               "nk_add_i8_eval",
	"nk_op_mul_i8":               "nk_mul_i8_eval",
	"nk_op_softmax_i8":           "nk_softmax_i8_eval",
	"nk_op_logistic_i8":          "nk_actfn_i8_eval",
	"nk_op_tanh_i8":              "nk_actfn_i8_eval",
	"nk_op_quantize_f32":         "nk_quantize_f32_eval",
	"nk_op_quantize_i8":          "nk_quantize_i8_eval",
	"nk_op_dequantize_i8":        "nk_dequantize_eval",
	"nk_op_concat_i8":            "nk_ops_concat_eval",
	"nk_op_reshape_i8":           "nk_ops_reshape_eval",
	"nk_op_pad_i8":               "nk_ops_pad_eval",
	"nk_op_transpose_i8":         "nk_ops_transpose_eval",
	"nk_op_slice_i8":             "nk_ops_slice_eval",
	"nk_op_lut_i8":               "nk_lut_i8_eval",
	"nk_op_svdf_i8":              "nk_svdf_i8_eval",
	"nk_op_quantize_i16":         "nk_quantize_i8_eval",
	"nk_op_resize2d_i8":          "nk_resize2d_eval",
	"nk_op_reduce_mean_i8":       "nk_reduce_mean_i8_eval",
	"nk_op_add_typed":            "nk_typed_eval",
	"nk_op_mul_typed":            "nk_typed_eval",
	"nk_op_sub_typed":            "nk_typed_eval",
	"nk_op_div_typed":            "nk_typed_eval",
	"nk_op_maximum_typed":        "nk_typed_eval",
	"nk_op_minimum_typed":        "nk_typed_eval",
}

// defOf is the C symbol of the op table entry that runs op (the core picks
// it by op type and input 0's dtype).
func defOf(m *nkfile.Model, op *nkfile.Op) (string, error) {
	name := op.Type.String()
	sym := "nk_op_" + name
	if !strings.HasSuffix(name, "_i8") {
		if len(op.Inputs) == 0 || op.Inputs[0] < 0 || op.Inputs[0] >= len(m.Tensors) {
			return "", fmt.Errorf("op %s %q has no input 0", name, op.Name)
		}
		if dt := m.Tensors[op.Inputs[0]].DType; dt != nkfile.F32 && nkfile.TypedOp(op.Type, dt) {
			sym += "_typed" // the entry that serves every dtype but f32
		} else {
			sym += "_" + dt.String()
		}
	}
	if _, ok := evalOf[sym]; !ok {
		return "", fmt.Errorf("op %s %q on %s: no kernel in this netkit", name, op.Name, sym)
	}
	return sym, nil
}

// OpTable returns IDENT_ops.c: nk_op_lookup over the op table entries m
// uses (and, for the int8 shape ops, the float entries whose validation
// they reuse), so a firmware linking libnetkit.a carries only those ops'
// code. One per firmware: it defines the library's nk_op_lookup.
func OpTable(ident, modelFile string, m *nkfile.Model) ([]byte, error) {
	seen := map[string]bool{}
	for i := range m.Ops {
		sym, err := defOf(m, &m.Ops[i])
		if err != nil {
			return nil, err
		}
		seen[sym] = true
	}
	syms := make([]string, 0, len(seen))
	for s := range seen {
		syms = append(syms, s)
	}
	sort.Strings(syms)
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s_ops.c: the op table for %s, by `netkit aot`. Generated; do not edit.\n", ident, modelFile)
	b.WriteString(" * It defines nk_op_lookup, so the linker takes this table instead of\n")
	b.WriteString(" * libnetkit's full one and links only these ops' kernels. One per firmware:\n")
	b.WriteString(" * a firmware running other models needs their ops here too. */\n")
	b.WriteString("#include \"nk_lowered.h\"\n\n")
	for _, s := range syms {
		fmt.Fprintf(&b, "NK_HIDDEN extern const nk_op_def %s;\n", s)
	}
	fmt.Fprintf(&b, "\nstatic const nk_op_def *const %s_op_table[] = {\n", ident)
	for _, s := range syms {
		fmt.Fprintf(&b, "    &%s,\n", s)
	}
	b.WriteString("};\n\nconst nk_op_def *nk_op_lookup(uint32_t type, uint32_t dtype) {\n")
	fmt.Fprintf(&b, "    return nk_op_lookup_in(%s_op_table, sizeof %s_op_table / sizeof %s_op_table[0], type, dtype);\n}\n",
		ident, ident, ident)
	return b.Bytes(), nil
}

// Plan is what the loaded model's C core says about m, as data: the
// activation offset of every tensor (-1 for constants), the activation
// block and the shared workspace, and which ops run in place.
type Plan struct {
	TensorOffsets []int64
	Activations   int64
	Workspace     int64
	InPlace       []bool // per op
	// Stages, per op: how the int8 conv or depthwise stages its output
	// rows in the workspace (the plan put its output over its input
	// further than the kernels' direct order allows; OpInfo.Staged), the
	// zero Stage when it does not. Nil: none stages.
	Stages []Stage
	// Room, per op: the activation block's bytes free above its operands
	// that the invoke lends it as workspace, just below the workspace
	// (OpInfo.Room; NK_IN_PLACE_ROOM in IDENT_plan.c). Nil: none.
	Room []int64
}

// Stage is a staged op's band rows and slots, as the C core's plan fixed
// them (OpInfo.StageBand, StageSlots): written into the generated code so
// firmware runs only the band loop.
type Stage struct{ Band, Slots int }

// staged reports op k's stage and whether it stages.
func (p *Plan) staged(k int) (Stage, bool) {
	if p.Stages == nil || p.Stages[k].Band == 0 {
		return Stage{}, false
	}
	return p.Stages[k], true
}

// room is the bytes op k's workspace reaches below the shared one
// (Plan.Room), as the invoke lends them.
func (p *Plan) room(k int) int64 {
	if p.Room == nil {
		return 0
	}
	return p.Room[k]
}

// Lowered is everything `netkit aot --lower` writes.
type Lowered struct {
	Ident     string
	ModelFile string
	Model     *nkfile.Model
	Plan      Plan
}

// RAMBytes is the one buffer the lowered model runs in: the activation
// block, then the workspace at the next 16-byte boundary.
func (l *Lowered) RAMBytes() int64 { return l.workspaceOffset() + l.Plan.Workspace }

func (l *Lowered) workspaceOffset() int64 { return (l.Plan.Activations + 15) &^ 15 }

func (l *Lowered) check() error {
	m, p := l.Model, &l.Plan
	if err := checkPlan(m, p); err != nil {
		return err
	}
	for i := range m.Tensors {
		if t := &m.Tensors[i]; len(t.Shape) > nkfile.MaxRank {
			return fmt.Errorf("tensor %d %q: rank %d", i, t.Name, len(t.Shape))
		}
	}
	for k := range m.Ops {
		if _, err := defOf(m, &m.Ops[k]); err != nil {
			return err
		}
	}
	return nil
}

var cTypes = map[nkfile.DType]string{nkfile.F32: "float", nkfile.I8: "int8_t", nkfile.I16: "int16_t", nkfile.I32: "int32_t",
	nkfile.U8: "uint8_t", nkfile.U16: "uint16_t", nkfile.U32: "uint32_t", nkfile.I64: "int64_t", nkfile.U64: "uint64_t",
	nkfile.F16: "uint16_t" /* binary16 bits */, nkfile.F64: "double"}

// Header returns <ident>.h of the lowered model.
func (l *Lowered) Header() ([]byte, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	up := strings.ToUpper(l.Ident)
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s.h: the netkit model %s lowered to C by `netkit aot --lower`. Generated; do not edit.\n", l.Ident, l.ModelFile)
	fmt.Fprintf(&b, " *\n *     static uint8_t ram[%s_RAM_SIZE] __attribute__((aligned(16)));\n", up)
	fmt.Fprintf(&b, " *     memcpy(%s_INPUT0(ram), features, %s_INPUT0_BYTES);\n", up, up)
	fmt.Fprintf(&b, " *     %s_run(ram);   (NK_OK)\n", l.Ident)
	fmt.Fprintf(&b, " *     ... read %s_OUTPUT0(ram) ...\n", up)
	b.WriteString(" *\n * The weights and op parameters are const data (flash); the RAM is the buffer\n")
	b.WriteString(" * alone (activations at the planner's offsets, then the kernel workspace), the\n")
	b.WriteString(" * same on every target (no structs live in it).")
	if l.evalOps() > 0 {
		fmt.Fprintf(&b, " _run also takes one pointer per\n * tensor on the stack (%d here).", len(l.Model.Tensors))
	}
	b.WriteString(" Inputs and outputs are in the layout the\n * model stores them (NHWC), without the interpreter's NCHW conversion.\n */\n")
	fmt.Fprintf(&b, "#ifndef NETKIT_LOWERED_%s_H\n#define NETKIT_LOWERED_%s_H\n\n#include <stdint.h>\n#include \"netkit.h\"\n\n", up, up)
	fmt.Fprintf(&b, "/* Bytes of the buffer %s_run works in (16-byte aligned). */\n#define %s_RAM_SIZE %du\n", l.Ident, up, l.RAMBytes())
	fmt.Fprintf(&b, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", up, len(l.Model.Inputs), up, len(l.Model.Outputs))
	io := func(kind string, ios []nkfile.IO) {
		for i, g := range ios {
			t := &l.Model.Tensors[g.Tensor]
			fmt.Fprintf(&b, "/* %s %d \"%s\": %s %v */\n", strings.ToLower(kind), i, cComment(t.Name), t.DType, t.Shape)
			fmt.Fprintf(&b, "#define %s_%s%d_OFFSET %du\n", up, kind, i, l.Plan.TensorOffsets[g.Tensor])
			fmt.Fprintf(&b, "#define %s_%s%d_BYTES %du\n", up, kind, i, t.Bytes())
			fmt.Fprintf(&b, "#define %s_%s%d(ram) ((%s *)(void *)((uint8_t *)(ram) + %s_%s%d_OFFSET))\n",
				up, kind, i, cTypes[t.DType], up, kind, i)
			if q := t.Quant; q != nil && len(q.Scale) == 1 && q.Scale[0] > 0 {
				fmt.Fprintf(&b, "/* real = %s_%s%d_SCALE * (q - %s_%s%d_ZERO_POINT) */\n", up, kind, i, up, kind, i)
				fmt.Fprintf(&b, "#define %s_%s%d_SCALE %sf\n", up, kind, i, cFloat(q.Scale[0]))
				fmt.Fprintf(&b, "#define %s_%s%d_ZERO_POINT (%d)\n", up, kind, i, q.ZeroPoint[0])
			}
		}
	}
	io("INPUT", l.Model.Inputs)
	io("OUTPUT", l.Model.Outputs)
	states := l.states()
	if len(states) > 0 {
		fmt.Fprintf(&b, "/* STATE tensors (recurrent state carried from one run to the next), in the RAM\n * buffer: %s_reset_state must run before the first %s_run. */\n", l.Ident, l.Ident)
		fmt.Fprintf(&b, "#define %s_NUM_STATES %d\n", up, len(states))
	}
	b.WriteString("\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n")
	fmt.Fprintf(&b, "/* One inference in ram (%s_RAM_SIZE bytes, 16-byte aligned): reads the\n", up)
	b.WriteString(" * inputs and writes the outputs there. NK_OK, or a kernel's status. */\n")
	fmt.Fprintf(&b, "nk_status %s_run(void *ram);\n", l.Ident)
	if len(states) > 0 {
		b.WriteString("/* Sets every STATE tensor in ram to the real value 0 (its zero point), as a\n")
		b.WriteString(" * load or nk_model_reset_state does: before the first run and to start a new\n")
		b.WriteString(" * stream. The runs in between leave the states for the next run. */\n")
		fmt.Fprintf(&b, "void %s_reset_state(void *ram);\n", l.Ident)
	}
	b.WriteString("#ifdef __cplusplus\n}\n#endif\n\n#endif\n")
	return b.Bytes(), nil
}

const alignMacro = "#if defined(__GNUC__) || defined(__clang__)\n#define NK_LOWERED_ALIGN16 __attribute__((aligned(16)))\n" +
	"#else\n#error \"netkit aot --lower: no way to align the weights to 16 bytes on this compiler\"\n#endif\n\n"

// Source returns <ident>.c of the lowered model: the weights, a const
// argument struct (or constants) per op lowered to a direct kernel call,
// the tensor and op records of the ops that run through their eval (when
// there are any), and <ident>_run calling each op in order.
func (l *Lowered) Source() ([]byte, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	m, id := l.Model, l.Ident
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s.c: the netkit model %s lowered to C by `netkit aot --lower`. Generated; do not edit.\n", id, l.ModelFile)
	b.WriteString(" * The ops run in the interpreter's order through the kernel entry points and\n")
	b.WriteString(" * evals it runs, over the planner's offsets: the outputs are its bytes. */\n")
	fmt.Fprintf(&b, "#include \"nk_lowered.h\"\n#include \"%s.h\"\n\n", id)
	b.WriteString(alignMacro)

	// Weights: each constant's payload, 16-byte aligned like in a .nk image.
	for i := range m.Tensors {
		t := &m.Tensors[i]
		if !t.Const() {
			continue
		}
		fmt.Fprintf(&b, "/* tensor %d \"%s\": %s %v */\n", i, cComment(t.Name), t.DType, t.Shape)
		fmt.Fprintf(&b, "static const uint8_t %s_w%d[%d] NK_LOWERED_ALIGN16 = {", id, i, max(len(t.Data), 1))
		writeBytes(&b, t.Data)
		b.WriteString("};\n")
	}

	// The direct ops' arguments.
	d := &directGen{l: l, geoms: map[string]string{}}
	calls := make([]string, len(m.Ops))
	records := false
	for k := range m.Ops {
		if !direct(m, &m.Ops[k]) {
			records = true
			continue
		}
		c, err := d.call(k)
		if err != nil {
			return nil, err
		}
		calls[k] = c
	}
	if d.decls.Len() > 0 {
		b.WriteString("\n/* the kernels' arguments */\n")
		b.Write(d.decls.Bytes())
	}
	var slots []string
	if records {
		slots = l.writeRecords(&b)
	}

	fmt.Fprintf(&b, "\nnk_status %s_run(void *ram) {\n", id)
	b.WriteString("    uint8_t *act = (uint8_t *)ram;\n")
	if records {
		fmt.Fprintf(&b, "    void *data[%d] = {\n", len(m.Tensors))
		for i, sl := range slots {
			fmt.Fprintf(&b, "        %s, /* tensor %d */\n", sl, i)
		}
		b.WriteString("    };\n    nk_exec x;\n    nk_status s;\n")
		b.WriteString("    memset(&x, 0, sizeof x); /* x.host NULL: the portable and fast kernels, as on a device */\n")
		if l.hasQuantOps() {
			fmt.Fprintf(&b, "    x.img = &%s_img;\n", id)
		}
		fmt.Fprintf(&b, "    x.tensors = %s_tensors;\n    x.data = data;\n", id)
		fmt.Fprintf(&b, "    x.workspace = act + %du;\n    x.workspace_size = %du;\n", l.workspaceOffset(), l.Plan.Workspace)
	}
	rec := 0 // index in IDENT_ops
	for k := range m.Ops {
		op := &m.Ops[k]
		if calls[k] != "" {
			fmt.Fprintf(&b, "    %s /* op %d %s */\n", calls[k], k, op.Type)
			continue
		}
		sym, _ := defOf(m, op)
		fmt.Fprintf(&b, "    if ((s = %s(&%s_ops[%d], &x)) != NK_OK) return s; /* op %d %s */\n", evalOf[sym], id, rec, k, op.Type)
		rec++
	}
	b.WriteString("    return NK_OK;\n}\n")
	if states := l.states(); len(states) > 0 {
		fmt.Fprintf(&b, "\nvoid %s_reset_state(void *ram) {\n    uint8_t *act = (uint8_t *)ram;\n", id)
		for _, i := range states {
			t := &m.Tensors[i]
			zp := int32(0)
			if t.Quant != nil && len(t.Quant.ZeroPoint) > 0 {
				zp = t.Quant.ZeroPoint[0]
			}
			off := l.Plan.TensorOffsets[i]
			switch {
			case zp == 0:
				fmt.Fprintf(&b, "    memset(act + %du, 0, %du); /* tensor %d \"%s\" */\n", off, t.Bytes(), i, cComment(t.Name))
			case t.DType == nkfile.I8:
				fmt.Fprintf(&b, "    memset(act + %du, (uint8_t)(int8_t)(%d), %du); /* tensor %d \"%s\" */\n", off, zp, t.Bytes(), i, cComment(t.Name))
			default: // int16: the zero point in every element
				fmt.Fprintf(&b, "    { int16_t *v = (int16_t *)(void *)(act + %du); uint32_t k; /* tensor %d \"%s\" */\n", off, i, cComment(t.Name))
				fmt.Fprintf(&b, "      for (k = 0; k < %du; k++) v[k] = (int16_t)(%d); }\n", t.Elems(), zp)
			}
		}
		b.WriteString("}\n")
	}
	return b.Bytes(), nil
}

// states are the ids of the model's STATE tensors.
func (l *Lowered) states() []int {
	var ids []int
	for i := range l.Model.Tensors {
		if l.Model.Tensors[i].State {
			ids = append(ids, i)
		}
	}
	return ids
}

// evalOps counts the ops that run through their eval (not direct).
func (l *Lowered) evalOps() int {
	n := 0
	for k := range l.Model.Ops {
		if !direct(l.Model, &l.Model.Ops[k]) {
			n++
		}
	}
	return n
}

func (l *Lowered) hasQuantOps() bool {
	for k := range l.Model.Ops {
		if ty := l.Model.Ops[k].Type; ty == nkfile.OpQuantize || ty == nkfile.OpDequantize {
			return true
		}
	}
	return false
}

// writeRecords writes the tensor records, the QUANT records of the
// quantize/dequantize tensors and the op records of the ops that are not
// direct: what their evals read. It returns each tensor's data[] entry
// for IDENT_run (a weight array or an offset into the RAM).
func (l *Lowered) writeRecords(b *bytes.Buffer) (slots []string) {
	m, id := l.Model, l.Ident
	quantOff := make([]int64, len(m.Tensors))
	for i := range quantOff {
		quantOff[i] = -1
	}
	var quant []byte
	for k := range m.Ops {
		if ty := m.Ops[k].Type; ty != nkfile.OpQuantize && ty != nkfile.OpDequantize {
			continue
		}
		for _, ti := range append(append([]int{}, m.Ops[k].Inputs...), m.Ops[k].Outputs...) {
			if ti < 0 || quantOff[ti] >= 0 || m.Tensors[ti].Quant == nil {
				continue
			}
			q := m.Tensors[ti].Quant
			quantOff[ti] = int64(len(quant))
			quant = binary.LittleEndian.AppendUint32(quant, uint32(int32(q.Axis)))
			quant = binary.LittleEndian.AppendUint32(quant, uint32(len(q.Scale)))
			for _, s := range q.Scale {
				quant = binary.LittleEndian.AppendUint32(quant, math.Float32bits(s))
			}
			for _, z := range q.ZeroPoint {
				quant = binary.LittleEndian.AppendUint32(quant, uint32(z))
			}
		}
	}
	if l.hasQuantOps() {
		fmt.Fprintf(b, "/* QUANT records of the quantize/dequantize tensors */\nstatic const uint8_t %s_quant[%d] NK_LOWERED_ALIGN16 = {", id, max(len(quant), 1))
		writeBytes(b, quant)
		b.WriteString("};\n")
		fmt.Fprintf(b, "static const nk_image %s_img = {.base = %s_quant, .size = %d, .sec = {[NK_SECTION_QUANT] = {0, %d, 1}}};\n",
			id, id, len(quant), len(quant))
	}

	// Tensor records: the .nk TENSORS record layout (format 1.1) the
	// interpreter reads in place, minus the payload offset (there is no
	// image: run() points data[] at the weight arrays and activations).
	fmt.Fprintf(b, "\nstatic const nk_tensor_rt %s_tensors[%d] = {\n", id, len(m.Tensors))
	slots = make([]string, len(m.Tensors))
	for i := range m.Tensors {
		t := &m.Tensors[i]
		dims := make([]string, len(t.Shape))
		for d, v := range t.Shape {
			dims[d] = fmt.Sprint(v)
		}
		size, q := 0, "NK_NONE"
		if t.Const() {
			size = len(t.Data)
			slots[i] = fmt.Sprintf("(void *)(uintptr_t)%s_w%d", id, i)
		} else {
			slots[i] = fmt.Sprintf("act + %du", l.Plan.TensorOffsets[i])
		}
		if quantOff[i] >= 0 {
			q = fmt.Sprint(quantOff[i])
		}
		fmt.Fprintf(b, "    {.name = NK_NONE, .dtype = %d, .rank = %d, .is_const = %d, .dims = {%s}, "+
			".data_offset = NK_NONE, .data_size = %du, .quant = %s, .elems = %du},\n", t.DType, len(t.Shape), b2i(t.Const()),
			strings.Join(dims, ", "), size, q, t.Elems())
	}
	b.WriteString("};\n\n")

	// Op records (tensor ids and parameter words) of the ops run by eval,
	// in order.
	for k := range m.Ops {
		op := &m.Ops[k]
		if direct(m, op) {
			continue
		}
		words := make([]string, 0, len(op.Inputs)+len(op.Outputs)+len(op.Params))
		for _, v := range op.Inputs {
			words = append(words, tensorID(v))
		}
		for _, v := range op.Outputs {
			words = append(words, tensorID(v))
		}
		for _, v := range op.Params {
			words = append(words, fmt.Sprintf("0x%xu", v))
		}
		fmt.Fprintf(b, "static const uint32_t %s_op%d[] = {%s};\n", id, k, strings.Join(words, ", "))
	}
	fmt.Fprintf(b, "\nstatic const nk_op_rt %s_ops[%d] = {\n", id, l.evalOps())
	for k := range m.Ops {
		op := &m.Ops[k]
		if direct(m, op) {
			continue
		}
		nIn, nOut := len(op.Inputs), len(op.Outputs)
		params := "NULL"
		if len(op.Params) > 0 {
			params = fmt.Sprintf("%s_op%d + %d", id, k, nIn+nOut)
		}
		fmt.Fprintf(b, "    {.type = %d, .n_in = %d, .n_out = %d, .n_params = %d, .act = %d, .in_place = %d, .name = \"\", "+
			".in = %s_op%d, .out = %s_op%d + %d, .params = %s}, /* %s */\n", op.Type, nIn, nOut,
			len(op.Params), op.Act, b2i(l.Plan.InPlace[k]), id, k, id, k, nIn, params, op.Type)
	}
	b.WriteString("};\n")
	return slots
}

func tensorID(v int) string {
	if v < 0 {
		return "NK_NONE"
	}
	return fmt.Sprint(v)
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

func writeBytes(b *bytes.Buffer, p []byte) {
	for i, c := range p {
		if i%24 == 0 {
			b.WriteString("\n   ")
		}
		fmt.Fprintf(b, " %d,", c)
	}
	if len(p) == 0 {
		b.WriteString("0")
	}
	b.WriteString("\n")
}
