// tsm::fp conversions (PTX cvt): hand-worked edges (2^31, 2^32, 2^63, 2^64, halves in every
// mode, NaN, saturation, binary16 overflow), the hardware behaviour measured on an H200, and a
// million random conversions per rounding mode against the host FPU and a binary16 table.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

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
using test::kAllModes;
using test::MismatchLog;
using test::mode_name;
using test::OperandGenerator;

using Want = std::array<uint64_t, 4>;  // expected result in RN, RZ, RM, RP
constexpr Want all(uint64_t v) { return {v, v, v, v}; }
constexpr uint64_t sext(int64_t v) { return static_cast<uint64_t>(v); }

constexpr int kVectors = 1'000'000;

struct F2ICase {
  uint64_t src;
  Ftype sfmt;
  Itype dtype;
  Want want;
  bool ftz = false;
};

TEST(F2I, EdgesInEveryMode) {
  constexpr uint64_t kS32Max = 0x7FFFFFFF, kS32Min = sext(INT32_MIN), kS64Max = 0x7FFFFFFFFFFFFFFF;
  constexpr uint64_t kS64Min = 0x8000000000000000, kU64Max = ~uint64_t{0};
  const F2ICase cases[] = {
      {0x4F000000, Ftype::F32, Itype::S32, all(kS32Max)},  // 2^31
      {0x4F000000, Ftype::F32, Itype::U32, all(0x80000000)},
      {0x4F000000, Ftype::F32, Itype::S64, all(0x80000000)},
      {0xCF000000, Ftype::F32, Itype::S32, all(kS32Min)},  // -2^31
      {0xCF000000, Ftype::F32, Itype::U32, all(0)},
      {0x4F800000, Ftype::F32, Itype::U32, all(0xFFFFFFFF)},  // 2^32
      {0x4F800000, Ftype::F32, Itype::S64, all(0x100000000)},
      {0x4F7FFFFF, Ftype::F32, Itype::U32, all(0xFFFFFF00)},
      {0x5F000000, Ftype::F32, Itype::S64, all(kS64Max)},  // 2^63
      {0x5F000000, Ftype::F32, Itype::U64, all(0x8000000000000000)},
      {0xDF000000, Ftype::F32, Itype::S64, all(kS64Min)},
      {0x5F800000, Ftype::F32, Itype::U64, all(kU64Max)},  // 2^64
      {0x5F7FFFFF, Ftype::F32, Itype::U64, all(0xFFFFFF0000000000)},
      {0xBF000000, Ftype::F32, Itype::S32, {0, 0, sext(-1), 0}},  // -0.5
      {0xBF000000, Ftype::F32, Itype::U32, all(0)},
      {0xBFC00000, Ftype::F32, Itype::S32, {sext(-2), sext(-1), sext(-2), sext(-1)}},  // -1.5
      {0x3F000000, Ftype::F32, Itype::S32, {0, 0, 0, 1}},                              // 0.5
      {0x3FC00000, Ftype::F32, Itype::S32, {2, 1, 1, 2}},                              // 1.5
      {0x40200000, Ftype::F32, Itype::S32, {2, 2, 2, 3}},                              // 2.5
      {0x7F800000, Ftype::F32, Itype::S32, all(kS32Max)},
      {0xFF800000, Ftype::F32, Itype::S32, all(kS32Min)},
      {0xFF800000, Ftype::F32, Itype::U64, all(0)},
      {0x00000001, Ftype::F32, Itype::S32, {0, 0, 0, 1}},
      {0x00000001, Ftype::F32, Itype::S32, all(0), true},
      {0x80000001, Ftype::F32, Itype::S32, {0, 0, sext(-1), 0}},
      {0x80000001, Ftype::F32, Itype::S32, all(0), true},
      {0x42FF0000, Ftype::F32, Itype::S8, {0x7F, 0x7F, 0x7F, 0x7F}},  // 127.5
      {0xC3008000, Ftype::F32, Itype::S8, all(sext(-128))},           // -128.5
      {0xC3010000, Ftype::F32, Itype::S8, all(sext(-128))},           // -129
      {0x43960000, Ftype::F32, Itype::U8, all(0xFF)},                 // 300
      {0x477FFF80, Ftype::F32, Itype::U16, all(0xFFFF)},              // 65535.5
      {0xC70000E6, Ftype::F32, Itype::S16, all(sext(-32768))},        // -32768.9
      {0xDEAD00003F800000, Ftype::F32, Itype::S32, all(1)},           // bits above the source ignored
      {0x43DFFFFFFFFFFFFF, Ftype::F64, Itype::S64, all(0x7FFFFFFFFFFFFC00)},  // 2^63 - 1024
      {0x41DFFFFFFFE00000, Ftype::F64, Itype::S32, all(kS32Max)},             // 2^31 - 0.5
      {0x41DFFFFFFFA00000, Ftype::F64, Itype::S32, {0x7FFFFFFE, 0x7FFFFFFE, 0x7FFFFFFE, 0x7FFFFFFF}},
      {0xC1E0000000100000, Ftype::F64, Itype::S32, all(kS32Min)},  // -2^31 - 0.5
      {0x43EFFFFFFFFFFFFF, Ftype::F64, Itype::U64, all(0xFFFFFFFFFFFFF800)},
      {0x0000000000000001, Ftype::F64, Itype::S64, {0, 0, 0, 1}},
      {0x8000000000000001, Ftype::F64, Itype::S64, {0, 0, sext(-1), 0}},
      {0x8000000000000001, Ftype::F64, Itype::U64, all(0)},
      {0x7BFF, Ftype::F16, Itype::U16, all(0xFFE0)},  // 65504
      {0x7BFF, Ftype::F16, Itype::S16, all(0x7FFF)},
      {0x7BFF, Ftype::F16, Itype::U8, all(0xFF)},
      {0xFC00, Ftype::F16, Itype::S16, all(sext(-32768))},
      {0xFC00, Ftype::F16, Itype::U64, all(0)},
      {0x4100, Ftype::F16, Itype::S32, {2, 2, 2, 3}},  // 2.5
      {0x0001, Ftype::F16, Itype::S32, {0, 0, 0, 1}, true},  // .ftz leaves binary16 alone
  };
  for (const auto& c : cases) {
    for (Rnd rnd : kAllModes) {
      EXPECT_EQ(f2i(c.src, c.sfmt, c.dtype, rnd, c.ftz), c.want[int(rnd)])
          << fmt::format("f2i({:#x}, sfmt {}, dtype {}, {}, ftz={})", c.src, int(c.sfmt), int(c.dtype), mode_name(rnd), c.ftz);
    }
  }
}

