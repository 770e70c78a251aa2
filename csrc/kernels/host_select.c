/*
 * host_select.c — which host kernel table a model uses (hosted builds with
 * NETKIT_HOST_KERNELS only; compiled once, with the baseline flags), and
 * the packing of weights for it. The tables themselves are in
 * kernels/host/ (host.h explains the scheme).
 *
 * The choice is made at every load, so the core keeps no global state:
 * NETKIT_HOST_ISA=portable|avx2|avx512|avx512vnni|neon forces one (tests run every op
 * and model under each); unset or empty, the best the CPU supports. Forcing
 * a level the CPU or the build lacks fails the load with a message instead
 * of running an illegal instruction.
 */
#include "../nk_internal.h"
#include "../format.h"
#include "host/host.h"
#include "../ops/ops_common.h" /* nk_ops_conv_geom */

#if NETKIT_HOST_KERNELS

#include <stdlib.h> /* getenv: host-only file */

#define NK_HOST_ISA_ENV "NETKIT_HOST_ISA"

/* The CPU can run table `name` (this build has it). */
static int nk_host_cpu_has(const char *name) {
#if defined(__x86_64__)
    if (strcmp(name, "avx2") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (strcmp(name, "avx512vnni") == 0)
        return nk_host_cpu_has("avx512") && __builtin_cpu_supports("avx512vnni");
    if (strcmp(name, "avx512") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#elif defined(__aarch64__)
    if (strcmp(name, "neon") == 0) return 1; /* Advanced SIMD is mandatory in AArch64 */
#endif
    (void)name;
    return 0;
}

/* Tables of this build, best first. */
static const nk_host_kernels *const nk_host_tables[] = {
#if defined(__x86_64__)
    &nk_host_kernels_avx512vnni,
    &nk_host_kernels_avx512,
    &nk_host_kernels_avx2,
#elif defined(__aarch64__)
    &nk_host_kernels_neon,
#endif
};
#define NK_HOST_N_TABLES (sizeof nk_host_tables / sizeof nk_host_tables[0])

const nk_host_kernels *nk_host_find(const char *name) {
    size_t i;
    for (i = 0; i < NK_HOST_N_TABLES; i++)
        if (strcmp(name, nk_host_tables[i]->name) == 0)
            return nk_host_cpu_has(name) ? nk_host_tables[i] : NULL;
    return NULL;
}

nk_status nk_host_select(const nk_host_kernels **out, nk_error_t *err) {
    const char *want = getenv(NK_HOST_ISA_ENV);
    size_t i;
    *out = NULL;
    if (want != NULL && want[0] != '\0') {
        if (strcmp(want, "portable") == 0) return NK_OK;
        for (i = 0; i < NK_HOST_N_TABLES; i++) {
            if (strcmp(want, nk_host_tables[i]->name) != 0) continue;
            if (!nk_host_cpu_has(want))
                return nk_fail_f(err, NK_ERR_UNSUPPORTED, -1,
                                 NK_HOST_ISA_ENV "=%s: this CPU does not support it", want, NULL);
            *out = nk_host_tables[i];
            return NK_OK;
        }
        if (strcmp(want, "avx2") == 0 || strcmp(want, "avx512") == 0 ||
            strcmp(want, "avx512vnni") == 0 || strcmp(want, "neon") == 0)
            return nk_fail_f(err, NK_ERR_UNSUPPORTED, -1,
                             NK_HOST_ISA_ENV "=%s: this build has no kernels for that ISA "
                             "(another architecture)", want, NULL);
        return nk_fail_f(err, NK_ERR_UNSUPPORTED, -1,
                         NK_HOST_ISA_ENV "=%s: unknown (portable, avx2, avx512, avx512vnni or neon)", want, NULL);
    }
    for (i = 0; i < NK_HOST_N_TABLES; i++) {
        if (nk_host_cpu_has(nk_host_tables[i]->name)) {
            *out = nk_host_tables[i];
            break;
        }
    }
    return NK_OK;
}

/* Input i is absent or a constant. */
static int nk_host_const_in(const nk_op_rt *op, const nk_tensor_rt *t, uint32_t i) {
    return i >= op->n_in || op->in[i] == NK_NONE || t[op->in[i]].is_const;
}

/* int8 conv2d, depthwise and dense pack weights, bias and requantization:
 * all of them constants (inputs 1 to 4). */
static int nk_host_packs_i8(const nk_op_rt *op, const nk_tensor_rt *t) {
    uint32_t i;
    if (op->type != NK_OP_CONV2D_I8 && op->type != NK_OP_DEPTHWISE_CONV2D_I8 &&
        op->type != NK_OP_DENSE_I8)
        return 0;
    if (op->n_in < 5 || op->in[1] == NK_NONE || op->in[3] == NK_NONE || op->in[4] == NK_NONE)
        return 0;
    for (i = 1; i < 5; i++)
        if (!nk_host_const_in(op, t, i)) return 0;
    return 1;
}

/* The geometry and quantization of a bound int8 op (the fields
 * ops/conv_i8.c's eval fills; dense as a 1x1 conv over its rows). */
static void nk_host_i8_args(const nk_op_rt *op, const nk_tensor_rt *t, void *const *data,
                            nk_ref_conv_geom *g, nk_ref_i8_quant *q) {
    const nk_tensor_rt *w = &t[op->in[1]], *m = &t[op->in[3]];
    uint32_t k = 9; /* conv params: in_zp at 9; dense at 0 */
    if (op->type == NK_OP_DENSE_I8) {
        nk_host_dense_i8_geom(g, (int32_t)(t[op->in[0]].elems / (uint32_t)w->dims[1]),
                              w->dims[1], w->dims[0]);
        k = 0;
    } else {
        nk_ops_conv_geom(op, t, g);
    }
    q->in_zp = nk_param_i32(op, k);
    q->out_zp = nk_param_i32(op, k + 1);
    q->act_min = nk_param_i32(op, k + 2);
    q->act_max = nk_param_i32(op, k + 3);
    q->mult = (const int32_t *)data[op->in[3]];
    q->shift = (const int32_t *)data[op->in[4]];
    q->per_channel = m->dims[0] > 1;
    q->rq_right = 0;
}

/* Packed kernels exist for float dense, conv2d and depthwise with
 * constant weights. */
static int nk_host_packs(const nk_op_rt *op, const nk_tensor_rt *t) {
    if (op->n_in < 2 || op->in[1] == NK_NONE || !t[op->in[1]].is_const) return 0;
    if (t[op->in[0]].dtype != NK_F32 || t[op->in[1]].dtype != NK_F32) return 0;
    return op->type == NK_OP_DENSE || op->type == NK_OP_CONV2D ||
           op->type == NK_OP_DEPTHWISE_CONV2D;
}

size_t nk_host_pack_size(const nk_host_kernels *h, const nk_op_rt *op, const nk_tensor_rt *t,
                         void *const *data) {
    nk_ref_conv_geom g;
    if (h != NULL && nk_host_packs_i8(op, t)) {
        nk_ref_i8_quant q;
        nk_host_i8_args(op, t, data, &g, &q);
        if (op->type == NK_OP_DEPTHWISE_CONV2D_I8)
            return h->depthwise_i8_pack_size != NULL ? h->depthwise_i8_pack_size(&g, &q) : 0;
        return h->conv2d_i8_pack_size != NULL ? h->conv2d_i8_pack_size(&g, &q) : 0;
    }
    if (h == NULL || !nk_host_packs(op, t)) return 0;
    if (op->type == NK_OP_DENSE) {
        const nk_tensor_rt *w = &t[op->in[1]];
        return h->dense_pack_size != NULL ? h->dense_pack_size(w->dims[1], w->dims[0]) : 0;
    }
    nk_ops_conv_geom(op, t, &g);
    if (op->type == NK_OP_DEPTHWISE_CONV2D)
        return h->depthwise_pack_size != NULL ? h->depthwise_pack_size(&g) : 0;
    return h->conv2d_pack_size != NULL ? h->conv2d_pack_size(&g) : 0;
}

void nk_host_pack(const nk_host_kernels *h, const nk_op_rt *op, const nk_tensor_rt *t,
                  void *const *data, void *dst) {
    const nk_tensor_rt *w = &t[op->in[1]];
    nk_ref_conv_geom g;
    if (nk_host_packs_i8(op, t)) {
        const int32_t *bias =
            op->in[2] != NK_NONE ? (const int32_t *)data[op->in[2]] : NULL;
        nk_ref_i8_quant q;
        nk_host_i8_args(op, t, data, &g, &q);
        if (op->type == NK_OP_DEPTHWISE_CONV2D_I8)
            h->depthwise_i8_pack((const int8_t *)data[op->in[1]], bias, &g, &q, dst);
        else
            h->conv2d_i8_pack((const int8_t *)data[op->in[1]], bias, &g, &q, dst);
        return;
    }
    if (op->type == NK_OP_DENSE) {
        h->dense_pack((const float *)data[op->in[1]], w->dims[1], w->dims[0], (float *)dst);
        return;
    }
    nk_ops_conv_geom(op, t, &g);
    if (op->type == NK_OP_DEPTHWISE_CONV2D)
        h->depthwise_pack((const float *)data[op->in[1]], &g, (float *)dst);
    else
        h->conv2d_pack((const float *)data[op->in[1]], &g, (float *)dst);
}

size_t nk_host_workspace(const nk_host_kernels *h, const nk_op_rt *op, const nk_tensor_rt *t,
                         void *const *data) {
    nk_ref_conv_geom g;
    if (h != NULL && (op->type == NK_OP_CONV2D_I8 || op->type == NK_OP_DENSE_I8) &&
        nk_host_packs_i8(op, t) && h->conv2d_i8_workspace != NULL) {
        nk_ref_i8_quant q;
        nk_host_i8_args(op, t, data, &g, &q);
        return h->conv2d_i8_workspace(&g);
    }
    if (h == NULL || op->type == NK_OP_DENSE || !nk_host_packs(op, t)) return 0;
    nk_ops_conv_geom(op, t, &g);
    if (op->type == NK_OP_DEPTHWISE_CONV2D)
        return h->depthwise_workspace != NULL ? h->depthwise_workspace(&g) : 0;
    return h->conv2d_workspace != NULL ? h->conv2d_workspace(&g) : 0;
}

#endif /* NETKIT_HOST_KERNELS */
