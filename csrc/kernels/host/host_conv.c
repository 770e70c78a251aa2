/* host_conv.c — conv2d (groups 1) and depthwise conv over NHWC float32.
 *
 * conv2d reads weights packed once at load into panels of NK_VL output
 * channels: packed[p][ky][kx][c][j] = w[p*NK_VL + j][ky][kx][c] (zero past
 * out_c), i.e. a GEMM whose A rows are the output pixels' input windows.
 * Undilated columns (nearly every conv) take the padded-rows path: the k_h
 * input rows an output row reads are copied once per image into workspace
 * rows with the horizontal padding as zeros, so every tile, border ones
 * included, runs one straight loop over the window's contiguous (kx, c)
 * floats; a register tile is mr output pixels (7 or 8, chosen from the row
 * width; 14 or 16 for a single panel on AVX-512) by one or two panels.
 * One-channel convs with three undilated columns at stride 1 (stems) take
 * a tile that broadcasts each padded-row value once for the three pixels
 * it feeds (nk_hconv_c1k3_tile). On AVX2, 3x3 stride-1 convs with 8+
 * channels run Winograd F(2x2, 3x3) (nk_hconv_wino, its own pack layout).
 * Dilated columns (or rows too wide for the workspace budget) read the
 * input in place, eight pixels by one or two panels, taps in the padding
 * reading a row of zeros.
 * Depthwise reads the weights as stored ([1, k_h, k_w, C], contiguous over
 * channels) and vectorizes over channels; with a channel count that is not
 * a multiple of the vector (stride_w 1) it runs vectors over the flat output
 * row instead, weights packed at load (see below). Compiled once per ISA level. */
#include "host_isa.h"
#include "host.h"
#include <math.h> /* INFINITY: the Winograd GEMM stores its products unclamped */

/* file-local names, suffixed per level (host_isa.h) */
#define nk_hconv_store NK_HOST_FN(nk_hconv_store)
#define nk_hconv_tile NK_HOST_FN(nk_hconv_tile)
#define nk_hconv_taps NK_HOST_FN(nk_hconv_taps)
#define nk_hconv_ld NK_HOST_FN(nk_hconv_ld)
#define nk_hconv_dw_px NK_HOST_FN(nk_hconv_dw_px)
#define nk_hconv_padded_row NK_HOST_FN(nk_hconv_padded_row)
#define nk_hconv_pick_mr NK_HOST_FN(nk_hconv_pick_mr)
#define nk_hconv_ptile NK_HOST_FN(nk_hconv_ptile)
#define nk_hconv_ptile_pairs NK_HOST_FN(nk_hconv_ptile_pairs)
#define nk_hconv_pairs NK_HOST_FN(nk_hconv_pairs)
#define nk_hconv_rows NK_HOST_FN(nk_hconv_rows)
#define nk_hconv_padded NK_HOST_FN(nk_hconv_padded)
#define nk_hconv_dw_period NK_HOST_FN(nk_hconv_dw_period)
#define nk_hconv_dw_row NK_HOST_FN(nk_hconv_dw_row)
#define nk_hconv_dw3_row NK_HOST_FN(nk_hconv_dw3_row)
#define nk_hconv_c1k3_tile NK_HOST_FN(nk_hconv_c1k3_tile)
#define nk_hconv_wino_group NK_HOST_FN(nk_hconv_wino_group)
#define nk_hconv_wino_row NK_HOST_FN(nk_hconv_wino_row)
#define nk_hconv_wino NK_HOST_FN(nk_hconv_wino)

#define NK_HCONV_MR 8 /* output pixels per register tile */
#define NK_HCONV_KH_MAX 16 /* padded-rows path: kernel heights up to this */
/* panels per tile: two where the ISA has 32 vector registers (2 x 8
 * accumulators), one with AVX2's 16 */
#undef NK_HCONV_NP /* the unity build reads this file once per level */
#if defined(NK_HOST_ISA_AVX2)
#define NK_HCONV_NP 1
#else
#define NK_HCONV_NP 2
#endif

/* AVX-512: two panels, the second at most half full (24 output channels:
 * 16 + 8): nk_hconv_ptile_pairs runs the second panel for two pixels per
 * vector, 1.5 FMAs per pixel and input value instead of 2. */
static int nk_hconv_pairs(const nk_ref_conv_geom *g) {
#if defined(NK_HOST_ISA_AVX512)
    return g->out_c > NK_VL && g->out_c <= NK_VL + NK_VL / 2;
#else
    (void)g;
    return 0;
#endif
}

/* ---- Winograd F(2x2, 3x3) ----
 * 3x3 convs at stride 1 with enough channels compute each 2x2 block of
 * outputs (a tile) from its 4x4 input patch d as A^T [U .* (B^T d B)] A,
 * U = G w G^T per channel pair (Lavin and Gray, "Fast Algorithms for
 * Convolutional Neural Networks", 2015): 16 products per tile and channel
 * pair instead of 36. The products are 16 GEMMs (one per position of the
 * 4x4 transform: tiles x in_c times in_c x out_c), run by the dense GEMM
 * (host_dense.c), so the conv does 2.25x fewer FMAs. The transforms are adds
 * (and halves, in U at load); the sums are reassociated, within the host
 * kernels' 1e-5 of the portable kernel. U is packed at load as
 * [pos][panel][c][NK_VL]; a group of tile rows (two output rows each) at a
 * time, the workspace holds five padded input rows (the fifth all zeros,
 * for rows in the padding), the transformed inputs V[pos][tile][c] and the
 * products M[pos][tile][panels * NK_VL]. */
#define NK_HCONV_WINO_MIN_C 8 /* fewer channels: the transforms do not pay */
/* Only where it measured faster: AVX2 (Fashion CNN's 14x14 16->32 conv 25
 * -> 12.8 us; its direct tiles hold one panel in 16 registers). On AVX-512
 * the direct 7x2-panel tile runs near the FMA peak and this path, whose
 * 16-deep GEMMs spend much of their time on tile setup and stores, was no
 * faster (9.1 against 8.9 us); NEON is not measured (QEMU only). */
#undef NK_HCONV_WINO
#if defined(NK_HOST_ISA_AVX2)
#define NK_HCONV_WINO 1
#else
#define NK_HCONV_WINO 0
#endif
#define NK_HCONV_WINO_BUDGET (192u * 1024u) /* bytes of V and M per group */

void NK_HOST_FN(nk_host_dense_f32)(const float *NK_RESTRICT x, const float *NK_RESTRICT packed,
                                   const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                   size_t rows, int32_t in_features, int32_t out_features,
                                   float act_min, float act_max);

/* floats of one padded input row: pad_left zeros, the row, zeros out to
 * the last column a tile reads (2 * tiles + 2) */
static size_t nk_hconv_wino_row(const nk_ref_conv_geom *g) {
    const size_t tw = ((size_t)g->out_w + 1) / 2;
    const size_t used = (size_t)g->pad_left + (size_t)g->in_w;
    return (2 * tw + 2 > used ? 2 * tw + 2 : used) * (size_t)g->in_c;
}

