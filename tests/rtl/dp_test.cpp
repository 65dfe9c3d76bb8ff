// The DP unit's datapath (rtl/sm/tsm_dp.sv), as Verilated RTL or as the Yosys netlist of it,
// against the golden model's arithmetic (sim/arith add_f64, mul_f64, fma_f64, min_f64, max_f64,
// cmp_f64, and f2f/f2i/i2f for every form with a binary64 operand or result) bit for bit, NaN
// payloads included. Special binary64 values in all pairs (with a rotating third operand) for the
// two-operand operations, every special value through every conversion in every mode and flag,
// then random operands biased toward the hard cases: cancellation, subnormal results, overflow,
// ties, and values around the integer types' limits; and a real NVIDIA GPU's results for every
// f64 add, mul, fma and f64 cvt of the committed reference vectors (tests/refvec). One operand set
// enters per clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include "arith/fp.hpp"
#include "pipeline_driver.hpp"
#include "refvec_data.hpp"
#include TSM_MODEL_HEADER

namespace {

using tsm::fp::Fcmp;
using tsm::fp::Ftype;
using tsm::fp::Itype;
using tsm::fp::Rnd;

// tsm_dp's op_i encoding (see the module's header).
enum Op : uint8_t {
  kAdd,
  kMul,
  kFma,
  kMin,
  kMax,
  kSetp,
  kF2F32To64,
  kF2F64To32,
  kF2F64To64,
  kF2I,
  kI2F,
  kF2F16To64,
  kF2F64To16,
  kOps
};
constexpr std::array<const char*, kOps> kOpNames = {"DADD",       "DMUL",       "DFMA", "DMIN", "DMAX",
                                                    "DSETP",      "F2F.F64.F32", "F2F.F32.F64",
                                                    "F2F.F64.F64", "F2I.F64",    "I2F.F64",
                                                    "F2F.F64.F16", "F2F.F16.F64"};

struct Case {
  uint8_t op;
  uint64_t a, b, c;
  uint8_t rnd, fcmp, itype;
  bool rint, ftz, sat, nan;
};

struct Expected {
  uint64_t result;
  bool pred;
};

Expected golden(const Case& c) {
  namespace fp = tsm::fp;
  const auto rnd = static_cast<Rnd>(c.rnd);
  const auto it = static_cast<Itype>(c.itype);
  switch (c.op) {
    case kAdd: return {fp::add_f64(c.a, c.b, rnd), false};
    case kMul: return {fp::mul_f64(c.a, c.b, rnd), false};
    case kFma: return {fp::fma_f64(c.a, c.b, c.c, rnd), false};
    case kMin: return {fp::min_f64(c.a, c.b, c.nan), false};
    case kMax: return {fp::max_f64(c.a, c.b, c.nan), false};
    case kSetp: return {0, fp::cmp_f64(static_cast<Fcmp>(c.fcmp), c.a, c.b)};
    case kF2F32To64: return {fp::f2f(c.a, Ftype::F32, Ftype::F64, rnd, c.rint, c.ftz, c.sat), false};
    case kF2F64To32: return {fp::f2f(c.a, Ftype::F64, Ftype::F32, rnd, c.rint, c.ftz, c.sat), false};
    case kF2F64To64: return {fp::f2f(c.a, Ftype::F64, Ftype::F64, rnd, c.rint, c.ftz, c.sat), false};
    case kF2I: return {fp::f2i(c.a, Ftype::F64, it, rnd, c.ftz), false};
    case kI2F: return {fp::i2f(c.a, it, Ftype::F64, rnd), false};
    case kF2F16To64: return {fp::f2f(c.a, Ftype::F16, Ftype::F64, rnd, c.rint, c.ftz, c.sat), false};
    case kF2F64To16: return {fp::f2f(c.a, Ftype::F64, Ftype::F16, rnd, c.rint, c.ftz, c.sat), false};
    default: return {0, false};
  }
}

// binary64: zeros, subnormals (smallest, largest, middle), the smallest normals, 1 and its
// neighbours, halfway and integral values, the integer types' limits and the values just inside
// and outside them, binary32's limits (for F2F f64 -> f32: its largest value, the halfway point
// above it, its subnormals and tininess boundary), binary16's, the largest finite value, infinity
// and NaNs with payloads; all with both signs.
std::vector<uint64_t> specials() {
  std::vector<uint64_t> v = {
      0x0000000000000000, 0x0000000000000001, 0x0000000000000002, 0x000FFFFFFFFFFFFF, 0x0008000000000000,
      0x0010000000000000, 0x0010000000000001, 0x001FFFFFFFFFFFFF, 0x0020000000000000, 0x3CA0000000000000,
      0x3FE0000000000000, 0x3FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0x3FF0000000000001, 0x3FF8000000000000,
      0x4004000000000000, 0x4320000000000001, 0x4330000000000000, 0x4340000000000000, 0x405FE00000000000,
      0x406FF00000000000, 0x40DFFFE000000000, 0x40EFFFF000000000, 0x41DFFFFFFFE00000, 0x41E0000000000000,
      0x41EFFFFFFFF00000, 0x41F0000000000000, 0x43DFFFFFFFFFFFFF, 0x43E0000000000000, 0x43EFFFFFFFFFFFFF,
      0x43F0000000000000, 0x47EFFFFFE0000000, 0x47EFFFFFF0000000, 0x36A0000000000000, 0x3690000000000000,
      0x380FFFFFE0000000, 0x380FFFFFF0000000, 0x3810000000000000, 0x40EFFE0000000000, 0x3E70000000000000, 0x1FF0000000000000,
      0x2000000000000000, 0x7FE0000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0x7FF8000000000000,
      0x7FF0000000000001, 0x7FF4DEADBEEF1234, 0x7FFFFFFFFFFFFFFF};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | 0x8000000000000000u);
  return v;
}

