/*
 * format.c — parses and validates a `.nk` image (docs/NK_FORMAT.md).
 *
 * Hostile input is the normal case here: a flash image can be corrupt, a
 * file can be truncated or crafted. The rule is that no byte is read before
 * the range holding it has been checked against the section or file bounds,
 * and all bound arithmetic is done in uint64_t on values that are at most
 * 32 bits wide, so it cannot wrap.
 */
#include "format.h"

static const char *const nk_section_names[NK_SECTION_KNOWN] = {
    "?", "TENSORS", "OPS", "GRAPH", "STRINGS", "QUANT", "META", "DATA"};

size_t nk_dtype_size(nk_dtype t) {
    switch (t) {
    case NK_F32: return 4;
    case NK_I8: return 1;
    case NK_I16: return 2;
    case NK_I32: return 4;
    case NK_DTYPE_INVALID: break;
    }
    return 0;
}

const char *nk_dtype_str(nk_dtype t) {
    switch (t) {
    case NK_F32: return "f32";
    case NK_I8: return "i8";
    case NK_I16: return "i16";
    case NK_I32: return "i32";
    case NK_DTYPE_INVALID: break;
    }
    return "invalid";
}

static void nk_msg_hex(nk_msg *m, uint32_t v) {
    static const char hex[] = "0123456789abcdef";
    char s[11];
    int i;
    s[0] = '0';
    s[1] = 'x';
    for (i = 0; i < 8; i++) s[2 + i] = hex[(v >> (28 - 4 * i)) & 15u];
    s[10] = '\0';
    nk_msg_s(m, s);
}

/* "<what> <index>: " prefix used by every record-level error. */
static void nk_msg_at(nk_msg *m, const char *what, uint64_t index) {
    nk_msg_s(m, what);
    nk_msg_s(m, " ");
    nk_msg_u(m, index);
    nk_msg_s(m, ": ");
}

static nk_status nk_fmt_fail(nk_error_t *err, nk_status s, int32_t op, nk_msg *m) {
    return nk_fail(err, s, op, m->text);
}

