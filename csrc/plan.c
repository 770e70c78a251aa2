/*
 * plan.c — activation planner (the algorithm is described in plan.h).
 *
 * The scratch covers the run-time (non-constant) tensors only: most of a
 * small model's tensors are weights, and the scratch is the load's peak
 * when it outgrows the activation block. Run-time tensor number d (in
 * tensor id order, so every tie-break by id is unchanged) is w->map[id];
 * the map borrows the caller's act_offset array until the offsets
 * overwrite it. Every per-buffer array is indexed by that number.
 *
 * Buffers are identified by their root: the first tensor of a group of
 * tensors that share storage. root[] always points straight at the root,
 * because a tensor only ever joins a group when it is born.
 *
 * Sizes and offsets are u32 counts of 16-byte units (a buffer is at most
 * 2^28 units), so the layouts run in 32-bit arithmetic. Ends are summed
 * with nk_plan_add, which saturates at UINT32_MAX: a layout that saturates
 * anywhere ends at UINT32_MAX units, far past the 32-bit byte offsets a
 * plan may use, and every layout that stays below is exact.
 */
#include "plan.h"
#include "format.h"
#include "sort.h"
#include "ops/ops_common.h" /* nk_ops_staged_shift */

typedef struct nk_plan_ws {
    const nk_tensor_rt *t;
    uint32_t n_tensors;
    uint32_t n;         /* run-time tensors: the size of every array below */
    const uint32_t *map; /* tensor id -> run-time number (constants: NK_NONE) */
    uint32_t *first; /* birth step, NK_NONE for a tensor nothing uses */
    uint32_t *last;  /* death step (buffer: union over the group, at root) */
    uint32_t *root;
    uint32_t *order; /* buffers in the order a layout visits them */
    uint32_t *list;  /* placed buffers sorted by offset (first-fit); then, */
    uint32_t *list2; /* with list2 right after it, a segment tree (two-ended) */
    uint8_t *side;   /* two-ended: 0 bottom, 1 top (before that, 1: some op writes it) */
    const uint8_t *io; /* per tensor: bit 0 graph input, bit 1 graph output */
    uint32_t *size;  /* bytes during liveness, then 16-byte units, at root */
    uint32_t *off_greedy; /* units */
    uint32_t *off_two;
    /* Overlap pairs (allocated only when some op may overlap): a spare
     * offset array for layouts c, d and e, and the pairs.
     * Overlap pairs (plan.h, 2b), at roots: pin[y] is the buffer y's
     * producer reads (and kills) as input 0, pout[x] the reverse, shift[y]
     * the op's out_shift in 16-byte units (floored); NK_NONE when unpaired. */
    uint32_t *spare;
    uint32_t *pin;
    uint32_t *pout;
    int32_t *shift;
    int use_pairs;   /* the current layout honours pairs (else classic) */
    /* per step: units born minus units that died the step before, mod 2^32
     * (see the lower bound in nk_plan_activations) */
    uint32_t *diff;
    uint32_t budget; /* first-fit steps left in the current layout */
    uint64_t staged_from; /* ops whose input 0 and output hold this many bytes may stage rows */
} nk_plan_ws;

/* Placed buffers of one layout (or of one end), sorted by offset. */
typedef struct nk_plan_list {
    uint32_t *ids;
    uint32_t count;
    uint32_t top; /* highest end placed: the layout's height */
} nk_plan_list;

/* Offset of a buffer a layout with pairs has not placed yet. */
#define NK_PLAN_UNPLACED UINT32_MAX

/* 16-byte units holding `bytes` (no wrap at 2^32 - 1). */
static uint32_t nk_plan_units(uint32_t bytes) { return (bytes >> 4) + ((bytes & 15u) != 0); }

static uint32_t nk_plan_add(uint32_t a, uint32_t b) { return a > UINT32_MAX - b ? UINT32_MAX : a + b; }

static int nk_plan_is_runtime(const nk_plan_ws *w, uint32_t id) {
    return id != NK_NONE && id < w->n_tensors && !w->t[id].is_const;
}

static int nk_plan_alive_together(const nk_plan_ws *w, uint32_t a, uint32_t b) {
    return w->first[a] <= w->last[b] && w->first[b] <= w->last[a];
}

/* Offsets x may not take next to its placed pair p: the open interval
 * (*lo, *hi). Output y over its input x is safe when y starts at most
 * shift above x's start (the kernels' order, plan.h 2b) or clear of x. */
static void nk_plan_pair_gap(const nk_plan_ws *w, uint32_t x, uint32_t p, const uint32_t *off,
                             int64_t *lo, int64_t *hi) {
    const int64_t op = off[p], sx = w->size[x], sp = w->size[p];
    if (w->pin[x] == p) { /* x is the output */
        *lo = op - sx > op + w->shift[x] ? op - sx : op + w->shift[x];
        *hi = op + sp;
    } else { /* x is the input, p its output */
        *lo = op - sx;
        *hi = op - w->shift[p] < op + sp ? op - w->shift[p] : op + sp;
    }
}