// binary32 sources of F2F f32 -> f64 (with garbage in the upper half, which must be ignored).
std::vector<uint64_t> specials32() {
  std::vector<uint64_t> v = {0x00000000, 0x00000001, 0x007FFFFF, 0x00400000, 0x00800000, 0x3F000000,
                             0x3F800000, 0x3FC00000, 0x40200000, 0x3F7FFFFF, 0x3F800001, 0x4B000000,
                             0x4AFFFFFF, 0x4B7FFFFF, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7F800001,
                             0x7FA5A5A5, 0x7FFFFFFF, 0x3E800000, 0x3F400000};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | 0x80000000u);
  for (size_t i = 0; i < v.size(); i += 3) v[i] |= 0xDEADBEEF00000000u;
  return v;
}

// binary16 sources of F2F f16 -> f64.
std::vector<uint64_t> specials16() {
  std::vector<uint64_t> v = {0x0000, 0x0001, 0x03FF, 0x0200, 0x0400, 0x3800, 0x3C00, 0x3E00, 0x4100,
                             0x3BFF, 0x3C01, 0x6400, 0x63FF, 0x7BFF, 0x7C00, 0x7E00, 0x7C01, 0x7D55, 0x7FFF};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | 0x8000u);
  for (size_t i = 0; i < v.size(); i += 3) v[i] |= 0xFEEDFACECAFE0000u;
  return v;
}

