/*
 * format.h — the reader of `.nk` images (docs/NK_FORMAT.md), the only one
 * in the C core.
 *
 * Reading happens in two steps so the loader can size its arena records
 * before decoding into them:
 *   1. nk_format_open checks the header, the checksum and the section table
 *      and reads the counts. Nothing past this point trusts a count that
 *      nk_format_open has not checked against the bytes that carry it.
 *   2. nk_format_decode checks the records (copying the tensor records of
 *      a format 1.0 file) and the graph: tensor records (dtype, dims, payload ranges,
 *      quantization records), graph inputs/outputs and the ops (ids, and
 *      that the order is a valid topological order).
 * Every failure is one of NK_ERR_FORMAT / VERSION / CHECKSUM / ALIGN with a
 * message that names the section, record or op. Offsets and sizes are u32
 * and every range is checked as `off <= size && len <= size - off`, so
 * nothing can wrap.
 */
#ifndef NK_FORMAT_H
#define NK_FORMAT_H

#include "nk_internal.h"

#define NK_FORMAT_MAGIC "NKIT"
#define NK_FORMAT_MAJOR 1u
/* The first minor whose tensor records carry the element count (their last
 * word), so the loader reads them in place. */
#define NK_FORMAT_MINOR_ELEMS 1u
#define NK_FORMAT_HEADER_SIZE 32u
#define NK_FORMAT_SECTION_ENTRY 16u
#define NK_FORMAT_MAX_SECTIONS 64u
#define NK_FORMAT_TENSOR_RECORD 48u
#define NK_FORMAT_OP_HEADER 12u
#define NK_FORMAT_MAX_IO 16u
#define NK_FORMAT_MAX_DIM (1u << 24)
#define NK_FORMAT_TENSOR_CONST 1u
/* Record byte 7: 1 marks a STATE tensor (runtime, kept across invokes). */
#define NK_FORMAT_TENSOR_STATE 1u

enum nk_section_kind {
    NK_SECTION_TENSORS = 1,
    NK_SECTION_OPS = 2,
    NK_SECTION_GRAPH = 3,
    NK_SECTION_STRINGS = 4,
    NK_SECTION_QUANT = 5,
    NK_SECTION_META = 6,
    NK_SECTION_DATA = 7,
    NK_SECTION_KNOWN = 8 /* one past the last known kind */
};

typedef struct nk_section {
    uint32_t offset;
    uint32_t size;
    uint32_t present;
} nk_section;

/* A checked view of an image. Pointers go into the caller's bytes. */
typedef struct nk_image {
    const uint8_t *base;
    uint32_t size; /* file_size from the header (<= the buffer length) */
    uint16_t version_minor;
    nk_section sec[NK_SECTION_KNOWN]; /* indexed by nk_section_kind */
    uint32_t n_tensors;
    uint32_t n_ops;
    uint32_t n_inputs;
    uint32_t n_outputs;
    uint32_t n_meta;
} nk_image;

/* CRC-32 (zlib's): pass 0 to start, the previous value to continue. */
NK_HIDDEN uint32_t nk_crc32(uint32_t crc, const void *data, size_t n);

/* Step 1: header, checksum, section table and counts. `bytes` must be
 * 16-byte aligned (NK_ERR_ALIGN otherwise). */
NK_HIDDEN nk_status nk_format_open(nk_image *img, const void *bytes, size_t len,
                                   nk_error_t *err);

/* Step 2: checks the tensor and op records (the loader reads the op
 * records in place later) and validates the graph. The tensor records are read in place
 * (nk_format_tensors) when nk_format_tensors_in_place, else `copy` (room
 * for n_tensors) receives them with the element count filled in. `scratch`
 * holds n_tensors words while it runs. Leaves op->def, workspace and
 * in_place alone: they belong to the loader. */
NK_HIDDEN nk_status nk_format_decode(const nk_image *img, nk_tensor_rt *copy, uint32_t *scratch,
                                     nk_error_t *err);

/* The OPS records are read in place: the first record, and one record
 * read into a view (type, counts, name and in/out/params pointing into the
 * image; def, workspace and the load's fields left alone, in_place 0).
 * Returns the next record. Only for records nk_format_decode checked,
 * except that nk_format_decode itself reads a header this way before
 * checking the record's length. Both are inline, at the end of this file. */

/* The image's TENSORS records (valid to read as nk_tensor_rt when
 * nk_format_tensors_in_place, i.e. format 1.1 on). */
NK_HIDDEN const nk_tensor_rt *nk_format_tensors(const nk_image *img);
NK_HIDDEN int nk_format_tensors_in_place(const nk_image *img);

/* Bit 0: tensor `id` is a graph input; bit 1: a graph output. */
NK_HIDDEN uint32_t nk_format_io_flags(const nk_image *img, uint32_t id);

/* Graph input (is_output 0) or output (1) number i: tensor id and layout. */
NK_HIDDEN uint32_t nk_format_io_tensor(const nk_image *img, int is_output, uint32_t i);
NK_HIDDEN uint32_t nk_format_io_layout(const nk_image *img, int is_output, uint32_t i);

/* The META value for `key`, or NULL. */
NK_HIDDEN const char *nk_format_meta(const nk_image *img, const char *key);

/* A quantization record (offset as stored in a tensor) as views. */
NK_HIDDEN void nk_format_quant(const nk_image *img, uint32_t off, nk_quant_rt *q);

