/*
 * inspect.c — exact memory figures for a model, read from the load itself:
 * the loader records the arena bytes it took (its own high water) and
 * where the default context starts; the planner keeps its figures. So
 * "load into an arena of arena_after_load bytes" succeeds by construction,
 * and one byte less fails, because the loader's allocation sequence on a
 * 16-byte aligned arena does not depend on where the arena is.
 * nk_inspect_model sizes with nk_model_arena_size, loads once into exactly
 * that, and reports on the loaded model (nk_model_report).
 */
#include "model.h"
#include "nk_lowered.h" /* a staged op's band and slots in its in_place */
#if NETKIT_HOST_KERNELS
#include "kernels/host/host.h"
#endif
#if NETKIT_BACKEND
#include "backend.h"
#endif

#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)

static void nk_inspect_copy(char *dst, size_t cap, const char *src) {
    nk_str_append(dst, cap, 0, src);
}

/* Bytes of the activation block covered by graph inputs and outputs (their
 * 16-rounded slots; aliased I/O tensors count once). */
static uint64_t nk_inspect_io_bytes(const nk_model_t *m) {
    uint64_t lo[2 * NK_FORMAT_MAX_IO], hi[2 * NK_FORMAT_MAX_IO], total = 0, end = 0;
    uint32_t n = 0, i, j;
    for (i = 0; i < m->img.n_inputs + m->img.n_outputs; i++) {
        int is_out = i >= m->img.n_inputs;
        uint32_t id = nk_format_io_tensor(&m->img, is_out, is_out ? i - m->img.n_inputs : i);
        uint64_t a = nk_model_act_offset(m, id);
        uint64_t b = a + (((uint64_t)nk_tensor_bytes(&m->tensors[id]) + 15u) & ~(uint64_t)15u);
        /* insertion by start offset */
        for (j = n; j > 0 && lo[j - 1] > a; j--) {
            lo[j] = lo[j - 1];
            hi[j] = hi[j - 1];
        }
        lo[j] = a;
        hi[j] = b;
        n++;
    }
    for (i = 0; i < n; i++) {
        uint64_t a = lo[i] > end ? lo[i] : end;
        if (hi[i] > a) total += hi[i] - a;
        if (hi[i] > end) end = hi[i];
    }
    return total;
}


/* What runs an op: the backend's implementation, else for float ops the
 * host ISA's kernel set (which hands parameters it lacks to the portable
 * kernel), else netkit's portable kernels. */
static const char *nk_inspect_impl(const nk_model_t *m, const nk_op_rt *op) {
#if NETKIT_BACKEND
    if (op->impl != NULL) return op->impl->backend;
#endif
#if NETKIT_HOST_KERNELS
    if (m->host != NULL && op->def->dtype == NK_F32) return m->host->name;
    /* int8: the ops whose weights the host kernels packed, and add */
    if (m->host != NULL &&
        (op->host_packed != NULL || (op->type == NK_OP_ADD_I8 && m->host->add_i8 != NULL)))
        return m->host->name;
#endif
    (void)m;
    (void)op;
    return "portable";
}
/* The last op reading tensor id (n_ops for a graph output, which lives
 * past the last op; k when nothing after op k reads it). Inspect only:
 * a scan over the later ops. */
static int32_t nk_inspect_last_use(const nk_model_t *m, uint32_t id, uint32_t k) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    uint32_t i, j, last = k;
    for (i = 0; i < m->img.n_outputs; i++)
        if (nk_format_io_tensor(&m->img, 1, i) == id) return (int32_t)m->n_ops;
    for (i = 0; i < m->n_ops; i++) {
        nk_op_rt op;
        rec = nk_model_op_next(m, rec, i, &op);
        for (j = 0; j < op.n_in && i >= k; j++)
            if (op.in[j] == id) last = i;
    }
    return (int32_t)last;
}

/* The first op reading tensor id, or n_ops. */
static uint32_t nk_inspect_first_use(const nk_model_t *m, uint32_t id) {
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    uint32_t r, j;
    for (r = 0; r < m->n_ops; r++) {
        nk_op_rt op;
        rec = nk_model_op_next(m, rec, r, &op);
        for (j = 0; j < op.n_in; j++)
            if (op.in[j] == id) return r;
    }
    return m->n_ops;
}

