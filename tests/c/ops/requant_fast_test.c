/* requant_fast_test.c — the prepared requantization of qmath.h
 * (nk_q_rq_make_dr/_sr + nk_q_rq_dr/_sr) and the int8 epilogue built on it
 * (nk_q_out_s8, nk_q_zp_clamp_s8), against int64 formulas written here by
 * division (not the kernels' helpers), in both rounding modes:
 * every shift the validators accept (-31..30), the edge multipliers 0,
 * 2^30, 2^30+1, 2^31-2, 2^31-1 and random ones, accumulators INT32_MIN,
 * INT32_MAX, +-2^k+-1, exact rounding ties of both roundings and of both
 * signs, and random ones (uniform and of random magnitude). The test checks
 * that its inputs contain ties that a wrong tie rule would get wrong, so
 * it fails if one is broken. Also the Arm DSP kernels' epilogue for
 * shift < 0, and m = 0 with shift >= 0 (kernels/armv7em/dsp.h: nk_dsp_rq_half and the int16/int8 lane
 * steps), native on a DSP core, its C emulation elsewhere. CMake also
 * builds this with NETKIT_SINGLE_ROUNDING=1 (the build-mode functions in
 * the other mode). */
#include "kernels/armv7em/dsp.h"
#include "kernels/ref/qmath.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(NETKIT_SINGLE_ROUNDING) && NETKIT_SINGLE_ROUNDING
#define NKR_SINGLE 1
#else
#define NKR_SINGLE 0
#endif

/* Fewer random accumulators on the emulated boards (no 64-bit multiply
 * on some): the edges and ties are all run everywhere. */
#if defined(NETKIT_MCU) && NETKIT_MCU
#define NKR_RANDOM 24
#else
#define NKR_RANDOM 2400
#endif

static long nkr_failures, nkr_checks;

/* ---- the oracle ---- */

