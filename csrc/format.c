/*
 * format.c — parses and validates a `.nk` image (docs/NK_FORMAT.md).
 *
 * Hostile input is the normal case here: a flash image can be corrupt, a
 * file can be truncated or crafted. The rule is that no byte is read before
 * the range holding it has been checked against the section or file bounds.
 * All offsets and sizes are u32 and every bound is checked without a sum
 * that could wrap (`off <= size && len <= size - off`): 32-bit arithmetic
 * keeps the code small on 32-bit cores.
 */
#include "format.h"
#include "sort.h"

#if NETKIT_STRIP_MESSAGES
/* the messages naming sections are dropped unevaluated (NK_MSG_DROP): no
 * table, which clang would otherwise flag as unneeded */
#define nk_section_names ((const char *const *)NULL)
#else
static const char *const nk_section_names[NK_SECTION_KNOWN] = {
    "?", "TENSORS", "OPS", "GRAPH", "STRINGS", "QUANT", "META", "DATA"};
#endif

size_t nk_dtype_size(nk_dtype t) {
    return nk_dtype_bytes((uint32_t)t);
}

const char *nk_dtype_str(nk_dtype t) {
    switch (t) {
    case NK_F32: return "f32";
    case NK_I8: return "i8";
    case NK_I16: return "i16";
    case NK_I32: return "i32";
    case NK_U8: return "u8";
    case NK_U16: return "u16";
    case NK_U32: return "u32";
    case NK_I64: return "i64";
    case NK_U64: return "u64";
    case NK_F16: return "f16";
    case NK_F64: return "f64";
    case NK_DTYPE_INVALID: break;
    }
    return "invalid";
}

/* Sections that start with a count and a reserved 0 word, then `rec`-byte
 * records (OPS: records of at least 12 B, so the count is only bounded). */
typedef struct nk_counted {
    uint8_t kind, rec, exact, field; /* field: byte offset of the count in nk_image */
    const char *fmt;
} nk_counted;

#define NK_IMG_FIELD(f) (uint8_t)offsetof(nk_image, f) /* < 256: checked below */
typedef char nk_image_counts_fit[offsetof(nk_image, n_meta) < 256 ? 1 : -1];
static const nk_counted nk_counted_sections[] = {
    {NK_SECTION_TENSORS, NK_FORMAT_TENSOR_RECORD, 1, NK_IMG_FIELD(n_tensors),
     NK_TEXT("TENSORS section of %u B does not hold its count of 48 B records")},
    /* a count above the bound cannot be true, and rejecting it here keeps
     * the loader from sizing records by it */
    {NK_SECTION_OPS, NK_FORMAT_OP_HEADER, 0, NK_IMG_FIELD(n_ops),
     NK_TEXT("OPS section of %u B cannot hold its op count")},
    {NK_SECTION_META, 8, 1, NK_IMG_FIELD(n_meta),
     NK_TEXT("META section of %u B does not hold its count of pairs")},
};

/* A size is checked to be at least 8 before `size - 8` is used. */
static nk_status nk_format_counted(nk_image *img, const nk_counted *c, nk_error_t *err) {
    const nk_section *s = &img->sec[c->kind];
    const uint8_t *p = img->base + s->offset;
    uint32_t n, size = s->size;
    if (!s->present) return NK_OK; /* META; the others are required */
    n = size < 8 ? 0 : nk_rd_u32(p);
    if (size < 8 || nk_rd_u32(p + 4) != 0 || n > (size - 8u) / c->rec ||
        (c->exact && size - 8u != c->rec * n))
        return nk_fail_f(err, NK_ERR_FORMAT, -1, c->fmt, NULL, &size);
    *(uint32_t *)(void *)((uint8_t *)img + c->field) = n;
    return NK_OK;
}

