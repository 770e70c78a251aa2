/*
 * model.c — loading a model into the arena and running it.
 *
 * Load, in order: check the image (format.c), decode tensor and op records,
 * bind each op to its op table entry and let it validate shapes, fold
 * batch-norms the converter left in, plan activations (plan.c), and create
 * the default context. Everything comes from the caller's arena; a failed
 * load rewinds the arena to where it was. Invoke only walks the ops.
 */
#include "model.h"
#include "platform/platform.h"
#if NETKIT_BACKEND
#include "backend.h"
#endif

#include <math.h>


static size_t nk_model_round16(size_t v) { return (v + 15u) & ~(size_t)15u; }

uint32_t nk_abi_version(void) { return NK_ABI_VERSION; }
const char *nk_version(void) { return NK_VERSION_STRING; }

/* ------------------------------------------------------------------ */
/* Binding ops to the op table                                         */
/* ------------------------------------------------------------------ */

nk_status nk_op_check_requant(const nk_op_rt *op, const nk_op_def *def, const nk_tensor_rt *t,
                              void *const *data, int32_t index, nk_error_t *err) {
    const int32_t *mv, *sv;
    uint32_t c, v[3];
    if (!(def->flags & NK_OPF_I8_REQUANT)) return NK_OK;
    /* validate checked both are constant i32 of one shape */
    mv = (const int32_t *)data[op->in[3]];
    sv = (const int32_t *)data[op->in[4]];
    for (c = 0; c < t[op->in[3]].elems; c++) {
        int32_t mc, sc;
        memcpy(&mc, &mv[c], 4);
        memcpy(&sc, &sv[c], 4);
        if (nk_i8_mult_ok(mc, sc)) continue;
        v[0] = c;
        v[1] = (uint32_t)mc;
        v[2] = (uint32_t)sc;
        return nk_fail_op(err, NK_ERR_UNSUPPORTED, index, op,
                          "channel %u multiplier %d shift %d: the multiplier must be 0 or in "
                          "[2^30, 2^31), the shift in -31..30",
                          NULL, v);
    }
    return NK_OK;
}

const nk_op_rt *nk_model_op_at(const nk_model_t *m, uint32_t k, nk_op_rt *op) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    uint32_t i;
    for (i = 0; i < k; i++) rec = nk_model_op_next(m, rec, i, op);
    nk_model_op_next(m, rec, k, op);
    return op;
}

size_t nk_model_op_workspace(const nk_model_t *m, const nk_op_rt *op) {
    size_t ws;
    if (op->def == NULL || op->def->eval == NULL) return 0; /* a folded batch-norm runs nothing */
#if NETKIT_BACKEND
    if (op->impl != NULL)
        return op->impl->workspace_size != NULL ? op->impl->workspace_size(op, m->tensors) : 0;
#endif
    ws = op->def->workspace_size != NULL ? op->def->workspace_size(op, m->tensors) : 0;
#if NETKIT_HOST_KERNELS
    if (op->host_packed != NULL) {
        size_t h = nk_host_workspace(m->host, op, m->tensors, m->ctx->data);
        if (h > ws) ws = h;
    }
#endif
    return ws;
}

const uint8_t *nk_model_plan_view(const nk_model_t *m, const uint8_t *rec, uint32_t k, nk_op_rt *op) {
    rec = nk_model_op_next(m, rec, k, op);
    op->workspace = (uint32_t)nk_model_op_workspace(m, op); /* checked by nk_model_take_workspace */
    return rec;
}

const nk_op_rt *nk_op_seq_at(const nk_op_seq *s, uint32_t k, nk_op_rt *view, const uint8_t **cursor) {
    if (s->array != NULL) return &s->array[k];
    *cursor = nk_model_plan_view(s->model, *cursor != NULL ? *cursor : nk_format_ops_begin(&s->model->img), k,
                                 view);
    return view;
}

void nk_op_seq_mark(const nk_op_seq *s, uint32_t k, uint32_t in_place) {
    if (s->array != NULL) s->array[k].in_place = (uint8_t)in_place;
    else s->model->in_place[k] = (uint8_t)in_place;
}

/* The workspace: the most any op asks for, once every op's kernel is chosen. */
static nk_status nk_model_take_workspace(nk_model_t *m, nk_error_t *err) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    uint32_t k;
    m->workspace = 0;
    m->workspace_op = -1;
    for (k = 0; k < m->n_ops; k++) {
        nk_op_rt op;
        size_t ws;
        rec = nk_model_op_next(m, rec, k, &op);
        ws = nk_model_op_workspace(m, &op);
        if (ws > UINT32_MAX)
            return nk_fail_op(err, NK_ERR_UNSUPPORTED, k, &op, "workspace beyond 4 GiB", NULL, NULL);
        if (ws > m->workspace) {
            m->workspace = ws;
            m->workspace_op = (int32_t)k;
        }
    }
    return NK_OK;
}

/* Binds each decoded op to its op table entry, which the state keeps,
 * and validates it. */
static nk_status nk_model_bind_ops(nk_model_t *m, nk_error_t *err) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    uint32_t k;
    for (k = 0; k < m->n_ops; k++) {
        nk_op_rt view, *op = &view;
        const nk_op_def *def;
        nk_status s;
        uint32_t v[7];

        rec = nk_model_op_next(m, rec, k, op);

        if (op->n_in == 0 || op->in[0] == NK_NONE)
            return nk_fail_op(err, NK_ERR_FORMAT, k, op, "has no input 0", NULL, NULL);
        def = nk_op_lookup(op->type, m->tensors[op->in[0]].dtype);
        if (def == NULL || def->eval == NULL) {
            v[0] = op->type;
            return nk_fail_op(err, NK_ERR_UNSUPPORTED, k, op,
                              "op type %u on %s input is not supported by this build",
                              nk_dtype_str((nk_dtype)m->tensors[op->in[0]].dtype), v);
        }
        op->def = def;
        m->ops[k].def = def;
        if (op->n_in < def->min_in || op->n_in > def->max_in || op->n_out != def->n_out ||
            op->n_params < def->min_params) {
            v[0] = op->n_in;
            v[1] = op->n_out;
            v[2] = op->n_params;
            v[3] = def->min_in;
            v[4] = def->max_in;
            v[5] = def->n_out;
            v[6] = def->min_params;
            return nk_fail_op(err, NK_ERR_FORMAT, k, op,
                              "%u inputs, %u outputs, %u params; it takes %u..%u inputs, "
                              "%u outputs, >= %u params",
                              NULL, v);
        }
        if (def->validate != NULL) {
            nk_error_t ve;
            memset(&ve, 0, sizeof ve);
            s = def->validate(op, m->tensors, &ve);
            if (s != NK_OK)
                return nk_fail_op(err, s, k, op, "%s",
                                  ve.message[0] != '\0' ? ve.message : nk_status_str(s), NULL);
        }
        s = nk_op_check_requant(op, def, m->tensors, m->ctx->data, (int32_t)k, err);
        if (s != NK_OK) return s;
    }
    return NK_OK;
}

#if NETKIT_BACKEND
/* The backend's implementations (backend.h), chosen once the graph is final
 * (after batch-norm folding): per op, the first whose supports() says 1, else
 * the core's eval. The workspace is re-taken over the chosen ones. */
const nk_op_impl *nk_backend_find(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_op_impl *const *p;
    for (p = nk_backend_impls; op->def->eval != NULL && *p != NULL; p++)
        if ((*p)->type == op->type && (*p)->dtype == op->def->dtype && (*p)->supports(op, t)) return *p;
    return NULL;
}

static void nk_model_choose_impls(nk_model_t *m) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    uint32_t k;
    for (k = 0; k < m->n_ops; k++) {
        nk_op_rt op;
        rec = nk_model_op_next(m, rec, k, &op);
        m->ops[k].impl = nk_backend_find(&op, m->tensors);
        m->ops[k].impl_state = NULL;
    }
}

/* Frees the states prepare made (unload, or a load failing after them). */
static void nk_model_release_impls(nk_model_t *m) {
    uint32_t k;
    for (k = 0; k < m->n_ops; k++) {
        nk_op_state *op = &m->ops[k];
        if (op->impl_state != NULL && op->impl->release != NULL) op->impl->release(op->impl_state);
        op->impl_state = NULL;
    }
}

/* The last load step: per-model state of the chosen implementations (the
 * default context exists, so they may bind its pointers). */