/* Tile rows per group (0: the conv does not take the Winograd path). */
static size_t nk_hconv_wino_group(const nk_ref_conv_geom *g) {
    const size_t tw = ((size_t)g->out_w + 1) / 2, th = ((size_t)g->out_h + 1) / 2;
    const size_t pw = ((size_t)g->out_c + NK_VL - 1) / NK_VL * NK_VL;
    const size_t per_row = 16 * tw * ((size_t)g->in_c + pw) * sizeof(float);
    size_t rows;
    if (!NK_HCONV_WINO || g->groups != 1 || g->k_h != 3 || g->k_w != 3 || g->stride_h != 1 || g->stride_w != 1 ||
        g->dil_h != 1 || g->dil_w != 1 || g->in_c < NK_HCONV_WINO_MIN_C ||
        g->out_c < NK_HCONV_WINO_MIN_C || per_row > NK_HCONV_WINO_BUDGET)
        return 0;
    rows = NK_HCONV_WINO_BUDGET / per_row;
    return rows < th ? rows : th;
}

size_t NK_HOST_FN(nk_host_conv2d_pack_size)(const nk_ref_conv_geom *g) {
    const size_t panels = ((size_t)g->out_c + NK_VL - 1) / NK_VL;
    if (g->groups != 1) return 0; /* grouped convs run the portable kernel */
    if (nk_hconv_wino_group(g) != 0) return 16 * panels * (size_t)g->in_c * NK_VL * sizeof(float);
    return panels * (size_t)g->k_h * (size_t)g->k_w * (size_t)g->in_c * NK_VL * sizeof(float);
}

void NK_HOST_FN(nk_host_conv2d_pack)(const float *NK_RESTRICT w, const nk_ref_conv_geom *g,
                                     float *NK_RESTRICT packed) {
    const size_t taps = (size_t)g->k_h * (size_t)g->k_w * (size_t)g->in_c;
    const size_t panels = ((size_t)g->out_c + NK_VL - 1) / NK_VL;
    size_t p, t, j;
    /* a half-full last panel (nk_hconv_pairs) repeats its channels in the
     * upper half; elsewhere those lanes are computed but never stored */
    const size_t half = nk_hconv_pairs(g) ? NK_VL / 2 : NK_VL;
    if (nk_hconv_wino_group(g) != 0) { /* U = G w G^T, in double, for each channel pair */
        static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
        const size_t C = (size_t)g->in_c;
        size_t c;
        for (p = 0; p < panels; p++)
            for (c = 0; c < C; c++)
                for (j = 0; j < NK_VL; j++) {
                    const size_t o = p * NK_VL + j;
                    double gw[4][3], u;
                    int a, b, k;
                    for (a = 0; a < 4; a++)
                        for (b = 0; b < 3; b++) {
                            gw[a][b] = 0.0;
                            for (k = 0; k < 3 && o < (size_t)g->out_c; k++)
                                gw[a][b] += G[a][k] * w[((o * 3 + (size_t)k) * 3 + (size_t)b) * C + c];
                        }
                    for (a = 0; a < 4; a++)
                        for (b = 0; b < 4; b++) {
                            for (u = 0.0, k = 0; k < 3; k++) u += gw[a][k] * G[b][k];
                            packed[(((size_t)(a * 4 + b) * panels + p) * C + c) * NK_VL + j] = (float)u;
                        }
                }
        return;
    }
    for (p = 0; p < panels; p++)
        for (t = 0; t < taps; t++)
            for (j = 0; j < NK_VL; j++) {
                const size_t o = p * NK_VL + (p == panels - 1 ? j % half : j);
                packed[(p * taps + t) * NK_VL + j] = o < (size_t)g->out_c ? w[o * taps + t] : 0.0f;
            }
}

/* Pixels per tile of the padded-rows path: NK_HCONV_MR, or 7 where that
 * wastes fewer lanes of a row (14 and 28 wide rows: 8 would leave a tile
 * half empty); a single panel on a 32-register ISA takes twice as many
 * pixels (16 or 14) in the registers the second panel would use. */
static int nk_hconv_pick_mr(const nk_ref_conv_geom *g) {
    const int wide = NK_HCONV_NP > 1 && (g->out_c <= NK_VL || nk_hconv_pairs(g));
    const int big = wide ? 2 * NK_HCONV_MR : NK_HCONV_MR, alt = big - big / 8;
    const int32_t w = g->out_w;
    const int32_t waste_big = (w + big - 1) / big * big - w;
    const int32_t waste_alt = (w + alt - 1) / alt * alt - w;
    return waste_alt < waste_big ? alt : big;
}

/* Padded rows: floats per row of the padded copy, or 0 when the conv takes
 * the in-place path (dilated columns, or rows too wide for the budget).
 * Columns: pad_left zeros, the input row, zeros out to the last column any
 * tile reads (a tail tile computes all NK_HCONV_MR pixels, stores m). */
#define NK_HCONV_PAD_BUDGET (64u * 1024u) /* bytes of workspace for k_h rows */
static size_t nk_hconv_padded_row(const nk_ref_conv_geom *g) {
    const size_t mr = (size_t)nk_hconv_pick_mr(g);
    const size_t tiles = ((size_t)g->out_w + mr - 1) / mr;
    const size_t reach = (tiles * mr - 1) * (size_t)g->stride_w + (size_t)g->k_w;
    const size_t used = (size_t)g->pad_left + (size_t)g->in_w;
    const size_t row = (reach > used ? reach : used) * (size_t)g->in_c;
    if (g->dil_w != 1 || g->k_h > NK_HCONV_KH_MAX ||
        row * (size_t)g->k_h * sizeof(float) > NK_HCONV_PAD_BUDGET)
        return 0;
    return row;
}

/* k_h padded rows, or else a row of in_c zeros that taps in the padding
 * read instead of the input */
size_t NK_HOST_FN(nk_host_conv2d_workspace)(const nk_ref_conv_geom *g) {
    const size_t row = nk_hconv_padded_row(g), group = nk_hconv_wino_group(g);
    if (group != 0) {
        const size_t tiles = group * (((size_t)g->out_w + 1) / 2);
        const size_t pw = ((size_t)g->out_c + NK_VL - 1) / NK_VL * NK_VL;
        return (5 * nk_hconv_wino_row(g) + 16 * tiles * ((size_t)g->in_c + pw)) * sizeof(float);
    }
    return row != 0 ? row * (size_t)g->k_h * sizeof(float) : (size_t)g->in_c * sizeof(float);
}

static inline void nk_hconv_store(float *y, nk_vf v, size_t n, nk_vf lo, nk_vf hi) {
    v = nk_vclamp(v, lo, hi);
    if (n == NK_VL)
        nk_vstore(y, v);
    else
        nk_vstore_n(y, v, n);
}

/* m (<= NK_HCONV_MR) output pixels ox0.. of row oy against np (<=
 * NK_HCONV_NP) panels from pw on: each input value is broadcast once and
 * multiplied into np panels, each panel load feeds NK_HCONV_MR pixels.
 * Taps in the padding read `zero`, so border pixels take the same path;
 * `inner` tiles (all m pixels' taps inside the input columns) address the
 * pixels by stride instead, which small channel counts feel.
 * y points at pixel ox0's first panel; n is the lane count of the last. */
