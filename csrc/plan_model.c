/*
 * plan_model.c — the loader's planning step, in its own object so a
 * firmware can replace it: nk_plan_model runs the planner (plan.c) here,
 * while the IDENT_plan.c that `netkit aot` writes defines nk_plan_model over
 * the plan it computed on the host (nk_plan_fixed_apply, plan_fixed.c).
 * With that file linked, neither this object nor plan.c comes out of
 * libnetkit.a, nor the ops' overlap rules the planner calls.
 */
#include "plan.h"
#include "nk_lowered.h" /* nk_i8_conv_stage, nk_i8_stage_in_place */
#include "ops/ops_common.h"

/* The planner calls the ops' out_shift, which calls nk_ops_raster_shift:
 * referencing overlap_rules.c links it (the ops' reference is weak). */
NK_HIDDEN const void *const nk_plan_needs_overlap_rules = &nk_ops_overlap_rules;

nk_status nk_plan_model(const struct nk_image *img, const nk_tensor_rt *t, uint8_t *io,
                        uint32_t n_tensors, const nk_op_seq *ops, uint32_t n_ops, int overlap,
                        nk_arena_t *scratch, uint32_t *act_offset, nk_plan_stats *stats,
                        size_t *workspace, int32_t *workspace_op, nk_error_t *err) {
    const uint8_t *cur = NULL;
    nk_op_rt view;
    uint32_t k;
    nk_status s;
    for (k = 0; k < n_tensors; k++) io[k] = (uint8_t)nk_format_io_flags(img, k);
    s = nk_plan_staged(t, io, n_tensors, ops, n_ops, overlap, scratch, act_offset, stats, workspace,
                       workspace_op, err);
    /* the staged ops' band and slots, once: their evals read them from in_place */
    for (k = 0; s == NK_OK && k < n_ops; k++) {
        const nk_op_rt *op = nk_op_seq_at(ops, k, &view, &cur);
        nk_ref_conv_geom g;
        nk_i8_stage st;
        if (NK_IN_PLACE_KIND(op->in_place) != 3) continue;
        nk_ops_conv_geom(op, t, &g);
        /* marked by the planner, so it stages */
        if (nk_i8_conv_stage(&g, op->type != NK_OP_CONV2D_I8, &st))
            nk_op_seq_mark(ops, k, nk_i8_stage_in_place(st.band, st.slots) | (op->in_place & NK_IN_PLACE_ROOM));
    }
    return s;
}
