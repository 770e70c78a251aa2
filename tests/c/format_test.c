/*
 * format_test.c — the .nk reader accepts a good image and rejects each
 * specific corruption with the status docs/NK_FORMAT.md calls for. The
 * corruptions are made by hand on a copy of mlp.nk (written by the Go
 * writer), with the checksum rewritten by the test's own CRC so each case
 * reaches the check it targets. Each image copy is exact-size, so a read
 * past the end is an ASan report.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "testutil.h"

static uint8_t *good;
static size_t good_len;

static uint8_t *section(uint8_t *img, uint32_t kind, uint32_t *size) {
    uint32_t off, sz;
    if (!nkt_find_section(img, good_len, kind, &off, &sz)) {
        fprintf(stderr, "test image lacks section %u\n", (unsigned)kind);
        exit(1);
    }
    if (size) *size = sz;
    return img + off;
}

static uint8_t *section_entry(uint8_t *img, uint32_t kind) {
    uint32_t i, n = nkt_rd32(img + 16);
    for (i = 0; i < n; i++)
        if (nkt_rd32(img + 32 + 16 * i) == kind) return img + 32 + 16 * i;
    exit(1);
}

static uint8_t *tensor(uint8_t *img, uint32_t id) { return section(img, 1, NULL) + 8 + 48 * id; }

static uint8_t *op(uint8_t *img, uint32_t k) {
    uint8_t *r = section(img, 2, NULL) + 8;
    uint32_t i;
    for (i = 0; i < k; i++) r += 12u + 4u * ((uint32_t)r[2] + r[3] + (uint32_t)(r[8] | r[9] << 8));
    return r;
}

static uint8_t *copy(void) { return nkt_dup_aligned(good, good_len); }

/* Writes each tensor record's element count into its last word (what the
 * writer of format 1.1 does), or 0 with `zero` (format 1.0). */
static void nkt_set_elems(uint8_t *img, int zero) {
    uint32_t n_sec = nk_rd_u32(img + 16), i, j, d;
    for (i = 0; i < n_sec; i++) {
        const uint8_t *e = img + 32 + 16 * i;
        if (nk_rd_u32(e) != 1) continue; /* TENSORS */
        for (j = 0; j < nk_rd_u32(img + nk_rd_u32(e + 4)); j++) {
            uint8_t *r = img + nk_rd_u32(e + 4) + 8 + 48 * j;
            uint32_t elems = 1;
            for (d = 0; d < r[5]; d++) elems *= nk_rd_u32(r + 8 + 4 * d);
            if (zero) elems = 0;
            memcpy(r + 44, &elems, 4);
        }
    }
}

/* The good (format 1.1) image loads with its tensor records read in place:
 * the arena holds no tensor record, only a data pointer per tensor; its
 * 1.0 form `img` (counts 0) loads with the records copied into the arena. */
static void expect_records_copied(uint8_t *img, size_t len) {
    nk_arena_t a10, a11;
    nk_model_t *m10 = NULL, *m11 = NULL;
    nk_error_t err;
    nk_arena_init_heap(&a10, 1u << 20);
    nk_arena_init_heap(&a11, 1u << 20);
    NKT_CHECK(nk_model_load_buffer(&m10, img, len, &a10, &err) == NK_OK, "1.0: %s", err.message);
    NKT_CHECK(nk_model_load_buffer(&m11, good, good_len, &a11, &err) == NK_OK, "1.1: %s", err.message);
    if (m10 != NULL && m11 != NULL) {
        NKT_CHECK((const uint8_t *)m11->tensors > good && (const uint8_t *)m11->tensors < good + good_len,
                  "1.1 records are the image's");
        NKT_CHECK(memcmp(m10->tensors, m11->tensors, m10->n_tensors * sizeof(nk_tensor_rt)) == 0,
                  "the 1.0 copy is the 1.1 record");
        /* the MCU tests' library keeps no byte counts (NK_MODEL_REPORT 0),
         * though this file is built with the heap arena's defines */
#if !defined(NETKIT_MCU)
        NKT_CHECK(m10->stats.structs - m11->stats.structs == m10->n_tensors * sizeof(nk_tensor_rt),
                  "1.0 copies %u records: %llu vs %llu B", m10->n_tensors,
                  (unsigned long long)m10->stats.structs, (unsigned long long)m11->stats.structs);
#endif
        NKT_CHECK(nk_arena_used(&a10) - nk_arena_used(&a11) >= m10->n_tensors * sizeof(nk_tensor_rt),
                  "arena: %zu vs %zu B", nk_arena_used(&a10), nk_arena_used(&a11));
    }
    nk_model_unload(m10);
    nk_model_unload(m11);
    nk_arena_free_heap(&a10);
    nk_arena_free_heap(&a11);
}

