// The math library of tsm_cuda.h, compiled for the host (tsm_cuda_math.h, the same source the
// device uses, bit for bit): each function against the double-precision C library over a few
// hundred thousand inputs, within the ulp bound docs/cuda-frontends.md states; special values
// (NaN, infinities, signed zeros) exactly as C99 Annex F wants them.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "math_reference.hpp"

namespace {

using namespace tsm::math_test;

constexpr int kRandomBits = 1 << 18;  // random bit patterns: every magnitude, NaN, inf
constexpr int kInRange = 1 << 17;     // uniform over the range where the function is interesting

/// Where each function does its interesting work (beyond the random bit patterns).
const std::map<std::string, std::pair<float, float>>& ranges() {
  static const std::map<std::string, std::pair<float, float>> r = {
      {"sinf", {-100, 100}},
      {"cosf", {-100, 100}},
      {"tanf", {-100, 100}},
      {"sinpif", {-4, 4}},
      {"cospif", {-4, 4}},
      {"asinf", {-1, 1}},
      {"acosf", {-1, 1}},
      {"atanf", {-8, 8}},
      {"sinhf", {-12, 12}},
      {"coshf", {-12, 12}},
      {"tanhf", {-10, 10}},
      {"asinhf", {-8, 8}},
      {"acoshf", {1, 8}},
      {"atanhf", {-1, 1}},
      {"expf", {-104, 89}},
      {"exp2f", {-150, 128}},
      {"exp10f", {-45, 39}},
      {"expm1f", {-2, 2}},
      {"logf", {0, 4}},
      {"log2f", {0, 4}},
      {"log10f", {0, 4}},
      {"log1pf", {-1, 4}},
      {"cbrtf", {-8, 8}},
      {"erff", {-4, 4}},
      {"erfcf", {-4, 10}},
      {"sqrtf", {0, 4}},
      {"powf", {0, 4}},
      {"atan2f", {-4, 4}},
      {"hypotf", {-4, 4}},
      {"fmodf", {-100, 100}},
      {"remainderf", {-100, 100}},
  };
  return r;
}

const float kSpecials[] = {0.0f,      -0.0f,      INFINITY,   -INFINITY,  NAN,      1.0f,
                           -1.0f,     0.5f,       -0.5f,      2.0f,       -2.0f,    3.0f,
                           0x1p-149f, -0x1p-149f, 0x1p-126f,  FLT_MAX,    -FLT_MAX, 1e-20f,
                           88.7f,     -103.9f,    1.5707964f, 3.1415927f, 1e10f,    -1e10f};

/// The bits of f, with every NaN the same (sincosf may return a NaN of another payload).
uint32_t float_bits_or_nan(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return std::isnan(f) ? 0x7fc00000u : u;
}

struct Worst {
  double error = 0;
  float x = 0, y = 0;
  void update(double e, float a, float b = 0) {
    if (e > error) *this = {e, a, b};
  }
};

class OneArgument : public ::testing::TestWithParam<Unary> {};

TEST_P(OneArgument, WithinDocumentedUlp) {
  const Unary& f = GetParam();
  std::mt19937 rng(12345);
  Worst w;
  auto check = [&](float x) { w.update(ulp_error(f.f(x), f.ref(x)), x); };
  for (int i = 0; i < kRandomBits; ++i) check(float_from_bits(static_cast<uint32_t>(rng())));
  auto range = ranges().find(f.name);
  if (range != ranges().end()) {
    std::uniform_real_distribution<float> u(range->second.first, range->second.second);
    for (int i = 0; i < kInRange; ++i) check(u(rng));
  }
  for (float x : kSpecials) check(x);
  RecordProperty("max_ulp", std::to_string(w.error));
  EXPECT_LE(w.error, f.bound + 1e-9)
      << f.name << "(" << std::hexfloat << w.x << ") = " << f.f(w.x) << ", C library " << f.ref(w.x)
      << std::defaultfloat << ": " << w.error << " ulp";
  std::printf("%-11s max %.3f ulp (bound %.1f)\n", f.name, w.error, f.bound);
}

INSTANTIATE_TEST_SUITE_P(Math, OneArgument, ::testing::ValuesIn(unary_functions()),
                         [](const auto& info) { return std::string(info.param.name); });

class TwoArguments : public ::testing::TestWithParam<Binary> {};

TEST_P(TwoArguments, WithinDocumentedUlp) {
  const Binary& f = GetParam();
  std::mt19937 rng(777);
  Worst w;
  auto check = [&](float x, float y) { w.update(ulp_error(f.f(x, y), f.ref(x, y)), x, y); };
  for (int i = 0; i < kRandomBits; ++i)
    check(float_from_bits(static_cast<uint32_t>(rng())),
          float_from_bits(static_cast<uint32_t>(rng())));
  auto range = ranges().find(f.name);
  if (range != ranges().end()) {
    std::uniform_real_distribution<float> u(range->second.first, range->second.second);
    for (int i = 0; i < kInRange; ++i) check(u(rng), u(rng));
  }
  for (float x : kSpecials)
    for (float y : kSpecials) check(x, y);
  EXPECT_LE(w.error, f.bound + 1e-9)
      << f.name << "(" << std::hexfloat << w.x << ", " << w.y << ") = " << f.f(w.x, w.y)
      << ", C library " << f.ref(w.x, w.y) << std::defaultfloat << ": " << w.error << " ulp";
  std::printf("%-11s max %.3f ulp (bound %.1f)\n", f.name, w.error, f.bound);
}

INSTANTIATE_TEST_SUITE_P(Math, TwoArguments, ::testing::ValuesIn(binary_functions()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Math, PowfWhereTheExponentIsLarge) {
  // y log2 x anywhere in the finite range, x near 1 included: the log needs about 2^-33 relative
  // accuracy here, which is why powf carries it in two floats.
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> lx(-40, 40), z(-150, 128);
  Worst w;
  for (int i = 0; i < kInRange; ++i) {
    float x = static_cast<float>(std::exp2(lx(rng)));
    if (i & 1) x = 1.0f + (x - 1.0f) * 1e-3f;
    float y = static_cast<float>(z(rng) / std::log2(static_cast<double>(x)));
    if (!std::isfinite(y)) continue;
    w.update(ulp_error(tsm_math::powf(x, y), std::pow(static_cast<double>(x), y)), x, y);
  }
  EXPECT_LE(w.error, 1.0) << "powf(" << std::hexfloat << w.x << ", " << w.y << ")";
}

TEST(Math, PowfSpecialCasesFollowC99) {
  const float values[] = {0.0f,     -0.0f,     1.0f, -1.0f,   2.0f,     -2.0f,
                          0.5f,     -0.5f,     3.0f, -3.0f,   2.5f,     -2.5f,
                          INFINITY, -INFINITY, NAN,  0x1p24f, -0x1p24f, 0x1p-149f};
  for (float x : values)
    for (float y : values) {
      float got = tsm_math::powf(x, y), want = ::powf(x, y);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << "powf(" << x << ", " << y << ")";
      } else {
        EXPECT_EQ(got, want) << "powf(" << x << ", " << y << ")";
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << "powf(" << x << ", " << y << ")";
      }
    }
}

TEST(Math, ExactHelpersMatchTheCLibrary) {
  std::mt19937 rng(5);
  for (int i = 0; i < kInRange; ++i) {
    const float x = float_from_bits(static_cast<uint32_t>(rng()));
    int e1 = 0, e2 = 0;
    const float m1 = tsm_math::frexpf(x, &e1), m2 = ::frexpf(x, &e2);
    if (std::isnan(x)) continue;
    ASSERT_EQ(m1, m2) << std::hexfloat << x;
    if (std::isfinite(x)) {
      ASSERT_EQ(e1, e2) << std::hexfloat << x;
    }
    const int n = static_cast<int>(rng() % 600) - 300;
    ASSERT_EQ(tsm_math::ldexpf(x, n), ::ldexpf(x, n)) << std::hexfloat << x << " " << n;
    ASSERT_EQ(tsm_math::scalbnf(x, n), ::scalbnf(x, n));
    ASSERT_EQ(tsm_math::ilogbf(x), ::ilogbf(x)) << std::hexfloat << x;
    float i1, i2;
    ASSERT_EQ(tsm_math::modff(x, &i1), ::modff(x, &i2)) << std::hexfloat << x;
    ASSERT_EQ(i1, i2);
    float s, c;
    tsm_math::sincosf(x, &s, &c);
    ASSERT_EQ(float_bits_or_nan(s), float_bits_or_nan(tsm_math::sinf(x)));
    ASSERT_EQ(float_bits_or_nan(c), float_bits_or_nan(tsm_math::cosf(x)));
  }
}

}  // namespace