static inline __attribute__((always_inline)) void
nk_hconv_tile(const float *NK_RESTRICT xb, const float *NK_RESTRICT pw, size_t panel_stride,
              const float *NK_RESTRICT zero, const nk_ref_conv_geom *g, int32_t oy, int32_t ox0,
              int32_t m, const nk_vf *bias, const int np, const int inner, float *NK_RESTRICT y,
              size_t O, size_t n, nk_vf lo, nk_vf hi) {
    const size_t C = (size_t)g->in_c, row = (size_t)g->in_w * C;
    const size_t sx = (size_t)g->stride_w * C;
    nk_vf acc[NK_HCONV_NP][NK_HCONV_MR];
    int32_t ky, kx, i, p;
    size_t c;
#pragma GCC unroll 8
    for (i = 0; i < NK_HCONV_MR; i++) {
        acc[0][i] = bias[0];
        if (np > 1) acc[np - 1][i] = bias[np - 1];
    }
    for (ky = 0; ky < g->k_h; ky++) {
        const int32_t iy = oy * g->stride_h - g->pad_top + ky * g->dil_h;
        const float *xrow;
        if (iy < 0 || iy >= g->in_h) continue; /* the whole tile reads padding */
        xrow = xb + (size_t)iy * row;
        for (kx = 0; kx < g->k_w; kx++) {
            const float *xp[NK_HCONV_MR];
            const float *wp = pw + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * C * NK_VL;
            if (inner) {
                const float *x0 =
                    xrow + (size_t)(ox0 * g->stride_w - g->pad_left + kx * g->dil_w) * C;
                for (c = 0; c < C; c++) {
                    const nk_vf w0 = nk_vload(wp + c * NK_VL);
                    const nk_vf w1 = np > 1 ? nk_vload(wp + panel_stride + c * NK_VL) : w0;
#pragma GCC unroll 8
                    for (i = 0; i < NK_HCONV_MR; i++) {
                        const nk_vf xv = nk_vdup(x0[(size_t)i * sx + c]);
                        acc[0][i] = nk_vfma(xv, w0, acc[0][i]);
                        if (np > 1) acc[np - 1][i] = nk_vfma(xv, w1, acc[np - 1][i]);
                    }
                }
                continue;
            }
#pragma GCC unroll 8
            for (i = 0; i < NK_HCONV_MR; i++) {
                const int32_t ix = (ox0 + i) * g->stride_w - g->pad_left + kx * g->dil_w;
                xp[i] = i < m && ix >= 0 && ix < g->in_w ? xrow + (size_t)ix * C : zero;
            }
            for (c = 0; c < C; c++) {
                const nk_vf w0 = nk_vload(wp + c * NK_VL);
                const nk_vf w1 = np > 1 ? nk_vload(wp + panel_stride + c * NK_VL) : w0;
#pragma GCC unroll 8
                for (i = 0; i < NK_HCONV_MR; i++) {
                    const nk_vf xv = nk_vdup(xp[i][c]);
                    acc[0][i] = nk_vfma(xv, w0, acc[0][i]);
                    if (np > 1) acc[np - 1][i] = nk_vfma(xv, w1, acc[np - 1][i]);
                }
            }
        }
    }
    for (i = 0; i < m; i++)
        for (p = 0; p < np; p++)
            nk_hconv_store(y + (size_t)i * O + (size_t)p * NK_VL, acc[p][i],
                           p == np - 1 ? n : NK_VL, lo, hi);
}

/* Points xr[ky] at padded row ky of output row oy (NULL where it is
 * padding), copying input rows into the k_h slots of `rows` (prow floats
 * each, pads already zero). Undilated, consecutive output rows share input
 * rows, so row iy lives in slot iy % k_h and is copied once per image
 * (held[slot] says which row a slot holds; -1 for none). With `rows` NULL
 * (no column padding and no tile reads past the row) xr[ky] points into the
 * input itself. */
static void nk_hconv_rows(const float *xb, const nk_ref_conv_geom *g, int32_t oy,
                          float *NK_RESTRICT rows, size_t prow, size_t left, int32_t *held,
                          const float **xr) {
    const size_t in_row = (size_t)g->in_w * (size_t)g->in_c;
    int32_t ky;
    for (ky = 0; ky < g->k_h; ky++) {
        const int32_t iy = oy * g->stride_h - g->pad_top + ky * g->dil_h;
        const int32_t slot = g->dil_h == 1 ? iy % g->k_h : ky;
        float *r;
        if (iy < 0 || iy >= g->in_h) {
            xr[ky] = NULL;
            continue;
        }
        if (rows == NULL) {
            xr[ky] = xb + (size_t)iy * in_row;
            continue;
        }
        r = rows + (size_t)slot * prow;
        if (held[slot] != iy || g->dil_h != 1) {
            memcpy(r + left, xb + (size_t)iy * in_row, in_row * sizeof(float));
            held[slot] = iy;
        }
        xr[ky] = r;
    }
}

#if defined(NK_HOST_ISA_AVX512)
/* The padded-rows tile of a half-full second panel (nk_hconv_pairs): mr
 * (even) pixels against the first panel, as nk_hconv_ptile, and mr/2
 * vectors for the second, each holding its n (<= 8) channels for pixel 2i
 * in lanes 0-7 and pixel 2i+1 in lanes 8-15. The pack repeats those
 * weights in the upper half (nk_host_conv2d_pack); the input vector is the
 * two pixels' broadcasts blended, and the upper half stores 8 floats
 * earlier under a lane mask, so it lands on pixel 2i+1's channels. */
static inline __attribute__((always_inline)) void
nk_hconv_ptile_pairs(const float *const *xr, int32_t k_h, size_t jn, size_t sx,
                     const float *NK_RESTRICT pw, size_t panel_stride, const nk_vf *bias,
                     const int mr, float *NK_RESTRICT y, size_t O, size_t n, int32_t m,
                     nk_vf lo, nk_vf hi) {
    const __mmask16 lo_lanes = (__mmask16)((1u << n) - 1u);
    const __mmask16 hi_lanes = (__mmask16)(lo_lanes << (NK_VL / 2));
    nk_vf acc[2 * NK_HCONV_MR + NK_HCONV_MR];
    const nk_vf b1 = _mm512_shuffle_f32x4(bias[1], bias[1], 0x44); /* lanes 0-7 twice */
    int32_t ky, i;
    size_t j;
#pragma GCC unroll 16
    for (i = 0; i < mr; i++) acc[i] = bias[0];
#pragma GCC unroll 8
    for (i = 0; i < mr / 2; i++) acc[mr + i] = b1;
    for (ky = 0; ky < k_h; ky++) {
        const float *x0 = xr[ky];
        const float *wp = pw + (size_t)ky * jn * NK_VL;
        if (x0 == NULL) continue;
        for (j = 0; j < jn; j++) {
            const nk_vf w0 = nk_vload(wp + j * NK_VL);
            const nk_vf w1 = nk_vload(wp + panel_stride + j * NK_VL);
#pragma GCC unroll 8
            for (i = 0; i < mr / 2; i++) {
                const nk_vf xa = nk_vdup(x0[(size_t)(2 * i) * sx + j]);
                const nk_vf xb = nk_vdup(x0[(size_t)(2 * i + 1) * sx + j]);
                acc[2 * i] = nk_vfma(xa, w0, acc[2 * i]);
                acc[2 * i + 1] = nk_vfma(xb, w0, acc[2 * i + 1]);
                acc[mr + i] = nk_vfma(_mm512_mask_blend_ps(0xff00, xa, xb), w1, acc[mr + i]);
            }
        }
    }
#pragma GCC unroll 16
    for (i = 0; i < mr; i++) {
        if (i >= m) break;
        nk_hconv_store(y + (size_t)i * O, acc[i], NK_VL, lo, hi);
    }
#pragma GCC unroll 8
    for (i = 0; i < mr / 2; i++) {
        const nk_vf v = nk_vclamp(acc[mr + i], lo, hi);
        float *yp = y + (size_t)(2 * i) * O + NK_VL;
        if (2 * i >= m) break;
        _mm512_mask_storeu_ps(yp, lo_lanes, v);
        if (2 * i + 1 < m) _mm512_mask_storeu_ps(yp + O - NK_VL / 2, hi_lanes, v);
    }
}
#endif

