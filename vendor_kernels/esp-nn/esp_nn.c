/*
 * esp_nn.c — the ESP-NN backend over its portable C kernels (*_ansi: what
 * ESP-NN runs on ESP32-C3/C6 and any chip without its assembly), compiled
 * from a tree the user supplies (-DNETKIT_ESP_NN_DIR=<esp-nn tree>,
 * docs/TARGETS.md).
 *
 * The ansi kernels process one image, ignore dilation, keep dimensions in
 * uint16_t and window origins in int16_t: supports() takes what fits (the
 * adapter loops over the batch itself) and leaves the rest to netkit.
 * They need no scratch.
 *
 * Rounding: ESP-NN's portable kernels requantize with TFLite's double
 * rounding only, so the build refuses NETKIT_SINGLE_ROUNDING with it.
 */
#include "esp_nn_ansi_headers.h"

#include "backend.h"
#include "ops/ops_i8.h"

#if defined(NETKIT_SINGLE_ROUNDING) && NETKIT_SINGLE_ROUNDING
#error "ESP-NN's portable kernels have no single rounding: build without NETKIT_SINGLE_ROUNDING"
#endif

/* int16_t window origins (out * stride - pad) and uint16_t sizes */
#define NK_ESP_MAX 32767

static int nk_esp_fits(int32_t v) { return v >= 0 && v <= NK_ESP_MAX; }

static data_dims_t nk_esp_dims(const nk_tensor_rt *t) {
    data_dims_t d;
    d.height = t->dims[1];
    d.width = t->dims[2];
    d.channels = t->dims[3];
    d.extra = 1;
    return d;
}

/* Bytes of one image of an NHWC tensor. */
static size_t nk_esp_image(const nk_tensor_rt *t) {
    return (size_t)t->dims[1] * (size_t)t->dims[2] * (size_t)t->dims[3];
}

/* An NHWC window op fits the kernels' integer types. */
static int nk_esp_window_fits(const nk_tensor_rt *x, const nk_tensor_rt *y,
                              const nk_ops_window *w) {
    return nk_esp_fits(x->dims[1]) && nk_esp_fits(x->dims[2]) && nk_esp_fits(x->dims[3]) &&
           nk_esp_fits(y->dims[1]) && nk_esp_fits(y->dims[2]) && nk_esp_fits(y->dims[3]) &&
           nk_esp_fits(w->k_h) && nk_esp_fits(w->k_w) && nk_esp_fits(w->pad_top) &&
           nk_esp_fits(w->pad_left) &&
           (int64_t)y->dims[1] * w->stride_h <= NK_ESP_MAX &&
           (int64_t)y->dims[2] * w->stride_w <= NK_ESP_MAX;
}

/* ---- conv and depthwise ---- */

static int nk_esp_conv_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_ops_window win;
    nk_ops_conv_window(op, &t[op->in[1]], &win);
    return win.dil_h == 1 && win.dil_w == 1 &&
           nk_esp_window_fits(&t[op->in[0]], &t[op->out[0]], &win);
}

static nk_status nk_esp_conv_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *tx = nk_ops_tin(op, x, 0), *tw = nk_ops_tin(op, x, 1),
                       *ty = nk_ops_tout(op, x);
    const size_t in_image = nk_esp_image(tx), out_image = nk_esp_image(ty);
    data_dims_t in = nk_esp_dims(tx), out = nk_esp_dims(ty), filter;
    quant_data_t q;
    nk_ops_window win;
    const int8_t *xin = nk_i8_in(op, x, 0), *w = nk_i8_in(op, x, 1);
    const int32_t *bias = nk_i8_in_i32(op, x, 2);
    int8_t *y = nk_i8_out(op, x);
    int32_t b, k, *mult = NULL, *shift = NULL;
    nk_ops_conv_window(op, tw, &win);
    filter.height = win.k_h;
    filter.width = win.k_w;
    filter.channels = tw->dims[3]; /* conv: C/groups, its grouped-conv convention */
    filter.extra = 1;
    q.mult = (int32_t *)nk_i8_in_i32(op, x, 3);
    q.shift = (int32_t *)nk_i8_in_i32(op, x, 4);
    if (nk_ops_tin(op, x, 3)->dims[0] == 1) {
        /* the kernels want one multiplier per output channel */
        mult = (int32_t *)x->workspace;
        shift = mult + ty->dims[3];
        for (k = 0; k < ty->dims[3]; k++) {
            mult[k] = q.mult[0];
            shift[k] = q.shift[0];
        }
        q.mult = mult;
        q.shift = shift;
    }
    for (b = 0; b < tx->dims[0]; b++) {
        const int8_t *xb = xin + (size_t)b * in_image;
        int8_t *yb = y + (size_t)b * out_image;
        if (op->type == NK_OP_CONV2D_I8) {
            conv_params_t p;
            p.in_offset = -nk_param_i32(op, 9);
            p.out_offset = nk_param_i32(op, 10);
            p.stride.height = win.stride_h;
            p.stride.width = win.stride_w;
            p.padding.height = win.pad_top;
            p.padding.width = win.pad_left;
            p.dilation.height = p.dilation.width = 1;
            p.activation.min = nk_param_i32(op, 11);
            p.activation.max = nk_param_i32(op, 12);
            esp_nn_conv_s8_ansi(&in, xb, &filter, w, bias, &out, yb, &p, &q);
        } else {
            dw_conv_params_t p;
            p.in_offset = -nk_param_i32(op, 9);
            p.out_offset = nk_param_i32(op, 10);
            p.ch_mult = nk_param_i32(op, 8);
            p.stride.height = win.stride_h;
            p.stride.width = win.stride_w;
            p.padding.height = win.pad_top;
            p.padding.width = win.pad_left;
            p.dilation.height = p.dilation.width = 1;
            p.activation.min = nk_param_i32(op, 11);
            p.activation.max = nk_param_i32(op, 12);
            esp_nn_depthwise_conv_s8_ansi(&in, xb, &filter, w, bias, &out, yb, &p, &q);
        }
    }
    return NK_OK;
}