// NaN -> 0 holds only where a binary16/binary32 value becomes an integer of at most 32 bits; the
// binary64 and 64-bit-integer converters give the integer with only its top bit set. Measured.
TEST(F2I, NaNAsMeasured) {
  struct NaNCase {
    Ftype sfmt;
    Itype dtype;
    uint64_t want;
  };
  const NaNCase cases[] = {
      {Ftype::F32, Itype::U8, 0},   {Ftype::F32, Itype::S16, 0},  {Ftype::F32, Itype::S32, 0},
      {Ftype::F32, Itype::U32, 0},  {Ftype::F16, Itype::U32, 0},  {Ftype::F16, Itype::S8, 0},
      {Ftype::F32, Itype::U64, 0x8000000000000000}, {Ftype::F32, Itype::S64, 0x8000000000000000},
      {Ftype::F16, Itype::U64, 0x8000000000000000}, {Ftype::F64, Itype::U8, 0x80},
      {Ftype::F64, Itype::S8, sext(-128)},          {Ftype::F64, Itype::U16, 0x8000},
      {Ftype::F64, Itype::S16, sext(-32768)},       {Ftype::F64, Itype::U32, 0x80000000},
      {Ftype::F64, Itype::S32, sext(INT32_MIN)},    {Ftype::F64, Itype::U64, 0x8000000000000000},
      {Ftype::F64, Itype::S64, 0x8000000000000000},
  };
  const uint64_t nans[][3] = {{0x7E00, 0x7FC00000, 0x7FF8000000000AAA},   // quiet
                              {0xFC01, 0xFF800001, 0xFFF0000000000001}};  // negative signaling
  for (const auto& c : cases) {
    for (const auto& nan : nans) {
      for (Rnd rnd : kAllModes) {
        EXPECT_EQ(f2i(nan[int(c.sfmt)], c.sfmt, c.dtype, rnd, true), c.want)
            << fmt::format("sfmt {} dtype {} {}", int(c.sfmt), int(c.dtype), mode_name(rnd));
      }
    }
  }
}

