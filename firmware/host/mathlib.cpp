// mathlib host program: the single-precision math library against the host's libm. The reference
// is the double-precision C library function rounded to float (correctly rounded but for the
// rare double-rounding case); exact functions are compared with the float C library or with the
// rule itself. The error of a result is the CUDA guide's measure: its distance in ulps from the
// correctly rounded result. Special values (NaN, infinities, signed zeros, subnormals) must come
// out as C99 Annex F says: NaN for NaN, the same bits for zeros and infinities.
//
// Bounds: CUDA C++ Programming Guide, appendix "Mathematical Functions", table "Single-Precision
// Mathematical Standard Library Functions with Maximum ULP Error" (full range):
//   function   bound (ulp)  inputs (besides special values: 0, -0, +-inf, NaN, subnormals, ...)
//   sinf       2            [-pi, pi], [-100, 100], [-1e5, 1e5], and |x| in [2^17, 2^128) (huge)
//   cosf       2            as sinf
//   tanf       4            as sinf
//   expf       2            [-104, 89]: overflow, subnormal results, underflow to 0
//   exp2f      2            [-151, 129]
//   logf       1            |x| in [2^-149, 2^128) (subnormals included), 30% in [0.5, 2]
//   log2f      1            as logf
//   powf       4            x in [2^-20, 2^20], y in [-6, 6]; negative x with integer y
//   sqrtf      0            correctly rounded (nvcc's default -prec-sqrt=true); full range
//   fabsf      0            any bit pattern (not in the guide's table: exact by definition)
//   fminf      0            exact (IEEE 754 minNum; -0 < +0 as PTX min.f32; a NaN operand loses)
//   fmaxf      0            exact (likewise)
//   floorf     0            [-10, 10] with halves, [-2^24, 2^24], large and special values
//   ceilf      0            as floorf
//   truncf     0            as floorf
//   roundf     0            as floorf (halfway cases away from zero)
//   fmodf      0            |x| up to 2^100 over |y| down to 2^-20 (long reductions), x, y < 0
//   atan2f     3            y, x in [-10, 10] and magnitudes 2^[-30, 30]; the zero and infinity table
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

namespace {

// The slots of firmware/cuda/mathlib.cu's struct-of-arrays buffers.
enum Slot : unsigned {
  kSin, kCos, kTan, kExp, kExp2, kLog, kLog2, kPow, kSqrt, kFabs, kFmin, kFmax, kFloor, kCeil, kTrunc, kRound, kFmod,
  kAtan2, kSlots
};

struct Function {
  const char* name;
  int bound;  // maximum ulp error (0: exact)
  bool two_args;
  double (*reference)(float, float);  // the exact value (double), or the exact result for bound 0
};

const float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kMax = std::numeric_limits<float>::max();
const float kDenormMin = std::numeric_limits<float>::denorm_min();
const float kSubnormal = std::bit_cast<float>(0x00654321u);

/// PTX min.f32 / max.f32 (and C's fmin/fmax): a NaN operand gives the other; -0 < +0.
double ref_fmin(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? b : a;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
double ref_fmax(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? b : a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

const Function kFunctions[kSlots] = {
    {"sinf", 2, false, [](float x, float) { return std::sin(double{x}); }},
    {"cosf", 2, false, [](float x, float) { return std::cos(double{x}); }},
    {"tanf", 4, false, [](float x, float) { return std::tan(double{x}); }},
    {"expf", 2, false, [](float x, float) { return std::exp(double{x}); }},
    {"exp2f", 2, false, [](float x, float) { return std::exp2(double{x}); }},
    {"logf", 1, false, [](float x, float) { return std::log(double{x}); }},
    {"log2f", 1, false, [](float x, float) { return std::log2(double{x}); }},
    {"powf", 4, true, [](float x, float y) { return std::pow(double{x}, double{y}); }},
    {"sqrtf", 0, false, [](float x, float) { return double{std::sqrt(x)}; }},
    {"fabsf", 0, false, [](float x, float) { return double{std::fabs(x)}; }},
    {"fminf", 0, true, ref_fmin},
    {"fmaxf", 0, true, ref_fmax},
    {"floorf", 0, false, [](float x, float) { return double{std::floor(x)}; }},
    {"ceilf", 0, false, [](float x, float) { return double{std::ceil(x)}; }},
    {"truncf", 0, false, [](float x, float) { return double{std::trunc(x)}; }},
    {"roundf", 0, false, [](float x, float) { return double{std::round(x)}; }},
    {"fmodf", 0, true, [](float x, float y) { return double{std::fmod(x, y)}; }},
    // Argument order as in the kernel: atan2f(y, x) with y from the y buffer.
    {"atan2f", 3, true, [](float x, float y) { return std::atan2(double{y}, double{x}); }},
};

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }

/// Floats in increasing order as integers (both zeros are 0).
int64_t ordered(float f) {
  const uint32_t b = bits_of(f);
  return (b & 0x80000000u) ? -int64_t{b & 0x7fffffffu} : int64_t{b};
}

/// The guide's error of `got`: its distance in ulps from the correctly rounded `want` (from the
/// largest float to infinity is one ulp). NaN must meet NaN, zeros must have the same sign, and
/// with `exact` (exact functions, and any function at a zero, infinite or NaN argument: C99
/// Annex F fixes those results) the bits must be the same.
double ulp_error(float got, float want, bool exact) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got) ? 0.0 : INFINITY;
  if (exact) return bits_of(got) == bits_of(want) ? 0.0 : INFINITY;
  if (got == 0 && want == 0 && std::signbit(got) != std::signbit(want)) return INFINITY;
  return static_cast<double>(std::llabs(ordered(got) - ordered(want)));
}