/* The checks that need only a section's size, done once in nk_format_open. */
static nk_status nk_format_counts(nk_image *img, nk_error_t *err) {
    const nk_section *s;
    const uint8_t *p;
    uint32_t v[3];
    nk_status st;

    s = &img->sec[NK_SECTION_STRINGS];
    if (s->size == 0 || img->base[s->offset + s->size - 1] != 0)
        return nk_fail(err, NK_ERR_FORMAT, -1, "STRINGS section does not end with a NUL byte");
    st = nk_format_counted(img, &nk_counted_sections[0], err);
    if (st == NK_OK) st = nk_format_counted(img, &nk_counted_sections[1], err);
    if (st != NK_OK) return st;

    s = &img->sec[NK_SECTION_GRAPH];
    p = img->base + s->offset;
    if (s->size < 8) return nk_fail(err, NK_ERR_FORMAT, -1, "GRAPH section too small");
    v[0] = img->n_inputs = nk_rd_u32(p);
    v[1] = img->n_outputs = nk_rd_u32(p + 4);
    v[2] = s->size;
    /* both counts at most 16 when the size is compared: no wrap */
    if (img->n_inputs < 1 || img->n_inputs > NK_FORMAT_MAX_IO || img->n_outputs < 1 ||
        img->n_outputs > NK_FORMAT_MAX_IO ||
        s->size != 8u + 8u * (img->n_inputs + img->n_outputs))
        return nk_fail_f(err, NK_ERR_FORMAT, -1,
                         "GRAPH section: %u inputs and %u outputs (1..16 each) do not match its %u B",
                         NULL, v);
    return nk_format_counted(img, &nk_counted_sections[2], err);
}

/* Is [off, off + len) inside [0, size)? Overflow-safe in 32 bits. */
static int nk_range_ok(uint32_t off, uint32_t len, uint32_t size) {
    return off <= size && len <= size - off;
}