/* Per-tensor multipliers widened to per-channel arrays. */
static size_t nk_esp_conv_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    if (t[op->in[3]].dims[0] > 1)
        return 0;
    return 2u * (size_t)t[op->out[0]].dims[3] * sizeof(int32_t);
}

/* ---- dense ---- */

static int nk_esp_fc_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *w = &t[op->in[1]];
    return w->dims[0] <= 65535 && w->dims[1] <= 65535;
}

static nk_status nk_esp_fc_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *tw = nk_ops_tin(op, x, 1);
    const int32_t depth = tw->dims[1], units = tw->dims[0];
    const uint32_t rows = nk_ops_tin(op, x, 0)->elems / (uint32_t)depth;
    const int32_t *mult = nk_i8_in_i32(op, x, 3), *shift = nk_i8_in_i32(op, x, 4);
    const int per_channel = nk_ops_tin(op, x, 3)->dims[0] > 1;
    uint32_t r;
    for (r = 0; r < rows; r++) {
        const int8_t *xr = nk_i8_in(op, x, 0) + (size_t)r * (size_t)depth;
        int8_t *yr = nk_i8_out(op, x) + (size_t)r * (size_t)units;
        if (per_channel)
            esp_nn_fully_connected_per_ch_s8_ansi(
                xr, -nk_param_i32(op, 0), (uint16_t)depth, nk_i8_in(op, x, 1), 0,
                nk_i8_in_i32(op, x, 2), yr, (uint16_t)units, nk_param_i32(op, 1), shift, mult,
                nk_param_i32(op, 2), nk_param_i32(op, 3));
        else
            esp_nn_fully_connected_s8_ansi(xr, -nk_param_i32(op, 0), (uint16_t)depth,
                                           nk_i8_in(op, x, 1), 0, nk_i8_in_i32(op, x, 2), yr,
                                           (uint16_t)units, nk_param_i32(op, 1), shift[0],
                                           mult[0], nk_param_i32(op, 2), nk_param_i32(op, 3));
    }
    return NK_OK;
}

/* ---- pools ---- */

static int nk_esp_pool_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_ops_window win;
    nk_ops_pool_window(op, &win);
    return win.dil_h == 1 && win.dil_w == 1 && /* ESP-NN's pools have no dilation */
           nk_esp_window_fits(&t[op->in[0]], &t[op->out[0]], &win);
}

static nk_status nk_esp_pool_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *tx = nk_ops_tin(op, x, 0), *ty = nk_ops_tout(op, x);
    const size_t in_image = nk_esp_image(tx), out_image = nk_esp_image(ty);
    nk_ops_window win;
    int32_t b;
    nk_ops_pool_window(op, &win);
    for (b = 0; b < tx->dims[0]; b++) {
        const int8_t *xb = nk_i8_in(op, x, 0) + (size_t)b * in_image;
        int8_t *yb = nk_i8_out(op, x) + (size_t)b * out_image;
        if (op->type == NK_OP_AVG_POOL2D_I8)
            esp_nn_avg_pool_s8_ansi(xb, (uint16_t)tx->dims[2], (uint16_t)tx->dims[1], yb,
                                    (uint16_t)ty->dims[2], (uint16_t)ty->dims[1],
                                    (uint16_t)win.stride_w, (uint16_t)win.stride_h,
                                    (uint16_t)win.k_w, (uint16_t)win.k_h, (uint16_t)win.pad_left,
                                    (uint16_t)win.pad_top, nk_param_i32(op, 8),
                                    nk_param_i32(op, 9), (uint16_t)tx->dims[3]);
        else
            esp_nn_max_pool_s8_ansi(xb, (uint16_t)tx->dims[2], (uint16_t)tx->dims[1], yb,
                                    (uint16_t)ty->dims[2], (uint16_t)ty->dims[1],
                                    (uint16_t)win.stride_w, (uint16_t)win.stride_h,
                                    (uint16_t)win.k_w, (uint16_t)win.k_h, (uint16_t)win.pad_left,
                                    (uint16_t)win.pad_top, nk_param_i32(op, 8),
                                    nk_param_i32(op, 9), (uint16_t)tx->dims[3]);
    }
    return NK_OK;
}

