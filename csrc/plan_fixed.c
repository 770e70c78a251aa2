/*
 * plan_fixed.c — applies an activation plan computed on the host by
 * `netkit aot` (IDENT_plan.c) in place of running the planner at load.
 *
 * What is checked, since the plan comes from outside the image:
 *   - identity: the plan names its image by header checksum and size
 *     (nk_format_open has verified that checksum over the bytes), and its
 *     tensor and op counts; the load options must allow what the plan does
 *     (an output overlapping its input needs overlap on and netkit's own
 *     kernel for that op, as plan.c requires);
 *   - memory safety: every activation tensor lies inside the block (the
 *     plan has one offset per non-constant tensor, in id order), so even an image forged to the same checksum
 *     cannot make an op write outside the activation block.
 * Not checked: that tensors alive together do not share bytes. That holds
 * for the image the plan was made for, which the checksum pins down.
 */
#include "nk_lowered.h"

nk_status nk_plan_fixed_apply(const nk_fixed_plan *p, const nk_image *img, const nk_tensor_rt *t,
                              uint32_t n_tensors, const nk_op_seq *ops, uint32_t n_ops, int overlap,
                              uint32_t *act_offset, nk_plan_stats *stats, size_t *workspace,
                              int32_t *workspace_op, nk_error_t *err) {
    const uint8_t *cur = NULL;
    nk_op_rt view;
    uint32_t i, j, v[4];
    v[0] = p->version;
    v[1] = NK_FIXED_PLAN_VERSION;
    if (v[0] != v[1])
        return nk_fail_f(err, NK_ERR_UNSUPPORTED, -1,
                         "the firmware's activation plan (netkit aot's IDENT_plan.c) is of format %u, this "
                         "netkit reads %u: run netkit aot again",
                         NULL, v);
    v[0] = p->image_crc;
    v[1] = p->image_size;
    v[2] = nk_rd_u32(img->base + 8);
    v[3] = img->size;
    if (v[0] != v[2] || v[1] != v[3] || n_tensors != p->n_tensors || n_ops != p->n_ops)
        return nk_fail_f(err, NK_ERR_UNSUPPORTED, -1,
                         "the firmware's activation plan (netkit aot's IDENT_plan.c) is for image "
                         "%x of %u B, not this one (%x, %u B): link the planner to load others",
                         NULL, v);
    for (i = 0; i < n_ops; i++) {
        const nk_op_rt *op = nk_op_seq_at(ops, i, &view, &cur);
        nk_op_seq_mark(ops, i, p->in_place[i]);
        /* an output over its input: only where plan.c would allow it */
        if (NK_IN_PLACE_KIND(p->in_place[i]) && op->def != NULL && op->def->out_shift != NULL &&
            (!overlap
#if NETKIT_BACKEND
             || op->impl != NULL
#endif
             ))
            return nk_fail(err, NK_ERR_UNSUPPORTED, (int32_t)i,
                           "the firmware's activation plan overlaps this op's output with its "
                           "input, which this load or kernel does not allow: link the planner");
        if (NK_IN_PLACE_KIND(p->in_place[i]) == 3) {
            /* staged rows, ahead of the op's own workspace: band and slots
             * as the host computed them (nk_i8_conv_stage is not linked);
             * the slots' bytes follow from them, so the band loop stays
             * inside the workspace whatever they are */
            const nk_tensor_rt *out = &t[op->out[0]];
            const int32_t band = nk_i8_stage_in_place_band(p->in_place[i]);
            const int32_t slots = nk_i8_stage_in_place_slots(p->in_place[i]);
            size_t staging;
            if ((op->type != NK_OP_CONV2D_I8 && op->type != NK_OP_DEPTHWISE_CONV2D_I8) || band == 0 ||
                slots == 0)
                return nk_fail(err, NK_ERR_FORMAT, (int32_t)i,
                               "the firmware's activation plan stages an op that cannot stage");
            /* a validated int8 conv's output is [N,H,W,C] */
            staging = nk_i8_stage_bytes(band, slots, (size_t)out->dims[2] * (size_t)out->dims[3]);
            if (staging + op->workspace > *workspace) {
                *workspace = staging + op->workspace;
                *workspace_op = (int32_t)i;
            }
        } else if ((p->in_place[i] & ~NK_IN_PLACE_ROOM) > 3) { /* band and slots: staged ops only */
            return nk_fail(err, NK_ERR_FORMAT, (int32_t)i,
                           "the firmware's activation plan has an unknown in-place kind");
        }
    }
    for (i = 0, j = 0; i < n_tensors; i++) {
        act_offset[i] = 0;
        if (t[i].is_const) continue;
        v[0] = i;
        v[1] = j < p->n_activations ? p->offsets[j] : NK_NONE;
        v[2] = nk_tensor_bytes(&t[i]);
        v[3] = p->peak;
        if (v[1] > v[3] || v[2] > v[3] - v[1])
            return nk_fail_f(err, NK_ERR_FORMAT, -1,
                             "the firmware's activation plan puts tensor %u at %u (%u B) outside "
                             "its %u B block",
                             NULL, v);
        act_offset[i] = v[1];
        j++;
    }
    if (j != p->n_activations)
        return nk_fail(err, NK_ERR_FORMAT, -1,
                       "the firmware's activation plan has another number of activations");
    memset(stats, 0, sizeof *stats);
    stats->peak = p->peak;
    stats->peak_step = p->peak_step;
    return NK_OK;
}
