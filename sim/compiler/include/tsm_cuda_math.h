// tsm_cuda_math.h — TeslaSM's accurate single-precision math library (sinf, expf, powf, ...).
//
// Written only with binary32 arithmetic, fma and 32/64-bit integer operations, the way CUDA's own
// libdevice is: range reduction, then a polynomial. The same source compiles
//   - for the device, inside tsm_cuda.h (clang -x cuda), where the functions become the global
//     CUDA names sinf, cosf, ...;
//   - for the host, with any C++17 compiler (`#include "tsm_cuda_math.h"`), as tsm_math::sinf,
//     ...; the tests compare those against the host C library, so the accuracy the doc states is
//     measured, not hoped for.
// Both builds compute bit-identical results: every rounded product that feeds an addition goes
// through mul() (an explicit `mul.rn.f32` on the device), because clang contracts a*b+c into an
// fma in CUDA device code whatever a pragma says (-ffp-contract=fast is its CUDA default); every
// fma is written out. The host build must therefore not contract either (-ffp-contract=off).
// (Checked on a real GPU: tests/frontend/tools/device_check.cpp.)
//
// Accuracy, measured over every float input (docs/cuda-frontends.md has the table): within 1.5 ulp
// everywhere, within 1 ulp for most functions. No SFU approximation, no f64, no memory tables.
// Subnormal inputs and results are supported (no flush to zero); special values follow C99 Annex F.
//
// Polynomial coefficients come from tests/frontend/tools/fit_math_polys.py (the kernel name is
// given at each polynomial).
#pragma once

#if defined(__CUDA__)
#define TSM_MATH_FN static __inline__ __attribute__((always_inline, host, device))
#else
#define TSM_MATH_FN static inline
#endif

namespace tsm_math {
namespace detail {

// ---- Bits and exactly rounded operations ----------------------------------------------------

TSM_MATH_FN unsigned as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
TSM_MATH_FN float as_float(unsigned u) { return __builtin_bit_cast(float, u); }

/// A rounded product that is never fused with a following add (see the file comment). On the
/// device it is inline asm: LLVM turns __nvvm_mul_rn_f into a plain fmul, which it then fuses.
TSM_MATH_FN float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  float p;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(p) : "f"(a), "f"(b));
  return p;
#else
  return a * b;
#endif
}
TSM_MATH_FN float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
TSM_MATH_FN float fabs(float x) { return __builtin_fabsf(x); }
TSM_MATH_FN float copysign(float x, float s) { return __builtin_copysignf(x, s); }
TSM_MATH_FN float rint(float x) { return __builtin_rintf(x); }
TSM_MATH_FN float sqrt(float x) { return __builtin_sqrtf(x); }
TSM_MATH_FN bool isnan(float x) { return x != x; }

constexpr float kInf = __builtin_inff();
TSM_MATH_FN float nan() { return __builtin_nanf(""); }

/// 2^k for -126 <= k <= 127.
TSM_MATH_FN float pow2(int k) { return as_float(static_cast<unsigned>(k + 127) << 23); }

/// y * 2^k for -300 <= k <= 300, rounded once: y * 2^(k/2) is exact for y in [2^-50, 2^50], the
/// second factor rounds (overflow to inf, gradual underflow).
TSM_MATH_FN float scale2(float y, int k) {
  int k1 = k / 2;
  return y * pow2(k1) * pow2(k - k1);
}

/// p(u) = c0 + c1 u + c2 u^2 + ... by Horner's rule with fma, low-order coefficient first.
TSM_MATH_FN float horner(float, float c0) { return c0; }
template <typename... C>
TSM_MATH_FN float horner(float u, float c0, C... rest) {
  return fma(horner(u, rest...), u, c0);
}

/// A float-float number hi + lo, |lo| <= ulp(hi)/2: about 48 bits of significand.
struct df {
  float hi, lo;
};

/// a + b exactly as hi + lo, given |a| >= |b| or a == 0 (Dekker's Fast2Sum).
TSM_MATH_FN df fast_two_sum(float a, float b) {
  float s = a + b;
  return {s, b - (s - a)};
}
TSM_MATH_FN df neg(df a) { return {-a.hi, -a.lo}; }
/// a * b exactly as hi + lo (no overflow or underflow).
TSM_MATH_FN df two_prod(float a, float b) {
  float p = mul(a, b);
  return {p, fma(a, b, -p)};
}
/// (a.hi + a.lo) * (c.hi + c.lo), relative error about 2^-44.
TSM_MATH_FN df mul_df(df a, df c) {
  df p = two_prod(a.hi, c.hi);
  p.lo = fma(a.hi, c.lo, fma(a.lo, c.hi, p.lo));
  return fast_two_sum(p.hi, p.lo);
}
/// e * (c.hi + c.lo), relative error about 2^-44 (no underflow).
TSM_MATH_FN df mul_df(float e, df c) {
  df p = two_prod(e, c.hi);
  p.lo = fma(e, c.lo, p.lo);
  return p;
}
/// a + b for any magnitudes, relative error about 2^-44 (Knuth's TwoSum on the high parts).
TSM_MATH_FN df add_df(df a, df b) {
  float s = a.hi + b.hi;
  float bv = s - a.hi;
  float err = (a.hi - (s - bv)) + (b.hi - bv);
  return fast_two_sum(s, err + a.lo + b.lo);
}

// ---- Constants (hi + lo splits from mpmath) --------------------------------------------------

constexpr df kLn2 = {0x1.62e43p-1f, -0x1.05c61p-29f};
constexpr df kLog2e = {0x1.715476p+0f, 0x1.4ae0cp-26f};
constexpr df kLog10of2 = {0x1.344136p-2f, -0x1.ec10cp-27f};
constexpr df kLog10e = {0x1.bcb7b2p-2f, -0x1.5b235ep-27f};
constexpr float kLog2of10 = 0x1.a934fp+1f;
constexpr df kPi = {0x1.921fb6p+1f, -0x1.777a5cp-24f};
constexpr df kPiOver2 = {0x1.921fb6p+0f, -0x1.777a5cp-25f};
constexpr float kPiOver2Third = -0x1.ee59dap-50f;  // third part of a three-way split of pi/2
constexpr float kTwoOverPi = 0x1.45f306p-1f;
constexpr df kTwoThirds = {0x1.555556p-1f, -0x1.555556p-26f};
constexpr df kTwoOverSqrtPi = {0x1.20dd76p+0f, -0x1.f7ac92p-25f};

// ---- Exponentials --------------------------------------------------------------------------

