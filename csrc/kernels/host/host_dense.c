/* host_dense.c — dense as GEMV (one row) and GEMM (several rows) over
 * weights packed once at load into panels of NK_VL output features:
 * packed[p][k][j] = w[p*NK_VL + j][k], zero past out_features. A row's
 * input value is broadcast and multiplied into a whole panel per FMA; the
 * panel is read contiguously. Compiled once per ISA level (host.h). */
#include "host_isa.h"
#include "host.h"

/* file-local names, suffixed per level (host_isa.h) */
#define nk_hdense_store NK_HOST_FN(nk_hdense_store)
#define nk_hdense_rows4 NK_HOST_FN(nk_hdense_rows4)
#define nk_hdense_row1 NK_HOST_FN(nk_hdense_row1)
#define nk_hdense_tile NK_HOST_FN(nk_hdense_tile)

/* GEMM register tile: NK_HDENSE_MR rows by NK_HDENSE_NP panels of
 * accumulators (24 of AVX-512's and NEON's 32 registers, 12 of AVX2's 16);
 * per k, NP panel loads and MR broadcasts feed MR*NP FMAs. */
#undef NK_HDENSE_NP /* the unity build reads this file once per level */
#define NK_HDENSE_MR 6
#if defined(NK_HOST_ISA_AVX2)
#define NK_HDENSE_NP 2
#else
#define NK_HDENSE_NP 4
#endif

size_t NK_HOST_FN(nk_host_dense_pack_size)(int32_t in_features, int32_t out_features) {
    const size_t panels = ((size_t)out_features + NK_VL - 1) / NK_VL;
    return panels * (size_t)in_features * NK_VL * sizeof(float);
}

void NK_HOST_FN(nk_host_dense_pack)(const float *NK_RESTRICT w, int32_t in_features,
                                    int32_t out_features, float *NK_RESTRICT packed) {
    const size_t panels = ((size_t)out_features + NK_VL - 1) / NK_VL;
    size_t p, k, j;
    for (p = 0; p < panels; p++)
        for (k = 0; k < (size_t)in_features; k++)
            for (j = 0; j < NK_VL; j++) {
                const size_t o = p * NK_VL + j;
                packed[(p * (size_t)in_features + k) * NK_VL + j] =
                    o < (size_t)out_features ? w[o * (size_t)in_features + k] : 0.0f;
            }
}

/* Stores the first n (<= NK_VL) lanes of v, clamped. */
static inline void nk_hdense_store(float *y, nk_vf v, size_t n, nk_vf lo, nk_vf hi) {
    v = nk_vclamp(v, lo, hi);
    if (n == NK_VL)
        nk_vstore(y, v);
    else
        nk_vstore_n(y, v, n);
}

