/*
 * nk_internal.h — what the parts of the core share and nothing exports:
 * the run-time tensor and op records, the op table interface, and small
 * helpers. Never installed. A vendor backend (vendor_kernels/<name>/:
 * CMSIS-NN, XNNPACK, ...) replaces an op's eval through csrc/backend.h.
 *
 * The model (nk_model_t) is read-only after load: tensors, ops and the
 * activation plan. Each context (nk_context_t) owns one activation block,
 * one workspace block and a table of per-tensor data pointers.
 */
#ifndef NK_INTERNAL_H
#define NK_INTERNAL_H

#include "netkit.h"
#include <string.h>

#define NK_NONE 0xFFFFFFFFu
#define NK_OP_MAX_IN 8
#define NK_OP_MAX_OUT 4
#define NK_PAYLOAD_ALIGN 16u

/* A vendor backend is compiled in (its CMake option sets this; backend.h). */
#ifndef NETKIT_BACKEND
#define NETKIT_BACKEND 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define NK_HIDDEN __attribute__((visibility("hidden")))
#else
#define NK_HIDDEN
#endif

/* Host SIMD kernels chosen at load (csrc/kernels/host/host.h): on by
 * default for hosted x86-64 and aarch64 builds with GCC or Clang, never
 * with NETKIT_MCU (the MCU build compiles no host code). CMake sets it from
 * its option NETKIT_HOST_KERNELS; cgo takes this default. */
#ifndef NETKIT_HOST_KERNELS
#if !defined(NETKIT_MCU) && (defined(__GNUC__) || defined(__clang__)) &&                      \
    (defined(__x86_64__) || defined(__aarch64__)) && (defined(__linux__) || defined(__APPLE__))
#define NETKIT_HOST_KERNELS 1
#else
#define NETKIT_HOST_KERNELS 0
#endif
#endif
#if NETKIT_HOST_KERNELS && defined(NETKIT_MCU)
#error "NETKIT_HOST_KERNELS needs a hosted build (not NETKIT_MCU)"
#endif
struct nk_host_kernels;

/* Op type ids (enum nk_op_type, NK_OP_*): the numbers stored in .nk,
 * generated from internal/nkfile/ops.tsv like Go's. */
#include "nk_op_ids.h"

/* Bytes per element of a dtype (nk_dtype), 0 for an unknown one. */
static inline uint32_t nk_dtype_bytes(uint32_t dtype) {
    switch (dtype) {
    case NK_I8: case NK_U8: return 1u;
    case NK_I16: case NK_U16: case NK_F16: return 2u;
    case NK_F32: case NK_I32: case NK_U32: return 4u;
    case NK_I64: case NK_U64: case NK_F64: return 8u;
    default: return 0u;
    }
}

typedef struct nk_quant_rt {
    int32_t axis;         /* -1 per-tensor */
    uint32_t count;
    const float *scale;   /* views into the image */
    const int32_t *zero_point;
} nk_quant_rt;

/* A tensor as the loaded model sees it: byte for byte the image's TENSORS
 * record (docs/NK_FORMAT.md, format 1.1), so the model reads the records in
 * place from flash or the mapped file and keeps none in RAM. A file of
 * format 1.0 (last word 0) has its records copied into the arena with the
 * element count filled in (model.c). The payload of a constant and the
 * slot of an activation are the context's data[id], never here. */
typedef struct nk_tensor_rt {
    uint32_t name;           /* string ref (nk_format_string), NK_NONE when unnamed */
    uint8_t dtype;           /* nk_dtype */
    uint8_t rank;
    uint8_t is_const;        /* the record's flags: bit 0 CONST, the only bit a valid file sets */
    uint8_t is_state;        /* 1: a STATE tensor (persistent across invokes, docs/MEMORY.md) */
    int32_t dims[NK_MAX_DIMS];
    uint32_t data_offset;    /* CONST: payload offset in the image; NK_NONE otherwise */
    uint32_t data_size;      /* CONST: payload bytes; 0 otherwise (nk_tensor_bytes for all) */
    uint32_t quant;          /* offset into the QUANT section or NK_NONE */
    uint32_t elems;          /* element count (format 1.1; checked against dims at load) */
} nk_tensor_rt;