static nk_status nk_model_prepare_impls(nk_model_t *m, nk_error_t *err) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    nk_exec x;
    uint32_t k;
    x.img = &m->img;
    x.tensors = m->tensors;
    x.data = m->ctx->data;
    x.workspace = m->ctx->workspace;
    x.workspace_size = m->workspace;
#if NETKIT_HOST_KERNELS
    x.host = m->host;
#endif
    for (k = 0; k < m->n_ops; k++) {
        nk_op_rt view, *op = &view;
        size_t heap = 0;
        nk_error_t pe;
        nk_status s;
        rec = nk_model_op_next(m, rec, k, op);
        if (op->impl == NULL || op->impl->prepare == NULL) continue;
        memset(&pe, 0, sizeof pe);
        s = op->impl->prepare(op, &x, &m->ops[k].impl_state, &heap, &pe);
        m->stats.backend_heap += heap;
        if (s != NK_OK) {
            nk_model_release_impls(m);
            return nk_fail_op(err, s, k, op, "%s", pe.message[0] != '\0' ? pe.message : nk_status_str(s),
                              NULL);
        }
    }
    return NK_OK;
}
#endif

/* The int8 params in the file were computed for one requantization
 * rounding (META int8_rounding, docs/NK_FORMAT.md); a build for the other
 * mode (NETKIT_SINGLE_ROUNDING) would give different answers: refuse. */
#if defined(NETKIT_SINGLE_ROUNDING) && NETKIT_SINGLE_ROUNDING
#define NK_MODEL_ROUNDING "single"
#else
#define NK_MODEL_ROUNDING "double"
#endif
static nk_status nk_model_check_rounding(const nk_image *img, nk_error_t *err) {
    const char *v = nk_format_meta(img, "int8_rounding");
    if (v == NULL || strcmp(v, NK_MODEL_ROUNDING) == 0) return NK_OK;
    return nk_fail_f(err, NK_ERR_UNSUPPORTED, -1,
                     "META int8_rounding is \"%s\" but this build requantizes with " NK_MODEL_ROUNDING
                     " rounding (NETKIT_SINGLE_ROUNDING)",
                     v, NULL);
}

/* ------------------------------------------------------------------ */
/* Batch-norm folding                                                  */
/* ------------------------------------------------------------------ */
#if NETKIT_LOAD_FOLD_BN

/* A folded batch-norm stays in the op list (inspect shows it) but is a
 * view of its input: the planner aliases it and invoke skips it. */
static const nk_op_def nk_folded_bn_def = {
    "batch_norm", NK_OP_BATCH_NORM, NK_F32, NK_OPF_ALIAS, 5, 5, 1, 1, NULL, NULL, NULL, NULL, NULL};

typedef struct nk_fold {
    uint32_t prod; /* op index of the conv/dense */
    uint32_t w, bias, gamma, beta, mean, var;
    uint32_t channels;
    int inner; /* depthwise: the channel is the innermost weight dim */
    float eps;
} nk_fold;

static int nk_fold_const_f32(const nk_model_t *m, uint32_t id, uint32_t elems) {
    return id != NK_NONE && id < m->n_tensors && m->tensors[id].is_const &&
           m->tensors[id].dtype == NK_F32 && m->tensors[id].elems == elems;
}

/* Readers and writer of every tensor, in one pass over the ops instead of
 * scans per batch-norm (which made the fold O(O^2) for O ops; now it is
 * O(T + O*I) for T tensors and I inputs an op). They live in a word per
 * tensor, taken only when the model has a batch-norm: bits 0-1 count readers, stopping at 2,
 * bits 2-31 hold 1 + the op writing the tensor when that op has one
 * output (0: none; n_ops < 2^30, as each op record takes 12 B of a u32-
 * sized section). A fold adds a reader only to a tensor its batch-norm
 * reads too, which no later fold can then take: counts from before any
 * fold answer every fold as live counts would. After the n_tensors words,
 * a word per op holds its OPS record's offset in the image, so a fold
 * reads its producer's record directly (a walk from the first op per
 * batch-norm would be O(O^2) again). */
static void nk_fold_index(const nk_model_t *m, uint32_t *idx) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    uint32_t k, j;
    for (k = 0; k < m->n_tensors; k++) idx[k] = 0;
    for (k = 0; k < m->n_ops; k++) {
        nk_op_rt view, *op = &view;
        idx[m->n_tensors + k] = (uint32_t)(rec - m->img.base); /* the image is < 4 GiB */
        rec = nk_model_op_next(m, rec, k, op);
        for (j = 0; j < op->n_in; j++) {
            uint32_t id = op->in[j];
            if (id < m->n_tensors && (idx[id] & 3u) < 2u) idx[id]++;
        }
        if (op->n_out == 1) idx[op->out[0]] |= (k + 1u) << 2;
    }
}

/* Op k's view, from its record's offset in the index. */
static const nk_op_rt *nk_fold_op(const nk_model_t *m, const uint32_t *idx, uint32_t k, nk_op_rt *view) {
    nk_model_op_next(m, m->img.base + idx[m->n_tensors + k], k, view);
    return view;
}

static int nk_fold_one_reader(const uint32_t *idx, uint32_t id) {
    return (idx[id] & 3u) == 1u;
}

/* Is batch-norm op bn foldable into the op producing its input? */
static int nk_fold_find(const nk_model_t *m, const uint32_t *idx, const nk_op_rt *bn, nk_fold *f) {
    nk_op_rt pv;
    const nk_op_rt *p;
    const nk_tensor_rt *x, *w;
    uint32_t xid, pk, act_param, i;
    float lo, hi;
    if (bn->type != NK_OP_BATCH_NORM || bn->n_in != 5 || bn->n_params < 1) return 0;
    xid = bn->in[0];
    x = &m->tensors[xid];
    if (x->is_const || x->dtype != NK_F32 || (nk_format_io_flags(&m->img, xid) & 2u) ||
        x->rank == 0)
        return 0;
    pk = idx[xid] >> 2;
    if (pk-- == 0) return 0; /* a graph input: nothing to fold into */
    p = nk_fold_op(m, idx, pk, &pv);
    if (p->type == NK_OP_DENSE) {
        act_param = 0;
    } else if (p->type == NK_OP_CONV2D || p->type == NK_OP_DEPTHWISE_CONV2D) {
        act_param = 9;
    } else {
        return 0;
    }
    if (p->n_in < 2 || p->n_params < act_param + 2u) return 0;
    /* BN after a clamp is not a BN before it */
    lo = nk_param_f32(p, act_param);
    hi = nk_param_f32(p, act_param + 1u);
    if (!(isinf(lo) && lo < 0) || !(isinf(hi) && hi > 0)) return 0;
    f->prod = pk;
    f->channels = (uint32_t)x->dims[x->rank - 1];
    f->w = p->in[1];
    f->bias = p->n_in > 2 ? p->in[2] : NK_NONE;
    f->gamma = bn->in[1];
    f->beta = bn->in[2];
    f->mean = bn->in[3];
    f->var = bn->in[4];
    f->eps = nk_param_f32(bn, 0);
    if (f->w == NK_NONE || f->w >= m->n_tensors) return 0;
    w = &m->tensors[f->w];
    if (!w->is_const || w->dtype != NK_F32) return 0;
    if (p->type == NK_OP_DEPTHWISE_CONV2D) {
        f->inner = 1;
        if (w->rank != 4 || (uint32_t)w->dims[3] != f->channels) return 0;
    } else {
        f->inner = 0;
        if (w->rank < 2 || (uint32_t)w->dims[0] != f->channels) return 0;
    }
    if (f->bias != NK_NONE && !nk_fold_const_f32(m, f->bias, f->channels)) return 0;
    for (i = 1; i < 5; i++) /* gamma, beta, mean, var */
        if (!nk_fold_const_f32(m, bn->in[i], f->channels)) return 0;
    /* the payloads we rewrite must belong to this conv alone */
    return nk_fold_one_reader(idx, xid) && nk_fold_one_reader(idx, f->w) &&
           nk_fold_one_reader(idx, f->bias != NK_NONE ? f->bias : f->beta);
}

