/*
 * netkit.h — the one public header of the netkit C core.
 *
 * netkit runs small neural networks (MLPs, CNNs) from a `.nk` model image
 * out of ONE caller-provided memory arena. It never calls malloc: every byte
 * it uses at load and inference time comes from the arena you hand it, and
 * weights are bound in place (flash, your buffer, or a private mmap).
 *
 * QUICK START
 *
 *     static uint8_t arena_mem[48 * 1024] __attribute__((aligned(16)));
 *     nk_arena_t arena;
 *     nk_model_t *model;
 *     nk_error_t err;
 *     nk_arena_init(&arena, arena_mem, sizeof arena_mem);
 *     if (nk_model_load_buffer(&model, model_nk, model_nk_len, &arena, &err) != NK_OK)
 *         printf("%s\n", err.message);  // e.g. "arena overflow: 16384 B for ..."
 *     nk_model_run(model, input, sizeof input, output, sizeof output, &err);
 *
 * HOW BIG MUST THE ARENA BE?  Run `netkit inspect model.nk` (or call
 * nk_inspect_model on a host): it reports the byte count of a buffer load,
 * exact for the host it runs on; a target with smaller pointers or other
 * struct layouts (a 32-bit MCU) needs less. `netkit inspect --target NAME`
 * (and `netkit aot --target NAME`) gives the figure exact for that target:
 * the target's own nk_model_arena_size, run under QEMU. nk_model_arena_size,
 * built for and run on the target, is exact there. At run time nk_model_arena_size gives the exact figure of
 * each load mode without loading (a mapped file needs no batch-norm
 * copies, a copied one also holds the image). Loading into an arena of exactly that size succeeds; one byte
 * less fails with NK_ERR_ARENA_OVERFLOW and an error that says how much was
 * missing where. Sizes assume a 16-byte aligned arena buffer.
 *
 * OWNERSHIP AND LIFETIMES
 *  - The arena buffer is yours; netkit never frees it. Everything a model
 *    allocates lives there until you reset or rewind the arena.
 *  - The model image passed to nk_model_load_buffer must stay valid and
 *    unchanged for the model's life: weights are views into it. netkit never
 *    writes to it.
 *  - A file loaded by nk_model_load_file is mapped (NETKIT_MMAP): the model
 *    reads the file's pages for its whole life. Truncating the file while it
 *    is loaded kills the process with SIGBUS at the next invoke; rewriting
 *    it in place (same size) silently changes the weights. Files replaced by
 *    rename are safe (the mapping keeps the old inode). A service whose
 *    model files may change under it loads with
 *    nk_model_load_file_ex(..., NK_LOAD_COPY, ...): the image is read into
 *    the arena and the file is never touched again.
 *  - After nk_model_unload, every call on the model and on its contexts
 *    returns NK_ERR_STATE (counts 0, meta NULL) until the arena is reset.
 *  - A loaded model is read-only at inference time. Each nk_context_t owns
 *    its own activations and workspace, so several contexts (one per thread)
 *    may run one model concurrently. A model's default context (used by the
 *    nk_model_* invoke functions) must not be shared between threads.
 *  - Functions return an nk_status; when they take an nk_error_t *, a non-OK
 *    status also fills it (it may be NULL). There is no global state.
 *
 * BUILD OPTIONS (preprocessor, 0 or 1)
 *  - NETKIT_ARENA_HEAP  host builds: nk_arena_init_heap / nk_inspect_model
 *                       (default 1 on hosted builds, 0 with NETKIT_MCU)
 *  - NETKIT_MMAP        nk_model_load_file maps the file (POSIX); 0 reads it
 *                       into the arena with fread; no file API with NETKIT_MCU
 *  - NETKIT_DEBUG       poison fill (0xCD) of freed arena memory
 *  - NETKIT_LOAD_FOLD_BN fold a BatchNorm left in the file into the conv or
 *                       dense before it at load (default 1 hosted, 0 with
 *                       NETKIT_MCU, where `netkit convert` has folded it and
 *                       a leftover BatchNorm simply runs as its op)
 *  - NETKIT_SINGLE_ROUNDING  int8 requantization with TFLite's single
 *                       rounding instead of its default double rounding
 *  - NETKIT_STRIP_MESSAGES  no error-message text (firmware): status, op
 *                       index and arena figures are filled as always and
 *                       nk_error_t.message is "" (nk_status_str(status)
 *                       names the status)
 *                       (docs/TARGETS.md has the sizes)
 *  - NETKIT_BACKEND     a vendor backend is compiled in (set by its CMake
 *                       option, e.g. NETKIT_XNNPACK, docs/BACKENDS.md): ops
 *                       it supports run there, the rest on netkit's kernels.
 *                       XNNPACK (hosts) keeps packed weights on the host
 *                       heap, reported as nk_report_t.backend_heap_bytes.
 */