/* Sort order of the greedy layout: larger first, then earlier born, then id. */
static int nk_plan_before(const void *ctx, uint32_t a, uint32_t b) {
    const nk_plan_ws *w = (const nk_plan_ws *)ctx;
    if (w->size[a] != w->size[b]) return w->size[a] > w->size[b];
    if (w->first[a] != w->first[b]) return w->first[a] < w->first[b];
    return a < b;
}

/* Lowest offset for x clear of every placed buffer of `l` alive with it;
 * keeps the list sorted by offset. Every entry visited or moved costs one
 * step of w->budget; once the budget is spent, x goes on top of the list,
 * clear of every placed buffer, in O(1). Entries dead before step `drop`
 * are dropped: with buffers placed in birth order and `drop` the birth of
 * x, they are dead for every later buffer too, so on a chain a placement
 * costs O(1). */
static void nk_plan_first_fit(nk_plan_ws *w, uint32_t x, nk_plan_list *l, uint32_t *off,
                              uint32_t drop) {
    uint32_t *ids = l->ids, n = l->count, limit = n < w->budget ? n : w->budget;
    uint32_t cand = 0, i, j = 0, end, steps, pair[2] = {NK_NONE, NK_NONE}, from = 0, k;
    int fits = 0;
    if (w->use_pairs) {
        pair[0] = w->pin[x];
        pair[1] = w->pout[x];
    }
rescan:
    cand = from;
    fits = 0;
    j = 0;
    for (i = 0; i < limit && !fits; i++) {
        uint32_t p = ids[i];
        if (w->last[p] < drop) continue;
        ids[j++] = p;
        if (!nk_plan_alive_together(w, x, p) || p == pair[0] || p == pair[1]) continue;
        end = nk_plan_add(off[p], w->size[p]);
        if (off[p] >= nk_plan_add(cand, w->size[x])) fits = 1; /* the gap below p fits x */
        else if (end > cand) cand = end;
    }
    if (!fits && i < n) cand = l->top; /* budget spent */
    steps = i;
    if (j < i) { /* close the gap of the dropped entries */
        memmove(ids + j, ids + i, (size_t)(n - i) * sizeof *ids);
        steps += n - i;
        n -= i - j;
        l->count = n;
    }
    w->budget = w->budget > steps ? w->budget - steps : 0u;
    limit = n < w->budget ? n : w->budget;
    /* A pair placed already was skipped: if cand falls in its gap, scan
     * again from the gap's end (each pair at most once: cand only rises). */
    for (k = 0; k < 2; k++) {
        int64_t lo, hi;
        uint32_t p = pair[k];
        if (p == NK_NONE || off[p] == NK_PLAN_UNPLACED) continue;
        nk_plan_pair_gap(w, x, p, off, &lo, &hi);
        if (lo < (int64_t)cand && (int64_t)cand < hi) {
            from = hi > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)hi;
            goto rescan;
        }
    }
    steps = 0;
    off[x] = cand;
    for (j = n; j > 0 && off[ids[j - 1]] > cand; j--) ids[j] = ids[j - 1];
    ids[j] = x;
    l->count = n + 1u;
    steps += n - j;
    w->budget = w->budget > steps ? w->budget - steps : 0u;
    end = nk_plan_add(cand, w->size[x]);
    if (end > l->top) l->top = end;
}

/* One block for all scratch arrays (the bytes last, so every array is
 * naturally aligned): one allocation keeps the arena's high water low.
 * list and list2 hold n entries (the buffers) and n_ops + 1 at least,
 * for the segment tree. */
static nk_status nk_plan_scratch(nk_plan_ws *w, uint32_t n_ops, nk_arena_t *a, nk_error_t *err) {
    size_t n = w->n, steps = (size_t)n_ops + 2u, lists = n > n_ops ? n : steps - 1u, bytes;
    uint8_t *p;
    if (n > (size_t)-1 / 128u || steps > (size_t)-1 / 128u - n)
        return nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1,
                       "arena overflow: planner scratch exceeds the address space");
    bytes = n * (7u * sizeof(uint32_t) + 1u) + (2u * lists + steps) * sizeof(uint32_t);
    p = (uint8_t *)nk_core_alloc(a, bytes, "planner scratch", -1, NULL, err);
    if (p == NULL) return NK_ERR_ARENA_OVERFLOW;
    w->diff = (uint32_t *)(void *)p;
    w->size = (uint32_t *)(void *)(w->diff + steps);
    w->off_greedy = w->size + n;
    w->off_two = w->off_greedy + n;
    w->first = w->off_two + n;
    w->last = w->first + n;
    w->root = w->last + n;
    w->order = w->root + n;
    w->list = w->order + n;
    w->list2 = w->list + lists;
    w->side = (uint8_t *)(w->list2 + lists);
    return NK_OK;
}