static void nk_inspect_op(const nk_model_t *m, uint32_t k, nk_op_info_t *row) {
    nk_op_rt view;
    const nk_op_rt *op = nk_model_op_at(m, k, &view);
    const nk_tensor_rt *out = &m->tensors[op->out[0]];
    const nk_tensor_rt *in = &m->tensors[op->in[0]];
    int folded = (op->def->flags & NK_OPF_ALIAS) && op->def->eval == NULL;
    uint32_t i, j, d;
    size_t room;
    memset(row, 0, sizeof *row);
    nk_inspect_copy(row->op, sizeof row->op, op->def->name);
    nk_inspect_copy(row->name, sizeof row->name, op->name);
    row->index = (int32_t)k;
    row->out_rank = out->rank;
    for (d = 0; d < out->rank; d++) row->out_dims[d] = out->dims[d];
    row->in_rank = in->rank;
    for (d = 0; d < in->rank; d++) row->in_dims[d] = in->dims[d];
    if (!folded) {
        row->macs = op->def->macs != NULL ? op->def->macs(op, m->tensors) : 0;
        for (j = 0; j < op->n_in; j++)
            if (op->in[j] != NK_NONE && m->tensors[op->in[j]].is_const)
                row->param_bytes += m->tensors[op->in[j]].data_size;
    }
    row->act_offset = nk_model_act_offset(m, op->out[0]);
    row->act_bytes = nk_tensor_bytes(out);
    row->chunks = 1;
#if NETKIT_HOST_KERNELS
    if (m->tile != NULL && k >= m->tile->first && k <= m->tile->last) {
        row->chunks = (int32_t)m->tile->chunks;
        if (m->tile->role[op->out[0]] == NK_TILE_OWN) /* its slot holds one chunk */
            row->act_bytes = nk_tensor_bytes(&m->tile->tensors[op->out[0]]);
    }
#endif
    row->workspace_bytes = nk_model_op_workspace(m, op);
    row->in_place = (int32_t)NK_IN_PLACE_KIND(op->in_place);
    if (row->in_place == 3) /* staged rows: band and slots */
        row->stage = nk_i8_stage_in_place_band(op->in_place) | nk_i8_stage_in_place_slots(op->in_place) << 8;
    room = nk_context_room(m->ctx, op);
    row->room = room < INT32_MAX ? (int32_t)room : INT32_MAX;
    row->last_use = nk_inspect_last_use(m, op->out[0], k);
    row->input_number = -1;
    for (i = 0; i < m->img.n_inputs && row->input_number < 0; i++) {
        uint32_t id = nk_format_io_tensor(&m->img, 0, i);
        if (nk_inspect_first_use(m, id) != k) continue;
        row->input_number = (int32_t)i;
        row->input_offset = nk_model_act_offset(m, id);
        row->input_last_use = nk_inspect_last_use(m, id, k);
    }
    nk_inspect_copy(row->impl, sizeof row->impl, nk_inspect_impl(m, op));
}

nk_status nk_model_tensor_offsets(const nk_model_t *m, uint64_t *offsets, int32_t n) {
    uint32_t i;
    if (m == NULL || (offsets == NULL && n > 0) || n < 0) return NK_ERR_ARG;
    if (m->state != NK_MODEL_READY) return NK_ERR_STATE;
    for (i = 0; i < m->n_tensors && i < (uint32_t)n; i++)
        offsets[i] = m->tensors[i].is_const ? UINT64_MAX : nk_model_act_offset(m, i);
    return NK_OK;
}