#ifndef NETKIT_H
#define NETKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(NETKIT_BUILD_SHARED)
#define NK_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define NK_API __attribute__((visibility("default")))
#else
#define NK_API
#endif

/* Bumped whenever a public struct layout or function signature changes or
 * an exported function goes (2: nk_arena_fail_at became test-only; 5:
 * nk_model_region_sizes takes a scratch arena); nkc
 * (purego) refuses a library whose nk_abi_version() differs. */
#define NK_ABI_VERSION 5u
#define NK_VERSION_STRING "0.1.0"

#define NK_MAX_DIMS 6

#ifndef NK_ARENA_DEFAULT_CAPACITY
#define NK_ARENA_DEFAULT_CAPACITY ((size_t)64 * 1024 * 1024)
#endif

/* ------------------------------------------------------------------ */
/* Status and errors                                                   */
/* ------------------------------------------------------------------ */

typedef enum nk_status {
    NK_OK = 0,
    NK_ERR_ARG = 1,            /* NULL pointer, index out of range, bad size */
    NK_ERR_ARENA_OVERFLOW = 2, /* the arena is too small */
    NK_ERR_FORMAT = 3,         /* corrupt or truncated .nk image */
    NK_ERR_VERSION = 4,        /* unsupported format major version */
    NK_ERR_CHECKSUM = 5,       /* CRC mismatch: corrupted image */
    NK_ERR_ALIGN = 6,          /* image or payload not 16-byte aligned */
    NK_ERR_UNSUPPORTED = 7,    /* unknown op, dtype or parameter */
    NK_ERR_SHAPE = 8,          /* shape mismatch (model, or caller's buffer) */
    NK_ERR_DTYPE = 9,          /* dtype mismatch */
    NK_ERR_IO = 10,            /* file open/read/map failure */
    NK_ERR_STATE = 11          /* call not valid in this state */
} nk_status;

/* A short constant name for a status ("arena overflow", ...). */
NK_API const char *nk_status_str(nk_status s);

#define NK_ERROR_MESSAGE_MAX 256

/* Filled by a failing call. All-zero is "no error". */
typedef struct nk_error_t {
    int32_t status;    /* nk_status */
    int32_t op_index;  /* op the failure is about, or -1 */
    uint64_t requested; /* bytes asked for (arena overflow), else 0 */
    uint64_t free_bytes; /* bytes that were free in the arena, else 0 */
    uint64_t capacity;   /* arena capacity, else 0 */
    /* what, how big, where; e.g.
     * "arena overflow: 16384 B for activations of op 3 (conv2d \"conv2\"), 1024 of 65536 B free" */
    char message[NK_ERROR_MESSAGE_MAX];
} nk_error_t;

/* ------------------------------------------------------------------ */
/* Arena: a bump allocator over a caller-owned buffer                  */
/* ------------------------------------------------------------------ */

/* Plain data; an all-zero nk_arena_t is a valid empty arena (every
 * allocation fails with NULL). Fields are read-only for callers. */
typedef struct nk_arena_t {
    uint8_t *base;
    size_t capacity;
    size_t used;
    size_t high_water;
    uint32_t alloc_count; /* internal: only test builds (NETKIT_TEST_HOOKS) count */
    uint32_t fail_at;     /* internal: test builds' failure injection; else unused */
    uint32_t heap_owned;  /* base came from nk_arena_init_heap */
    uint32_t reserved;
} nk_arena_t;

/* Use `size` bytes at `mem` (the caller keeps ownership). */
NK_API void nk_arena_init(nk_arena_t *a, void *mem, size_t size);
/* `size` bytes aligned to `align` (a power of two, else NULL). Returns NULL
 * when it does not fit; never wraps, even for sizes near SIZE_MAX. A size of
 * 0 returns a valid aligned pointer that must not be dereferenced. */