struct I2FCase {
  uint64_t src;
  Itype stype;
  Ftype dfmt;
  Want want;
};

TEST(I2F, EdgesInEveryMode) {
  const I2FCase cases[] = {
      {0xFFFFFFFF, Itype::U32, Ftype::F32, {0x4F800000, 0x4F7FFFFF, 0x4F7FFFFF, 0x4F800000}},
      {0x80000000, Itype::S32, Ftype::F32, all(0xCF000000)},
      {0xFEFFFFFF, Itype::S32, Ftype::F32, {0xCB800000, 0xCB800000, 0xCB800001, 0xCB800000}},  // -(2^24 + 1)
      {0x01000001, Itype::S32, Ftype::F32, {0x4B800000, 0x4B800000, 0x4B800000, 0x4B800001}},
      {~uint64_t{0}, Itype::U64, Ftype::F32, {0x5F800000, 0x5F7FFFFF, 0x5F7FFFFF, 0x5F800000}},
      {~uint64_t{0}, Itype::U64, Ftype::F64,
       {0x43F0000000000000, 0x43EFFFFFFFFFFFFF, 0x43EFFFFFFFFFFFFF, 0x43F0000000000000}},
      {~uint64_t{0}, Itype::S64, Ftype::F64, all(0xBFF0000000000000)},
      {0x8000000000000000, Itype::S64, Ftype::F64, all(0xC3E0000000000000)},
      {0x8000000000000000, Itype::S64, Ftype::F32, all(0xDF000000)},
      {0x0020000000000001, Itype::S64, Ftype::F64,
       {0x4340000000000000, 0x4340000000000000, 0x4340000000000000, 0x4340000000000001}},
      {65520, Itype::U32, Ftype::F16, {0x7C00, 0x7BFF, 0x7BFF, 0x7C00}},  // binary16 overflow
      {65519, Itype::U32, Ftype::F16, {0x7BFF, 0x7BFF, 0x7BFF, 0x7C00}},
      {sext(-65520), Itype::S32, Ftype::F16, {0xFC00, 0xFBFF, 0xFC00, 0xFBFF}},
      {2049, Itype::U16, Ftype::F16, {0x6800, 0x6800, 0x6800, 0x6801}},
      {0xFFFFFF80, Itype::S8, Ftype::F32, all(0xC3000000)},  // bits above the type ignored
      {0x12345680, Itype::S8, Ftype::F32, all(0xC3000000)},
      {0x1FF, Itype::U8, Ftype::F32, all(0x437F0000)},
      {0xFFFF8000, Itype::S16, Ftype::F64, all(0xC0E0000000000000)},
      {0, Itype::S64, Ftype::F32, all(0)},  // +0 even toward -inf
      {0, Itype::U8, Ftype::F16, all(0)},
  };
  for (const auto& c : cases) {
    for (Rnd rnd : kAllModes) {
      EXPECT_EQ(i2f(c.src, c.stype, c.dfmt, rnd), c.want[int(rnd)])
          << fmt::format("i2f({:#x}, stype {}, dfmt {}, {})", c.src, int(c.stype), int(c.dfmt), mode_name(rnd));
    }
  }
}

