/*
 * strip_messages_test.c — the core built with NETKIT_STRIP_MESSAGES=1:
 * failures keep their status, op index and arena figures, the message is
 * empty, and the core's message text is not in the library (the status
 * names are, for nk_status_str).
 *
 *   strip_messages_test <stripped library> <default library>
 *
 * The default library is the control: every fragment looked for must be
 * in it, so the check cannot pass on a misspelt fragment.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* One fragment from each message builder of the core (error.c, format.c,
 * model.c, plan.c), as they appear in the objects. */
static const char *const core_text[] = {
    "arena overflow: ",           /* nk_core_alloc */
    " B for %s",                  /* nk_core_alloc (a format: short nk_msg_s
                                     literals may become immediate stores) */
    "bad magic: not a .nk image", /* nk_fail */
    "checksum mismatch: header",  /* nk_fail_f */
    "tensor %u: payload",         /* NK_TEXT in a variable */
    "TENSORS section of %u B",    /* NK_TEXT in a table */
    "is not supported by this build", /* nk_fail_op */
    "activation plan needs",      /* nk_msg_s */
};

static uint8_t *model_bytes(const char *name, size_t *len) {
    char path[512];
    uint8_t *b;
    snprintf(path, sizeof path, "%s/%s.nk", NK_MODELS_DIR, name);
    b = nkt_read_file(path, len);
    if (b == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return b;
}

static int contains(const uint8_t *b, size_t n, const char *s) {
    size_t k = strlen(s), i;
    for (i = 0; i + k <= n; i++)
        if (memcmp(b + i, s, k) == 0) return 1;
    return 0;
}

static void test_library_text(const char *stripped, const char *control) {
    size_t ns, nc, i;
    uint8_t *s = nkt_read_file(stripped, &ns), *c = nkt_read_file(control, &nc);
    NKT_CHECK(s != NULL && c != NULL, "cannot read %s or %s", stripped, control);
    if (s == NULL || c == NULL) return;
    for (i = 0; i < sizeof core_text / sizeof core_text[0]; i++) {
        NKT_CHECK(contains(c, nc, core_text[i]), "control library lacks \"%s\"", core_text[i]);
        NKT_CHECK(!contains(s, ns, core_text[i]), "stripped library has \"%s\"", core_text[i]);
    }
    /* the status names stay for nk_status_str */
    NKT_CHECK(contains(s, ns, "arena overflow"), "status name missing");
    free(s);
    free(c);
}

static void test_failures(void) {
    size_t len;
    uint8_t *img = model_bytes("mlp", &len), *bad, *mem;
    nk_report_t rep;
    nk_error_t err;
    nk_arena_t arena;
    nk_model_t *m = NULL;
    uint32_t off, size;
    size_t need;

    /* arena one byte short: the figures say exactly that */
    NKT_CHECK(nk_inspect_model(img, len, &rep, NULL, 0, &err) == NK_OK, "inspect: %d", err.status);
    need = (size_t)rep.arena_after_load;
    mem = nkt_alloc_aligned(need - 1);
    nk_arena_init(&arena, mem, need - 1);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_ERR_ARENA_OVERFLOW,
              "short arena: %d", err.status);
    NKT_CHECK(err.status == NK_ERR_ARENA_OVERFLOW && err.capacity == need - 1 &&
                  err.requested == err.free_bytes + 1,
              "figures: requested %llu free %llu capacity %llu", (unsigned long long)err.requested,
              (unsigned long long)err.free_bytes, (unsigned long long)err.capacity);
    NKT_CHECK(err.message[0] == '\0', "message \"%s\"", err.message);
    NKT_CHECK(strcmp(nk_status_str(err.status), "arena overflow") == 0, "status name");
    NKT_CHECK(nk_arena_used(&arena) == 0, "a failed load gives the arena back");
    free(mem);

    /* unknown op type at op 0: the op index stays */
    bad = nkt_dup_aligned(img, len);
    nkt_find_section(bad, len, 2, &off, &size);
    bad[off + 8] = 99;
    bad[off + 9] = 0;
    nkt_fix_crc(bad, len);
    nk_arena_init_heap(&arena, 1 << 20);
    NKT_CHECK(nk_model_load_buffer(&m, bad, len, &arena, &err) == NK_ERR_UNSUPPORTED, "unknown op");
    NKT_CHECK(err.op_index == 0 && err.message[0] == '\0', "op %d \"%s\"",
              (int)err.op_index, err.message);

    /* bad magic */
    memcpy(bad, img, len);
    bad[0] = 'X';
    NKT_CHECK(nk_model_load_buffer(&m, bad, len, &arena, &err) == NK_ERR_FORMAT, "bad magic");
    NKT_CHECK(err.op_index == -1 && err.message[0] == '\0', "op %d \"%s\"",
              (int)err.op_index, err.message);
    nk_arena_free_heap(&arena);
    free(bad);
    free(img);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <stripped library> <default library>\n", argv[0]);
        return 2;
    }
    test_library_text(argv[1], argv[2]);
    test_failures();
    if (nkt_failures) fprintf(stderr, "%d failure(s)\n", nkt_failures);
    return nkt_failures != 0;
}