/* The checks that need only a section's size, done once in nk_format_open. */
static nk_status nk_format_counts(nk_image *img, nk_error_t *err) {
    nk_msg m = NK_MSG_INIT;
    const nk_section *s;
    const uint8_t *p;

    s = &img->sec[NK_SECTION_STRINGS];
    if (s->size == 0 || img->base[s->offset + s->size - 1] != 0) {
        nk_msg_s(&m, "STRINGS section does not end with a NUL byte");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }

    s = &img->sec[NK_SECTION_TENSORS];
    p = img->base + s->offset;
    if (s->size < 8 || nk_rd_u32(p + 4) != 0 ||
        (uint64_t)s->size != 8u + (uint64_t)NK_FORMAT_TENSOR_RECORD * nk_rd_u32(p)) {
        nk_msg_s(&m, "TENSORS section of ");
        nk_msg_u(&m, s->size);
        nk_msg_s(&m, " B does not hold its count of 48 B records");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    img->n_tensors = nk_rd_u32(p);

    s = &img->sec[NK_SECTION_OPS];
    p = img->base + s->offset;
    /* every record is at least 12 bytes: a count above that bound cannot be
     * true, and rejecting it here keeps the loader from sizing records by it */
    if (s->size < 8 || nk_rd_u32(p + 4) != 0 ||
        (uint64_t)nk_rd_u32(p) * NK_FORMAT_OP_HEADER > (uint64_t)s->size - 8u) {
        nk_msg_s(&m, "OPS section of ");
        nk_msg_u(&m, s->size);
        nk_msg_s(&m, " B cannot hold its op count");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    img->n_ops = nk_rd_u32(p);

    s = &img->sec[NK_SECTION_GRAPH];
    p = img->base + s->offset;
    if (s->size < 8) {
        nk_msg_s(&m, "GRAPH section too small");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    img->n_inputs = nk_rd_u32(p);
    img->n_outputs = nk_rd_u32(p + 4);
    if (img->n_inputs < 1 || img->n_inputs > NK_FORMAT_MAX_IO || img->n_outputs < 1 ||
        img->n_outputs > NK_FORMAT_MAX_IO ||
        (uint64_t)s->size != 8u + 8u * ((uint64_t)img->n_inputs + img->n_outputs)) {
        nk_msg_s(&m, "GRAPH section: ");
        nk_msg_u(&m, img->n_inputs);
        nk_msg_s(&m, " inputs and ");
        nk_msg_u(&m, img->n_outputs);
        nk_msg_s(&m, " outputs (1..16 each) do not match its ");
        nk_msg_u(&m, s->size);
        nk_msg_s(&m, " B");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }

    s = &img->sec[NK_SECTION_META];
    if (s->present) {
        p = img->base + s->offset;
        if (s->size < 8 || nk_rd_u32(p + 4) != 0 ||
            (uint64_t)s->size != 8u + 8u * (uint64_t)nk_rd_u32(p)) {
            nk_msg_s(&m, "META section of ");
            nk_msg_u(&m, s->size);
            nk_msg_s(&m, " B does not hold its count of pairs");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        img->n_meta = nk_rd_u32(p);
    }
    return NK_OK;
}

nk_status nk_format_open(nk_image *img, const void *bytes, size_t len, nk_error_t *err) {
    const uint8_t *b = (const uint8_t *)bytes;
    nk_msg m = NK_MSG_INIT;
    uint32_t file_size, count, table_end, i, j, stored, actual;
    uint16_t major;

    if (img == NULL) return nk_fail(err, NK_ERR_ARG, -1, "no image record");
    memset(img, 0, sizeof *img);
    if (b == NULL) return nk_fail(err, NK_ERR_ARG, -1, "model image is NULL");
    if (((uintptr_t)b & (NK_PAYLOAD_ALIGN - 1)) != 0)
        return nk_fail(err, NK_ERR_ALIGN, -1, "model image is not 16-byte aligned");
    if (len < NK_FORMAT_HEADER_SIZE) {
        nk_msg_s(&m, "truncated image: ");
        nk_msg_u(&m, len);
        nk_msg_s(&m, " B, the header alone is 32 B");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    if (memcmp(b, NK_FORMAT_MAGIC, 4) != 0)
        return nk_fail(err, NK_ERR_FORMAT, -1, "bad magic: not a .nk image");
    major = nk_rd_u16(b + 4);
    if (major != NK_FORMAT_MAJOR) {
        nk_msg_s(&m, "format version ");
        nk_msg_u(&m, major);
        nk_msg_s(&m, ".");
        nk_msg_u(&m, nk_rd_u16(b + 6));
        nk_msg_s(&m, " is not supported (this reader reads 1.x)");
        return nk_fmt_fail(err, NK_ERR_VERSION, -1, &m);
    }
    file_size = nk_rd_u32(b + 12);
    if (file_size < NK_FORMAT_HEADER_SIZE || file_size > len) {
        nk_msg_s(&m, "truncated image: header says ");
        nk_msg_u(&m, file_size);
        nk_msg_s(&m, " B, buffer holds ");
        nk_msg_u(&m, len);
        nk_msg_s(&m, " B");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    stored = nk_rd_u32(b + 8);
    actual = nk_crc32(0, b + 12, file_size - 12u);
    if (stored != actual) {
        nk_msg_s(&m, "checksum mismatch: header ");
        nk_msg_hex(&m, stored);
        nk_msg_s(&m, ", image ");
        nk_msg_hex(&m, actual);
        nk_msg_s(&m, " over ");
        nk_msg_u(&m, file_size);
        nk_msg_s(&m, " B");
        return nk_fmt_fail(err, NK_ERR_CHECKSUM, -1, &m);
    }
    if (nk_rd_u32(b + 20) != 0) {
        nk_msg_s(&m, "unknown header flags ");
        nk_msg_hex(&m, nk_rd_u32(b + 20));
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    if (nk_rd_u32(b + 24) != 0 || nk_rd_u32(b + 28) != 0)
        return nk_fail(err, NK_ERR_FORMAT, -1, "reserved header words are not 0");
    count = nk_rd_u32(b + 16);
    if (count < 1 || count > NK_FORMAT_MAX_SECTIONS) {
        nk_msg_s(&m, "section count ");
        nk_msg_u(&m, count);
        nk_msg_s(&m, " outside 1..64");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    table_end = NK_FORMAT_HEADER_SIZE + NK_FORMAT_SECTION_ENTRY * count;
    if (table_end > file_size) {
        nk_msg_s(&m, "section table of ");
        nk_msg_u(&m, count);
        nk_msg_s(&m, " entries runs past the image end (");
        nk_msg_u(&m, file_size);
        nk_msg_s(&m, " B)");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    img->base = b;
    img->size = file_size;
    img->version_minor = nk_rd_u16(b + 6);

    for (i = 0; i < count; i++) {
        const uint8_t *e = b + NK_FORMAT_HEADER_SIZE + NK_FORMAT_SECTION_ENTRY * i;
        uint32_t kind = nk_rd_u32(e), off = nk_rd_u32(e + 4), size = nk_rd_u32(e + 8);
        uint32_t align = kind == NK_SECTION_DATA ? NK_PAYLOAD_ALIGN : 4u;
        if (nk_rd_u32(e + 12) != 0) {
            nk_msg_at(&m, "section entry", i);
            nk_msg_s(&m, "reserved word is not 0");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        if (off < table_end || (uint64_t)off + size > file_size) {
            nk_msg_at(&m, "section entry", i);
            nk_msg_s(&m, "range [");
            nk_msg_u(&m, off);
            nk_msg_s(&m, ", +");
            nk_msg_u(&m, size);
            nk_msg_s(&m, ") is outside the ");
            nk_msg_u(&m, file_size);
            nk_msg_s(&m, " B image or overlaps the header");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        if ((off & (align - 1)) != 0) {
            nk_msg_at(&m, "section entry", i);
            nk_msg_s(&m, "offset ");
            nk_msg_u(&m, off);
            nk_msg_s(&m, " is not ");
            nk_msg_u(&m, align);
            nk_msg_s(&m, "-byte aligned");
            return nk_fmt_fail(err, NK_ERR_ALIGN, -1, &m);
        }
        for (j = 0; j < i; j++) {
            const uint8_t *o = b + NK_FORMAT_HEADER_SIZE + NK_FORMAT_SECTION_ENTRY * j;
            uint32_t o_off = nk_rd_u32(o + 4), o_size = nk_rd_u32(o + 8);
            if (size != 0 && o_size != 0 && (uint64_t)off < (uint64_t)o_off + o_size &&
                (uint64_t)o_off < (uint64_t)off + size) {
                nk_msg_s(&m, "section entries ");
                nk_msg_u(&m, j);
                nk_msg_s(&m, " and ");
                nk_msg_u(&m, i);
                nk_msg_s(&m, " overlap");
                return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
            }
        }
        if (kind >= 1 && kind < NK_SECTION_KNOWN) {
            if (img->sec[kind].present) {
                nk_msg_s(&m, "section ");
                nk_msg_s(&m, nk_section_names[kind]);
                nk_msg_s(&m, " appears twice");
                return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
            }
            img->sec[kind].offset = off;
            img->sec[kind].size = size;
            img->sec[kind].present = 1;
        }
        /* other kinds: optional sections of a later minor version, skipped */
    }
    for (i = NK_SECTION_TENSORS; i <= NK_SECTION_STRINGS; i++) {
        if (!img->sec[i].present) {
            nk_msg_s(&m, "required section ");
            nk_msg_s(&m, nk_section_names[i]);
            nk_msg_s(&m, " is missing");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
    }
    return nk_format_counts(img, err);
}

const char *nk_format_string(const nk_image *img, uint32_t ref) {
    const nk_section *s = &img->sec[NK_SECTION_STRINGS];
    if (ref == NK_NONE || ref >= s->size) return "";
    return (const char *)img->base + s->offset + ref;
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
    if (!s->present || (q & 3u) != 0 || (uint64_t)q + 8u > s->size) return 0;
    p = img->base + s->offset + q;
    axis = (int32_t)nk_rd_u32(p);
    count = nk_rd_u32(p + 4);
    if (axis == -1) {
        if (count != 1) return 0;
    } else if (axis < 0 || axis >= (int32_t)t->rank || count != (uint32_t)t->dims[axis]) {
        return 0;
    }
    return (uint64_t)q + 8u + 8u * (uint64_t)count <= s->size;
}

void nk_format_quant(const nk_image *img, uint32_t off, nk_quant_rt *q) {
    const uint8_t *p = img->base + img->sec[NK_SECTION_QUANT].offset + off;
    q->axis = (int32_t)nk_rd_u32(p);
    q->count = nk_rd_u32(p + 4);
    q->scale = (const float *)(const void *)(p + 8);
    q->zero_point = (const int32_t *)(const void *)(p + 8 + 4u * q->count);
}

static nk_status nk_format_tensor(const nk_image *img, uint32_t i, nk_tensor_rt *t,
                                  nk_error_t *err) {
    const uint8_t *r = img->base + img->sec[NK_SECTION_TENSORS].offset + 8u +
                       NK_FORMAT_TENSOR_RECORD * (uint64_t)i;
    const nk_section *data = &img->sec[NK_SECTION_DATA];
    nk_msg m = NK_MSG_INIT;
    uint32_t name = nk_rd_u32(r), data_off = nk_rd_u32(r + 32), data_size = nk_rd_u32(r + 36);
    uint8_t dtype = r[4], rank = r[5], flags = r[6];
    uint64_t elems = 1, bytes;
    size_t dsize = nk_dtype_size((nk_dtype)dtype);
    uint32_t d;

    nk_msg_at(&m, "tensor", i);
    if (!nk_format_string_ok(img, name)) {
        nk_msg_s(&m, "name offset outside STRINGS");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    if (dsize == 0) {
        nk_msg_s(&m, "unknown dtype ");
        nk_msg_u(&m, dtype);
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    if (rank > NK_MAX_DIMS || (flags & ~NK_FORMAT_TENSOR_CONST) != 0 || r[7] != 0 ||
        nk_rd_u32(r + 44) != 0) {
        nk_msg_s(&m, "rank ");
        nk_msg_u(&m, rank);
        nk_msg_s(&m, " > 6, or unknown flag or reserved bits set");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    for (d = 0; d < NK_MAX_DIMS; d++) {
        uint32_t v = nk_rd_u32(r + 8 + 4 * d);
        if (d < rank ? (v < 1 || v > NK_FORMAT_MAX_DIM) : v != 0) {
            nk_msg_s(&m, "dims[");
            nk_msg_u(&m, d);
            nk_msg_s(&m, "] = ");
            nk_msg_u(&m, v);
            nk_msg_s(&m, d < rank ? " outside 1..16777216" : " past the rank is not 0");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        if (d < rank) {
            elems *= v; /* <= 2^32 * 2^24 before the check: no u64 overflow */
            if (elems > UINT32_MAX) {
                nk_msg_s(&m, "element count overflows 32 bits");
                return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
            }
            t->dims[d] = (int32_t)v;
        }
    }
    bytes = elems * dsize;
    if (bytes > UINT32_MAX) {
        nk_msg_s(&m, "byte size ");
        nk_msg_u(&m, bytes);
        nk_msg_s(&m, " overflows 32 bits");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    t->name = nk_format_string(img, name);
    t->dtype = dtype;
    t->rank = rank;
    t->elems = (uint32_t)elems;
    t->bytes = (uint32_t)bytes;
    t->is_const = (uint8_t)(flags & NK_FORMAT_TENSOR_CONST);
    t->quant = nk_rd_u32(r + 40);

    if (t->is_const) {
        if (data_off == NK_NONE) {
            nk_msg_s(&m, "constant without a payload");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        if ((data_off & (NK_PAYLOAD_ALIGN - 1)) != 0) {
            nk_msg_s(&m, "payload offset ");
            nk_msg_u(&m, data_off);
            nk_msg_s(&m, " is not 16-byte aligned");
            return nk_fmt_fail(err, NK_ERR_ALIGN, -1, &m);
        }
        if (!data->present || data_off < data->offset ||
            (uint64_t)data_off + data_size > (uint64_t)data->offset + data->size) {
            nk_msg_s(&m, "payload [");
            nk_msg_u(&m, data_off);
            nk_msg_s(&m, ", +");
            nk_msg_u(&m, data_size);
            nk_msg_s(&m, ") is outside the DATA section");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        if (data_size != bytes) {
            nk_msg_s(&m, "payload of ");
            nk_msg_u(&m, data_size);
            nk_msg_s(&m, " B, its shape and dtype need ");
            nk_msg_u(&m, bytes);
            nk_msg_s(&m, " B");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        t->const_data = img->base + data_off;
    } else if (data_off != NK_NONE || data_size != 0) {
        nk_msg_s(&m, "runtime tensor carries a payload reference");
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    if (t->quant != NK_NONE && !nk_format_quant_ok(img, t->quant, t)) {
        nk_msg_s(&m, "bad quantization record at QUANT+");
        nk_msg_u(&m, t->quant);
        return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    return NK_OK;
}

/* Payload ranges must not overlap (a load-time write such as BN folding
 * must never change another tensor). Writers emit payloads in tensor order,
 * which one linear pass confirms; any other order gets the pairwise check. */
static nk_status nk_format_payloads_disjoint(const nk_image *img, const nk_tensor_rt *t,
                                             nk_error_t *err) {
    uint32_t i, j, n = img->n_tensors;
    const uint8_t *prev_end = NULL;
    int sorted = 1;
    for (i = 0; i < n && sorted; i++) {
        if (!t[i].is_const || t[i].bytes == 0) continue;
        if (prev_end != NULL && (const uint8_t *)t[i].const_data < prev_end) sorted = 0;
        prev_end = (const uint8_t *)t[i].const_data + t[i].bytes;
    }
    if (sorted) return NK_OK;
    for (i = 0; i < n; i++) {
        const uint8_t *a = (const uint8_t *)t[i].const_data;
        if (!t[i].is_const || t[i].bytes == 0) continue;
        for (j = i + 1; j < n; j++) {
            const uint8_t *b = (const uint8_t *)t[j].const_data;
            if (!t[j].is_const || t[j].bytes == 0) continue;
            if (a < b + t[j].bytes && b < a + t[i].bytes) {
                nk_msg m = NK_MSG_INIT;
                nk_msg_s(&m, "payloads of tensors ");
                nk_msg_u(&m, i);
                nk_msg_s(&m, " and ");
                nk_msg_u(&m, j);
                nk_msg_s(&m, " overlap");
                return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
            }
        }
    }
    return NK_OK;
}

uint32_t nk_format_io_tensor(const nk_image *img, int is_output, uint32_t i) {
    const uint8_t *g = img->base + img->sec[NK_SECTION_GRAPH].offset + 8u;
    if (is_output) i += img->n_inputs;
    return nk_rd_u32(g + 8u * i);
}

uint32_t nk_format_io_layout(const nk_image *img, int is_output, uint32_t i) {
    const uint8_t *g = img->base + img->sec[NK_SECTION_GRAPH].offset + 8u;
    if (is_output) i += img->n_inputs;
    return nk_rd_u32(g + 8u * i + 4u);
}

static nk_status nk_format_graph(const nk_image *img, nk_tensor_rt *t, nk_error_t *err) {
    uint32_t i, total = img->n_inputs + img->n_outputs;
    for (i = 0; i < total; i++) {
        int is_out = i >= img->n_inputs;
        uint32_t k = is_out ? i - img->n_inputs : i;
        uint32_t id = nk_format_io_tensor(img, is_out, k);
        uint32_t layout = nk_format_io_layout(img, is_out, k);
        nk_msg m = NK_MSG_INIT;
        nk_msg_at(&m, is_out ? "graph output" : "graph input", k);
        if (id >= img->n_tensors) {
            nk_msg_s(&m, "tensor id ");
            nk_msg_u(&m, id);
            nk_msg_s(&m, " outside the ");
            nk_msg_u(&m, img->n_tensors);
            nk_msg_s(&m, " tensors");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        if (t[id].is_const || layout > NK_LAYOUT_NCHW || (!is_out && (t[id].is_io & 1u))) {
            nk_msg_s(&m, "tensor ");
            nk_msg_u(&m, id);
            nk_msg_s(&m, " is constant, listed twice, or has an unknown layout");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
        t[id].is_io |= (uint8_t)(is_out ? 2u : 1u);
    }
    return NK_OK;
}

/* "op 3 (\"conv2\"): " */
static void nk_msg_op(nk_msg *m, uint32_t k, const char *name) {
    nk_msg_s(m, "op ");
    nk_msg_u(m, k);
    if (name != NULL && name[0] != '\0') {
        nk_msg_s(m, " (\"");
        nk_msg_s(m, name);
        nk_msg_s(m, "\")");
    }
    nk_msg_s(m, ": ");
}

/* Walks the op records. act_offset serves as a "produced" mark while the
 * graph order is checked, and is cleared at the end. */
static nk_status nk_format_ops(const nk_image *img, nk_tensor_rt *t, nk_op_rt *ops,
                               nk_error_t *err) {
    const nk_section *s = &img->sec[NK_SECTION_OPS];
    uint32_t pos = 8, k, j, n = img->n_tensors;
    nk_status st = NK_OK;

    for (j = 0; j < n; j++) t[j].act_offset = (t[j].is_io & 1u) ? 1u : 0u;
    for (k = 0; k < img->n_ops && st == NK_OK; k++) {
        const uint8_t *r = img->base + s->offset + pos;
        const uint32_t *ids;
        nk_op_rt *op = &ops[k];
        uint64_t rec;
        uint32_t name;
        nk_msg m = NK_MSG_INIT;

        if (s->size - pos < NK_FORMAT_OP_HEADER) {
            nk_msg_op(&m, k, NULL);
            nk_msg_s(&m, "record runs past the end of OPS");
            st = nk_fmt_fail(err, NK_ERR_FORMAT, (int32_t)k, &m);
            break;
        }
        name = nk_rd_u32(r + 4);
        op->type = nk_rd_u16(r);
        op->n_in = r[2];
        op->n_out = r[3];
        op->n_params = nk_rd_u16(r + 8);
        op->act = r[10];
        op->name = nk_format_string(img, name);
        nk_msg_op(&m, k, nk_format_string_ok(img, name) ? op->name : NULL);
        if (!nk_format_string_ok(img, name) || op->n_in > NK_OP_MAX_IN || op->n_out < 1 ||
            op->n_out > NK_OP_MAX_OUT || op->act > 3 || r[11] != 0) {
            nk_msg_s(&m, "bad record header (name, ");
            nk_msg_u(&m, op->n_in);
            nk_msg_s(&m, " inputs, ");
            nk_msg_u(&m, op->n_out);
            nk_msg_s(&m, " outputs, activation ");
            nk_msg_u(&m, op->act);
            nk_msg_s(&m, ")");
            st = nk_fmt_fail(err, NK_ERR_FORMAT, (int32_t)k, &m);
            break;
        }
        rec = NK_FORMAT_OP_HEADER + 4u * ((uint64_t)op->n_in + op->n_out + op->n_params);
        if (rec > (uint64_t)s->size - pos) {
            nk_msg_s(&m, "record of ");
            nk_msg_u(&m, rec);
            nk_msg_s(&m, " B runs past the end of OPS");
            st = nk_fmt_fail(err, NK_ERR_FORMAT, (int32_t)k, &m);
            break;
        }
        /* 4-byte aligned: 16-aligned base, 4-aligned section, 4-multiple records */
        ids = (const uint32_t *)(const void *)(r + NK_FORMAT_OP_HEADER);
        op->in = ids;
        op->out = ids + op->n_in;
        op->params = ids + op->n_in + op->n_out;
        for (j = 0; j < op->n_in; j++) {
            uint32_t id = op->in[j];
            if (id == NK_NONE) continue;
            if (id >= n || (!t[id].is_const && t[id].act_offset == 0)) {
                nk_msg_s(&m, "input ");
                nk_msg_u(&m, j);
                nk_msg_s(&m, " (tensor ");
                nk_msg_u(&m, id);
                nk_msg_s(&m, id >= n ? ") does not exist" : ") is read before any op produces it");
                st = nk_fmt_fail(err, NK_ERR_FORMAT, (int32_t)k, &m);
                break;
            }
        }
        for (j = 0; j < op->n_out && st == NK_OK; j++) {
            uint32_t id = op->out[j];
            if (id >= n || t[id].is_const || t[id].act_offset != 0) {
                nk_msg_s(&m, "output ");
                nk_msg_u(&m, j);
                nk_msg_s(&m, " (tensor ");
                nk_msg_u(&m, id);
                nk_msg_s(&m, ") does not exist, is constant, a graph input or already produced");
                st = nk_fmt_fail(err, NK_ERR_FORMAT, (int32_t)k, &m);
                break;
            }
            t[id].act_offset = 1;
        }
        pos += (uint32_t)rec;
    }
    if (st == NK_OK && pos != s->size) {
        nk_msg m = NK_MSG_INIT;
        nk_msg_s(&m, "OPS section has ");
        nk_msg_u(&m, s->size - pos);
        nk_msg_s(&m, " B after its last record");
        st = nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
    }
    for (j = 0; j < img->n_outputs && st == NK_OK; j++) {
        uint32_t id = nk_format_io_tensor(img, 1, j);
        if (t[id].act_offset == 0) {
            nk_msg m = NK_MSG_INIT;
            nk_msg_at(&m, "graph output", j);
            nk_msg_s(&m, "tensor ");
            nk_msg_u(&m, id);
            nk_msg_s(&m, " is produced by no op");
            st = nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
    }
    for (j = 0; j < n; j++) t[j].act_offset = 0;
    return st;
}

static nk_status nk_format_meta_ok(const nk_image *img, nk_error_t *err) {
    const nk_section *s = &img->sec[NK_SECTION_META];
    uint32_t i;
    for (i = 0; i < img->n_meta; i++) {
        const uint8_t *p = img->base + s->offset + 8u + 8u * i;
        if (!nk_format_string_ok(img, nk_rd_u32(p)) || !nk_format_string_ok(img, nk_rd_u32(p + 4))) {
            nk_msg m = NK_MSG_INIT;
            nk_msg_at(&m, "meta pair", i);
            nk_msg_s(&m, "string offset outside STRINGS");
            return nk_fmt_fail(err, NK_ERR_FORMAT, -1, &m);
        }
    }
    return NK_OK;
}

nk_status nk_format_decode(const nk_image *img, nk_tensor_rt *t, nk_op_rt *ops,
                           nk_error_t *err) {
    uint32_t i;
    nk_status st;
    for (i = 0; i < img->n_tensors; i++) {
        st = nk_format_tensor(img, i, &t[i], err);
        if (st != NK_OK) return st;
    }
    st = nk_format_payloads_disjoint(img, t, err);
    if (st == NK_OK) st = nk_format_meta_ok(img, err);
    if (st == NK_OK) st = nk_format_graph(img, t, err);
    if (st == NK_OK) st = nk_format_ops(img, t, ops, err);
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