/* Steps 1 and 2 of plan.h: lifetimes, then aliasing and in-place merges. */
static void nk_plan_liveness(nk_plan_ws *w, const nk_op_seq *ops, uint32_t n_ops, nk_plan_stats *st) {
    const uint8_t *cur = NULL;
    nk_op_rt view;
    const nk_op_rt *op;
    uint32_t i, k, j, d;
    for (i = 0; i < w->n_tensors; i++) {
        if (w->t[i].is_const) continue;
        d = w->map[i];
        /* an empty tensor (an I/O one: no op touches it) takes no bytes */
        w->first[d] = ((w->io[i] & 1u) || w->t[i].is_state) && w->t[i].elems != 0 ? 0u : NK_NONE;
        w->last[d] = 0;
        w->root[d] = d;
        w->size[d] = nk_tensor_bytes(&w->t[i]);
        w->side[d] = 0;
    }
    for (k = 0; k < n_ops; k++) {
        op = nk_op_seq_at(ops, k, &view, &cur);
        for (j = 0; j < op->n_in; j++) {
            uint32_t id = op->in[j];
            if (nk_plan_is_runtime(w, id) && w->last[w->map[id]] < k) w->last[w->map[id]] = k;
        }
        for (j = 0; j < op->n_out; j++) {
            uint32_t id = op->out[j]; /* validated: a run-time tensor */
            d = w->map[id];
            if (!w->t[id].is_state) w->first[d] = k;
            if (w->last[d] < k) w->last[d] = k;
            w->side[d] = 1; /* written by an op, until the two-ended layout deals the sides */
        }
    }
    /* graph outputs live past the last op; STATE tensors over every op and
     * past it, so no tensor ever shares their bytes: the persistent region */
    for (i = 0; i < w->n_tensors; i++) {
        if (w->t[i].is_const) continue;
        d = w->map[i];
        if (((w->io[i] & 2u) && w->first[d] != NK_NONE) || w->t[i].is_state) w->last[d] = n_ops;
    }
    /* a batch tile's edges (1b of plan.h); side[d] still says "made by an op" */
    for (i = 0; ops->tile_first <= ops->tile_last && i < w->n_tensors; i++) {
        const uint32_t a = ops->tile_first, b = ops->tile_last;
        if (w->t[i].is_const) continue;
        d = w->map[i];
        if (w->first[d] == NK_NONE || w->last[d] < a || w->first[d] > b) continue;
        if (w->side[d] && w->first[d] >= a) {
            if (w->last[d] > b) w->first[d] = a;
        } else if (w->last[d] < b) {
            w->last[d] = b;
        }
    }

    cur = NULL;
    for (k = 0; k < n_ops; k++) {
        uint32_t flags, a, b, ra;
        int merge = 0;
        op = nk_op_seq_at(ops, k, &view, &cur);
        flags = op->def != NULL ? op->def->flags : 0u;
        nk_op_seq_mark(ops, k, 0);
        if (op->n_in < 1 || !nk_plan_is_runtime(w, op->in[0])) continue;
        a = op->in[0];
        b = op->out[0];
        ra = w->root[w->map[a]];
        if (flags & NK_OPF_ALIAS) {
            merge = 1;
        } else if ((flags & NK_OPF_ELEMENTWISE) && w->last[ra] == k &&
                   nk_tensor_bytes(&w->t[a]) == nk_tensor_bytes(&w->t[b]) && w->size[ra] == nk_tensor_bytes(&w->t[b])) {
            merge = 1;
            for (j = 1; j < op->n_in; j++)
                if (nk_plan_is_runtime(w, op->in[j]) && w->root[w->map[op->in[j]]] == ra) merge = 0;
        }
        if (!merge) continue;
        d = w->map[b];
        w->root[d] = ra;
        if (w->last[d] > w->last[ra]) w->last[ra] = w->last[d];
        if (nk_tensor_bytes(&w->t[b]) > w->size[ra]) w->size[ra] = nk_tensor_bytes(&w->t[b]);
        nk_op_seq_mark(ops, k, 1);
        st->n_in_place++;
    }
    for (i = 0; i < w->n; i++) w->size[i] = nk_plan_units(w->size[i]);
}

/* The buffer op k's output may overlap (plan.h, 2b), or NK_NONE: input 0's
 * buffer dies at k, no other input lives in it, the output starts a buffer
 * and the op has an overlap rule its kernels honour. */
static uint32_t nk_plan_pair_input(const nk_plan_ws *w, const nk_op_seq *ops, const nk_op_rt *op,
                                   uint32_t k) {
    uint32_t x, j;
    if (op->def == NULL || op->def->out_shift == NULL || op->in_place || op->n_out != 1 ||
        op->n_in < 1 || !nk_plan_is_runtime(w, op->in[0]))
        return NK_NONE;
#if NETKIT_BACKEND
    if (op->impl != NULL) return NK_NONE; /* a vendor kernel's order is not ours to prove */
#endif
    x = w->root[w->map[op->in[0]]];
    if (w->last[x] != k || w->root[w->map[op->out[0]]] != w->map[op->out[0]] ||
        w->t[op->out[0]].is_state)
        return NK_NONE;
    /* in a batch tile, only the tile's own tensors: an edge's chunks are
     * slices the rule does not know (plan.h, 1b) */
    if (k >= ops->tile_first && k <= ops->tile_last &&
        (k == ops->tile_last || w->last[w->map[op->out[0]]] > ops->tile_last))
        return NK_NONE;
    for (j = 1; j < op->n_in; j++)
        if (nk_plan_is_runtime(w, op->in[j]) && w->root[w->map[op->in[j]]] == x) return NK_NONE;
    return x;
}

