/*
 * nkinsn: a QEMU TCG plugin that counts guest instructions executed between
 * two marker functions, so a kernel's cost under emulation is an exact,
 * repeatable number (QEMU models no pipeline or caches: these are
 * instructions, not cycles).
 *
 *   qemu-system-arm ... -plugin libnkinsn.so,begin=0x1234,end=0x1250[,funcs=FILE][,out=FILE]
 *
 * begin/end are the entry addresses of two functions the guest calls around
 * the code to measure (netkit's benchmarks use nk_bench_start and
 * nk_bench_stop; `nm` gives the addresses, the Thumb bit is ignored). Every
 * begin..end pair is a region. Output, one line each, on stderr or FILE:
 *
 *   nkinsn region <i> <instructions>
 *   nkinsn total <instructions executed by the whole run>
 *
 * With funcs=FILE (lines "<start hex> <size hex> <name>", e.g. from
 * `nm -S`), it also attributes every instruction to the function holding
 * it and prints, most expensive first, the instructions each function ran
 * inside the regions (or in the whole run when there are no markers):
 *
 *   nkinsn func <name> <instructions>
 *
 * With opbegin=ADDR,opend=ADDR (a second marker pair, called around each
 * op of an inference) and opskip=LO-HI ranges (repeatable: the marker
 * functions and the loop calling them), it prints for every opbegin..opend
 * pair the instructions executed outside the skipped ranges, i.e. exactly
 * the op's own call tree, with no marker or loop overhead to subtract:
 *
 *   nkinsn op <i> <instructions>
 *
 * A region counts the instructions from the first instruction of the begin
 * function up to, not including, the first instruction of the end function:
 * the marker overhead is constant, so measure an empty region and subtract.
 *
 * Debian's QEMU (7.2) loads plugins but ships neither plugins nor
 * qemu-plugin.h, so the few API v1 declarations used here are spelled out
 * below. Build: cc -O2 -shared -fPIC -o libnkinsn.so nkinsn.c
 *
 * SPDX-License-Identifier: GPL-2.0-or-later (a host tool loaded into QEMU;
 * not part of the netkit library)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU plugin API, version 1 (QEMU 6.0 .. 8.x) ------------------- */

#define NK_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; /* only passed through */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

NK_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* ---- the counter ------------------------------------------------------ */

/* Thumb code addresses carry bit 0 in symbol tables; instructions never do. */
#define NK_ADDR_MASK (~(uint64_t)1)

static uint64_t insn_count;    /* bumped inline before every guest instruction */
static uint64_t begin_addr, end_addr;
static bool have_markers;
static bool in_region;
static uint64_t region_start;
static uint64_t region_index;
static FILE *out_file;         /* NULL: qemu_plugin_outs (stderr) */

/* Per-function counts (funcs=FILE), sorted by start address. */
typedef struct nk_func {
    uint64_t start, end;
    char *name;
    uint64_t count;      /* bumped inline, whole run */
    uint64_t at_begin;   /* count when the current region began */
    uint64_t in_regions; /* sum over finished regions */
} nk_func;
static nk_func *funcs;
static size_t n_funcs;

/* Op markers (opbegin/opend) and the ranges their counts leave out. */
#define NK_MAX_SKIP 16
static uint64_t op_begin_addr, op_end_addr;
static bool have_op_markers;
static uint64_t op_insn_count; /* bumped for instructions outside skip[] */
static uint64_t op_start;
static uint64_t op_index;
static bool in_op;
static struct { uint64_t lo, hi; } skip[NK_MAX_SKIP];
static size_t n_skip;

/* Distinct non-NULL tags for the marker callbacks. */
static char begin_tag, end_tag, op_begin_tag, op_end_tag;

static void emit(const char *line) {
    if (out_file != NULL) {
        fputs(line, out_file);
        fflush(out_file);
    } else {
        qemu_plugin_outs(line);
    }
}

static bool skipped(uint64_t pc) {
    for (size_t i = 0; i < n_skip; i++) {
        if (skip[i].lo <= pc && pc < skip[i].hi) return true;
    }
    return false;
}

static void on_marker(unsigned int vcpu_index, void *tag) {
    (void)vcpu_index;
    if (tag == &op_begin_tag) {
        in_op = true;
        op_start = op_insn_count;
        return;
    }
    if (tag == &op_end_tag) {
        if (in_op) {
            char line[96];
            snprintf(line, sizeof line, "nkinsn op %" PRIu64 " %" PRIu64 "\n", op_index, op_insn_count - op_start);
            emit(line);
            op_index++;
            in_op = false;
        }
        return;
    }
    if (tag == &begin_tag) {
        in_region = true;
        region_start = insn_count;
        for (size_t f = 0; f < n_funcs; f++) funcs[f].at_begin = funcs[f].count;
    } else if (in_region) {
        for (size_t f = 0; f < n_funcs; f++) funcs[f].in_regions += funcs[f].count - funcs[f].at_begin;
        char line[96];
        snprintf(line, sizeof line, "nkinsn region %" PRIu64 " %" PRIu64 "\n", region_index,
                 insn_count - region_start);
        emit(line);
        region_index++;
        in_region = false;
    }
}

/* The function holding pc, or NULL. */
static nk_func *func_at(uint64_t pc) {
    size_t lo = 0, hi = n_funcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (funcs[mid].end <= pc) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (lo < n_funcs && funcs[lo].start <= pc && pc < funcs[lo].end) ? &funcs[lo] : NULL;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        if (have_markers) {
            uint64_t pc = qemu_plugin_insn_vaddr(insn);
            if (pc == begin_addr) {
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, &begin_tag);
            } else if (pc == end_addr) {
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, &end_tag);
            }
        }
        if (have_op_markers) {
            uint64_t pc = qemu_plugin_insn_vaddr(insn);
            if (pc == op_begin_addr) {
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, &op_begin_tag);
            } else if (pc == op_end_addr) {
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, &op_end_tag);
            }
            if (!skipped(pc)) {
                qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &op_insn_count, 1);
            }
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insn_count, 1);
        if (n_funcs != 0) {
            nk_func *f = func_at(qemu_plugin_insn_vaddr(insn));
            if (f != NULL) {
                qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &f->count, 1);
            }
        }
    }
}

