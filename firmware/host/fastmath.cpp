// fastmath host program: CUDA's fast intrinsics against the host's double-precision libm, each
// within the error bound NVIDIA documents for it, and the integer and bit-reinterpretation
// intrinsics bit-exact.
//
// Bounds: CUDA C++ Programming Guide, appendix "Mathematical Functions", table "Single-Precision
// Floating-Point Intrinsic Functions" (and, for rsqrtf and exp2f, the table of single-precision
// standard library functions). Every input is chosen inside the domain the bound is stated for.
//   __sinf(x)      x in [-pi, pi]: absolute error <= 2^-21.41
//   __cosf(x)      x in [-pi, pi]: absolute error <= 2^-21.19
//   __expf(x)      2 + floor(|1.173 x|) ulp (editions before CUDA 12 printed 1.16); x in
//                  [-100, 88], subnormal results included. (The guide's bounds come from tests
//                  and are "not guaranteed": a sweep of every float in [-87, 88] through the
//                  implementation both compilers use, ex2(x * 1.44269504f), with a correctly
//                  rounded ex2 finds 2 inputs over this bound by up to 2%, and 24 over the 1.16
//                  one, all near |x| = 45. Random inputs all but never hit them.)
//   __logf(x)      x in [0.5, 2]: absolute error <= 2^-21.41; otherwise 3 ulp (x normal, > 0)
//   __powf(x, y)   "derived from its implementation as exp2f(y * __log2f(x))": exp2f's 2 ulp, plus
//                  one ulp for rounding, plus the error that y * __log2f(x) carries into the
//                  exponent, |y| e_log2 + |y log2 x| 2^-24, scaled by ln 2 * 2^24 ulp per unit of
//                  exponent; e_log2 is __log2f's bound: 2^-22 absolute on [0.5, 2], else 2 ulp
//   __fdividef(x, y)  2 ulp for |y| in [2^-126, 2^126]; 0 for finite x and |y| in (2^126, 2^128)
//   rsqrtf(x)      2 ulp, full range (subnormal inputs included); special values as IEEE 1/sqrt
//   __saturatef(x) exact: PTX cvt.sat.f32.f32 clamps to [+0, 1]; NaN gives +0 (PTX ISA), so does -0
//                  (measured on hardware, docs/floating-point.md)
// An ulp error is the guide's measure: the distance in ulps between the result and the correctly
// rounded result (here the double-precision libm value rounded to float).
#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

namespace {

// The slots of firmware/cuda/fastmath.cu's struct-of-arrays buffers.
constexpr unsigned kBits = 0, kUbits = 1;
constexpr unsigned kSin = 2, kCos = 3, kExp = 4, kLog = 5, kPow = 6, kDiv = 7, kRsqrt = 8, kSaturate = 9;
constexpr unsigned kFloatSlots = 10;
constexpr unsigned kMul24 = 2, kUmul24 = 3, kMulhi = 4, kUmulhi = 5;
constexpr unsigned kIntSlots = 6;

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
float float_of(uint32_t u) { return std::bit_cast<float>(u); }

/// Floats in increasing order as integers (both zeros are 0).
int64_t ordered(float f) {
  const uint32_t b = bits_of(f);
  return (b & 0x80000000u) ? -int64_t{b & 0x7fffffffu} : int64_t{b};
}

/// The guide's ulp error: |got - RN(exact)| in ulps; NaN must meet NaN.
double ulp_error(float got, double exact) {
  if (std::isnan(exact) || std::isnan(got)) return std::isnan(exact) && std::isnan(got) ? 0.0 : INFINITY;
  return static_cast<double>(std::llabs(ordered(got) - ordered(static_cast<float>(exact))));
}

/// One ulp of a float of magnitude |v| (subnormal spacing below 2^-126).
double ulp_of(double v) {
  int e;
  std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
  return std::ldexp(1.0, std::max(e - 1, -126) - 23);
}

/// One intrinsic's errors over its inputs, in one unit, against a bound.
struct Check {
  enum Unit { Ulp, Absolute, Exact };
  Check(std::string name_, std::string domain_, std::string bound_text_, Unit unit_ = Ulp)
      : name(std::move(name_)), domain(std::move(domain_)), bound_text(std::move(bound_text_)), unit(unit_) {}