nk_status nk_format_open(nk_image *img, const void *bytes, size_t len, nk_error_t *err) {
    const uint8_t *b = (const uint8_t *)bytes;
    uint32_t file_size, count, table_end, i, j, v[4];

    if (img == NULL) return nk_fail(err, NK_ERR_ARG, -1, "no image record");
    memset(img, 0, sizeof *img);
    if (b == NULL) return nk_fail(err, NK_ERR_ARG, -1, "model image is NULL");
    if (((uintptr_t)b & (NK_PAYLOAD_ALIGN - 1)) != 0)
        return nk_fail(err, NK_ERR_ALIGN, -1, "model image is not 16-byte aligned");
    if (len < NK_FORMAT_HEADER_SIZE) {
        v[0] = (uint32_t)len; /* < 32 */
        return nk_fail_f(err, NK_ERR_FORMAT, -1,
                         "truncated image: %u B, the header alone is 32 B", NULL, v);
    }
    if (memcmp(b, NK_FORMAT_MAGIC, 4) != 0)
        return nk_fail(err, NK_ERR_FORMAT, -1, "bad magic: not a .nk image");
    v[0] = nk_rd_u16(b + 4);
    v[1] = nk_rd_u16(b + 6);
    if (v[0] != NK_FORMAT_MAJOR)
        return nk_fail_f(err, NK_ERR_VERSION, -1,
                         "format version %u.%u is not supported (this reader reads 1.x)", NULL, v);
    file_size = nk_rd_u32(b + 12);
    if (file_size < NK_FORMAT_HEADER_SIZE || file_size > len) {
        /* the buffer length as the message's u32 saturates: it is past the
         * header's size either way */
        v[0] = file_size;
        v[1] = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
        return nk_fail_f(err, NK_ERR_FORMAT, -1,
                         "truncated image: header says %u B, buffer holds %u B", NULL, v);
    }
    v[0] = nk_rd_u32(b + 8);
    v[1] = nk_crc32(0, b + 12, file_size - 12u);
    v[2] = file_size;
    if (v[0] != v[1])
        return nk_fail_f(err, NK_ERR_CHECKSUM, -1, "checksum mismatch: header %x, image %x over %u B",
                         NULL, v);
    v[0] = nk_rd_u32(b + 20);
    if (v[0] != 0) return nk_fail_f(err, NK_ERR_FORMAT, -1, "unknown header flags %x", NULL, v);
    if (nk_rd_u32(b + 24) != 0 || nk_rd_u32(b + 28) != 0)
        return nk_fail(err, NK_ERR_FORMAT, -1, "reserved header words are not 0");
    v[0] = count = nk_rd_u32(b + 16);
    v[1] = file_size;
    if (count < 1 || count > NK_FORMAT_MAX_SECTIONS)
        return nk_fail_f(err, NK_ERR_FORMAT, -1, "section count %u outside 1..64", NULL, v);
    table_end = NK_FORMAT_HEADER_SIZE + NK_FORMAT_SECTION_ENTRY * count;
    if (table_end > file_size)
        return nk_fail_f(err, NK_ERR_FORMAT, -1,
                         "section table of %u entries runs past the image end (%u B)", NULL, v);
    img->base = b;
    img->size = file_size;
    img->version_minor = nk_rd_u16(b + 6);

    for (i = 0; i < count; i++) {
        const uint8_t *e = b + NK_FORMAT_HEADER_SIZE + NK_FORMAT_SECTION_ENTRY * i;
        uint32_t kind = nk_rd_u32(e), off = nk_rd_u32(e + 4), size = nk_rd_u32(e + 8);
        uint32_t align = kind == NK_SECTION_DATA ? NK_PAYLOAD_ALIGN : 4u;
        v[0] = i;
        v[1] = off;
        v[2] = size;
        v[3] = file_size;
        if (nk_rd_u32(e + 12) != 0)
            return nk_fail_f(err, NK_ERR_FORMAT, -1, "section entry %u: reserved word is not 0",
                             NULL, v);
        if (off < table_end || !nk_range_ok(off, size, file_size))
            return nk_fail_f(err, NK_ERR_FORMAT, -1,
                             "section entry %u: range [%u, +%u) is outside the %u B image or "
                             "overlaps the header",
                             NULL, v);
        v[2] = align;
        if ((off & (align - 1)) != 0)
            return nk_fail_f(err, NK_ERR_ALIGN, -1, "section entry %u: offset %u is not %u-byte aligned",
                             NULL, v);
        for (j = 0; j < i; j++) {
            const uint8_t *o = b + NK_FORMAT_HEADER_SIZE + NK_FORMAT_SECTION_ENTRY * j;
            uint32_t o_off = nk_rd_u32(o + 4), o_size = nk_rd_u32(o + 8);
            /* both ranges are inside the u32 file size: the ends cannot wrap */
            if (size != 0 && o_size != 0 && off < o_off + o_size && o_off < off + size) {
                v[0] = j;
                v[1] = i;
                return nk_fail_f(err, NK_ERR_FORMAT, -1, "section entries %u and %u overlap", NULL, v);
            }
        }
        if (kind >= 1 && kind < NK_SECTION_KNOWN) {
            if (img->sec[kind].present)
                return nk_fail_f(err, NK_ERR_FORMAT, -1, "section %s appears twice",
                                 nk_section_names[kind], v);
            img->sec[kind].offset = off;
            img->sec[kind].size = size;
            img->sec[kind].present = 1;
        }
        /* other kinds: optional sections of a later minor version, skipped */
    }
    for (i = NK_SECTION_TENSORS; i <= NK_SECTION_STRINGS; i++) {
        if (!img->sec[i].present)
            return nk_fail_f(err, NK_ERR_FORMAT, -1, "required section %s is missing",
                             nk_section_names[i], v);
    }
    return nk_format_counts(img, err);
}

static int nk_format_string_ok(const nk_image *img, uint32_t ref) {
    return ref == NK_NONE || ref < img->sec[NK_SECTION_STRINGS].size;
}

/* Checks the quantization record at `q` (offset into QUANT) for a tensor. */
static int nk_format_quant_ok(const nk_image *img, uint32_t q, const nk_tensor_rt *t) {
    const nk_section *s = &img->sec[NK_SECTION_QUANT];
    const uint8_t *p;
    int32_t axis;
    uint32_t count;
    if (!s->present || (q & 3u) != 0 || !nk_range_ok(q, 8u, s->size)) return 0;
    p = img->base + s->offset + q;
    axis = (int32_t)nk_rd_u32(p);
    count = nk_rd_u32(p + 4);
    if (axis == -1) {
        if (count != 1) return 0;
    } else if (axis < 0 || axis >= (int32_t)t->rank || count != (uint32_t)t->dims[axis]) {
        return 0;
    }
    /* count scales and count zero points after the 8-byte head */
    return count <= (s->size - q - 8u) / 8u;
}