static nk_status nk_fold_apply(nk_model_t *m, nk_arena_t *a, const uint32_t *idx, uint32_t k,
                               const nk_fold *f, nk_error_t *err) {
    nk_op_rt pv;
    const nk_op_rt *p = nk_fold_op(m, idx, f->prod, &pv);
    const nk_tensor_rt *tw = &m->tensors[f->w];
    void **data = m->ctx->data; /* the model's payload pointers (nk_context_bind) */
    uint32_t bias_id = f->bias != NK_NONE ? f->bias : f->beta, c, e, row, C = f->channels;
    const float *gamma = (const float *)data[f->gamma];
    const float *beta = (const float *)data[f->beta];
    const float *mean = (const float *)data[f->mean];
    const float *var = (const float *)data[f->var];
    float *w, *b;

    if (m->kind == NK_IMAGE_BORROWED) {
        /* never write the caller's bytes: fold into arena copies */
        w = (float *)nk_core_alloc(a, tw->data_size, "batch-norm folded weights", (int32_t)f->prod, p, err);
        if (w == NULL) return NK_ERR_ARENA_OVERFLOW;
        b = (float *)nk_core_alloc(a, (size_t)C * 4u, "batch-norm folded bias", (int32_t)f->prod, p, err);
        if (b == NULL) return NK_ERR_ARENA_OVERFLOW;
        m->stats.copied_weights += tw->data_size + (uint64_t)C * 4u;
        if (m->state != NK_MODEL_SIZING) {
            memcpy(w, data[f->w], tw->data_size);
            memcpy(b, data[bias_id], (size_t)C * 4u);
        }
    } else {
        w = (float *)data[f->w];
        b = (float *)data[bias_id];
    }
    if (f->bias == NK_NONE) {
        /* no bias: beta's payload becomes the conv's bias */
        uint32_t *in = (uint32_t *)nk_core_alloc(a, 3u * sizeof(uint32_t), "folded op inputs",
                                                 (int32_t)f->prod, p, err);
        if (in == NULL) return NK_ERR_ARENA_OVERFLOW;
        in[0] = p->in[0];
        in[1] = p->in[1];
        in[2] = f->beta;
        m->ops[f->prod].in = in;
        m->stats.structs += 3u * sizeof(uint32_t);
    }
    m->ops[k].def = &nk_folded_bn_def;
    m->stats.folded_bn++;
    /* sizing takes the arena the same way but never writes the image */
    if (m->state == NK_MODEL_SIZING) return NK_OK;
    /* C divides the weight count: the channel is dim 0, or the innermost
     * dim (inner), of the weights */
    row = tw->elems / C;
    for (c = 0; c < C; c++) {
        float scale = gamma[c] / sqrtf(var[c] + f->eps);
        float b0 = f->bias != NK_NONE ? b[c] : 0.0f;
        b[c] = (b0 - mean[c]) * scale + beta[c];
        for (e = 0; e < row; e++) w[f->inner ? (size_t)e * C + c : (size_t)c * row + e] *= scale;
    }
    data[f->w] = w;
    data[bias_id] = b;
    return NK_OK;
}

static nk_status nk_model_fold_bn(nk_model_t *m, nk_arena_t *a, nk_error_t *err) {
    uint32_t k, *idx;
    /* sizing has no mapping to open up, and writes nothing */
    int writable = m->kind != NK_IMAGE_MAPPED || m->state == NK_MODEL_SIZING;
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    for (k = 0; k < m->n_ops && m->ops[k].def->type != NK_OP_BATCH_NORM; k++) {
    }
    if (k == m->n_ops) return NK_OK; /* nothing to fold: no index */
    idx = (uint32_t *)nk_core_alloc(a, ((size_t)m->n_tensors + m->n_ops) * sizeof *idx,
                                    "batch-norm fold index", -1, NULL, err);
    if (idx == NULL) return NK_ERR_ARENA_OVERFLOW;
    m->stats.structs += ((size_t)m->n_tensors + m->n_ops) * sizeof *idx;
    nk_fold_index(m, idx);
    for (k = 0; k < m->n_ops; k++) {
        nk_op_rt bn;
        nk_fold f;
        nk_status s;
        rec = nk_model_op_next(m, rec, k, &bn);
        if (!nk_fold_find(m, idx, &bn, &f)) continue;
        if (!writable) {
#if !defined(NETKIT_MCU) && NETKIT_MMAP
            s = nk_platform_map_writable(m->mapping, m->mapping_len, err);
            if (s != NK_OK) return s;
#endif
            writable = 1;
        }
        s = nk_fold_apply(m, a, idx, k, &f, err);
        if (s != NK_OK) return s;
    }
    return NK_OK;
}
#endif /* NETKIT_LOAD_FOLD_BN */

#if NETKIT_HOST_KERNELS
/* Picks the host kernel table (CPU features or NETKIT_HOST_ISA) and packs
 * the weights of the ops it runs into the arena: after folding, so the
 * packed copy holds the folded weights. Sizing takes the same bytes. */
static nk_status nk_model_host_prepare(nk_model_t *m, nk_arena_t *a, nk_error_t *err) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    uint32_t k;
    nk_status s = nk_host_select(&m->host, err);
    if (s != NK_OK || m->host == NULL) return s;
    for (k = 0; k < m->n_ops; k++) {
        nk_op_rt view, *op = &view;
        size_t n;
        void *p;
        rec = nk_model_op_next(m, rec, k, op);
        if (op->def == NULL || op->def->eval == NULL) continue; /* folded batch-norm */
#if NETKIT_BACKEND
        if (op->impl != NULL) continue; /* the backend runs it */
#endif
        n = nk_host_pack_size(m->host, op, m->tensors, m->ctx->data);
        if (n == 0) continue;
        p = nk_core_alloc(a, n, "packed weights", (int32_t)k, op, err);
        if (p == NULL) return NK_ERR_ARENA_OVERFLOW;
        m->stats.packed_weights += n;
        if (m->state != NK_MODEL_SIZING) nk_host_pack(m->host, op, m->tensors, m->ctx->data, p);
        m->ops[k].host_packed = p;
    }
    return NK_OK;
}
#endif

/* ------------------------------------------------------------------ */
/* Contexts                                                            */
/* ------------------------------------------------------------------ */

/* Calls on a model or context check this first: an unloaded model's record
 * is still readable in the arena, its weights may not be. One message text
 * for every call keeps one copy of it in flash. */
static int nk_model_ready(const nk_model_t *m) { return m->state == NK_MODEL_READY; }
#define NK_MODEL_UNLOADED_MSG "the model is unloaded"

/* Every piece is 16-byte aligned, so from a 16-byte aligned arena position
 * the context takes exactly this (the last piece is not rounded up). In
 * 64 bits: on a 32-bit target the sum can pass SIZE_MAX. */
static uint64_t nk_context_bytes(const nk_model_t *m) {
    return nk_model_round16(sizeof(nk_context_t)) +
           nk_model_round16((size_t)m->n_tensors * sizeof(void *)) +
           ((m->plan.peak + 15u) & ~(uint64_t)15u) + m->workspace;
}

size_t nk_context_size(const nk_model_t *m) {
    uint64_t n = m != NULL && nk_model_ready(m) ? nk_context_bytes(m) : 0;
    return n <= (size_t)-1 ? (size_t)n : (size_t)-1;
}

/* Bytes of a context's activation block: activations (16-rounded) then the
 * workspace, as nk_context_bytes lays them out. */
static uint64_t nk_context_block_bytes(const nk_model_t *m) {
    return ((m->plan.peak + 15u) & ~(uint64_t)15u) + m->workspace;
}

size_t nk_model_activation_size(const nk_model_t *m) {
    uint64_t n = m != NULL && nk_model_ready(m) ? nk_context_block_bytes(m) : 0;
    return n <= (size_t)-1 ? (size_t)n : (size_t)-1;
}

/* The default context's data table is the model's one per-tensor record:
 * a constant's payload (in the image, or the arena copy a batch-norm fold
 * made) and an activation's slot, which is its planned offset plus the
 * block (plain offsets while the default context has no block). Every
 * context copies it. */
uint32_t nk_model_act_offset(const nk_model_t *m, uint32_t id) {
    return (uint32_t)((uintptr_t)m->ctx->data[id] - (uintptr_t)m->ctx->activations);
}

/* Sets c's STATE tensors to zero (their planned slots hold nothing else):
 * the real value 0, so an int8 state with a zero point takes the zero point,
 * as TFLite Micro resets its variable tensors. */