struct F2FCase {
  uint64_t src;
  Ftype sfmt, dfmt;
  Want want;
  bool rint = false, ftz = false, sat = false;
};

TEST(F2F, EdgesInEveryMode) {
  constexpr Ftype F16 = Ftype::F16, F32 = Ftype::F32, F64 = Ftype::F64;
  const F2FCase cases[] = {
      {0x3FF0000010000000, F64, F32, {0x3F800000, 0x3F800000, 0x3F800000, 0x3F800001}},  // 1 + 2^-24
      {0x7FEFFFFFFFFFFFFF, F64, F32, {0x7F800000, 0x7F7FFFFF, 0x7F7FFFFF, 0x7F800000}},
      {0xFFEFFFFFFFFFFFFF, F64, F32, {0xFF800000, 0xFF7FFFFF, 0xFF800000, 0xFF7FFFFF}},
      {0x3690000000000000, F64, F32, {0, 0, 0, 1}},  // 2^-150
      {0x3690000000000000, F64, F32, all(0), false, true},
      {0x380FFFFFF0000000, F64, F32, {0x00800000, 0x007FFFFF, 0x007FFFFF, 0x00800000}},  // (1-2^-25) 2^-126
      {0x380FFFFFF0000000, F64, F32, {0x00800000, 0, 0, 0x00800000}, false, true},     // measured
      {0x00000001, F32, F64, all(0x36A0000000000000)},
      {0x00000001, F32, F64, all(0), false, true},
      {0x80000000, F32, F64, all(0x8000000000000000)},
      {0x477FF000, F32, F16, {0x7C00, 0x7BFF, 0x7BFF, 0x7C00}},  // 65520
      {0x33000000, F32, F16, {0, 0, 0, 1}},                      // 2^-25
      {0x3F801000, F32, F16, {0x3C00, 0x3C00, 0x3C00, 0x3C01}},  // 1 + 2^-11
      {0x00000001, F32, F16, {0, 0, 0, 1}, false, true},         // measured: .ftz ignored
      {0x80000001, F32, F16, {0x8000, 0x8000, 0x8001, 0x8000}, false, true},
      {0x0001, F16, F32, all(0x33800000)},
      {0x7BFF, F16, F32, all(0x477FE000)},
      {0x7BFF, F16, F64, all(0x40EFFC0000000000)},
      {0x40200000, F32, F32, {0x40000000, 0x40000000, 0x40000000, 0x40400000}, true},  // rint 2.5
      {0xC0200000, F32, F32, {0xC0000000, 0xC0000000, 0xC0400000, 0xC0000000}, true},
      {0xBF000000, F32, F32, {0x80000000, 0x80000000, 0xBF800000, 0x80000000}, true},  // rint -0.5
      {0x3E99999A, F32, F32, {0, 0, 0, 0x3F800000}, true},                             // rint 0.3
      {0x4AFFFFFF, F32, F32, {0x4B000000, 0x4AFFFFFE, 0x4AFFFFFE, 0x4B000000}, true},  // 2^23 - 0.5
      {0x7149F2CA, F32, F32, all(0x7149F2CA), true},
      {0x00000001, F32, F32, {0, 0, 0, 0x3F800000}, true},
      {0x00000001, F32, F32, all(0), true, true},
      {0x00000001, F32, F32, all(0), false, true},
      {0x3FE0000000000000, F64, F64, {0, 0, 0, 0x3FF0000000000000}, true},
      {0x4100, F16, F16, {0x4000, 0x4000, 0x4000, 0x4200}, true},
      {0x3FF8000000000000, F64, F32, all(0x3F800000), false, false, true},  // sat 1.5
      {0xC008000000000000, F64, F32, all(0), false, false, true},
      {0x3F000000, F32, F32, all(0x3F000000), false, false, true},
      {0x80000000, F32, F32, all(0), false, false, true},
      {0xDEAD00003F800000, F32, F64, all(0x3FF0000000000000)},  // bits above the source ignored
  };
  for (const auto& c : cases) {
    for (Rnd rnd : kAllModes) {
      EXPECT_EQ(f2f(c.src, c.sfmt, c.dfmt, rnd, c.rint, c.ftz, c.sat), c.want[int(rnd)]) << fmt::format(
          "f2f({:#x}, {} -> {}, {}, rint={} ftz={} sat={})", c.src, int(c.sfmt), int(c.dfmt), mode_name(rnd), c.rint, c.ftz, c.sat);
    }
  }
}