static int32_t nkr_wrap(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* floor(n / 2^e), e in [0, 62], by division */
static int64_t nkr_floor_pow2(int64_t n, int e) {
    const int64_t d = (int64_t)1 << e;
    const int64_t q = n / d;
    return n % d != 0 && n < 0 ? q - 1 : q;
}

/* Double rounding: x = (v*m)/2^31 to nearest, ties up, with v = val*2^left
 * wrapped to int32; then x/2^right to nearest, ties away from zero (a
 * wrong tie rule is selected by `ties_up` to prove the test sees it). */
static int32_t nkr_dr(int32_t val, int32_t m, int32_t shift, int ties_up) {
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    const int32_t v = nkr_wrap((int64_t)val * ((int64_t)1 << left));
    const int64_t x = nkr_floor_pow2((int64_t)v * m + ((int64_t)1 << 30), 31);
    const int64_t d = (int64_t)1 << right, q = x / d, r = x % d;
    if (d == 1)
        return (int32_t)x;
    if (ties_up)
        return (int32_t)nkr_floor_pow2(x + d / 2, right);
    return (int32_t)(2 * (r < 0 ? -r : r) >= d ? q + (x < 0 ? -1 : 1) : q);
}

/* Single rounding: val*m/2^(31-shift) to nearest, ties up (ties_down:
 * the wrong rule), the int64 result wrapped to int32. */
static int32_t nkr_sr(int32_t val, int32_t m, int32_t shift, int ties_down) {
    const int total = 31 - shift;
    const int64_t half = ((int64_t)1 << (total - 1)) - (ties_down ? 1 : 0);
    return nkr_wrap(nkr_floor_pow2((int64_t)val * m + half, total));
}

static int8_t nkr_out(int32_t r, int32_t zp, int32_t lo, int32_t hi) {
    const int64_t v = (int64_t)r + zp;
    return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* ---- inputs ---- */

static uint32_t nkr_state = 0x9E3779B9u;
static uint32_t nkr_rand(void) {
    nkr_state ^= nkr_state << 13;
    nkr_state ^= nkr_state >> 17;
    nkr_state ^= nkr_state << 5;
    return nkr_state;
}

/* uniform, or of a random bit length (results away from saturation) */
static int32_t nkr_rand_acc(void) {
    const uint32_t u = nkr_rand(), len = nkr_rand() % 33u;
    if (nkr_rand() & 1u)
        return (int32_t)u;
    return len >= 32u ? (int32_t)u : (int32_t)(u & ((1u << len) - 1u)) - (int32_t)(1u << len >> 1);
}

static const int32_t nkr_zp[][3] = {
    {0, -128, 127}, {-128, -128, 127}, {127, -128, 127}, {-5, -5, 127}, {17, -128, 60}, {-128, 100, 100},
};

static long nkr_dr_tie_seen, nkr_sr_tie_seen;
static int32_t nkr_prev_acc;

/* The DSP epilogue of accumulators acc and nkr_prev_acc (two lanes). */
static void nkr_check_dsp(int32_t acc, int32_t m, int32_t shift, int32_t want, int32_t want2) {
    const int32_t s = nk_dsp_rq_half(acc, (int32_t)((uint32_t)m << 1), ~shift);
    const int32_t s2 = nk_dsp_rq_half(nkr_prev_acc, (int32_t)((uint32_t)m << 1), ~shift);
    size_t z;
    nkr_checks++;
    if (nk_q_asr32(s + 1, 1) != want) {
        if (nkr_failures++ < 20)
            printf("FAIL dsp acc %ld m %ld shift %ld: %ld, want %ld\n", (long)acc, (long)m,
                   (long)shift, (long)nk_q_asr32(s + 1, 1), (long)want);
    }
    for (z = 0; z < sizeof nkr_zp / sizeof nkr_zp[0]; z++) {
        const int32_t zp = nkr_zp[z][0], lo = nkr_zp[z][1], hi = nkr_zp[z][2];
        const int32_t c = nk_dsp_half_zp(s, s2, nk_dsp_dup16(2 * zp + 1));
        const uint32_t v = (uint32_t)nk_dsp_min8(nk_dsp_max8(nk_dsp_zip8(c, 0), nk_dsp_dup8(lo)),
                                                 nk_dsp_dup8(hi));
        nkr_checks++;
        if ((int8_t)(v & 0xFFu) != nkr_out(want, zp, lo, hi) ||
            (int8_t)(v >> 16 & 0xFFu) != nkr_out(want2, zp, lo, hi)) {
            if (nkr_failures++ < 20)
                printf("FAIL dsp lanes acc %ld, %ld m %ld shift %ld zp %ld [%ld, %ld]\n",
                       (long)acc, (long)nkr_prev_acc, (long)m, (long)shift, (long)zp, (long)lo,
                       (long)hi);
        }
    }
}

static void nkr_check(int32_t acc, int32_t m, int32_t shift) {
    const nk_q_rq rd = nk_q_rq_make_dr(m, shift), rs = nk_q_rq_make_sr(m, shift);
    const int32_t want_dr = nkr_dr(acc, m, shift, 0), want_sr = nkr_sr(acc, m, shift, 0);
    const int32_t got_dr = nk_q_rq_dr(&rd, acc), got_sr = nk_q_rq_sr(&rs, acc);
    const int32_t want = NKR_SINGLE ? want_sr : want_dr;
    size_t z;
    nkr_checks += 2;
    if (got_dr != want_dr || got_sr != want_sr) {
        if (nkr_failures++ < 20)
            printf("FAIL acc %ld m %ld shift %ld: double %ld (want %ld), single %ld (want %ld)\n",
                   (long)acc, (long)m, (long)shift, (long)got_dr, (long)want_dr, (long)got_sr,
                   (long)want_sr);
    }
    /* the oracle functions of qmath.h stay exact too */
    if (nk_q_requantize_dr(acc, m, shift) != want_dr || nk_q_requantize_sr(acc, m, shift) != want_sr) {
        if (nkr_failures++ < 20)
            printf("FAIL oracle acc %ld m %ld shift %ld\n", (long)acc, (long)m, (long)shift);
    }
    if ((shift < 0) != (m == 0)) {
        const int32_t want2 = NKR_SINGLE ? nkr_sr(nkr_prev_acc, m, shift, 0)
                                         : nkr_dr(nkr_prev_acc, m, shift, 0);
        nkr_check_dsp(acc, m, shift, want, want2);
    }
    nkr_prev_acc = acc;
    nkr_dr_tie_seen += nkr_dr(acc, m, shift, 1) != want_dr;
    nkr_sr_tie_seen += nkr_sr(acc, m, shift, 1) != want_sr;
    for (z = 0; z < sizeof nkr_zp / sizeof nkr_zp[0]; z++) {
        const int32_t zp = nkr_zp[z][0], lo = nkr_zp[z][1], hi = nkr_zp[z][2];
        const int8_t w = nkr_out(want, zp, lo, hi);
        nkr_checks++;
        if (nk_q_out_s8(acc, m, shift, zp, lo, hi) != w) {
            if (nkr_failures++ < 20)
                printf("FAIL out acc %ld m %ld shift %ld zp %ld [%ld, %ld]: %d, want %d\n",
                       (long)acc, (long)m, (long)shift, (long)zp, (long)lo, (long)hi,
                       nk_q_out_s8(acc, m, shift, zp, lo, hi), w);
        }
    }
}

/* Accumulators whose requantization is an exact tie: with m = 2^30,
 * SRDHM(v, m) = floor((v+1)/2), so v = 2t gives x = t and t = j*2^e +-
 * 2^(e-1) is a tie of the divide by 2^e; single rounding ties at
 * v = (2j+1) * 2^e. Both signs, small and large j. */
static void nkr_ties(int32_t m, int32_t shift) {
    const int e = shift < 0 ? -shift : 0;
    static const int32_t js[] = {0, 1, 2, 3, 7, 100, 12345, -1, -2, -3, -8, -101, -12346};
    size_t i;
    if (e == 0)
        return;
    for (i = 0; i < sizeof js / sizeof js[0]; i++) {
        const int64_t t = (int64_t)js[i] * ((int64_t)1 << e) + ((int64_t)1 << (e - 1));
        const int64_t s = (2 * (int64_t)js[i] + 1) * ((int64_t)1 << e);
        int k;
        for (k = -1; k <= 1; k++) {
            if (2 * t + k >= INT32_MIN && 2 * t + k <= INT32_MAX)
                nkr_check((int32_t)(2 * t + k), m, shift);
            if (2 * -t + k >= INT32_MIN && 2 * -t + k <= INT32_MAX)
                nkr_check((int32_t)(2 * -t + k), m, shift);
            if (s + k >= INT32_MIN && s + k <= INT32_MAX)
                nkr_check((int32_t)(s + k), m, shift);
        }
    }
}

int main(void) {
    int32_t mults[13] = {0, 1 << 30, (1 << 30) + 1, INT32_MAX, INT32_MAX - 1, 1518500250,
                         1717986918};
    const int n_fixed = 7, n_mults = 13;
    int i, k, shift;
    for (i = n_fixed; i < n_mults; i++)
        mults[i] = (int32_t)((1u << 30) + (nkr_rand() & 0x3FFFFFFFu));
    for (i = 0; i < n_mults; i++) {
        for (shift = -31; shift <= 30; shift++) {
            const int32_t m = mults[i];
            nkr_check(INT32_MIN, m, shift);
            nkr_check(INT32_MAX, m, shift);
            for (k = 0; k <= 31; k++) {
                const int64_t p = (int64_t)1 << k;
                int d;
                for (d = -1; d <= 1; d++) {
                    if (p + d <= INT32_MAX)
                        nkr_check((int32_t)(p + d), m, shift);
                    nkr_check((int32_t)(-p + d), m, shift);
                }
            }
            nkr_ties(m, shift);
            for (k = 0; k < NKR_RANDOM; k++)
                nkr_check(nkr_rand_acc(), m, shift);
        }
    }
    /* the epilogue's clamp at the ends of the int32 range */
    {
        static const int32_t rs[] = {INT32_MIN, INT32_MIN + 1, -(1 << 24) - 1, -(1 << 24), -129, 0,
                                     128, (1 << 24) - 1, 1 << 24, INT32_MAX - 1, INT32_MAX};
        size_t a, z;
        for (a = 0; a < sizeof rs / sizeof rs[0]; a++)
            for (z = 0; z < sizeof nkr_zp / sizeof nkr_zp[0]; z++) {
                const int32_t zp = nkr_zp[z][0], lo = nkr_zp[z][1], hi = nkr_zp[z][2];
                nkr_checks++;
                if (nk_q_zp_clamp_s8(rs[a], zp, lo, hi) != nkr_out(rs[a], zp, lo, hi)) {
                    nkr_failures++;
                    printf("FAIL zp clamp %ld zp %ld\n", (long)rs[a], (long)zp);
                }
            }
    }
    /* a broken tie rule would have been caught */
    if (nkr_dr_tie_seen == 0 || nkr_sr_tie_seen == 0) {
        nkr_failures++;
        printf("FAIL the inputs hold no tie a wrong rule gets wrong (%ld, %ld)\n", nkr_dr_tie_seen,
               nkr_sr_tie_seen);
    }
    printf("%s: %ld checks, %ld failures (%ld double- and %ld single-rounding ties a wrong rule "
           "misses; nk_q_out_s8 in %s rounding)\n",
           nkr_failures ? "FAIL" : "PASS", nkr_checks, nkr_failures, nkr_dr_tie_seen,
           nkr_sr_tie_seen, NKR_SINGLE ? "single" : "double");
    return nkr_failures ? 1 : 0;
}