/* Step 2b of plan.h: the overlap pairs, and their scratch from `a` (only
 * when some op qualifies: a model without pairs plans in the classic
 * scratch). Returns NK_OK; w->spare stays NULL when there are no pairs. */
static nk_status nk_plan_pairs(nk_plan_ws *w, const nk_op_seq *ops, uint32_t n_ops, nk_arena_t *a,
                               nk_plan_stats *st, nk_error_t *err) {
    const uint8_t *cur = NULL;
    nk_op_rt view;
    uint32_t i, k;
    for (k = 0; k < n_ops; k++) {
        const nk_op_rt *op = nk_op_seq_at(ops, k, &view, &cur);
        const uint32_t x = nk_plan_pair_input(w, ops, op, k);
        uint32_t y;
        int64_t shift;
        if (x != NK_NONE && w->spare == NULL) { /* the first pair: the scratch */
            w->spare = (uint32_t *)nk_core_alloc(a, (size_t)w->n * 4u * sizeof(uint32_t),
                                                 "planner scratch", -1, NULL, err);
            if (w->spare == NULL) return NK_ERR_ARENA_OVERFLOW;
            w->pin = w->spare + w->n;
            w->pout = w->pin + w->n;
            w->shift = (int32_t *)(void *)(w->pout + w->n);
            for (i = 0; i < w->n; i++) {
                w->pin[i] = w->pout[i] = NK_NONE;
                w->shift[i] = 0;
            }
        }
        if (x == NK_NONE || w->pout[x] != NK_NONE) continue;
        y = w->map[op->out[0]];
        shift = op->def->out_shift(op, w->t);
        if ((uint64_t)nk_tensor_bytes(&w->t[op->in[0]]) + nk_tensor_bytes(&w->t[op->out[0]]) >= w->staged_from) {
            /* the rule with the op's rows staged in the workspace (plan.h, 2b) */
            size_t staging;
            const int64_t staged = nk_ops_staged_shift(op, w->t, &staging);
            if (staged > shift) shift = staged;
        }
        if (shift == NK_SHIFT_NONE) continue;
        /* floor to units; at or below -size the output sits clear below
         * anyway: no pair */
        shift = shift >= 0 ? shift / 16 : -((-shift + 15) / 16);
        if (shift <= -(int64_t)w->size[y]) continue;
        if (shift > (int64_t)w->size[x]) shift = (int64_t)w->size[x];
        w->pin[y] = x;
        w->pout[x] = y;
        w->shift[y] = (int32_t)shift;
        nk_op_seq_mark(ops, k, 2);
        st->n_overlap++;
    }
    return NK_OK;
}

/* The highest end, at each step s, among the buffers of one end of the
 * two-ended layout alive at s, in tree[S + s] for the S steps: each buffer
 * raises the O(log S) tree nodes covering its lifetime to its end, then
 * every node passes its value down to its children. */
static void nk_plan_ends_by_step(const nk_plan_ws *w, uint32_t n_order, uint8_t side,
                                 uint32_t *tree, uint32_t S) {
    uint32_t i, l, r;
    memset(tree, 0, 2u * (size_t)S * sizeof *tree);
    for (i = 0; i < n_order; i++) {
        uint32_t x = w->order[i], e = nk_plan_add(w->off_two[x], w->size[x]);
        if (w->side[x] != side) continue;
        for (l = w->first[x] + S, r = w->last[x] + S + 1u; l < r; l >>= 1, r >>= 1) {
            if ((l & 1u) && tree[l] < e) tree[l] = e;
            if ((r & 1u) && tree[r - 1u] < e) tree[r - 1u] = e;
            l += l & 1u;
            r -= r & 1u;
        }
    }
    for (i = 1; i < S; i++) {
        if (tree[2u * i] < tree[i]) tree[2u * i] = tree[i];
        if (tree[2u * i + 1u] < tree[i]) tree[2u * i + 1u] = tree[i];
    }
}