/// e^r - 1 = r + r^2 P(r) for |r| <= ln2/2 (kernel "exp"); returns P(r).
TSM_MATH_FN float expm1_poly(float r) {
  return horner(r, 0x1p-1f, 0x1.555556p-3f, 0x1.555502p-5f, 0x1.110fc8p-7f, 0x1.6d2e04p-10f,
                0x1.a2cb5ep-13f);
}
TSM_MATH_FN float expm1_kernel(float r) { return fma(expm1_poly(r), mul(r, r), r); }

/// x = k ln2 + r, |r| <= ln2/2 (about), for |x| <= 104: returns r, sets k.
TSM_MATH_FN float exp_reduce(float x, int& k) {
  float kf = rint(x * kLog2e.hi);
  float r = fma(kf, -kLn2.hi, x);  // exact: Cody-Waite with an fma
  k = static_cast<int>(kf);
  return fma(kf, -kLn2.lo, r);
}

/// e^x = 2^k (1 + p): returns p, sets k. |x| <= 104.
TSM_MATH_FN float exp_reduced(float x, int& k) { return expm1_kernel(exp_reduce(x, k)); }

/// e^x = 2^k (hi + lo), sqrt(1/2) <= hi + lo <= sqrt(2), for |x| <= 104; sets k.
TSM_MATH_FN df exp_parts(float x, int& k) {
  float r = exp_reduce(x, k);
  df one_plus_r = fast_two_sum(1.0f, r);
  return fast_two_sum(one_plus_r.hi, fma(expm1_poly(r), mul(r, r), one_plus_r.lo));
}

/// 2^k (a.hi + a.lo) for -126 <= k <= 127, exactly (no overflow or underflow).
TSM_MATH_FN df scale_df(df a, int k) { return {a.hi * pow2(k), a.lo * pow2(k)}; }

/// 1/(a.hi + a.lo) as hi + lo.
TSM_MATH_FN df recip_df(df a) {
  float r = 1.0f / a.hi;
  return {r, (fma(-r, a.hi, 1.0f) - mul(r, a.lo)) * r};
}

/// 2^r for |r| <= 1/2 (kernel "exp2").
TSM_MATH_FN float exp2_kernel(float r) {
  float p = horner(r, 0x1.62e43p-1f, 0x1.ebfbep-3f, 0x1.c6b06cp-5f, 0x1.3b2a54p-7f, 0x1.5da97cp-10f,
                   0x1.44175ep-13f, 0x1.da62dcp-17f);
  return fma(r, p, 1.0f);
}

// ---- Logarithms ----------------------------------------------------------------------------

/// Splits x > 0 (finite, not subnormal) as x = 2^e * m, sqrt(1/2) <= m < sqrt(2); returns m - 1
/// (exact).
TSM_MATH_FN float log_reduce(float x, int& e) {
  unsigned ix = as_uint(x);
  unsigned t = ix - 0x3f3504f3u;  // bits of sqrt(1/2)
  e = static_cast<int>(t) >> 23;
  return as_float(ix - (t & 0xff800000u)) - 1.0f;
}

/// log(1 + f) as hi + lo for sqrt(1/2)-1 <= f < sqrt(2)-1 (kernel "log"); about 2^-26 relative.
TSM_MATH_FN df log1p_kernel(float f) {
  float q = horner(f, -0x1p-1f, 0x1.55554ep-2f, -0x1.fffff4p-3f, 0x1.99a148p-3f, -0x1.555f7ep-3f,
                   0x1.237ccep-3f, -0x1.fbfec6p-4f, 0x1.e2eaep-4f, -0x1.dd9804p-4f, 0x1.1c6a8ep-4f);
  float t = mul(q, mul(f, f));
  return fast_two_sum(f, t);
}

/// log(x) = e ln2 + (hi + lo) for finite x > 0; subnormals scaled first.
TSM_MATH_FN df log_parts(float x, float correction, float& e) {
  int ei = 0;
  if (x < 0x1p-126f) {
    x *= 0x1p23f;
    ei = -23;
  }
  int er;
  df l = log1p_kernel(log_reduce(x, er));
  l.lo += correction;  // log1pf: log(u + c) = log u + c/u; zero otherwise
  e = static_cast<float>(ei + er);
  return l;
}

/// The special cases of log, log2, log10: x <= 0, inf, NaN. Returns true if handled.
TSM_MATH_FN bool log_special(float x, float& result) {
  if (x > 0.0f && x < kInf) return false;
  if (x == 0.0f)
    result = -kInf;
  else if (x < 0.0f)
    result = nan();
  else
    result = x + x;  // +inf, or NaN quieted
  return true;
}

/// log2 of x > 0 finite as hi + lo, about 2^-40 relative (for powf): log(1+f) = 2 atanh(s) =
/// 2s + 2s^3/3 + s^5 P(s^2) with s = f / (2 + f), the first two terms carried in two floats
/// (kernel "log_s").
TSM_MATH_FN df log2_accurate(float x) {
  int ei = 0;
  if (x < 0x1p-126f) {
    x *= 0x1p23f;
    ei = -23;
  }
  int er;
  float f = log_reduce(x, er);
  df d = fast_two_sum(2.0f, f);  // 2 + f exactly
  float rcp = 1.0f / d.hi;
  float sh = mul(f, rcp);
  float rem = fma(-sh, d.hi, f);  // f - sh (2 + f), exact
  rem = fma(-sh, d.lo, rem);
  float sl = mul(rem, rcp);  // s = sh + sl
  df s2 = two_prod(sh, sh);
  df s3 = two_prod(s2.hi, sh);
  s3.lo = fma(s2.lo, sh, s3.lo);
  df t3 = mul_df(s3, kTwoThirds);  // 2s^3/3
  float t5 = mul(mul(s3.hi, s2.hi),
                 horner(s2.hi, 0x1.99999ap-2f, 0x1.24921p-2f, 0x1.c70418p-3f, 0x1.827d1cp-3f));
  // sl enters through the derivative of 2s + 2s^3/3: (2 + 2s^2) sl.
  float low = fma(2.0f + 2.0f * s2.hi, sl, t3.lo + t5);
  df l = fast_two_sum(2.0f * sh, t3.hi);
  l = fast_two_sum(l.hi, l.lo + low);
  return add_df({static_cast<float>(ei + er), 0.0f}, mul_df(l, kLog2e));
}

// ---- Trigonometric -------------------------------------------------------------------------

/// sin(r + r_lo) for |r| <= pi/4, |r_lo| <= ulp(r) (kernel "sin"): r + (r^3 P(r^2) + r_lo cos r).
TSM_MATH_FN float sin_kernel(float r, float r_lo) {
  float u = mul(r, r);
  float p = horner(u, -0x1.555556p-3f, 0x1.11119ap-7f, -0x1.a08584p-13f, 0x1.88275ap-19f);
  return r + fma(p, mul(r, u), fma(-0.5f * u, r_lo, r_lo));
}

