// What the tests feed each lowering sequence and what they expect back: input generators (special
// values, hard cases, 10^5 random tuples) and, per PTX operation, a check of one result against the
// host reference (reference.hpp) or PTX's error bound. Shared by sequences_test.cpp and
// gpu_vectors_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "arith/fp.hpp"
#include "reference.hpp"
#include "sequence_runner.hpp"

namespace tsm::seqtest {

// ---- inputs ------------------------------------------------------------------------------------

// splitmix64: the same stream everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t u32() { return static_cast<uint32_t>(next()); }
  uint64_t below(uint64_t n) { return next() % n; }
  int range(int lo, int hi) { return lo + static_cast<int>(below(static_cast<uint64_t>(hi - lo + 1))); }
  /// Random bits of a random length, so small and large values are both common.
  uint64_t bits_of_random_length(int max_bits) {
    const int len = range(0, max_bits);
    return len == 0 ? 0 : next() >> (64 - len);
  }

 private:
  uint64_t s_;
};

inline uint64_t seed_of(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

/// Random inputs per sequence: 10^5, or TSM_SEQUENCE_RANDOM_CASES where a run sets it. The
/// sanitizer run (docs/fuzzing.md) sets 500: every sequence still runs through the same code,
/// and 10^5 inputs of each under ASan would take ten minutes.
inline int random_cases() {
  static const int n = [] {
    const char* env = std::getenv("TSM_SEQUENCE_RANDOM_CASES");
    const int v = env ? std::atoi(env) : 0;
    return v > 0 ? v : 100000;
  }();
  return n;
}

/// binary32 values every float operation must get right.
inline std::vector<uint32_t> special_f32() {
  std::vector<uint32_t> v = {
      0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x00012345, 0x00400000, 0x007FFFFF,  // 0, subnormals
      0x00800000, 0x00800001, 0x00FFFFFF, 0x01000000, 0x01800000, 0x0D7FFFFF, 0x0D800000,  // small normals
      0x33800000, 0x3EAAAAAB, 0x3F000000, 0x3F7FFFFF, 0x3F800000, 0x3F800001, 0x3FFFFFFF,  // around 1
      0x40000000, 0x40400000, 0x40A00000, 0x40E00000, 0x4B800000, 0x4F800000,              // small integers
      0x7E7FFFFF, 0x7E800000, 0x7E800001, 0x7EFFFFFF, 0x7F000000, 0x7F7FFFFF,              // near 2^126..max
      0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF,                                      // inf, NaNs
  };
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | 0x80000000);
  return v;
}

inline uint32_t make_f32(bool neg, int biased_exp, uint32_t frac) {
  return (neg ? 0x80000000u : 0) | static_cast<uint32_t>(biased_exp) << 23 | (frac & 0x7FFFFF);
}

/// A random binary32 value: uniform bits, or a random exponent in [lo, hi] (biased, 0 = subnormal).
inline uint32_t random_f32(Rng& r, int lo = 0, int hi = 254) {
  const int e = r.range(lo, hi);
  const uint32_t frac = e == 0 ? static_cast<uint32_t>(r.bits_of_random_length(23)) : r.u32();
  return make_f32(r.next() & 1, e, frac);
}

