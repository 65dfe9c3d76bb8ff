// What each PTX operation computes, on the host: IEEE division and square root from the host FPU
// (x86-64 SSE, round to nearest, subnormals on, correctly rounded), the integer rules from
// golden/int_ops.hpp, the rest written out from the PTX ISA. Approximate operations are described
// by their exact value and the PTX error bound instead.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "golden/int_ops.hpp"

namespace tsm::seqtest::ref {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

constexpr uint32_t kNaN = 0x7FFFFFFF;

inline float f(uint32_t u) { return std::bit_cast<float>(u); }
inline uint32_t u(float x) { return std::bit_cast<uint32_t>(x); }
inline bool is_nan(uint32_t x) { return (x & 0x7FFFFFFF) > 0x7F800000; }
inline bool is_subnormal(uint32_t x) { return (x & 0x7F800000) == 0 && (x & 0x007FFFFF) != 0; }
inline uint32_t flush(uint32_t x) { return is_subnormal(x) ? x & 0x80000000 : x; }
inline uint32_t canon(uint32_t x) { return is_nan(x) ? kNaN : x; }

/// .ftz result rule of the golden model and of the GPU's FFMA.FTZ (docs/floating-point.md): a
/// result is flushed when, rounded to 24 bits with an unbounded exponent, it is below 2^-126.
/// For a quotient that means |a/b| < 2^-126 * (1 - 2^-25); exact in long double (64-bit significand).
inline bool quotient_tiny_after_rounding(uint32_t a, uint32_t b) {
  const long double x = std::fabs(static_cast<long double>(f(a))), y = std::fabs(static_cast<long double>(f(b)));
  return std::ldexp(x, 151) < y * static_cast<long double>((1 << 25) - 1);
}

inline uint32_t div_rn(uint32_t a, uint32_t b, bool ftz) {
  if (ftz) a = flush(a), b = flush(b);
  const uint32_t q = canon(u(f(a) / f(b)));
  if (ftz && (q & 0x7F800000) <= 0x00800000 && !is_nan(q) && (q & 0x7FFFFFFF) != 0 &&
      quotient_tiny_after_rounding(a, b))
    return q & 0x80000000;
  return q;
}
inline uint32_t rcp_rn(uint32_t a, bool ftz) { return div_rn(0x3F800000, a, ftz); }
inline uint32_t sqrt_rn(uint32_t a, bool ftz) {
  if (ftz) a = flush(a);
  return canon(u(std::sqrt(f(a))));  // never subnormal: nothing to flush
}

/// The exact quotient / reciprocal / root of the (flushed) operands, for the approximations.
inline long double exact_div(uint32_t a, uint32_t b) {
  return static_cast<long double>(f(a)) / static_cast<long double>(f(b));
}

/// |got - exact| in units of the last place of `exact` (binary32, subnormal ulp 2^-149; infinity
/// counts as 2^128, one ulp above the largest float).
inline long double ulp_error(uint32_t got, long double exact) {
  if (std::isinf(exact)) exact = std::copysign(std::ldexp(1.0L, 128), exact);
  auto as_value = [](uint32_t g) {
    if ((g & 0x7FFFFFFF) == 0x7F800000) return std::copysign(std::ldexp(1.0L, 128), static_cast<long double>(f(g)));
    return static_cast<long double>(f(g));
  };
  // Past the overflow threshold the correctly rounded result is infinity: measure from 2^128.
  if (std::fabs(exact) > std::ldexp(1.0L, 128)) exact = std::copysign(std::ldexp(1.0L, 128), exact);
  const long double mag = std::fabs(exact);
  int e = mag == 0 ? -126 : std::ilogb(mag);
  if (e < -126) e = -126;
  if (e > 127) e = 127;
  const long double ulp = std::ldexp(1.0L, e - 23);
  return std::fabs(as_value(got) - exact) / ulp;
}

// ---- integers -----------------------------------------------------------------------------

inline uint64_t mul_hi_u64(uint64_t a, uint64_t b) { return static_cast<uint64_t>(static_cast<u128>(a) * b >> 64); }
inline uint64_t mul_hi_s64(uint64_t a, uint64_t b) {
  const i128 p = static_cast<i128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b);
  return static_cast<uint64_t>(static_cast<u128>(p) >> 64);
}
inline uint64_t shl64(uint64_t a, uint32_t n) { return n >= 64 ? 0 : a << n; }
inline uint64_t shr_u64(uint64_t a, uint32_t n) { return n >= 64 ? 0 : a >> n; }
inline uint64_t shr_s64(uint64_t a, uint32_t n) { return static_cast<uint64_t>(static_cast<int64_t>(a) >> std::min(n, 63u)); }

/// PTX bfind: the position of the most significant non-sign bit (.s) or one bit (.u); with
/// .shiftamt the left shift that moves it to the top; 0xFFFFFFFF when there is none.
inline uint32_t bfind(uint64_t a, int bits, bool is_signed, bool shiftamt) {
  if (bits == 32) a &= 0xFFFFFFFF;
  if (is_signed && (a >> (bits - 1) & 1)) a = ~a & (bits == 32 ? 0xFFFFFFFFull : ~0ull);
  if (a == 0) return 0xFFFFFFFF;
  const int pos = 63 - std::countl_zero(a);
  return static_cast<uint32_t>(shiftamt ? bits - 1 - pos : pos);
}

struct IntType {
  int bits;
  bool is_signed;
  i128 lo() const { return is_signed ? -(static_cast<i128>(1) << (bits - 1)) : 0; }
  i128 hi() const { return is_signed ? (static_cast<i128>(1) << (bits - 1)) - 1 : (static_cast<i128>(1) << bits) - 1; }
  /// The value of a register (or pair) holding this type: its low `bits`, extended by the type.
  i128 value(uint64_t reg) const {
    const uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1;
    const uint64_t v = reg & m;
    if (is_signed && (v >> (bits - 1) & 1)) return static_cast<i128>(v) - (static_cast<i128>(1) << bits);
    return v;
  }
};

inline IntType int_type(const std::string& name) { return {std::stoi(name.substr(1)), name[0] == 's'}; }

/// cvt.sat.dst.src: clamp, then the destination register: 32 bits (narrow types extended by the
/// destination's signedness) or 64.
inline uint64_t cvt_sat(uint64_t a, const IntType& dst, const IntType& src) {
  i128 v = src.value(a);
  v = std::min(std::max(v, dst.lo()), dst.hi());
  const uint64_t bits = static_cast<uint64_t>(v);
  return dst.bits == 64 ? bits : bits & 0xFFFFFFFF;
}

}  // namespace tsm::seqtest::ref