// Integers for I2F: 0, ±1, every type's limits, binary64 ties (2^53 + 1 and shifted copies),
// values rounding into a new binade, with garbage above narrow types' bits.
std::vector<uint64_t> integers() {
  std::vector<uint64_t> v = {0,
                             1,
                             2,
                             3,
                             0x7F,
                             0x80,
                             0xFF,
                             0x7FFF,
                             0x8000,
                             0xFFFF,
                             0x7FFFFFFF,
                             0x80000000,
                             0xFFFFFFFF,
                             0x7FFFFFFFFFFFFFFF,
                             0x8000000000000000,
                             0x8000000000000001,
                             0xFFFFFFFFFFFFFFFF,
                             0xFFFFFFFFFFFFFFFE,
                             0x0020000000000001,
                             0x0020000000000003,
                             0x001FFFFFFFFFFFFF,
                             0x003FFFFFFFFFFFFF,
                             0x7FFFFFFFFFFFFC00,
                             0x7FFFFFFFFFFFFE00,
                             0x7FFFFFFFFFFFFE01,
                             0x7FFFFFFFFFFFFDFF,
                             0xFFFFFFFFFFFFF800,
                             0xFFFFFFFFFFFFFC00,
                             0xFFFFFFFFFFFFFBFF,
                             0x12345678DEADBEEF};
  for (int k = 0; k <= 10; ++k) {
    v.push_back(uint64_t{0x20000000000001} << k);
    v.push_back(uint64_t{0x20000000000003} << k);
  }
  return v;
}

uint64_t random_f64(std::mt19937_64& r) {
  const uint64_t sign = (r() & 1) << 63;
  const uint64_t frac = r() & 0x000FFFFFFFFFFFFF;
  auto with_exp = [&](uint64_t e) { return sign | (e << 52) | frac; };
  switch (r() % 7) {
    case 0: return r();
    case 1: return with_exp(r() % 56);                                         // tiny and subnormal
    case 2: return with_exp(1990 + r() % 57);                                  // huge
    case 3: return with_exp(480 + r() % 80);                                   // products near the bottom
    case 4: return with_exp(1010 + r() % 30) & ~((uint64_t{1} << (r() % 52)) - 1);  // short: ties
    case 5: return with_exp(r() % 2047);
    default: return with_exp(1023 - 200 + r() % 400);
  }
}

// A binary64 value whose low `tail` fraction bits are zero, exactly half, just below or above
// half, or random: the tie cases of a rounding that keeps all but `tail` bits.
uint64_t with_tail(std::mt19937_64& r, uint64_t bits, int tail) {
  if (tail <= 0) return bits;
  if (tail > 52) tail = 52;
  const uint64_t half = uint64_t{1} << (tail - 1);
  const uint64_t tails[] = {0, half, half - 1, half + 1, r() % (half * 2), half * 2 - 1};
  return (bits & ~(half * 2 - 1)) | tails[r() % 6];
}

Case random_case(std::mt19937_64& r) {
  Case c{};
  c.op = static_cast<uint8_t>(r() % kOps);
  c.a = random_f64(r);
  c.b = random_f64(r);
  c.c = random_f64(r);
  c.rnd = static_cast<uint8_t>(r() % 4);
  c.fcmp = static_cast<uint8_t>(r() % 14);
  c.itype = static_cast<uint8_t>(r() % 8);
  c.rint = r() % 2;
  c.ftz = r() % 2;
  c.sat = r() % 5 == 0;
  c.nan = r() % 4 == 0;
  const uint64_t sign = (r() & 1) << 63;
  switch (c.op) {
    case kAdd:
      if (r() % 3 == 0) c.b = (c.a ^ 0x8000000000000000u) + (r() % 5) - 2;  // cancellation
      break;
    case kMul:
    case kFma:
      if (r() % 3 == 0) {  // c close to -(a * b): cancellation, often into the subnormals
        const double p = std::bit_cast<double>(c.a) * std::bit_cast<double>(c.b);
        c.c = std::bit_cast<uint64_t>(-p) + (r() % 5) - 2;
      }
      break;
    case kMin:
    case kMax:
    case kSetp:
      if (r() % 3 == 0) c.b = r() % 2 ? c.a : c.a + (r() % 3) - 1;  // equal or one ulp apart
      if (r() % 8 == 0) c.b ^= 0x8000000000000000u;
      break;
    case kF2F64To32:  // around binary32's range, ties 29 bits down, subnormal results
      if (r() % 6 == 0)  // just below 2^-126: .ftz's tininess after rounding
        c.a = sign | 0x380FFFFFE0000000 | with_tail(r, r() & 0x1FFFFFFF, 29);
      else if (r() % 4 != 0) c.a = with_tail(r, sign | ((uint64_t{1023 - 160} + r() % 300) << 52) | (r() & 0xFFFFFFFFFFFFF), 29 + static_cast<int>(r() % 24));
      break;
    case kF2F64To16:
      if (r() % 4 != 0) c.a = with_tail(r, sign | ((uint64_t{1023 - 30} + r() % 50) << 52) | (r() & 0xFFFFFFFFFFFFF), 42 + static_cast<int>(r() % 11));
      break;
    case kF2F64To64:
    case kF2I:  // 2^-3 .. 2^66: every integer type's range and beyond, with integral ties
      if (r() % 4 != 0) {
        const int e = static_cast<int>(r() % 70) - 3;
        c.a = with_tail(r, sign | (uint64_t(1023 + e) << 52) | (r() & 0xFFFFFFFFFFFFF), 52 - e);
      }
      break;
    case kF2F32To64:
      c.a = r() % 3 == 0 ? r() : (r() & 0xFFFFFFFF807FFFFF) | ((r() % 4 == 0 ? r() % 3 : r() % 256) << 23);
      break;
    case kF2F16To64: c.a = r(); break;
    case kI2F: {  // every length and sign, ties below binary64's precision
      const int len = static_cast<int>(r() % 65);
      c.a = len == 0 ? 0 : r() >> (64 - len);
      if (len > 54 && r() % 2) c.a = with_tail(r, c.a | uint64_t{1} << (len - 1), len - 53);
      if (r() % 2) c.a = 0 - c.a;
      break;
    }
    default: break;
  }
  return c;
}