  std::string name, domain, bound_text;
  Unit unit;
  size_t count = 0, bad = 0;
  double worst = 0, worst_fraction = 0;  // largest error, and largest error / bound
  std::string worst_at;

  void add(double err, double bound, const std::function<std::string()>& describe) {
    ++count;
    if (!(err <= bound) && bad++ < 3)
      fmt::print("  {}: {} (error {}, bound {})\n", name, describe(), show(err), show(bound));
    if (err > worst) {
      worst = err;
      worst_at = describe();
    }
    if (bound > 0) worst_fraction = std::max(worst_fraction, err / bound);
  }
  std::string show(double e) const {
    switch (unit) {
      case Ulp: return fmt::format("{:g} ulp", e);
      case Absolute: return e == 0 ? "0" : fmt::format("2^{:.2f}", std::log2(e));
      case Exact: break;
    }
    return e == 0 ? "exact" : "wrong";
  }
  void report() const {
    const std::string verdict = bad ? fmt::format("{} of {} OUT OF BOUND", bad, count) : "ok";
    if (unit == Exact) {
      fmt::print("  {:<12} {:<42} {} results, bit-exact: {}\n", name, domain, count, verdict);
      return;
    }
    fmt::print("  {:<12} {:<42} worst {:<10} ({:3.0f}% of the bound, {}): {}{}\n", name, domain, show(worst),
               100 * worst_fraction, bound_text, verdict, worst > 0 ? fmt::format("; worst at {}", worst_at) : "");
  }
};

}  // namespace