// Which NaN a float conversion returns (measured): the DP unit (binary64 source or result) keeps
// sign and payload, quieted; binary16/binary32 conversions return the canonical NaN.
TEST(F2F, NaNAsMeasured) {
  struct NaNCase {
    uint64_t src;
    Ftype sfmt, dfmt;
    uint64_t want;
    bool rint = false, ftz = false, sat = false;
  };
  constexpr Ftype F16 = Ftype::F16, F32 = Ftype::F32, F64 = Ftype::F64;
  const NaNCase cases[] = {
      {0x7FF0000020000000, F64, F32, 0x7FC00001},
      {0xFFF4000000000000, F64, F32, 0xFFE00000},
      {0x7FF0040000000000, F64, F16, 0x7E01},
      {0x7FF0000000000001, F64, F64, 0x7FF8000000000001, true},
      {0x7F800001, F32, F64, 0x7FF8000020000000},
      {0xFFA00000, F32, F64, 0xFFFC000000000000},
      {0xFFA00000, F32, F64, 0x7FFFFFFFE0000000, false, true},  // .ftz makes the NaN canonical first
      {0x7C01, F16, F64, 0x7FF8040000000000},
      {0xFFFF, F16, F64, 0xFFFFFC0000000000},
      {0xFFA00000, F32, F16, kCanonicalNaN16},
      {0xFD00, F16, F32, kCanonicalNaN32},
      {0x7C01, F16, F16, kCanonicalNaN16, true},
      {0xFFC00000, F32, F32, kCanonicalNaN32, true},
      {0x7FF8000000000AAA, F64, F32, 0, false, false, true},
      {0x7FF8000000000AAA, F64, F64, 0, true, false, true},
  };
  for (const auto& c : cases) {
    for (Rnd rnd : kAllModes) {
      EXPECT_EQ(f2f(c.src, c.sfmt, c.dfmt, rnd, c.rint, c.ftz, c.sat), c.want)
          << fmt::format("f2f({:#x}, {} -> {}, {})", c.src, int(c.sfmt), int(c.dfmt), mode_name(rnd));
    }
  }
}

// ---- Random conversions against the host ----

const test::Layout& layout_of(Ftype f) {
  switch (f) {
    case Ftype::F16: return test::kHalf;
    case Ftype::F32: return test::kSingle;
    case Ftype::F64: return test::kDouble;
  }
  return test::kSingle;
}

/// The exact value of a float bit pattern of format f (NaN for NaNs).
double value_of(uint64_t bits, Ftype f) {
  switch (f) {
    case Ftype::F16: return test::f16_value(uint16_t(bits));
    case Ftype::F32: return as_f32(uint32_t(bits));
    case Ftype::F64: return as_f64(bits);
  }
  return 0;
}

struct IntRange {
  int bits;
  bool is_signed;
};
IntRange range_of(Itype t) {
  const int index = static_cast<int>(t);
  return {8 << (index / 2), index % 2 == 1};
}

/// The low `r.bits` bits of v, sign- or zero-extended.
uint64_t extend(uint64_t v, IntRange r) {
  const int unused = 64 - r.bits;
  return r.is_signed ? uint64_t(int64_t(v << unused) >> unused) : (v << unused) >> unused;
}