/* The tensor's bytes: elements times the dtype's size (a loaded tensor's
 * dtype is valid and the product was checked not to overflow). */
static inline uint32_t nk_tensor_bytes(const nk_tensor_rt *t) {
    return t->elems * nk_dtype_bytes(t->dtype);
}

typedef char nk_tensor_rt_is_the_image_record[sizeof(nk_tensor_rt) == 48 ? 1 : -1];

/* An op of the loaded model. in/out/params point into the image (4-byte
 * aligned, little-endian; all supported targets are little-endian). */
typedef struct nk_op_rt {
    uint16_t type;
    uint8_t n_in;
    uint8_t n_out;
    uint16_t n_params;
    uint8_t act;             /* fused activation kind, informational */
    uint8_t in_place;        /* planner: 1 output aliases input 0; 2 output overlaps input 0
                              * (nk_op_def.out_shift); 3 overlaps it further, the output
                              * rows staged in the workspace (nk_ops_staged_shift), with the
                              * band and slots in bits 2-6 (nk_i8_stage_in_place); bit 7
                              * NK_IN_PLACE_ROOM */
    const char *name;        /* "" when unnamed */
    const uint32_t *in;      /* tensor ids, NK_NONE for an absent optional input */
    const uint32_t *out;
    const uint32_t *params;
    const struct nk_op_def *def;
    uint32_t workspace;      /* bytes this op asked for */
#if NETKIT_BACKEND
    const struct nk_op_impl *impl; /* the backend's implementation it runs, NULL: def->eval */
    void *impl_state;        /* impl->prepare's per-model state, NULL when none */
#endif
#if NETKIT_HOST_KERNELS
    const void *host_packed; /* weights packed at load for the host kernels, or NULL */
#endif
} nk_op_rt;

#define NK_IN_PLACE_KIND(v) ((uint32_t)(v) & 3u) /* 0..3: nk_op_rt.in_place's meaning */
/* Bit 7 of any op's in_place: no tensor alive while the op runs lies
 * above its operands in the activation block, so the invoke lends the
 * op's kernels those free bytes, just below the workspace, as workspace
 * too (the planner marks it: docs/MEMORY.md, "Room above the operands"). */
#define NK_IN_PLACE_ROOM 0x80u

/* What an eval function gets: the model's tensors, this context's data
 * pointer for each tensor (const payload or activation), the workspace. */
typedef struct nk_exec {
    const struct nk_image *img; /* the image: QUANT records (QUANTIZE, DEQUANTIZE) */
    const nk_tensor_rt *tensors;
    void *const *data;
    void *workspace;
    size_t workspace_size;
#if NETKIT_HOST_KERNELS
    const struct nk_host_kernels *host; /* NULL: the portable kernels */
#endif
} nk_exec;

/* The host kernel table of an eval, or NULL (a constant in builds without). */
#if NETKIT_HOST_KERNELS
#define NK_EXEC_HOST(x) ((x)->host)
#else
#define NK_EXEC_HOST(x) ((const struct nk_host_kernels *)0)
#endif

/* Op flags, used by the planner. */
#define NK_OPF_ELEMENTWISE 1u /* safe with the output aliasing input 0 of equal size: may run in place */
#define NK_OPF_ALIAS 2u       /* output is a view of input 0 (reshape): no copy */
#define NK_OPF_I8_REQUANT 4u  /* inputs 3, 4: constant per-channel multiplier and shift, whose
                               * values the loader checks (nk_i8_mult_ok): validate sees the
                               * records, not the payloads */

/* A requantization pair the int8 kernels take: multiplier 0 or in
 * [2^30, 2^31), shift in -31..30. */
static inline int nk_i8_mult_ok(int32_t mult, int32_t shift) {
    return (mult == 0 || mult >= (1 << 30)) && shift >= -31 && shift <= 30;
}

struct nk_op_def;
/* The loader's check of an NK_OPF_I8_REQUANT op's multiplier and shift
 * values (payloads in `data`, by tensor id); NK_OK for other ops. `index`:
 * the op's number for the message. (model.c) */
