/*
 * plan.h — the activation memory planner.
 *
 * Every runtime tensor (graph inputs, outputs and intermediates) needs a
 * place in one activation block for the steps where it is alive. The
 * planner picks an offset for each so the block is as small as it can be
 * for the given execution order. It runs once, at load, and its result is
 * just each tensor's offset plus the block size; invoke only adds offsets.
 *
 * HOW IT WORKS
 *
 * 1. Liveness. Step k is op k. A tensor is born at the op that produces it
 *    (graph inputs at step 0) and dies at the last op that reads it. Graph
 *    outputs stay alive one step past the last op, so no op ever overwrites
 *    them. An output nobody reads still lives for the step that writes it.
 *    A STATE tensor (recurrent state, docs/MEMORY.md) lives from step 0 to
 *    past the last op: no other tensor shares its bytes, so its value
 *    carries from one invoke to the next.
 *
 * 1b. A batch tile (batch_tile.c) runs ops a..b once per chunk of the
 *    batch, with its own tensors given at one chunk's size: what is alive
 *    in the tile but made before it lives until b, what the tile makes and
 *    is read after it lives from a, so no chunk's tensors meet them; and
 *    no op there overlaps an edge (2b). Inside, every chunk replays the
 *    same steps, so one plan of them serves all.
 *
 * 2. Buffers. Tensors that can share storage are merged into one buffer
 *    whose lifetime is the union of theirs:
 *    - an op flagged NK_OPF_ALIAS (reshape/flatten) makes its output a view
 *      of input 0: same bytes, no copy;
 *    - an op flagged NK_OPF_ELEMENTWISE writes its output over input 0
 *      ("in place") when input 0's buffer dies at this op, input 0 is not a
 *      constant, no other input of the op lives in that buffer, and the
 *      output has the same byte size.
 *    Graph inputs are treated like any other tensor: once their last reader
 *    ran, their bytes may be reused or written in place. That is why an
 *    input's contents are not preserved across invoke.
 *
 * 2b. Overlap pairs (docs/MEMORY.md). An op whose input 0's buffer dies at
 *    it, with no other input in that buffer, whose output starts a buffer
 *    and which runs on netkit's kernels (not a vendor backend's) may state
 *    an overlap rule (nk_op_def.out_shift): its output may start at most
 *    `shift` bytes above input 0's start (negative: below), because every
 *    kernel for the op writes output pixels in raster order no faster than
 *    it has done reading input 0's bytes below that point. The pair (input
 *    buffer, output buffer) may then share bytes at step k, provided
 *        out_offset <= in_offset + shift   (floored to 16 bytes)
 *    or the two are disjoint. Off (NK_LOAD_NO_OVERLAP), there are no pairs.
 *    An op with staged rows (nk_ops_staged_shift: the int8 conv and
 *    depthwise compute output rows into workspace slots and copy each to
 *    its place once no later row reads there) may take the higher of the
 *    two rules; nk_plan_model says when.
 *
 * 2c. Staged rows cost workspace, so nk_plan_model plans up to three
 *    times and keeps the lowest activations + workspace (a tie: the
 *    earlier): the direct rules only; staged rows for the ops whose input
 *    and output hold at least the direct plan's peak (the only ones that
 *    can lower it); staged rows for every op. In the kept plan an op whose
 *    output overlaps input 0 past its direct rule is marked in_place 3
 *    (its eval stages) and the workspace grows to its staged rows plus
 *    its own workspace when that is more. Float models (no op stages)
 *    plan once.
 *
 * 3. Lower bound. For each step, the bytes of all buffers alive at that
 *    step (sizes rounded up to 16). No layout can be smaller than the
 *    largest such sum for this order: it is the target.
 *
 * 4. Two layouts are tried and the smaller one is kept:
 *    a. Greedy by size: buffers from largest to smallest; each goes at the
 *       lowest offset where it overlaps no already placed buffer whose
 *       lifetime overlaps its own. Good on graphs with branches.
 *    b. Two-ended: buffers in the order they are born; each goes at the
 *       opposite end of the block from the buffer of its op's input 0 (the
 *       first buffers alternate), packed from the bottom up or from the top
 *       down against buffers of the same end. The block is then just tall
 *       enough that no bottom buffer meets a top buffer it is alive with:
 *       the largest sum, over steps, of the highest bottom end and the
 *       highest top end alive at that step.
 *       On a chain (each op reads only the previous op's output) every
 *       step has one buffer at each end, so the height is the largest sum
 *       of two neighbours, which is exactly the lower bound.
 *    With overlap pairs, three more layouts that honour them (first-fit
 *    treats a placed pair partner as forbidding only the offsets the rule
 *    forbids) and the lowest of all five is kept; only they can go below
 *    the lower bound of 3:
 *    c. greedy by size, with pairs;
 *    d. latest born first, with pairs: an output placed before its input
 *       lets the input sit just -shift above it;
 *    e. on a chain (only neighbours in birth order are ever alive
 *       together), exactly: for a height H the offsets each buffer may take
 *       given its predecessor are [0, a] u [b, H - size], where a = the
 *       predecessor's highest offset + its rule (or -size: clear below)
 *       and b = its lowest offset + its size (clear above); only those two
 *       extremes reach the next buffer, so a forward pass decides H and a
 *       backward pass picks offsets. The lowest H is found by bisection
 *       between the largest buffer and the classic height.
 *
 * 5. Ping-pong, for reference: the seed design kept two buffers of the
 *    largest runtime tensor. A chain never needs more; a graph with a skip
 *    connection can (three tensors alive at once), and ping-pong could not
 *    run it at all.
 *
 * 6. Bounded work. First-fit is quadratic at worst (each buffer may look at
 *    every placed one), so each layout has a budget of NK_PLAN_BUDGET list
 *    steps (an entry looked at or moved); once it is spent, each further
 *    buffer goes on top of its layout, clear of all, in O(1). That layout
 *    is valid but may be taller. A layout of B buffers takes at most B^2
 *    steps, so every graph of up to 2048 buffers is planned exactly, and in
 *    practice far larger ones: the two-ended layout drops buffers that have
 *    died from its lists, so on a chain it takes O(1) steps a buffer.
 *
 * Cost, once per load, for T tensors, O ops with I inputs and outputs each
 * (at most 12), B buffers and S = O + 1 steps:
 *     O(T + O*I + B log B + B log S + S) + 2 * NK_PLAN_BUDGET steps;
 * with overlap pairs, plus 2 * NK_PLAN_BUDGET for layouts c and d, O(B
 * log(height)) for e, and each op's rule (O(its output pixels)).
 *
 * Scratch memory comes from the arena between a mark and a rewind, so it is
 * counted in the arena's high-water mark and the size reported by inspect
 * stays exact.
 */
