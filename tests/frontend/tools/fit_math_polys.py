#!/usr/bin/env python3
"""Fits the polynomial coefficients of sim/compiler/include/tsm_cuda_math.h (developer tool).

Not run by the build or the tests: the header carries the coefficients it prints, and the tests
measure the accuracy that results. Needs mpmath (`pip install mpmath`).

Each kernel is written as a correction term P(u) around the leading terms of a Taylor series
(e.g. sin r = r + r^3 P(r^2)), so P is smooth and of constant sign and an absolute fit is a relative
one; erfc's P is centred (in t - 0.55) so that Horner's rule does not cancel, and its constant
term is a pair of floats (a single float's rounding would be a floor on the error at the centre). P is a least-squares fit at Chebyshev nodes (close to minimax); its coefficients are rounded
to binary32 one at a time, lowest order first, refitting the higher orders after each rounding so
that they absorb the rounding error of the coefficients already fixed.

Usage: fit_math_polys.py [NAME...]   (no name: all kernels)
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 50


def to_f32(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def hexf(x):
    """A C++17 hex float literal for a binary32 value."""
    if x == 0:
        return "0.0f"
    mantissa, exponent = float(x).hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def nodes(a, b, n):
    """Chebyshev nodes of [a, b] (never the endpoints, where some corrections are 0/0)."""
    return [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (k + 0.5) / n) for k in range(n)]


def least_squares(f, points, powers):
    """Coefficients for the given powers of u minimizing the squared error at points."""
    A = mp.matrix([[u**p for p in powers] for u in points])
    y = mp.matrix([f(u) for u in points])
    return mp.qr_solve(A, y)[0]


def fit(f, a, b, degree, split_c0=False):
    """Coefficients c0..c_degree (low order first), each a binary32 value; with split_c0, c0 is
    a pair (hi, lo) whose sum carries it to twice the precision."""
    points = nodes(a, b, 8 * (degree + 1))
    fixed = []
    for i in range(degree + 1):
        rest = lambda u: f(u) - sum(c * u**k for k, c in enumerate(fixed))
        c = least_squares(rest, points, range(i, degree + 1))[0]
        fixed.append(to_f32(c))
        if i == 0 and split_c0:
            fixed[0] += to_f32(c - fixed[0])
    check = nodes(a, b, 2000)
    err = max(abs(f(u) - sum(c * u**k for k, c in enumerate(fixed))) for u in check)
    if split_c0:
        hi = to_f32(fixed[0])
        fixed[0] = (hi, to_f32(fixed[0] - hi))
    return fixed, err


def odd(fn):
    # For an odd function F(x) = x + x^3 P(x^2): P(u) = (F(sqrt u) - sqrt u) / u^1.5.
    return lambda u: (fn(mp.sqrt(u)) - mp.sqrt(u)) / u**mp.mpf(1.5)


KERNELS = {
    # name: (P(u), interval, degree, what it is)
    "exp": (lambda r: (mp.exp(r) - 1 - r) / r**2, (-mp.log(2) / 2, mp.log(2) / 2), 5,
            "e^r = 1 + r + r^2 P(r), |r| <= ln2/2"),
    "exp2": (lambda r: (mp.power(2, r) - 1) / r, (-0.5, 0.5), 6,
             "2^r = 1 + r P(r), |r| <= 1/2"),
    "exp10": (lambda r: (mp.power(10, r) - 1) / r, (-mp.log10(2) / 2, mp.log10(2) / 2), 6,
              "10^r = 1 + r P(r), |r| <= log10(2)/2"),
    "log": (lambda f: (mp.log1p(f) - f) / f**2, (mp.sqrt(0.5) - 1, mp.sqrt(2) - 1), 9,
            "log(1+f) = f + f^2 P(f), sqrt(1/2)-1 <= f < sqrt(2)-1"),
    "log_s": (lambda u: (2 * mp.atanh(mp.sqrt(u)) - 2 * mp.sqrt(u) - 2 * u**mp.mpf(1.5) / 3)
              / u**mp.mpf(2.5), (0, ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1))**2), 3,
              "log(1+f) = 2s + 2s^3/3 + s^5 P(s^2), s = f/(2+f)"),
    "sin": (odd(mp.sin), (0, (mp.pi / 4)**2), 3, "sin r = r + r^3 P(r^2), |r| <= pi/4"),
    "cos": (lambda u: (mp.cos(mp.sqrt(u)) - 1 + u / 2) / u**2, (0, (mp.pi / 4)**2), 3,
            "cos r = 1 - r^2/2 + r^4 P(r^2), |r| <= pi/4"),
    "tan": (odd(mp.tan), (0, (mp.pi / 4)**2), 7, "tan r = r + r^3 P(r^2), |r| <= pi/4"),
    "atan": (odd(mp.atan), (0, 1), 9, "atan t = t + t^3 P(t^2), |t| <= 1"),
    "asin": (odd(mp.asin), (0, 0.25), 5, "asin x = x + x^3 P(x^2), |x| <= 1/2"),
    "sinh": (odd(mp.sinh), (0, 1), 4, "sinh x = x + x^3 P(x^2), |x| <= 1"),
    "tanh": (odd(mp.tanh), (0, 0.5625**2), 6, "tanh x = x + x^3 P(x^2), |x| <= 0.5625"),
    "erf": (lambda u: (mp.erf(mp.sqrt(u)) / mp.sqrt(u) - 2 / mp.sqrt(mp.pi)) / u, (0, 1), 7,
            "erf x = 2/sqrt(pi) x + x^3 P(x^2), |x| <= 1"),
    "erfc": (lambda w: mp.erfc(1 / (w + 0.55)) * mp.exp(1 / (w + 0.55)**2) / (w + 0.55),
             (1 / mp.mpf(10.1) - 0.55, 1 - mp.mpf(0.55)), 12,
             "erfc x = exp(-x^2) t P(t - 0.55), t = 1/x, 1 <= x <= 10.1", True),
    "erfc_mid": (lambda w: mp.erfc(w + 0.75) * mp.exp((w + 0.75)**2), (-0.25, 0.25), 8,
                 "erfc x = exp(-x^2) P(x - 0.75), 1/2 <= x <= 1", True),
}


def main(names):
    for name in names or KERNELS:
        f, (a, b), degree, what, *split = KERNELS[name]
        coeffs, err = fit(f, mp.mpf(a), mp.mpf(b), degree, bool(split))
        print(f"// {name}: {what}; fit error {mp.nstr(err, 3)}")
        if split:
            print(f"  c0 = {hexf(coeffs[0][0])} + {hexf(coeffs[0][1])}")
            coeffs = coeffs[1:]
        print("  " + ", ".join(hexf(c) for c in coeffs))


if __name__ == "__main__":
    main(sys.argv[1:])