static void nk_context_zero_state(nk_context_t *c) {
    const nk_model_t *m = c->model;
    uint32_t i;
    if (c->activations == NULL) return;
    for (i = 0; i < m->n_tensors; i++) {
        const nk_tensor_rt *t = &m->tensors[i];
        int fill = 0;
        if (!t->is_state) continue;
        if (t->dtype == NK_I8 && t->quant != NK_NONE) {
            nk_quant_rt q;
            int32_t zp;
            nk_format_quant(&m->img, t->quant, &q);
            memcpy(&zp, q.zero_point, sizeof zp); /* an image view, maybe unaligned */
            fill = q.count == 1 ? (int)((uint32_t)zp & 0xFFu) : 0;
        }
        memset(c->data[i], fill, nk_tensor_bytes(t));
    }
}

/* Points c at an activation block laid out as nk_context_block_bytes says
 * (NULL: none yet; the slots hold the offsets); its state starts at zero. */
static void nk_context_bind(nk_context_t *c, uint8_t *block) {
    const nk_model_t *m = c->model;
    uint32_t i;
    for (i = 0; i < m->n_tensors; i++)
        c->data[i] = m->tensors[i].is_const ? m->ctx->data[i]
                                            : (void *)((uintptr_t)block + nk_model_act_offset(m, i));
    c->activations = block;
    c->workspace = block != NULL ? block + ((m->plan.peak + 15u) & ~(uint64_t)15u) : NULL;
    nk_context_zero_state(c);
}

nk_status nk_context_reset_state(nk_context_t *c) {
    if (c == NULL) return NK_ERR_ARG;
    nk_context_zero_state(c);
    return NK_OK;
}

nk_status nk_model_reset_state(nk_model_t *m) {
    if (m == NULL) return NK_ERR_ARG;
    if (!nk_model_ready(m)) return NK_ERR_STATE;
    return nk_context_reset_state(m->ctx);
}

/* A context's record and its data table (zeroed), unbound. */
static nk_context_t *nk_context_records(const nk_model_t *m, nk_arena_t *arena, nk_error_t *err) {
    nk_context_t *c = (nk_context_t *)nk_core_alloc(arena, sizeof *c, "context record", -1, NULL, err);
    if (c == NULL) return NULL;
    c->model = m;
    c->data = (void **)nk_core_alloc(arena, (size_t)m->n_tensors * sizeof(void *),
                                     "tensor data table", -1, NULL, err);
    return c->data != NULL ? c : NULL;
}

/* An activation block (then the workspace) from the arena, or NULL. */
static uint8_t *nk_context_block(const nk_model_t *m, nk_arena_t *arena, nk_error_t *err) {
    int32_t peak_op = m->n_ops > 0 ? (int32_t)m->plan.peak_step : -1;
    nk_op_rt view;
    uint8_t *block = (uint8_t *)nk_core_alloc(
        arena, (size_t)m->plan.peak, "activations", peak_op,
        peak_op >= 0 ? nk_model_op_at(m, (uint32_t)peak_op, &view) : NULL, err);
    if (block == NULL) return NULL;
    /* the workspace follows the 16-rounded activations: nk_context_bind's layout */
    if (nk_core_alloc(arena, m->workspace, "workspace", m->workspace_op,
                      m->workspace_op >= 0 ? nk_model_op_at(m, (uint32_t)m->workspace_op, &view)
                                           : NULL,
                      err) == NULL)
        return NULL;
    return block;
}

/* A further context: record, data table and its own activation block. */
static nk_status nk_context_make(nk_context_t **out, const nk_model_t *m, nk_arena_t *arena,
                                 nk_error_t *err) {
    size_t mark = nk_arena_mark(arena);
    nk_context_t *c = nk_context_records(m, arena, err);
    uint8_t *block = c != NULL ? nk_context_block(m, arena, err) : NULL;
    if (block == NULL) {
        nk_arena_rewind(arena, mark);
        return NK_ERR_ARENA_OVERFLOW;
    }
    nk_context_bind(c, block);
    *out = c;
    return NK_OK;
}

nk_status nk_context_create(nk_context_t **out, const nk_model_t *m, nk_arena_t *arena,
                            nk_error_t *err) {
    if (out == NULL || m == NULL || arena == NULL)
        return nk_fail(err, NK_ERR_ARG, -1, "nk_context_create: NULL argument");
    *out = NULL;
    if (!nk_model_ready(m)) return nk_fail(err, NK_ERR_STATE, -1, NK_MODEL_UNLOADED_MSG);
    return nk_context_make(out, m, arena, err);
}

nk_status nk_model_bind_activations(nk_model_t *m, void *block, size_t size, nk_error_t *err) {
    uint32_t v[2];
    if (m == NULL || block == NULL) return nk_fail(err, NK_ERR_ARG, -1, "bind_activations: NULL argument");
    if (!nk_model_ready(m)) return nk_fail(err, NK_ERR_STATE, -1, NK_MODEL_UNLOADED_MSG);
    if (((uintptr_t)block & 15u) != 0)
        return nk_fail(err, NK_ERR_ALIGN, -1, "bind_activations: the block is not 16-byte aligned");
    if ((uint64_t)size < nk_context_block_bytes(m)) {
        /* a size above 32 bits is reported saturated: it is too small either way */
        v[0] = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
        v[1] = (uint32_t)nk_context_block_bytes(m);
        nk_fail_f(err, NK_ERR_ARENA_OVERFLOW, -1,
                  "arena overflow: an activation block of %u B, the model needs %u B", NULL, v);
        if (err != NULL) {
            err->requested = nk_context_block_bytes(m);
            err->capacity = size;
        }
        return NK_ERR_ARENA_OVERFLOW;
    }
    nk_context_bind(m->ctx, (uint8_t *)block);
    return NK_OK;
}

/* A context with no block yet (nk_model_load_buffer_shared before
 * nk_model_bind_activations) runs and views nothing. */
#define NK_NO_BLOCK_MSG "the model has no activation block yet (nk_model_bind_activations)"
static int nk_context_unbound(const nk_context_t *c) { return c->activations == NULL; }

static nk_status nk_context_view(const nk_context_t *c, int is_out, int32_t i, nk_tensor_t *out) {
    const nk_model_t *m;
    const nk_tensor_rt *t;
    uint32_t id, n, d;
    if (c == NULL || out == NULL) return NK_ERR_ARG;
    m = c->model;
    if (!nk_model_ready(m) || nk_context_unbound(c)) return NK_ERR_STATE;
    n = is_out ? m->img.n_outputs : m->img.n_inputs;
    if (i < 0 || (uint32_t)i >= n) return NK_ERR_ARG;
    id = nk_format_io_tensor(&m->img, is_out, (uint32_t)i);
    t = &m->tensors[id];
    memset(out, 0, sizeof *out);
    out->name = nk_format_string(&m->img, t->name);
    out->data = c->data[id];
    out->bytes = nk_tensor_bytes(t);
    out->dtype = t->dtype;
    out->rank = t->rank;
    for (d = 0; d < t->rank; d++) out->dims[d] = t->dims[d];
    out->layout = (int32_t)nk_format_io_layout(&m->img, is_out, (uint32_t)i);
    if (t->quant != NK_NONE) {
        nk_quant_rt q;
        nk_format_quant(&m->img, t->quant, &q);
        if (q.count == 1) {
            memcpy(&out->quant_scale, q.scale, sizeof(float));
            memcpy(&out->quant_zero_point, q.zero_point, sizeof(int32_t));
        }
    }
    return NK_OK;
}

nk_status nk_context_input(const nk_context_t *c, int32_t i, nk_tensor_t *out) {
    return nk_context_view(c, 0, i, out);
}

nk_status nk_context_output(const nk_context_t *c, int32_t i, nk_tensor_t *out) {
    return nk_context_view(c, 1, i, out);
}

/* The bytes the invoke lends op `op` as workspace, just below c's
 * workspace: when the plan marked it NK_IN_PLACE_ROOM (nothing alive lies
 * above its operands), the activation block from the 16-byte boundary
 * after its highest operand on; else, or for a backend's op (its prepare
 * saw the context's workspace), none. */
size_t nk_context_room(const nk_context_t *c, const nk_op_rt *op) {
    const nk_model_t *m = c->model;
    const uintptr_t lo = (uintptr_t)c->activations, ws = (uintptr_t)c->workspace;
    uintptr_t top = 0;
    uint32_t j;
    if (!(op->in_place & NK_IN_PLACE_ROOM) || lo == 0) return 0;
#if NETKIT_BACKEND
    if (op->impl != NULL) return 0;
#endif
    for (j = 0; j < (uint32_t)op->n_in + op->n_out; j++) {
        const uint32_t id = j < op->n_in ? op->in[j] : op->out[j - op->n_in];
        uintptr_t p, end;
        if (id == NK_NONE || m->tensors[id].is_const) continue;
        p = (uintptr_t)c->data[id];
        if (p < lo || p >= ws) continue; /* a graph input or output bound outside the block */
        end = p - lo + nk_tensor_bytes(&m->tensors[id]);
        if (end > top) top = end;
    }
    top = (top + 15u) & ~(uintptr_t)15u;
    return top < ws - lo ? (size_t)(ws - lo - top) : 0u;
}

