/* host_i8.c — int8 conv2d, dense, depthwise and add on x86-64 (AVX2,
 * AVX-512, AVX-512 VNNI), byte-identical to the portable kernels
 * (kernels/ref/ref_i8.h) in the build's rounding mode. Compiled once per
 * ISA level (host.h); on NEON the file is empty and the portable kernels run.
 *
 * Conv2d (groups 1) and dense are one GEMM: each output pixel's window is
 * copied (im2col) into a staging row of KP values, NK_I8_MR rows at a time,
 * and multiplied against weights packed at load in panels of NK_I8_NR
 * output channels, G consecutive taps per channel and lane:
 * packed[panel][k / G][lane][k % G], zero past K and past out_c.
 *   AVX2, AVX-512: G = 2. A staging row holds x - in_zp as int16 (the
 *     padding taps 0); VPMADDWD sums the two products of a lane exactly in
 *     int32 (|x - zp| <= 255, |w| <= 128).
 *   AVX-512 VNNI: G = 4. A staging row holds x + 128 as uint8 (padding taps
 *     in_zp + 128), VPDPBUSD adds four u8*s8 products to each int32 lane,
 *     and the packed bias carries the correction -(in_zp + 128) * sum(w).
 * Every sum is an exact integer, taken modulo 2^32 like TFLite's int32
 * arithmetic, so the accumulators equal the portable kernel's bit for bit;
 * the epilogue then applies the portable requantization (qmath.h nk_q_rq,
 * prepared per channel at load) lane by lane in 32x32->64 multiplies. */
#include "host_isa.h"
#include "host.h"

#if !defined(NK_HOST_ISA_NEON)

/* file-local names, suffixed per level (host_isa.h) */
#define nk_vi NK_HOST_FN(nk_vi)
#define nk_i8_vload NK_HOST_FN(nk_i8_vload)
#define nk_i8_vstore_s8 NK_HOST_FN(nk_i8_vstore_s8)
#define nk_i8_vrequant NK_HOST_FN(nk_i8_vrequant)
#define nk_i8_vepilogue NK_HOST_FN(nk_i8_vepilogue)
#define nk_i8_vdot NK_HOST_FN(nk_i8_vdot)
#define nk_i8_pack_rq NK_HOST_FN(nk_i8_pack_rq)
#define nk_i8_rq_ok NK_HOST_FN(nk_i8_rq_ok)
#define nk_i8_stage NK_HOST_FN(nk_i8_stage)
#define nk_i8_convert NK_HOST_FN(nk_i8_convert)
#define nk_i8_tile NK_HOST_FN(nk_i8_tile)
#define nk_i8_gemm_rows NK_HOST_FN(nk_i8_gemm_rows)
#define nk_i8_dw_block NK_HOST_FN(nk_i8_dw_block)
#define nk_i8_stage_t NK_HOST_FN(nk_i8_stage_t)
#define nk_i8_round_up NK_HOST_FN(nk_i8_round_up)
#define nk_i8_ld32 NK_HOST_FN(nk_i8_ld32)
#define nk_i8_load_part NK_HOST_FN(nk_i8_load_part)

#define NK_I8_MR 4 /* staging rows (output pixels) per register tile */

#if defined(NK_HOST_ISA_AVX512)
typedef __m512i nk_vi;
#define NK_I8_NR 16
#else
typedef __m256i nk_vi;
#define NK_I8_NR 8
#endif
#if defined(NK_HOST_ISA_AVX512VNNI)
#define NK_I8_G 4
typedef uint8_t nk_i8_stage_t;
#else
#define NK_I8_G 2
typedef int16_t nk_i8_stage_t;
#endif

/* The per-channel epilogue constants after the packed weights, int32 each
 * over the NP padded channels: bias (with the VNNI correction), then the
 * prepared requantization nk_q_rq (m2, left, a, b), the b that is
 * subtracted from the high word (b in double rounding, 0 in single) and
 * the low word. */
#define NK_I8_BIAS 0
#define NK_I8_M2 1
#define NK_I8_LEFT 2
#define NK_I8_A 3
#define NK_I8_B 4
#define NK_I8_BSUB 5
#define NK_I8_LO 6
#define NK_I8_NCONST 7

static inline size_t nk_i8_round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