uint64_t host_f2i(uint64_t src, Ftype sfmt, Itype dtype, Rnd rnd, bool ftz) {
  const IntRange r = range_of(dtype);
  double v = value_of(src, sfmt);
  if (std::isnan(v)) return sfmt != Ftype::F64 && r.bits <= 32 ? 0 : extend(uint64_t{1} << (r.bits - 1), r);
  if (ftz && sfmt == Ftype::F32 && std::fpclassify(float(v)) == FP_SUBNORMAL) v = 0;
  double integral = 0;
  {
    HostFpuMode mode(rnd, false);
    volatile double x = v;
    integral = std::nearbyint(double(x));
  }
  // Bounds as exact doubles: [lo, hi) with hi = 2^(bits-1) or 2^bits.
  const double hi = std::ldexp(1.0, r.is_signed ? r.bits - 1 : r.bits);
  const double lo = r.is_signed ? -hi : 0.0;
  if (integral >= hi) return extend(r.is_signed ? (uint64_t{1} << (r.bits - 1)) - 1 : ~uint64_t{0}, r);
  if (integral <= lo) return extend(r.is_signed ? uint64_t{1} << (r.bits - 1) : 0, r);
  return extend(integral < 0 ? uint64_t(int64_t(integral)) : uint64_t(integral), r);
}

/// An integer's value as a double that rounds to binary16 like the integer itself: exact below
/// 2^53, and far beyond binary16's range above.
double f16_proxy(int64_t v) { return double(std::clamp<int64_t>(v, -(int64_t{1} << 53), int64_t{1} << 53)); }

uint64_t host_i2f(uint64_t src, Itype stype, Ftype dfmt, Rnd rnd) {
  const IntRange r = range_of(stype);
  const uint64_t v = extend(src, r);
  const bool negative = r.is_signed && int64_t(v) < 0;
  if (dfmt == Ftype::F16) {
    const double proxy = negative ? f16_proxy(int64_t(v)) : double(std::min<uint64_t>(v, uint64_t{1} << 53));
    return test::round_to_f16(proxy, rnd);
  }
  HostFpuMode mode(rnd, false);
  // Read through volatiles inside the mode's scope, so no conversion can move out of it.
  volatile int64_t as_signed = int64_t(v);
  volatile uint64_t as_unsigned = v;
  if (dfmt == Ftype::F32) {
    volatile float f = negative ? float(as_signed) : float(as_unsigned);
    return bits_of(float(f));
  }
  volatile double d = negative ? double(as_signed) : double(as_unsigned);
  return bits_of(double(d));
}

uint64_t host_nan_conversion(uint64_t src, Ftype sfmt, Ftype dfmt, bool ftz) {
  if (sfmt != Ftype::F64 && dfmt != Ftype::F64) return dfmt == Ftype::F16 ? kCanonicalNaN16 : kCanonicalNaN32;
  const test::Layout& from = layout_of(sfmt);
  const test::Layout& to = layout_of(dfmt);
  if (ftz && sfmt == Ftype::F32) src = kCanonicalNaN32;
  const uint64_t payload = src & ((uint64_t{1} << from.frac_bits) - 1);
  const uint64_t moved = to.frac_bits >= from.frac_bits ? payload << (to.frac_bits - from.frac_bits)
                                                        : payload >> (from.frac_bits - to.frac_bits);
  const bool negative = (src & from.sign()) != 0;
  return to.make(negative, to.max_biased(), moved | (uint64_t{1} << (to.frac_bits - 1)));
}