/* op's workspace: the context's, and its room below (nk_context_room) */
static void nk_exec_workspace(const nk_context_t *c, const nk_op_rt *op, nk_exec *x) {
    const size_t room = nk_context_room(c, op);
    x->workspace = (uint8_t *)c->workspace - room;
    x->workspace_size = c->model->workspace + room;
}

/* The op loop is written once, in invoke_loop.inc. Every library build
 * expands it once, as nk_context_invoke, with empty op hooks. The bench
 * runner's build (NETKIT_OP_MARKERS, never a library a user links) expands
 * it a second time, as nk_context_invoke_op_markers, with calls to marker
 * functions around each op: `netkit bench --target` counts per-op
 * instructions through that copy and the whole inference through the
 * unchanged nk_context_invoke, so the total is the shipped code's. */
#define NK_INVOKE_FN nk_context_invoke
#define NK_OP_BEGIN(k)
#define NK_OP_END(k)
#include "invoke_loop.inc"
#undef NK_INVOKE_FN
#undef NK_OP_BEGIN
#undef NK_OP_END

#if defined(NETKIT_OP_MARKERS) && NETKIT_OP_MARKERS
#define NK_INVOKE_FN nk_context_invoke_op_markers
#define NK_OP_BEGIN(k) nk_op_marker_begin(k)
#define NK_OP_END(k) nk_op_marker_end(k)
#include "invoke_loop.inc"
#undef NK_INVOKE_FN
#undef NK_OP_BEGIN
#undef NK_OP_END
#endif

#if !defined(NETKIT_MCU)
/* The profile's copy of the loop: the caller's clock read around each op,
 * so nk_context_invoke itself pays nothing for it. */
#define NK_INVOKE_FN nk_context_invoke_timed_loop
#define NK_INVOKE_PARAMS , nk_clock_fn clock, void *user, uint64_t *op_ticks
#define NK_INVOKE_LOCALS uint64_t nk_t0 = 0;
#define NK_OP_BEGIN(k) (nk_t0 = clock(user))
#define NK_OP_END(k) (op_ticks[k] += clock(user) - nk_t0) /* a batch tile's ops run per chunk */
static /* the public wrapper below checks the arguments */
#include "invoke_loop.inc"
#undef NK_INVOKE_FN
#undef NK_OP_BEGIN
#undef NK_OP_END

nk_status nk_context_invoke_timed(nk_context_t *c, nk_clock_fn clock, void *user,
                                  uint64_t *op_ticks, int32_t n_ops, nk_error_t *err) {
    uint32_t v[2];
    if (c == NULL || clock == NULL || op_ticks == NULL)
        return nk_fail(err, NK_ERR_ARG, -1, "invoke_timed: NULL argument");
    if (!nk_model_ready(c->model)) return nk_fail(err, NK_ERR_STATE, -1, NK_MODEL_UNLOADED_MSG);
    if (n_ops < 0 || (uint32_t)n_ops < c->model->n_ops) {
        v[0] = n_ops < 0 ? 0u : (uint32_t)n_ops;
        v[1] = c->model->n_ops;
        return nk_fail_f(err, NK_ERR_ARG, -1, "invoke_timed: room for %u op times, the model has %u ops",
                         NULL, v);
    }
    memset(op_ticks, 0, (size_t)c->model->n_ops * sizeof *op_ticks);
    return nk_context_invoke_timed_loop(c, clock, user, op_ticks, err);
}

nk_status nk_context_profile(nk_context_t *c, uint64_t *op_ns, int32_t n_ops, nk_error_t *err) {
    return nk_context_invoke_timed(c, nk_platform_clock_ns, NULL, op_ns, n_ops, err);
}

nk_status nk_model_profile(nk_model_t *m, uint64_t *op_ns, int32_t n_ops, nk_error_t *err) {
    if (m == NULL) return nk_fail(err, NK_ERR_ARG, -1, "profile: NULL model");
    return nk_context_profile(m->ctx, op_ns, n_ops, err);
}
#endif