/// cos(r + r_lo) for |r| <= pi/4 (kernel "cos"): 1 - r^2/2 + r^4 P(r^2) - r r_lo, with 1 - r^2/2
/// carried in two floats (r^2 = u + u_err exactly).
TSM_MATH_FN float cos_kernel(float r, float r_lo) {
  float u = mul(r, r);
  float u_err = fma(r, r, -u);
  float p = horner(u, 0x1.555556p-5f, -0x1.6c17d4p-10f, 0x1.a0f5d8p-16f, -0x1.590332p-22f);
  float w = 0.5f * u;
  float h = 1.0f - w;
  float tail = ((1.0f - h) - w) + fma(mul(u, u), p, -fma(r, r_lo, 0.5f * u_err));
  return h + tail;
}

/// tan(r + r_lo) as hi + lo for |r| <= pi/4 (kernel "tan"); d tan / dr = 1 + tan^2.
TSM_MATH_FN df tan_kernel(float r, float r_lo) {
  float u = mul(r, r);
  float p = horner(u, 0x1.555556p-2f, 0x1.1110cap-3f, 0x1.ba2bb4p-5f, 0x1.659c66p-6f,
                   0x1.24f5c8p-7f, 0x1.e828a4p-9f, 0x1.8c4598p-11f, 0x1.7f8eacp-10f);
  df t = fast_two_sum(r, mul(p, mul(r, u)));
  t.lo = fma(r_lo, fma(t.hi, t.hi, 1.0f), t.lo);
  return t;
}

/// Word i (0-based, -1 gives 0) of the binary expansion of 2/pi: 0.A2F9836E 4E441529 ...
TSM_MATH_FN unsigned two_over_pi_word(int i) {
  // Selected without a memory table, so the kernel needs no constant data.
  return i == 0   ? 0xA2F9836Eu
         : i == 1 ? 0x4E441529u
         : i == 2 ? 0xFC2757D1u
         : i == 3 ? 0xF534DDC0u
         : i == 4 ? 0xDB629599u
         : i == 5 ? 0x3C439041u
         : i == 6 ? 0xFE5163ABu
                  : 0u;
}

/// Payne-Hanek reduction of a finite ax >= 2^-6: ax = (q + f) pi/2 with q an integer and
/// |f| <= 1/2, from x * 2/pi computed to 64 fraction bits with integer arithmetic. Returns
/// f pi/2 as hi + lo (relative error about 2^-40), sets q (mod 4).
TSM_MATH_FN df reduce_payne_hanek(float ax, int& q) {
  unsigned ix = as_uint(ax);
  unsigned long long m = (ix & 0x7fffffu) | 0x800000u;  // ax = m * 2^shift
  int shift = static_cast<int>(ix >> 23) - 150;
  // The words of 2/pi before word j0 only contribute multiples of 4 (whole turns): skip them,
  // and multiply m by the 128-bit window of words j0..j0+3 instead.
  int j0 = (shift - 2) >> 5;  // shift - 32 j0 is in [2, 33]
  // The low 128 bits of the product, as four 32-bit limbs (the bits above are whole turns too).
  unsigned p[4];
  unsigned long long carry = 0;
  for (int i = 3; i >= 0; --i) {
    carry += m * two_over_pi_word(j0 + i);
    p[3 - i] = static_cast<unsigned>(carry);
    carry >>= 32;
  }
  // The product's bit 129 - (shift - 32 j0) has weight 2^1: take it and the 63 bits below.
  int s = 34 - (shift - 32 * j0);  // in [1, 32]
  unsigned long long mid = (static_cast<unsigned long long>(p[2]) << 32) | p[1];
  unsigned long long v = (mid >> s) | (static_cast<unsigned long long>(p[3]) << (64 - s));
  // Round to the nearest quadrant: the two integer bits plus the first fraction bit.
  q = static_cast<int>((v + (1ull << 61)) >> 62);
  long long frac = static_cast<long long>(v << 2);  // signed, in units of 2^-64
  unsigned long long a = frac < 0 ? 0ull - static_cast<unsigned long long>(frac)
                                  : static_cast<unsigned long long>(frac);
  if (a == 0) return {0.0f, 0.0f};
  int lz = __builtin_clzll(a);
  a <<= lz;
  // |f| = (hi24 2^40 + lo24 2^16 + ...) 2^(-64-lz), both parts exact floats.
  float fh = static_cast<float>(static_cast<unsigned>(a >> 40)) * pow2(-24 - lz);
  float fl = static_cast<float>(static_cast<unsigned>(a >> 16) & 0xffffffu) * pow2(-48 - lz);
  df r = two_prod(fh, kPiOver2.hi);
  r = fast_two_sum(r.hi, fma(fl, kPiOver2.hi, fma(fh, kPiOver2.lo, r.lo)));
  return frac < 0 ? df{-r.hi, -r.lo} : r;
}

/// x = q pi/2 + r for finite x, |r| <= pi/4 (about); returns r as hi + lo (relative error about
/// 2^-40), sets q.
TSM_MATH_FN df reduce_pio2(float x, int& q) {
  if (fabs(x) <= 105615.0f) {
    // Cody-Waite with a three-part pi/2 = P1 + P2 + P3: x - k P1 is exact (k P1 and x are
    // multiples of 2^-23 and differ by less than 2); k P2 is exact as two floats (k < 2^17).
    float k = rint(x * kTwoOverPi);
    float r1 = fma(k, -kPiOver2.hi, x);
    df p = two_prod(k, kPiOver2.lo);
    df r = add_df({r1, 0.0f}, {-p.hi, -p.lo});
    r = fast_two_sum(r.hi, fma(k, -kPiOver2Third, r.lo));
    q = static_cast<int>(k);
    return r;
  }
  df r = reduce_payne_hanek(fabs(x), q);
  if (x < 0.0f) {
    q = -q;
    r = {-r.hi, -r.lo};
  }
  return r;
}

/// sin(pi (r + q/2)) for |r| <= 1/4, r exact.
TSM_MATH_FN float sin_cos_pi_kernel(float r, int q) {
  df a = mul_df(r, kPi);  // pi r to about 2^-44
  float s = (q & 1) ? cos_kernel(a.hi, a.lo) : sin_kernel(a.hi, a.lo);
  return (q & 2) ? -s : s;
}

/// atan t as hi + lo for 0 <= t <= 1 (kernel "atan").
TSM_MATH_FN df atan_kernel(float t) {
  float u = mul(t, t);
  float p =
      horner(u, -0x1.555556p-2f, 0x1.9999bep-3f, -0x1.2490b8p-3f, 0x1.c6a61cp-4f, -0x1.6ff086p-4f,
             0x1.256f7cp-4f, -0x1.a1f138p-5f, 0x1.ce2572p-6f, -0x1.4b1c42p-7f, 0x1.bbab1ep-10f);
  return fast_two_sum(t, mul(p, mul(t, u)));
}