/* Four rows against one panel: four independent FMA chains. */
static void nk_hdense_rows4(const float *NK_RESTRICT x, size_t ldx, const float *NK_RESTRICT pw,
                            int32_t kn, nk_vf b, nk_vf *acc) {
    nk_vf a0 = b, a1 = b, a2 = b, a3 = b;
    const float *x0 = x, *x1 = x + ldx, *x2 = x + 2 * ldx, *x3 = x + 3 * ldx;
    int32_t k;
    for (k = 0; k < kn; k++) {
        const nk_vf w = nk_vload(pw + (size_t)k * NK_VL);
        a0 = nk_vfma(nk_vdup(x0[k]), w, a0);
        a1 = nk_vfma(nk_vdup(x1[k]), w, a1);
        a2 = nk_vfma(nk_vdup(x2[k]), w, a2);
        a3 = nk_vfma(nk_vdup(x3[k]), w, a3);
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* One row against one panel: the k range is split over four chains so the
 * FMAs do not wait on each other. */
static nk_vf nk_hdense_row1(const float *NK_RESTRICT x, const float *NK_RESTRICT pw, int32_t kn,
                            nk_vf b) {
    nk_vf a0 = b, a1 = nk_vdup(0.0f), a2 = a1, a3 = a1;
    int32_t k = 0;
    for (; k + 4 <= kn; k += 4) {
        const float *w = pw + (size_t)k * NK_VL;
        a0 = nk_vfma(nk_vdup(x[k]), nk_vload(w), a0);
        a1 = nk_vfma(nk_vdup(x[k + 1]), nk_vload(w + NK_VL), a1);
        a2 = nk_vfma(nk_vdup(x[k + 2]), nk_vload(w + 2 * NK_VL), a2);
        a3 = nk_vfma(nk_vdup(x[k + 3]), nk_vload(w + 3 * NK_VL), a3);
    }
    for (; k < kn; k++) a0 = nk_vfma(nk_vdup(x[k]), nk_vload(pw + (size_t)k * NK_VL), a0);
    return (a0 + a1) + (a2 + a3);
}

/* rows r.. (NK_HDENSE_MR of them) against np (constant where inlined)
 * panels from p on: panel q's lanes are outputs (p+q)*NK_VL.., the last
 * panel's first `last_n` stored. */
static inline __attribute__((always_inline)) void
nk_hdense_tile(const float *NK_RESTRICT x, size_t kn, const float *NK_RESTRICT packed,
               const float *NK_RESTRICT bias, float *NK_RESTRICT y, size_t n, size_t p,
               const int np, size_t last_n, nk_vf lo, nk_vf hi) {
    nk_vf acc[NK_HDENSE_MR][NK_HDENSE_NP];
    const float *pw = packed + p * kn * NK_VL;
    size_t k;
    int i, q;
#pragma GCC unroll 4
    for (q = 0; q < np; q++) {
        const size_t o = (p + (size_t)q) * NK_VL, w = q == np - 1 ? last_n : NK_VL;
        const nk_vf b = bias == NULL ? nk_vdup(0.0f)
                        : w == NK_VL ? nk_vload(bias + o) : nk_vload_n(bias + o, w);
#pragma GCC unroll 6
        for (i = 0; i < NK_HDENSE_MR; i++) acc[i][q] = b;
    }
    for (k = 0; k < kn; k++) {
        nk_vf wv[NK_HDENSE_NP];
#pragma GCC unroll 4
        for (q = 0; q < np; q++) wv[q] = nk_vload(pw + ((size_t)q * kn + k) * NK_VL);
#pragma GCC unroll 6
        for (i = 0; i < NK_HDENSE_MR; i++) {
            const nk_vf xv = nk_vdup(x[(size_t)i * kn + k]);
#pragma GCC unroll 4
            for (q = 0; q < np; q++) acc[i][q] = nk_vfma(xv, wv[q], acc[i][q]);
        }
    }
    for (i = 0; i < NK_HDENSE_MR; i++)
        for (q = 0; q < np; q++)
            nk_hdense_store(y + (size_t)i * n + (p + (size_t)q) * NK_VL, acc[i][q],
                            q == np - 1 ? last_n : NK_VL, lo, hi);
}

void NK_HOST_FN(nk_host_dense_f32)(const float *NK_RESTRICT x, const float *NK_RESTRICT packed,
                                   const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                   size_t rows, int32_t in_features, int32_t out_features,
                                   float act_min, float act_max) {
    const size_t kn = (size_t)in_features, n = (size_t)out_features;
    const size_t panels = (n + NK_VL - 1) / NK_VL;
    const nk_vf lo = nk_vdup(act_min), hi = nk_vdup(act_max);
    size_t r = 0, p, i;
    /* batches: MR x NP tiles, the panels past the last whole group one at a
     * time; leftover rows below */
    for (; r + NK_HDENSE_MR <= rows; r += NK_HDENSE_MR) {
        const float *xr = x + r * kn;
        float *yr = y + r * n;
        for (p = 0; p + NK_HDENSE_NP <= panels; p += NK_HDENSE_NP) {
            const size_t last = (p + NK_HDENSE_NP - 1) * NK_VL;
            nk_hdense_tile(xr, kn, packed, bias, yr, n, p, NK_HDENSE_NP,
                           n - last < NK_VL ? n - last : NK_VL, lo, hi);
        }
        /* the panels left (fewer than NK_HDENSE_NP) as one tile, so each
         * broadcast still feeds every panel: constant np per copy */
        if (p < panels) {
            const size_t rest = panels - p, last = (panels - 1) * NK_VL;
            const size_t last_n = n - last < NK_VL ? n - last : NK_VL;
#if NK_HDENSE_NP > 2
            if (rest == 3)
                nk_hdense_tile(xr, kn, packed, bias, yr, n, p, 3, last_n, lo, hi);
            else if (rest == 2)
                nk_hdense_tile(xr, kn, packed, bias, yr, n, p, 2, last_n, lo, hi);
            else
#endif
                nk_hdense_tile(xr, kn, packed, bias, yr, n, p, 1, last_n, lo, hi);
            (void)rest;
        }
    }
    for (; r + 4 <= rows; r += 4) {
        for (p = 0; p < panels; p++) {
            const size_t o = p * NK_VL, w = n - o < NK_VL ? n - o : NK_VL;
            const nk_vf b = bias == NULL ? nk_vdup(0.0f)
                            : w == NK_VL ? nk_vload(bias + o) : nk_vload_n(bias + o, w);
            nk_vf acc[4];
            nk_hdense_rows4(x + r * kn, kn, packed + p * kn * NK_VL, in_features, b, acc);
            for (i = 0; i < 4; i++) nk_hdense_store(y + (r + i) * n + o, acc[i], w, lo, hi);
        }
    }
    for (; r < rows; r++) {
        for (p = 0; p < panels; p++) {
            const size_t o = p * NK_VL, w = n - o < NK_VL ? n - o : NK_VL;
            const nk_vf b = bias == NULL ? nk_vdup(0.0f)
                            : w == NK_VL ? nk_vload(bias + o) : nk_vload_n(bias + o, w);
            nk_hdense_store(y + r * n + o,
                            nk_hdense_row1(x + r * kn, packed + p * kn * NK_VL, in_features, b), w,
                            lo, hi);
        }
    }
}