nk_status nk_context_run(nk_context_t *c, const void *const *ins, const size_t *in_bytes,
                         void *const *outs, const size_t *out_bytes, nk_error_t *err) {
    const nk_model_t *m;
    nk_tensor_t v;
    uint32_t i;
    nk_status s;
    if (c == NULL || ins == NULL || in_bytes == NULL || outs == NULL || out_bytes == NULL)
        return nk_fail(err, NK_ERR_ARG, -1, "run: NULL argument");
    m = c->model;
    if (!nk_model_ready(m)) return nk_fail(err, NK_ERR_STATE, -1, NK_MODEL_UNLOADED_MSG);
    if (nk_context_unbound(c)) return nk_fail(err, NK_ERR_STATE, -1, NK_NO_BLOCK_MSG);
    for (i = 0; i < m->img.n_inputs + m->img.n_outputs; i++) {
        int is_out = i >= m->img.n_inputs;
        uint32_t j = is_out ? i - m->img.n_inputs : i;
        size_t given = is_out ? out_bytes[j] : in_bytes[j];
        const void *buf = is_out ? (const void *)outs[j] : ins[j];
        int null;
        nk_context_view(c, is_out, (int32_t)j, &v);
        null = buf == NULL && v.bytes != 0; /* an empty tensor's buffer may be NULL */
        if (null || given != v.bytes) {
            uint32_t n[3];
            n[0] = j;
            /* a size_t above 32 bits is reported saturated: it differs either way */
            n[1] = given > UINT32_MAX ? UINT32_MAX : (uint32_t)given;
            n[2] = (uint32_t)v.bytes;
            return nk_fail_f(err, null ? NK_ERR_ARG : NK_ERR_SHAPE, -1,
                             null ? "%s %u: NULL buffer" : "%s %u: buffer of %u B, the tensor has %u B",
                             is_out ? "output" : "input", n);
        }
    }
    for (i = 0; i < m->img.n_inputs; i++) {
        nk_context_view(c, 0, (int32_t)i, &v);
        if (v.bytes != 0) memcpy(v.data, ins[i], (size_t)v.bytes); /* an empty one may be NULL */
    }
    s = nk_context_invoke(c, err);
    if (s != NK_OK) return s;
    for (i = 0; i < m->img.n_outputs; i++) {
        nk_context_view(c, 1, (int32_t)i, &v);
        if (v.bytes != 0) memcpy(outs[i], v.data, (size_t)v.bytes);
    }
    return NK_OK;
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

/* count * record > SIZE_MAX / 2, without the product (a size_t count:
 * on a 64-bit host a u32 count never is, and compilers would say so) */
static int nk_model_records_too_big(size_t count, size_t record) {
    return count > (size_t)-1 / 2u / record;
}

/* Starts a load-time scratch phase in `work`: the phase's peak is measured
 * from its first 16-aligned byte, so it is what the phase takes from an
 * arena of its own (the activations region of a two-region load). */
static size_t nk_work_phase_begin(nk_arena_t *work, size_t *hw) {
    *hw = work->high_water;
    work->high_water = work->used;
    return work->used;
}

/* Ends the phase begun at `mark`: rewinds `work`, raises *peak to the
 * phase's need and restores the arena's high water. */
static void nk_work_phase_end(nk_arena_t *work, size_t mark, size_t hw, uint32_t *peak) {
    size_t start = mark + ((size_t)(0u - ((uintptr_t)work->base + mark)) & (NK_PAYLOAD_ALIGN - 1));
    if (work->high_water > start && work->high_water - start > *peak)
        *peak = work->high_water - start > UINT32_MAX ? UINT32_MAX : (uint32_t)(work->high_water - start);
    nk_arena_rewind(work, mark);
    if (hw > work->high_water) work->high_water = hw;
}

/* Prefixes an overflow's message with the region it happened in (not in
 * a build without message text). */
static void nk_blame_region(nk_error_t *err, const char *region) {
#if NETKIT_STRIP_MESSAGES
    (void)err;
    (void)region;
#else
    char text[NK_ERROR_MESSAGE_MAX];
    size_t n;
    if (err == NULL) return;
    n = nk_str_append(text, sizeof text, 0, region);
    n = nk_str_append(text, sizeof text, n, " region: ");
    nk_str_append(text, sizeof text, n, err->message);
    memcpy(err->message, text, sizeof text);
#endif
}

/* Decodes, binds, folds and plans the image. The model's records go into
 * `arena`; what the load needs only while it runs (decoder marks, the
 * planner's offsets and scratch) comes from `work` and is released before
 * the default context's activation block is taken from `fast` (with
 * own_block). A one-arena load passes its arena three times; a two-region
 * load passes its activations region as `fast` and as `work` or, when the
 * scratch does not fit there, its records region as `work`
 * (m->stats.work_peak says what the scratch took). A model in state
 * NK_MODEL_SIZING stops there and writes nothing into the image (the
 * caller reads the arena and rewinds); else the default context follows
 * and the model is READY. A failure rewinds every arena; an overflow sets
 * *overflowed (may be NULL) to the arena that overflowed and, with two,
 * names its region in the message. */
static nk_status nk_model_build(nk_model_t **out, const void *bytes, size_t len, uint32_t kind,
                                uint32_t state, int own_block, nk_arena_t *arena, nk_arena_t *work,
                                nk_arena_t *fast, const nk_arena_t **overflowed, nk_error_t *err) {
    nk_image img;
    nk_model_t *m;
    nk_tensor_rt *copy;
    uint32_t *scratch;
    size_t mark, scratch_mark, work_hw, work_mark = nk_arena_mark(work), fast_mark = nk_arena_mark(fast);
    const nk_arena_t *in = arena; /* where an overflow now happens */
    nk_status s;

    const int overlap = (kind & NK_LOAD_NO_OVERLAP) == 0u;
    *out = NULL;
    kind &= ~NK_LOAD_NO_OVERLAP;
    s = nk_format_open(&img, bytes, len, err);
    if (s != NK_OK) return s;
    mark = nk_arena_mark(arena);
    if (nk_model_records_too_big(img.n_tensors, sizeof(nk_tensor_rt)) ||
        nk_model_records_too_big(img.n_ops, sizeof(nk_op_state))) {
        return nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1,
                       "arena overflow: tensor or op records exceed the address space");
    }
    m = (nk_model_t *)nk_core_alloc(arena, sizeof *m, "model record", -1, NULL, err);
    if (m == NULL) goto fail_overflow;
    m->img = img;
    m->kind = kind;
    m->state = state == NK_MODEL_SIZING ? NK_MODEL_SIZING : NK_MODEL_UNLOADED;
    m->n_tensors = img.n_tensors;
    m->n_ops = img.n_ops;
    /* format 1.1 records are read in place; a 1.0 file's are copied */
    copy = NULL;
    if (!nk_format_tensors_in_place(&img)) {
        copy = (nk_tensor_rt *)nk_core_alloc(arena, (size_t)img.n_tensors * sizeof(nk_tensor_rt),
                                             "tensor records (format 1.0 file)", -1, NULL, err);
        if (copy == NULL) goto fail_overflow;
#if NK_MODEL_REPORT
        m->stats.structs += (size_t)img.n_tensors * sizeof(nk_tensor_rt);
#endif
    }
    m->tensors = copy != NULL ? copy : nk_format_tensors(&img);
    /* the op records are read in place; RAM keeps what load decides per op */
    m->ops = (nk_op_state *)nk_core_alloc(arena, (size_t)img.n_ops * sizeof(nk_op_state),
                                          "op states", -1, NULL, err);
    if (m->ops == NULL) goto fail_overflow; /* zeroed, as nk_core_alloc's memory is */
    m->in_place = (uint8_t *)nk_core_alloc(arena, img.n_ops, "op in-place marks", -1, NULL, err);
    if (m->in_place == NULL) goto fail_overflow;
    /* the default context's data table is the model's payload pointers too */
    m->ctx = nk_context_records(m, arena, err);
    if (m->ctx == NULL) goto fail_overflow;
#if NK_MODEL_REPORT
    /* all came from the arena: the sum fits a size_t */
    m->stats.structs += sizeof *m + (size_t)img.n_ops * (sizeof(nk_op_state) + 1) + sizeof(nk_context_t) +
                        (size_t)m->n_tensors * sizeof(void *);
#endif
    if (kind == NK_IMAGE_MAPPED && state != NK_MODEL_SIZING) {
        m->mapping = (void *)(uintptr_t)bytes;
        m->mapping_len = len;
    }

    /* decode's scratch word per tensor sits above the records, released
     * after; the op records are checked, then read in place as views */
    scratch_mark = nk_work_phase_begin(work, &work_hw);
    in = work;
    scratch = (uint32_t *)nk_core_alloc(work, (size_t)img.n_tensors * sizeof(uint32_t),
                                        "load scratch", -1, NULL, err);
    s = scratch == NULL ? NK_ERR_ARENA_OVERFLOW : nk_format_decode(&img, copy, scratch, err);
    if (s == NK_OK) {
        uint32_t i;
        for (i = 0; i < m->n_tensors; i++)
            m->ctx->data[i] = m->tensors[i].is_const
                                  ? (void *)(uintptr_t)(img.base + m->tensors[i].data_offset)
                                  : NULL;
        s = nk_model_check_rounding(&img, err);
    }
    nk_work_phase_end(work, scratch_mark, work_hw, &m->stats.work_peak);
    if (scratch == NULL) goto fail_overflow;
    in = arena;
    if (s == NK_OK) s = nk_model_bind_ops(m, err);
#if NETKIT_LOAD_FOLD_BN
    if (s == NK_OK) s = nk_model_fold_bn(m, arena, err);
#endif
#if NETKIT_BACKEND
    if (s == NK_OK) nk_model_choose_impls(m);
#endif
#if NETKIT_HOST_KERNELS
    if (s == NK_OK) s = nk_model_host_prepare(m, arena, err);
    if (s == NK_OK) s = nk_batch_tile_find(m, arena, err);
#endif
    if (s == NK_OK) s = nk_model_take_workspace(m, err);
    if (s == NK_OK) {
        /* the plan's offsets (they go into the default context's slots)
         * and the graph input/output marks are transient; the planner
         * reads the op records one at a time and keeps its marks in the
         * op states */
        nk_op_seq seq;
        const nk_tensor_rt *planned = m->tensors;
        uint8_t *io;
        seq.array = NULL;
        seq.model = m;
        seq.tile_first = 1;
        seq.tile_last = 0;
#if NETKIT_HOST_KERNELS
        if (m->tile != NULL) { /* its own tensors at one chunk */
            planned = m->tile->tensors;
            seq.tile_first = m->tile->first;
            seq.tile_last = m->tile->last;
        }
#endif
        scratch_mark = nk_work_phase_begin(work, &work_hw);
        in = work;
        scratch = (uint32_t *)nk_core_alloc(work, (size_t)img.n_tensors * 5u,
                                            "activation offsets", -1, NULL, err);
        /* the I/O marks' bytes; nk_plan_model fills them if it needs them */
        io = scratch != NULL ? (uint8_t *)(scratch + img.n_tensors) : NULL;
        s = scratch == NULL ? NK_ERR_ARENA_OVERFLOW
                            : nk_plan_model(&m->img, planned, io, m->n_tensors, &seq,
                                            m->n_ops, overlap, work, scratch, &m->plan,
                                            &m->workspace, &m->workspace_op, err);
        if (s == NK_OK) {
            uint32_t i;
            for (i = 0; i < m->n_tensors; i++)
                if (!m->tensors[i].is_const) m->ctx->data[i] = (void *)(uintptr_t)scratch[i];
#if NETKIT_HOST_KERNELS
            nk_batch_tile_planned(m);
#endif
            in = arena;
        }
        nk_work_phase_end(work, scratch_mark, work_hw, &m->stats.work_peak);
    }
    m->stats.records_end = arena->used;
    if (s == NK_OK && state != NK_MODEL_SIZING) {
        uint8_t *block = NULL;
        m->state = NK_MODEL_READY; /* a failure below discards the record */
        if (own_block) {
            in = fast;
            block = nk_context_block(m, fast, err);
            if (block == NULL) s = NK_ERR_ARENA_OVERFLOW;
        }
        if (s == NK_OK) nk_context_bind(m->ctx, block);
#if NETKIT_BACKEND
        if (s == NK_OK) s = nk_model_prepare_impls(m, err);
#endif
    }
    if (s != NK_OK) goto fail;
    *out = m;
    return NK_OK;
fail_overflow:
    s = NK_ERR_ARENA_OVERFLOW;
fail:
    if (s == NK_ERR_ARENA_OVERFLOW && overflowed != NULL) *overflowed = in;
    if (s == NK_ERR_ARENA_OVERFLOW && fast != arena)
        nk_blame_region(err, in == fast ? "activations" : "records");
    nk_arena_rewind(fast, fast_mark);
    nk_arena_rewind(work, work_mark);
    nk_arena_rewind(arena, mark);
    return s;
}