void nk_format_quant(const nk_image *img, uint32_t off, nk_quant_rt *q) {
    const uint8_t *p = img->base + img->sec[NK_SECTION_QUANT].offset + off;
    q->axis = (int32_t)nk_rd_u32(p);
    q->count = nk_rd_u32(p + 4);
    q->scale = (const float *)(const void *)(p + 8);
    q->zero_point = (const int32_t *)(const void *)(p + 8 + 4u * q->count);
}

/* Is a * b above UINT32_MAX? (one widening multiply, no 64-bit compare) */
static int nk_mul_overflows(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a * b) >> 32) != 0;
}

const nk_tensor_rt *nk_format_tensors(const nk_image *img) {
    /* 4-byte aligned: 16-aligned base, 4-aligned section, 48 B records */
    return (const nk_tensor_rt *)(const void *)(img->base + img->sec[NK_SECTION_TENSORS].offset + 8u);
}

int nk_format_tensors_in_place(const nk_image *img) {
    return img->version_minor >= NK_FORMAT_MINOR_ELEMS;
}

/* Checks tensor record i; with `copy`, writes it there with the element
 * count filled in (format 1.0). */
static nk_status nk_format_tensor(const nk_image *img, uint32_t i, nk_tensor_rt *copy,
                                  nk_error_t *err) {
    /* i < n_tensors, whose 48 B records fit in the section: no wrap */
    const uint8_t *r = img->base + img->sec[NK_SECTION_TENSORS].offset + 8u +
                       NK_FORMAT_TENSOR_RECORD * i;
    nk_tensor_rt rec, *t = &rec;
    const nk_section *data = &img->sec[NK_SECTION_DATA];
    uint32_t name = nk_rd_u32(r), data_off = nk_rd_u32(r + 32), data_size = nk_rd_u32(r + 36);
    uint8_t dtype = r[4], rank = r[5], flags = r[6];
    uint32_t elems = 1, bytes, dsize = (uint32_t)nk_dtype_size((nk_dtype)dtype);
    uint32_t d, v[4];
    const char *bad;
    nk_status st = NK_ERR_FORMAT;

    v[0] = i;
    if (!nk_format_string_ok(img, name)) {
        bad = NK_TEXT("tensor %u: name offset outside STRINGS");
        goto fail;
    }
    v[1] = dtype;
    if (dsize == 0) {
        bad = NK_TEXT("tensor %u: unknown dtype %u");
        goto fail;
    }
    v[1] = rank;
    memcpy(&rec, r, sizeof rec);
    if (rank > NK_MAX_DIMS || (flags & ~NK_FORMAT_TENSOR_CONST) != 0 ||
        (r[7] & ~NK_FORMAT_TENSOR_STATE) != 0 || (r[7] != 0 && flags != 0)) {
        bad = NK_TEXT("tensor %u: rank %u > 6, unknown flag or state bits set, or a constant "
                      "marked STATE");
        goto fail;
    }
    for (d = 0; d < NK_MAX_DIMS; d++) {
        uint32_t x = nk_rd_u32(r + 8 + 4 * d);
        v[1] = d;
        v[2] = x;
        /* 0: an empty tensor, which only a graph input or output may be
         * (nk_format_ops checks that no op touches one) */
        if (d < rank ? (x > NK_FORMAT_MAX_DIM || (x == 0 && (flags != 0 || r[7] != 0))) : x != 0) {
            bad = d < rank ? NK_TEXT("tensor %u: dims[%u] = %u outside 1..16777216 (0: an empty "
                                     "graph input or output)")
                           : NK_TEXT("tensor %u: dims[%u] = %u past the rank is not 0");
            goto fail;
        }
        if (d < rank) {
            if (nk_mul_overflows(elems, x)) {
                bad = NK_TEXT("tensor %u: element count overflows 32 bits");
                goto fail;
            }
            elems *= x;
        }
    }
    v[1] = elems;
    v[2] = dsize;
    if (nk_mul_overflows(elems, dsize)) {
        bad = NK_TEXT("tensor %u: byte size of %u elements of %u B overflows 32 bits");
        goto fail;
    }
    bytes = elems * dsize;
    /* format 1.1 stores the count (kernels read it in place), 1.0 a 0 */
    v[1] = rec.elems;
    v[2] = nk_format_tensors_in_place(img) ? elems : 0u;
    if (rec.elems != v[2]) {
        bad = NK_TEXT("tensor %u: element count word is %u, this format version needs %u");
        goto fail;
    }
    rec.elems = elems;

    v[1] = data_off;
    v[2] = data_size;
    v[3] = bytes;
    if (t->is_const) {
        if (data_off == NK_NONE) {
            bad = NK_TEXT("tensor %u: constant without a payload");
            goto fail;
        }
        if ((data_off & (NK_PAYLOAD_ALIGN - 1)) != 0) {
            bad = NK_TEXT("tensor %u: payload offset %u is not 16-byte aligned");
            st = NK_ERR_ALIGN;
            goto fail;
        }
        if (!data->present || data_off < data->offset ||
            !nk_range_ok(data_off - data->offset, data_size, data->size)) {
            bad = NK_TEXT("tensor %u: payload [%u, +%u) is outside the DATA section");
            goto fail;
        }
        if (data_size != bytes) {
            v[1] = data_size;
            v[2] = bytes;
            bad = NK_TEXT("tensor %u: payload of %u B, its shape and dtype need %u B");
            goto fail;
        }
    } else if (data_off != NK_NONE || data_size != 0) {
        bad = NK_TEXT("tensor %u: runtime tensor carries a payload reference");
        goto fail;
    }
    v[1] = t->quant;
    if (t->quant != NK_NONE && !nk_format_quant_ok(img, t->quant, t)) {
        bad = NK_TEXT("tensor %u: bad quantization record at QUANT+%u");
        goto fail;
    }
    if (copy != NULL) *copy = rec;
    return NK_OK;
fail:
    return nk_fail_f(err, st, -1, bad, NULL, v);
}