static int by_start(const void *a, const void *b) {
    const nk_func *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static uint64_t func_cost(const nk_func *f) { return region_index != 0 ? f->in_regions : f->count; }

static int by_cost(const void *a, const void *b) {
    uint64_t x = func_cost(a), y = func_cost(b);
    return x > y ? -1 : x < y;
}

/* Reads "<start hex> <size hex> <name>" lines; 0 on success. */
static int load_funcs(const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    char line[512];
    size_t cap = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long start, size;
        char name[400];
        if (sscanf(line, "%llx %llx %399s", &start, &size, name) != 3 || size == 0) continue;
        if (n_funcs == cap) {
            cap = cap ? 2 * cap : 256;
            nk_func *grown = realloc(funcs, cap * sizeof *funcs);
            if (grown == NULL) {
                fclose(f);
                return -1;
            }
            funcs = grown;
        }
        nk_func *fn = &funcs[n_funcs++];
        memset(fn, 0, sizeof *fn);
        fn->start = (uint64_t)start & NK_ADDR_MASK;
        fn->end = fn->start + (uint64_t)size;
        fn->name = malloc(strlen(name) + 1);
        if (fn->name == NULL) {
            fclose(f);
            return -1;
        }
        memcpy(fn->name, name, strlen(name) + 1);
    }
    fclose(f);
    qsort(funcs, n_funcs, sizeof *funcs, by_start);
    return 0;
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata) {
    (void)id;
    (void)userdata;
    char line[96];
    snprintf(line, sizeof line, "nkinsn total %" PRIu64 "\n", insn_count);
    emit(line);
    qsort(funcs, n_funcs, sizeof *funcs, by_cost);
    for (size_t f = 0; f < n_funcs && func_cost(&funcs[f]) != 0; f++) {
        char fline[512];
        snprintf(fline, sizeof fline, "nkinsn func %s %" PRIu64 "\n", funcs[f].name, func_cost(&funcs[f]));
        emit(fline);
    }
    if (out_file != NULL) {
        fclose(out_file);
        out_file = NULL;
    }
}

static bool parse_addr(const char *s, uint64_t *out) {
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*s == '\0' || *end != '\0') {
        return false;
    }
    *out = (uint64_t)v & NK_ADDR_MASK;
    return true;
}

NK_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                         char **argv);

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    bool have_begin = false, have_end = false, have_op_begin = false, have_op_end = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "begin=", 6) == 0 && parse_addr(a + 6, &begin_addr)) {
            have_begin = true;
        } else if (strncmp(a, "end=", 4) == 0 && parse_addr(a + 4, &end_addr)) {
            have_end = true;
        } else if (strncmp(a, "opbegin=", 8) == 0 && parse_addr(a + 8, &op_begin_addr)) {
            have_op_begin = true;
        } else if (strncmp(a, "opend=", 6) == 0 && parse_addr(a + 6, &op_end_addr)) {
            have_op_end = true;
        } else if (strncmp(a, "opskip=", 7) == 0) {
            char *dash;
            uint64_t lo, hi;
            char lo_s[32];
            dash = strchr(a + 7, '-');
            if (dash == NULL || (size_t)(dash - (a + 7)) >= sizeof lo_s || n_skip == NK_MAX_SKIP) {
                fprintf(stderr, "nkinsn: bad opskip '%s' (want opskip=LO-HI, at most %d)\n", a, NK_MAX_SKIP);
                return -1;
            }
            memcpy(lo_s, a + 7, (size_t)(dash - (a + 7)));
            lo_s[dash - (a + 7)] = '\0';
            if (!parse_addr(lo_s, &lo) || !parse_addr(dash + 1, &hi) || hi <= lo) {
                fprintf(stderr, "nkinsn: bad opskip '%s' (want opskip=LO-HI)\n", a);
                return -1;
            }
            skip[n_skip].lo = lo;
            skip[n_skip].hi = hi;
            n_skip++;
        } else if (strncmp(a, "funcs=", 6) == 0 && a[6] != '\0') {
            if (load_funcs(a + 6) != 0) {
                fprintf(stderr, "nkinsn: cannot read functions from %s\n", a + 6);
                return -1;
            }
        } else if (strncmp(a, "out=", 4) == 0 && a[4] != '\0') {
            out_file = fopen(a + 4, "w");
            if (out_file == NULL) {
                fprintf(stderr, "nkinsn: cannot write %s\n", a + 4);
                return -1;
            }
        } else {
            fprintf(stderr,
                    "nkinsn: bad argument '%s' (want begin=ADDR, end=ADDR, opbegin=ADDR, opend=ADDR, "
                    "opskip=LO-HI, funcs=FILE, out=FILE)\n",
                    a);
            return -1;
        }
    }
    if (have_begin != have_end || (have_begin && begin_addr == end_addr)) {
        fprintf(stderr, "nkinsn: give both begin= and end=, at different addresses\n");
        return -1;
    }
    if (have_op_begin != have_op_end || (have_op_begin && op_begin_addr == op_end_addr)) {
        fprintf(stderr, "nkinsn: give both opbegin= and opend=, at different addresses\n");
        return -1;
    }
    have_markers = have_begin;
    have_op_markers = have_op_begin;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