NK_API void *nk_arena_alloc(nk_arena_t *a, size_t size, size_t align);
NK_API void *nk_arena_alloc_zeroed(nk_arena_t *a, size_t size, size_t align);
/* Frees everything (poison-fills the used bytes with 0xCD in NETKIT_DEBUG). */
NK_API void nk_arena_reset(nk_arena_t *a);
/* Scoped scratch: rewind(mark()) frees everything allocated in between. */
NK_API size_t nk_arena_mark(const nk_arena_t *a);
NK_API void nk_arena_rewind(nk_arena_t *a, size_t mark);
NK_API size_t nk_arena_capacity(const nk_arena_t *a);
NK_API size_t nk_arena_used(const nk_arena_t *a);
NK_API size_t nk_arena_remaining(const nk_arena_t *a);
NK_API size_t nk_arena_high_water(const nk_arena_t *a);

#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)
/* Host builds: one heap allocation of `capacity` bytes (0 means
 * NK_ARENA_DEFAULT_CAPACITY) backs the arena; free it with nk_arena_free_heap. */
NK_API nk_status nk_arena_init_heap(nk_arena_t *a, size_t capacity);
NK_API void nk_arena_free_heap(nk_arena_t *a);
#endif

/* ------------------------------------------------------------------ */
/* Tensors                                                             */
/* ------------------------------------------------------------------ */

typedef enum nk_dtype {
    NK_DTYPE_INVALID = 0,
    NK_F32 = 1,
    NK_I8 = 2,
    NK_I16 = 3,
    NK_I32 = 4,
    /* Graph I/O of ONNX models with integer, float16 or double tensors; only
     * the elementwise ops run on these (docs/OPS.md). F16 holds IEEE binary16
     * bits. */
    NK_U8 = 5,
    NK_U16 = 6,
    NK_U32 = 7,
    NK_I64 = 8,
    NK_U64 = 9,
    NK_F16 = 10,
    NK_F64 = 11
} nk_dtype;

/* Bytes per element; 0 for an invalid dtype. */
NK_API size_t nk_dtype_size(nk_dtype t);
NK_API const char *nk_dtype_str(nk_dtype t);

typedef enum nk_layout { NK_LAYOUT_NATIVE = 0, NK_LAYOUT_NCHW = 1 } nk_layout;

/* A view of a graph input or output. `data` points into the context's
 * activations: write inputs there (or use nk_model_run). An input's contents
 * are not preserved across invoke. Valid while the context lives. */
typedef struct nk_tensor_t {
    const char *name;  /* NUL-terminated, "" when unnamed; points into the image */
    void *data;
    uint64_t bytes;
    int32_t dtype;     /* nk_dtype */
    int32_t rank;
    int32_t dims[NK_MAX_DIMS];
    int32_t layout;    /* nk_layout of the model's source */
    int32_t quant_zero_point; /* per-tensor quantization, 0 when none */
    float quant_scale;        /* 0 when none */
    int32_t reserved;
} nk_tensor_t;

/* ------------------------------------------------------------------ */
/* Models and contexts                                                 */
/* ------------------------------------------------------------------ */

typedef struct nk_model_t nk_model_t;     /* opaque; lives in the arena */
typedef struct nk_context_t nk_context_t; /* opaque; lives in the arena */

/* Validates `bytes[0..len)` (checksum, every offset, shapes), binds weight
 * views into it (no copy), plans activations and reserves them together with
 * the kernel workspace and a default context, all from `arena`. `bytes` must
 * be 16-byte aligned and outlive the model; it is never written. */
NK_API nk_status nk_model_load_buffer(nk_model_t **out, const void *bytes, size_t len,
                                      nk_arena_t *arena, nk_error_t *err);

/* How a load holds the image (nk_model_load_file_ex, nk_model_arena_size). */
#define NK_LOAD_BUFFER 0u /* nk_model_load_buffer: weights are views into the
                             caller's bytes; batch-norm folding copies them */
#define NK_LOAD_FILE 1u   /* nk_model_load_file: mapped where NETKIT_MMAP
                             (folded in the private pages), else NK_LOAD_COPY */
#define NK_LOAD_COPY 2u   /* the file is read into the arena (len bytes, 16-
                             rounded): the model never touches the file again */
/* OR-ed into a mode: plan no op's output over the input it consumes (the
 * classic liveness plan, for comparison; docs/MEMORY.md). By default a
 * conv, depthwise or pool whose input dies with it may write its output
 * over the input bytes its kernels have done reading. */
#define NK_LOAD_NO_OVERLAP 0x100u

