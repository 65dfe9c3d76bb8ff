// The host references for tsm_cuda_math.h: each float function next to a double-precision C library
// function, the ulp error of a float result against it, and the error bound the documentation
// states. Shared by the accuracy test and the exhaustive sweep (tools/exhaustive.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "tsm_cuda_math.h"

namespace tsm::math_test {

inline float float_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// The error of a float result in units in the last place of the exact result `ref` (a double,
/// accurate far beyond float precision): 0.5 means correctly rounded in the worst case. Infinity
/// counts as 2^128 (so a result that overflows just early is a finite error); a NaN where a number
/// is due, a number where NaN is due, or a zero of the wrong sign is an infinite error.
inline double ulp_error(float got, double ref) {
  constexpr double kInfinite = std::numeric_limits<double>::infinity();
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : kInfinite;
  if (std::isnan(got)) return kInfinite;
  if (std::isinf(ref)) return static_cast<double>(got) == ref ? 0.0 : kInfinite;
  if (ref == 0.0 && got == 0.0) return std::signbit(ref) == std::signbit(got) ? 0.0 : kInfinite;
  double g = std::isinf(got) ? std::copysign(0x1p128, static_cast<double>(got)) : got;
  if (std::fabs(ref) > 0x1p128) ref = std::copysign(0x1p128, ref);  // rounds to inf in float
  double a = std::fabs(ref);
  int e;
  std::frexp(a, &e);  // a = m 2^e, 0.5 <= m < 1
  double ulp = a < 0x1p-126 ? 0x1p-149 : std::ldexp(1.0, std::min(e, 128) - 24);
  return std::fabs(g - ref) / ulp;
}

inline double sinpi_ref(double x) {
  if (!std::isfinite(x)) return std::nan("");
  double r = std::remainder(x, 2.0);  // exact, |r| <= 1
  double a = std::fabs(r);
  if (a > 0.5) a = 1.0 - a;  // sin(pi r) = sin(pi (1 - r)), exact
  double s = std::sin(M_PI * a);
  if (s == 0.0) return std::copysign(0.0, x);  // sinpi(n) = +0 for n > 0, -0 for n < 0
  return r < 0 ? -s : s;
}
inline double cospi_ref(double x) {
  if (!std::isfinite(x)) return std::nan("");
  double a = std::fabs(std::remainder(x, 2.0));  // exact, in [0, 1]
  return a == 0.5 ? 0.0 : sinpi_ref(0.5 - a);    // cos(pi a) = sin(pi (1/2 - a)), exact argument
}

struct Unary {
  const char* name;
  float (*f)(float);
  double (*ref)(double);
  double bound;  ///< the ulp bound documented in docs/cuda-frontends.md
};
struct Binary {
  const char* name;
  float (*f)(float, float);
  double (*ref)(double, double);
  double bound;
};

inline double exp10_ref(double x) { return std::pow(10.0, x); }

inline void PrintTo(const Unary& f, std::ostream* os) { *os << f.name; }
inline void PrintTo(const Binary& f, std::ostream* os) { *os << f.name; }

// Bounds: the maximum of the exhaustive sweep (tools/exhaustive.cpp: every float input of the
// one-argument functions, 2^28 pairs for the others), rounded up to the next 0.5 ulp.
inline const std::vector<Unary>& unary_functions() {
  static const std::vector<Unary> fns = {
      {"sinf", tsm_math::sinf, ::sin, 1.0},         {"cosf", tsm_math::cosf, ::cos, 1.0},
      {"tanf", tsm_math::tanf, ::tan, 1.5},         {"sinpif", tsm_math::sinpif, sinpi_ref, 1.0},
      {"cospif", tsm_math::cospif, cospi_ref, 1.0}, {"asinf", tsm_math::asinf, ::asin, 1.0},
      {"acosf", tsm_math::acosf, ::acos, 1.0},      {"atanf", tsm_math::atanf, ::atan, 1.5},
      {"sinhf", tsm_math::sinhf, ::sinh, 1.0},      {"coshf", tsm_math::coshf, ::cosh, 1.0},
      {"tanhf", tsm_math::tanhf, ::tanh, 1.0},      {"asinhf", tsm_math::asinhf, ::asinh, 1.5},
      {"acoshf", tsm_math::acoshf, ::acosh, 1.5},   {"atanhf", tsm_math::atanhf, ::atanh, 1.0},
      {"expf", tsm_math::expf, ::exp, 1.0},         {"exp2f", tsm_math::exp2f, ::exp2, 1.0},
      {"exp10f", tsm_math::exp10f, exp10_ref, 1.0}, {"expm1f", tsm_math::expm1f, ::expm1, 1.0},
      {"logf", tsm_math::logf, ::log, 1.0},         {"log2f", tsm_math::log2f, ::log2, 1.0},
      {"log10f", tsm_math::log10f, ::log10, 1.0},   {"log1pf", tsm_math::log1pf, ::log1p, 1.0},
      {"cbrtf", tsm_math::cbrtf, ::cbrt, 0.5},      {"erff", tsm_math::erff, ::erf, 1.5},
      {"erfcf", tsm_math::erfcf, ::erfc, 1.5},      {"sqrtf", tsm_math::sqrtf, ::sqrt, 0.5},
      {"floorf", tsm_math::floorf, ::floor, 0.0},   {"ceilf", tsm_math::ceilf, ::ceil, 0.0},
      {"truncf", tsm_math::truncf, ::trunc, 0.0},   {"roundf", tsm_math::roundf, ::round, 0.0},
      {"rintf", tsm_math::rintf, ::rint, 0.0},      {"fabsf", tsm_math::fabsf, ::fabs, 0.0},
      {"logbf", tsm_math::logbf, ::logb, 0.0},
  };
  return fns;
}

inline const std::vector<Binary>& binary_functions() {
  static const std::vector<Binary> fns = {
      {"powf", tsm_math::powf, ::pow, 1.0},
      {"atan2f", tsm_math::atan2f, ::atan2, 1.5},
      {"hypotf", tsm_math::hypotf, ::hypot, 1.0},
      {"fmodf", tsm_math::fmodf, ::fmod, 0.0},
      {"remainderf", tsm_math::remainderf, ::remainder, 0.0},
      {"fminf", tsm_math::fminf, ::fmin, 0.0},
      {"fmaxf", tsm_math::fmaxf, ::fmax, 0.0},
      {"fdimf", tsm_math::fdimf, ::fdim, 0.5},
      {"copysignf", tsm_math::copysignf, ::copysign, 0.0},
  };
  return fns;
}

}  // namespace tsm::math_test