/* Layout b of plan.h. Returns the block height. */
static uint32_t nk_plan_two_ended(nk_plan_ws *w, const nk_op_seq *ops, uint32_t n_ops,
                                  uint32_t *n_out) {
    const uint8_t *cur = NULL;
    nk_op_rt view;
    nk_plan_list bottom = {0, 0, 0}, top = {0, 0, 0};
    uint32_t n_order = 0, i, j, k, flip = 0, S = n_ops + 1u, *tree = w->list, height;
    /* graph inputs, and STATE tensors no op writes (SVDF updates its state
     * input in place): born before op 0 */
    for (i = 0; i < w->n_tensors; i++) {
        uint32_t d = w->map[i];
        if (!w->t[i].is_const && w->first[d] == 0 && w->root[d] == d &&
            ((w->io[i] & 1u) || (w->t[i].is_state && !w->side[d]))) {
            w->side[d] = (uint8_t)flip;
            flip ^= 1u;
            w->order[n_order++] = d;
        }
    }
    for (k = 0; k < n_ops; k++) {
        const nk_op_rt *op = nk_op_seq_at(ops, k, &view, &cur);
        for (j = 0; j < op->n_out; j++) {
            uint32_t id = w->map[op->out[j]];
            if (w->root[id] != id) continue;
            if (op->n_in > 0 && nk_plan_is_runtime(w, op->in[0])) {
                w->side[id] = (uint8_t)(w->side[w->root[w->map[op->in[0]]]] ^ 1u);
            } else {
                w->side[id] = (uint8_t)flip;
                flip ^= 1u;
            }
            w->order[n_order++] = id;
        }
    }
    bottom.ids = w->list;
    top.ids = w->list2;
    w->budget = NK_PLAN_BUDGET;
    for (i = 0; i < n_order; i++) {
        uint32_t x = w->order[i];
        nk_plan_first_fit(w, x, w->side[x] ? &top : &bottom, w->off_two, w->first[x]);
    }
    height = bottom.top > top.top ? bottom.top : top.top;
    /* A bottom and a top buffer alive together must not meet: they share a
     * step, so the block is at least the largest sum, over steps, of the
     * highest bottom end and the highest top end there (list and list2,
     * done with, hold the tree). Past saturation the offsets below are
     * meaningless, and never used. */
    nk_plan_ends_by_step(w, n_order, 0, tree, S);
    for (i = 0; i < S; i++) w->diff[i] = tree[S + i];
    nk_plan_ends_by_step(w, n_order, 1, tree, S);
    for (i = 0; i < S; i++) {
        uint32_t need = nk_plan_add(w->diff[i], tree[S + i]);
        if (need > height) height = need;
    }
    for (i = 0; i < n_order; i++) {
        uint32_t t = w->order[i];
        if (w->side[t]) w->off_two[t] = height - w->off_two[t] - w->size[t];
    }
    *n_out = n_order;
    return height;
}

/* The layout of `height` just made in `off` becomes the best when lower. */
static void nk_plan_keep(uint32_t **best, uint32_t *off, uint32_t *peak, uint32_t height) {
    if (height >= *peak) return;
    *peak = height;
    *best = off;
}

/* A first-fit layout honouring the overlap pairs, of the buffers in
 * order[0..n) (reversed when `backwards`). Returns its height. */
static uint32_t nk_plan_pairs_layout(nk_plan_ws *w, uint32_t n, int backwards, uint32_t *off) {
    nk_plan_list placed = {0, 0, 0};
    uint32_t i;
    for (i = 0; i < n; i++) off[w->order[i]] = NK_PLAN_UNPLACED;
    placed.ids = w->list;
    w->budget = NK_PLAN_BUDGET;
    w->use_pairs = 1;
    for (i = 0; i < n; i++)
        nk_plan_first_fit(w, w->order[backwards ? n - 1u - i : i], &placed, off, 0u);
    w->use_pairs = 0;
    return placed.top;
}

/* Layout e, for a chain: buffers c[0..n) in birth order where only
 * neighbours are ever alive together (plan.h, 4e). Offsets o[j] in
 * [0, H - size] with, for neighbours alive together, c[j+1] either at
 * most lim[j+1] above c[j] (its pair shift, or -size: clear below) or
 * clear above (o[j+1] >= o[j] + size[j]). The offsets c[j] may take form
 * [0, a[j]] u [b[j], H - size]: only the highest and lowest reach the
 * next buffer. Returns 1 and sets off[] when height H fits. */
static int nk_plan_chain_fits(nk_plan_ws *w, const uint32_t *c, uint32_t n, int64_t H,
                              int32_t *a, int32_t *b, uint32_t *off) {
    uint32_t j;
    for (j = 0; j < n; j++) {
        const int64_t top = H - (int64_t)w->size[c[j]];
        int64_t lim, hi, lo;
        if (top < 0) return 0;
        if (j == 0 || w->first[c[j]] > w->last[c[j - 1]]) {
            a[j] = (int32_t)top; /* free of its neighbour: anywhere */
            b[j] = (int32_t)top + 1;
            continue;
        }
        lim = w->pin[c[j]] == c[j - 1] ? w->shift[c[j]] : -(int64_t)w->size[c[j]];
        hi = a[j - 1] >= 0 ? a[j - 1] : -1;             /* highest offset of c[j-1] ... */
        if (b[j - 1] <= H - (int64_t)w->size[c[j - 1]]) hi = H - (int64_t)w->size[c[j - 1]];
        lo = a[j - 1] >= 0 ? 0 : b[j - 1];              /* ... and lowest */
        a[j] = (int32_t)(hi + lim < top ? hi + lim : top);
        b[j] = (int32_t)(lo + (int64_t)w->size[c[j - 1]]);
        if (a[j] < 0 && b[j] > top) return 0;
    }
    /* back from the last: each offset fits the one after it */
    for (j = n; j-- > 0;) {
        const int64_t top = H - (int64_t)w->size[c[j]];
        int64_t o;
        if (j + 1 == n || w->first[c[j + 1]] > w->last[c[j]]) {
            o = a[j] >= 0 ? 0 : b[j];
        } else {
            const int64_t next = off[c[j + 1]];
            const int64_t lim = w->pin[c[j + 1]] == c[j] ? w->shift[c[j + 1]] : -(int64_t)w->size[c[j + 1]];
            /* c[j+1] at most lim above: c[j] at or above next - lim; or
             * c[j+1] clear above: c[j] at or below next - size */
            const int64_t need = next - lim, below = next - (int64_t)w->size[c[j]];
            if (a[j] >= 0 && need <= a[j]) o = need < 0 ? 0 : need;
            else if (b[j] <= top && need <= top) o = need > b[j] ? need : b[j];
            else if (below >= 0 && a[j] >= 0) o = below < a[j] ? below : a[j];
            else o = b[j] <= top && b[j] <= below ? b[j] : -1;
            if (o < 0) return 0;
        }
        off[c[j]] = (uint32_t)o;
    }
    return 1;
}