/* The padded-rows tile: mr pixels (m of them stored) against np panels;
 * np * mr <= NK_HCONV_NP * NK_HCONV_MR accumulators, all in registers as
 * np and mr are constants where it is inlined. xr[ky] is pixel ox0's
 * window start in padded row ky, NULL where the row is padding; with
 * undilated columns a window row is jn = k_w*in_c contiguous floats, in the
 * packed weights' (kx, c) order, so one flat loop covers it (the stem's
 * in_c = 1 included). */
static inline __attribute__((always_inline)) void
nk_hconv_ptile(const float *const *xr, int32_t k_h, size_t jn, size_t sx,
               const float *NK_RESTRICT pw, size_t panel_stride, const nk_vf *bias, const int np,
               const int mr, float *NK_RESTRICT y, size_t O, size_t n, int32_t m, nk_vf lo,
               nk_vf hi) {
    nk_vf acc[NK_HCONV_NP * NK_HCONV_MR];
    int32_t ky, i, p;
    size_t j;
#pragma GCC unroll 16
    for (i = 0; i < mr; i++) {
        acc[i] = bias[0];
        if (np > 1) acc[mr + i] = bias[1];
    }
    for (ky = 0; ky < k_h; ky++) {
        const float *x0 = xr[ky];
        const float *wp = pw + (size_t)ky * jn * NK_VL;
        if (x0 == NULL) continue;
        for (j = 0; j < jn; j++) {
            const nk_vf w0 = nk_vload(wp + j * NK_VL);
            const nk_vf w1 = np > 1 ? nk_vload(wp + panel_stride + j * NK_VL) : w0;
#pragma GCC unroll 16
            for (i = 0; i < mr; i++) {
                const nk_vf xv = nk_vdup(x0[(size_t)i * sx + j]);
                acc[i] = nk_vfma(xv, w0, acc[i]);
                if (np > 1) acc[mr + i] = nk_vfma(xv, w1, acc[mr + i]);
            }
        }
    }
    /* unrolled with a bound check, so acc[] is indexed by constants and
     * stays in registers */
#pragma GCC unroll 16
    for (i = 0; i < mr; i++) {
        if (i >= m) break;
        for (p = 0; p < np; p++)
            nk_hconv_store(y + (size_t)i * O + (size_t)p * NK_VL, acc[p * mr + i],
                           p == np - 1 ? n : NK_VL, lo, hi);
    }
}

/* The padded-rows tile of a one-channel conv with 3 undilated columns at
 * stride 1 (the stems of image models): the generic tile broadcasts an
 * input value per FMA, which caps it near half the FMA rate; here each of
 * the mr + 2 input values of a padded row is broadcast once and feeds the
 * up to three pixels whose window holds it (one FMA per column tap), with
 * the row's three weight vectors in registers. Panel by panel. */
static inline __attribute__((always_inline)) void
nk_hconv_c1k3_tile(const float *const *xr, int32_t k_h, const float *NK_RESTRICT pw, nk_vf bias,
                   const int mr, float *NK_RESTRICT y, size_t O, size_t n, int32_t m, nk_vf lo,
                   nk_vf hi) {
    nk_vf acc[2 * NK_HCONV_MR];
    int32_t ky, i, t;
#pragma GCC unroll 16
    for (i = 0; i < mr; i++) acc[i] = bias;
    for (ky = 0; ky < k_h; ky++) {
        const float *x0 = xr[ky];
        const float *wp = pw + (size_t)ky * 3 * NK_VL;
        nk_vf w0, w1, w2;
        if (x0 == NULL) continue;
        w0 = nk_vload(wp);
        w1 = nk_vload(wp + NK_VL);
        w2 = nk_vload(wp + 2 * NK_VL);
#pragma GCC unroll 18
        for (t = 0; t < mr + 2; t++) {
            const nk_vf xv = nk_vdup(x0[t]);
            if (t < mr) acc[t] = nk_vfma(xv, w0, acc[t]);
            if (t >= 1 && t - 1 < mr) acc[t - 1] = nk_vfma(xv, w1, acc[t - 1]);
            if (t >= 2) acc[t - 2] = nk_vfma(xv, w2, acc[t - 2]);
        }
    }
#pragma GCC unroll 16
    for (i = 0; i < mr; i++) {
        if (i >= m) break;
        nk_hconv_store(y + (size_t)i * O, acc[i], n, lo, hi);
    }
}

/* conv2d over padded copies of the k_h input rows an output row reads
 * (workspace: k_h rows of `prow` floats), so every tile, border ones too,
 * runs the same straight loop. */
