#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int nkt_failures;

uint8_t *nkt_alloc_aligned(size_t n) {
    void *p = NULL;
    /* posix_memalign has no size restriction (aligned_alloc wants a multiple
     * of the alignment), so the block ends exactly at n for ASan. */
    if (posix_memalign(&p, 16, n ? n : 1) != 0 || p == NULL) {
        fprintf(stderr, "out of memory allocating %zu bytes\n", n);
        exit(2);
    }
    return (uint8_t *)p;
}

uint8_t *nkt_dup_aligned(const void *src, size_t n) {
    uint8_t *p = nkt_alloc_aligned(n);
    if (n) memcpy(p, src, n);
    return p;
}

uint8_t *nkt_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    long size;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = nkt_alloc_aligned((size_t)size);
    if ((size_t)size && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = (size_t)size;
    return buf;
}

static uint32_t crc_table[256];

static void crc_init(void) {
    if (crc_table[1]) return;
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

/* state is the running register: start at 0xFFFFFFFF, xor the result. */
uint32_t nkt_crc32_update(uint32_t state, const uint8_t *p, size_t n) {
    crc_init();
    for (size_t i = 0; i < n; i++) state = crc_table[(state ^ p[i]) & 0xFFu] ^ (state >> 8);
    return state;
}

uint32_t nkt_crc32(const uint8_t *p, size_t n) {
    return nkt_crc32_update(0xFFFFFFFFu, p, n) ^ 0xFFFFFFFFu;
}

void nkt_fix_crc(uint8_t *img, size_t len) {
    if (len < 12) return;
    nkt_wr32(img + 8, nkt_crc32(img + 12, len - 12));
}

int nkt_find_section(const uint8_t *img, size_t len, uint32_t kind, uint32_t *off,
                     uint32_t *size) {
    if (len < 32) return 0;
    uint32_t count = nkt_rd32(img + 16);
    if (count > 64 || 32 + (size_t)count * 16 > len) return 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = img + 32 + (size_t)i * 16;
        uint32_t o = nkt_rd32(e + 4), s = nkt_rd32(e + 8);
        if (nkt_rd32(e) == kind && (uint64_t)o + s <= len) {
            *off = o;
            *size = s;
            return 1;
        }
    }
    return 0;
}

size_t nkt_sections_end(const uint8_t *img, size_t len) {
    if (len < 32) return 0;
    uint32_t count = nkt_rd32(img + 16);
    if (count > 64 || 32 + (size_t)count * 16 > len) return 0;
    size_t end = 32 + (size_t)count * 16;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = img + 32 + (size_t)i * 16;
        uint64_t sec_end = (uint64_t)nkt_rd32(e + 4) + nkt_rd32(e + 8);
        if (sec_end > end) end = (size_t)sec_end;
    }
    return end;
}

uint64_t nkt_rand(nkt_rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t nkt_rand_below(nkt_rng *r, uint32_t n) {
    return (uint32_t)(nkt_rand(r) % n);
}

static int has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void push_path(char ***v, int *n, int *cap, const char *dir, const char *name) {
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *v = realloc(*v, (size_t)*cap * sizeof **v);
        if (!*v) exit(2);
    }
    size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(len);
    if (!p) exit(2);
    if (dir)
        snprintf(p, len, "%s/%s", dir, name);
    else
        snprintf(p, len, "%s", name);
    (*v)[(*n)++] = p;
}

int nkt_collect_models(int argc, char **argv, char ***out) {
    char **v = NULL;
    int n = 0, cap = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) continue;
        if (!S_ISDIR(st.st_mode)) {
            push_path(&v, &n, &cap, NULL, argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (has_suffix(e->d_name, ".nk")) push_path(&v, &n, &cap, argv[i], e->d_name);
        closedir(d);
    }
    if (n > 1) qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
}

void nkt_free_models(char **paths, int n) {
    for (int i = 0; i < n; i++) free(paths[i]);
    free(paths);
}

const char *nkt_basename(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int nkt_error_ok(const nk_error_t *err, nk_status s) {
    if (err->status != (int32_t)s) return 0;
    if (memchr(err->message, '\0', sizeof err->message) == NULL) return 0;
    return err->message[0] != '\0';
}