#if !defined(NETKIT_MCU)
/* Loads a file: a private read-only-by-default mmap where NETKIT_MMAP (the
 * mapping is released by nk_model_unload), else fread into the arena.
 * Mapped, the file must not be truncated or rewritten while the model
 * lives (see OWNERSHIP AND LIFETIMES); NK_LOAD_COPY avoids that. */
NK_API nk_status nk_model_load_file(nk_model_t **out, const char *path,
                                    nk_arena_t *arena, nk_error_t *err);
/* nk_model_load_file with a mode: NK_LOAD_FILE (the same) or NK_LOAD_COPY.
 * A failed load, including a failed read, leaves the arena as it was. */
NK_API nk_status nk_model_load_file_ex(nk_model_t **out, const char *path, uint32_t mode,
                                       nk_arena_t *arena, nk_error_t *err);
#endif

/* The exact bytes a load of `bytes[0..len)` in `mode` (NK_LOAD_*) takes from
 * a 16-byte aligned arena, stored in *need: an arena of *need bytes loads,
 * one byte less fails. Nothing is loaded: the image is checked, decoded and
 * planned once in `scratch`, which is rewound before returning (its high
 * water shows what the sizing took, which is never more than *need). For
 * NK_LOAD_FILE and NK_LOAD_COPY pass the file's bytes; `bytes` is only read
 * and, in every mode, must be 16-byte aligned (else NK_ERR_ALIGN).
 * Firmware passes the arena it means to load into as scratch; host builds
 * may pass NULL to size in a private heap arena. Errors are the load's
 * (NK_ERR_FORMAT, NK_ERR_UNSUPPORTED, ...); NK_ERR_ARENA_OVERFLOW means the
 * scratch was too small. */
NK_API nk_status nk_model_arena_size(const void *bytes, size_t len, uint32_t mode,
                                     nk_arena_t *scratch, size_t *need, nk_error_t *err);

/* Releases what is not arena memory (a file mapping; a backend's heap
 * state, e.g. XNNPACK operators, which resetting the arena alone would
 * leak) and marks the model
 * unloaded: later calls on it or its contexts return NK_ERR_STATE. The arena
 * bytes stay allocated until the caller resets/rewinds the arena. NULL and a
 * second unload are no-ops. */
NK_API void nk_model_unload(nk_model_t *m);

NK_API int32_t nk_model_num_inputs(const nk_model_t *m);
NK_API int32_t nk_model_num_outputs(const nk_model_t *m);
NK_API int32_t nk_model_num_ops(const nk_model_t *m);
/* Metadata value for `key` ("labels", "producer", ...) or NULL. */
NK_API const char *nk_model_meta(const nk_model_t *m, const char *key);

/* Views of the default context's I/O tensors. */
NK_API nk_status nk_model_input(const nk_model_t *m, int32_t i, nk_tensor_t *out);
NK_API nk_status nk_model_output(const nk_model_t *m, int32_t i, nk_tensor_t *out);
/* Runs the graph on the default context. Never allocates from the arena. */
NK_API nk_status nk_model_invoke(nk_model_t *m, nk_error_t *err);
/* Copies `in` to input 0, invokes, copies output 0 to `out`. The byte
 * counts must equal the tensors' sizes (else NK_ERR_SHAPE). */
NK_API nk_status nk_model_run(nk_model_t *m, const void *in, size_t in_bytes,
                              void *out, size_t out_bytes, nk_error_t *err);

/* STATE. A streaming recurrent model (`netkit convert --stream-state`)
 * keeps its LSTM/GRU states in STATE tensors: part of the activation block
 * that no other tensor shares (docs/MEMORY.md), zero when the block is
 * bound, carried from one invoke to the next, so invoking on the chunks of
 * a sequence in order equals invoking on the whole sequence. Each context
 * has its own state. Resetting zeroes it (a new sequence starts); it is a
 * no-op for a model without STATE tensors. A model with state must not
 * share its activation block with another model (nk_model_load_buffer_shared):
 * the other model's run overwrites it. NK_ERR_ARG on NULL; NK_ERR_STATE on
 * an unloaded model. */
NK_API nk_status nk_model_reset_state(nk_model_t *m);
NK_API nk_status nk_context_reset_state(nk_context_t *c);