/* Layout e: the lowest height the chain fits, by bisection between the
 * largest buffer and `high` (a height known to fit a chain: the classic
 * peak). Returns UINT32_MAX when the buffers are not a chain. */
static uint32_t nk_plan_chain(nk_plan_ws *w, uint32_t n, uint32_t high, uint32_t *off) {
    uint32_t *c = w->order, j, lo = 0;
    /* list and list2 (n entries each at least) are free by now; heights
     * stay below 2^28 units (checked), so the bounds fit an int32 */
    int32_t *a = (int32_t *)(void *)w->list, *b = (int32_t *)(void *)w->list2;
    if (high >= (1u << 28)) return UINT32_MAX;
    for (j = 0; j < n; j++) {
        if (w->size[c[j]] > lo) lo = w->size[c[j]];
        if (j >= 2 && w->first[c[j]] <= w->last[c[j - 2]]) return UINT32_MAX;
        if (w->pout[c[j]] != NK_NONE && (j + 1 == n || w->pout[c[j]] != c[j + 1])) return UINT32_MAX;
    }
    if (n == 0 || !nk_plan_chain_fits(w, c, n, high, a, b, off)) return UINT32_MAX;
    while (lo < high) { /* fits(high), and the answer is in [lo, high] */
        uint32_t mid = lo + (high - lo) / 2u;
        if (nk_plan_chain_fits(w, c, n, mid, a, b, off)) high = mid;
        else lo = mid + 1u;
    }
    nk_plan_chain_fits(w, c, n, high, a, b, off);
    return high;
}

/* Marks NK_IN_PLACE_ROOM (nk_internal.h) on each op above whose operands
 * no buffer alive at its step lies in the layout `off`: from its highest
 * operand's end (16-rounded) to the block's end, the bytes are free while
 * it runs. The highest end alive per step comes from a segment tree over
 * the steps (range max, point query) in list and list2, free after the
 * layouts: O((buffers + ops) log ops), as a chain's long-lived buffers
 * would make a pass over each buffer's steps quadratic. A batch tile's
 * ops run on other tensors per chunk (model.h) and get none. */
static void nk_plan_mark_room(nk_plan_ws *w, const nk_op_seq *ops, uint32_t n_ops, const uint32_t *off) {
    const uint8_t *cur = NULL;
    nk_op_rt view;
    uint32_t *const tree = w->list; /* 2 * n_ops entries: lists >= n_ops + 1 */
    uint32_t d, k, j, l, r;
    for (k = 0; k < 2u * n_ops; k++) tree[k] = 0;
    for (d = 0; d < w->n; d++) {
        const uint32_t end = nk_plan_add(off[d], w->size[d]);
        if (w->first[d] == NK_NONE || w->root[d] != d || w->first[d] >= n_ops) continue;
        l = w->first[d] + n_ops;
        r = (w->last[d] < n_ops ? w->last[d] + 1u : n_ops) + n_ops;
        for (; l < r; l >>= 1, r >>= 1) {
            if ((l & 1u) && tree[l] < end) tree[l] = end;
            if (l & 1u) l++;
            if ((r & 1u) && tree[r - 1u] < end) tree[r - 1u] = end;
            if (r & 1u) r--;
        }
    }
    for (k = 0; k < n_ops; k++) {
        const nk_op_rt *op = nk_op_seq_at(ops, k, &view, &cur);
        uint32_t own = 0, top = 0;
        if (k >= ops->tile_first && k <= ops->tile_last) continue; /* a batch tile's: per chunk */
        for (j = k + n_ops; j >= 1u; j >>= 1)
            if (tree[j] > top) top = tree[j];
        for (j = 0; j < (uint32_t)op->n_in + op->n_out; j++) {
            const uint32_t id = j < op->n_in ? op->in[j] : op->out[j - op->n_in];
            uint32_t end;
            if (!nk_plan_is_runtime(w, id) || w->first[w->map[id]] == NK_NONE) continue;
            end = nk_plan_add(off[w->root[w->map[id]]], nk_plan_units(nk_tensor_bytes(&w->t[id])));
            if (end > own) own = end;
        }
        if (own != 0 && top <= own) nk_op_seq_mark(ops, k, op->in_place | NK_IN_PLACE_ROOM);
    }
}