/* By payload start, then id: an overlap names the same pair every time. */
static int nk_format_payload_before(const void *ctx, uint32_t a, uint32_t b) {
    uint32_t pa = ((const nk_tensor_rt *)ctx)[a].data_offset;
    uint32_t pb = ((const nk_tensor_rt *)ctx)[b].data_offset;
    return pa != pb ? pa < pb : a < b;
}

/* Payload ranges must not overlap (a load-time write such as BN folding
 * must never change another tensor): the constants sorted by payload
 * start, each must end before the next begins. O(T log T) for T tensors;
 * `ids` (scratch) holds the sorted ids. */
static nk_status nk_format_payloads_disjoint(const nk_image *img, const nk_tensor_rt *t,
                                             uint32_t *ids, nk_error_t *err) {
    uint32_t i, n = 0, v[2];
    nk_status st = NK_OK;
    for (i = 0; i < img->n_tensors; i++)
        if (t[i].is_const) ids[n++] = i;
    if (n > 1) nk_sort_u32(ids, sizeof *ids, n, nk_format_payload_before, t);
    for (i = 1; i < n && st == NK_OK; i++) {
        const nk_tensor_rt *a = &t[ids[i - 1u]], *b = &t[ids[i]];
        v[0] = ids[i - 1u];
        v[1] = ids[i];
        /* both ranges lie inside the file: the sum fits */
        if (a->data_offset + a->data_size > b->data_offset)
            st = nk_fail_f(err, NK_ERR_FORMAT, -1, "payloads of tensors %u and %u overlap", NULL, v);
    }
    return st;
}

static const uint8_t *nk_format_io_entry(const nk_image *img, int is_output, uint32_t i) {
    if (is_output) i += img->n_inputs;
    return img->base + img->sec[NK_SECTION_GRAPH].offset + 8u + 8u * i;
}