/* A message under construction, for errors that say what, how big, where:
 *     nk_msg m = NK_MSG_INIT; nk_msg_s(&m, "tensor "); nk_msg_u(&m, 3); */
typedef struct nk_msg {
    char text[NETKIT_STRIP_MESSAGES ? 1 : NK_ERROR_MESSAGE_MAX]; /* stripped: "" */
    size_t len;
} nk_msg;
#define NK_MSG_INIT {{0}, 0}
/* Out of line: one copy instead of one per caller. */
NK_HIDDEN void nk_msg_s(nk_msg *m, const char *s);
NK_HIDDEN void nk_msg_u(nk_msg *m, uint64_t v);
NK_HIDDEN void nk_msg_i(nk_msg *m, int64_t v);

/* Appends `fmt` with each "%u" replaced by the next of `v` in decimal,
 * "%d" the same as int32_t, "%x" as 0x%08x, "%s" by `s`, and "%q" by
 * ` ("s")` when `s` is neither NULL nor empty. One formatter keeps the
 * many error messages of the loader to one call each. */
NK_HIDDEN void nk_msg_fmt(nk_msg *m, const char *fmt, const char *s, const uint32_t *v);

/* nk_fail with the message nk_msg_fmt makes. */
NK_HIDDEN nk_status nk_fail_f(nk_error_t *err, nk_status st, int32_t op_index, const char *fmt,
                              const char *s, const uint32_t *v);

/* Appends `op 3 (conv2d "conv2")` (type name from the op table when bound). */
NK_HIDDEN void nk_msg_op_ref(nk_msg *m, int32_t index, const nk_op_rt *op);

/* nk_fail with "<op ref>: <nk_msg_fmt(fmt, s, v)>" and op index `index`. */
NK_HIDDEN nk_status nk_fail_op(nk_error_t *err, nk_status st, int32_t index, const nk_op_rt *op,
                               const char *fmt, const char *s, const uint32_t *v);

/* Allocates `size` zeroed bytes, 16-byte aligned, for `what` (of op
 * `op_index` when >= 0), or fails with NK_ERR_ARENA_OVERFLOW and a report:
 * "arena overflow: 16384 B for activations of op 3 (conv2d \"conv2\"),
 *  1024 of 65536 B free". `free_bytes` is what was left after alignment. */
NK_HIDDEN void *nk_core_alloc(nk_arena_t *a, size_t size, const char *what, int32_t op_index,
                              const nk_op_rt *op, nk_error_t *err);

#if NETKIT_STRIP_MESSAGES /* see nk_fail in nk_internal.h */
#define nk_msg_s(m, s) ((void)(m), NK_MSG_DROP(s))
#define nk_msg_u(m, v) ((void)(m), NK_MSG_DROP(v))
#define nk_msg_i(m, v) ((void)(m), NK_MSG_DROP(v))
#define nk_msg_fmt(m, fmt, s, v) ((void)(m), NK_MSG_DROP(fmt), NK_MSG_DROP(s), NK_MSG_DROP(v))
#define nk_msg_op_ref(m, index, op) ((void)(m), NK_MSG_DROP(index), NK_MSG_DROP(op))
#define nk_fail_f(err, st, op_index, fmt, s, v)                                                   \
    (NK_MSG_DROP(fmt), NK_MSG_DROP(s), NK_MSG_DROP(v), nk_fail((err), (st), (op_index), NULL))
#define nk_fail_op(err, st, index, op, fmt, s, v)                                                 \
    (NK_MSG_DROP(op), NK_MSG_DROP(fmt), NK_MSG_DROP(s), NK_MSG_DROP(v),                           \
     nk_fail((err), (st), (index), NULL))
#define nk_core_alloc(a, size, what, op_index, op, err)                                           \
    (NK_MSG_DROP(what), NK_MSG_DROP(op), nk_core_alloc((a), (size), NULL, (op_index), NULL, (err)))
#endif

/* Little-endian reads at any alignment. */
static inline uint32_t nk_rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint16_t nk_rd_u16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}

/* A string reference as a C string: "" for NK_NONE. Only valid refs are
 * passed once the image is decoded. */
static inline const char *nk_format_string(const nk_image *img, uint32_t ref) {
    const nk_section *s = &img->sec[NK_SECTION_STRINGS];
    if (ref == NK_NONE || ref >= s->size) return "";
    return (const char *)img->base + s->offset + ref;
}

/* The op record reads (described above) are inline: invoke reads every op
 * this way, and bench --target counts those instructions as the invoke
 * loop's. */
static inline const uint8_t *nk_format_ops_begin(const nk_image *img) {
    return img->base + img->sec[NK_SECTION_OPS].offset + 8u;
}

static inline const uint8_t *nk_format_op_read(const nk_image *img, const uint8_t *r, nk_op_rt *op) {
    /* 4-byte aligned: 16-aligned base, 4-aligned section, 4-multiple records */
    const uint32_t *ids = (const uint32_t *)(const void *)(r + NK_FORMAT_OP_HEADER);
    op->type = nk_rd_u16(r);
    op->n_in = r[2];
    op->n_out = r[3];
    op->n_params = nk_rd_u16(r + 8);
    op->act = r[10];
    op->in_place = 0;
    op->name = nk_format_string(img, nk_rd_u32(r + 4));
    op->in = ids;
    op->out = ids + op->n_in;
    op->params = ids + op->n_in + op->n_out;
    return (const uint8_t *)(op->params + op->n_params);
}

#endif /* NK_FORMAT_H */