static void nk_hconv_padded(const float *x, const float *NK_RESTRICT packed,
                            const float *NK_RESTRICT bias, float *y,
                            const nk_ref_conv_geom *g, float *NK_RESTRICT workspace,
                            size_t prow) {
    const size_t O = (size_t)g->out_c, panels = (O + NK_VL - 1) / NK_VL;
    const size_t C = (size_t)g->in_c, jn = (size_t)g->k_w * C;
    const size_t stride = (size_t)g->k_h * jn * NK_VL; /* floats per panel */
    const size_t sx = (size_t)g->stride_w * C, left = (size_t)g->pad_left * C;
    const size_t in_row = (size_t)g->in_w * C;
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
    const int mr = nk_hconv_pick_mr(g);
#if defined(NK_HOST_ISA_AVX512)
    const int pairs = nk_hconv_pairs(g);
#endif
    /* no column padding and every tile's reach inside the row (1x1 convs,
     * "valid" windows): the tiles read the input in place, which the
     * overlap rule allows as a tile reads all its pixels before it stores */
    const size_t tiles = ((size_t)g->out_w + (size_t)mr - 1) / (size_t)mr;
    const int in_place = g->pad_left == 0 &&
                         (tiles * (size_t)mr - 1) * (size_t)g->stride_w + (size_t)g->k_w <=
                             (size_t)g->in_w;
    /* one input channel, three undilated columns at stride 1 */
    const int c1k3 = C == 1 && g->k_w == 3 && g->dil_w == 1 && g->stride_w == 1;
    const float *xr[NK_HCONV_KH_MAX];
    int32_t held[NK_HCONV_KH_MAX];
    int32_t b, oy, ox, ky;
    size_t p;
    /* the pads stay zero; the middle is rewritten per output row */
    for (ky = 0; ky < g->k_h && !in_place; ky++) {
        float *r = workspace + (size_t)ky * prow;
        memset(r, 0, left * sizeof(float));
        memset(r + left + in_row, 0, (prow - left - in_row) * sizeof(float));
    }
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * in_row;
        float *yb = y + (size_t)b * (size_t)g->out_h * (size_t)g->out_w * O;
        for (ky = 0; ky < g->k_h; ky++) held[ky] = -1;
        for (oy = 0; oy < g->out_h; oy++) {
            nk_hconv_rows(xb, g, oy, in_place ? NULL : workspace, prow, left, held, xr);
            for (ox = 0; ox < g->out_w; ox += mr) {
                const int32_t m = g->out_w - ox < mr ? g->out_w - ox : mr;
                const float *xt[NK_HCONV_KH_MAX];
                float *yt = yb + ((size_t)oy * (size_t)g->out_w + (size_t)ox) * O;
                for (ky = 0; ky < g->k_h; ky++)
                    xt[ky] = xr[ky] != NULL ? xr[ky] + (size_t)ox * sx : NULL;
                if (c1k3) {
                    for (p = 0; p < panels; p++) {
                        const size_t o = p * NK_VL, n = O - o < NK_VL ? O - o : NK_VL;
                        const float *pp = packed + p * stride;
                        const nk_vf bv = bias == NULL ? nk_vdup(0.0f)
                                         : n == NK_VL ? nk_vload(bias + o)
                                                      : nk_vload_n(bias + o, n);
                        /* constant mr: the accumulators stay in registers */
#define NK_HCONV_C1K3(MR_) nk_hconv_c1k3_tile(xt, g->k_h, pp, bv, MR_, yt + o, O, n, m, lo, hi)
                        if (mr == NK_HCONV_MR)
                            NK_HCONV_C1K3(NK_HCONV_MR);
                        else if (mr == NK_HCONV_MR - 1)
                            NK_HCONV_C1K3(NK_HCONV_MR - 1);
#if NK_HCONV_NP > 1
                        else if (mr == 2 * NK_HCONV_MR)
                            NK_HCONV_C1K3(2 * NK_HCONV_MR);
                        else
                            NK_HCONV_C1K3(2 * NK_HCONV_MR - 2);
#endif
#undef NK_HCONV_C1K3
                    }
                    continue;
                }
                for (p = 0; p < panels; p += NK_HCONV_NP) {
                    const size_t o = p * NK_VL;
                    const int np = panels - p < NK_HCONV_NP ? (int)(panels - p) : NK_HCONV_NP;
                    const size_t last = o + (size_t)(np - 1) * NK_VL;
                    const size_t n = O - last < NK_VL ? O - last : NK_VL;
                    const float *pp = packed + p * stride;
                    nk_vf bv[NK_HCONV_NP];
                    int q;
                    /* every entry set, so gcc sees bv initialized */
                    for (q = 0; q < NK_HCONV_NP; q++) {
                        const size_t oq = o + (size_t)q * NK_VL, nq = q == np - 1 ? n : NK_VL;
                        bv[q] = bias == NULL || q >= np ? nk_vdup(0.0f)
                                : nq == NK_VL ? nk_vload(bias + oq) : nk_vload_n(bias + oq, nq);
                    }
#if defined(NK_HOST_ISA_AVX512)
                    if (pairs && mr == 2 * NK_HCONV_MR) {
                        nk_hconv_ptile_pairs(xt, g->k_h, jn, sx, pp, stride, bv, 2 * NK_HCONV_MR,
                                             yt + o, O, n, m, lo, hi);
                        continue;
                    }
                    if (pairs) {
                        nk_hconv_ptile_pairs(xt, g->k_h, jn, sx, pp, stride, bv,
                                             2 * NK_HCONV_MR - 2, yt + o, O, n, m, lo, hi);
                        continue;
                    }
#endif
                    /* constant np and mr: specialized copies */
#define NK_HCONV_PT(NP_, MR_)                                                                \
    nk_hconv_ptile(xt, g->k_h, jn, sx, pp, stride, bv, NP_, MR_, yt + o, O, n, m, lo, hi)
                    if (np == NK_HCONV_NP && mr == NK_HCONV_MR)
                        NK_HCONV_PT(NK_HCONV_NP, NK_HCONV_MR);
                    else if (np == NK_HCONV_NP)
                        NK_HCONV_PT(NK_HCONV_NP, NK_HCONV_MR - 1);
#if NK_HCONV_NP > 1
                    /* one-channel stems: the pixel stride a constant too, so
                     * the 16 pixels' offsets are displacements */
                    else if (mr == 2 * NK_HCONV_MR && sx == 1)
                        nk_hconv_ptile(xt, g->k_h, jn, 1, pp, stride, bv, 1, 2 * NK_HCONV_MR,
                                       yt + o, O, n, m, lo, hi);
                    else if (mr == 2 * NK_HCONV_MR - 2 && sx == 1)
                        nk_hconv_ptile(xt, g->k_h, jn, 1, pp, stride, bv, 1, 2 * NK_HCONV_MR - 2,
                                       yt + o, O, n, m, lo, hi);
                    else if (mr == 2 * NK_HCONV_MR - 2 && sx == 2)
                        nk_hconv_ptile(xt, g->k_h, jn, 2, pp, stride, bv, 1, 2 * NK_HCONV_MR - 2,
                                       yt + o, O, n, m, lo, hi);
                    else if (mr == 2 * NK_HCONV_MR)
                        NK_HCONV_PT(1, 2 * NK_HCONV_MR);
                    else if (mr == 2 * NK_HCONV_MR - 2)
                        NK_HCONV_PT(1, 2 * NK_HCONV_MR - 2);
                    else if (mr == NK_HCONV_MR)
                        NK_HCONV_PT(1, NK_HCONV_MR);
                    else
                        NK_HCONV_PT(1, NK_HCONV_MR - 1);
#endif
#undef NK_HCONV_PT
                }
            }
        }
    }
}