static inline int32_t nk_i8_ld32(const void *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

#if defined(NK_HOST_ISA_AVX512)
static inline nk_vi nk_i8_vload(const int32_t *p) { return _mm512_loadu_si512((const void *)p); }

/* The low n lanes of v (already within int8) as bytes. */
static inline void nk_i8_vstore_s8(int8_t *y, nk_vi v, size_t n) {
    _mm_mask_storeu_epi8(y, (__mmask16)((1u << n) - 1u), _mm512_cvtsepi32_epi8(v));
}

/* nk_q_rq_tail lane by lane: the high word of hi:lo + v*m2, then the two
 * rounding shifts; hi = v - (bsub & sign(v)). */
static inline nk_vi nk_i8_vrequant(nk_vi acc, const int32_t *c, size_t np) {
    const nk_vi m2 = nk_i8_vload(c + NK_I8_M2 * np), a = nk_i8_vload(c + NK_I8_A * np);
    const nk_vi b = nk_i8_vload(c + NK_I8_B * np), bsub = nk_i8_vload(c + NK_I8_BSUB * np);
    const nk_vi lo = nk_i8_vload(c + NK_I8_LO * np);
    const nk_vi v = _mm512_sllv_epi32(acc, nk_i8_vload(c + NK_I8_LEFT * np));
    const nk_vi hi = _mm512_sub_epi32(v, _mm512_and_si512(bsub, _mm512_srli_epi32(v, 31)));
    const __mmask16 even = 0x5555;
    /* even lanes: product of the low halves; odd: of the high halves */
    const nk_vi pe = _mm512_mul_epi32(v, m2);
    const nk_vi po = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), _mm512_srli_epi64(m2, 32));
    const nk_vi he = _mm512_mask_blend_epi32(even, _mm512_slli_epi64(hi, 32), lo);
    const nk_vi ho = _mm512_mask_blend_epi32(even, hi, _mm512_srli_epi64(lo, 32));
    const nk_vi te = _mm512_add_epi64(pe, he), to = _mm512_add_epi64(po, ho);
    const nk_vi h = _mm512_mask_blend_epi32(even, to, _mm512_srli_epi64(te, 32));
    return _mm512_srav_epi32(_mm512_add_epi32(_mm512_srav_epi32(h, a), b), b);
}

/* requantized r: clamp(sat24(r) + zp, lo, hi) (nk_q_zp_clamp_s8) */
static inline nk_vi nk_i8_vepilogue(nk_vi r, int32_t zp, int32_t lo, int32_t hi) {
    r = _mm512_min_epi32(_mm512_max_epi32(r, _mm512_set1_epi32(-(1 << 24))),
                         _mm512_set1_epi32((1 << 24) - 1));
    r = _mm512_add_epi32(r, _mm512_set1_epi32(zp));
    return _mm512_min_epi32(_mm512_max_epi32(r, _mm512_set1_epi32(lo)), _mm512_set1_epi32(hi));
}

/* acc += the NR lanes' G-tap dot products of the broadcast staging word xb
 * with the packed weights at pw. */
static inline __attribute__((always_inline)) nk_vi nk_i8_vdot(nk_vi acc, nk_vi xb,
                                                              const int8_t *pw) {
#if defined(NK_HOST_ISA_AVX512VNNI)
    return _mm512_dpbusd_epi32(acc, xb, _mm512_loadu_si512((const void *)pw));
#else
    const nk_vi w = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)pw));
    return _mm512_add_epi32(acc, _mm512_madd_epi16(w, xb));
#endif
}
#define nk_i8_vbcast(p) _mm512_set1_epi32(nk_i8_ld32(p))
#define nk_i8_vzero() _mm512_setzero_si512()
#define nk_i8_vadd(a, b) _mm512_add_epi32(a, b)
#else /* AVX2 */
static inline nk_vi nk_i8_vload(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }

static inline void nk_i8_vstore_s8(int8_t *y, nk_vi v, size_t n) {
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    const __m128i b = _mm_packs_epi16(w, w);
    if (n == 8) {
        _mm_storel_epi64((__m128i *)y, b);
    } else {
        int8_t t[16];
        _mm_storeu_si128((__m128i *)t, b);
        memcpy(y, t, n);
    }
}

