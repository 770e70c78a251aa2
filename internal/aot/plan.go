package aot

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/netkit/netkit/internal/nkfile"
)

// fixedPlanVersion is NK_FIXED_PLAN_VERSION (csrc/nk_lowered.h): the
// meaning of the in-place bytes this package writes (the room bit, slots
// counted from 1).
const fixedPlanVersion = 2

// checkPlan checks p against m: one offset per tensor, -1 exactly for the
// constants, every activation inside the block, one in-place flag per op.
func checkPlan(m *nkfile.Model, p *Plan) error {
	if len(p.TensorOffsets) != len(m.Tensors) {
		return fmt.Errorf("plan has %d tensor offsets, model %d tensors", len(p.TensorOffsets), len(m.Tensors))
	}
	if len(p.InPlace) != len(m.Ops) || (p.Stages != nil && len(p.Stages) != len(m.Ops)) ||
		(p.Room != nil && len(p.Room) != len(m.Ops)) {
		return fmt.Errorf("plan has %d ops, model %d", len(p.InPlace), len(m.Ops))
	}
	for k, st := range p.Stages {
		// what nk_i8_stage_in_place packs into a byte
		if st != (Stage{}) && (st.Band < 1 || st.Band > 3 || st.Slots < 1 || st.Slots > 8 ||
			(m.Ops[k].Type != nkfile.OpConv2DI8 && m.Ops[k].Type != nkfile.OpDepthwiseConv2DI8)) {
			return fmt.Errorf("op %d: plan stages %d slots of %d rows", k, st.Slots, st.Band)
		}
	}
	for i := range m.Tensors {
		t := &m.Tensors[i]
		if t.Const() != (p.TensorOffsets[i] < 0) {
			return fmt.Errorf("tensor %d %q: plan and model disagree on whether it is constant", i, t.Name)
		}
		if !t.Const() && p.TensorOffsets[i]+int64(t.Bytes()) > p.Activations {
			return fmt.Errorf("tensor %d %q: offset %d + %d B is past the %d B activation block",
				i, t.Name, p.TensorOffsets[i], t.Bytes(), p.Activations)
		}
	}
	return nil
}

