// tsm::fp arithmetic against the host FPU over a million random operand sets per operation and
// rounding mode (with random .ftz and .sat), and min/max/compare against host comparisons.
#include <cmath>
#include <cstdint>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "arith/fp.hpp"
#include "fp_test_support.hpp"

namespace tsm::fp {
namespace {

using test::as_f32;
using test::as_f64;
using test::bits_of;
using test::HostFpuMode;
using test::kDouble;
using test::kSingle;
using test::MismatchLog;
using test::OperandGenerator;

constexpr int kVectors = 1'000'000;

enum class Op { Add, Mul, Fma };

/// Three operands of layout `l`: b clusters around a's exponent (so sums cancel) and c around
/// the exponent of a * b (so fma sums cancel).
struct Operands {
  uint64_t a, b, c;
};
Operands random_operands(OperandGenerator& gen, test::Layout l) {
  const uint64_t a = gen.value(l);
  const uint64_t b = gen.value(l, l.biased_exp(a));
  const uint64_t c = gen.value(l, l.biased_exp(a) + l.biased_exp(b) - l.bias());
  return {a, b, c};
}

uint32_t host_f32(Op op, Operands x, Rnd rnd, bool ftz, bool sat) {
  float result = 0;
  {
    HostFpuMode mode(rnd, ftz);
    volatile float a = as_f32(uint32_t(x.a)), b = as_f32(uint32_t(x.b)), c = as_f32(uint32_t(x.c));
    volatile float r = 0;
    switch (op) {
      case Op::Add: r = a + b; break;
      case Op::Mul: r = a * b; break;
      case Op::Fma: r = std::fma(float(a), float(b), float(c)); break;
    }
    result = r;
  }
  if (sat) result = test::saturate_host(result);
  return std::isnan(result) ? kCanonicalNaN32 : bits_of(result);
}

uint32_t model_f32(Op op, Operands x, Rnd rnd, bool ftz, bool sat) {
  const auto a = uint32_t(x.a), b = uint32_t(x.b), c = uint32_t(x.c);
  switch (op) {
    case Op::Add: return add_f32(a, b, rnd, ftz, sat);
    case Op::Mul: return mul_f32(a, b, rnd, ftz, sat);
    case Op::Fma: return fma_f32(a, b, c, rnd, ftz, sat);
  }
  return 0;
}

uint64_t host_f64(Op op, Operands x, Rnd rnd) {
  double result = 0;
  {
    HostFpuMode mode(rnd, false);
    volatile double a = as_f64(x.a), b = as_f64(x.b), c = as_f64(x.c);
    volatile double r = 0;
    switch (op) {
      case Op::Add: r = a + b; break;
      case Op::Mul: r = a * b; break;
      case Op::Fma: r = std::fma(double(a), double(b), double(c)); break;
    }
    result = r;
  }
  // The host says whether the result is a NaN; which NaN is the DP unit's rule.
  if (std::isnan(result)) return op == Op::Fma ? test::dp_nan({x.b, x.c, x.a}) : test::dp_nan({x.b, x.a});
  return bits_of(result);
}

uint64_t model_f64(Op op, Operands x, Rnd rnd) {
  switch (op) {
    case Op::Add: return add_f64(x.a, x.b, rnd);
    case Op::Mul: return mul_f64(x.a, x.b, rnd);
    case Op::Fma: return fma_f64(x.a, x.b, x.c, rnd);
  }
  return 0;
}

class RandomArithmetic : public ::testing::TestWithParam<Rnd> {
 protected:
  void check_binary32(Op op, uint64_t seed) {
    OperandGenerator gen(seed);
    MismatchLog log;
    const Rnd rnd = GetParam();
    for (int i = 0; i < kVectors; ++i) {
      const Operands x = random_operands(gen, kSingle);
      const bool ftz = gen.coin();
      const bool sat = gen.below(4) == 0;
      log.expect_equal(model_f32(op, x, rnd, ftz, sat), host_f32(op, x, rnd, ftz, sat), [&] {
        return fmt::format("{:#010x} {:#010x} {:#010x} ftz={} sat={}", x.a, x.b, x.c, ftz, sat);
      });
    }
    EXPECT_EQ(log.count(), 0) << "seed " << seed << ", " << log.report();
  }

