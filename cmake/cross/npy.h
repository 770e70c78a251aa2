/*
 * A minimal reader of NumPy .npy images (format versions 1-3) for the
 * cross tests, which embed test vectors as byte arrays: little-endian
 * float32 ('<f4'), C order. Header facts from NumPy's format documentation:
 * magic "\x93NUMPY", major, minor, header length (u16 for v1, u32 after),
 * then a Python dict literal padded with spaces and a newline.
 */
#ifndef NK_CROSS_NPY_H
#define NK_CROSS_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct nk_npy {
    const unsigned char *data; /* first element */
    size_t count;              /* elements */
    int rank;
    long shape[8];
} nk_npy;

/* 0 on success; -1 when the image is not a C-order little-endian f32 npy. */
static int nk_npy_parse(const unsigned char *img, size_t len, nk_npy *out) {
    static const char magic[] = "\x93NUMPY";
    if (len < 10 || memcmp(img, magic, 6) != 0) return -1;
    size_t hlen, hoff;
    if (img[6] == 1) {
        hlen = (size_t)img[8] | (size_t)img[9] << 8;
        hoff = 10;
    } else {
        if (len < 12) return -1;
        hlen = (size_t)img[8] | (size_t)img[9] << 8 | (size_t)img[10] << 16 | (size_t)img[11] << 24;
        hoff = 12;
    }
    if (hoff + hlen > len) return -1;
    const char *h = (const char *)img + hoff;
    const char *hend = h + hlen;
    /* Needles are looked up inside the header only. */
    const char *descr = NULL, *order = NULL, *shape = NULL;
    for (const char *p = h; p < hend; p++) {
        size_t left = (size_t)(hend - p);
        if (left >= 8 && memcmp(p, "'descr':", 8) == 0) descr = p + 8;
        if (left >= 16 && memcmp(p, "'fortran_order':", 16) == 0) order = p + 16;
        if (left >= 8 && memcmp(p, "'shape':", 8) == 0) shape = p + 8;
    }
    if (descr == NULL || order == NULL || shape == NULL) return -1;
    while (descr < hend && *descr == ' ') descr++;
    if (hend - descr < 5 || memcmp(descr, "'<f4'", 5) != 0) return -1;
    while (order < hend && *order == ' ') order++;
    if (hend - order < 5 || memcmp(order, "False", 5) != 0) return -1;
    while (shape < hend && *shape != '(') shape++;
    if (shape == hend) return -1;
    out->rank = 0;
    out->count = 1;
    for (const char *p = shape + 1; p < hend && *p != ')'; p++) {
        if (*p >= '0' && *p <= '9') {
            long v = 0;
            while (p < hend && *p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
            if (out->rank == 8) return -1;
            out->shape[out->rank++] = v;
            out->count *= (size_t)v;
            p--;
        }
    }
    out->data = img + hoff + hlen;
    if (out->count * 4 > len - hoff - hlen) return -1;
    return 0;
}

static float nk_npy_f32(const nk_npy *a, size_t i) {
    uint32_t u = (uint32_t)a->data[4 * i] | (uint32_t)a->data[4 * i + 1] << 8 |
                 (uint32_t)a->data[4 * i + 2] << 16 | (uint32_t)a->data[4 * i + 3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

#endif