/// asin x for |x| <= 1/2 (kernel "asin"), the x^3 term only: asin x = x + asin_tail(x).
TSM_MATH_FN float asin_tail(float x) {
  float u = mul(x, x);
  float p = horner(u, 0x1.555554p-3f, 0x1.3334c6p-4f, 0x1.6d40ccp-5f, 0x1.ff8616p-6f,
                   0x1.10f0eap-6f, 0x1.19ecf4p-5f);
  return mul(p, mul(x, u));
}

/// For 1/2 < |x| <= 1: asin |x| = pi/2 - 2 asin s, s = sqrt((1-|x|)/2). Returns 2 asin s as
/// hi + lo, with the rounding error of the square root carried in lo.
TSM_MATH_FN df two_asin_of_half_complement(float ax) {
  float z = (1.0f - ax) * 0.5f;  // exact
  float s = sqrt(z);
  float s_err = fma(-s, s, z) / (2.0f * s + 0x1p-126f);  // sqrt(z) - s, to first order
  return {2.0f * s, 2.0f * (asin_tail(s) + s_err)};
}

// ---- Hyperbolic ----------------------------------------------------------------------------

/// sinh x for |x| <= 1 (kernel "sinh").
TSM_MATH_FN float sinh_kernel(float x) {
  float u = mul(x, x);
  float p =
      horner(u, 0x1.555556p-3f, 0x1.111082p-7f, 0x1.a09b1ep-13f, 0x1.46bf9cp-19f, 0x1.6937cp-23f);
  return fma(p, mul(x, u), x);
}

/// tanh x for |x| <= 0.5625 (kernel "tanh").
TSM_MATH_FN float tanh_kernel(float x) {
  float u = mul(x, x);
  float p = horner(u, -0x1.555556p-2f, 0x1.111186p-3f, -0x1.ba497ap-5f, 0x1.6a2756p-6f,
                   -0x1.4a4e3cp-7f, 0x1.ae9ed6p-8f, -0x1.08c7cp-8f);
  return fma(p, mul(x, u), x);
}

}  // namespace detail

// ==== The CUDA single-precision math library ==================================================

// ---- Rounding, magnitude, and other exact operations -----------------------------------------

TSM_MATH_FN float fabsf(float x) { return __builtin_fabsf(x); }
// min.f32 / max.f32 on the device; on the host the same rule for NaN operands, quiet or signaling:
// the other operand (the C library turns a signaling NaN into a NaN result instead).
TSM_MATH_FN float fminf(float a, float b) {
#if !defined(__CUDA_ARCH__)
  if (detail::isnan(a) || detail::isnan(b))
    return detail::isnan(a) ? (detail::isnan(b) ? detail::nan() : b) : a;
#endif
  return __builtin_fminf(a, b);
}
TSM_MATH_FN float fmaxf(float a, float b) {
#if !defined(__CUDA_ARCH__)
  if (detail::isnan(a) || detail::isnan(b))
    return detail::isnan(a) ? (detail::isnan(b) ? detail::nan() : b) : a;
#endif
  return __builtin_fmaxf(a, b);
}
TSM_MATH_FN float fdimf(float a, float b) { return a > b ? a - b : (a <= b ? 0.0f : a + b); }
TSM_MATH_FN float copysignf(float x, float s) { return __builtin_copysignf(x, s); }
TSM_MATH_FN float floorf(float x) { return __builtin_floorf(x); }
TSM_MATH_FN float ceilf(float x) { return __builtin_ceilf(x); }
TSM_MATH_FN float truncf(float x) { return __builtin_truncf(x); }
TSM_MATH_FN float roundf(float x) { return __builtin_roundf(x); }
TSM_MATH_FN float rintf(float x) { return __builtin_rintf(x); }
TSM_MATH_FN float nearbyintf(float x) { return __builtin_rintf(x); }
TSM_MATH_FN float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
TSM_MATH_FN float sqrtf(float x) { return __builtin_sqrtf(x); }  // sqrt.rn.f32

/// x 2^n, rounded once (the exponent is set directly; a subnormal result takes one multiply).
TSM_MATH_FN float ldexpf(float x, int n) {
  using namespace detail;
  if (x == 0.0f || !(fabs(x) < kInf)) return x + x;
  if (fabs(x) < 0x1p-126f) {  // subnormal: normalize exactly
    x *= 0x1p24f;
    n = n < -1000 ? -1000 : n - 24;
  }
  unsigned ix = as_uint(x);
  int e = static_cast<int>((ix >> 23) & 0xffu) - 127;
  int target = n > 1000 ? 1000 : (n < -1000 ? -1000 : e + n);
  if (target > 127) return copysign(kInf, x);
  if (target < -180) return copysign(0.0f, x);
  if (target >= -126)
    return as_float((ix & 0x807fffffu) | static_cast<unsigned>(target + 127) << 23);
  return as_float((ix & 0x807fffffu) | static_cast<unsigned>(target + 64 + 127) << 23) * 0x1p-64f;
}
TSM_MATH_FN float scalbnf(float x, int n) { return ldexpf(x, n); }

TSM_MATH_FN float frexpf(float x, int* e) {
  *e = 0;
  if (x == 0.0f || !(fabsf(x) < detail::kInf)) return x + x;
  int bias = 0;
  if (fabsf(x) < 0x1p-126f) {
    x *= 0x1p32f;
    bias = -32;
  }
  unsigned ix = detail::as_uint(x);
  *e = static_cast<int>((ix >> 23) & 0xffu) - 126 + bias;
  return detail::as_float((ix & 0x807fffffu) | 0x3f000000u);
}

TSM_MATH_FN int ilogbf(float x) {
  if (x == 0.0f) return -2147483647 - 1;         // FP_ILOGB0
  if (detail::isnan(x)) return -2147483647 - 1;  // FP_ILOGBNAN (glibc)
  if (!(fabsf(x) < detail::kInf)) return 2147483647;
  int e;
  frexpf(x, &e);
  return e - 1;
}
TSM_MATH_FN float logbf(float x) {
  if (x == 0.0f) return -detail::kInf;
  if (!(fabsf(x) < detail::kInf)) return x * x;
  return static_cast<float>(ilogbf(x));
}

TSM_MATH_FN float modff(float x, float* ip) {
  float t = truncf(x);
  *ip = t;
  if (!(fabsf(x) < detail::kInf)) return detail::isnan(x) ? x + x : copysignf(0.0f, x);
  return copysignf(x - t, x);
}