/* A load: with `path`, the file is first read into the arena (OWNED).
 * For the report, the arena's high water is made this load's own while it
 * runs, so the model records the bytes it took; the caller's maximum is
 * restored. */
static nk_status nk_model_load(nk_model_t **out, const void *bytes, size_t len, uint32_t kind,
                               const char *path, int own_block, nk_arena_t *arena, nk_arena_t *work,
                               nk_arena_t *fast, const nk_arena_t **overflowed, nk_error_t *err) {
    size_t mark = arena->used;
    nk_status s = NK_OK;
#if NK_MODEL_REPORT
    size_t hw = arena->high_water;
    const uint8_t *first = NULL;
    arena->high_water = arena->used;
#endif
    *out = NULL;
#if !defined(NETKIT_MCU)
    if (path != NULL) {
        void *addr = NULL;
        s = nk_platform_read_file(path, arena, &addr, &len, err);
        bytes = addr;
#if NK_MODEL_REPORT
        first = (const uint8_t *)addr;
#endif
    }
#else
    (void)path;
#endif
    if (s == NK_OK) s = nk_model_build(out, bytes, len, kind, NK_MODEL_READY, own_block, arena, work, fast, overflowed,
                                             err);
    if (s != NK_OK) nk_arena_rewind(arena, mark); /* a failed read, too */
#if NK_MODEL_REPORT
    if (s == NK_OK) {
        nk_model_t *m = *out;
        if (first == NULL) first = (const uint8_t *)m;
        if (path != NULL) m->stats.file_copy = len;
        m->stats.arena_bytes = (uint64_t)(arena->base + arena->high_water - first);
        /* the default context's record and table sit among the records:
         * what one more context takes (nk_context_size) is not the model's */
        m->stats.model_bytes = (uint64_t)(arena->base + m->stats.records_end - first) -
                               nk_model_round16(sizeof(nk_context_t)) -
                               nk_model_round16((size_t)m->n_tensors * sizeof(void *));
    }
    if (hw > arena->high_water) arena->high_water = hw;
#endif
    return s;
}

nk_status nk_model_load_buffer(nk_model_t **out, const void *bytes, size_t len,
                               nk_arena_t *arena, nk_error_t *err) {
    if (out == NULL || arena == NULL) return nk_fail(err, NK_ERR_ARG, -1, "load: NULL argument");
    return nk_model_load(out, bytes, len, NK_IMAGE_BORROWED, NULL, 1, arena, arena, arena, NULL, err);
}

nk_status nk_model_load_buffer_shared(nk_model_t **out, const void *bytes, size_t len,
                                      nk_arena_t *arena, nk_error_t *err) {
    if (out == NULL || arena == NULL) return nk_fail(err, NK_ERR_ARG, -1, "load: NULL argument");
    return nk_model_load(out, bytes, len, NK_IMAGE_BORROWED, NULL, 0, arena, arena, arena, NULL, err);
}

nk_status nk_model_load_buffer_regions(nk_model_t **out, const void *bytes, size_t len,
                                       nk_arena_t *records, nk_arena_t *activations, nk_error_t *err) {
    const nk_arena_t *first_in = NULL, *again_in = NULL;
    nk_error_t first;
    nk_status s;
    if (out == NULL || records == NULL || activations == NULL || records == activations)
        return nk_fail(err, NK_ERR_ARG, -1, "load: NULL argument or one arena as both regions");
    /* the load's scratch in the fast region, where the block reuses it; if
     * that overflows, in the slow one, leaving the fast one only the block */
    s = nk_model_load(out, bytes, len, NK_IMAGE_BORROWED, NULL, 1, records, activations, activations,
                      &first_in, &first);
    if (s == NK_ERR_ARENA_OVERFLOW && first_in == activations) {
        s = nk_model_load(out, bytes, len, NK_IMAGE_BORROWED, NULL, 1, records, records, activations,
                          &again_in, err);
        /* both failed, the second for want of records room it only needed
         * for the scratch: what the fast region lacked is the news */
        if (s == NK_ERR_ARENA_OVERFLOW && again_in == records && err != NULL) *err = first;
    } else if (s != NK_OK && err != NULL) {
        *err = first;
    }
    return s;
}

#if !defined(NETKIT_MCU)
nk_status nk_model_load_file_ex(nk_model_t **out, const char *path, uint32_t mode,
                                nk_arena_t *arena, nk_error_t *err) {
    if (out == NULL || path == NULL || arena == NULL)
        return nk_fail(err, NK_ERR_ARG, -1, "load_file: NULL argument");
    const uint32_t flags = mode & NK_LOAD_NO_OVERLAP;
    *out = NULL;
    mode &= ~NK_LOAD_NO_OVERLAP;
    if (mode != NK_LOAD_FILE && mode != NK_LOAD_COPY)
        return nk_fail(err, NK_ERR_ARG, -1, "load_file: mode is not NK_LOAD_FILE or NK_LOAD_COPY");
#if NETKIT_MMAP
    if (mode == NK_LOAD_FILE) {
        void *addr = NULL;
        size_t len = 0;
        nk_status s = nk_platform_map(path, &addr, &len, err);
        if (s != NK_OK) return s;
        s = nk_model_load(out, addr, len, NK_IMAGE_MAPPED | flags, NULL, 1, arena, arena, arena, NULL, err);
        if (s != NK_OK) nk_platform_unmap(addr, len);
        return s;
    }
#endif
    return nk_model_load(out, NULL, 0, NK_IMAGE_OWNED | flags, path, 1, arena, arena, arena, NULL, err);
}

nk_status nk_model_load_file(nk_model_t **out, const char *path, nk_arena_t *arena,
                             nk_error_t *err) {
    return nk_model_load_file_ex(out, path, NK_LOAD_FILE, arena, err);
}
#endif

/* ------------------------------------------------------------------ */
/* Sizing without loading                                              */
/* ------------------------------------------------------------------ */

#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)
/* Host builds size in a private heap arena: records and planner scratch
 * are a few bytes per file byte at most for real models (weights dominate
 * a file), capped by the default heap arena; too small an arena is retried
 * larger, as told by the overflow. */
static nk_status nk_model_arena_size_heap(const void *bytes, size_t len, uint32_t mode,
                                          size_t *need, nk_error_t *err) {
    nk_error_t local;
    size_t capacity = NK_ARENA_DEFAULT_CAPACITY;
    if (len < capacity / 4u && 4u * len + 65536u < capacity) capacity = 4u * len + 65536u;
    if (err == NULL) err = &local; /* the retry reads the figures */
    for (;;) {
        nk_arena_t heap;
        nk_status s;
        if (nk_arena_init_heap(&heap, capacity) != NK_OK)
            return nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1, "arena overflow: no memory to size the model in");
        s = nk_model_arena_size(bytes, len, mode, &heap, need, err);
        nk_arena_free_heap(&heap);
        if (s != NK_ERR_ARENA_OVERFLOW || err->requested == 0) return s;
        /* 2 * capacity + 2 * requested must not wrap */
        if (capacity > (size_t)-1 / 4u || err->requested > ((size_t)-1 - 2u * capacity) / 2u)
            return nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1,
                           "arena overflow: the model needs more memory than exists");
        capacity = 2u * capacity + 2u * (size_t)err->requested;
    }
}
#endif

/* The needs of a load in `mode`, from one sizing build in `scratch`: a
 * one-arena load's (*need) and, for NK_LOAD_BUFFER, a two-region load's
 * (nk_model_region_sizes' four figures in `regions`, or NULL). Each is
 * from a fresh 16-byte aligned arena. */