/* Loads `img` (after fixing its CRC when asked) and expects status `want`. */
static void expect(const char *what, uint8_t *img, size_t len, int fix_crc, nk_status want) {
    nk_arena_t arena;
    nk_model_t *m = NULL;
    nk_error_t err;
    nk_status got;
    if (fix_crc) nkt_fix_crc(img, len < good_len ? len : good_len);
    nk_arena_init_heap(&arena, 1u << 20);
    memset(&err, 0, sizeof err);
    got = nk_model_load_buffer(&m, img, len, &arena, &err);
    NKT_CHECK(got == want, "%s: got %s (%s), want %s", what, nk_status_str(got), err.message,
              nk_status_str(want));
    if (want != NK_OK) {
        NKT_CHECK(nkt_error_ok(&err, want) && m == NULL, "%s: error report", what);
        NKT_CHECK(nk_arena_used(&arena) == 0, "%s: arena not rewound", what);
    }
    nk_arena_free_heap(&arena);
    free(img);
}

static void test_header(void) {
    uint8_t *b;
    nk_image img;
    nk_error_t err;

    NKT_CHECK(nk_format_open(&img, good, good_len, &err) == NK_OK, "good image: %s", err.message);
    NKT_CHECK(img.n_tensors == 8 && img.n_ops == 3 && img.n_inputs == 1 && img.n_outputs == 1,
              "mlp counts");
    expect("good", copy(), good_len, 0, NK_OK);
    b = nkt_alloc_aligned(good_len + 100);
    memcpy(b, good, good_len);
    expect("longer buffer (tail ignored)", b, good_len + 100, 0, NK_OK);

    b = copy();
    b[0] = 'X';
    expect("magic", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    b[4] = 2;
    expect("major version 2", b, good_len, 1, NK_ERR_VERSION);
    b = copy();
    b[6] = 7;
    expect("minor version 7 is accepted", b, good_len, 1, NK_OK);
    b = copy();
    b[6] = 7;
    nkt_set_elems(b, 1);
    expect("minor version 7 without element counts", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    b[6] = 0;
    expect("format 1.0 with element counts", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    b[6] = 0;
    nkt_set_elems(b, 1);
    nkt_fix_crc(b, good_len);
    expect_records_copied(b, good_len);
    free(b);
    b = copy();
    b[good_len - 1] ^= 0x40;
    expect("flipped payload bit", b, good_len, 0, NK_ERR_CHECKSUM);
    b = copy();
    b[8] ^= 1;
    expect("flipped checksum bit", b, good_len, 0, NK_ERR_CHECKSUM);
    expect("truncated by one byte", nkt_dup_aligned(good, good_len - 1), good_len - 1, 0, NK_ERR_FORMAT);
    expect("shorter than a header", nkt_dup_aligned(good, 31), 31, 0, NK_ERR_FORMAT);
    expect("empty", nkt_dup_aligned(good, 0), 0, 0, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(b + 12, 20);
    expect("file_size below the header", b, good_len, 0, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(b + 20, 1);
    expect("unknown flag", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(b + 28, 1);
    expect("reserved word", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(b + 16, 0);
    expect("no sections", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(b + 16, 65);
    expect("65 sections", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(b + 16, 0xFFFFFFFFu);
    expect("2^32-1 sections", b, good_len, 1, NK_ERR_FORMAT);
    /* misaligned image base */
    b = nkt_alloc_aligned(good_len + 8);
    memcpy(b + 8, good, good_len);
    {
        nk_arena_t arena;
        nk_model_t *m;
        nk_arena_init_heap(&arena, 1u << 20);
        NKT_CHECK(nk_model_load_buffer(&m, b + 8, good_len, &arena, &err) == NK_ERR_ALIGN, "base + 8");
        nk_arena_free_heap(&arena);
    }
    free(b);
}

static void test_sections(void) {
    uint8_t *b, *e;
    b = copy();
    e = section_entry(b, 7);
    nkt_wr32(e + 4, nkt_rd32(e + 4) + 4);
    nkt_wr32(e + 8, nkt_rd32(e + 8) - 4);
    expect("DATA section 4-aligned only", b, good_len, 1, NK_ERR_ALIGN);
    b = copy();
    e = section_entry(b, 1);
    nkt_wr32(e + 4, nkt_rd32(e + 4) + 2);
    expect("TENSORS section 2-aligned", b, good_len, 1, NK_ERR_ALIGN);
    b = copy();
    e = section_entry(b, 7);
    nkt_wr32(e + 8, nkt_rd32(e + 8) + 16);
    expect("DATA runs past the end", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    e = section_entry(b, 7);
    nkt_wr32(e + 4, 0xFFFFFFF0u);
    nkt_wr32(e + 8, 0x20);
    expect("offset + size wraps 32 bits", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    e = section_entry(b, 1);
    nkt_wr32(e + 4, 16);
    expect("section over the header", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    e = section_entry(b, 6 /* META */);
    nkt_wr32(e, 1);
    expect("TENSORS twice", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    e = section_entry(b, 4);
    nkt_wr32(e, 99);
    expect("STRINGS missing (unknown kind 99 is skipped)", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    e = section_entry(b, 6);
    nkt_wr32(e, 99);
    expect("unknown section kind skipped", b, good_len, 1, NK_OK);
    b = copy();
    {
        uint8_t *t = section_entry(b, 1), *o = section_entry(b, 2);
        nkt_wr32(o + 4, nkt_rd32(t + 4) + 8);
    }
    expect("OPS overlaps TENSORS", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    {
        uint32_t size;
        uint8_t *s = section(b, 4, &size);
        s[size - 1] = 'x';
    }
    expect("STRINGS without a final NUL", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(section(b, 1, NULL), 9);
    expect("tensor count 9 in a section of 8", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(section(b, 2, NULL), 0xFFFFFFFFu);
    expect("op count 2^32-1 (no huge allocation)", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(section(b, 2, NULL), 2);
    expect("op count 2 leaves a record over", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(section(b, 2, NULL), 4);
    expect("op count 4 runs past OPS", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(section(b, 3, NULL), 17);
    expect("17 graph inputs", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(section(b, 6, NULL) + 8, 0xFFFFFF);
    expect("meta key outside STRINGS", b, good_len, 1, NK_ERR_FORMAT);
}

static void test_tensors(void) {
    uint8_t *b;
    uint32_t w1_off;
    b = copy();
    tensor(b, 0)[4] = 12;
    expect("dtype 12", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    tensor(b, 0)[5] = 7;
    expect("rank 7", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    tensor(b, 0)[6] = 2;
    expect("unknown tensor flag", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(tensor(b, 0) + 12, 0);
    expect("dim 0", b, good_len, 1, NK_ERR_FORMAT);
    /* an empty tensor with its element count right: only graph I/O that no
     * op touches may be empty, and never a constant */
    b = copy();
    nkt_wr32(tensor(b, 0) + 12, 0);
    nkt_wr32(tensor(b, 0) + 44, 0);
    expect("an op reads an empty tensor", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    {
        uint32_t id = 0;
        while ((tensor(b, id)[6] & 1u) == 0) id++; /* the first constant */
        nkt_wr32(tensor(b, id) + 8, 0);
        nkt_wr32(tensor(b, id) + 44, 0);
    }
    expect("an empty constant", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(tensor(b, 0) + 12, (1u << 24) + 1);
    expect("dim 2^24+1", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(tensor(b, 0) + 16, 1);
    expect("dim past the rank", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    tensor(b, 0)[5] = 3;
    nkt_wr32(tensor(b, 0) + 8, 1u << 24);
    nkt_wr32(tensor(b, 0) + 12, 1u << 24);
    nkt_wr32(tensor(b, 0) + 16, 1u << 24);
    expect("element count overflows", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    tensor(b, 0)[5] = 2;
    nkt_wr32(tensor(b, 0) + 8, 1u << 16);
    nkt_wr32(tensor(b, 0) + 12, 1u << 15);
    expect("byte size overflows (2^31 f32)", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(tensor(b, 0), 0xFFFFF0u);
    expect("name outside STRINGS", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(tensor(b, 1) + 32, nkt_rd32(tensor(b, 1) + 32) + 4);
    expect("payload 4-aligned only", b, good_len, 1, NK_ERR_ALIGN);
    b = copy();
    nkt_wr32(tensor(b, 1) + 36, nkt_rd32(tensor(b, 1) + 36) - 4);
    expect("payload smaller than its shape", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(tensor(b, 1) + 32, 0);
    expect("payload outside DATA", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(tensor(b, 1) + 32, 0xFFFFFFF0u);
    expect("payload offset near 2^32", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    w1_off = nkt_rd32(tensor(b, 1) + 32);
    nkt_wr32(tensor(b, 4) + 32, w1_off + 16);
    expect("payloads overlap (out of order)", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    tensor(b, 3)[6] = 1;
    expect("CONST flag without a payload", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    tensor(b, 1)[6] = 0;
    expect("runtime tensor with a payload", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(tensor(b, 0) + 40, 0);
    expect("quant record without a QUANT section", b, good_len, 1, NK_ERR_FORMAT);
}

static void test_graph_ops(void) {
    uint8_t *b, *r;
    b = copy();
    nkt_wr32(section(b, 3, NULL) + 8, 99);
    expect("graph input id 99", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(section(b, 3, NULL) + 8, 1);
    expect("graph input is a constant", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    nkt_wr32(section(b, 3, NULL) + 12, 2);
    expect("layout 2", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 0);
    nkt_wr32(r + 12, 77);
    expect("op input id 77", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 0);
    nkt_wr32(r + 12, 6);
    expect("op 0 reads fc2's output before op 1 makes it", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 1);
    nkt_wr32(r + 12 + 4u * r[2], 1);
    expect("op writes a constant", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 1);
    nkt_wr32(r + 12 + 4u * r[2], 0);
    expect("op writes the graph input", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 1);
    nkt_wr32(r + 12 + 4u * r[2], 3);
    expect("op writes a tensor produced before", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 2);
    r[3] = 0;
    expect("op without outputs", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 2);
    r[2] = 9;
    expect("9 op inputs", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 2);
    r[11] = 1;
    expect("op reserved byte", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 2);
    r[8] = 0xFF;
    r[9] = 0xFF;
    expect("65535 params run past OPS", b, good_len, 1, NK_ERR_FORMAT);
    b = copy();
    r = op(b, 1);
    nkt_wr32(r + 12 + 4u * r[2], 7);
    expect("graph output produced twice", b, good_len, 1, NK_ERR_FORMAT);
    {
        nk_arena_t arena;
        nk_model_t *m;
        nk_error_t err;
        b = copy();
        r = op(b, 1);
        nkt_wr32(r + 12, 77);
        nkt_fix_crc(b, good_len);
        nk_arena_init_heap(&arena, 1u << 20);
        NKT_CHECK(nk_model_load_buffer(&m, b, good_len, &arena, &err) == NK_ERR_FORMAT && err.op_index == 1 &&
                      strstr(err.message, "op 1 (\"fc2\")") != NULL,
                  "op errors name the op: %s", err.message);
        nk_arena_free_heap(&arena);
        free(b);
    }
}

/* Quantization records: cnn.nk's 16-byte META section becomes a QUANT
 * section holding one per-tensor record for the graph input. */
static void test_quant(void) {
    size_t len;
    uint8_t *cnn = nkt_read_file(NK_MODELS_DIR "/cnn.nk", &len), *b, *q;
    uint32_t i, n, off = 0, size = 0, qkind = 5;
    float scale = 0.5f;
    uint32_t scale_bits;
    struct {
        const char *what;
        int32_t axis;
        uint32_t count, tensor_quant;
        nk_status want;
    } cases[] = {
        {"per-tensor record", -1, 1, 0, NK_OK},
        {"per-tensor with count 2", -1, 2, 0, NK_ERR_FORMAT},
        {"axis past the rank", 4, 1, 0, NK_ERR_FORMAT},
        {"axis -2", -2, 1, 0, NK_ERR_FORMAT},
        {"per-channel (axis 3, 3 channels) runs past QUANT", 3, 3, 0, NK_ERR_FORMAT},
        {"per-channel count differs from dims[axis]", 3, 1, 0, NK_ERR_FORMAT},
        {"record offset not 4-aligned", -1, 1, 2, NK_ERR_FORMAT},
        {"record offset past the section", -1, 1, 12, NK_ERR_FORMAT},
    };
    if (cnn == NULL) exit(1);
    memcpy(&scale_bits, &scale, 4);
    n = nkt_rd32(cnn + 16);
    for (i = 0; i < n; i++)
        if (nkt_rd32(cnn + 32 + 16 * i) == 6) {
            off = nkt_rd32(cnn + 36 + 16 * i);
            size = nkt_rd32(cnn + 40 + 16 * i);
            nkt_wr32(cnn + 32 + 16 * i, qkind);
        }
    NKT_CHECK(size == 16, "cnn.nk META is 16 B (got %u)", (unsigned)size);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nk_arena_t arena;
        nk_model_t *m = NULL;
        nk_error_t err;
        nk_tensor_t t;
        uint32_t t_off, t_size;
        b = nkt_dup_aligned(cnn, len);
        q = b + off;
        nkt_wr32(q, (uint32_t)cases[i].axis);
        nkt_wr32(q + 4, cases[i].count);
        nkt_wr32(q + 8, scale_bits);
        nkt_wr32(q + 12, 3);
        nkt_find_section(b, len, 1, &t_off, &t_size);
        nkt_wr32(b + t_off + 8 + 40, cases[i].tensor_quant); /* tensor 0: the graph input */
        nkt_fix_crc(b, len);
        nk_arena_init_heap(&arena, 1u << 20);
        NKT_CHECK(nk_model_load_buffer(&m, b, len, &arena, &err) == cases[i].want, "%s: %s",
                  cases[i].what, err.message);
        if (cases[i].want == NK_OK && m != NULL) {
            NKT_CHECK(nk_model_input(m, 0, &t) == NK_OK && t.quant_scale == 0.5f && t.quant_zero_point == 3,
                      "per-tensor quantization shows in the input view");
            NKT_CHECK(nk_model_meta(m, "producer") == NULL, "no META any more");
        }
        nk_arena_free_heap(&arena);
        free(b);
    }
    free(cnn);
}

int main(void) {
    good = nkt_read_file(NK_MODELS_DIR "/mlp.nk", &good_len);
    if (good == NULL) {
        fprintf(stderr, "no test model\n");
        return 1;
    }
    NKT_CHECK(nk_crc32(0, "123456789", 9) == 0xCBF43926u, "CRC-32 check value");
    NKT_CHECK(nk_crc32(nk_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u, "CRC-32 in pieces");
    NKT_CHECK(nk_crc32(0, good + 12, good_len - 12) == nkt_rd32(good + 8), "matches the Go writer");
    test_header();
    test_sections();
    test_tensors();
    test_graph_ops();
    test_quant();
    free(good);
    if (nkt_failures) fprintf(stderr, "format_test: %d failures\n", nkt_failures);
    return nkt_failures ? 1 : 0;
}