/// x - n y with n = trunc(x / y), exact (integer long division of the significands).
TSM_MATH_FN float fmodf(float x, float y) {
  unsigned ux = detail::as_uint(x), uy = detail::as_uint(y);
  unsigned sx = ux & 0x80000000u;
  ux &= 0x7fffffffu;
  uy &= 0x7fffffffu;
  if (uy == 0 || ux >= 0x7f800000u || uy > 0x7f800000u) return detail::nan();
  if (ux < uy) return x;
  if (ux == uy) return detail::as_float(sx);  // signed zero
  // Unpack to (integer significand, exponent), normalizing subnormals.
  int ex = static_cast<int>(ux >> 23), ey = static_cast<int>(uy >> 23);
  unsigned mx, my;
  if (ex == 0) {
    int lz = __builtin_clz(ux) - 8;
    mx = ux << lz;
    ex = 1 - lz;
  } else {
    mx = (ux & 0x7fffffu) | 0x800000u;
  }
  if (ey == 0) {
    int lz = __builtin_clz(uy) - 8;
    my = uy << lz;
    ey = 1 - lz;
  } else {
    my = (uy & 0x7fffffu) | 0x800000u;
  }
  for (; ex > ey; --ex) {
    if (mx >= my) mx -= my;
    if (mx == 0) return detail::as_float(sx);
    mx <<= 1;
  }
  if (mx >= my) mx -= my;
  if (mx == 0) return detail::as_float(sx);
  // Renormalize and repack (the result may be subnormal).
  int lz = __builtin_clz(mx) - 8;
  mx <<= lz;
  ex -= lz;
  unsigned bits = ex > 0 ? ((mx & 0x7fffffu) | (static_cast<unsigned>(ex) << 23)) : mx >> (1 - ex);
  return detail::as_float(bits | sx);
}

/// x - n y with n = x / y rounded to nearest, ties to even; exact.
TSM_MATH_FN float remainderf(float x, float y) {
  float ay = fabsf(y);
  if (detail::isnan(x) || detail::isnan(y)) return x + y;
  if (ay == 0.0f || !(fabsf(x) < detail::kInf)) return detail::nan();
  if (ay == detail::kInf) return x;
  float scale = 1.0f;
  if (ay > 0x1p126f) {
    // 2y would overflow: work on x/4 and y/4, exact since |x| > |y|/2 is large too.
    if (fabsf(x) <= 0.5f * ay) return x;
    x *= 0.25f;
    ay *= 0.25f;
    scale = 4.0f;
  }
  // Reduce to |x| < 2|y| with fmod (exact, removes an even multiple of y), then subtract y at
  // most twice; |x| == |y|/2 and |x| == 3|y|/2 are ties, resolved to the even multiple.
  float ax = fabsf(fmodf(x, ay + ay));
  if (ax + ax > ay) {
    ax -= ay;
    if (ax + ax >= ay) ax -= ay;
  }
  if (ax == 0.0f) return copysignf(0.0f, x);
  return scale * (__builtin_signbit(x) ? -ax : ax);
}

// ---- Exponentials --------------------------------------------------------------------------

TSM_MATH_FN float expf(float x) {
  if (detail::isnan(x)) return x + x;
  if (x > 89.0f) return detail::kInf;
  if (x < -104.0f) return 0.0f;
  int k;
  float p = detail::exp_reduced(x, k);
  return detail::scale2(1.0f + p, k);
}

TSM_MATH_FN float exp2f(float x) {
  if (detail::isnan(x)) return x + x;
  if (x > 129.0f) return detail::kInf;
  if (x < -152.0f) return 0.0f;
  float k = detail::rint(x);
  return detail::scale2(detail::exp2_kernel(x - k), static_cast<int>(k));
}

TSM_MATH_FN float exp10f(float x) {
  using namespace detail;
  if (isnan(x)) return x + x;
  if (x > 39.0f) return kInf;
  if (x < -46.0f) return 0.0f;
  // 10^x = 2^k 10^r, |r| <= log10(2)/2 (kernel "exp10").
  float k = rint(x * kLog2of10);
  float r = fma(k, -kLog10of2.hi, x);
  r = fma(k, -kLog10of2.lo, r);
  float p = horner(r, 0x1.26bb1cp+1f, 0x1.53524cp+1f, 0x1.046ffap+1f, 0x1.2bd788p+0f,
                   0x1.14ad3ep-1f, 0x1.a8ccbp-3f, 0x1.5fd46p-5f);
  return scale2(fma(r, p, 1.0f), static_cast<int>(k));
}

TSM_MATH_FN float expm1f(float x) {
  using namespace detail;
  if (isnan(x)) return x + x;
  if (x > 89.0f) return kInf;
  if (x < -18.0f) return -1.0f;
  float ax = fabs(x);
  if (ax < 0x1p-25f) return x;
  if (ax <= 0.34657359f) return expm1_kernel(x);
  int k;
  df e = exp_parts(x, k);
  if (k > 100) return scale2(e.hi, k);  // the -1 is far below half an ulp
  // 2^k (e.hi + e.lo) - 1, rounded once.
  df r = add_df(scale_df(e, k), {-1.0f, 0.0f});
  return r.hi + r.lo;
}

// ---- Logarithms ----------------------------------------------------------------------------

TSM_MATH_FN float logf(float x) {
  using namespace detail;
  float special;
  if (log_special(x, special)) return special;
  float e;
  df l = log_parts(x, 0.0f, e);
  df r = add_df(mul_df(e, kLn2), l);
  return r.hi + r.lo;
}

TSM_MATH_FN float log2f(float x) {
  using namespace detail;
  float special;
  if (log_special(x, special)) return special;
  float e;
  df l = log_parts(x, 0.0f, e);
  df r = add_df({e, 0.0f}, mul_df(l, kLog2e));
  return r.hi + r.lo;
}

TSM_MATH_FN float log10f(float x) {
  using namespace detail;
  float special;
  if (log_special(x, special)) return special;
  float e;
  df l = log_parts(x, 0.0f, e);
  df r = add_df(mul_df(e, kLog10of2), mul_df(l, kLog10e));
  return r.hi + r.lo;
}

namespace detail {
/// log(1 + x + x_lo) for finite x > -1 and |x_lo| <= ulp(x): the rounding error c of u = 1 + x
/// (exact to compute: Sterbenz for |x| < 1, and u - x for x > 1) goes back in as c/u.
TSM_MATH_FN float log1p_df(float x, float x_lo) {
  float u = 1.0f + x;
  float c = fabs(x) < 1.0f ? x - (u - 1.0f) : (x > 1.0f ? 1.0f - (u - x) : 0.0f);
  float e;
  df l = log_parts(u, (c + x_lo) / u, e);
  df r = add_df(mul_df(e, kLn2), l);
  return r.hi + r.lo;
}
}  // namespace detail