uint32_t nk_format_io_tensor(const nk_image *img, int is_output, uint32_t i) {
    return nk_rd_u32(nk_format_io_entry(img, is_output, i));
}

uint32_t nk_format_io_layout(const nk_image *img, int is_output, uint32_t i) {
    return nk_rd_u32(nk_format_io_entry(img, is_output, i) + 4u);
}

uint32_t nk_format_io_flags(const nk_image *img, uint32_t id) {
    uint32_t i, f = 0;
    for (i = 0; i < img->n_inputs; i++)
        if (nk_format_io_tensor(img, 0, i) == id) f |= 1u;
    for (i = 0; i < img->n_outputs; i++)
        if (nk_format_io_tensor(img, 1, i) == id) f |= 2u;
    return f;
}

static nk_status nk_format_graph(const nk_image *img, const nk_tensor_rt *t, nk_error_t *err) {
    uint32_t i, j, total = img->n_inputs + img->n_outputs, v[3];
    for (i = 0; i < total; i++) {
        int is_out = i >= img->n_inputs;
        uint32_t k = is_out ? i - img->n_inputs : i;
        uint32_t id = nk_format_io_tensor(img, is_out, k);
        uint32_t layout = nk_format_io_layout(img, is_out, k);
        const char *what = is_out ? NK_TEXT("output") : NK_TEXT("input");
        v[0] = k;
        v[1] = id;
        v[2] = img->n_tensors;
        if (id >= img->n_tensors)
            return nk_fail_f(err, NK_ERR_FORMAT, -1,
                             "graph %s %u: tensor id %u outside the %u tensors", what, v);
        for (j = 0; !is_out && j < k && nk_format_io_tensor(img, 0, j) != id; j++) {
        }
        if (t[id].is_const || layout > NK_LAYOUT_NCHW || (!is_out && (j < k || t[id].is_state)))
            return nk_fail_f(err, NK_ERR_FORMAT, -1,
                             "graph %s %u: tensor %u is constant, listed twice, a STATE input, "
                             "or has an unknown layout",
                             what, v);
    }
    return NK_OK;
}

/* Walks the op records. `made` (scratch) marks the tensors produced so
 * far while the graph order is checked. Messages start
 * "op 3 (\"conv2\"): ". */
