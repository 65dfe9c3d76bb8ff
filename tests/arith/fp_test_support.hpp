// Test support for tsm::fp: bit casts, the host FPU as an independent second opinion, operand
// generators that hit rounding corner cases, and a mismatch log for failure messages.
//
// The host reference needs x86-64 SSE: fesetround() sets the SSE rounding mode, and MXCSR's
// flush-to-zero and denormals-are-zero bits give .ftz semantics. x86 detects tininess after
// rounding, which is what NVIDIA GPUs do for .ftz (docs/floating-point.md), so the host's FTZ is a
// faithful reference. The test target is compiled with -frounding-math so that the compiler
// neither folds nor moves floating-point operations across mode changes.
#pragma once

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include "arith/fp.hpp"

namespace tsm::isa::gen {
// Lets gtest print rounding modes by name in test names and failure messages.
inline void PrintTo(Rnd rnd, std::ostream* os) {
  constexpr const char* kNames[] = {"RN", "RZ", "RM", "RP"};
  *os << kNames[static_cast<int>(rnd)];
}
}  // namespace tsm::isa::gen

namespace tsm::fp::test {

inline float as_f32(uint32_t b) { return std::bit_cast<float>(b); }
inline double as_f64(uint64_t b) { return std::bit_cast<double>(b); }
inline uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }

inline constexpr Rnd kAllModes[] = {Rnd::RN, Rnd::RZ, Rnd::RM, Rnd::RP};

inline std::string mode_name(Rnd rnd) { return ::testing::PrintToString(rnd); }

/// Puts the host FPU in rounding mode `rnd` (and with `ftz`, flush-to-zero plus
/// denormals-are-zero) for the lifetime of the object.
class HostFpuMode {
 public:
  HostFpuMode(Rnd rnd, bool ftz) : saved_csr_(_mm_getcsr()), saved_round_(std::fegetround()) {
    constexpr int kModes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
    std::fesetround(kModes[static_cast<int>(rnd)]);
    if (ftz) _mm_setcsr(_mm_getcsr() | kFlushToZero | kDenormalsAreZero);
  }
  ~HostFpuMode() {
    _mm_setcsr(saved_csr_);
    std::fesetround(saved_round_);
  }
  HostFpuMode(const HostFpuMode&) = delete;
  HostFpuMode& operator=(const HostFpuMode&) = delete;

 private:
  static constexpr unsigned kFlushToZero = 0x8000;
  static constexpr unsigned kDenormalsAreZero = 0x0040;
  unsigned saved_csr_;
  int saved_round_;
};

/// The field widths of a binary format, for generating operands.
struct Layout {
  int exp_bits;
  int frac_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  int max_biased() const { return (1 << exp_bits) - 1; }
  uint64_t sign() const { return uint64_t{1} << (exp_bits + frac_bits); }
  uint64_t all() const { return (sign() << 1) - 1; }
  int biased_exp(uint64_t x) const { return static_cast<int>((x >> frac_bits) & uint64_t(max_biased())); }
  uint64_t make(bool negative, int biased, uint64_t frac) const {
    return (negative ? sign() : 0) | (uint64_t(biased) << frac_bits) | (frac & ((uint64_t{1} << frac_bits) - 1));
  }
};
inline constexpr Layout kHalf{5, 10};
inline constexpr Layout kSingle{8, 23};
inline constexpr Layout kDouble{11, 52};

/// Random operands biased toward the cases that break rounding: exponents close to another
/// operand's (cancellation), fractions with many trailing zeros (exact halfway cases), the
/// subnormal and near-overflow ranges, exponents whose products land near the subnormals,
/// half-integers up to 2^66 (integer conversions), and a pool of special values.
class OperandGenerator {
 public:
  explicit OperandGenerator(uint64_t seed) : rng_(seed) {}

  uint64_t bits() { return rng_(); }
  uint64_t below(uint64_t n) { return rng_() % n; }
  bool coin() { return (rng_() & 1) != 0; }

  /// A value of layout `l`; `near_biased` (if not negative) is an exponent to cluster around.
  uint64_t value(Layout l, int near_biased = -1) {
    const bool negative = coin();
    const int pick = static_cast<int>(below(100));
    if (pick < 20) return bits() & l.all();
    if (pick < 40 && near_biased >= 0) return l.make(negative, clamp(l, near_biased + int(below(7)) - 3), fraction(l));
    if (pick < 52) return l.make(negative, clamp(l, l.bias() - 3 + int(below(70))), fraction(l));
    if (pick < 60) return l.make(negative, int(below(4)), fraction(l));
    if (pick < 67) return l.make(negative, l.max_biased() - 1 - int(below(4)), fraction(l));
    if (pick < 75) return l.make(negative, clamp(l, (l.bias() + 1) / 2 + int(below(25)) - 12), fraction(l));
    if (pick < 87) return half_integer(l, negative);
    return special(l) | (negative ? l.sign() : 0);
  }

  /// An integer for a conversion from a `width`-bit type: random bits, small values, or
  /// +-(2^k + small), with random bits above `width` that the conversion must ignore.
  uint64_t integer(int width) {
    uint64_t v = 0;
    const int pick = static_cast<int>(below(100));
    if (pick < 30) {
      v = bits();
    } else if (pick < 50) {
      v = uint64_t(int64_t(below(600)) - 300);
    } else {
      v = (uint64_t{1} << below(uint64_t(width))) + uint64_t(int64_t(below(9)) - 4);
      if (coin()) v = 0 - v;
    }
    if (width == 64) return v;
    const uint64_t mask = (uint64_t{1} << width) - 1;
    return (v & mask) | (bits() & ~mask);
  }