bool run_fastmath(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 2039;
  const uint32_t bs = o.block ? o.block : 256;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  auto uniform = [&](double lo, double hi) {
    return static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng));
  };
  // A random significand times 2^e for e in [lo, hi], random sign if asked.
  auto magnitude = [&](int lo, int hi, bool sign) {
    const float m = float_of(0x3f800000u | (rng() & 0x7fffffu));
    const float v = std::ldexp(m, std::uniform_int_distribution<int>(lo, hi)(rng));
    return sign && (rng() & 1) ? -v : v;
  };
  const double pi = 3.1415925;  // just below pi, and so is every float the draws round to

  std::vector<float> x(size_t{kFloatSlots} * n), y(x.size());
  std::vector<int32_t> a(size_t{kIntSlots} * n), b(a.size());
  auto X = [&](unsigned s, uint32_t i) -> float& { return x[size_t{s} * n + i]; };
  auto Y = [&](unsigned s, uint32_t i) -> float& { return y[size_t{s} * n + i]; };
  auto A = [&](unsigned s, uint32_t i) -> int32_t& { return a[size_t{s} * n + i]; };
  auto B = [&](unsigned s, uint32_t i) -> int32_t& { return b[size_t{s} * n + i]; };
  // Special inputs first in some slots.
  const float inf = INFINITY, nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> rsqrt_special = {0.0f, -0.0f, inf, -inf, -1.0f, nan, float_of(1),
                                            float_of(0x7fffff), 1.0f, 4.0f};
  const std::vector<float> saturate_special = {nan, -inf, inf, -0.0f, 0.0f, float_of(1), float_of(0x80000001u), 1.0f,
                                               float_of(0x3f7fffffu), float_of(0x3f800001u), -1e-30f};
  const std::vector<std::pair<float, float>> div_huge = {
      {1.0f, 0x1.8p126f}, {-3.5f, 0x1.fffffep127f}, {1e30f, -0x1.000002p126f}, {0.0f, 0x1p127f}};
  for (uint32_t i = 0; i < n; ++i) {
    X(kSin, i) = uniform(-pi, pi);
    X(kCos, i) = uniform(-pi, pi);
    X(kExp, i) = i % 5 < 3 ? uniform(-10.0, 10.0) : uniform(-100.0, 88.0);
    X(kLog, i) = i % 2 ? uniform(0.5, 2.0) : magnitude(-125, 120, false);
    X(kPow, i) = i % 2 ? uniform(0.5, 2.0) : magnitude(-8, 7, false);
    Y(kPow, i) = uniform(-8.0, 8.0);
    X(kDiv, i) = magnitude(-40, 40, true);
    Y(kDiv, i) = magnitude(-40, 40, true);
    X(kRsqrt, i) = i % 16 == 15 ? float_of(1 + rng() % 0x7fffff) : magnitude(-126, 127, false);
    X(kSaturate, i) = uniform(-0.5, 1.5);
    X(kBits, i) = float_of(rng());
    X(kUbits, i) = float_of(rng());
    A(kBits, i) = static_cast<int32_t>(rng());
    A(kUbits, i) = static_cast<int32_t>(rng());
    // __mul24 and __umul24 are defined for 24-bit operands (signed: sign-extended).
    A(kMul24, i) = static_cast<int32_t>(rng() % (1u << 24)) - (1 << 23);
    B(kMul24, i) = static_cast<int32_t>(rng() % (1u << 24)) - (1 << 23);
    A(kUmul24, i) = static_cast<int32_t>(rng() % (1u << 24));
    B(kUmul24, i) = static_cast<int32_t>(rng() % (1u << 24));
    A(kMulhi, i) = static_cast<int32_t>(rng());
    B(kMulhi, i) = static_cast<int32_t>(rng());
    A(kUmulhi, i) = static_cast<int32_t>(rng());
    B(kUmulhi, i) = static_cast<int32_t>(rng());
  }
  for (size_t j = 0; j < rsqrt_special.size() && j < n; ++j) X(kRsqrt, j) = rsqrt_special[j];
  for (size_t j = 0; j < saturate_special.size() && j < n; ++j) X(kSaturate, j) = saturate_special[j];
  for (size_t j = 0; j < div_huge.size() && j < n; ++j) std::tie(X(kDiv, j), Y(kDiv, j)) = div_huge[j];
  // Payload NaNs, infinities, zeros and subnormals for the bit moves.
  const uint32_t bit_special[] = {0x7fc00000u, 0x7f800001u, 0xffbadbadu, 0x7f800000u,
                                  0x80000000u, 0x00000001u, 0x807fffffu};
  for (size_t j = 0; j < std::size(bit_special) && j < n; ++j) {
    X(kBits, j) = X(kUbits, j) = float_of(bit_special[j]);
    A(kBits, j) = A(kUbits, j) = static_cast<int32_t>(bit_special[j]);
  }

  const auto mod = load_kernel(rt, o, "fastmath");
  const DevicePtr dx = upload(rt, x), dy = upload(rt, y), da = upload(rt, a), db = upload(rt, b);
  const DevicePtr df = upload(rt, std::vector<float>(x.size())), dr = upload(rt, std::vector<int32_t>(a.size()));
  const Dim3 grid{(n + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r = rt.launch(mod, "fastmath", grid, block,
                                   KernelArgs().u32(n).ptr(dx).ptr(dy).ptr(da).ptr(db).ptr(df).ptr(dr));
  print_launch("fastmath", grid, block, r);
  const auto f = download<float>(rt, df, x.size());
  const auto ri = download<int32_t>(rt, dr, a.size());
  auto F = [&](unsigned s, uint32_t i) { return f[size_t{s} * n + i]; };
  auto R = [&](unsigned s, uint32_t i) { return ri[size_t{s} * n + i]; };

  Check sin_c{"__sinf", "x in [-pi, pi]", "2^-21.41 abs", Check::Absolute};
  Check cos_c{"__cosf", "x in [-pi, pi]", "2^-21.19 abs", Check::Absolute};
  Check exp_c{"__expf", "x in [-100, 88], 60% in [-10, 10]", "2 + floor(|1.173 x|) ulp"};
  Check log_near{"__logf", "x in [0.5, 2]", "2^-21.41 abs", Check::Absolute};
  Check log_far{"__logf", "x in [2^-125, 2^121) \\ [0.5, 2]", "3 ulp"};
  Check pow_c{"__powf", "x in [2^-8, 2^8), y in [-8, 8]", "3 + ln2 2^24 (|y| e_lg2 + 2^-24 |y lg2 x|) ulp"};
  Check div_c{"__fdividef", "|x|, |y| in [2^-40, 2^41)", "2 ulp"};
  Check div_huge_c{"__fdividef", "|y| in (2^126, 2^128), x finite: +-0", "", Check::Exact};
  Check rsqrt_c{"rsqrtf", "x in (0, inf), subnormals, special values", "2 ulp"};
  Check sat_c{"__saturatef", "x in [-0.5, 1.5], NaN, inf, -0, subnormals", "", Check::Exact};
  Check mul24_c{"__mul24", "24-bit signed operands", "", Check::Exact};
  Check umul24_c{"__umul24", "24-bit unsigned operands", "", Check::Exact};
  Check mulhi_c{"__mulhi", "any 32-bit operands", "", Check::Exact};
  Check umulhi_c{"__umulhi", "any 32-bit operands", "", Check::Exact};
  Check bits_c{"bit casts", "__float_as_[u]int, __[u]int_as_float", "", Check::Exact};

  const double ln2 = std::numbers::ln2;
  for (uint32_t i = 0; i < n; ++i) {
    auto at1 = [&](float in, float got) { return [=] { return fmt::format("x = {:a}: got {:a}", in, got); }; };
    auto at2 = [&](float in1, float in2, float got) {
      return [=] { return fmt::format("x = {:a}, y = {:a}: got {:a}", in1, in2, got); };
    };
    {
      const float v = X(kSin, i), got = F(kSin, i);
      sin_c.add(std::isnan(got) ? INFINITY : std::fabs(got - std::sin(double{v})), std::exp2(-21.41), at1(v, got));
    }
    {
      const float v = X(kCos, i), got = F(kCos, i);
      cos_c.add(std::isnan(got) ? INFINITY : std::fabs(got - std::cos(double{v})), std::exp2(-21.19), at1(v, got));
    }
    {
      const float v = X(kExp, i), got = F(kExp, i);
      exp_c.add(ulp_error(got, std::exp(double{v})), 2 + std::floor(std::fabs(1.173 * v)), at1(v, got));
    }
    {
      const float v = X(kLog, i), got = F(kLog, i);
      const double want = std::log(double{v});
      if (v >= 0.5f && v <= 2.0f)
        log_near.add(std::isnan(got) ? INFINITY : std::fabs(got - want), std::exp2(-21.41), at1(v, got));
      else
        log_far.add(ulp_error(got, want), 3, at1(v, got));
    }
    {
      const float xv = X(kPow, i), yv = Y(kPow, i), got = F(kPow, i);
      const double l = std::log2(double{xv}), t = yv * l;
      const double e_log2 = (xv >= 0.5f && xv <= 2.0f) ? std::exp2(-22) : 2 * ulp_of(l);
      const double exponent_error = std::fabs(yv) * e_log2 + std::fabs(t) * std::exp2(-24);
      const double bound = 2 + 1 + std::ceil(ln2 * exponent_error * std::exp2(24));
      pow_c.add(ulp_error(got, std::pow(double{xv}, double{yv})), bound, at2(xv, yv, got));
    }
    {
      const float xv = X(kDiv, i), yv = Y(kDiv, i), got = F(kDiv, i);
      if (std::fabs(yv) > 0x1p126f)
        div_huge_c.add(got == 0.0f ? 0 : INFINITY, 0, at2(xv, yv, got));  // either zero
      else
        div_c.add(ulp_error(got, double{xv} / double{yv}), 2, at2(xv, yv, got));
    }
    {
      const float v = X(kRsqrt, i), got = F(kRsqrt, i);
      const double want = v == 0.0f ? std::copysign(INFINITY, v) : 1.0 / std::sqrt(double{v});
      // Signed zeros and infinities compare by bits; everything else in ulps.
      const bool exact_case = want == 0 || std::isinf(want);
      const double err = exact_case ? (bits_of(got) == bits_of(static_cast<float>(want)) ? 0 : INFINITY)
                                    : ulp_error(got, want);
      rsqrt_c.add(err, 2, at1(v, got));
    }
    {
      const float v = X(kSaturate, i), got = F(kSaturate, i);
      const float want = std::isnan(v) || v <= 0.0f ? 0.0f : (v >= 1.0f ? 1.0f : v);
      sat_c.add(bits_of(got) == bits_of(want) ? 0 : INFINITY, 0, at1(v, got));
    }
    auto exact = [&](Check& c, int64_t got, int64_t want, int64_t p, int64_t q) {
      c.add(got == want ? 0 : INFINITY, 0,
            [=] { return fmt::format("operands {:#x}, {:#x}: got {:#x}, want {:#x}", p, q, got, want); });
    };
    {
      const int32_t p = A(kMul24, i), q = B(kMul24, i);
      exact(mul24_c, R(kMul24, i), static_cast<int32_t>(static_cast<uint32_t>(int64_t{p} * q)), p, q);
    }
    {
      const uint32_t p = static_cast<uint32_t>(A(kUmul24, i)), q = static_cast<uint32_t>(B(kUmul24, i));
      exact(umul24_c, static_cast<uint32_t>(R(kUmul24, i)), static_cast<uint32_t>(uint64_t{p} * q), p, q);
    }
    {
      const int32_t p = A(kMulhi, i), q = B(kMulhi, i);
      exact(mulhi_c, R(kMulhi, i), static_cast<int32_t>((int64_t{p} * q) >> 32), p, q);
    }
    {
      const uint32_t p = static_cast<uint32_t>(A(kUmulhi, i)), q = static_cast<uint32_t>(B(kUmulhi, i));
      exact(umulhi_c, static_cast<uint32_t>(R(kUmulhi, i)), static_cast<uint32_t>((uint64_t{p} * q) >> 32), p, q);
    }
    exact(bits_c, static_cast<uint32_t>(R(kBits, i)), bits_of(X(kBits, i)), bits_of(X(kBits, i)), 0);
    exact(bits_c, bits_of(F(kBits, i)), static_cast<uint32_t>(A(kBits, i)), static_cast<uint32_t>(A(kBits, i)), 0);
    exact(bits_c, static_cast<uint32_t>(R(kUbits, i)), bits_of(X(kUbits, i)), bits_of(X(kUbits, i)), 1);
    exact(bits_c, bits_of(F(kUbits, i)), static_cast<uint32_t>(A(kUbits, i)), static_cast<uint32_t>(A(kUbits, i)), 1);
  }

  size_t bad = 0;
  for (const Check* c : {&sin_c, &cos_c, &exp_c, &log_near, &log_far, &pow_c, &div_c, &div_huge_c, &rsqrt_c, &sat_c,
                         &mul24_c, &umul24_c, &mulhi_c, &umulhi_c, &bits_c}) {
    c->report();
    bad += c->bad;
  }
  fmt::print("fastmath: n = {}, 16 intrinsics, {} results outside the CUDA guide's bounds: {}\n", n, bad,
             bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
