/*
 * nkinsn: a QEMU TCG plugin that counts guest instructions executed between
 * two marker functions, so a kernel's cost under emulation is an exact,
 * repeatable number (QEMU models no pipeline or caches: these are
 * instructions, not cycles).
 *
 *   qemu-system-arm ... -plugin libnkinsn.so,begin=0x1234,end=0x1250[,out=FILE]
 *
 * begin/end are the entry addresses of two functions the guest calls around
 * the code to measure (netkit's benchmarks use nk_bench_start and
 * nk_bench_stop; `nm` gives the addresses, the Thumb bit is ignored). Every
 * begin..end pair is a region. Output, one line each, on stderr or FILE:
 *
 *   nkinsn region <i> <instructions>
 *   nkinsn total <instructions executed by the whole run>
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

/* Distinct non-NULL tags for the two marker callbacks. */
static char begin_tag, end_tag;

static void emit(const char *line) {
    if (out_file != NULL) {
        fputs(line, out_file);
        fflush(out_file);
    } else {
        qemu_plugin_outs(line);
    }
}

static void on_marker(unsigned int vcpu_index, void *tag) {
    (void)vcpu_index;
    if (tag == &begin_tag) {
        in_region = true;
        region_start = insn_count;
    } else if (in_region) {
        char line[96];
        snprintf(line, sizeof line, "nkinsn region %" PRIu64 " %" PRIu64 "\n", region_index,
                 insn_count - region_start);
        emit(line);
        region_index++;
        in_region = false;
    }
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
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insn_count, 1);
    }
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata) {
    (void)id;
    (void)userdata;
    char line[96];
    snprintf(line, sizeof line, "nkinsn total %" PRIu64 "\n", insn_count);
    emit(line);
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
    bool have_begin = false, have_end = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "begin=", 6) == 0 && parse_addr(a + 6, &begin_addr)) {
            have_begin = true;
        } else if (strncmp(a, "end=", 4) == 0 && parse_addr(a + 4, &end_addr)) {
            have_end = true;
        } else if (strncmp(a, "out=", 4) == 0 && a[4] != '\0') {
            out_file = fopen(a + 4, "w");
            if (out_file == NULL) {
                fprintf(stderr, "nkinsn: cannot write %s\n", a + 4);
                return -1;
            }
        } else {
            fprintf(stderr, "nkinsn: bad argument '%s' (want begin=ADDR, end=ADDR, out=FILE)\n", a);
            return -1;
        }
    }
    if (have_begin != have_end || (have_begin && begin_addr == end_addr)) {
        fprintf(stderr, "nkinsn: give both begin= and end=, at different addresses\n");
        return -1;
    }
    have_markers = have_begin;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