uint64_t host_f2f(uint64_t src, Ftype sfmt, Ftype dfmt, Rnd rnd, bool rint, bool ftz, bool sat) {
  src &= layout_of(sfmt).all();
  double v = value_of(src, sfmt);
  const bool ftz_in = ftz && sfmt == Ftype::F32 && dfmt != Ftype::F16;
  if (ftz_in && std::fpclassify(float(v)) == FP_SUBNORMAL) v = std::copysign(0.0, v);
  uint64_t result = 0;
  if (std::isnan(v)) {
    result = host_nan_conversion(src, sfmt, dfmt, ftz_in);
  } else {
    if (rint) {
      HostFpuMode mode(rnd, false);
      volatile double x = v;
      v = std::nearbyint(double(x));
    }
    if (dfmt == Ftype::F16) {
      result = test::round_to_f16(v, rnd);
    } else if (dfmt == Ftype::F32) {
      HostFpuMode mode(rnd, ftz);
      volatile double x = v;
      volatile float f = float(x);
      result = bits_of(float(f));
    } else {
      result = bits_of(v);
    }
  }
  if (!sat) return result;
  switch (dfmt) {
    case Ftype::F16: {
      const double s = test::saturate_host(test::f16_value(uint16_t(result)));
      return test::round_to_f16(s, Rnd::RN);
    }
    case Ftype::F32: return bits_of(test::saturate_host(as_f32(uint32_t(result))));
    case Ftype::F64: return bits_of(test::saturate_host(as_f64(result)));
  }
  return result;
}

class RandomConversion : public ::testing::TestWithParam<Rnd> {};

TEST_P(RandomConversion, F2I) {
  OperandGenerator gen(401);
  MismatchLog log;
  const Rnd rnd = GetParam();
  for (int i = 0; i < kVectors; ++i) {
    const auto sfmt = static_cast<Ftype>(gen.below(3));
    const auto dtype = static_cast<Itype>(gen.below(8));
    const bool ftz = gen.coin();
    const uint64_t src = gen.value(layout_of(sfmt));
    log.expect_equal(f2i(src, sfmt, dtype, rnd, ftz), host_f2i(src, sfmt, dtype, rnd, ftz), [&] {
      return fmt::format("f2i({:#x}, sfmt {}, dtype {}, ftz={})", src, int(sfmt), int(dtype), ftz);
    });
  }
  EXPECT_EQ(log.count(), 0) << log.report();
}

TEST_P(RandomConversion, I2F) {
  OperandGenerator gen(402);
  MismatchLog log;
  const Rnd rnd = GetParam();
  for (int i = 0; i < kVectors; ++i) {
    const auto stype = static_cast<Itype>(gen.below(8));
    const auto dfmt = static_cast<Ftype>(gen.below(3));
    const uint64_t src = gen.integer(range_of(stype).bits);
    log.expect_equal(i2f(src, stype, dfmt, rnd), host_i2f(src, stype, dfmt, rnd),
                     [&] { return fmt::format("i2f({:#x}, stype {}, dfmt {})", src, int(stype), int(dfmt)); });
  }
  EXPECT_EQ(log.count(), 0) << log.report();
}

TEST_P(RandomConversion, F2F) {
  OperandGenerator gen(403);
  MismatchLog log;
  const Rnd rnd = GetParam();
  for (int i = 0; i < kVectors; ++i) {
    const auto sfmt = static_cast<Ftype>(gen.below(3));
    const auto dfmt = static_cast<Ftype>(gen.below(3));
    const bool rint = gen.below(3) == 0;
    const bool ftz = gen.coin();
    const bool sat = gen.below(4) == 0;
    // Random bits above the source format must be ignored.
    const uint64_t src = gen.value(layout_of(sfmt)) | (gen.bits() & ~layout_of(sfmt).all());
    log.expect_equal(f2f(src, sfmt, dfmt, rnd, rint, ftz, sat), host_f2f(src, sfmt, dfmt, rnd, rint, ftz, sat), [&] {
      return fmt::format("f2f({:#x}, {} -> {}, rint={} ftz={} sat={})", src, int(sfmt), int(dfmt), rint, ftz, sat);
    });
  }
  EXPECT_EQ(log.count(), 0) << log.report();
}

INSTANTIATE_TEST_SUITE_P(AllModes, RandomConversion, ::testing::ValuesIn(kAllModes),
                         [](const auto& info) { return mode_name(info.param); });

}  // namespace
}  // namespace tsm::fp