/* SHARED ACTIVATIONS. Models that run one after another, never at the
 * same time, may share one activation block (activations and workspace):
 * the arena then holds each model's records plus the largest block, not
 * one block per model.
 *
 *     nk_model_load_buffer_shared(&a, a_nk, a_len, &arena, &err);
 *     nk_model_load_buffer_shared(&b, b_nk, b_len, &arena, &err);
 *     size_t n = nk_model_activation_size(a);
 *     if (nk_model_activation_size(b) > n) n = nk_model_activation_size(b);
 *     void *block = nk_arena_alloc(&arena, n, 16);
 *     nk_model_bind_activations(a, block, n, &err);
 *     nk_model_bind_activations(b, block, n, &err);
 *     nk_model_run(a, ...); nk_model_run(b, ...);
 *
 * A run of one model overwrites the other's activations, inputs and
 * outputs included: write a model's inputs and read its outputs around its
 * own invoke. The block must be 16-byte aligned and outlive the models.
 * Contexts made with nk_context_create still take their own block. */

/* nk_model_load_buffer without the default context's activation block: the
 * model's calls that run or view tensors return NK_ERR_STATE until
 * nk_model_bind_activations gives it one. */
NK_API nk_status nk_model_load_buffer_shared(nk_model_t **out, const void *bytes, size_t len,
                                             nk_arena_t *arena, nk_error_t *err);
/* Bytes of the default context's activation block: the planned activations
 * (16-rounded) then the kernel workspace. 0 for an unloaded model. */
NK_API size_t nk_model_activation_size(const nk_model_t *m);
/* Points the default context at `block` (16-byte aligned, at least
 * nk_model_activation_size bytes; NK_ERR_ALIGN / NK_ERR_ARENA_OVERFLOW
 * otherwise, with the sizes in the message). May be called again to move
 * the model to another block. */
NK_API nk_status nk_model_bind_activations(nk_model_t *m, void *block, size_t size,
                                           nk_error_t *err);

/* MEMORY REGIONS. A board with a small fast RAM (SRAM, TCM) and a large
 * slow one loads with this placement rule: what every invoke reads and
 * writes (the activation block and the kernel workspace) goes into
 * `activations` (the fast region); the model's persistent records (model,
 * op and context records, the data table, batch-norm folded or host-packed
 * weights) into `records` (the slow one); weights bound in place stay in
 * `bytes` (flash). What the load needs only while it runs (the decoder's
 * marks, the planner's offsets and scratch) goes into the fast region,
 * where it is released before the block takes the same bytes, or, when it
 * does not fit there, into the slow one above the records. The one-arena
 * loads are the same code with one arena in every role. A failure names
 * the region that overflowed ("activations region: arena overflow: ...")
 * and leaves both arenas as they were; the two must be different arenas. */
NK_API nk_status nk_model_load_buffer_regions(nk_model_t **out, const void *bytes, size_t len,
                                              nk_arena_t *records, nk_arena_t *activations,
                                              nk_error_t *err);
/* What nk_model_load_buffer_regions takes from each region (fresh 16-byte
 * aligned arenas) for `bytes` (16-byte aligned), as two exact pairs: an
 * arena of exactly the figure loads, one byte less in it fails.
 *   *records + *activations: the scratch in the fast region (the smallest
 *     total; *activations is the block, or the scratch where larger);
 *   *records_with_scratch + *block: the scratch in the slow region (the
 *     smallest fast region: the activation block and workspace alone; the
 *     first pair again when the block is at least the scratch).
 * The last two may be NULL. Exact for the ABI it runs on, so firmware
 * sizes its regions on the target. Nothing is loaded: the image is sized
 * once in `scratch`, which is rewound (it takes no more than
 * nk_model_arena_size's figure); host builds may pass NULL to size in a
 * private heap arena. `netkit inspect --regions` prints the first pair. */
NK_API nk_status nk_model_region_sizes(const void *bytes, size_t len, nk_arena_t *scratch,
                                       size_t *records, size_t *activations,
                                       size_t *records_with_scratch, size_t *block, nk_error_t *err);

/* A further execution context over the same model: its own activations and
 * workspace from `arena` (which may be another arena, e.g. per thread). */
NK_API nk_status nk_context_create(nk_context_t **out, const nk_model_t *m,
                                   nk_arena_t *arena, nk_error_t *err);