static inline nk_vi nk_i8_vrequant(nk_vi acc, const int32_t *c, size_t np) {
    const nk_vi m2 = nk_i8_vload(c + NK_I8_M2 * np), a = nk_i8_vload(c + NK_I8_A * np);
    const nk_vi b = nk_i8_vload(c + NK_I8_B * np), bsub = nk_i8_vload(c + NK_I8_BSUB * np);
    const nk_vi lo = nk_i8_vload(c + NK_I8_LO * np);
    const nk_vi v = _mm256_sllv_epi32(acc, nk_i8_vload(c + NK_I8_LEFT * np));
    const nk_vi hi = _mm256_sub_epi32(v, _mm256_and_si256(bsub, _mm256_srli_epi32(v, 31)));
    const nk_vi pe = _mm256_mul_epi32(v, m2);
    const nk_vi po = _mm256_mul_epi32(_mm256_srli_epi64(v, 32), _mm256_srli_epi64(m2, 32));
    const nk_vi he = _mm256_blend_epi32(_mm256_slli_epi64(hi, 32), lo, 0x55);
    const nk_vi ho = _mm256_blend_epi32(hi, _mm256_srli_epi64(lo, 32), 0x55);
    const nk_vi te = _mm256_add_epi64(pe, he), to = _mm256_add_epi64(po, ho);
    const nk_vi h = _mm256_blend_epi32(to, _mm256_srli_epi64(te, 32), 0x55);
    return _mm256_srav_epi32(_mm256_add_epi32(_mm256_srav_epi32(h, a), b), b);
}

static inline nk_vi nk_i8_vepilogue(nk_vi r, int32_t zp, int32_t lo, int32_t hi) {
    r = _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(-(1 << 24))),
                         _mm256_set1_epi32((1 << 24) - 1));
    r = _mm256_add_epi32(r, _mm256_set1_epi32(zp));
    return _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
}

static inline __attribute__((always_inline)) nk_vi nk_i8_vdot(nk_vi acc, nk_vi xb,
                                                              const int8_t *pw) {
    const nk_vi w = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)pw));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(w, xb));
}
#define nk_i8_vbcast(p) _mm256_set1_epi32(nk_i8_ld32(p))
#define nk_i8_vzero() _mm256_setzero_si256()
#define nk_i8_vadd(a, b) _mm256_add_epi32(a, b)
#endif


/* The epilogue constants of channel c < n; padded channels get m = 0
 * (result 0, never stored). Single rounding with a left shift is not
 * handled (nk_i8_rq_ok). */
static void nk_i8_pack_rq(int32_t *c, size_t np, size_t ch, int32_t bias,
                          const nk_ref_i8_quant *q, int valid) {
    const nk_q_rq r = valid ? nk_i8_rq(q, (int32_t)ch) : nk_q_rq_make(0, 0);
    c[NK_I8_BIAS * np + ch] = valid ? bias : 0;
    c[NK_I8_M2 * np + ch] = r.m2;
    c[NK_I8_LEFT * np + ch] = r.left;
    c[NK_I8_A * np + ch] = r.a;
    c[NK_I8_B * np + ch] = r.b;
#if NETKIT_SINGLE_ROUNDING
    c[NK_I8_BSUB * np + ch] = 0;
#else
    c[NK_I8_BSUB * np + ch] = r.b;
#endif
    c[NK_I8_LO * np + ch] = (int32_t)r.lo;
}

/* Single rounding takes a positive shift through the scalar path
 * (nk_q_rq_sr); those channels are left to the portable kernels. */
static int nk_i8_rq_ok(const nk_ref_i8_quant *q, int32_t out_c) {
#if NETKIT_SINGLE_ROUNDING
    int32_t c, n = q->per_channel ? out_c : 1;
    for (c = 0; c < n; c++)
        if (q->shift[c] > 0) return 0;
#else
    (void)q;
    (void)out_c;
#endif
    return 1;
}

/* ------------------------------------------------------------------ */
/* Conv2d and dense as a GEMM                                          */
/* ------------------------------------------------------------------ */

#define NK_I8_K(g) ((size_t)(g)->k_h * (size_t)(g)->k_w * (size_t)(g)->in_c)