static nk_status nk_model_size(const void *bytes, size_t len, uint32_t mode, nk_arena_t *scratch,
                               size_t *need, size_t *regions, nk_error_t *err) {
    uint32_t kind = NK_IMAGE_BORROWED;
    size_t mark, hw;
    nk_model_t *m;
    nk_status s;
    if ((mode & ~NK_LOAD_NO_OVERLAP) != NK_LOAD_BUFFER) kind = NK_IMAGE_OWNED;
#if !defined(NETKIT_MCU) && NETKIT_MMAP
    if ((mode & ~NK_LOAD_NO_OVERLAP) == NK_LOAD_FILE) kind = NK_IMAGE_MAPPED;
#endif
    mark = scratch->used;
    hw = scratch->high_water;
    scratch->high_water = scratch->used;
    s = nk_model_build(&m, bytes, len, kind | (mode & NK_LOAD_NO_OVERLAP), NK_MODEL_SIZING, 1,
                       scratch, scratch, scratch, NULL, err);
    if (s == NK_OK) {
        /* the load, from a 16-byte aligned start: the copied image (16-
         * rounded: the model record follows it), the records (the default
         * context's included) up to here then the activation block, or the
         * planner's scratch if that reached higher */
        const uint8_t *start = (const uint8_t *)m;
        uint64_t records = (uint64_t)(scratch->base + scratch->used - start);
        uint64_t peak = (uint64_t)(scratch->base + scratch->high_water - start);
        uint64_t block = nk_context_block_bytes(m);
        uint64_t total = ((records + 15u) & ~(uint64_t)15u) + block;
        /* two regions: the records alone and the block where the scratch
         * went, or the records with the scratch above and the block alone */
        uint64_t act = block > m->stats.work_peak ? block : m->stats.work_peak;
        if (peak > total) total = peak;
        if (kind == NK_IMAGE_OWNED) total += ((uint64_t)len + 15u) & ~(uint64_t)15u;
        if (total > (size_t)-1)
            s = nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1,
                        "arena overflow: the model needs more than the address space");
        else {
            /* records and act are parts of total */
            if (need != NULL) *need = (size_t)total;
            if (regions != NULL) {
                regions[0] = (size_t)records;
                regions[1] = (size_t)act;
                /* the retry happens only when the scratch outgrows the block */
                regions[2] = (size_t)(act > block && peak > records ? peak : records);
                regions[3] = (size_t)block;
            }
        }
        nk_arena_rewind(scratch, mark);
    }
    if (hw > scratch->high_water) scratch->high_water = hw;
    return s;
}

nk_status nk_model_arena_size(const void *bytes, size_t len, uint32_t mode, nk_arena_t *scratch,
                              size_t *need, nk_error_t *err) {
    if (need == NULL || bytes == NULL) return nk_fail(err, NK_ERR_ARG, -1, "arena_size: NULL argument");
    *need = 0;
    if ((mode & ~NK_LOAD_NO_OVERLAP) > NK_LOAD_COPY)
        return nk_fail(err, NK_ERR_ARG, -1, "arena_size: unknown load mode");
    if (scratch == NULL) {
#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)
        return nk_model_arena_size_heap(bytes, len, mode, need, err);
#else
        return nk_fail(err, NK_ERR_ARG, -1, "arena_size: NULL scratch arena");
#endif
    }
    return nk_model_size(bytes, len, mode, scratch, need, NULL, err);
}

nk_status nk_model_region_sizes(const void *bytes, size_t len, nk_arena_t *scratch, size_t *records,
                                size_t *activations, size_t *records_with_scratch, size_t *block,
                                nk_error_t *err) {
    size_t sizes[4] = {0, 0, 0, 0};
    nk_status s;
    if (bytes == NULL || records == NULL || activations == NULL)
        return nk_fail(err, NK_ERR_ARG, -1, "region_sizes: NULL argument");
    if (scratch == NULL) {
#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)
        /* a one-arena load's need is room enough to size in */
        nk_arena_t heap;
        size_t need = 0;
        s = nk_model_arena_size(bytes, len, NK_LOAD_BUFFER, NULL, &need, err);
        if (s == NK_OK && nk_arena_init_heap(&heap, need) != NK_OK)
            s = nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1, "region_sizes: no memory to size the model in");
        else if (s == NK_OK) {
            s = nk_model_size(bytes, len, NK_LOAD_BUFFER, &heap, NULL, sizes, err);
            nk_arena_free_heap(&heap);
        }
#else
        s = nk_fail(err, NK_ERR_ARG, -1, "region_sizes: NULL scratch arena");
#endif
    } else {
        s = nk_model_size(bytes, len, NK_LOAD_BUFFER, scratch, NULL, sizes, err);
    }
    *records = sizes[0];
    *activations = sizes[1];
    if (records_with_scratch != NULL) *records_with_scratch = sizes[2];
    if (block != NULL) *block = sizes[3];
    return s;
}

void nk_model_unload(nk_model_t *m) {
    if (m == NULL || !nk_model_ready(m)) return;
#if !defined(NETKIT_MCU) && NETKIT_MMAP
    if (m->mapping != NULL) nk_platform_unmap(m->mapping, m->mapping_len);
#endif
#if NETKIT_BACKEND
    nk_model_release_impls(m);
#endif
    m->mapping = NULL;
    m->state = NK_MODEL_UNLOADED;
}

/* ------------------------------------------------------------------ */
/* Model accessors: the default context                                */
/* ------------------------------------------------------------------ */

int32_t nk_model_num_inputs(const nk_model_t *m) {
    return m != NULL && nk_model_ready(m) ? (int32_t)m->img.n_inputs : 0;
}
int32_t nk_model_num_outputs(const nk_model_t *m) {
    return m != NULL && nk_model_ready(m) ? (int32_t)m->img.n_outputs : 0;
}
int32_t nk_model_num_ops(const nk_model_t *m) {
    return m != NULL && nk_model_ready(m) ? (int32_t)m->n_ops : 0;
}

const char *nk_model_meta(const nk_model_t *m, const char *key) {
    return m != NULL && nk_model_ready(m) ? nk_format_meta(&m->img, key) : NULL;
}

/* the default context's calls check the model's state themselves */
nk_status nk_model_input(const nk_model_t *m, int32_t i, nk_tensor_t *out) {
    return m != NULL ? nk_context_view(m->ctx, 0, i, out) : NK_ERR_ARG;
}

nk_status nk_model_output(const nk_model_t *m, int32_t i, nk_tensor_t *out) {
    return m != NULL ? nk_context_view(m->ctx, 1, i, out) : NK_ERR_ARG;
}

nk_status nk_model_invoke(nk_model_t *m, nk_error_t *err) {
    if (m == NULL) return nk_fail(err, NK_ERR_ARG, -1, "invoke: NULL model");
    return nk_context_invoke(m->ctx, err);
}

#if defined(NETKIT_OP_MARKERS) && NETKIT_OP_MARKERS
nk_status nk_model_invoke_op_markers(nk_model_t *m, nk_error_t *err) {
    if (m == NULL) return nk_fail(err, NK_ERR_ARG, -1, "invoke: NULL model");
    return nk_context_invoke_op_markers(m->ctx, err);
}
#endif

nk_status nk_model_run(nk_model_t *m, const void *in, size_t in_bytes, void *out, size_t out_bytes,
                       nk_error_t *err) {
    nk_tensor_t vi, vo;
    nk_status s;
    if (m == NULL || in == NULL || out == NULL) return nk_fail(err, NK_ERR_ARG, -1, "run: NULL argument");
    if (!nk_model_ready(m)) return nk_fail(err, NK_ERR_STATE, -1, NK_MODEL_UNLOADED_MSG);
    if (nk_context_unbound(m->ctx)) return nk_fail(err, NK_ERR_STATE, -1, NK_NO_BLOCK_MSG);
    nk_context_view(m->ctx, 0, 0, &vi);
    nk_context_view(m->ctx, 1, 0, &vo);
    if (in_bytes != vi.bytes || out_bytes != vo.bytes) {
        uint32_t v[4];
        /* a size_t above 32 bits is reported saturated: it differs either way */
        v[0] = in_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)in_bytes;
        v[1] = out_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)out_bytes;
        v[2] = (uint32_t)vi.bytes;
        v[3] = (uint32_t)vo.bytes;
        return nk_fail_f(err, NK_ERR_SHAPE, -1,
                         "run: buffers of %u B in, %u B out; the model takes %u B and gives %u B",
                         NULL, v);
    }
    memcpy(vi.data, in, in_bytes);
    s = nk_context_invoke(m->ctx, err);
    if (s == NK_OK) memcpy(out, vo.data, out_bytes);
    return s;
}