TSM_MATH_FN float log1pf(float x) {
  using namespace detail;
  if (isnan(x)) return x + x;
  if (x == -1.0f) return -kInf;
  if (x < -1.0f) return nan();
  if (x == kInf) return x;
  if (fabs(x) < 0x1p-24f) return x;  // log1p x = x - x^2/2 rounds to x (and keeps -0)
  return log1p_df(x, 0.0f);
}

TSM_MATH_FN float powf(float x, float y) {
  using namespace detail;
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (isnan(x) || isnan(y)) return x + y;
  float ax = fabs(x), ay = fabs(y);
  // Is y an odd integer, an even one, or no integer at all?
  bool y_integer = ay >= 0x1p24f || truncf(y) == y;
  bool y_odd = ay < 0x1p24f && y_integer && (static_cast<int>(y) & 1) != 0;
  if (ay == kInf) {
    if (ax == 1.0f) return 1.0f;
    return (ax > 1.0f) == (y > 0.0f) ? kInf : 0.0f;
  }
  if (ax == 0.0f || ax == kInf) {
    // 0^y and inf^y: 0 or inf, with x's sign when y is an odd integer.
    bool big = (ax == 0.0f) == (y < 0.0f);
    float r = big ? kInf : 0.0f;
    return y_odd ? copysignf(r, x) : r;
  }
  if (x < 0.0f && !y_integer) return nan();
  // |x|^y = 2^(y log2|x|), with y log2|x| carried in two floats.
  df l = log2_accurate(ax);
  df z = two_prod(y, l.hi);
  if (z.hi > 129.0f || z.hi < -152.0f)
    return copysignf(z.hi > 0.0f ? kInf : 0.0f, y_odd ? x : 1.0f);
  z.lo = fma(y, l.lo, z.lo);
  float k = rint(z.hi);
  float r = (z.hi - k) + z.lo;  // z.hi - k is exact
  float result = scale2(exp2_kernel(r), static_cast<int>(k));
  return y_odd && x < 0.0f ? -result : result;
}

TSM_MATH_FN float cbrtf(float x) {
  using namespace detail;
  if (x == 0.0f || !(fabs(x) < kInf)) return x + x;
  float ax = fabs(x);
  int bias = 0;
  if (ax < 0x1p-126f) {
    ax *= 0x1p24f;
    bias = -8;
  }
  // ax = a 2^(3q), 1 <= a < 8.
  int e = static_cast<int>(as_uint(ax) >> 23) - 127;
  int q = (e + 300) / 3 - 100;  // floor(e / 3)
  float a = as_float((as_uint(ax) & 0x7fffffu) | static_cast<unsigned>(e - 3 * q + 127) << 23);
  // Initial guess good to about 10%, then Newton steps y -= (y^3 - a) / (3 y^2) (quadratic).
  float y = fma(a, fma(a, -0.01233f, 0.2538f), 0.7585f);  // cbrt on [1, 8) to about 3%
  for (int i = 0; i < 3; ++i) y = fma(a / mul(y, y) - y, 1.0f / 3.0f, y);
  // Last step with the residual y^3 - a computed almost exactly.
  df y2 = two_prod(y, y);
  float residual = fma(y2.hi, y, -a) + mul(y2.lo, y);
  y = y - residual / (3.0f * y2.hi);
  return copysignf(scale2(y, q + bias), x);
}

// ---- Trigonometric -------------------------------------------------------------------------

TSM_MATH_FN float sinf(float x) {
  using namespace detail;
  if (!(fabs(x) < kInf)) return x - x;  // NaN for inf and NaN
  if (fabs(x) < 0x1p-12f) return x;
  int q;
  df r = reduce_pio2(x, q);
  float s = (q & 1) ? cos_kernel(r.hi, r.lo) : sin_kernel(r.hi, r.lo);
  return (q & 2) ? -s : s;
}

TSM_MATH_FN float cosf(float x) {
  using namespace detail;
  if (!(fabs(x) < kInf)) return x - x;
  if (fabs(x) < 0x1p-12f) return 1.0f;
  int q;
  df r = reduce_pio2(x, q);
  float c = (q & 1) ? sin_kernel(r.hi, r.lo) : cos_kernel(r.hi, r.lo);
  return ((q + 1) & 2) ? -c : c;
}

/// sinf and cosf with one range reduction.
TSM_MATH_FN void sincosf(float x, float* s, float* c) {
  using namespace detail;
  if (!(fabs(x) < kInf) || fabs(x) < 0x1p-12f) {
    *s = sinf(x);
    *c = cosf(x);
    return;
  }
  int q;
  df r = reduce_pio2(x, q);
  float sr = sin_kernel(r.hi, r.lo), cr = cos_kernel(r.hi, r.lo);
  float sq = (q & 1) ? cr : sr, cq = (q & 1) ? sr : cr;
  *s = (q & 2) ? -sq : sq;
  *c = ((q + 1) & 2) ? -cq : cq;
}

TSM_MATH_FN float tanf(float x) {
  using namespace detail;
  if (!(fabs(x) < kInf)) return x - x;
  if (fabs(x) < 0x1p-12f) return x;
  int q;
  df r = reduce_pio2(x, q);
  df t = tan_kernel(r.hi, r.lo);
  if (!(q & 1)) return t.hi + t.lo;
  // -1 / (t.hi + t.lo): y = -1/t.hi, corrected by the fma residual 1 + y t.hi and by t.lo.
  float y = -1.0f / t.hi;
  float e = fma(y, t.hi, 1.0f);
  return fma(y, fma(y, t.lo, e), y);
}

/// sin(pi x) and cos(pi x), reduced exactly (no pi in the reduction).
TSM_MATH_FN float sinpif(float x) {
  using namespace detail;
  if (!(fabs(x) < kInf)) return x - x;
  if (fabs(x) >= 0x1p23f) return copysignf(0.0f, x);  // an integer
  float k = rint(x + x);                              // x = k/2 + r, |r| <= 1/4
  float r = x - 0.5f * k;                             // exact
  int q = static_cast<int>(k) & 3;
  float s = sin_cos_pi_kernel(r, q);
  return s == 0.0f ? copysignf(0.0f, x) : s;
}
TSM_MATH_FN float cospif(float x) {
  using namespace detail;
  if (!(fabs(x) < kInf)) return x - x;
  if (fabs(x) >= 0x1p24f) return 1.0f;  // an even integer
  float k = rint(x + x);
  float r = x - 0.5f * k;
  float c = sin_cos_pi_kernel(r, static_cast<int>(k) + 1);
  return c == 0.0f ? 0.0f : c;
}