/* Bytes nk_context_create takes from a 16-byte aligned arena. */
NK_API size_t nk_context_size(const nk_model_t *m);
NK_API nk_status nk_context_input(const nk_context_t *c, int32_t i, nk_tensor_t *out);
NK_API nk_status nk_context_output(const nk_context_t *c, int32_t i, nk_tensor_t *out);
NK_API nk_status nk_context_invoke(nk_context_t *c, nk_error_t *err);
/* Multi-input/output run: ins[i]/in_bytes[i] for every input, outs likewise. */
NK_API nk_status nk_context_run(nk_context_t *c, const void *const *ins, const size_t *in_bytes,
                                void *const *outs, const size_t *out_bytes, nk_error_t *err);

/* ------------------------------------------------------------------ */
/* Per-op time (host builds)                                           */
/* ------------------------------------------------------------------ */

#if !defined(NETKIT_MCU)
/* A monotonic tick counter supplied by the caller (the core has no clock):
 * nanoseconds, CPU cycles, anything that only goes up. */
typedef uint64_t (*nk_clock_fn)(void *user);
/* nk_context_invoke that also stores in op_ticks[k] the ticks op k took
 * (clock(user) after it minus before it; ~0 for an op that is only a view
 * of its input, such as a reshape), for every op k. `n_ops` is op_ticks'
 * length: fewer than nk_model_num_ops is NK_ERR_ARG. It runs its own copy
 * of the op loop, so nk_context_invoke pays nothing for it; the clock is
 * read twice per op. */
NK_API nk_status nk_context_invoke_timed(nk_context_t *c, nk_clock_fn clock, void *user,
                                         uint64_t *op_ticks, int32_t n_ops, nk_error_t *err);
/* nk_context_invoke_timed with the host's monotonic clock: op_ns[k] in ns. */
NK_API nk_status nk_context_profile(nk_context_t *c, uint64_t *op_ns, int32_t n_ops,
                                    nk_error_t *err);
/* nk_context_profile on the model's default context. */
NK_API nk_status nk_model_profile(nk_model_t *m, uint64_t *op_ns, int32_t n_ops, nk_error_t *err);
#endif

/* ------------------------------------------------------------------ */
/* Inspect: exact memory figures and a per-op table                    */
/* ------------------------------------------------------------------ */

/* fused ONNX ops are named "A+B" from two path-like node names */
#define NK_OP_NAME_MAX 128

typedef struct nk_op_info_t {
    char op[24];              /* "conv2d", "dense", ... */
    char name[NK_OP_NAME_MAX]; /* op name from the file, truncated to NK_OP_NAME_MAX - 1 bytes */
    int32_t index;
    int32_t out_rank;
    int32_t out_dims[NK_MAX_DIMS]; /* first output's shape */
    int32_t in_rank;
    int32_t in_dims[NK_MAX_DIMS];  /* first input's shape */
    int32_t stage;           /* in_place 3: the staged rows' band (rows, bits 0-7) and slots
                                (bits 8-15), the plan's for the eval (docs/MEMORY.md); else 0.
                                Here, macs is 8-aligned on every ABI (32-bit Go aligns it to 4) */
    uint64_t macs;           /* multiply-accumulates per inference */
    uint64_t param_bytes;    /* bytes of constant inputs */
    uint64_t act_offset;     /* first output's offset in the activation block */
    uint64_t act_bytes;      /* first output's bytes */
    uint64_t workspace_bytes; /* scratch this op asks for */
    int32_t in_place;        /* 1 when the output aliases its input; 2 when it overlaps
                                input 0 as the kernels' order allows; 3 when further,
                                the op staging its output rows in the workspace */
    int32_t last_use;        /* last op reading the first output; num_ops for a graph
                                output (it lives past the last op) */
    char impl[16];           /* what runs it: the build's backend ("xnnpack",
                                "cmsis-nn"), the host ISA kernel set of a float op
                                or an int8 op it has kernels for ("avx512vnni",
                                "avx512", "avx2", "neon"; the portable kernel
                                for parameters it lacks), or "portable" */
    /* The lowest-numbered graph input this op is the first reader of (so
     * a picture of the plan can draw graph inputs, which no op produces): */
    int32_t input_number;    /* its number, or -1 when this op is no graph input's first reader */
    int32_t input_last_use;  /* the last op reading it; num_ops when it is a graph output too */
    uint64_t input_offset;   /* its offset in the activation block */
    int32_t chunks;          /* runs per invoke: an op of a batch tile (docs/MEMORY.md) runs once
                                per chunk of the batch, on batch / chunks samples, and its
                                act_bytes is one chunk's when the tile makes and consumes the
                                output; every other op 1 */
    int32_t room;            /* activation-block bytes free above this op's operands while it
                                runs, which the invoke adds to its workspace (docs/MEMORY.md);
                                0 when some other tensor alive lies above them */
} nk_op_info_t;