inline std::vector<Tuple> f32_division_cases(uint64_t seed) {
  Rng r(seed);
  std::vector<Tuple> c;
  const auto sp = special_f32();
  for (const uint32_t a : sp)
    for (const uint32_t b : sp) c.push_back({a, b});
  auto add = [&](uint32_t a, uint32_t b) { c.push_back({a, b}); };
  for (int i = 0; i < 3000; ++i) {
    // Quotients that are exact ties between subnormals, or exact subnormals: a / 2^k.
    const int k = r.range(1, 30);
    add(random_f32(r, 0, 30), make_f32(r.next() & 1, 127 + k, 0));
    add(make_f32(false, 0, static_cast<uint32_t>(2 * r.below(1 << 20) + 1)), 0x40000000);  // (2m+1)/2 ulp
    // Quotients straddling 2^-126: a = b * 2^-126 give or take a few ulps, b in [1, 2).
    const uint32_t b = make_f32(false, 127, r.u32());
    const uint32_t a = ref::u(ref::f(b) * 0x1p-126f) + static_cast<uint32_t>(r.range(-3, 3));
    add(a, b);
    // Quotients straddling the overflow threshold 2^128 (1 - 2^-25): b in [1/2, 1).
    const uint32_t b2 = make_f32(r.next() & 1, 126, r.u32());
    const uint32_t a2 = std::min<uint32_t>(0x7F7FFFFF, ref::u(std::fabs(ref::f(b2)) * 0x1p127f * 2.0f * (1.0f - 0x1p-25f)) +
                                                            static_cast<uint32_t>(r.range(-3, 3)));
    add(a2, b2);
    // Divisors near 2^+-126 and 2^+-127, any dividend.
    const uint32_t near[] = {0x7E800000, 0x7F000000, 0x00800000, 0x00400000, 0x7F7FFFFF, 0x00000001};
    add(random_f32(r), near[r.below(6)] + static_cast<uint32_t>(r.range(-2, 2)));
    // Quotients near 1, and dividends near a midpoint times the divisor.
    const uint32_t x = random_f32(r, 1, 254);
    add(x + static_cast<uint32_t>(r.range(-2, 2)), x);
    const uint32_t bb = make_f32(false, 127, r.u32());
    const double q = ref::f(make_f32(false, 127, r.u32())) + 0x1p-24;
    add(ref::u(static_cast<float>(ref::f(bb) * q)) + static_cast<uint32_t>(r.range(-1, 1)), bb);
    // Exponents far apart: results around the underflow and overflow ranges.
    const int ea = r.range(0, 254);
    add(random_f32(r, ea, ea), random_f32(r, std::clamp(ea + r.range(100, 160), 0, 254), 254));
    add(random_f32(r, ea, ea), random_f32(r, 0, std::clamp(ea - r.range(100, 160), 0, 254)));
  }
  // The ties a/b = (1 - 2^-24) 2^-126: rounded with subnormals they go up to 2^-126, yet .ftz
  // flushes them (tiny after rounding).
  for (uint32_t m = 0; m <= 126; ++m)
    for (const uint32_t sign : {0u, 0x80000000u}) add((0x00FFFFFFu + (m << 23)) | sign, (128 + m) << 23);
  for (int i = 0; i < random_cases(); ++i) {
    switch (i % 3) {
      case 0: add(r.u32(), r.u32()); break;                                  // any bits: mostly slow path
      case 1: add(random_f32(r, 87, 167), random_f32(r, 87, 167)); break;    // the fast path
      default: add(random_f32(r), random_f32(r)); break;                     // any exponent
    }
  }
  return c;
}

inline std::vector<Tuple> f32_unary_cases(uint64_t seed) {
  Rng r(seed);
  std::vector<Tuple> c;
  for (const uint32_t a : special_f32()) c.push_back({a});
  // Every binade, normal and subnormal, at its ends and inside, both signs.
  for (int e = 0; e <= 254; ++e)
    for (const uint32_t frac : {0u, 1u, 0x7FFFFFu, 0x400000u, r.u32(), r.u32()})
      for (const bool neg : {false, true}) c.push_back({make_f32(neg, e, frac)});
  for (int k = 0; k < 23; ++k) c.push_back({1u << k}), c.push_back({(2u << k) - 1});  // subnormal lengths
  for (int i = 0; i < random_cases(); ++i) {
    switch (i % 3) {
      case 0: c.push_back({r.u32()}); break;
      case 1: c.push_back({random_f32(r) & 0x7FFFFFFF}); break;
      default: c.push_back({random_f32(r, 0, 3) & 0x7FFFFFFF}); break;  // subnormals and tiny normals
    }
  }
  return c;
}