TSM_MATH_FN float atanf(float x) {
  using namespace detail;
  if (isnan(x)) return x + x;
  float ax = fabs(x);
  if (ax < 0x1p-12f) return x;
  if (ax == kInf) return copysignf(kPiOver2.hi, x);
  float r;
  if (ax <= 1.0f) {
    df a = atan_kernel(ax);
    r = a.hi + a.lo;
  } else {
    // atan x = pi/2 - atan(1/x); the rounding error of 1/x is carried along.
    float t = 1.0f / ax;
    float t_err = fma(-t, ax, 1.0f) * t;  // 1/x - t, to first order
    df a = atan_kernel(t);
    a.lo += t_err / fma(t, t, 1.0f);
    a = add_df(kPiOver2, neg(a));
    r = a.hi + a.lo;
  }
  return copysignf(r, x);
}

TSM_MATH_FN float atan2f(float y, float x) {
  using namespace detail;
  if (isnan(x) || isnan(y)) return x + y;
  float ax = fabs(x), ay = fabs(y);
  bool x_neg = __builtin_signbit(x) != 0;
  float r;
  if (ay == 0.0f) {
    r = x_neg ? kPi.hi : 0.0f;
  } else if (ax == kInf && ay == kInf) {
    r = x_neg ? 3.0f * 0x1.921fb6p-1f : 0x1.921fb6p-1f;  // 3pi/4 (exact product) or pi/4
  } else if (ax == 0.0f || ay == kInf) {
    r = kPiOver2.hi;
  } else if (ax == kInf) {
    r = x_neg ? kPi.hi : 0.0f;
  } else {
    // atan(min/max) in [0, pi/4], then reflect into the right octant.
    bool swap = ay > ax;
    float num = swap ? ax : ay, den = swap ? ay : ax;
    // Scale so that the quotient's rounding error can be recovered without underflow.
    float scale = den > 0x1p100f ? 0x1p-64f : (den < 0x1p-100f ? 0x1p64f : 1.0f);
    num *= scale;
    den *= scale;
    float t = num / den;
    float t_err = fma(-t, den, num) / den;  // num/den - t
    df a = atan_kernel(t);
    a.lo += t_err / fma(t, t, 1.0f);
    if (swap)
      a = x_neg ? add_df(kPiOver2, a) : add_df(kPiOver2, neg(a));
    else if (x_neg)
      a = add_df(kPi, neg(a));
    r = a.hi + a.lo;
  }
  return copysignf(r, y);
}

TSM_MATH_FN float asinf(float x) {
  using namespace detail;
  float ax = fabs(x);
  if (!(ax <= 1.0f)) return isnan(x) ? x + x : nan();
  if (ax < 0x1p-12f) return x;
  float r;
  if (ax <= 0.5f) {
    r = ax + asin_tail(ax);
  } else {
    df t = add_df(kPiOver2, neg(two_asin_of_half_complement(ax)));
    r = t.hi + t.lo;
  }
  return copysignf(r, x);
}

TSM_MATH_FN float acosf(float x) {
  using namespace detail;
  float ax = fabs(x);
  if (!(ax <= 1.0f)) return isnan(x) ? x + x : nan();
  df r;
  if (ax <= 0.5f) {
    r = add_df(kPiOver2, {-x, -asin_tail(x)});  // pi/2 - asin x
  } else {
    df t = two_asin_of_half_complement(ax);
    r = x > 0.0f ? t : add_df(kPi, neg(t));
  }
  return r.hi + r.lo;
}

TSM_MATH_FN float hypotf(float x, float y) {
  using namespace detail;
  float ax = fabs(x), ay = fabs(y);
  if (ax == kInf || ay == kInf) return kInf;
  if (isnan(x) || isnan(y)) return x + y;
  float a = fmaxf(ax, ay), b = fminf(ax, ay);
  if (b == 0.0f) return a;
  // Scale a to [1, 2) by a power of two (b scales exactly unless negligible).
  int ea = static_cast<int>(as_uint(a) >> 23) - 127;
  if (ea == -127) ea = static_cast<int>(as_uint(a * 0x1p23f) >> 23) - 150;
  float sa = scale2(a, -ea), sb = scale2(b, -ea);
  // a^2 + b^2 in two floats, then a corrected square root.
  df a2 = two_prod(sa, sa), b2 = two_prod(sb, sb);
  df s = add_df(a2, b2);
  float h = sqrt(s.hi);
  float h_err = (fma(-h, h, s.hi) + s.lo) / (2.0f * h);
  return scale2(h + h_err, ea);
}

// ---- Hyperbolic ----------------------------------------------------------------------------

TSM_MATH_FN float sinhf(float x) {
  using namespace detail;
  float ax = fabs(x);
  if (!(ax < kInf)) return x + x;
  if (ax < 0x1p-12f) return x;
  if (ax <= 1.0f) return sinh_kernel(x);
  float r;
  if (ax < 9.0f) {
    // (e^a - e^-a) / 2 with both exponentials in two floats.
    int k;
    df e = exp_parts(ax, k);
    df d = add_df(scale_df(e, k), scale_df(recip_df({-e.hi, -e.lo}), -k));
    r = 0.5f * (d.hi + d.lo);
  } else {
    int k;
    float p = exp_reduced(fminf(ax, 90.0f), k);
    r = scale2(1.0f + p, k - 1);  // e^-a is below half an ulp
  }
  return copysignf(r, x);
}

TSM_MATH_FN float coshf(float x) {
  using namespace detail;
  float ax = fabs(x);
  if (!(ax < kInf)) return ax + ax;
  if (ax < 0x1p-12f) return 1.0f;
  if (ax < 9.0f) {
    // (e^a + e^-a) / 2 with both exponentials in two floats.
    int k;
    df e = exp_parts(ax, k);
    df d = add_df(scale_df(e, k), scale_df(recip_df(e), -k));
    return 0.5f * (d.hi + d.lo);
  }
  int k;
  float p = exp_reduced(fminf(ax, 90.0f), k);
  return scale2(1.0f + p, k - 1);
}

TSM_MATH_FN float tanhf(float x) {
  using namespace detail;
  float ax = fabs(x);
  if (isnan(x)) return x + x;
  if (ax < 0x1p-12f) return x;
  if (ax <= 0.5625f) return tanh_kernel(x);
  if (ax >= 9.1f) return copysignf(1.0f, x);
  // 1 - 2 / (e^2a + 1), all in two floats.
  int k;
  df e = exp_parts(ax + ax, k);
  df d = add_df(scale_df(e, k), {1.0f, 0.0f});
  df q = recip_df(d);
  df r = add_df({1.0f, 0.0f}, {-2.0f * q.hi, -2.0f * q.lo});
  return copysignf(r.hi + r.lo, x);
}