static nk_status nk_plan_run(const nk_tensor_rt *t, const uint8_t *io, uint32_t n_tensors,
                             const nk_op_seq *ops, uint32_t n_ops, int overlap, uint64_t staged_from,
                             nk_arena_t *scratch, uint32_t *act_offset, nk_plan_stats *stats,
                             nk_error_t *err) {
    size_t mark = nk_arena_mark(scratch);
    nk_plan_ws w;
    nk_plan_stats st;
    nk_status s;
    nk_plan_list placed = {0, 0, 0};
    uint32_t i, d, n_buf = 0, largest = 0, greedy, two, peak, live = 0, lower = 0;
    uint32_t classic, n_two, *best;
    const uint32_t *off;

    memset(&w, 0, sizeof w);
    memset(&st, 0, sizeof st);
    w.t = t;
    w.io = io;
    w.n_tensors = n_tensors;
    for (i = 0; i < n_tensors; i++) act_offset[i] = t[i].is_const ? NK_NONE : w.n++;
    w.map = act_offset;
    w.staged_from = staged_from;
    s = nk_plan_scratch(&w, n_ops, scratch, err);
    if (s != NK_OK) {
        nk_arena_rewind(scratch, mark);
        return s;
    }
    nk_plan_liveness(&w, ops, n_ops, &st);
    if (overlap) s = nk_plan_pairs(&w, ops, n_ops, scratch, &st, err);
    if (s != NK_OK) {
        nk_arena_rewind(scratch, mark);
        return s;
    }

    /* buffers, lower bound and ping-pong */
    for (i = 0; i < n_tensors; i++) {
        if (t[i].is_const || w.first[d = w.map[i]] == NK_NONE) continue;
        if (nk_plan_units(nk_tensor_bytes(&t[i])) > largest) largest = nk_plan_units(nk_tensor_bytes(&t[i]));
        if (w.root[d] != d) continue;
        w.order[n_buf++] = d;
        w.diff[w.first[d]] += w.size[d];
        w.diff[w.last[d] + 1u] -= w.size[d];
    }
    /* Units alive at each step, summed mod 2^32: exact whenever the plan
     * succeeds, as buffers alive at one step are pairwise alive together,
     * so the kept layout (below 2^28 units) holds them all disjoint. */
    for (i = 0; i <= n_ops; i++) {
        live += w.diff[i];
        if (live > lower) {
            lower = live;
            st.peak_step = i < n_ops ? i : (n_ops > 0 ? n_ops - 1u : 0u);
        }
    }
    st.lower_bound = (uint64_t)lower * 16u;
    st.pingpong = (uint64_t)largest * 32u;
    st.n_buffers = n_buf;

    /* layout a: greedy by size */
    nk_sort_u32(w.order, sizeof *w.order, n_buf, nk_plan_before, &w);
    placed.ids = w.list;
    w.budget = NK_PLAN_BUDGET;
    for (i = 0; i < n_buf; i++) nk_plan_first_fit(&w, w.order[i], &placed, w.off_greedy, 0u);
    greedy = placed.top;
    best = w.off_greedy;
    peak = greedy;
    /* layout c: the same order, with overlap pairs */
    if (w.spare != NULL) nk_plan_keep(&best, w.spare, &peak, nk_plan_pairs_layout(&w, n_buf, 0, w.spare));
    /* layout b: two-ended (leaves the buffers in birth order in w.order) */
    two = nk_plan_two_ended(&w, ops, n_ops, &n_two);
    nk_plan_keep(&best, w.off_two, &peak, two);
    classic = two < greedy ? two : greedy;
    if (w.spare != NULL) {
        /* layout d: latest born first, with overlap pairs (an output placed
         * before its input lets the input sit just -shift above it), then
         * layout e, a chain, exactly; each in an array not holding the best */
        uint32_t *free_off = best != w.spare ? w.spare : w.off_greedy;
        nk_plan_keep(&best, free_off, &peak, nk_plan_pairs_layout(&w, n_two, 1, free_off));
        free_off = best != w.spare ? w.spare : w.off_greedy;
        nk_plan_keep(&best, free_off, &peak, nk_plan_chain(&w, n_two, classic, free_off));
    }
    off = best;
    /* a classic layout kept: no output overlaps its input after all */
    if (peak == classic) {
        off = two < greedy ? w.off_two : w.off_greedy;
        const uint8_t *cur = NULL;
        nk_op_rt view;
        for (i = 0; i < n_ops; i++)
            if (nk_op_seq_at(ops, i, &view, &cur)->in_place == 2) nk_op_seq_mark(ops, i, 0);
        st.n_overlap = 0;
    }
    nk_plan_mark_room(&w, ops, n_ops, off);
    st.greedy_peak = (uint64_t)greedy * 16u;
    st.two_ended_peak = (uint64_t)two * 16u;
    st.peak = (uint64_t)peak * 16u;
    if (peak > UINT32_MAX / 16u) {
        nk_msg m = NK_MSG_INIT;
        /* a saturated layout is at least this big */
        nk_msg_s(&m, peak == UINT32_MAX ? "activation plan needs over " : "activation plan needs ");
        nk_msg_u(&m, st.peak);
        nk_msg_s(&m, " B, more than 32-bit offsets address");
        nk_arena_rewind(scratch, mark);
        return nk_fail(err, NK_ERR_UNSUPPORTED, -1, m.text);
    }
    /* each slot's run-time number is read before its offset replaces it */
    for (i = 0; i < n_tensors; i++) {
        d = act_offset[i];
        act_offset[i] = (!t[i].is_const && w.first[d] != NK_NONE) ? off[w.root[d]] * 16u : 0u;
    }
    nk_arena_rewind(scratch, mark);
    if (stats != NULL) *stats = st;
    return NK_OK;
}

