#!/usr/bin/env python3
"""vmath_fit.py — the minimax fits behind vmath.c's polynomial coefficients.

    python3 csrc/kernels/host/vmath_fit.py      (needs mpmath; about a minute)

Each fit is a linear Remez exchange over a dense grid in 50-digit
arithmetic: minimise max |w(v) (f(v) - sum c_k v^k)| on [a, b]. It prints the
coefficients (lowest power first) as float literals and the weighted error of
the real-valued fit. The rounding of the coefficients to float and of the
float evaluation comes on top; tests/c/host/vmath_test.c measures the total.
"""
import mpmath as mp

mp.mp.dps = 50


def remez(f, w, degree, a, b, iters=40, grid=3000):
    m = degree + 1
    powers = lambda v: [v**k for k in range(m)]
    # initial reference: Chebyshev-like points, skewed so none falls on the
    # centre (a weight may vanish there)
    ref = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * (i + mp.mpf('0.1')) / (m + mp.mpf('0.35')))
           for i in range(m + 1)]
    xs = [a + (b - a) * mp.mpf(i) / grid for i in range(grid + 1)]
    fx, wx, px = [f(v) for v in xs], [w(v) for v in xs], [powers(v) for v in xs]
    c, best = None, None
    for _ in range(iters):
        A = mp.matrix(m + 1, m + 1)
        rhs = mp.matrix(m + 1, 1)
        for i, v in enumerate(ref):
            for k, p in enumerate(powers(v)):
                A[i, k] = p
            A[i, m] = (-1)**i / w(v)
            rhs[i] = f(v)
        sol = mp.lu_solve(A, rhs)
        c = [sol[k] for k in range(m)]
        err = [wx[j] * (fx[j] - sum(ck * pk for ck, pk in zip(c, px[j]))) for j in range(len(xs))]
        best = max(abs(e) for e in err)
        # local extrema of |err|, one per run of equal sign
        ext = [j for j in range(len(xs))
               if (j == 0 or abs(err[j]) >= abs(err[j - 1])) and
               (j == len(xs) - 1 or abs(err[j]) >= abs(err[j + 1]))]
        alt = []
        for j in ext:
            if alt and mp.sign(err[alt[-1]]) == mp.sign(err[j]):
                if abs(err[j]) > abs(err[alt[-1]]):
                    alt[-1] = j
            else:
                alt.append(j)
        if len(alt) < m + 1:
            break
        if len(alt) > m + 1:  # the m+1 consecutive extrema with the largest minimum
            s0 = max(range(len(alt) - m), key=lambda s: min(abs(err[j]) for j in alt[s:s + m + 1]))
            alt = alt[s0:s0 + m + 1]
        ref = [xs[j] for j in alt]
        if abs(best - abs(sol[m])) < abs(sol[m]) * mp.mpf('1e-3'):
            break
    return c, best


def show(name, c, err):
    print('%s: max weighted error %s' % (name, mp.nstr(err, 3)))
    print('    ' + ', '.join('%.9ef' % float(ck) for ck in c))


def erfc_exponent(p, scale):
    """Q(u) with erfc(scale x) = u exp(-(scale x)^2 + Q(u)), u = 1/(1 + p x)."""
    def q(u):
        x = (1 / u - 1) / p
        t = scale * x
        return mp.log(mp.erfc(t)) + t * t - mp.log(u)
    return q


def main():
    one = lambda v: mp.mpf(1)
    # exp(r) = 1 + r + r^2 P(r) on [-ln2/2, ln2/2], relative error
    half_ln2 = mp.log(2) / 2 * mp.mpf('1.01')
    c, e = remez(lambda r: mp.mpf('0.5') if r == 0 else (mp.expm1(r) - r) / r**2,
                 lambda r: r * r / mp.exp(r), 4, -half_ln2, half_ln2)
    show('exp: P, degree 4', c, e)
    # tanh(x) = x P(x^2) for |x| < 0.55, relative error
    tanh_q = lambda s: mp.mpf(1) if s == 0 else mp.tanh(mp.sqrt(s)) / mp.sqrt(s)
    c, e = remez(tanh_q, lambda s: 1 / tanh_q(s), 5, mp.mpf(0), mp.mpf('0.55')**2)
    show('tanh: P(s), degree 5 (c0 rounds to 1)', c, e)
    # erf(x) = x P(x^2) for |x| < 0.6, relative error
    erf_q = lambda s: 2 / mp.sqrt(mp.pi) if s == 0 else mp.erf(mp.sqrt(s)) / mp.sqrt(s)
    c, e = remez(erf_q, lambda s: 1 / erf_q(s), 4, mp.mpf(0), mp.mpf('0.6')**2)
    show('erf small: P(s), degree 4', c, e)
    # erf(t) = 1 - u exp(-t^2 + Q(u)), u = 1/(1 + t/2), t in [0.6, 4]:
    # weight erfc/erf, the error relative to erf
    p = mp.mpf('0.5')
    tof = lambda u: (1 / u - 1) / p
    c, e = remez(erfc_exponent(p, 1), lambda u: mp.erfc(tof(u)) / mp.erf(tof(u)), 5,
                 1 / (1 + p * 4), 1 / (1 + p * mp.mpf('0.6')))
    show('erf large: Q(u), degree 5', c, e)
    # GELU: erfc(x/sqrt 2) = u exp(-x^2/2 + Q(u)), u = 1/(1 + x/4), x in
    # [0, 14.6]; weight 1: Q's error is erfc's relative error
    p = mp.mpf('0.25')
    c, e = remez(erfc_exponent(p, 1 / mp.sqrt(2)), one, 9, 1 / (1 + p * mp.mpf('14.6')), mp.mpf(1))
    show('gelu: Q(u), degree 9', c, e)
    # constants split in float pairs
    for name, v in (('ln 2', mp.log(2)), ('2 sqrt(2/pi)', 2 * mp.sqrt(2 / mp.pi)),
                    ('0.044715 * 2 sqrt(2/pi)', mp.mpf('0.044715') * 2 * mp.sqrt(2 / mp.pi))):
        hi = float(mp.mpf(float(v)))
        import struct
        hi = struct.unpack('f', struct.pack('f', hi))[0]
        lo = struct.unpack('f', struct.pack('f', float(v - mp.mpf(hi))))[0]
        print('%s = %.9ef + %.9ef' % (name, hi, lo))


if __name__ == '__main__':
    main()