static void nk_hconv_wino(const float *x, const float *NK_RESTRICT packed,
                          const float *NK_RESTRICT bias, float *y, const nk_ref_conv_geom *g,
                          float *NK_RESTRICT workspace, size_t group) {
    const size_t C = (size_t)g->in_c, O = (size_t)g->out_c;
    const size_t panels = (O + NK_VL - 1) / NK_VL, pw = panels * NK_VL;
    const size_t tw = ((size_t)g->out_w + 1) / 2, th = ((size_t)g->out_h + 1) / 2;
    const size_t prow = nk_hconv_wino_row(g), in_row = (size_t)g->in_w * C;
    const size_t left = (size_t)g->pad_left * C, ustride = panels * C * NK_VL;
    const size_t vstride = group * tw * C, mstride = group * tw * pw; /* floats per position */
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
    float *rows = workspace, *zero = workspace + 4 * prow;
    float *V = workspace + 5 * prow, *M = V + 16 * vstride;
    int32_t b;
    size_t ty0, ty, tx, c, o, r;
    int i, j;
    for (r = 0; r < 4; r++) { /* the pads stay zero; the middle is rewritten per copy */
        memset(rows + r * prow, 0, left * sizeof(float));
        memset(rows + r * prow + left + in_row, 0, (prow - left - in_row) * sizeof(float));
    }
    memset(zero, 0, prow * sizeof(float));
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * in_row;
        float *yb = y + (size_t)b * (size_t)g->out_h * (size_t)g->out_w * O;
        for (ty0 = 0; ty0 < th; ty0 += group) {
            const size_t gn = th - ty0 < group ? th - ty0 : group, tiles = gn * tw;
            int pos;
            /* input transform: V = B^T d B for each tile's 4x4 patch */
            for (ty = 0; ty < gn; ty++) {
                const float *xr[4];
                for (r = 0; r < 4; r++) {
                    const int32_t iy = (int32_t)(2 * (ty0 + ty) + r) - g->pad_top;
                    if (iy < 0 || iy >= g->in_h) {
                        xr[r] = zero;
                        continue;
                    }
                    memcpy(rows + r * prow + left, xb + (size_t)iy * in_row, in_row * sizeof(float));
                    xr[r] = rows + r * prow;
                }
                for (tx = 0; tx < tw; tx++) {
                    float *vt = V + (ty * tw + tx) * C;
                    for (c = 0; c < C; c += NK_VL) {
                        const size_t n = C - c < NK_VL ? C - c : NK_VL;
                        nk_vf d[4][4], t[4][4];
                        for (i = 0; i < 4; i++)
                            for (j = 0; j < 4; j++)
                                {
                                const float *dp = xr[i] + (2 * tx + (size_t)j) * C + c;
                                d[i][j] = n == NK_VL ? nk_vload(dp) : nk_vload_n(dp, n);
                            }
                        for (i = 0; i < 4; i++) {
                            t[i][0] = d[i][0] - d[i][2];
                            t[i][1] = d[i][1] + d[i][2];
                            t[i][2] = d[i][2] - d[i][1];
                            t[i][3] = d[i][1] - d[i][3];
                        }
                        for (j = 0; j < 4; j++) {
                            d[0][j] = t[0][j] - t[2][j];
                            d[1][j] = t[1][j] + t[2][j];
                            d[2][j] = t[2][j] - t[1][j];
                            d[3][j] = t[1][j] - t[3][j];
                        }
                        for (i = 0; i < 4; i++)
                            for (j = 0; j < 4; j++) {
                                float *vp = vt + (size_t)(i * 4 + j) * vstride + c;
                                if (n == NK_VL)
                                    nk_vstore(vp, d[i][j]);
                                else
                                    nk_vstore_n(vp, d[i][j], n);
                            }
                    }
                }
            }
            /* M[pos] = V[pos] U[pos]: the dense GEMM, tiles as rows */
            for (pos = 0; pos < 16; pos++)
                NK_HOST_FN(nk_host_dense_f32)(V + (size_t)pos * vstride,
                                              packed + (size_t)pos * ustride, NULL,
                                              M + (size_t)pos * mstride, tiles, (int32_t)C,
                                              (int32_t)pw, -INFINITY, INFINITY);
            /* output transform: A^T m A, plus bias, clamped, where the output is */
            for (ty = 0; ty < gn; ty++) {
                const size_t oy = 2 * (ty0 + ty);
                for (tx = 0; tx < tw; tx++) {
                    const size_t ox = 2 * tx;
                    const float *mt = M + (ty * tw + tx) * pw;
                    float *yt = yb + (oy * (size_t)g->out_w + ox) * O;
                    const int two_y = oy + 1 < (size_t)g->out_h, two_x = ox + 1 < (size_t)g->out_w;
                    for (o = 0; o < O; o += NK_VL) {
                        const size_t n = O - o < NK_VL ? O - o : NK_VL;
                        const nk_vf bv = bias == NULL ? nk_vdup(0.0f)
                                         : n == NK_VL ? nk_vload(bias + o) : nk_vload_n(bias + o, n);
                        nk_vf m[4][4], t[2][4];
                        for (i = 0; i < 4; i++)
                            for (j = 0; j < 4; j++)
                                m[i][j] = nk_vload(mt + (size_t)(i * 4 + j) * mstride + o);
                        for (j = 0; j < 4; j++) {
                            t[0][j] = m[0][j] + m[1][j] + m[2][j];
                            t[1][j] = m[1][j] - m[2][j] - m[3][j];
                        }
                        for (i = 0; i < 2; i++) {
                            const nk_vf y0 = t[i][0] + t[i][1] + t[i][2] + bv;
                            const nk_vf y1 = t[i][1] - t[i][2] - t[i][3] + bv;
                            float *yp = yt + (size_t)i * (size_t)g->out_w * O + o;
                            if (i == 1 && !two_y) break;
                            nk_hconv_store(yp, y0, n, lo, hi);
                            if (two_x) nk_hconv_store(yp + O, y1, n, lo, hi);
                        }
                    }
                }
            }
        }
    }
}

void NK_HOST_FN(nk_host_conv2d_f32)(const float *x, const float *NK_RESTRICT packed,
                                    const float *NK_RESTRICT bias, float *y,
                                    const nk_ref_conv_geom *g, float *NK_RESTRICT workspace) {
    const size_t O = (size_t)g->out_c, panels = (O + NK_VL - 1) / NK_VL;
    const size_t taps = (size_t)g->k_h * (size_t)g->k_w * (size_t)g->in_c;
    const size_t stride = taps * NK_VL; /* floats per panel */
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
    /* output columns [ox_lo, ox_hi) have every tap inside the input columns */
    const int32_t span = (g->k_w - 1) * g->dil_w;
    const int32_t ox_lo = (g->pad_left + g->stride_w - 1) / g->stride_w;
    const int32_t ox_hi = g->in_w - 1 - span + g->pad_left < 0
                              ? 0
                              : (g->in_w - 1 - span + g->pad_left) / g->stride_w + 1;
    const size_t prow = nk_hconv_padded_row(g), group = nk_hconv_wino_group(g);
    int32_t b, oy, ox;
    size_t p;
    if (group != 0) {
        nk_hconv_wino(x, packed, bias, y, g, workspace, group);
        return;
    }
    if (prow != 0) {
        nk_hconv_padded(x, packed, bias, y, g, workspace, prow);
        return;
    }
    /* the workspace is shared by the ops: zero the row each time */
    memset(workspace, 0, (size_t)g->in_c * sizeof(float));
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
        float *yb = y + (size_t)b * (size_t)g->out_h * (size_t)g->out_w * O;
        for (oy = 0; oy < g->out_h; oy++) {
            for (ox = 0; ox < g->out_w; ox += NK_HCONV_MR) {
                const int32_t m = g->out_w - ox < NK_HCONV_MR ? g->out_w - ox : NK_HCONV_MR;
                const int inner = m == NK_HCONV_MR && ox >= ox_lo && ox + NK_HCONV_MR <= ox_hi;
                float *yt = yb + ((size_t)oy * (size_t)g->out_w + (size_t)ox) * O;
                for (p = 0; p < panels; p += NK_HCONV_NP) {
                    const size_t o = p * NK_VL;
                    const int np = panels - p < NK_HCONV_NP ? (int)(panels - p) : NK_HCONV_NP;
                    const size_t last = o + (size_t)(np - 1) * NK_VL;
                    const size_t n = O - last < NK_VL ? O - last : NK_VL;
                    nk_vf bv[NK_HCONV_NP];
                    int q;
                    for (q = 0; q < np; q++) {
                        const size_t oq = o + (size_t)q * NK_VL, nq = q == np - 1 ? n : NK_VL;
                        bv[q] = bias == NULL ? nk_vdup(0.0f)
                                : nq == NK_VL ? nk_vload(bias + oq) : nk_vload_n(bias + oq, nq);
                    }
                    /* constant np and inner: four specialized copies */
                    if (np == NK_HCONV_NP && inner)
                        nk_hconv_tile(xb, packed + p * stride, stride, workspace, g, oy, ox, m, bv,
                                      NK_HCONV_NP, 1, yt + o, O, n, lo, hi);
                    else if (np == NK_HCONV_NP)
                        nk_hconv_tile(xb, packed + p * stride, stride, workspace, g, oy, ox, m, bv,
                                      NK_HCONV_NP, 0, yt + o, O, n, lo, hi);
                    else if (inner)
                        nk_hconv_tile(xb, packed + p * stride, stride, workspace, g, oy, ox, m, bv,
                                      1, 1, yt + o, O, n, lo, hi);
                    else
                        nk_hconv_tile(xb, packed + p * stride, stride, workspace, g, oy, ox, m, bv,
                                      1, 0, yt + o, O, n, lo, hi);
                }
            }
        }
    }
}

/* Taps [*lo, *hi) of k taps spaced d apart from input index `start` that
 * land inside [0, n). */
static inline void nk_hconv_taps(int32_t start, int32_t k, int32_t d, int32_t n, int32_t *lo,
                                 int32_t *hi) {
    int32_t a = start < 0 ? (-start + d - 1) / d : 0;
    int32_t b = n - start <= 0 ? 0 : (n - start + d - 1) / d;
    *lo = a;
    *hi = b < k ? b : k;
    if (*hi < *lo) *hi = *lo;
}

