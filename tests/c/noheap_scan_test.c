/*
 * noheap_scan_test.c — the core's sources call no heap allocator.
 *
 * Scans every .c and .h under the given directories (csrc/) for a call of
 * malloc, calloc, realloc, free, aligned_alloc or posix_memalign: the
 * identifier, not part of a longer one, followed by optional blanks and '('.
 * Comments and string literals are ignored, so prose may mention malloc().
 * A call is allowed only when its line, or the line above, carries the
 * waiver `nk-alloc-ok:` followed by a reason.
 *
 * It first runs itself on built-in samples, so a scanner that finds nothing
 * cannot pass.
 *
 * Usage: noheap_scan_test <dir>...
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const banned[] = {"malloc",        "calloc",        "realloc", "free",
                                     "aligned_alloc", "posix_memalign"};
static const char waiver[] = "nk-alloc-ok:";

/* 1 when the line holds the waiver with some reason text after it. */
static int has_waiver(const char *line, size_t n) {
    size_t k = sizeof waiver - 1;
    for (size_t i = 0; i + k <= n; i++) {
        if (memcmp(line + i, waiver, k) != 0) continue;
        for (size_t j = i + k; j < n; j++)
            if (isalnum((unsigned char)line[j])) return 1;
    }
    return 0;
}

static int is_ident(char c) {
    return isalnum((unsigned char)c) || c == '_';
}

/* Copies src to code with comments and string/char literals blanked (newlines
 * kept, so line numbers match). */
static void strip(const char *src, size_t n, char *code) {
    enum { CODE, LINE_COMMENT, BLOCK_COMMENT, STR, CHR } st = CODE;
    for (size_t i = 0; i < n; i++) {
        char c = src[i], next = i + 1 < n ? src[i + 1] : '\0';
        code[i] = c == '\n' ? '\n' : ' ';
        switch (st) {
        case CODE:
            if (c == '/' && next == '/') {
                st = LINE_COMMENT;
                code[++i] = ' ';
            } else if (c == '/' && next == '*') {
                st = BLOCK_COMMENT;
                code[++i] = ' ';
            } else if (c == '"') {
                st = STR;
            } else if (c == '\'') {
                st = CHR;
            } else {
                code[i] = c;
            }
            break;
        case LINE_COMMENT:
            if (c == '\n') st = CODE;
            break;
        case BLOCK_COMMENT:
            if (c == '*' && next == '/') {
                st = CODE;
                code[++i] = ' ';
            }
            break;
        case STR:
        case CHR:
            if (c == '\\' && i + 1 < n) {
                i++;
                code[i] = src[i] == '\n' ? '\n' : ' ';
            } else if ((st == STR && c == '"') || (st == CHR && c == '\'') || c == '\n') {
                st = CODE;
            }
            break;
        }
    }
}

/* Reports every unwaived call in src (name is for messages); returns the
 * count, and adds waived calls to *waived. */
static int scan_text(const char *name, const char *src, size_t n, int *waived, int quiet) {
    char *code = malloc(n + 1);
    if (!code) exit(2);
    strip(src, n, code);
    code[n] = '\0';
    int bad = 0;
    size_t line_start = 0, prev_start = 0;
    int line_no = 1;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '\n') {
            prev_start = line_start;
            line_start = i + 1;
            line_no++;
            continue;
        }
        if (!is_ident(code[i]) || (i > 0 && is_ident(code[i - 1]))) continue;
        size_t j = i;
        while (j < n && is_ident(code[j])) j++;
        for (size_t b = 0; b < sizeof banned / sizeof *banned; b++) {
            size_t k = strlen(banned[b]);
            if (j - i != k || memcmp(code + i, banned[b], k) != 0) continue;
            size_t p = j;
            while (p < n && (code[p] == ' ' || code[p] == '\t' || code[p] == '\n')) p++;
            if (p >= n || code[p] != '(') continue;
            size_t line_end = i;
            while (line_end < n && src[line_end] != '\n') line_end++;
            int ok = has_waiver(src + line_start, line_end - line_start) ||
                     (line_no > 1 && has_waiver(src + prev_start, line_start - prev_start));
            if (ok) {
                (*waived)++;
            } else {
                bad++;
                if (!quiet)
                    fprintf(stderr, "%s:%d: %s() without an `nk-alloc-ok: reason` waiver: %.*s\n",
                            name, line_no, banned[b], (int)(line_end - line_start),
                            src + line_start);
            }
        }
        i = j - 1;
    }
    free(code);
    return bad;
}

static int files_scanned;

static int scan_file(const char *path, int *waived) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) exit(2);
    files_scanned++;
    int bad = scan_text(path, buf, n, waived, 0);
    free(buf);
    return bad;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int scan_dir(const char *dir, int *waived) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open directory\n", dir);
        return 1;
    }
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path) exit(2);
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                bad += scan_dir(path, waived);
            else if (ends_with(path, ".c") || ends_with(path, ".h"))
                bad += scan_file(path, waived);
        }
        free(path);
    }
    closedir(d);
    return bad;
}

/* The scanner on known text: each sample's expected unwaived and waived count. */
static int self_test(void) {
    static const struct {
        const char *text;
        int bad, waived;
    } cases[] = {
        {"void *p = malloc(16);\n", 1, 0},
        {"x = calloc (1, 2); y = realloc(x, 4);\n", 2, 0},
        {"free\n  (p);\n", 1, 0},
        {"if (p) free(p);", 1, 0},
        {"p = aligned_alloc(16, 32); posix_memalign(&p, 16, 8);", 2, 0},
        {"nk_arena_free_heap(a); my_malloc(3); malloc_trim(0); freep(x);", 0, 0},
        {"/* never calls malloc(n) */ // nor free(p)\n", 0, 0},
        {"const char *s = \"malloc(4)\"; char c = '('; s = \"\\\"free(\";", 0, 0},
        {"p = malloc(n); /* nk-alloc-ok: the heap arena's backing store */\n", 0, 1},
        {"/* nk-alloc-ok: backing store */\np = malloc(n);\nfree(p);\n", 1, 1},
        {"p = malloc(n); /* nk-alloc-ok: */\n", 1, 0},
        {"int free_bytes = 0; size_t freed; x.free(1);\n", 1, 0},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int waived = 0;
        int bad = scan_text("sample", cases[i].text, strlen(cases[i].text), &waived, 1);
        if (bad != cases[i].bad || waived != cases[i].waived) {
            fprintf(stderr, "self-test %zu: found %d unwaived, %d waived; want %d, %d: %s\n", i,
                    bad, waived, cases[i].bad, cases[i].waived, cases[i].text);
            failed++;
        }
    }
    return failed;
}

int main(int argc, char **argv) {
    if (self_test() != 0) {
        fprintf(stderr, "noheap_scan_test: the scanner fails its own samples\n");
        return 1;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: noheap_scan_test <dir>...\n");
        return 2;
    }
    int bad = 0, waived = 0;
    for (int i = 1; i < argc; i++) bad += scan_dir(argv[i], &waived);
    if (files_scanned == 0) {
        fprintf(stderr, "noheap_scan_test: no .c/.h files found\n");
        return 1;
    }
    printf("noheap_scan_test: %d files, %d unwaived heap calls, %d waived\n", files_scanned, bad,
           waived);
    return bad ? 1 : 0;
}
