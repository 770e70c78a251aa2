/* common_i8.c — checks shared by the int8 validators (ops_i8.h). */
#include "ops_i8.h"

nk_status (nk_i8_check_io)(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                         uint32_t min_in, uint32_t max_in, uint32_t optional, int32_t n_params,
                         const uint8_t *in_dt, uint32_t n_dt, uint8_t out_dt, nk_error_t *err) {
    if (op->n_in < min_in || op->n_in > max_in || op->n_out != 1 ||
        (n_params >= 0 && op->n_params != (uint32_t)n_params)) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "has ");
        nk_msg_i(&m, op->n_in);
        nk_msg_s(&m, " inputs, ");
        nk_msg_i(&m, op->n_out);
        nk_msg_s(&m, " outputs, ");
        nk_msg_i(&m, op->n_params);
        nk_msg_s(&m, " parameter words; expected ");
        nk_msg_i(&m, min_in);
        if (max_in != min_in) {
            nk_msg_s(&m, "..");
            nk_msg_i(&m, max_in);
        }
        nk_msg_s(&m, " inputs, 1 output");
        if (n_params >= 0) {
            nk_msg_s(&m, ", ");
            nk_msg_i(&m, n_params);
            nk_msg_s(&m, " parameter words");
        }
        return nk_msg_fail(&m, err, NK_ERR_FORMAT);
    }
    return nk_ops_check_tensors(op, t, name, optional, optional + 1u, in_dt, n_dt, out_dt, err);
}

nk_status (nk_i8_check_zp)(const char *name, const char *what, int32_t zp, nk_error_t *err) {
    nk_msg m;
    if (zp >= -128 && zp <= 127)
        return NK_OK;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, what);
    nk_msg_s(&m, " ");
    nk_msg_i(&m, zp);
    nk_msg_s(&m, " is outside -128..127");
    return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
}

nk_status (nk_i8_check_clamp)(const char *name, int32_t lo, int32_t hi, nk_error_t *err) {
    nk_msg m;
    if (lo >= -128 && hi <= 127 && lo <= hi)
        return NK_OK;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, "activation clamp [");
    nk_msg_i(&m, lo);
    nk_msg_s(&m, ", ");
    nk_msg_i(&m, hi);
    nk_msg_s(&m, "] must be within -128..127 and not empty");
    return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
}

nk_status (nk_i8_check_mult)(const char *name, const char *what, int32_t mult, int32_t shift,
                           nk_error_t *err) {
    nk_msg m;
    if (nk_i8_mult_ok(mult, shift))
        return NK_OK;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, what);
    nk_msg_s(&m, " multiplier ");
    nk_msg_i(&m, mult);
    nk_msg_s(&m, " shift ");
    nk_msg_i(&m, shift);
    nk_msg_s(&m, ": the multiplier must be 0 or in [2^30, 2^31), the shift in -31..30");
    return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
}

nk_status (nk_i8_check_per_channel)(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                  int32_t n, nk_error_t *err) {
    const nk_tensor_rt *mt = &t[op->in[3]], *st = &t[op->in[4]];
    if (mt->rank != 1 || st->rank != 1 || mt->dims[0] != st->dims[0] ||
        (mt->dims[0] != n && mt->dims[0] != 1)) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "multiplier ");
        nk_msg_dims(&m, mt->dims, mt->rank);
        nk_msg_s(&m, " and shift ");
        nk_msg_dims(&m, st->dims, st->rank);
        nk_msg_s(&m, " must both be [");
        nk_msg_i(&m, n);
        nk_msg_s(&m, "] or [1]");
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    if (!mt->is_const || !st->is_const)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                           "multiplier and shift must be constant tensors");
    return NK_OK; /* their values: the loader (NK_OPF_I8_REQUANT) */
}