#ifndef NK_PLAN_H
#define NK_PLAN_H

#include "nk_internal.h"

/* First-fit steps per layout (see 6 above): 2^22 = 2048^2. */
#define NK_PLAN_BUDGET (1u << 22)

typedef struct nk_plan_stats {
    uint64_t peak;           /* activation block bytes (the kept layout) */
    uint64_t lower_bound;    /* max over steps of live bytes */
    uint64_t pingpong;       /* 2 x largest runtime tensor (16-rounded) */
    uint64_t greedy_peak;    /* layout a */
    uint64_t two_ended_peak; /* layout b */
    uint32_t n_buffers;      /* distinct buffers after aliasing */
    uint32_t n_in_place;     /* ops whose output shares input 0's buffer */
    uint32_t peak_step;      /* first op where live bytes reach the lower bound */
    uint32_t n_overlap;      /* ops whose output overlaps input 0 (in_place 2); the
                              * classic plan is the one NK_LOAD_NO_OVERLAP gives */
} nk_plan_stats;

/* The ops a plan is made for, walked in order k = 0, 1, ...: views in an
 * array (tests, nk_plan_activations), or a loading model's, each made
 * from its OPS record when walked (nk_model_plan_view), so a load holds
 * no view per op. The planner's marks (in_place) go into the array or the
 * model's in-place bytes (nk_model_t.in_place, model.h), where the op's eval reads them. */