  void check_binary64(Op op, uint64_t seed) {
    OperandGenerator gen(seed);
    MismatchLog log;
    const Rnd rnd = GetParam();
    for (int i = 0; i < kVectors; ++i) {
      const Operands x = random_operands(gen, kDouble);
      log.expect_equal(model_f64(op, x, rnd), host_f64(op, x, rnd),
                       [&] { return fmt::format("{:#018x} {:#018x} {:#018x}", x.a, x.b, x.c); });
    }
    EXPECT_EQ(log.count(), 0) << "seed " << seed << ", " << log.report();
  }
};

TEST_P(RandomArithmetic, AddF32) { check_binary32(Op::Add, 101); }
TEST_P(RandomArithmetic, MulF32) { check_binary32(Op::Mul, 102); }
TEST_P(RandomArithmetic, FmaF32) { check_binary32(Op::Fma, 103); }
TEST_P(RandomArithmetic, AddF64) { check_binary64(Op::Add, 201); }
TEST_P(RandomArithmetic, MulF64) { check_binary64(Op::Mul, 202); }
TEST_P(RandomArithmetic, FmaF64) { check_binary64(Op::Fma, 203); }

INSTANTIATE_TEST_SUITE_P(AllModes, RandomArithmetic, ::testing::ValuesIn(test::kAllModes),
                         [](const auto& info) { return test::mode_name(info.param); });

/// PTX min/max restated with host comparisons; `flush` is .ftz applied by the host.
template <class T>
T host_min_max(T a, T b, bool nan, bool want_max, T canonical_nan) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan || (std::isnan(a) && std::isnan(b))) return canonical_nan;
    return std::isnan(a) ? b : a;
  }
  if (a != b) return (a < b) != want_max ? a : b;
  return std::signbit(a) != want_max ? a : b;  // equal: zeros of either sign
}

float flush_host(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

bool host_compare(Fcmp op, double a, double b) {
  const bool unordered = std::isunordered(a, b);
  switch (op) {
    case Fcmp::EQ: return a == b;
    case Fcmp::NE: return !unordered && a != b;
    case Fcmp::LT: return a < b;
    case Fcmp::LE: return a <= b;
    case Fcmp::GT: return a > b;
    case Fcmp::GE: return a >= b;
    case Fcmp::EQU: return unordered || a == b;
    case Fcmp::NEU: return a != b;
    case Fcmp::LTU: return !(a >= b);
    case Fcmp::LEU: return !(a > b);
    case Fcmp::GTU: return !(a <= b);
    case Fcmp::GEU: return !(a < b);
    case Fcmp::NUM: return !unordered;
    case Fcmp::NAN_: return unordered;
  }
  return false;
}

TEST(RandomMinMaxCompare, Binary32) {
  OperandGenerator gen(301);
  MismatchLog log;
  for (int i = 0; i < kVectors; ++i) {
    const Operands x = random_operands(gen, kSingle);
    const auto a = uint32_t(x.a), b = uint32_t(x.b);
    const bool ftz = gen.coin();
    const bool nan = gen.coin();
    const auto op = static_cast<Fcmp>(gen.below(14));
    const float ha = ftz ? flush_host(as_f32(a)) : as_f32(a);
    const float hb = ftz ? flush_host(as_f32(b)) : as_f32(b);
    const auto describe = [&] { return fmt::format("{:#010x} {:#010x} ftz={} nan={} cmp={}", a, b, ftz, nan, int(op)); };
    const float canonical = as_f32(kCanonicalNaN32);
    log.expect_equal(min_f32(a, b, ftz, nan), bits_of(host_min_max(ha, hb, nan, false, canonical)), describe);
    log.expect_equal(max_f32(a, b, ftz, nan), bits_of(host_min_max(ha, hb, nan, true, canonical)), describe);
    log.expect_equal(cmp_f32(op, a, b, ftz), host_compare(op, ha, hb), describe);
  }
  EXPECT_EQ(log.count(), 0) << log.report();
}

TEST(RandomMinMaxCompare, Binary64) {
  OperandGenerator gen(302);
  MismatchLog log;
  for (int i = 0; i < kVectors; ++i) {
    const Operands x = random_operands(gen, kDouble);
    const bool nan = gen.coin();
    const auto op = static_cast<Fcmp>(gen.below(14));
    const double a = as_f64(x.a), b = as_f64(x.b);
    const double nan_result = as_f64(test::dp_nan({x.b, x.a}));
    const auto describe = [&] { return fmt::format("{:#018x} {:#018x} nan={} cmp={}", x.a, x.b, nan, int(op)); };
    log.expect_equal(min_f64(x.a, x.b, nan), bits_of(host_min_max(a, b, nan, false, nan_result)), describe);
    log.expect_equal(max_f64(x.a, x.b, nan), bits_of(host_min_max(a, b, nan, true, nan_result)), describe);
    log.expect_equal(cmp_f64(op, x.a, x.b), host_compare(op, a, b), describe);
  }
  EXPECT_EQ(log.count(), 0) << log.report();
}

}  // namespace
}  // namespace tsm::fp
