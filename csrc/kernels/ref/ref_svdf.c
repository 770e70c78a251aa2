/* ref_svdf.c — one step of TFLite's integer SVDF (int8 input and output,
 * int8 weights_feature, and an int8 or int16 state with weights_time of
 * the same dtype): the state shifts one slot left, the newest slot of each
 * filter takes requantize(weights_feature . (x - in_zp)), and each unit sums
 * its rank filters' weights_time . (state - state_zp) plus the bias, then
 * requantizes to the int8 output. As TFLite's reference kernel, the fused
 * activation is not applied (the int8 output is only clamped to int8), the
 * new state value saturates to the state dtype before its zero point is
 * added (and wraps, as TFLite's integer conversion does), and the int32
 * sums wrap. */
#include "ref_i8.h"
#include <string.h>

/* v reduced to 8 or 16 bits, two's complement: the conversion TFLite's
 * store of zero point + value into the state performs. */
static inline int32_t nk_svdf_wrap(int32_t v, int is_i16) {
    return is_i16 ? (int32_t)(((uint32_t)v & 0xFFFFu) ^ 0x8000u) - 0x8000
                  : (int32_t)(((uint32_t)v & 0xFFu) ^ 0x80u) - 0x80;
}

static inline int32_t nk_svdf_load(const void *p, size_t i, int is_i16) {
    return is_i16 ? (int32_t)((const int16_t *)p)[i] : (int32_t)((const int8_t *)p)[i];
}

void nk_ref_svdf_i8(const nk_ref_svdf_params *p, const int8_t *x, const int8_t *wf,
                    const void *wt, const int32_t *bias, void *state, int8_t *y) {
    const int is_i16 = p->state_i16;
    const size_t esz = is_i16 ? 2u : 1u;
    const int32_t smin = is_i16 ? -32768 : -128, smax = -smin - 1;
    const int32_t units = p->filters / p->rank;
    const size_t per_batch = (size_t)p->filters * (size_t)p->memory;
    const size_t total = (size_t)p->batch * per_batch;
    const nk_q_rq rq1 = nk_q_rq_make(p->mult1, p->shift1);
    const nk_q_rq rq2 = nk_q_rq_make(p->mult2, p->shift2);
    int32_t b, f, c, u, r, j;
    /* the whole state moves one element left, across filters and batches
     * (the slot that crosses into the previous filter is overwritten below) */
    memmove(state, (const uint8_t *)state + esz, (total - 1u) * esz);
    for (b = 0; b < p->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)p->input;
        uint8_t *sb = (uint8_t *)state + (size_t)b * per_batch * esz;
        for (f = 0; f < p->filters; f++) {
            const int8_t *w = wf + (size_t)f * (size_t)p->input;
            const size_t slot = (size_t)f * (size_t)p->memory + (size_t)p->memory - 1u;
            uint32_t acc = 0;
            int32_t v;
            for (c = 0; c < p->input; c++)
                acc += (uint32_t)((int32_t)w[c] * ((int32_t)xb[c] - p->in_zp));
            v = nk_q_clamp(nk_q_rq_apply(&rq1, (int32_t)acc), smin, smax);
            v = nk_svdf_wrap(v + p->state_zp, is_i16);
            if (is_i16)
                ((int16_t *)(void *)sb)[slot] = (int16_t)v;
            else
                ((int8_t *)sb)[slot] = (int8_t)v;
        }
        for (u = 0; u < units; u++) {
            uint32_t acc = bias != NULL ? (uint32_t)bias[u] : 0u;
            int32_t v;
            for (r = 0; r < p->rank; r++) {
                const size_t fi = (size_t)u * (size_t)p->rank + (size_t)r;
                const size_t base = fi * (size_t)p->memory;
                for (j = 0; j < p->memory; j++)
                    /* int16 x (int16 - zp) may pass 2^31: multiply modulo 2^32 */
                    acc += (uint32_t)nk_svdf_load(wt, base + (size_t)j, is_i16) *
                           (uint32_t)(nk_svdf_load(sb, base + (size_t)j, is_i16) - p->state_zp);
            }
            v = nk_q_rq_apply(&rq2, (int32_t)acc);
            y[(size_t)b * (size_t)units + (size_t)u] = nk_q_zp_clamp_s8(v, p->out_zp, -128, 127);
        }
    }
}

void nk_ref_requantize_int(const void *x, uint32_t x_size, void *y, uint32_t y_size, size_t n,
                           int32_t mult, int32_t shift, int32_t in_zp, int32_t out_zp) {
    const nk_q_rq rq = nk_q_rq_make(mult, shift);
    const int32_t lo = y_size == 1u ? -128 : y_size == 2u ? -32768 : INT32_MIN;
    const int32_t hi = y_size == 1u ? 127 : y_size == 2u ? 32767 : INT32_MAX;
    size_t i;
    for (i = 0; i < n; i++) {
        const int32_t in = x_size == 1u    ? (int32_t)((const int8_t *)x)[i]
                           : x_size == 2u ? (int32_t)((const int16_t *)x)[i]
                                               : ((const int32_t *)x)[i];
        /* TFLite: requantize(in - in_zp) + out_zp in int32 (wrapping), then clamp */
        const int32_t d = (int32_t)((uint32_t)in - (uint32_t)in_zp);
        const int32_t v =
            nk_q_clamp((int32_t)((uint32_t)nk_q_rq_apply(&rq, d) + (uint32_t)out_zp), lo, hi);
        if (y_size == 1u)
            ((int8_t *)y)[i] = (int8_t)v;
        else if (y_size == 2u)
            ((int16_t *)y)[i] = (int16_t)v;
        else
            ((int32_t *)y)[i] = v;
    }
}