/// |got - exact| in ulps of the exact value (for the report only; finite values).
double real_ulp_error(float got, double exact) {
  if (!std::isfinite(exact) || !std::isfinite(got)) return 0;
  int e;
  std::frexp(exact, &e);
  return std::fabs(got - exact) / std::ldexp(1.0, std::max(e - 1, -126) - 23);
}

}  // namespace

bool run_mathlib(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 1999;  // per function
  const uint32_t bs = o.block ? o.block : 256;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  auto uniform = [&](double lo, double hi) {
    return static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng));
  };
  // A random significand times 2^e for e in [lo, hi] (below -126: subnormal), random sign if asked.
  auto magnitude = [&](int lo, int hi, bool sign) {
    const float m = std::bit_cast<float>(static_cast<uint32_t>(0x3f800000u | (rng() & 0x7fffffu)));
    const float v = std::ldexp(m, std::uniform_int_distribution<int>(lo, hi)(rng));
    return sign && (rng() & 1) ? -v : v;
  };
  auto pick = [&](uint32_t percent) { return rng() % 100 < percent; };

  // Special inputs first, then random ones (x, or (x, y) pairs).
  using Pairs = std::vector<std::pair<float, float>>;
  const std::vector<float> common = {0.0f, -0.0f, kInf, -kInf, kNan, kDenormMin, -kSubnormal, kMax, -kMax, 1.0f, -1.0f};
  const std::vector<float> trig = {0x1p-20f, 1.5707963f, -1.5707964f, 3.1415927f, 100.0f, 1e5f, -1e5f, 105615.0f,
                                   105616.0f, 1e6f, -1e10f, 1e20f, 0x1.921fb6p+24f, 1e38f};
  const std::vector<float> rounding = {0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, -0.3f, 0.3f, 0x1.fffffep-2f, 8388607.5f,
                                       -8388609.0f, 0x1p23f, 1e30f, -1e-30f};
  std::vector<std::vector<float>> special(kSlots, common);
  for (unsigned s : {kSin, kCos, kTan}) special[s].insert(special[s].end(), trig.begin(), trig.end());
  for (unsigned s : {kFloor, kCeil, kTrunc, kRound})
    special[s].insert(special[s].end(), rounding.begin(), rounding.end());
  for (float v : {88.72283f, 88.72284f, -87.33654f, -87.33655f, -103.97208f, -103.97209f, -110.0f, 100.0f})
    special[kExp].push_back(v);
  for (float v : {127.99999f, 128.0f, -126.0f, -126.5f, -149.0f, -149.5f, -150.0f, -151.0f, 0.5f, 10.0f})
    special[kExp2].push_back(v);
  for (unsigned s : {kLog, kLog2})
    for (float v : {0x1.fffffep-1f, 0x1.000002p+0f, 2.0f, 0.5f, 1024.0f, kDenormMin * 3, 0x1p-126f})
      special[s].push_back(v);
  for (float v : {4.0f, 2.0f, 0x1p-148f, 0x1.000002p+0f}) special[kSqrt].push_back(v);
  const Pairs pow_special = {{2.0f, 0.0f},   {kNan, 0.0f},   {1.0f, kNan},    {-1.0f, kInf},   {-2.0f, 3.0f},
                             {-2.0f, 0.5f},  {0.0f, -1.0f},  {-0.0f, -3.0f},  {-0.0f, 3.0f},   {-0.0f, 2.0f},
                             {kInf, -1.0f},  {-kInf, 3.0f},  {-kInf, -3.0f},  {0.5f, kInf},    {0.5f, -kInf},
                             {2.0f, 128.0f}, {2.0f, -150.0f}, {2.0f, -149.0f}, {10.0f, 38.5f}, {-8.0f, 1.0f / 3},
                             {kNan, 1.0f},   {3.0f, kNan},   {-3.0f, -5.0f},  {1.5f, 200.0f},  {0.1f, 44.5f}};
  const Pairs minmax_special = {{0.0f, -0.0f}, {-0.0f, 0.0f}, {kNan, 1.0f}, {-1.0f, kNan}, {kNan, kNan},
                                {-kInf, kInf}, {kDenormMin, -kDenormMin}, {1.0f, 1.0f}};
  const Pairs fmod_special = {{1.0f, 0.0f}, {kInf, 2.0f}, {5.0f, kInf}, {0.0f, 3.0f}, {-0.0f, 3.0f}, {-7.0f, 3.0f},
                              {7.0f, -3.0f}, {kNan, 1.0f}, {1.0f, kNan}, {1e30f, 3.0f}, {-kMax, kDenormMin},
                              {kDenormMin * 7, kDenormMin * 2}, {6.0f, 3.0f}, {-6.0f, 3.0f}};
  const Pairs atan2_special = {{0.0f, 0.0f},  {-0.0f, 0.0f},  {0.0f, -0.0f}, {-0.0f, -0.0f}, {-1.0f, 0.0f},
                               {-1.0f, -0.0f}, {1.0f, 0.0f},  {kInf, kInf},  {-kInf, kInf},  {kInf, -kInf},
                               {-kInf, -kInf}, {1.0f, kInf},   {-1.0f, -kInf}, {kInf, 1.0f},  {kNan, 1.0f},
                               {1.0f, kNan},  {kMax, kDenormMin}, {kDenormMin, kMax}, {-1.0f, 1e-30f}};
  // (x, y) pairs as the kernel sees them; for atan2 the pairs above are (x, y) too.
  std::vector<float> x(size_t{kSlots} * n), y(x.size(), 1.0f);
  for (unsigned s = 0; s < kSlots; ++s) {
    const Pairs* pairs = s == kPow ? &pow_special
                         : (s == kFmin || s == kFmax) ? &minmax_special
                         : s == kFmod                   ? &fmod_special
                         : s == kAtan2                  ? &atan2_special
                                                        : nullptr;
    const size_t specials = pairs ? pairs->size() : special[s].size();
    for (uint32_t i = 0; i < n; ++i) {
      float& xv = x[size_t{s} * n + i];
      float& yv = y[size_t{s} * n + i];
      if (i < specials) {
        if (pairs)
          std::tie(xv, yv) = (*pairs)[i];
        else
          xv = special[s][i];
        continue;
      }
      switch (s) {
        case kSin:
        case kCos:
        case kTan:
          xv = pick(40) ? uniform(-3.1415926, 3.1415926)
               : pick(50) ? uniform(-100, 100)
               : pick(67) ? uniform(-1e5, 1e5)
                          : magnitude(17, 127, true);
          break;
        case kExp: xv = uniform(-104, 89); break;
        case kExp2: xv = uniform(-151, 129); break;
        case kLog:
        case kLog2: xv = pick(30) ? uniform(0.5, 2.0) : magnitude(-149, 127, false); break;
        case kPow:
          if (pick(10)) {
            xv = -magnitude(-4, 4, false);
            yv = static_cast<float>(static_cast<int>(rng() % 21) - 10);
          } else {
            xv = magnitude(-20, 19, false);
            yv = uniform(-6, 6);
          }
          break;
        case kSqrt: xv = magnitude(-149, 127, false); break;
        case kFabs: xv = std::bit_cast<float>(static_cast<uint32_t>(rng())); break;
        case kFmin:
        case kFmax:
          xv = uniform(-10, 10);
          yv = pick(10) ? xv : uniform(-10, 10);
          break;
        case kFloor:
        case kCeil:
        case kTrunc:
        case kRound:
          xv = pick(50) ? std::round(uniform(-20, 20)) * 0.5f + (pick(50) ? 0.0f : uniform(-0.01, 0.01))
                        : uniform(-0x1p24, 0x1p24);
          break;
        case kFmod:
          xv = magnitude(-10, 100, true);
          yv = magnitude(-20, 20, true);
          break;
        case kAtan2:
          if (pick(50)) {
            xv = uniform(-10, 10);
            yv = uniform(-10, 10);
          } else {
            xv = magnitude(-30, 30, true);
            yv = magnitude(-30, 30, true);
          }
          break;
      }
    }
  }

  const auto mod = load_kernel(rt, o, "mathlib");
  const DevicePtr dx = upload(rt, x), dy = upload(rt, y), dr = upload(rt, std::vector<float>(x.size()));
  const Dim3 grid{(n + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult launch = rt.launch(mod, "mathlib", grid, block, KernelArgs().u32(n).ptr(dx).ptr(dy).ptr(dr));
  print_launch("mathlib", grid, block, launch);
  const auto r = download<float>(rt, dr, x.size());

  size_t bad_total = 0;
  for (unsigned s = 0; s < kSlots; ++s) {
    const Function& fn = kFunctions[s];
    double worst = 0, worst_real = 0;
    size_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const size_t k = size_t{s} * n + i;
      const double exact = fn.reference(x[k], y[k]);
      const float want = static_cast<float>(exact);
      auto special = [](float v) { return v == 0 || !std::isfinite(v); };
      const bool bits = fn.bound == 0 || special(x[k]) || (fn.two_args && special(y[k]));
      const double err = ulp_error(r[k], want, bits);
      worst = std::max(worst, err);
      worst_real = std::max(worst_real, real_ulp_error(r[k], exact));
      if (err > fn.bound && bad++ < 3) {
        const std::string args = fn.two_args ? (s == kAtan2 ? fmt::format("{:a}, {:a}", y[k], x[k])
                                                            : fmt::format("{:a}, {:a}", x[k], y[k]))
                                             : fmt::format("{:a}", x[k]);
        fmt::print("  {}({}) = {:a} (want {:a}, error {} ulp, bound {})\n", fn.name, args, r[k], want, err, fn.bound);
      }
    }
    fmt::print("  {:<7} worst {:>3} ulp (bound {}; {:.3f} ulp from the exact value){}\n", fn.name, worst, fn.bound,
               worst_real, bad ? fmt::format(": {} of {} OUT OF BOUND", bad, n) : "");
    bad_total += bad;
  }
  fmt::print("mathlib: {} functions x {} inputs, {} results outside the CUDA guide's bounds: {}\n", int{kSlots}, n,
             bad_total, bad_total ? "FAIL" : "match");
  return bad_total == 0;
}

}  // namespace tsm::firmware