std::vector<Case> cases(size_t random_count) {
  std::vector<Case> out;
  const auto s = specials();
  const size_t n = s.size();
  // Every pair, each two-operand op once, the rounding mode and comparison rotating.
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      for (uint8_t op = kAdd; op <= kSetp; ++op) {
        Case c{};
        c.op = op;
        c.a = s[i];
        c.b = s[j];
        c.c = s[(i * 7 + j * 3 + op) % n];
        c.rnd = static_cast<uint8_t>((i + j + op) % 4);
        c.fcmp = static_cast<uint8_t>((i + 3 * j + op) % 14);
        c.nan = (i + j) % 5 == 0;
        out.push_back(c);
      }
  // Every conversion of every special value in every mode and flag (every type for F2I/I2F).
  auto conversions = [&](uint8_t op, const std::vector<uint64_t>& values) {
    for (const uint64_t x : values)
      for (uint8_t rnd = 0; rnd < 4; ++rnd)
        for (uint8_t flags = 0; flags < 8; ++flags) {
          Case c{};
          c.op = op;
          c.a = x;
          c.rnd = rnd;
          c.rint = flags & 1;
          c.ftz = flags & 2;
          c.sat = flags & 4;
          c.itype = flags;
          out.push_back(c);
        }
  };
  conversions(kF2F32To64, specials32());
  conversions(kF2F16To64, specials16());
  conversions(kF2F64To32, s);
  conversions(kF2F64To16, s);
  conversions(kF2F64To64, s);
  conversions(kF2I, s);
  std::vector<uint64_t> ints;
  for (const uint64_t x : integers()) {
    ints.push_back(x);
    ints.push_back(0 - x);
  }
  conversions(kI2F, ints);
  std::mt19937_64 r(0xD0D0F64);
  for (size_t i = 0; i < random_count; ++i) out.push_back(random_case(r));
  return out;
}

// One case's operands on the unit's inputs.
void drive(TSM_MODEL_CLASS& dut, const Case& c) {
  dut.op_i = c.op;
  dut.a_i = c.a;
  dut.b_i = c.b;
  dut.c_i = c.c;
  dut.rnd_i = c.rnd;
  dut.fcmp_i = c.fcmp;
  dut.itype_i = c.itype;
  dut.rint_i = c.rint;
  dut.ftz_i = c.ftz;
  dut.sat_i = c.sat;
  dut.nan_i = c.nan;
}