static nk_status nk_format_ops(const nk_image *img, const nk_tensor_rt *t, uint32_t *made,
                               nk_error_t *err) {
    const nk_section *s = &img->sec[NK_SECTION_OPS];
    uint32_t pos = 8, k, j, n = img->n_tensors, v[4];
    const char *bad = NULL, *name = NULL;
    int32_t at = -1;

    for (j = 0; j < n; j++) made[j] = 0;
    for (j = 0; j < img->n_inputs; j++) made[nk_format_io_tensor(img, 0, j)] = 1;
    for (k = 0; k < img->n_ops && bad == NULL; k++) {
        const uint8_t *r = img->base + s->offset + pos;
        nk_op_rt view, *op = &view;
        uint32_t rec, name_ref;

        at = (int32_t)k;
        v[0] = k;
        name = NULL;
        /* pos <= s->size throughout: each record was checked to fit */
        if (s->size - pos < NK_FORMAT_OP_HEADER) {
            bad = NK_TEXT("op %u: record runs past the end of OPS");
            break;
        }
        name_ref = nk_rd_u32(r + 4);
        /* reads the header and points in/out/params past it; the record's
         * length is checked below before any id is read */
        nk_format_op_read(img, r, op);
        if (nk_format_string_ok(img, name_ref)) name = op->name;
        v[1] = op->n_in;
        v[2] = op->n_out;
        v[3] = op->act;
        if (name == NULL || op->n_in > NK_OP_MAX_IN || op->n_out < 1 || op->n_out > NK_OP_MAX_OUT ||
            op->act > 3 || r[11] != 0) {
            bad = NK_TEXT(
                "op %u%q: bad record header (name, %u inputs, %u outputs, activation %u)");
            break;
        }
        /* at most 12 + 4 * (255 + 255 + 65535): no wrap */
        v[1] = rec = NK_FORMAT_OP_HEADER + 4u * ((uint32_t)op->n_in + op->n_out + op->n_params);
        if (rec > s->size - pos) {
            bad = NK_TEXT("op %u%q: record of %u B runs past the end of OPS");
            break;
        }
        for (j = 0; j < op->n_in; j++) {
            uint32_t id = op->in[j];
            if (id == NK_NONE) continue;
            v[1] = j;
            v[2] = id;
            if (id >= n || t[id].elems == 0) {
                bad = NK_TEXT("op %u%q: input %u (tensor %u) does not exist or is empty");
                break;
            }
            /* a STATE tensor holds a value from the start (zeros, or the last invoke's) */
            if (!t[id].is_const && !t[id].is_state && made[id] == 0) {
                bad = NK_TEXT("op %u%q: input %u (tensor %u) is read before any op produces it");
                break;
            }
        }
        for (j = 0; j < op->n_out && bad == NULL; j++) {
            uint32_t id = op->out[j];
            v[1] = j;
            v[2] = id;
            if (id >= n || t[id].is_const || made[id] != 0 || t[id].elems == 0) {
                bad = NK_TEXT("op %u%q: output %u (tensor %u) does not exist, is constant, "
                              "empty, a graph input or already produced");
                break;
            }
            made[id] = 1;
        }
        pos += rec;
    }
    if (bad == NULL && pos != s->size) {
        at = -1;
        v[0] = s->size - pos;
        bad = NK_TEXT("OPS section has %u B after its last record");
    }
    for (j = 0; j < img->n_outputs && bad == NULL; j++) {
        uint32_t id = nk_format_io_tensor(img, 1, j);
        at = -1;
        v[0] = j;
        v[1] = id;
        /* an empty output holds nothing to produce */
        if (made[id] == 0 && t[id].elems != 0)
            bad = NK_TEXT("graph output %u: tensor %u is produced by no op");
    }
    return bad == NULL ? NK_OK : nk_fail_f(err, NK_ERR_FORMAT, at, bad, name, v);
}

static nk_status nk_format_meta_ok(const nk_image *img, nk_error_t *err) {
    const nk_section *s = &img->sec[NK_SECTION_META];
    uint32_t i;
    for (i = 0; i < img->n_meta; i++) {
        const uint8_t *p = img->base + s->offset + 8u + 8u * i;
        if (!nk_format_string_ok(img, nk_rd_u32(p)) || !nk_format_string_ok(img, nk_rd_u32(p + 4)))
            return nk_fail_f(err, NK_ERR_FORMAT, -1,
                             "meta pair %u: string offset outside STRINGS", NULL, &i);
    }
    return NK_OK;
}

nk_status nk_format_decode(const nk_image *img, nk_tensor_rt *copy, uint32_t *scratch,
                           nk_error_t *err) {
    const nk_tensor_rt *t = copy != NULL ? copy : nk_format_tensors(img);
    uint32_t i;
    nk_status st;
    for (i = 0; i < img->n_tensors; i++) {
        st = nk_format_tensor(img, i, copy != NULL ? &copy[i] : NULL, err);
        if (st != NK_OK) return st;
    }
    st = nk_format_payloads_disjoint(img, t, scratch, err);
    if (st == NK_OK) st = nk_format_meta_ok(img, err);
    if (st == NK_OK) st = nk_format_graph(img, t, err);
    if (st == NK_OK) st = nk_format_ops(img, t, scratch, err);
    return st;
}

const char *nk_format_meta(const nk_image *img, const char *key) {
    const nk_section *s = &img->sec[NK_SECTION_META];
    uint32_t i;
    if (key == NULL) return NULL;
    for (i = 0; i < img->n_meta; i++) {
        const uint8_t *p = img->base + s->offset + 8u + 8u * i;
        uint32_t k = nk_rd_u32(p), v = nk_rd_u32(p + 4);
        if (k != NK_NONE && strcmp(nk_format_string(img, k), key) == 0)
            return v == NK_NONE ? "" : nk_format_string(img, v);
    }
    return NULL;
}