/* ---- add, mul, softmax ---- */

static int nk_esp_always(const nk_op_rt *op, const nk_tensor_rt *t) {
    (void)op;
    (void)t;
    return 1;
}

static nk_status nk_esp_add_eval(const nk_op_rt *op, const nk_exec *x) {
    esp_nn_add_elementwise_s8_ansi(
        nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), -nk_param_i32(op, 0), -nk_param_i32(op, 1),
        nk_param_i32(op, 4), nk_param_i32(op, 6), nk_param_i32(op, 5), nk_param_i32(op, 7),
        nk_param_i32(op, 3), nk_i8_out(op, x), nk_param_i32(op, 2), nk_param_i32(op, 8),
        nk_param_i32(op, 9), nk_param_i32(op, 10), nk_param_i32(op, 11),
        (int32_t)nk_ops_tout(op, x)->elems);
    return NK_OK;
}

static nk_status nk_esp_mul_eval(const nk_op_rt *op, const nk_exec *x) {
    esp_nn_mul_elementwise_s8_ansi(nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), -nk_param_i32(op, 0),
                                   -nk_param_i32(op, 1), nk_i8_out(op, x), nk_param_i32(op, 2),
                                   nk_param_i32(op, 3), nk_param_i32(op, 4), nk_param_i32(op, 5),
                                   nk_param_i32(op, 6), (int32_t)nk_ops_tout(op, x)->elems);
    return NK_OK;
}

static nk_status nk_esp_softmax_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    const int32_t cols = in->dims[in->rank - 1];
    esp_nn_softmax_s8_ansi(nk_i8_in(op, x, 0), (int32_t)(in->elems / (uint32_t)cols), cols,
                           nk_param_i32(op, 0), nk_param_i32(op, 1), nk_param_i32(op, 2),
                           nk_i8_out(op, x));
    return NK_OK;
}

/* ---- the table (csrc/backend.h) ---- */

#define NK_ESP_IMPL(var, op, sup, ws, ev) \
    static const nk_op_impl var = {"esp-nn", op, NK_I8, sup, ws, ev, NULL, NULL}

NK_ESP_IMPL(nk_esp_conv2d, NK_OP_CONV2D_I8, nk_esp_conv_supports, nk_esp_conv_workspace,
            nk_esp_conv_eval);
NK_ESP_IMPL(nk_esp_depthwise, NK_OP_DEPTHWISE_CONV2D_I8, nk_esp_conv_supports,
            nk_esp_conv_workspace, nk_esp_conv_eval);
NK_ESP_IMPL(nk_esp_dense, NK_OP_DENSE_I8, nk_esp_fc_supports, NULL, nk_esp_fc_eval);
NK_ESP_IMPL(nk_esp_avg_pool, NK_OP_AVG_POOL2D_I8, nk_esp_pool_supports, NULL, nk_esp_pool_eval);
NK_ESP_IMPL(nk_esp_max_pool, NK_OP_MAX_POOL2D_I8, nk_esp_pool_supports, NULL, nk_esp_pool_eval);
NK_ESP_IMPL(nk_esp_add, NK_OP_ADD_I8, nk_ops_no_broadcast, NULL, nk_esp_add_eval);
NK_ESP_IMPL(nk_esp_mul, NK_OP_MUL_I8, nk_ops_no_broadcast, NULL, nk_esp_mul_eval);
NK_ESP_IMPL(nk_esp_softmax, NK_OP_SOFTMAX_I8, nk_esp_always, NULL, nk_esp_softmax_eval);

const nk_op_impl *const nk_backend_impls[] = {
    &nk_esp_conv2d, &nk_esp_depthwise, &nk_esp_dense, &nk_esp_avg_pool,
    &nk_esp_max_pool, &nk_esp_add, &nk_esp_mul, &nk_esp_softmax, NULL,
};