NK_HIDDEN nk_status nk_op_check_requant(const struct nk_op_rt *op, const struct nk_op_def *def,
                                        const struct nk_tensor_rt *t, void *const *data,
                                        int32_t index, nk_error_t *err);

/* What only nk_inspect_model (inspect.c) reads, left out of an MCU build
 * without it (NETKIT_MCU without NETKIT_ARENA_HEAP): nk_op_def.macs (op
 * tables name their counters through NK_OP_MACS, NULL there) and the
 * load's byte counts (nk_load_stats, NK_MODEL_REPORT). */
#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)
#define NK_OPS_MACS 1
#define NK_OP_MACS(fn) fn
#define NK_MODEL_REPORT 1
#else
#define NK_OPS_MACS 0
#define NK_OP_MACS(fn) NULL
#define NK_MODEL_REPORT 0
#endif

/* One op table entry. A backend (vendor_kernels/, csrc/backend.h) may
 * supply its own eval and workspace size for an (op, dtype) pair, chosen per
 * op at load; validate and macs stay the core's. */
typedef struct nk_op_def {
    const char *name; /* lower case, e.g. "conv2d" ("" in builds that show it nowhere, NK_OP_NAME) */
    uint16_t type;
    uint8_t dtype;    /* dtype of input 0 this entry serves, or NK_OP_ANY_DTYPE */
    uint8_t flags;
    uint8_t min_in, max_in;
    uint8_t n_out;
    uint8_t min_params; /* fixed words; ops with rank-dependent params check more */
    /* Checks dtypes, shapes (inputs against outputs as stored in the file) and
     * params; on failure fills err (op index is filled by the caller). */
    nk_status (*validate)(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err);
    /* Scratch bytes eval needs (0 for none). */
    size_t (*workspace_size)(const nk_op_rt *op, const nk_tensor_rt *t);
    /* Multiply-accumulates (or element ops) per inference, for inspect
     * (NULL: none counted; NULL in builds without inspect, NK_OP_MACS). */
    uint64_t (*macs)(const nk_op_rt *op, const nk_tensor_rt *t);
    /* Runs the op; shapes were validated at load, so it cannot fail on them. */
    nk_status (*eval)(const nk_op_rt *op, const nk_exec *x);
    /* Overlap rule (NULL: none), docs/MEMORY.md: the highest offset, in
     * bytes from input 0's start (negative: below it), at which the output
     * may start when input 0 dies at this op, such that every kernel that
     * runs the op (portable and fast) writes no byte of input 0 before its
     * last read; NK_SHIFT_NONE when the op cannot overlap. */
    int64_t (*out_shift)(const nk_op_rt *op, const nk_tensor_rt *t);
} nk_op_def;

#define NK_SHIFT_NONE INT64_MIN

/* nk_op_def.dtype of an entry that serves every dtype but f32 (an exact
 * match goes first); its validate says which it runs. */
#define NK_OP_ANY_DTYPE 0xFFu

/* Output pixels a kernel may write before it has done reading the first of
 * them: the largest pixel block of any kernel for the op (docs/MEMORY.md).
 * A kernel with a larger block must raise its figure here. The op-level
 * kernels of these ops take input and output without restrict: with
 * overlap they point into one block. */
#define NK_OVERLAP_BLOCK_CONV_F32 8 /* kernels/host/host_conv.c: NK_HCONV_MR */
#define NK_OVERLAP_BLOCK_DW_F32 4   /* kernels/host/host_conv.c: four pixels */
#define NK_OVERLAP_BLOCK_CONV_I8 2  /* kernels/armv7em/dsp_i8.c: pixel pairs */
#define NK_OVERLAP_BLOCK_DW_I8 3    /* kernels/armv7em/dsp_depthwise.c: three 3x3 windows */
#define NK_OVERLAP_BLOCK_POOL 1     /* ref and host pools: one pixel at a time */

/* The op table lookup (csrc/ops/op_table.c): NULL when unsupported. */
NK_HIDDEN const nk_op_def *nk_op_lookup(uint32_t type, uint32_t dtype);