/* Loads n lanes: a full vector when n is NK_VL (a constant where inlined). */
static inline __attribute__((always_inline)) nk_vf nk_hconv_ld(const float *p, size_t n) {
    return n == NK_VL ? nk_vload(p) : nk_vload_n(p, n);
}

/* One channel vector (n lanes from channel c) of `m` (1 or 4) output pixels
 * ox.. of a row, over taps ky_lo..ky_hi x kx_lo..kx_hi (inside the input
 * for every one of the m pixels): m independent FMA chains in registers. */
static inline __attribute__((always_inline)) void
nk_hconv_dw_px(const float *NK_RESTRICT xb, const float *NK_RESTRICT w, nk_vf bias,
               float *NK_RESTRICT yp, const nk_ref_conv_geom *g, int32_t iy0, int32_t ix0,
               int32_t ky_lo, int32_t ky_hi, int32_t kx_lo, int32_t kx_hi, size_t c, size_t n,
               const int m, nk_vf lo, nk_vf hi) {
    const size_t C = (size_t)g->in_c, row = (size_t)g->in_w * C;
    const size_t sx = (size_t)g->stride_w * C;
    nk_vf a0 = bias, a1 = bias, a2 = bias, a3 = bias;
    int32_t ky, kx;
    for (ky = ky_lo; ky < ky_hi; ky++) {
        const float *xr = xb + (size_t)(iy0 + ky * g->dil_h) * row + c;
        const float *wr = w + (size_t)ky * (size_t)g->k_w * C + c;
        for (kx = kx_lo; kx < kx_hi; kx++) {
            const float *xp = xr + (size_t)(ix0 + kx * g->dil_w) * C;
            const nk_vf wv = nk_hconv_ld(wr + (size_t)kx * C, n);
            a0 = nk_vfma(nk_hconv_ld(xp, n), wv, a0);
            if (m > 1) {
                a1 = nk_vfma(nk_hconv_ld(xp + sx, n), wv, a1);
                a2 = nk_vfma(nk_hconv_ld(xp + 2 * sx, n), wv, a2);
                a3 = nk_vfma(nk_hconv_ld(xp + 3 * sx, n), wv, a3);
            }
        }
    }
    nk_hconv_store(yp, a0, n, lo, hi);
    if (m > 1) {
        nk_hconv_store(yp + C, a1, n, lo, hi);
        nk_hconv_store(yp + 2 * C, a2, n, lo, hi);
        nk_hconv_store(yp + 3 * C, a3, n, lo, hi);
    }
}

/* Depthwise, multiplier 1: vectors over channels (the last one masked when
 * C is not a multiple of NK_VL), four pixels at a time where their taps are
 * all inside the input columns, one at a time at the borders, taps in the
 * padding skipped. Other multipliers run the portable kernel. */
int NK_HOST_FN(nk_host_depthwise_conv2d_f32)(const float *x,
                                             const float *NK_RESTRICT w,
                                             const float *NK_RESTRICT bias, float *y,
                                             const nk_ref_conv_geom *g) {
    const size_t C = (size_t)g->in_c, row = (size_t)g->in_w * C;
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
    /* output columns [ox_lo, ox_hi) have every tap inside the input columns */
    const int32_t span = (g->k_w - 1) * g->dil_w;
    const int32_t ox_lo = (g->pad_left + g->stride_w - 1) / g->stride_w;
    const int32_t ox_hi = g->in_w - 1 - span + g->pad_left < 0
                              ? 0
                              : (g->in_w - 1 - span + g->pad_left) / g->stride_w + 1;
    int32_t b, oy, ox;
    size_t c;
    if (g->multiplier != 1) return 0;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            float *yr = y + ((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w * C;
            int32_t ky_lo, ky_hi;
            nk_hconv_taps(iy0, g->k_h, g->dil_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w;) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                const int four = ox >= ox_lo && ox + 4 <= ox_hi;
                int32_t kx_lo = 0, kx_hi = g->k_w;
                if (!four) nk_hconv_taps(ix0, g->k_w, g->dil_w, g->in_w, &kx_lo, &kx_hi);
                for (c = 0; c < C; c += NK_VL) {
                    const size_t n = C - c < NK_VL ? C - c : NK_VL;
                    const nk_vf bv = bias == NULL ? nk_vdup(0.0f) : nk_hconv_ld(bias + c, n);
                    float *yp = yr + (size_t)ox * C + c;
                    /* constant m and full-vector n: specialized copies */
                    if (four && n == NK_VL)
                        nk_hconv_dw_px(xb, w, bv, yp, g, iy0, ix0, ky_lo, ky_hi, kx_lo, kx_hi, c,
                                       NK_VL, 4, lo, hi);
                    else if (four)
                        nk_hconv_dw_px(xb, w, bv, yp, g, iy0, ix0, ky_lo, ky_hi, kx_lo, kx_hi, c,
                                       n, 4, lo, hi);
                    else if (n == NK_VL)
                        nk_hconv_dw_px(xb, w, bv, yp, g, iy0, ix0, ky_lo, ky_hi, kx_lo, kx_hi, c,
                                       NK_VL, 1, lo, hi);
                    else
                        nk_hconv_dw_px(xb, w, bv, yp, g, iy0, ix0, ky_lo, ky_hi, kx_lo, kx_hi, c,
                                       n, 1, lo, hi);
                }
                ox += four ? 4 : 1;
            }
        }
    }
    return 1;
}

/* ---- depthwise over flat rows (few channels) ----
 * With multiplier 1 and stride_w 1, output row element f = ox*C + c reads
 * padded input row element f + kx*dil_w*C: vectors can run over the flat
 * row, every lane busy, where vectors over channels leave the last one
 * partly idle (24 channels on AVX-512: 8 of 32 lanes idle). The weight a
 * lane needs repeats every C floats, so each tap's weights are
 * packed at load as L = lcm(C, NK_VL) floats (L / NK_VL vectors, one per
 * phase): packed[t][i] = w[t][i % C]. The workspace holds the periodic bias
 * (L floats) and k_h padded input rows. */
#define NK_HCONV_DW_U 6 /* output vectors per step: six FMA chains hide the FMA latency */

/* L = lcm(C, NK_VL) floats (at most NK_VL vectors), or 0 when the flat
 * path does not apply */
static size_t nk_hconv_dw_period(const nk_ref_conv_geom *g) {
    size_t a = (size_t)g->in_c, b = NK_VL;
    if (g->multiplier != 1 || g->stride_w != 1 || g->k_h > NK_HCONV_KH_MAX || g->in_c % NK_VL == 0)
        return 0;
    while (b != 0) { /* gcd */
        const size_t r = a % b;
        a = b;
        b = r;
    }
    return (size_t)g->in_c / a * NK_VL;
}

/* floats of one padded row: pad_left zeros, the input row, zeros to the
 * last element any tap reads, and slack for the last step's vectors */
static size_t nk_hconv_dw_row(const nk_ref_conv_geom *g) {
    const size_t reach = (size_t)g->out_w + (size_t)(g->k_w - 1) * (size_t)g->dil_w;
    const size_t used = (size_t)g->pad_left + (size_t)g->in_w;
    return (reach > used ? reach : used) * (size_t)g->in_c + NK_HCONV_DW_U * NK_VL;
}