typedef struct nk_report_t {
    /* Declare this many bytes of arena in firmware (16-byte aligned). */
    uint64_t arena_after_load;    /* after the load (nk_inspect_model: a buffer load;
                                     nk_model_report: the model's own): model + default context */
    uint64_t arena_after_forward; /* after one invoke (invoke never allocates: equal) */
    uint64_t model_bytes;         /* the shared, read-only part */
    uint64_t context_bytes;       /* nk_context_size: one more context */
    uint64_t peak_activations;    /* planned activation block, I/O included */
    uint64_t activation_lower_bound; /* max over steps of bytes live at that step */
    uint64_t pingpong_bytes;      /* 2 x largest intermediate: the seed design */
    uint64_t workspace;           /* shared kernel scratch */
    uint64_t flash_payload;       /* weight bytes bound in place, outside the arena */
    uint64_t file_bytes;
    /* Breakdown: these sum to arena_after_load. */
    uint64_t bytes_structs;       /* model, tensor and op records, context structs */
    uint64_t bytes_activations;   /* activation block minus the I/O tensors */
    uint64_t bytes_io;            /* graph input and output tensors */
    uint64_t bytes_workspace;
    uint64_t bytes_copied_weights; /* weights not bound in place: BN-folded copies, weights
                                      packed for the host SIMD kernels and, for
                                      NK_LOAD_COPY or a read file, the image */
    uint64_t bytes_padding;       /* alignment padding */
    uint64_t macs;                /* total per inference */
    uint64_t param_bytes;
    int32_t num_ops;
    int32_t num_tensors;
    int32_t num_inputs;
    int32_t num_outputs;
    uint64_t backend_heap_bytes;  /* host heap a backend's per-op state holds (XNNPACK's
                                     packed weights and operators), outside the arena; 0
                                     without a backend */
    /* nk_model_load_buffer_regions' needs (nk_inspect_model only; 0 from
     * nk_model_report): exact for the host's ABI, as arena_after_load. */
    uint64_t region_records;      /* the records arena */
    uint64_t region_activations;  /* the activations arena: activation block + workspace */
    /* Of bytes_activations and bytes_io: the STATE tensors (recurrent state
     * kept across invokes; no other tensor shares their bytes). */
    uint64_t bytes_state;
} nk_report_t;

#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)
/* The report of a loaded model, for the way it was loaded (a mapped file's
 * arena has no batch-norm copies; a copied image counts in
 * bytes_copied_weights and is not flash_payload). Fills `rep`, and up to
 * `max_ops` rows of `ops` (may be NULL); rep->num_ops says how many rows
 * exist. arena_after_forward is arena_after_load (invoke never allocates).
 * NK_ERR_STATE on an unloaded model. */
NK_API nk_status nk_model_report(const nk_model_t *m, nk_report_t *rep, nk_op_info_t *ops,
                                 int32_t max_ops);
/* Sizes `bytes` with nk_model_arena_size, loads it as a buffer into a
 * private heap arena of exactly that size, reports (nk_model_report), runs
 * one forward pass to measure arena_after_forward, and unloads. Needs no
 * arena from the caller; a misaligned `bytes` is copied first. */
NK_API nk_status nk_inspect_model(const void *bytes, size_t len, nk_report_t *rep,
                                  nk_op_info_t *ops, int32_t max_ops, nk_error_t *err);
/* The activation plan of a loaded model: offsets[i] is tensor i's byte
 * offset in the activation block (the planner's, as invoke uses it), or
 * UINT64_MAX for a constant (bound to its payload). Fills the first
 * min(n, tensor count) entries; `netkit aot --lower` lays out its static
 * buffer with them. NK_ERR_STATE on an unloaded model. */
NK_API nk_status nk_model_tensor_offsets(const nk_model_t *m, uint64_t *offsets, int32_t n);
#endif

/* ------------------------------------------------------------------ */
/* Version                                                             */
/* ------------------------------------------------------------------ */

NK_API uint32_t nk_abi_version(void); /* NK_ABI_VERSION of the built library */
NK_API const char *nk_version(void);  /* NK_VERSION_STRING */

#ifdef __cplusplus
}
#endif
#endif /* NETKIT_H */