TSM_MATH_FN float asinhf(float x) {
  using namespace detail;
  float ax = fabs(x);
  if (!(ax < kInf)) return x + x;
  if (ax < 0x1p-12f) return x;
  float r;
  if (ax > 0x1p30f) {
    r = logf(ax) + kLn2.hi;
  } else if (ax >= 2.0f) {
    r = logf(ax + ax + 1.0f / (sqrt(fma(ax, ax, 1.0f)) + ax));
  } else {
    // log1p(a + a^2 / (1 + sqrt(1 + a^2))), the sum kept in two floats.
    float a2 = mul(ax, ax);
    df y = add_df({ax, 0.0f}, {a2 / (1.0f + sqrt(1.0f + a2)), 0.0f});
    r = log1p_df(y.hi, y.lo);
  }
  return copysignf(r, x);
}

TSM_MATH_FN float acoshf(float x) {
  using namespace detail;
  if (isnan(x)) return x + x;
  if (x < 1.0f) return nan();
  if (x == 1.0f) return 0.0f;
  if (x > 0x1p30f) return logf(x) + kLn2.hi;
  if (x >= 2.0f) return logf(x + x - 1.0f / (x + sqrt(fma(x, x, -1.0f))));
  // log1p(t + sqrt(t^2 + 2t)), t = x - 1 (exact), everything in two floats.
  float t = x - 1.0f;
  df t2 = two_prod(t, t);
  df z = fast_two_sum(t + t, t2.hi);
  z.lo += t2.lo;
  float s = sqrt(z.hi);
  float s_err = (fma(-s, s, z.hi) + z.lo) / (s + s);
  df y = add_df({t, 0.0f}, {s, s_err});
  return log1p_df(y.hi, y.lo);
}

TSM_MATH_FN float atanhf(float x) {
  using namespace detail;
  float ax = fabs(x);
  if (!(ax <= 1.0f)) return isnan(x) ? x + x : nan();
  if (ax < 0x1p-12f) return x;
  if (ax == 1.0f) return copysignf(kInf, x);
  // atanh a = log1p(2a / (1 - a)) / 2, the quotient in two floats.
  df d = fast_two_sum(1.0f, -ax);
  float q = (ax + ax) / d.hi;
  float q_err = (fma(-q, d.hi, ax + ax) - mul(q, d.lo)) / d.hi;
  return copysignf(0.5f * log1p_df(q, q_err), x);
}

// ---- Error function ------------------------------------------------------------------------

namespace detail {
/// erf x as hi + lo for |x| <= 1: 2/sqrt(pi) x + x^3 P(x^2) (kernel "erf").
TSM_MATH_FN df erf_small(float x) {
  float u = mul(x, x);
  float p = horner(u, -0x1.812746p-2f, 0x1.ce2ebap-4f, -0x1.b81b54p-6f, 0x1.550c46p-8f,
                   -0x1.a675d2p-11f, 0x1.d601ep-15f, 0x1.ddd05cp-16f, -0x1.57f9eep-17f);
  df lead = mul_df(x, kTwoOverSqrtPi);
  return fast_two_sum(lead.hi, fma(mul(x, u), p, lead.lo));
}

/// exp(-x^2) (q.hi + q.lo), rounded once: x^2 = s.hi + s.lo exactly and exp(-s.hi) = 2^k E, so
/// the product is 2^k q E (1 - s.lo), formed in two floats.
TSM_MATH_FN float times_exp_minus_square(float x, df q) {
  df s = two_prod(x, x);
  int k;
  df e = exp_parts(-s.hi, k);
  df p = two_prod(q.hi, e.hi);
  float low = fma(q.hi, e.lo, fma(q.lo, e.hi, p.lo)) - mul(p.hi, s.lo);
  return scale2(p.hi + low, k);
}

/// erfc x for 1/2 <= x <= 1: exp(-x^2) P(x - 0.75) (kernel "erfc_mid").
TSM_MATH_FN float erfc_mid(float x) {
  float w = x - 0.75f;  // exact
  float rest = horner(w, -0x1.78cdd6p-2f, 0x1.d90094p-3f, -0x1.09e702p-3f, 0x1.1192c8p-4f,
                      -0x1.057b84p-5f, 0x1.d4529ep-7f, -0x1.85f28p-8f, 0x1.40baap-9f);
  return times_exp_minus_square(x, fast_two_sum(0x1.038d54p-1f, fma(w, rest, 0x1.d47deep-26f)));
}

/// erfc x for 1 <= x <= 10.1: exp(-x^2) t P(t - 0.55), t = 1/x (kernel "erfc").
TSM_MATH_FN float erfc_large(float x) {
  float t = 1.0f / x;
  float t_err = fma(-t, x, 1.0f) * t;  // 1/x - t, to first order
  // P = c0 + w R(w), w = t - 0.55, c0 in two floats; t P = t c0 + t w R is formed in two floats
  // (the last Horner step would otherwise round at full magnitude), with t's rounding error
  // folded in.
  constexpr df c0 = {0x1.013478p-1f, -0x1.bbf46ap-28f};
  float w = t - 0.55f;
  float rest = horner(w, -0x1.5c3b6p-3f, -0x1.4da458p-6f, 0x1.92e03p-4f, -0x1.8d5f72p-4f,
                      0x1.985092p-5f, 0x1.81f792p-7f, -0x1.ee774cp-5f, 0x1.5d71dcp-4f,
                      -0x1.8a0e4ep-4f, 0x1.55999ap-5f, 0x1.e9cb68p-4f, -0x1.2fe70cp-3f);
  df q = two_prod(t, c0.hi);
  float low = fma(mul(t, w), rest, fma(t_err, c0.hi, fma(t, c0.lo, q.lo)));
  return times_exp_minus_square(x, fast_two_sum(q.hi, low));
}

}  // namespace detail

TSM_MATH_FN float erff(float x) {
  using namespace detail;
  if (isnan(x)) return x + x;
  float ax = fabs(x);
  if (x == 0.0f) return x;
  if (ax < 0.75f) {
    df r = erf_small(x);
    return r.hi + r.lo;
  }
  if (ax < 1.0f) return copysignf(1.0f - erfc_mid(ax), x);
  if (ax >= 4.0f) return copysignf(1.0f, x);
  return copysignf(1.0f - erfc_large(ax), x);
}

TSM_MATH_FN float erfcf(float x) {
  using namespace detail;
  if (isnan(x)) return x + x;
  if (x < 0.5f) {
    if (x <= -4.0f) return 2.0f;
    if (x <= -1.0f) return 2.0f - erfc_large(-x);
    // 1 - erf x in two floats (erfc x >= 0.47 here).
    df e = erf_small(x);
    df r = add_df({1.0f, 0.0f}, {-e.hi, -e.lo});
    return r.hi + r.lo;
  }
  if (x < 1.0f) return erfc_mid(x);
  if (x >= 10.1f) return 0.0f;
  return erfc_large(x);
}

}  // namespace tsm_math