#if NETKIT_HOST_KERNELS
/* csrc/kernels/host_select.c. The kernel table for this CPU, or the one
 * NETKIT_HOST_ISA names (portable: NULL); an unknown name or an ISA this
 * CPU or build lacks is NK_ERR_UNSUPPORTED with a message. */
NK_HIDDEN nk_status nk_host_select(const struct nk_host_kernels **out, nk_error_t *err);
/* The table named `name` ("avx2", ...) when this build has it and the CPU
 * runs it, else NULL (the tests walk every level this way). */
NK_HIDDEN const struct nk_host_kernels *nk_host_find(const char *name);
/* Bytes of weights op (bound, validated) packs for kernels h; 0 when the op
 * has no packed host kernel for these parameters (it then runs portable).
 * `data`: the tensors' payload pointers (the default context's table). */
NK_HIDDEN size_t nk_host_pack_size(const struct nk_host_kernels *h, const nk_op_rt *op,
                                   const nk_tensor_rt *t, void *const *data);
/* Writes those bytes (16-byte aligned dst) from the op's current weights. */
NK_HIDDEN void nk_host_pack(const struct nk_host_kernels *h, const nk_op_rt *op,
                            const nk_tensor_rt *t, void *const *data, void *dst);
/* Scratch bytes the packed kernel needs on top of the op's own. */
NK_HIDDEN size_t nk_host_workspace(const struct nk_host_kernels *h, const nk_op_rt *op,
                                   const nk_tensor_rt *t, void *const *data);
#endif

/* Parameter words (little-endian; supported targets are LE). */
static inline int32_t nk_param_i32(const nk_op_rt *op, uint32_t k) {
    int32_t v;
    memcpy(&v, &op->params[k], 4);
    return v;
}
static inline float nk_param_f32(const nk_op_rt *op, uint32_t k) {
    float v;
    memcpy(&v, &op->params[k], 4);
    return v;
}

/* A reference that does not by itself pull a definition out of a static
 * library (ELF weak): for code only some programs need, which another
 * object then references strongly (overlap_rules.c). Elsewhere a plain
 * reference: the code is linked as before. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__ELF__)
#define NK_WEAK_REF __attribute__((weak))
#else
#define NK_WEAK_REF
#endif

/* Fills err with status, op index and a printf-free formatted message.
 * (csrc/error.c; the core builds without stdio.) */
NK_HIDDEN nk_status nk_fail(nk_error_t *err, nk_status s, int32_t op_index, const char *msg);
/* NETKIT_STRIP_MESSAGES=1 (firmware): the message is empty (the status
 * names are linked only where the firmware calls nk_status_str) and
 * every builder of message text is a macro that leaves its text arguments
 * unevaluated (sizeof), so the compiler drops the literals and callers need
 * no #if. Status, op index and the arena figures are filled as always.
 * The builders' own definitions in error.c are parenthesised or #if'd out. */
#ifndef NETKIT_STRIP_MESSAGES
#define NETKIT_STRIP_MESSAGES 0
#endif
/* NK_TEXT: message text kept in a variable or table instead of passed
 * straight to a builder; "" when stripped. */
#if NETKIT_STRIP_MESSAGES
#define NK_TEXT(s) ""
#else
#define NK_TEXT(s) s
#endif
/* nk_op_def.name: only messages and nk_inspect_model show it, so a build
 * with neither (NETKIT_STRIP_MESSAGES and no inspect) keeps "" for every op
 * name: op tables name their ops through NK_OP_NAME. */
#if NETKIT_STRIP_MESSAGES && !NK_OPS_MACS
#define NK_OP_NAME(s) ""
#else
#define NK_OP_NAME(s) s
#endif
#if NETKIT_STRIP_MESSAGES
#define NK_MSG_DROP(x) ((void)sizeof(x))
#define nk_fail(err, s, op_index, msg) (NK_MSG_DROP(msg), nk_fail((err), (s), (op_index), NULL))
#endif
/* Tiny formatting helpers for messages without snprintf. */
NK_HIDDEN size_t nk_str_append(char *dst, size_t cap, size_t len, const char *s);

#endif /* NK_INTERNAL_H */