nk_status nk_plan_activations(const nk_tensor_rt *t, const uint8_t *io, uint32_t n_tensors,
                              nk_op_rt *ops, uint32_t n_ops, int overlap, nk_arena_t *scratch,
                              uint32_t *act_offset, nk_plan_stats *stats, nk_error_t *err) {
    nk_op_seq seq;
    seq.array = ops;
    seq.model = NULL;
    seq.tile_first = 1; /* no batch tile */
    seq.tile_last = 0;
    return nk_plan_run(t, io, n_tensors, &seq, n_ops, overlap, UINT64_MAX, scratch, act_offset, stats,
                       err);
}

/* Marks in_place 3 the ops whose output overlaps input 0 past their
 * direct rule (out_shift) and returns the workspace: `ws` or, when more,
 * a marked op's staged rows ahead of its own workspace (op->workspace). */
static size_t nk_plan_mark_staged(const nk_tensor_rt *t, const nk_op_seq *ops, uint32_t n_ops,
                                  const uint32_t *act_offset, size_t ws, int32_t *ws_op) {
    const uint8_t *cur = NULL;
    nk_op_rt view;
    uint32_t k;
    for (k = 0; k < n_ops; k++) {
        const nk_op_rt *op = nk_op_seq_at(ops, k, &view, &cur);
        const uint64_t in = act_offset[op->in[0]], out = act_offset[op->out[0]];
        size_t staging = 0;
        if (NK_IN_PLACE_KIND(op->in_place) != 2 || nk_ops_staged_shift(op, t, &staging) == NK_SHIFT_NONE)
            continue;
        /* clear of the input, or as the kernels' direct order allows */
        if (out >= in + nk_tensor_bytes(&t[op->in[0]]) || out + nk_tensor_bytes(&t[op->out[0]]) <= in ||
            (int64_t)out <= (int64_t)in + op->def->out_shift(op, t))
            continue;
        nk_op_seq_mark(ops, k, 3u | (op->in_place & NK_IN_PLACE_ROOM));
        if (staging + op->workspace > ws) {
            ws = staging + op->workspace;
            *ws_op = (int32_t)k;
        }
    }
    return ws;
}

nk_status nk_plan_staged(const nk_tensor_rt *t, const uint8_t *io, uint32_t n_tensors, const nk_op_seq *ops,
                         uint32_t n_ops, int overlap, nk_arena_t *scratch, uint32_t *act_offset,
                         nk_plan_stats *stats, size_t *workspace, int32_t *workspace_op,
                         nk_error_t *err) {
    const size_t ws = *workspace;
    nk_plan_stats st;
    uint64_t from[3], best;
    size_t best_ws;
    int32_t best_op;
    uint32_t k;
    int i, keep = 0;
    const uint8_t *cur = NULL;
    nk_op_rt view;
    nk_status s = nk_plan_run(t, io, n_tensors, ops, n_ops, overlap, UINT64_MAX, scratch, act_offset,
                              &st, err);
    for (k = 0; s == NK_OK && overlap && k < n_ops; k++) {
        const uint32_t type = nk_op_seq_at(ops, k, &view, &cur)->type;
        if (type == NK_OP_CONV2D_I8 || type == NK_OP_DEPTHWISE_CONV2D_I8) break;
    }
    if (s != NK_OK || !overlap || k == n_ops) { /* no op can stage */
        if (s == NK_OK && stats != NULL) *stats = st;
        return s;
    }
    best = ((st.peak + 15u) & ~(uint64_t)15u) + ws;
    best_ws = ws;
    best_op = *workspace_op;
    from[0] = UINT64_MAX;
    from[1] = st.peak; /* staging only where it can lower the peak */
    from[2] = 0;       /* staging wherever it lowers the layout */
    for (i = 1; i < 3; i++) {
        int32_t op_i = *workspace_op;
        size_t ws_i;
        if ((s = nk_plan_run(t, io, n_tensors, ops, n_ops, 1, from[i], scratch, act_offset, &st, err)) != NK_OK)
            return s;
        ws_i = nk_plan_mark_staged(t, ops, n_ops, act_offset, ws, &op_i);
        if (((st.peak + 15u) & ~(uint64_t)15u) + ws_i < best) {
            best = ((st.peak + 15u) & ~(uint64_t)15u) + ws_i;
            best_ws = ws_i;
            best_op = op_i;
            keep = i;
        }
    }
    /* the kept plan again, unless it was the last */
    if (keep != 2) {
        int32_t op_k = *workspace_op;
        if ((s = nk_plan_run(t, io, n_tensors, ops, n_ops, 1, from[keep], scratch, act_offset, &st, err)) != NK_OK)
            return s;
        (void)nk_plan_mark_staged(t, ops, n_ops, act_offset, ws, &op_k);
    }
    *workspace = best_ws;
    *workspace_op = best_op;
    if (stats != NULL) *stats = st;
    return NK_OK;
}
