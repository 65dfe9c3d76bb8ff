// tsm::fp arithmetic on hand-worked special values: halfway cases in every rounding mode, signed
// zeros, infinities, NaNs, subnormals, overflow, .ftz, .sat, min/max and compare; plus the
// hardware behaviour measured on an NVIDIA H200 (sm_90) that PTX leaves open.
#include <array>
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "arith/fp.hpp"
#include "fp_test_support.hpp"

namespace tsm::fp {
namespace {

using test::kAllModes;
using test::mode_name;

// binary32 landmarks
constexpr uint32_t kOne = 0x3F800000, kOnePlusUlp = 0x3F800001, kOneMinusHalfUlp = 0x3F7FFFFF;
constexpr uint32_t kHalf = 0x3F000000, kTwo = 0x40000000, kNegOne = 0xBF800000;
constexpr uint32_t kMinSub = 0x00000001, kMaxSub = 0x007FFFFF, kMinNorm = 0x00800000, kMax = 0x7F7FFFFF;
constexpr uint32_t kInf = 0x7F800000, kNegInf = 0xFF800000, kNegZero = 0x80000000;
constexpr uint32_t kQuietNaN = 0x7FC00123, kSignalingNaN = 0x7F800001, kNegNaN = 0xFFC00000;
constexpr uint32_t kNaN = kCanonicalNaN32;

using Want = std::array<uint64_t, 4>;  // expected result in RN, RZ, RM, RP
constexpr Want all(uint64_t v) { return {v, v, v, v}; }

/// Checks `op(rnd)` against the expected result of every rounding mode.
template <class Op>
void expect_modes(const std::string& what, Want want, Op op) {
  for (Rnd rnd : kAllModes) {
    EXPECT_EQ(op(rnd), want[static_cast<int>(rnd)]) << what << " in " << mode_name(rnd) << fmt::format(
        ": got {:#x}, want {:#x}", op(rnd), want[static_cast<int>(rnd)]);
  }
}

struct Binary32Case {
  uint32_t a, b;
  Want want;
};

TEST(Binary32, AddRoundsHalfwayCasesPerMode) {
  const Binary32Case cases[] = {
      {kOne, 0x33800000, {kOne, kOne, kOne, kOnePlusUlp}},                            // 1 + 2^-24: tie, even below
      {kOnePlusUlp, 0x33800000, {0x3F800002, kOnePlusUlp, kOnePlusUlp, 0x3F800002}},  // tie, even above
      {kNegOne, 0xB3800000, {kNegOne, kNegOne, 0xBF800001, kNegOne}},                 // negative tie
      {kOne, 0x33000000, {kOne, kOne, kOne, kOnePlusUlp}},                            // below half an ulp
      {kOne, 0x33800001, {kOnePlusUlp, kOne, kOne, kOnePlusUlp}},                     // above half an ulp
      {0x4B800000, kOne, {0x4B800000, 0x4B800000, 0x4B800000, 0x4B800001}},           // 2^24 + 1
      {0x4B800001, kOne, {0x4B800002, 0x4B800001, 0x4B800001, 0x4B800002}},           // 2^24 + 3
      {kMax, 0x73000000, {kInf, kMax, kMax, kInf}},                                   // max + half an ulp
      {kMax, 0x72800000, {kMax, kMax, kMax, kInf}},                                   // max + quarter ulp
      {kMax, kMax, {kInf, kMax, kMax, kInf}},
      {0xFF7FFFFF, 0xFF7FFFFF, {kNegInf, 0xFF7FFFFF, kNegInf, 0xFF7FFFFF}},
  };
  for (const auto& c : cases) {
    expect_modes(fmt::format("add({:#x}, {:#x})", c.a, c.b), c.want,
                 [&](Rnd rnd) { return add_f32(c.a, c.b, rnd, false, false); });
  }
}

TEST(Binary32, AddExactResults) {
  const Binary32Case cases[] = {
      {kOne, kNegOne, {0, 0, kNegZero, 0}},  // an exact zero is -0 only toward -inf
      {kNegZero, kNegZero, all(kNegZero)},
      {0, kNegZero, {0, 0, kNegZero, 0}},
      {kOnePlusUlp, kNegOne, all(0x34000000)},  // cancellation leaves 2^-23
      {kMinSub, kMinSub, all(0x00000002)},
      {kMaxSub, kMinSub, all(kMinNorm)},  // subnormal sum carries into the normals
      {0x00800001, 0x80800000, all(kMinSub)},
      {kInf, kOne, all(kInf)},
      {kNegInf, kMax, all(kNegInf)},
  };
  for (const auto& c : cases) {
    expect_modes(fmt::format("add({:#x}, {:#x})", c.a, c.b), c.want,
                 [&](Rnd rnd) { return add_f32(c.a, c.b, rnd, false, false); });
  }
}

TEST(Binary32, NaNResultsAreCanonical) {
  for (Rnd rnd : kAllModes) {
    EXPECT_EQ(add_f32(kInf, kNegInf, rnd, false, false), kNaN);
    EXPECT_EQ(add_f32(kQuietNaN, kOne, rnd, false, false), kNaN);
    EXPECT_EQ(add_f32(kOne, kSignalingNaN, rnd, false, false), kNaN);
    EXPECT_EQ(add_f32(kNegNaN, kNegInf, rnd, false, false), kNaN);
    EXPECT_EQ(mul_f32(0, kInf, rnd, false, false), kNaN);
    EXPECT_EQ(mul_f32(kNegNaN, kTwo, rnd, false, false), kNaN);
    EXPECT_EQ(fma_f32(kInf, 0, kQuietNaN, rnd, false, false), kNaN);
    EXPECT_EQ(fma_f32(kInf, kOne, kNegInf, rnd, false, false), kNaN);
    EXPECT_EQ(fma_f32(kOne, kOne, kSignalingNaN, rnd, false, false), kNaN);
  }
}

TEST(Binary32, MulRoundsHalfwayCasesPerMode) {
  const Binary32Case cases[] = {
      {kMinSub, kHalf, {0, 0, 0, kMinSub}},  // 2^-150: tie between 0 and the smallest subnormal
      {0x80000001, kHalf, {kNegZero, kNegZero, 0x80000001, kNegZero}},
      {0x00000003, kHalf, {0x00000002, 0x00000001, 0x00000001, 0x00000002}},  // 1.5 subnormal ulps
      {kMinSub, 0x3F400000, {kMinSub, 0, 0, kMinSub}},                         // 0.75 ulps
      {kOnePlusUlp, kOnePlusUlp, {0x3F800002, 0x3F800002, 0x3F800002, 0x3F800003}},
      {kOnePlusUlp, kOneMinusHalfUlp, {kOne, kOne, kOne, kOnePlusUlp}},  // just below a tie
      {kOneMinusHalfUlp, kMinNorm, {kMinNorm, kMaxSub, kMaxSub, kMinNorm}},  // rounds into the normals
      {kMax, kTwo, {kInf, kMax, kMax, kInf}},
      {kMax, 0xC0000000, {kNegInf, 0xFF7FFFFF, kNegInf, 0xFF7FFFFF}},
      {kNegZero, 0x40A00000, all(kNegZero)},
      {0xC0000000, 0, all(kNegZero)},
  };
  for (const auto& c : cases) {
    expect_modes(fmt::format("mul({:#x}, {:#x})", c.a, c.b), c.want,
                 [&](Rnd rnd) { return mul_f32(c.a, c.b, rnd, false, false); });
  }
}

struct FmaCase {
  uint32_t a, b, c;
  Want want;
};

TEST(Binary32, FmaRoundsOnce) {
  const FmaCase cases[] = {
      {kOnePlusUlp, kOnePlusUlp, 0xBF800002, all(0x28800000)},  // the product's exact low part, 2^-46
      {kMax, kTwo, 0xFF7FFFFF, all(kMax)},                      // no overflow inside the fma
      {0, 0x40A00000, kNegZero, {0, 0, kNegZero, 0}},
      {kNegZero, 0x40A00000, kNegZero, all(kNegZero)},
      {kOne, kOne, kNegOne, {0, 0, kNegZero, 0}},
      {kOne, kOne, kMinSub, {kOne, kOne, kOne, kOnePlusUlp}},  // a subnormal addend decides rounding
      {kNegOne, kOne, kMinSub, {kNegOne, 0xBF7FFFFF, kNegOne, 0xBF7FFFFF}},
      {0x1A479437, 0x19F93769, 0x80800000, {0x807FFFFF, 0x807FFFFF, 0x80800000, 0x807FFFFF}},
      {kOne, kOne, kInf, all(kInf)},
      {kInf, kTwo, kOne, all(kInf)},
  };
  for (const auto& c : cases) {
    expect_modes(fmt::format("fma({:#x}, {:#x}, {:#x})", c.a, c.b, c.c), c.want,
                 [&](Rnd rnd) { return fma_f32(c.a, c.b, c.c, rnd, false, false); });
  }
}

TEST(Binary32, FtzFlushesSubnormalInputs) {
  expect_modes("ftz add(minsub, 1)", all(kOne), [](Rnd rnd) { return add_f32(kMinSub, kOne, rnd, true, false); });
  expect_modes("ftz add(maxsub, maxsub)", all(0), [](Rnd rnd) { return add_f32(kMaxSub, kMaxSub, rnd, true, false); });
  expect_modes("ftz add(-minsub, 0)", {0, 0, kNegZero, 0},
               [](Rnd rnd) { return add_f32(0x80000001, 0, rnd, true, false); });
  expect_modes("ftz fma(1, 1, minsub)", all(kOne), [](Rnd rnd) { return fma_f32(kOne, kOne, kMinSub, rnd, true, false); });
  expect_modes("ftz mul(minsub, 2^30)", all(0), [](Rnd rnd) { return mul_f32(kMinSub, 0x4E800000, rnd, true, false); });
}

// Results tiny after rounding (with an unbounded exponent) flush to zero; results that round up
// to the smallest normal do not. The vectors were run on an H200: PTX does not say which
// tininess rule .ftz uses.
TEST(Binary32, FtzFlushesResultsTinyAfterRoundingAsMeasured) {
  // (1 - 2^-24) * 2^-126 is exact at 24 bits, so tiny in every mode, though RN and RP round it to
  // the smallest normal when subnormals are kept.
  expect_modes("ftz mul(1-2^-24, 2^-126)", all(0),
               [](Rnd rnd) { return mul_f32(kOneMinusHalfUlp, kMinNorm, rnd, true, false); });
  // (1 - 2^-25) * 2^-126 = 18631*2^-75 * 1801*2^-76 rounds to 2^-126 at 24 bits in RN and RP.
  expect_modes("ftz mul((1-2^-25) 2^-126)", {kMinNorm, 0, 0, kMinNorm},
               [](Rnd rnd) { return mul_f32(0x21118E00, 0x1EE12000, rnd, true, false); });
  expect_modes("ftz mul(-(1-2^-25) 2^-126)", {0x80800000, kNegZero, 0x80800000, kNegZero},
               [](Rnd rnd) { return mul_f32(0x21118E00, 0x9EE12000, rnd, true, false); });
  expect_modes("ftz fma(-2^-126 + 1.52 * 2^-150)", all(kNegZero),
               [](Rnd rnd) { return fma_f32(0x1A479437, 0x19F93769, 0x80800000, rnd, true, false); });
  expect_modes("ftz exact subnormal difference", all(0),
               [](Rnd rnd) { return add_f32(0x00800001, 0x80800000, rnd, true, false); });
  expect_modes("ftz exact negative subnormal difference", all(kNegZero),
               [](Rnd rnd) { return add_f32(0x00800000, 0x80800001, rnd, true, false); });
}

TEST(Binary32, SatClampsToZeroOne) {
  for (Rnd rnd : kAllModes) {
    EXPECT_EQ(add_f32(kHalf, 0x3F400000, rnd, false, true), kOne);  // 1.25
    EXPECT_EQ(add_f32(kNegOne, kHalf, rnd, false, true), 0u);
    EXPECT_EQ(add_f32(kNegZero, kNegZero, rnd, false, true), 0u);  // -0 saturates to +0
    EXPECT_EQ(add_f32(kInf, kNegInf, rnd, false, true), 0u);       // NaN saturates to +0
    EXPECT_EQ(add_f32(0x3E800000, 0x3E800000, rnd, false, true), kHalf);
    EXPECT_EQ(mul_f32(kInf, kOne, rnd, false, true), kOne);
    EXPECT_EQ(mul_f32(kNegInf, kOne, rnd, false, true), 0u);
    EXPECT_EQ(mul_f32(kTwo, 0x3F400000, rnd, false, true), kOne);
    EXPECT_EQ(fma_f32(kHalf, kHalf, 0x3F400000, rnd, false, true), kOne);
    EXPECT_EQ(fma_f32(kNegOne, kOne, kHalf, rnd, false, true), 0u);
    EXPECT_EQ(fma_f32(kMinSub, kOne, 0, rnd, false, true), kMinSub);  // without ftz subnormals stay
    EXPECT_EQ(fma_f32(kMinSub, kOne, 0, rnd, true, true), 0u);
  }
}

TEST(Binary32, MinMax) {
  EXPECT_EQ(min_f32(kOne, kTwo, false, false), kOne);
  EXPECT_EQ(max_f32(kOne, kTwo, false, false), kTwo);
  EXPECT_EQ(min_f32(kNegZero, 0, false, false), kNegZero);  // -0 orders below +0
  EXPECT_EQ(min_f32(0, kNegZero, false, false), kNegZero);
  EXPECT_EQ(max_f32(kNegZero, 0, false, false), 0u);
  EXPECT_EQ(max_f32(0, kNegZero, false, false), 0u);
  EXPECT_EQ(min_f32(kQuietNaN, kOne, false, false), kOne);  // one NaN: the other operand
  EXPECT_EQ(max_f32(kOne, kSignalingNaN, false, false), kOne);
  EXPECT_EQ(min_f32(kNegNaN, kNegInf, false, false), kNegInf);
  EXPECT_EQ(min_f32(kQuietNaN, kNegNaN, false, false), kNaN);  // two NaNs: canonical
  EXPECT_EQ(min_f32(kQuietNaN, kOne, false, true), kNaN);      // .NaN: any NaN wins
  EXPECT_EQ(max_f32(kOne, kNegNaN, false, true), kNaN);
  EXPECT_EQ(min_f32(kOne, kTwo, false, true), kOne);
  EXPECT_EQ(min_f32(0x80000001, 0, false, false), 0x80000001u);
  EXPECT_EQ(min_f32(0x80000001, 0, true, false), kNegZero);  // ftz returns the flushed input
  EXPECT_EQ(max_f32(kMinSub, 0, false, false), kMinSub);
  EXPECT_EQ(max_f32(kMinSub, 0, true, false), 0u);
  EXPECT_EQ(min_f32(kMinSub, kOne, true, false), 0u);
}

TEST(Binary32, CompareEveryPredicate) {
  // Expected results in Fcmp order: EQ NE LT LE GT GE EQU NEU LTU LEU GTU GEU NUM NAN.
  struct CompareCase {
    uint32_t a, b;
    bool ftz;
    const char* want;
  };
  const CompareCase cases[] = {
      {kOne, kTwo, false, "01110001110010"},
      {kTwo, kOne, false, "01001101001110"},
      {kOne, kOne, false, "10010110010110"},
      {kNegZero, 0, false, "10010110010110"},  // -0 == +0
      {kQuietNaN, kOne, false, "00000011111101"},
      {kOne, kSignalingNaN, false, "00000011111101"},
      {kInf, kInf, false, "10010110010110"},
      {kNegInf, kMax, false, "01110001110010"},
      {kMinSub, 0, false, "01001101001110"},
      {kMinSub, 0, true, "10010110010110"},  // ftz: both zero
      {0x80000001, kMinSub, true, "10010110010110"},
  };
  constexpr Fcmp kOps[] = {Fcmp::EQ, Fcmp::NE, Fcmp::LT, Fcmp::LE, Fcmp::GT, Fcmp::GE, Fcmp::EQU,
                           Fcmp::NEU, Fcmp::LTU, Fcmp::LEU, Fcmp::GTU, Fcmp::GEU, Fcmp::NUM, Fcmp::NAN_};
  for (const auto& c : cases) {
    for (int i = 0; i < 14; ++i) {
      EXPECT_EQ(cmp_f32(kOps[i], c.a, c.b, c.ftz), c.want[i] == '1')
          << fmt::format("cmp #{} ({:#x}, {:#x}) ftz={}", i, c.a, c.b, c.ftz);
      EXPECT_EQ(cmp_f64(kOps[i], test::bits_of(double(test::as_f32(c.a))), test::bits_of(double(test::as_f32(c.b)))),
                c.ftz ? cmp_f32(kOps[i], c.a, c.b, false) : c.want[i] == '1')
          << fmt::format("cmp_f64 #{} ({:#x}, {:#x})", i, c.a, c.b);
    }
  }
}

// binary64 landmarks
constexpr uint64_t kOne64 = 0x3FF0000000000000, kMax64 = 0x7FEFFFFFFFFFFFFF, kInf64 = 0x7FF0000000000000;
constexpr uint64_t kNegInf64 = 0xFFF0000000000000, kNegZero64 = 0x8000000000000000, kHalf64 = 0x3FE0000000000000;
constexpr uint64_t kQa = 0x7FF8000000000AAA, kQb = 0xFFF8000000000BBB, kQc = 0x7FF8000000000CCC;
constexpr uint64_t kSa = 0x7FF0000000000A5A, kSb = 0xFFF0000000000B5B;

TEST(Binary64, RoundsHalfwayCasesPerMode) {
  expect_modes("1 + 2^-53", {kOne64, kOne64, kOne64, kOne64 + 1},
               [](Rnd rnd) { return add_f64(kOne64, 0x3CA0000000000000, rnd); });
  expect_modes("(1 + 2^-52) + 2^-53", {kOne64 + 2, kOne64 + 1, kOne64 + 1, kOne64 + 2},
               [](Rnd rnd) { return add_f64(kOne64 + 1, 0x3CA0000000000000, rnd); });
  expect_modes("1 - 1", {0, 0, kNegZero64, 0}, [](Rnd rnd) { return add_f64(kOne64, kOne64 | kNegZero64, rnd); });
  expect_modes("minsub * 0.5", {0, 0, 0, 1}, [](Rnd rnd) { return mul_f64(1, kHalf64, rnd); });
  expect_modes("max * 2", {kInf64, kMax64, kMax64, kInf64}, [](Rnd rnd) { return mul_f64(kMax64, 0x4000000000000000, rnd); });
  expect_modes("max + max", {kInf64, kMax64, kMax64, kInf64}, [](Rnd rnd) { return add_f64(kMax64, kMax64, rnd); });
  expect_modes("fma exact low part", all(0x3970000000000000),
               [](Rnd rnd) { return fma_f64(kOne64 + 1, kOne64 + 1, 0xBFF0000000000002, rnd); });
  expect_modes("fma(1, 1, minsub)", {kOne64, kOne64, kOne64, kOne64 + 1}, [](Rnd rnd) { return fma_f64(kOne64, kOne64, 1, rnd); });
}

// The DP unit propagates NaN operands (quieted): add and mul prefer b, fma prefers b, then c,
// then a; invalid operations give 0xFFF8000000000000. Measured on an H200.
TEST(Binary64, NaNPropagationAsMeasured) {
  for (Rnd rnd : kAllModes) {
    EXPECT_EQ(add_f64(kQa, kQb, rnd), kQb);
    EXPECT_EQ(add_f64(kQb, kQa, rnd), kQa);
    EXPECT_EQ(add_f64(kSa, kQb, rnd), kQb);
    EXPECT_EQ(add_f64(kQb, kSa, rnd), 0x7FF8000000000A5Au);
    EXPECT_EQ(add_f64(kOne64, kSb, rnd), 0xFFF8000000000B5Bu);
    EXPECT_EQ(add_f64(kInf64, kNegInf64, rnd), kDefaultNaN64);
    EXPECT_EQ(mul_f64(kSa, kSb, rnd), 0xFFF8000000000B5Bu);
    EXPECT_EQ(mul_f64(0, kInf64, rnd), kDefaultNaN64);
    EXPECT_EQ(mul_f64(kInf64, kNegZero64, rnd), kDefaultNaN64);
    EXPECT_EQ(fma_f64(kQa, kOne64, kQc, rnd), kQc);
    EXPECT_EQ(fma_f64(kQa, kQb, kQc, rnd), kQb);
    EXPECT_EQ(fma_f64(kSa, kOne64, kOne64, rnd), 0x7FF8000000000A5Au);
    EXPECT_EQ(fma_f64(0, kInf64, kQc, rnd), kQc);  // a NaN operand beats the invalid 0 * inf
    EXPECT_EQ(fma_f64(0, kInf64, kOne64, rnd), kDefaultNaN64);
    EXPECT_EQ(fma_f64(kOne64, kInf64, kNegInf64, rnd), kDefaultNaN64);
  }
}

TEST(Binary64, MinMax) {
  EXPECT_EQ(min_f64(kNegZero64, 0, false), kNegZero64);
  EXPECT_EQ(max_f64(kNegZero64, 0, false), 0u);
  EXPECT_EQ(min_f64(kQa, kOne64, false), kOne64);
  EXPECT_EQ(max_f64(kOne64, kSb, false), kOne64);
  EXPECT_EQ(min_f64(kQa, kQb, false), kQb);  // two NaNs: b, quieted (measured)
  EXPECT_EQ(max_f64(kQb, kSa, false), 0x7FF8000000000A5Au);
  EXPECT_EQ(min_f64(kQa, kOne64, true), kQa);
  EXPECT_EQ(max_f64(kOne64, 0x4000000000000000, true), 0x4000000000000000u);
}

}  // namespace
}  // namespace tsm::fp