// FixedPlan returns <ident>_plan.c: the activation plan the C core made
// for image (decoded as m) at load on the host, as const data, with the
// nk_plan_model that applies it (nk_plan_fixed_apply checks it belongs to
// the loaded image). Linked with libnetkit.a, the loader then runs no
// planner and plan.c is not linked. A model with batch-norm ops gets a file
// that defines nothing: the load folds them, and the planner runs there.
func FixedPlan(ident, modelFile string, image []byte, m *nkfile.Model, p Plan) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s_plan.c: the activation plan of %s, by `netkit aot`. Generated; do not edit.\n", ident, modelFile)
	for _, op := range m.Ops {
		if op.Type == nkfile.OpBatchNorm {
			b.WriteString(" * Empty: the model has batch-norm ops, which the load folds into the conv\n")
			b.WriteString(" * before planning (build-dependent), so the planner runs at load. */\n")
			fmt.Fprintf(&b, "typedef int %s_plan_runs_at_load;\n", ident)
			return b.Bytes(), nil
		}
	}
	if err := checkPlan(m, &p); err != nil {
		return nil, err
	}
	if len(image) < 16 || p.Activations > 0xffffffff {
		return nil, fmt.Errorf("no plan for a %d B image with a %d B activation block", len(image), p.Activations)
	}
	b.WriteString(" * It defines nk_plan_model, so the loader applies this plan (after checking\n")
	b.WriteString(" * it is for the image being loaded: header checksum and size) instead of\n")
	b.WriteString(" * planning, and libnetkit's planner is not linked. Loading any other image\n")
	b.WriteString(" * then fails with NK_ERR_UNSUPPORTED: leave this file out to load others. */\n")
	b.WriteString("#include \"nk_lowered.h\"\n\n")
	var offs []int64
	for _, off := range p.TensorOffsets {
		if off >= 0 {
			offs = append(offs, off)
		}
	}
	fmt.Fprintf(&b, "/* the offset of each non-constant tensor, in id order */\n")
	fmt.Fprintf(&b, "static const uint32_t %s_plan_offsets[%d] = {", ident, max(len(offs), 1))
	for i, off := range offs {
		if i%8 == 0 {
			b.WriteString("\n   ")
		}
		fmt.Fprintf(&b, " %d,", off)
	}
	fmt.Fprintf(&b, "\n};\nstatic const uint8_t %s_plan_in_place[%d] = {", ident, max(len(m.Ops), 1))
	for k, in := range p.InPlace {
		if k%16 == 0 {
			b.WriteString("\n   ")
		}
		st, staged := p.staged(k)
		v := 0
		switch {
		case staged: // staged rows: 3 with band and slots (nk_i8_stage_in_place)
			v = 3 | st.Band<<2 | (st.Slots-1)<<4
		case in:
			v = 1
		}
		if p.Room != nil && p.Room[k] > 0 {
			v |= 0x80 // NK_IN_PLACE_ROOM
		}
		fmt.Fprintf(&b, " %d,", v)
	}
	fmt.Fprintf(&b, "\n};\n\nstatic const nk_fixed_plan %s_plan = {\n", ident)
	fmt.Fprintf(&b, "    0x%08xu, %du, /* image checksum and size */\n", binary.LittleEndian.Uint32(image[8:]), binary.LittleEndian.Uint32(image[12:]))
	fmt.Fprintf(&b, "    %du, %du, /* tensors, ops */\n", len(m.Tensors), len(m.Ops))
	fmt.Fprintf(&b, "    %du, /* activation block bytes */\n", p.Activations)
	fmt.Fprintf(&b, "    %du, /* the op whose tensors reach the block's top */\n", peakOp(m, &p))
	fmt.Fprintf(&b, "    %d, %s_plan_offsets,\n    %s_plan_in_place,\n", len(offs), ident, ident)
	fmt.Fprintf(&b, "    %du, /* the format of the in-place bytes (NK_FIXED_PLAN_VERSION) */\n};\n", fixedPlanVersion)
	fmt.Fprintf(&b, "/* headers of another netkit: fails to compile */\n")
	fmt.Fprintf(&b, "typedef char %s_plan_format[NK_FIXED_PLAN_VERSION == %du ? 1 : -1];\n\n", ident, fixedPlanVersion)
	b.WriteString("nk_status nk_plan_model(const struct nk_image *img, const nk_tensor_rt *t, uint8_t *io,\n")
	b.WriteString("                        uint32_t n_tensors, const nk_op_seq *ops, uint32_t n_ops, int overlap,\n")
	b.WriteString("                        nk_arena_t *scratch, uint32_t *act_offset, nk_plan_stats *stats,\n")
	b.WriteString("                        size_t *workspace, int32_t *workspace_op, nk_error_t *err) {\n")
	b.WriteString("    (void)io;\n    (void)scratch;\n")
	fmt.Fprintf(&b, "    return nk_plan_fixed_apply(&%s_plan, img, t, n_tensors, ops, n_ops, overlap, act_offset, stats,\n", ident)
	b.WriteString("                               workspace, workspace_op, err);\n}\n")
	return b.Bytes(), nil
}

// peakOp is the first op one of whose runtime inputs or outputs ends
// highest in the block: the op an activation block overflow names (the
// planner names the first step of most live bytes; both are 0 for a
// model without ops).
func peakOp(m *nkfile.Model, p *Plan) int {
	best, top := 0, int64(-1)
	for k := range m.Ops {
		for _, ids := range [][]int{m.Ops[k].Inputs, m.Ops[k].Outputs} {
			for _, id := range ids {
				if id < 0 || id >= len(m.Tensors) || m.Tensors[id].Const() {
					continue
				}
				if end := p.TensorOffsets[id] + int64(m.Tensors[id].Bytes()); end > top {
					best, top = k, end
				}
			}
		}
	}
	return best
}