struct nk_model_t;
typedef struct nk_op_seq {
    nk_op_rt *array;          /* the views, or NULL: */
    struct nk_model_t *model; /* the model's records and op states */
    /* ops tile_first..tile_last run once per chunk of the batch (1b above;
     * a batch tile, model.h); tile_first > tile_last: no tile */
    uint32_t tile_first, tile_last;
} nk_op_seq;

/* Op k's view: &array[k], or made in *view from the record at *cursor
 * (NULL before op 0), which moves on to the next. Callers walk k = 0, 1,
 * ... with one cursor (model.c). */
NK_HIDDEN const nk_op_rt *nk_op_seq_at(const nk_op_seq *s, uint32_t k, nk_op_rt *view,
                                       const uint8_t **cursor);
/* Sets op k's in_place byte (0-3; a staged op's band and slots above: nk_lowered.h). */
NK_HIDDEN void nk_op_seq_mark(const nk_op_seq *s, uint32_t k, uint32_t in_place);

/* Plans t[0..n_tensors) for ops[0..n_ops) in order: writes act_offset[id]
 * of each runtime tensor (0 for the others) and sets in_place of each op
 * (1: output aliases input 0; 2: output overlaps input 0 as the op's
 * out_shift allows; no staged rows). Reads op->def->flags and out_shift (a NULL def has
 * none) and io[id] (bit 0 graph input, bit 1 graph output); with
 * `overlap` 0 no output overlaps its input (the classic plan). Scratch
 * comes from `scratch` (37 B per runtime tensor, 16 more with overlap
 * pairs, and 4 B per op; constants take none) and is rewound before
 * returning; act_offset holds the planner's tensor numbering meanwhile,
 * so after a failure it holds no offsets. Fails with
 * NK_ERR_ARENA_OVERFLOW when scratch does not fit. */
NK_HIDDEN nk_status nk_plan_activations(const nk_tensor_rt *t, const uint8_t *io,
                                        uint32_t n_tensors, nk_op_rt *ops, uint32_t n_ops,
                                        int overlap, nk_arena_t *scratch, uint32_t *act_offset,
                                        nk_plan_stats *stats, nk_error_t *err);

/* nk_plan_activations with staged rows (2c above): `*workspace` and
 * `*workspace_op` hold the ops' own largest workspace and its op on entry,
 * the kept plan's on return; in_place 3 marks the ops that stage. */
NK_HIDDEN nk_status nk_plan_staged(const nk_tensor_rt *t, const uint8_t *io, uint32_t n_tensors,
                                   const nk_op_seq *ops, uint32_t n_ops, int overlap, nk_arena_t *scratch,
                                   uint32_t *act_offset, nk_plan_stats *stats, size_t *workspace,
                                   int32_t *workspace_op, nk_error_t *err);

/* The loader's call (model.c): plans the graph of the loaded image `img`.
 * Defined in plan_model.c as nk_plan_staged; a firmware built from
 * `netkit aot` output defines it in IDENT_plan.c over the plan computed on
 * the host (nk_plan_fixed_apply in nk_lowered.h), so that neither the
 * planner nor plan_model.c is linked. Same contract as nk_plan_staged,
 * except that `io` is n_tensors bytes of scratch which nk_plan_model
 * fills with the graph input/output marks itself (a fixed plan needs none:
 * its firmware links no nk_format_io_flags). */
struct nk_image;
NK_HIDDEN nk_status nk_plan_model(const struct nk_image *img, const nk_tensor_rt *t,
                                  uint8_t *io, uint32_t n_tensors, const nk_op_seq *ops,
                                  uint32_t n_ops, int overlap, nk_arena_t *scratch,
                                  uint32_t *act_offset, nk_plan_stats *stats, size_t *workspace,
                                  int32_t *workspace_op, nk_error_t *err);

#endif /* NK_PLAN_H */