nk_status nk_model_report(const nk_model_t *m, nk_report_t *rep, nk_op_info_t *ops,
                          int32_t max_ops) {
    uint64_t sum, in_image = 0;
    uint32_t i, k;
    if (m == NULL || rep == NULL) return NK_ERR_ARG;
    memset(rep, 0, sizeof *rep);
    if (m->state != NK_MODEL_READY) return NK_ERR_STATE;
    rep->arena_after_load = m->stats.arena_bytes;
    rep->arena_after_forward = m->stats.arena_bytes; /* invoke never allocates */
    rep->model_bytes = m->stats.model_bytes;
    rep->context_bytes = nk_context_size(m);
    rep->peak_activations = m->plan.peak;
    rep->activation_lower_bound = m->plan.lower_bound;
    rep->pingpong_bytes = m->plan.pingpong;
    rep->workspace = m->workspace;
    rep->file_bytes = m->img.size;
    /* a copied image is arena, not flash */
    for (i = 0; m->kind != NK_IMAGE_OWNED && i < m->n_tensors; i++) {
        const uint8_t *p = (const uint8_t *)m->ctx->data[i];
        if (m->tensors[i].is_const && p >= m->img.base && p < m->img.base + m->img.size)
            in_image += m->tensors[i].data_size;
    }
    rep->flash_payload = in_image;
    rep->bytes_structs = m->stats.structs;
    rep->bytes_io = nk_inspect_io_bytes(m);
    rep->bytes_activations = m->plan.peak - rep->bytes_io;
    for (i = 0; i < m->n_tensors; i++)
        if (m->tensors[i].is_state) rep->bytes_state += nk_tensor_bytes(&m->tensors[i]);
    rep->bytes_workspace = m->workspace;
    rep->bytes_copied_weights = m->stats.copied_weights + m->stats.packed_weights + m->stats.file_copy;
#if NETKIT_BACKEND
    rep->backend_heap_bytes = m->stats.backend_heap;
#endif
    sum = rep->bytes_structs + rep->bytes_io + rep->bytes_activations + rep->bytes_workspace +
          rep->bytes_copied_weights;
    /* alignment padding, plus planner scratch beyond the final allocations
     * when a tiny model's scratch outgrew its context */
    rep->bytes_padding = rep->arena_after_load - sum;
    rep->num_ops = (int32_t)m->n_ops;
    rep->num_tensors = (int32_t)m->n_tensors;
    rep->num_inputs = (int32_t)m->img.n_inputs;
    rep->num_outputs = (int32_t)m->img.n_outputs;
    for (k = 0; k < m->n_ops; k++) {
        nk_op_info_t row;
        nk_inspect_op(m, k, &row);
        rep->macs += row.macs;
        rep->param_bytes += row.param_bytes;
        if (ops != NULL && (int32_t)k < max_ops) ops[k] = row;
    }
    return NK_OK;
}

nk_status nk_inspect_model(const void *bytes, size_t len, nk_report_t *rep, nk_op_info_t *ops,
                           int32_t max_ops, nk_error_t *err) {
    nk_arena_t arena, copy;
    nk_model_t *m = NULL;
    nk_status s;
    size_t need = 0;
    const void *image = bytes;

    if (rep == NULL || bytes == NULL) return nk_fail(err, NK_ERR_ARG, -1, "inspect: NULL argument");
    memset(rep, 0, sizeof *rep);
    memset(&copy, 0, sizeof copy);
    memset(&arena, 0, sizeof arena);
    if (((uintptr_t)bytes & (NK_PAYLOAD_ALIGN - 1)) != 0) {
        /* inspect is a host tool: take an aligned copy instead of refusing */
        if (nk_arena_init_heap(&copy, len != 0 ? len : 1) != NK_OK)
            return nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1, "inspect: no memory for an aligned copy");
        memcpy(copy.base, bytes, len);
        image = copy.base;
    }
    s = nk_model_arena_size(image, len, NK_LOAD_BUFFER, NULL, &need, err);
    if (s == NK_OK && nk_arena_init_heap(&arena, need) != NK_OK)
        s = nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1, "inspect: cannot allocate the measuring arena");
    if (s == NK_OK) s = nk_model_load_buffer(&m, image, len, &arena, err);
    if (s == NK_OK) {
        nk_model_report(m, rep, ops, max_ops);
        /* one forward pass on the zeroed inputs proves invoke takes nothing more */
        s = nk_model_invoke(m, err);
        rep->arena_after_forward = nk_arena_high_water(&arena);
        nk_model_unload(m);
    }
    nk_arena_free_heap(&arena);
    if (s == NK_OK) {
        size_t records = 0, activations = 0;
        s = nk_model_region_sizes(image, len, NULL, &records, &activations, NULL, NULL, err);
        rep->region_records = records;
        rep->region_activations = activations;
    }
    nk_arena_free_heap(&copy);
    return s;
}

#endif