size_t NK_HOST_FN(nk_host_conv2d_i8_pack_size)(const nk_ref_conv_geom *g,
                                               const nk_ref_i8_quant *q) {
    const size_t kp = nk_i8_round_up(NK_I8_K(g), NK_I8_G);
    const size_t np = nk_i8_round_up((size_t)g->out_c, NK_I8_NR);
    /* fewer output channels than half a panel would pack mostly zeros
     * (16x the weights for one channel): the portable kernel runs those */
    if (g->groups != 1 || np > 2 * (size_t)g->out_c || !nk_i8_rq_ok(q, g->out_c)) return 0;
    return np * kp + NK_I8_NCONST * np * sizeof(int32_t);
}

void NK_HOST_FN(nk_host_conv2d_i8_pack)(const int8_t *NK_RESTRICT w,
                                        const int32_t *NK_RESTRICT bias,
                                        const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                        void *NK_RESTRICT packed) {
    const size_t k_n = NK_I8_K(g), kp = nk_i8_round_up(k_n, NK_I8_G);
    const size_t np = nk_i8_round_up((size_t)g->out_c, NK_I8_NR);
    int8_t *pw = (int8_t *)packed;
    int32_t *c = (int32_t *)(void *)(pw + np * kp);
    size_t o, k;
    for (o = 0; o < np; o++) {
        const int valid = o < (size_t)g->out_c;
        int8_t *panel = pw + (o / NK_I8_NR) * NK_I8_NR * kp;
        int32_t wsum = 0, b = valid && bias != NULL ? bias[o] : 0;
        for (k = 0; k < kp; k++) {
            const int8_t v = valid && k < k_n ? w[o * k_n + k] : 0;
            panel[(k / NK_I8_G) * NK_I8_NR * NK_I8_G + (o % NK_I8_NR) * NK_I8_G + k % NK_I8_G] = v;
            wsum += v;
        }
#if defined(NK_HOST_ISA_AVX512VNNI)
        /* staged x + 128 = (x - in_zp) + (in_zp + 128) */
        b = (int32_t)((uint32_t)b - (uint32_t)wsum * (uint32_t)(q->in_zp + 128));
#else
        (void)wsum;
#endif
        nk_i8_pack_rq(c, np, o, b, q, valid);
    }
}

size_t NK_HOST_FN(nk_host_conv2d_i8_workspace)(const nk_ref_conv_geom *g) {
    return NK_I8_MR * nk_i8_round_up(NK_I8_K(g), NK_I8_G) * sizeof(nk_i8_stage_t);
}

/* n input values converted to staging values (x + 128, or x - in_zp) */
static inline void nk_i8_convert(const int8_t *NK_RESTRICT s, nk_i8_stage_t *NK_RESTRICT d,
                                 size_t n, int32_t in_zp) {
    size_t i;
#if defined(NK_HOST_ISA_AVX512VNNI)
    /* masked 64-byte blocks: the short runs of first layers (3 channels)
     * cost one block instead of a scalar loop */
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    (void)in_zp;
    for (i = 0; i < n; i += 64) {
        const __mmask64 k = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1u;
        _mm512_mask_storeu_epi8(d + i, k, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, s + i), flip));
    }
#elif defined(NK_HOST_ISA_AVX512)
    const __m512i zp = _mm512_set1_epi16((short)in_zp);
    for (i = 0; i < n; i += 32) {
        const __mmask32 k = n - i >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << (n - i)) - 1u;
        const __m512i v = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(k, s + i));
        _mm512_mask_storeu_epi16(d + i, k, _mm512_sub_epi16(v, zp));
    }
#else
    for (i = 0; i < n; i++) d[i] = (nk_i8_stage_t)(s[i] - in_zp);
#endif
}

/* The window of output pixel (b, oy, ox) as one staging row of kp values:
 * each kernel row's valid taps are one contiguous run of x when dil_w is 1. */