TEST(Dp, MatchesTheGoldenModelBitForBit) {
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cases(TSM_RANDOM_CASES),
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        const Expected want = golden(c);
        if (dut.result_o == want.result && static_cast<bool>(dut.pred_o) == want.pred) return std::nullopt;
        return fmt::format(
            "{}({:#018x}, {:#018x}, {:#018x}) rnd {} fcmp {} itype {} rint {} ftz {} sat {} nan {}: RTL {:#018x} "
            "pred {}, golden {:#018x} pred {}",
            kOpNames[c.op], c.a, c.b, c.c, c.rnd, c.fcmp, c.itype, c.rint, c.ftz, c.sat, c.nan, dut.result_o,
            dut.pred_o, want.result, want.pred);
      });
  EXPECT_GE(checked, static_cast<size_t>(TSM_RANDOM_CASES));
}

// The GPU's own results: each f64 add, mul and fma (four rounding modes) and each cvt with an f64
// source or result (to and from every integer type, f16 and f32, integral rounding, .sat) of the
// committed reference vectors (tests/refvec), compared in the result's width.
TEST(Dp, MatchesTheRealGpu) {
  const auto is_int = [](const std::string& t) { return tsm::refvec::itype_of(t).has_value(); };
  const auto itype_of = [](const std::string& t) { return *tsm::refvec::itype_of(t); };
  struct Gpu {
    Case c;
    uint64_t result, mask;
    const char* ptx;
  };
  std::vector<Gpu> gs;
  for (const auto& b : tsm::refvec::all_blocks()) {
    const tsm::refvec::Insn in = tsm::refvec::parse(b.ptx);
    int op = -1;
    uint8_t itype = 0;
    if (in.type() == "f64" && (in.op == "add" || in.op == "mul" || in.op == "fma") && in.types.size() == 1) {
      op = in.op == "add" ? kAdd : in.op == "mul" ? kMul : kFma;
    } else if (in.op == "cvt" && in.types.size() == 2) {
      const std::string& dst = in.types[0];
      const std::string& src = in.types[1];
      if (src == "f64" && is_int(dst)) op = kF2I, itype = itype_of(dst);
      else if (dst == "f64" && is_int(src)) op = kI2F, itype = itype_of(src);
      else if (src == "f32" && dst == "f64") op = kF2F32To64;
      else if (src == "f64" && dst == "f32") op = kF2F64To32;
      else if (src == "f64" && dst == "f64") op = kF2F64To64;
      else if (src == "f16" && dst == "f64") op = kF2F16To64;
      else if (src == "f64" && dst == "f16") op = kF2F64To16;
    }
    if (op < 0) continue;
    const uint64_t mask = b.out_width >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * b.out_width)) - 1;
    for (size_t i = 0; i < b.count; ++i) {
      Case c{static_cast<uint8_t>(op), b.in(i, 0), b.in_widths.size() > 1 ? b.in(i, 1) : 0, b.in_widths.size() > 2 ? b.in(i, 2) : 0,
             static_cast<uint8_t>(in.rnd), 0, itype, in.rint, in.ftz, in.sat, false};
      gs.push_back({c, b.outputs[i], mask, b.ptx.c_str()});
    }
  }
  std::vector<Case> cs;
  for (const Gpu& g : gs) cs.push_back(g.c);
  size_t next = 0;  // results come back in order
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cs,
      drive,
      [&](TSM_MODEL_CLASS& dut, const Case&) -> std::optional<std::string> {
        const Gpu& g = gs[next++];
        if ((dut.result_o & g.mask) == g.result) return std::nullopt;
        return fmt::format("{} ({:#018x}, {:#018x}, {:#018x}): RTL {:#018x}, GPU {:#x}", g.ptx, g.c.a, g.c.b, g.c.c,
                           static_cast<uint64_t>(dut.result_o), g.result);
      });
  EXPECT_GE(checked, 50000u);
}

}  // namespace