 private:
  static int clamp(Layout l, int biased) { return std::clamp(biased, 0, l.max_biased() - 1); }

  uint64_t fraction(Layout l) {
    uint64_t m = bits();
    if (coin()) m &= ~((uint64_t{1} << below(uint64_t(l.frac_bits) + 1)) - 1);
    return m;
  }

  uint64_t half_integer(Layout l, bool negative) {
    const int e = std::min(int(below(67)), l.bias());
    uint64_t m = bits();
    if (e + 1 < l.frac_bits) m &= ~((uint64_t{1} << (l.frac_bits - e - 1)) - 1);
    return l.make(negative, l.bias() + e, m);
  }

  uint64_t special(Layout l) {
    const uint64_t quiet = uint64_t{1} << (l.frac_bits - 1);
    const int mb = l.max_biased();
    const uint64_t pool[] = {
        0, 1, (uint64_t{1} << l.frac_bits) - 1, uint64_t{1} << l.frac_bits, (uint64_t{1} << l.frac_bits) + 1,
        l.make(false, mb - 1, ~uint64_t{0}), l.make(false, mb, 0), l.make(false, mb, 1), l.make(false, mb, quiet),
        l.make(false, mb, ~uint64_t{0}), l.make(false, l.bias(), 0), l.make(false, l.bias(), 1),
        l.make(false, l.bias() - 1, ~uint64_t{0}), l.make(false, l.bias() - 1, 0), l.make(false, l.bias(), quiet),
        l.make(false, l.bias() + l.frac_bits + 1, 0), l.make(false, l.bias() + l.frac_bits + 1, 1),
        l.make(false, l.bias() + l.frac_bits, ~uint64_t{0})};
    return pool[below(std::size(pool))];
  }

  std::mt19937_64 rng_;
};

/// Counts mismatches and keeps the first few descriptions for the failure message.
class MismatchLog {
 public:
  template <class Describe>
  void expect_equal(uint64_t got, uint64_t want, Describe describe) {
    if (got == want) return;
    if (++count_ <= kKept) lines_ += fmt::format("  {}: got {:#x}, want {:#x}\n", describe(), got, want);
  }
  long count() const { return count_; }
  std::string report() const { return fmt::format("{} mismatches, first ones:\n{}", count_, lines_); }

 private:
  static constexpr long kKept = 10;
  long count_ = 0;
  std::string lines_;
};

// ---- Host-side restatements of the measured NaN rules (docs/floating-point.md) ----

/// The DP unit's NaN: the first NaN operand in priority order, quieted; else the default NaN.
inline uint64_t dp_nan(std::initializer_list<uint64_t> by_priority) {
  for (uint64_t x : by_priority) {
    if (std::isnan(as_f64(x))) return x | 0x0008000000000000;
  }
  return kDefaultNaN64;
}

/// .sat on a host result.
inline float saturate_host(float r) {
  if (std::isnan(r) || r <= 0.0f) return 0.0f;
  return r > 1.0f ? 1.0f : r;
}
inline double saturate_host(double r) {
  if (std::isnan(r) || r <= 0.0) return 0.0;
  return r > 1.0 ? 1.0 : r;
}

// ---- binary16 by table: every finite f16 value is exact in a double ----

/// The value of binary16 `h` (a NaN for NaNs).
inline double f16_value(uint16_t h) {
  const int biased = (h >> 10) & 0x1F;
  const int frac = h & 0x3FF;
  const double sign = (h & 0x8000) != 0 ? -1.0 : 1.0;
  if (biased == 0x1F) return frac != 0 ? std::nan("") : sign * HUGE_VAL;
  if (biased == 0) return sign * std::ldexp(frac, -24);
  return sign * std::ldexp(frac | 0x400, biased - 25);
}

/// Rounds the exact value `v` (not NaN) to binary16 in mode `rnd` by searching the table of all
/// finite binary16 values, independently of the library's rounding.
inline uint16_t round_to_f16(double v, Rnd rnd) {
  static const std::vector<double> magnitudes = [] {
    std::vector<double> t;
    for (uint16_t h = 0; h <= 0x7BFF; ++h) t.push_back(f16_value(h));
    return t;
  }();
  const bool negative = std::signbit(v);
  const uint16_t sign = negative ? 0x8000 : 0;
  const double m = std::fabs(v);
  if (m == 0) return sign;
  if (std::isinf(m)) return sign | 0x7C00;
  // Directed modes act on the magnitude: toward +inf rounds a negative magnitude down.
  const bool away = (rnd == Rnd::RP && !negative) || (rnd == Rnd::RM && negative);
  const auto above = std::upper_bound(magnitudes.begin(), magnitudes.end(), m);
  const auto below = static_cast<uint16_t>(above - magnitudes.begin() - 1);
  if (magnitudes[below] == m) return sign | below;
  // Past the largest finite value the next step up is 2^16 (infinity), with an even fraction.
  const double upper = above == magnitudes.end() ? 65536.0 : *above;
  const auto up = static_cast<uint16_t>(below + 1);
  if (rnd == Rnd::RZ) return sign | below;
  if (rnd != Rnd::RN) return sign | (away ? up : below);
  const double to_lower = m - magnitudes[below];
  const double to_upper = upper - m;
  if (to_lower != to_upper) return sign | (to_lower < to_upper ? below : up);
  return sign | ((below & 1) == 0 ? below : up);
}

}  // namespace tsm::fp::test