static void nk_i8_stage(const int8_t *NK_RESTRICT x, const nk_ref_conv_geom *g, size_t b,
                        int32_t oy, int32_t ox, int32_t in_zp, nk_i8_stage_t *NK_RESTRICT row,
                        size_t kp) {
    const int32_t iy0 = oy * g->stride_h - g->pad_top, ix0 = ox * g->stride_w - g->pad_left;
    const size_t c_n = (size_t)g->in_c, k_row = (size_t)g->k_w * c_n;
    const int8_t *xb = x + b * (size_t)g->in_h * (size_t)g->in_w * c_n;
#if defined(NK_HOST_ISA_AVX512VNNI)
    const nk_i8_stage_t pad = (nk_i8_stage_t)(in_zp + 128);
#else
    const nk_i8_stage_t pad = 0;
#endif
    nk_i8_stage_t *d = row;
    int32_t ky, kx, kx_lo, kx_hi;
    size_t i;
    nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
    if (kx_hi < kx_lo) kx_hi = kx_lo;
    for (ky = 0; ky < g->k_h; ky++, d += k_row) {
        const int32_t iy = iy0 + ky * g->dil_h;
        const int8_t *xrow;
        if (iy < 0 || iy >= g->in_h || kx_lo == kx_hi) {
            for (i = 0; i < k_row; i++) d[i] = pad;
            continue;
        }
        xrow = xb + (size_t)iy * (size_t)g->in_w * c_n;
        for (i = 0; i < (size_t)kx_lo * c_n; i++) d[i] = pad;
        if (g->dil_w == 1) {
            nk_i8_convert(xrow + (size_t)(ix0 + kx_lo) * c_n, d + (size_t)kx_lo * c_n,
                          (size_t)(kx_hi - kx_lo) * c_n, in_zp);
        } else {
            for (kx = kx_lo; kx < kx_hi; kx++)
                nk_i8_convert(xrow + (size_t)(ix0 + kx * g->dil_w) * c_n, d + (size_t)kx * c_n,
                              c_n, in_zp);
        }
        for (i = (size_t)kx_hi * c_n; i < k_row; i++) d[i] = pad;
    }
    for (; d < row + kp; d++) *d = 0; /* against zero weights */
}

/* m (<= NK_I8_MR, a constant after inlining) staging rows against nb (1 or
 * 2) panels: m * nb accumulators over the whole depth, then the epilogue.
 * The accumulators are named variables, not an array, so they stay in
 * registers: every broadcast row word meets nb weight vectors. */