size_t NK_HOST_FN(nk_host_depthwise_pack_size)(const nk_ref_conv_geom *g) {
    const size_t l = nk_hconv_dw_period(g);
    if (l == 0 ||
        nk_hconv_dw_row(g) * (size_t)g->k_h * sizeof(float) > NK_HCONV_PAD_BUDGET)
        return 0;
    return (size_t)g->k_h * (size_t)g->k_w * l * sizeof(float);
}

void NK_HOST_FN(nk_host_depthwise_pack)(const float *NK_RESTRICT w, const nk_ref_conv_geom *g,
                                        float *NK_RESTRICT packed) {
    const size_t l = nk_hconv_dw_period(g), C = (size_t)g->in_c;
    const size_t taps = (size_t)g->k_h * (size_t)g->k_w;
    size_t t, i;
    for (t = 0; t < taps; t++)
        for (i = 0; i < l; i++) packed[t * l + i] = w[t * C + i % C];
}

size_t NK_HOST_FN(nk_host_depthwise_workspace)(const nk_ref_conv_geom *g) {
    return (nk_hconv_dw_period(g) + nk_hconv_dw_row(g) * (size_t)g->k_h) * sizeof(float);
}

#if NK_HCONV_NP > 1
/* One output row of a 3x3 flat-row depthwise with a period of P (<= 3)
 * vectors, on an ISA with 32 vector registers: the 9 P weight vectors are
 * loaded once into registers and each step computes one period (P output
 * vectors, a constant phase each), so every FMA loads only its input vector
 * (the generic loop loads a weight too: two loads per FMA, most of them
 * split across cache lines). Consecutive steps are independent, so the out
 * of order core overlaps their FMA chains. */
static inline __attribute__((always_inline)) void
nk_hconv_dw3_row(const float *const *xr, const float *NK_RESTRICT packed,
                 const float *NK_RESTRICT pbias, float *NK_RESTRICT yr, size_t out_row,
                 size_t dx, const int P, nk_vf lo, nk_vf hi) {
    const size_t l = (size_t)P * NK_VL;
    nk_vf w[3][3][3];
    size_t f;
    int ky, kx, p;
#pragma GCC unroll 3
    for (ky = 0; ky < 3; ky++)
#pragma GCC unroll 3
        for (kx = 0; kx < 3; kx++)
#pragma GCC unroll 3
            for (p = 0; p < P; p++)
                w[ky][kx][p] = nk_vload(packed + (size_t)(ky * 3 + kx) * l + (size_t)p * NK_VL);
    for (f = 0; f < out_row; f += l) {
        nk_vf acc[3];
#pragma GCC unroll 3
        for (p = 0; p < P; p++) acc[p] = nk_vload(pbias + (size_t)p * NK_VL);
#pragma GCC unroll 3
        for (ky = 0; ky < 3; ky++) {
            const float *xp = xr[ky] + f;
            if (xr[ky] == NULL) continue; /* a padding row */
#pragma GCC unroll 3
            for (kx = 0; kx < 3; kx++)
#pragma GCC unroll 3
                for (p = 0; p < P; p++)
                    acc[p] = nk_vfma(nk_vload(xp + (size_t)kx * dx + (size_t)p * NK_VL),
                                     w[ky][kx][p], acc[p]);
        }
#pragma GCC unroll 3
        for (p = 0; p < P; p++) {
            const size_t fp = f + (size_t)p * NK_VL;
            if (fp >= out_row) break;
            nk_hconv_store(yr + fp, acc[p], out_row - fp < NK_VL ? out_row - fp : NK_VL, lo, hi);
        }
    }
}
#endif

void NK_HOST_FN(nk_host_depthwise_packed_f32)(const float *x, const float *NK_RESTRICT packed,
                                              const float *NK_RESTRICT bias, float *y,
                                              const nk_ref_conv_geom *g,
                                              float *NK_RESTRICT workspace) {
    const size_t C = (size_t)g->in_c, l = nk_hconv_dw_period(g), prow = nk_hconv_dw_row(g);
    const size_t in_row = (size_t)g->in_w * C, left = (size_t)g->pad_left * C;
    const size_t out_row = (size_t)g->out_w * C, dx = (size_t)g->dil_w * C;
    const size_t tap_row = (size_t)g->k_w * l;
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
#if NK_HCONV_NP > 1
    /* 3x3 with a period of up to three vectors: nk_hconv_dw3_row */
    const int dw3 = g->k_h == 3 && g->k_w == 3 && l <= 3 * NK_VL ? (int)(l / NK_VL) : 0;
#endif
    float *pbias = workspace, *rows = workspace + l;
    const float *xr[NK_HCONV_KH_MAX];
    int32_t held[NK_HCONV_KH_MAX];
    int32_t b, oy, ky, kx;
    size_t i, f, c;
    for (i = 0, c = 0; i < l; i++, c = c + 1 == C ? 0 : c + 1)
        pbias[i] = bias != NULL ? bias[c] : 0.0f;
    for (ky = 0; ky < g->k_h; ky++) {
        float *r = rows + (size_t)ky * prow;
        memset(r, 0, left * sizeof(float));
        memset(r + left + in_row, 0, (prow - left - in_row) * sizeof(float));
    }
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * in_row;
        float *yb = y + (size_t)b * (size_t)g->out_h * out_row;
        for (ky = 0; ky < g->k_h; ky++) held[ky] = -1;
        for (oy = 0; oy < g->out_h; oy++) {
            float *yr = yb + (size_t)oy * out_row;
            size_t ph = 0; /* phase offset of f within the period: f % l */
            nk_hconv_rows(xb, g, oy, rows, prow, left, held, xr);
#if NK_HCONV_NP > 1
            if (dw3 != 0) {
                if (dw3 == 1)
                    nk_hconv_dw3_row(xr, packed, pbias, yr, out_row, dx, 1, lo, hi);
                else if (dw3 == 2)
                    nk_hconv_dw3_row(xr, packed, pbias, yr, out_row, dx, 2, lo, hi);
                else
                    nk_hconv_dw3_row(xr, packed, pbias, yr, out_row, dx, 3, lo, hi);
                continue;
            }
#endif
            /* NK_HCONV_DW_U vectors at a time: independent FMA chains */
            for (f = 0; f < out_row; f += NK_HCONV_DW_U * NK_VL) {
                size_t phs[NK_HCONV_DW_U];
                nk_vf acc[NK_HCONV_DW_U];
                int u;
                for (u = 0; u < NK_HCONV_DW_U; u++) {
                    phs[u] = ph;
                    acc[u] = nk_vload(pbias + ph);
                    ph += NK_VL;
                    if (ph == l) ph = 0;
                }
                for (ky = 0; ky < g->k_h; ky++) {
                    const float *wp = packed + (size_t)ky * tap_row;
                    if (xr[ky] == NULL) continue;
                    for (kx = 0; kx < g->k_w; kx++) {
                        const float *xp = xr[ky] + f + (size_t)kx * dx;
                        const float *wk = wp + (size_t)kx * l;
#pragma GCC unroll 6
                        for (u = 0; u < NK_HCONV_DW_U; u++)
                            acc[u] = nk_vfma(nk_vload(xp + (size_t)u * NK_VL),
                                             nk_vload(wk + phs[u]), acc[u]);
                    }
                }
                for (u = 0; u < NK_HCONV_DW_U && f + (size_t)u * NK_VL < out_row; u++) {
                    const size_t fu = f + (size_t)u * NK_VL;
                    nk_hconv_store(yr + fu, acc[u], out_row - fu < NK_VL ? out_row - fu : NK_VL,
                                   lo, hi);
                }
            }
        }
    }
}