inline std::vector<uint64_t> int_boundaries(int bits) {
  std::vector<uint64_t> v = {0, 1, 2, 3, 5, 7, 10, 100, 0x55555555, 0xAAAAAAAA, 0xFFFF, 0x10000, 0x12345678};
  for (int k = 1; k < bits; ++k) {
    const uint64_t p = uint64_t{1} << k;
    v.push_back(p);
    v.push_back(p - 1);
    v.push_back(p + 1);
  }
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back((0 - v[i]) & mask);  // negatives: -1, -2, INT_MIN+1 ...
  if (bits == 64) {
    for (const uint64_t x : {0xFFFFFFFF00000000ull, 0x00000001FFFFFFFFull, 0xFFFFFFFE00000001ull, 0x8000000080000000ull})
      v.push_back(x);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

inline std::vector<Tuple> int_binary_cases(uint64_t seed, int bits) {
  Rng r(seed);
  std::vector<Tuple> c;
  auto b = int_boundaries(bits);
  if (bits == 64 && b.size() > 80) {  // keep the square manageable: every 32-bit-ish boundary plus a sample
    std::vector<uint64_t> keep;
    for (size_t i = 0; i < b.size(); i += 2) keep.push_back(b[i]);
    b = keep;
  }
  for (const uint64_t x : b)
    for (const uint64_t y : b) c.push_back({x, y});
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : 0xFFFFFFFF;
  auto rnd = [&] {
    uint64_t v = r.bits_of_random_length(bits);
    return (r.next() & 1 ? 0 - v : v) & mask;
  };
  for (int i = 0; i < 4000; ++i) {
    // Divisors near the dividend and near its simple fractions; multiples of the divisor.
    const uint64_t a = rnd();
    const uint64_t k = static_cast<uint64_t>(r.range(1, 7));
    c.push_back({a, (a / k + static_cast<uint64_t>(r.range(-2, 2))) & mask});
    const uint64_t d = rnd();
    c.push_back({(d * r.bits_of_random_length(bits) + static_cast<uint64_t>(r.range(-1, 1))) & mask, d});
    // Large dividends, every divisor length (the most quotient correction steps).
    c.push_back({mask - r.below(1000), r.bits_of_random_length(bits)});
  }
  for (int i = 0; i < random_cases(); ++i) {
    if (i % 4 == 0) c.push_back({r.next() & mask, r.next() & mask});
    else c.push_back({rnd(), rnd()});
  }
  return c;
}

inline std::vector<Tuple> shift_cases(uint64_t seed) {
  Rng r(seed);
  std::vector<Tuple> c;
  std::vector<uint64_t> amounts;
  for (uint64_t n = 0; n <= 72; ++n) amounts.push_back(n);
  for (const uint64_t n : {127ull, 128ull, 255ull, 256ull, 0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFE0ull, 0xFFFFFFFFull})
    amounts.push_back(n);
  for (const uint64_t a : int_boundaries(64))
    for (const uint64_t n : amounts) c.push_back({a, n});
  for (int i = 0; i < random_cases(); ++i)
    c.push_back({r.next(), i % 2 ? r.below(80) : r.bits_of_random_length(32)});
  return c;
}

inline std::vector<Tuple> int_unary_cases(uint64_t seed, int bits) {
  Rng r(seed);
  std::vector<Tuple> c;
  for (const uint64_t a : int_boundaries(bits)) c.push_back({a});
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : 0xFFFFFFFF;
  for (int i = 0; i < random_cases(); ++i) {
    const uint64_t v = r.bits_of_random_length(bits);
    c.push_back({(i % 3 == 0 ? r.next() : r.next() & 1 ? 0 - v : v) & mask});
  }
  return c;
}

/// binary64 operands: specials (zeros, subnormals, extremes, infinities, quiet and signaling NaNs
/// with payloads) and random values, many with exponents near the subnormal and overflow edges.
inline std::vector<uint64_t> special_f64() {
  std::vector<uint64_t> v = {0x0000000000000000, 0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x0008000000000000,
                             0x0010000000000000, 0x0010000000000001, 0x3FF0000000000000, 0x3FF0000000000001,
                             0x3FEFFFFFFFFFFFFF, 0x3FF8000000000000, 0x4000000000000000, 0x7FEFFFFFFFFFFFFF,
                             0x7FE0000000000000, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FF0000000000001,
                             0x7FF4000000000123, 0x7FFFFFFFFFFFFFFF, 0x3CB0000000000000, 0x1FF0000000000000,
                             0x2000000000000000, 0x5FF0000000000000, 0x36A0000000000000, 0x3690000000000000,
                             0x47EFFFFFE0000000, 0x47EFFFFFF0000000, 0x3810000000000000, 0x380FFFFFF0000000,
                             0x36A0000000000001, 0x3E80000000000000};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | 0x8000000000000000);
  return v;
}

inline uint64_t random_f64(Rng& r) {
  const uint64_t frac = r.next() & 0x000FFFFFFFFFFFFF;
  const uint64_t sign = r.next() & 0x8000000000000000;
  switch (r.below(6)) {
    case 0: return r.next();                                                           // any bits
    case 1: return sign | (static_cast<uint64_t>(r.range(0, 40)) << 52) | frac;        // tiny and subnormal
    case 2: return sign | (static_cast<uint64_t>(r.range(2000, 2046)) << 52) | frac;   // huge
    case 3: return sign | (static_cast<uint64_t>(r.range(400, 600)) << 52) | frac;     // products near the bottom
    case 4: return sign | (static_cast<uint64_t>(r.range(1500, 1600)) << 52) | frac;   // products near the top
    default: return sign | (static_cast<uint64_t>(r.range(900, 1150)) << 52) | (frac & ~((uint64_t{1} << r.range(0, 52)) - 1));
  }
}

inline std::vector<Tuple> f64_unary_cases(uint64_t seed) {
  Rng r(seed);
  std::vector<Tuple> c;
  for (const uint64_t a : special_f64()) c.push_back({a});
  for (int i = 0; i < random_cases(); ++i) c.push_back({random_f64(r)});
  return c;
}

inline std::vector<Tuple> f64_binary_cases(uint64_t seed) {
  Rng r(seed);
  std::vector<Tuple> c;
  for (const uint64_t a : special_f64())
    for (const uint64_t b : special_f64()) c.push_back({a, b});
  for (int i = 0; i < random_cases(); ++i) {
    const uint64_t a = random_f64(r);
    // b often chosen so that a * b lands near the subnormal or overflow edge
    uint64_t b = random_f64(r);
    if (i % 3 == 0) {
      const int ea = static_cast<int>((a >> 52) & 0x7FF);
      const int eb = std::clamp(r.range(-60, 10) + 1023 - ea + (i % 2 ? 0 : 2046 - 1023), 1, 2046);
      b = (b & 0x800FFFFFFFFFFFFF) | (static_cast<uint64_t>(eb) << 52);
    }
    c.push_back({a, b});
  }
  return c;
}

/// Sources for cvt.sat: every type's limits and their neighbours, with and without garbage above
/// the source type's bits.
inline std::vector<Tuple> cvt_cases(uint64_t seed, int src_bits) {
  Rng r(seed);
  std::vector<Tuple> c;
  const uint64_t mask = src_bits == 64 ? ~uint64_t{0} : 0xFFFFFFFF;
  std::vector<uint64_t> base;
  for (const int b : {8, 16, 32, 64})
    for (const uint64_t x : {uint64_t{1} << (b - 1), (uint64_t{1} << (b - 1)) - 1, b == 64 ? ~uint64_t{0} : (uint64_t{1} << b) - 1,
                             b == 64 ? 0 : uint64_t{1} << b})
      for (const int d : {-2, -1, 0, 1, 2}) base.push_back(x + static_cast<uint64_t>(d)), base.push_back(0 - x - static_cast<uint64_t>(d));
  for (const uint64_t x : base) {
    c.push_back({x & mask});
    if (src_bits < 32) c.push_back({(x | (r.next() << src_bits)) & mask});
  }
  for (int i = 0; i < random_cases(); ++i) {
    const uint64_t v = r.bits_of_random_length(64);
    c.push_back({(i % 2 ? r.next() : r.next() & 1 ? 0 - v : v) & mask});
  }
  return c;
}

// ---- what each sequence computes ----------------------------------------------------------------

using Check = std::function<std::optional<std::string>(const Tuple& in, const Tuple& out)>;

struct Spec {
  std::function<std::vector<Tuple>()> cases;
  Check check;
};

inline std::string hex(uint64_t v) { return fmt::format("0x{:X}", v); }

inline Check exact(std::function<Tuple(const Tuple&)> reference) {
  return [reference](const Tuple& in, const Tuple& out) -> std::optional<std::string> {
    const Tuple want = reference(in);
    if (want == out) return std::nullopt;
    std::string s = "got";
    for (const auto v : out) s += " " + hex(v);
    s += ", want";
    for (const auto v : want) s += " " + hex(v);
    return s;
  };
}

/// An approximation: special operands exactly as `special` says (when it returns a value), other
/// results within `max_ulps` of the exact value, or within `rel` relative error if rel > 0.
inline Check bounded(std::function<std::optional<uint32_t>(const Tuple&)> special, std::function<long double(const Tuple&)> exact_value,
              long double max_ulps, long double rel, bool ftz) {
  return [=](const Tuple& in, const Tuple& out) -> std::optional<std::string> {
    const auto got = static_cast<uint32_t>(out[0]);
    if (const auto s = special(in)) {
      if (got == *s) return std::nullopt;
      return fmt::format("got {}, want exactly {}", hex(got), hex(*s));
    }
    const long double x = exact_value(in);
    // .ftz: a result within the error bound of 2^-126 or below may have been flushed (sign kept).
    if (ftz && std::fabs(x) < 0x1p-126L * (1 + std::max(max_ulps, 1.0L) * 0x1p-23L)) {
      if ((got & 0x7FFFFFFF) == 0 && (got >> 31) == static_cast<uint32_t>(std::signbit(x))) return std::nullopt;
    }
    if (ref::is_nan(got)) return fmt::format("got NaN, exact {}", static_cast<double>(x));
    if (rel > 0) {
      const long double e = std::fabs((static_cast<long double>(ref::f(got)) - x) / x);
      if (e <= rel) return std::nullopt;
      return fmt::format("got {} ({}), relative error {:.3g} > {:.3g}", hex(got), ref::f(got), static_cast<double>(e),
                         static_cast<double>(rel));
    }
    const long double e = ref::ulp_error(got, x);
    if (e <= max_ulps) return std::nullopt;
    return fmt::format("got {} ({}), exact {}, error {:.3f} ulp > {}", hex(got), ref::f(got), static_cast<double>(x),
                       static_cast<double>(e), static_cast<double>(max_ulps));
  };
}

inline bool has(const std::string& name, const char* part) { return name.find(part) != std::string::npos; }

inline Spec spec_for(const Sequence& s) {
  const std::string& n = s.name;
  const uint64_t seed = seed_of(n);
  const bool ftz = has(n, ".ftz");
  auto x32 = [](const Tuple& in, size_t i) { return static_cast<uint32_t>(in[i]); };
  if (n.rfind("div.", 0) == 0 && has(n, ".f32")) {
    auto cases = [seed] { return f32_division_cases(seed); };
    if (has(n, ".rn"))
      return {cases, exact([=](const Tuple& in) { return Tuple{ref::div_rn(x32(in, 0), x32(in, 1), ftz)}; })};
    // div.full (2 ulp everywhere) and div.approx (2 ulp for |b| in [2^-126, 2^126]; 0, or NaN for
    // infinite a, above): specials exactly as IEEE division of the flushed operands.
    const bool approx = has(n, ".approx");
    auto special = [=](const Tuple& in) -> std::optional<uint32_t> {
      uint32_t a = x32(in, 0), b = x32(in, 1);
      if (ftz) a = ref::flush(a), b = ref::flush(b);
      const uint32_t mb = b & 0x7FFFFFFF, ma = a & 0x7FFFFFFF;
      if (approx && mb > 0x7E800000 && mb < 0x7F800000 && ma <= 0x7F800000)
        return ma == 0x7F800000 ? ref::kNaN : ((a ^ b) & 0x80000000);
      const bool special_operand = ma == 0 || ma >= 0x7F800000 || mb == 0 || mb >= 0x7F800000;
      if (special_operand) return ref::div_rn(a, b, false);
      return std::nullopt;
    };
    auto value = [=](const Tuple& in) {
      uint32_t a = x32(in, 0), b = x32(in, 1);
      if (ftz) a = ref::flush(a), b = ref::flush(b);
      return ref::exact_div(a, b);
    };
    // div.approx.f32 states no bound for subnormal divisors; like the GPU (sm_90), the sequence
    // scales them into range, so the 2-ulp bound is checked there too.
    return {cases, bounded(special, value, 2, 0, ftz)};
  }
  if (n.rfind("rcp.", 0) == 0) {
    auto cases = [seed] { return f32_unary_cases(seed); };
    if (has(n, ".rn")) return {cases, exact([=](const Tuple& in) { return Tuple{ref::rcp_rn(x32(in, 0), ftz)}; })};
    auto special = [=](const Tuple& in) -> std::optional<uint32_t> {  // rcp.approx: 1 ulp
      const uint32_t a = ftz ? ref::flush(x32(in, 0)) : x32(in, 0);
      if ((a & 0x7FFFFFFF) == 0 || (a & 0x7FFFFFFF) >= 0x7F800000) return ref::rcp_rn(a, false);
      return std::nullopt;
    };
    return {cases, bounded(special, [=](const Tuple& in) { return ref::exact_div(0x3F800000, ftz ? ref::flush(x32(in, 0)) : x32(in, 0)); }, 1, 0, ftz)};
  }
  if (n.rfind("sqrt.", 0) == 0 || n.rfind("rsqrt.", 0) == 0) {
    auto cases = [seed] { return f32_unary_cases(seed); };
    if (has(n, ".rn")) return {cases, exact([=](const Tuple& in) { return Tuple{ref::sqrt_rn(x32(in, 0), ftz)}; })};
    const bool rsqrt = n[0] == 'r';
    // PTX: sqrt.approx relative error 2^-23, rsqrt.approx 2^-22.9; the corner cases of its tables.
    auto special = [=](const Tuple& in) -> std::optional<uint32_t> {
      const uint32_t a = ftz ? ref::flush(x32(in, 0)) : x32(in, 0);
      if (ref::is_nan(a) || (a > 0x80000000)) return ref::kNaN;
      if ((a & 0x7FFFFFFF) == 0) return rsqrt ? (a | 0x7F800000) : a;
      if (a == 0x7F800000) return rsqrt ? 0u : a;
      return std::nullopt;
    };
    auto value = [=](const Tuple& in) {
      const long double x = ref::f(ftz ? ref::flush(x32(in, 0)) : x32(in, 0));
      return rsqrt ? 1.0L / std::sqrt(x) : std::sqrt(x);
    };
    return {cases, bounded(special, value, 0, rsqrt ? std::exp2(-22.9L) : 0x1p-23L, ftz)};
  }
  if (n.rfind("div.", 0) == 0 || n.rfind("rem.", 0) == 0) {
    const bool rem = n[0] == 'r', is_signed = has(n, ".s"), wide = has(n, "64");
    return {[=] { return int_binary_cases(seed, wide ? 64 : 32); },
            exact([=](const Tuple& in) {
              if (wide) return Tuple{rem ? (is_signed ? golden::rem_s64(in[0], in[1]) : golden::rem_u64(in[0], in[1]))
                                         : (is_signed ? golden::div_s64(in[0], in[1]) : golden::div_u64(in[0], in[1]))};
              const uint32_t a = x32(in, 0), b = x32(in, 1);
              return Tuple{rem ? (is_signed ? golden::rem_s32(a, b) : golden::rem_u32(a, b))
                               : (is_signed ? golden::div_s32(a, b) : golden::div_u32(a, b))};
            })};
  }
  auto binary64 = [seed](std::function<uint64_t(uint64_t, uint64_t)> f) {
    return Spec{[seed] { return int_binary_cases(seed, 64); }, exact([f](const Tuple& in) { return Tuple{f(in[0], in[1])}; })};
  };
  if (n.rfind("mul.lo", 0) == 0) return binary64([](uint64_t a, uint64_t b) { return a * b; });
  if (n == "mul.hi.u64") return binary64(ref::mul_hi_u64);
  if (n == "mul.hi.s64") return binary64(ref::mul_hi_s64);
  if (n.rfind("min.", 0) == 0 || n.rfind("max.", 0) == 0) {
    const bool is_max = n[1] == 'a', is_signed = has(n, ".s64");
    return binary64([=](uint64_t a, uint64_t b) {
      const bool less = is_signed ? static_cast<int64_t>(a) < static_cast<int64_t>(b) : a < b;
      return (less != is_max) ? a : b;
    });
  }
  if (n.rfind("setp.", 0) == 0) {
    const std::string cmp = n.substr(5, 2);
    const bool is_signed = has(n, ".s64");
    return binary64([=](uint64_t a, uint64_t b) -> uint64_t {
      const auto sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
      const bool lt = is_signed ? sa < sb : a < b, eq = a == b;
      if (cmp == "eq") return eq;
      if (cmp == "ne") return !eq;
      if (cmp == "lt" || cmp == "lo") return lt;
      if (cmp == "le" || cmp == "ls") return lt || eq;
      if (cmp == "gt" || cmp == "hi") return !lt && !eq;
      return !lt;  // ge, hs
    });
  }
  if (n.rfind("sh", 0) == 0) {
    const auto f = n == "shl.b64" ? ref::shl64 : n == "shr.s64" ? ref::shr_s64 : ref::shr_u64;
    return {[seed] { return shift_cases(seed); },
            exact([f](const Tuple& in) { return Tuple{f(in[0], static_cast<uint32_t>(in[1]))}; })};
  }
  if (n == "popc.b64" || n == "clz.b64" || n == "brev.b64") {
    return {[seed] { return int_unary_cases(seed, 64); }, exact([n](const Tuple& in) {
              const uint64_t a = in[0];
              if (n[0] == 'p') return Tuple{static_cast<uint64_t>(std::popcount(a))};
              if (n[0] == 'c') return Tuple{static_cast<uint64_t>(std::countl_zero(a))};
              uint64_t r = 0;
              for (int i = 0; i < 64; ++i) r |= (a >> i & 1) << (63 - i);
              return Tuple{r};
            })};
  }
  if (n.rfind("bfind.", 0) == 0) {
    const int bits = has(n, "64") ? 64 : 32;
    const bool is_signed = n[n.size() - 3] == 's', shiftamt = has(n, "shiftamt");
    return {[seed, bits] { return int_unary_cases(seed, bits); },
            exact([=](const Tuple& in) { return Tuple{ref::bfind(in[0], bits, is_signed, shiftamt)}; })};
  }
  if (n.rfind("cvt.sat.", 0) == 0) {
    const size_t dot = n.find('.', 8);
    const auto dst = ref::int_type(n.substr(8, dot - 8)), src = ref::int_type(n.substr(dot + 1));
    return {[seed, src] { return cvt_cases(seed, src.bits == 64 ? 64 : 32); },
            exact([=](const Tuple& in) { return Tuple{ref::cvt_sat(in[0], dst, src)}; })};
  }
  if (n == "cvt.f64.f32" || n == "cvt.ftz.f64.f32") {
    return {[seed] { return f32_unary_cases(seed); }, exact([=](const Tuple& in) {
              uint32_t a = x32(in, 0);
              if (ftz && (a & 0x7F800000u) == 0) a &= 0x80000000u;
              float f;
              std::memcpy(&f, &a, 4);
              const double d = f;  // exact; NaNs quieted with their payload, as on the GPU
              uint64_t bits;
              std::memcpy(&bits, &d, 8);
              return Tuple{bits};
            })};
  }
  if (n == "cvt.rn.f64.s64" || n == "cvt.rn.f64.u64") {
    const bool sgn = n.back() == '4' && n[n.size() - 3] == 's';
    return {[seed] { return int_unary_cases(seed, 64); }, exact([=](const Tuple& in) {
              const double d = sgn ? static_cast<double>(static_cast<int64_t>(in[0])) : static_cast<double>(in[0]);
              uint64_t bits;
              std::memcpy(&bits, &d, 8);
              return Tuple{bits};
            })};
  }
  if (n == "cvt.rn.f32.f64") {
    return {[seed] { return f64_unary_cases(seed); }, exact([](const Tuple& in) {
              return Tuple{::tsm::fp::f2f(in[0], ::tsm::fp::Ftype::F64, ::tsm::fp::Ftype::F32, ::tsm::fp::Rnd::RN, false, false, false)};
            })};
  }
  if (n == "mul.rn.f64") {
    return {[seed] { return f64_binary_cases(seed); },
            exact([](const Tuple& in) { return Tuple{::tsm::fp::mul_f64(in[0], in[1], ::tsm::fp::Rnd::RN)}; })};
  }
  throw std::logic_error("no test specification for " + n);
}


/// Runs `cases` through the sequence (one thread each, layout `l`) on a fresh g80 golden model and
/// checks every output with `check`, that no input changed (unless an output shares its register)
/// and that each warp leaves the body with all its threads. Reports the first few failures as test
/// failures; returns how many there were.
inline int run_and_check(const Sequence& s, const Check& check, const Layout& l, const std::vector<Tuple>& cases, uint64_t seed) {
  Runtime rt(*config::find_config("g80"), make_golden_backend());
  RunResult r;
  try {
    r = run(rt, s, l, cases, seed);
  } catch (const std::exception& e) {
    ADD_FAILURE() << s.name << ": the run failed: " << e.what() << "\n" << ptx::instantiate(s, l.bindings, "seq_");
    return 1;
  }
  int failures = 0;
  auto report = [&](size_t c, const std::string& what) {
    if (++failures <= 8) {
      std::string in = "in:";
      for (const auto v : cases[c]) in += " " + hex(v);
      ADD_FAILURE() << s.name << " case " << c << " (" << in << "): " << what;
    }
  };
  const auto n = static_cast<uint32_t>(cases.size());
  for (size_t c = 0; c < cases.size(); ++c) {
    if (const auto why = check(cases[c], r.outputs[c])) report(c, *why);
    // A warp leaves the body with all its threads (the last warp has only those up to n).
    const uint32_t warp_base = static_cast<uint32_t>(c) & ~31u;
    const uint32_t lanes = std::min(32u, n - warp_base);
    const uint32_t full = lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
    if (r.active_mask[c] != full) report(c, "the warp left the body with active mask " + hex(r.active_mask[c]));
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      bool aliased = false;
      for (const int a : l.aliased) aliased |= a == static_cast<int>(i);
      if (!aliased && r.inputs_after[c][i] != (cases[c][i] & slot_mask(s.inputs[i])))
        report(c, "input " + s.inputs[i].name + " changed to " + hex(r.inputs_after[c][i]));
    }
  }
  if (failures > 8) ADD_FAILURE() << s.name << ": " << failures << " failures in all";
  return failures;
}

}  // namespace tsm::seqtest