static inline __attribute__((always_inline)) void
nk_i8_tile(const nk_i8_stage_t *NK_RESTRICT s, size_t kp, int m, int nb,
           const int8_t *NK_RESTRICT panel, const int32_t *NK_RESTRICT c, size_t np, size_t o0,
           int8_t *NK_RESTRICT y, size_t ldy, size_t out_c, const nk_ref_i8_quant *q) {
    const size_t kg_n = kp / NK_I8_G, pstride = NK_I8_NR * kp;
    const nk_i8_stage_t *s0 = s, *s1 = s + kp, *s2 = s + 2 * kp, *s3 = s + 3 * kp;
    nk_vi a00 = nk_i8_vzero(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00,
          a30 = a00, a31 = a00;
    size_t kg;
    int j;
    for (kg = 0; kg < kg_n; kg++) {
        const int8_t *pw = panel + kg * NK_I8_NR * NK_I8_G;
        const size_t k = kg * NK_I8_G;
        nk_vi xb = nk_i8_vbcast(s0 + k);
        a00 = nk_i8_vdot(a00, xb, pw);
        if (nb > 1) a01 = nk_i8_vdot(a01, xb, pw + pstride);
        if (m > 1) {
            xb = nk_i8_vbcast(s1 + k);
            a10 = nk_i8_vdot(a10, xb, pw);
            if (nb > 1) a11 = nk_i8_vdot(a11, xb, pw + pstride);
        }
        if (m > 2) {
            xb = nk_i8_vbcast(s2 + k);
            a20 = nk_i8_vdot(a20, xb, pw);
            if (nb > 1) a21 = nk_i8_vdot(a21, xb, pw + pstride);
        }
        if (m > 3) {
            xb = nk_i8_vbcast(s3 + k);
            a30 = nk_i8_vdot(a30, xb, pw);
            if (nb > 1) a31 = nk_i8_vdot(a31, xb, pw + pstride);
        }
    }
    for (j = 0; j < nb; j++) {
        const size_t o = o0 + (size_t)j * NK_I8_NR;
        const size_t n = out_c - o < NK_I8_NR ? out_c - o : NK_I8_NR;
        const nk_vi bias = nk_i8_vload(c + NK_I8_BIAS * np + o);
        const nk_vi acc[NK_I8_MR] = {j ? a01 : a00, j ? a11 : a10, j ? a21 : a20, j ? a31 : a30};
        int r;
        for (r = 0; r < m; r++) {
            nk_vi v = nk_i8_vrequant(nk_i8_vadd(acc[r], bias), c + o, np);
            v = nk_i8_vepilogue(v, q->out_zp, q->act_min, q->act_max);
            nk_i8_vstore_s8(y + (size_t)r * ldy + o, v, n);
        }
    }
}

/* m staging rows against every panel. */
static inline __attribute__((always_inline)) void
nk_i8_gemm_rows(const nk_i8_stage_t *NK_RESTRICT s, size_t kp, int m,
                const int8_t *NK_RESTRICT pw, const int32_t *NK_RESTRICT c, size_t np,
                int8_t *NK_RESTRICT y, size_t out_c, const nk_ref_i8_quant *q) {
    size_t o = 0;
    for (; o + 2 * NK_I8_NR <= np; o += 2 * NK_I8_NR)
        nk_i8_tile(s, kp, m, 2, pw + o * kp, c, np, o, y, out_c, out_c, q);
    if (o < np) nk_i8_tile(s, kp, m, 1, pw + o * kp, c, np, o, y, out_c, out_c, q);
}

void NK_HOST_FN(nk_host_conv2d_i8)(const int8_t *x, const void *NK_RESTRICT packed,
                                   int8_t *y, const nk_ref_conv_geom *g,
                                   const nk_ref_i8_quant *q, void *NK_RESTRICT workspace) {
    const size_t k_n = NK_I8_K(g), kp = nk_i8_round_up(k_n, NK_I8_G);
    const size_t np = nk_i8_round_up((size_t)g->out_c, NK_I8_NR);
    const size_t out_c = (size_t)g->out_c;
    const size_t pixels = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w;
    /* a pointwise conv over every pixel (and dense): the rows are x's */
    const int rows_of_x = g->k_h == 1 && g->k_w == 1 && g->stride_h == 1 && g->stride_w == 1 &&
                          g->pad_top == 0 && g->pad_left == 0 && g->out_h == g->in_h &&
                          g->out_w == g->in_w;
    const int8_t *pw = (const int8_t *)packed;
    const int32_t *c = (const int32_t *)(const void *)(pw + np * kp);
    nk_i8_stage_t *s = (nk_i8_stage_t *)workspace;
    size_t p = 0, b = 0, r, m, k;
    int32_t oy = 0, ox = 0;
    while (p < pixels) {
        m = pixels - p < NK_I8_MR ? pixels - p : NK_I8_MR;
        for (r = 0; r < m; r++) {
            if (rows_of_x) {
                nk_i8_convert(x + (p + r) * k_n, s + r * kp, k_n, q->in_zp);
                for (k = k_n; k < kp; k++) s[r * kp + k] = 0;
                continue;
            }
            nk_i8_stage(x, g, b, oy, ox, q->in_zp, s + r * kp, kp);
            if (++ox == g->out_w) {
                ox = 0;
                if (++oy == g->out_h) {
                    oy = 0;
                    b++;
                }
            }
        }
        switch (m) {
        case 4: nk_i8_gemm_rows(s, kp, 4, pw, c, np, y + p * out_c, out_c, q); break;
        case 3: nk_i8_gemm_rows(s, kp, 3, pw, c, np, y + p * out_c, out_c, q); break;
        case 2: nk_i8_gemm_rows(s, kp, 2, pw, c, np, y + p * out_c, out_c, q); break;
        default: nk_i8_gemm_rows(s, kp, 1, pw, c, np, y + p * out_c, out_c, q); break;
        }
        p += m;
    }
}

/* ------------------------------------------------------------------ */
/* Depthwise (multiplier 1)                                            */
/* ------------------------------------------------------------------ */

/* packed: the epilogue constants (bias without correction: x - in_zp is
 * formed in the lane); the weights are read where they are. */
size_t NK_HOST_FN(nk_host_depthwise_i8_pack_size)(const nk_ref_conv_geom *g,
                                                  const nk_ref_i8_quant *q) {
    const size_t np = nk_i8_round_up((size_t)g->out_c, NK_I8_NR);
    if (g->multiplier != 1 || !nk_i8_rq_ok(q, g->out_c)) return 0;
    return NK_I8_NCONST * np * sizeof(int32_t);
}

void NK_HOST_FN(nk_host_depthwise_i8_pack)(const int8_t *NK_RESTRICT w,
                                           const int32_t *NK_RESTRICT bias,
                                           const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                           void *NK_RESTRICT packed) {
    const size_t np = nk_i8_round_up((size_t)g->out_c, NK_I8_NR), oc = (size_t)g->out_c;
    size_t o;
    (void)w;
    for (o = 0; o < np; o++)
        nk_i8_pack_rq((int32_t *)packed, np, o, o < oc && bias != NULL ? bias[o] : 0, q, o < oc);
}

#if defined(NK_HOST_ISA_AVX512)
#define nk_i8_vload_x(p) _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p)))
#define nk_i8_vload_xn(p, n) _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8((__mmask16)((1u << (n)) - 1u), (p)))
#define nk_i8_vmullo(a, b) _mm512_mullo_epi32(a, b)
#define nk_i8_vdup(v) _mm512_set1_epi32(v)
#else
#define nk_i8_vload_x(p) _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(p)))
#define nk_i8_vload_xn(p, n) _mm256_cvtepi8_epi32(nk_i8_load_part(p, n))
#define nk_i8_vmullo(a, b) _mm256_mullo_epi32(a, b)
#define nk_i8_vdup(v) _mm256_set1_epi32(v)
static inline __m128i nk_i8_load_part(const int8_t *p, size_t n) {
    int8_t t[16] = {0};
    memcpy(t, p, n);
    return _mm_loadu_si128((const __m128i *)t);
}
#endif

/* One output pixel's channels [c0, c0 + n) (n <= NR) over taps
 * [ky_lo, ky_hi) x [kx_lo, kx_hi); xp0 is the (ky_lo, kx_lo) tap. */
static inline __attribute__((always_inline)) void
nk_i8_dw_block(const int8_t *NK_RESTRICT xp0, size_t ky_step, size_t x_step,
               const int8_t *NK_RESTRICT w, size_t w_step, size_t np, int32_t k_w, int32_t ky_lo,
               int32_t ky_hi, int32_t kx_lo, int32_t kx_hi, size_t c0, size_t n,
               const int32_t *NK_RESTRICT c, int8_t *NK_RESTRICT yp, const nk_ref_i8_quant *q) {
    const nk_vi off = nk_i8_vdup(-q->in_zp);
    nk_vi acc = nk_i8_vload(c + NK_I8_BIAS * np + c0);
    int32_t ky, kx;
    for (ky = ky_lo; ky < ky_hi; ky++) {
        const int8_t *xp = xp0 + (size_t)(ky - ky_lo) * ky_step + c0;
        const int8_t *wp = w + ((size_t)ky * (size_t)k_w + (size_t)kx_lo) * w_step + c0;
        for (kx = kx_lo; kx < kx_hi; kx++, xp += x_step, wp += w_step) {
            const nk_vi xv = n == NK_I8_NR ? nk_i8_vload_x(xp) : nk_i8_vload_xn(xp, n);
            const nk_vi wv = n == NK_I8_NR ? nk_i8_vload_x(wp) : nk_i8_vload_xn(wp, n);
            acc = nk_i8_vadd(acc, nk_i8_vmullo(nk_i8_vadd(xv, off), wv));
        }
    }
    acc = nk_i8_vepilogue(nk_i8_vrequant(acc, c + c0, np), q->out_zp, q->act_min, q->act_max);
    nk_i8_vstore_s8(yp + c0, acc, n);
}

void NK_HOST_FN(nk_host_depthwise_i8)(const int8_t *x, const int8_t *NK_RESTRICT w,
                                      const void *NK_RESTRICT packed, int8_t *y,
                                      const nk_ref_conv_geom *g, const nk_ref_i8_quant *q) {
    const size_t np = nk_i8_round_up((size_t)g->out_c, NK_I8_NR), oc = (size_t)g->out_c;
    const int32_t *c = (const int32_t *)packed;
    const size_t row_stride = (size_t)g->in_w * oc;
    const size_t x_step = (size_t)g->dil_w * oc, ky_step = (size_t)g->dil_h * row_stride;
    int32_t b, oy, ox;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_i8_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int8_t *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                  (size_t)ox) * oc;
                const int8_t *xp0;
                int32_t kx_lo, kx_hi;
                size_t c0 = 0;
                nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
                if (ky_lo >= ky_hi || kx_lo >= kx_hi)
                    xp0 = xb; /* no valid tap: the bias alone (empty loops) */
                else
                    xp0 = xb + (size_t)(iy0 + ky_lo * g->dil_h) * row_stride +
                          (size_t)(ix0 + kx_lo * g->dil_w) * oc;
                for (; c0 + NK_I8_NR <= oc; c0 += NK_I8_NR)
                    nk_i8_dw_block(xp0, ky_step, x_step, w, oc, np, g->k_w, ky_lo, ky_hi, kx_lo,
                                   kx_hi, c0, NK_I8_NR, c, yp, q);
                if (c0 < oc)
                    nk_i8_dw_block(xp0, ky_step, x_step, w, oc, np, g->k_w, ky_lo, ky_hi, kx_lo,
                                   kx_hi, c0, oc - c0, c, yp, q);
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* Add                                                                 */
/* ------------------------------------------------------------------ */

void NK_HOST_FN(nk_host_add_i8)(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                                const nk_ref_add_i8_params *p) {
    /* the three requantizations in the GEMM's constant layout, one lane
     * per column: every lane holds the same channel */
    int32_t k[3][NK_I8_NCONST][NK_I8_NR];
    const int32_t m[3] = {p->m1, p->m2, p->m_out}, sh[3] = {p->shift1, p->shift2, p->shift_out};
    const nk_vi zp1 = nk_i8_vdup(p->in1_zp), zp2 = nk_i8_vdup(p->in2_zp);
    const nk_vi ls = nk_i8_vdup(p->left_shift);
    const int32_t zo = p->out_zp, lo = p->act_min, hi = p->act_max;
    nk_ref_i8_quant q1;
    size_t i, j;
    int r;
    for (r = 0; r < 3; r++) {
        q1.mult = &m[r];
        q1.shift = &sh[r];
        q1.per_channel = 0;
        if (!nk_i8_rq_ok(&q1, 1)) {
            nk_ref_add_i8(a, b, y, n, p);
            return;
        }
        for (j = 0; j < NK_I8_NR; j++) nk_i8_pack_rq(&k[r][0][0], NK_I8_NR, j, 0, &q1, 1);
    }
    for (i = 0; i < n; i += NK_I8_NR) {
        const size_t w = n - i < NK_I8_NR ? n - i : NK_I8_NR;
        const nk_vi xa = w == NK_I8_NR ? nk_i8_vload_x(a + i) : nk_i8_vload_xn(a + i, w);
        const nk_vi xb = w == NK_I8_NR ? nk_i8_vload_x(b + i) : nk_i8_vload_xn(b + i, w);
#if defined(NK_HOST_ISA_AVX512)
        const nk_vi sa = _mm512_sllv_epi32(_mm512_sub_epi32(xa, zp1), ls);
        const nk_vi sb = _mm512_sllv_epi32(_mm512_sub_epi32(xb, zp2), ls);
#else
        const nk_vi sa = _mm256_sllv_epi32(_mm256_sub_epi32(xa, zp1), ls);
        const nk_vi sb = _mm256_sllv_epi32(_mm256_sub_epi32(xb, zp2), ls);
#endif
        const nk_vi sum = nk_i8_vadd(nk_i8_vrequant(sa, &k[0][0][0], NK_I8_NR),
                                     nk_i8_vrequant(sb, &k[1][0][0], NK_I8_NR));
        nk_i8_vstore_s8(y + i, nk_i8_vepilogue(nk_i8_vrequant(sum, &k[2][0][0], NK_I8_NR), zo, lo, hi),
                        w);
    }
}

#undef nk_i8_vbcast
#undef nk_i8_vzero
#undef nk_i8_vadd
#undef nk_i8_vload_x
#undef nk_i8_vload_xn
#undef nk_i8_vmullo
#undef nk_i8_vdup
#undef NK_I8_NR
#undef NK_I8_G
#undef NK_I8_BIAS
#undef NK_I8_M2
#undef NK_I8_LEFT
#undef NK_I8_A
#undef NK_I8_B
#undef NK_I8_BSUB
#undef NK_I8_LO
#undef NK_I8_NCONST
#undef NK_I8_MR
#undef NK_I8_K

#endif /* !NK_HOST_ISA_NEON */
