// The SP lane's F2F between binary16 and binary32 (rtl/sm/tsm_f2f.sv), as Verilated RTL or as the
// Yosys netlist of it, against sim/arith's f2f bit for bit: all four format pairs, every rounding
// mode with and without .rint, .ftz and .sat; zeros, subnormals of both formats, the normal limits,
// binary16's overflow and underflow thresholds as binary32, halfway cases of both precisions and
// of the integral position, infinities and NaNs with payloads; and random operands. And against a
// real NVIDIA GPU's results for every cvt among f16 and f32 of the committed reference vectors
// (tests/refvec).
#include <gtest/gtest.h>

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

using tsm::fp::Ftype;
using tsm::fp::Rnd;

constexpr uint8_t kF16 = static_cast<uint8_t>(Ftype::F16);
constexpr uint8_t kF32 = static_cast<uint8_t>(Ftype::F32);

struct Case {
  uint32_t x;
  uint8_t sfmt, dfmt, rnd;
  bool rint, ftz, sat;
  uint32_t gpu = 0;           // reference-vector cases: the real GPU's result,
  const char* ptx = nullptr;  // and the PTX form it ran
};

// binary32 values: zeros and subnormals, normal limits, binary16's limits (max 65504, overflow
// threshold 65520, min normal 2^-14, min subnormal 2^-24 and the halfway point 2^-25 below it),
// binary16 halfway cases (1 + 2^-11, 2049.5 as 2048 + 1.5), integral ties (0.5, 1.5, 2.5,
// 2^23 - 0.5), and NaNs with payloads.
const std::vector<uint32_t> kF32Specials = {
    0x00000000, 0x00000001, 0x00000002, 0x00400000, 0x007FFFFF, 0x00800000, 0x00800001, 0x7F7FFFFF, 0x7F000000,
    0x7F800000, 0x7FC00000, 0x7F800001, 0x7FA5A5A5, 0x7FFFFFFF, 0x3F000000, 0x3F000001, 0x3EFFFFFF, 0x3E800000,
    0x3F800000, 0x3F7FFFFF, 0x3F800001, 0x3FC00000, 0x3FBFFFFF, 0x3FC00001, 0x40200000, 0x40600000, 0x4B000000,
    0x4AFFFFFF, 0x4AFFFFFE, 0x4B7FFFFF, 0x4EFFFFFF, 0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001, 0x477FFFFF,
    0x47800000, 0x38800000, 0x387FFFFF, 0x387FE000, 0x387FF000, 0x38800001, 0x33800000, 0x33000000, 0x33000001,
    0x32FFFFFF, 0x33C00000, 0x33400000, 0x32800000, 0x3F801000, 0x3F801001, 0x3F800FFF, 0x3F803000, 0x3F7FF000,
    0x45001800, 0x45001000, 0x45002800, 0x45003000, 0x44FFF000, 0x457FF800, 0x3FFFF000, 0x3C7FE000, 0x35000000};

// binary16 values: zeros, subnormals, normal limits, infinity, NaNs, integral ties and 2^10, 2^11.
const std::vector<uint32_t> kF16Specials = {0x0000, 0x0001, 0x0002, 0x0200, 0x03FF, 0x0400, 0x0401, 0x7BFF, 0x7800,
                                            0x7C00, 0x7C01, 0x7E00, 0x7FFF, 0x7D55, 0x3800, 0x3801, 0x37FF, 0x3400,
                                            0x3C00, 0x3BFF, 0x3C01, 0x3E00, 0x3DFF, 0x4100, 0x4300, 0x63FF, 0x6400,
                                            0x67FF, 0x6800, 0x63FE, 0x5A00, 0x3BFE};

std::vector<Case> cases(size_t random_count) {
  std::vector<Case> out;
  std::mt19937_64 r(0xF2F);
  const auto all_flags = [&out](uint32_t x, uint8_t sfmt) {
    for (const uint8_t dfmt : {kF16, kF32})
      for (uint8_t rnd = 0; rnd < 4; ++rnd)
        for (int flags = 0; flags < 8; ++flags) out.push_back({x, sfmt, dfmt, rnd, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0});
  };
  for (const uint32_t x : kF32Specials)
    for (const uint32_t sign : {0u, 0x80000000u}) all_flags(x | sign, kF32);
  for (const uint32_t x : kF16Specials)
    for (const uint32_t sign : {0u, 0x8000u}) {
      all_flags(x | sign, kF16);
      all_flags(x | sign | 0xA5A50000u, kF16);  // bits above a binary16 source are ignored
    }
  for (size_t i = 0; i < random_count; ++i) {
    Case c{};
    c.rnd = static_cast<uint8_t>(r() % 4);
    c.dfmt = r() % 2 ? kF16 : kF32;
    c.rint = r() % 2;
    c.ftz = r() % 2;
    c.sat = r() % 4 == 0;
    const uint32_t bits = static_cast<uint32_t>(r());
    switch (i % 4) {
      case 0:  // any binary16 value, with garbage above it
        c.sfmt = kF16;
        c.x = bits;
        break;
      case 1: {  // binary32 in binary16's range and around it, low fraction bits often clear (ties)
        c.sfmt = kF32;
        const uint32_t exp = static_cast<uint32_t>(95 + r() % 60);
        const uint32_t frac = bits & (r() % 2 ? 0x7FFFFFu : 0x7FF000u | (bits >> 31) << 11);
        c.x = (bits & 0x80000000u) | exp << 23 | frac;
        break;
      }
      case 2: {  // binary32 around the integral position (.rint): 2^-2 .. 2^24
        c.sfmt = kF32;
        const uint32_t exp = static_cast<uint32_t>(125 + r() % 27);
        c.x = (bits & 0x807FFFFFu) | exp << 23;
        break;
      }
      default:  // any binary32 pattern, subnormals and specials one time in four
        c.sfmt = kF32;
        c.x = r() % 4 == 0 ? (bits & 0x807FFFFFu) | (r() % 2 ? 0u : 0x7F800000u) : bits;
        break;
    }
    out.push_back(c);
  }
  return out;
}

// One case's operands on the unit's inputs.
void drive(TSM_MODEL_CLASS& dut, const Case& c) {
  dut.x_i = c.x;
  dut.sfmt_i = c.sfmt;
  dut.dfmt_i = c.dfmt;
  dut.rnd_i = c.rnd;
  dut.rint_i = c.rint;
  dut.ftz_i = c.ftz;
  dut.sat_i = c.sat;
}

TEST(F2f, MatchesTheGoldenModelBitForBit) {
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cases(TSM_RANDOM_CASES),
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        const uint64_t want = tsm::fp::f2f(c.x, static_cast<Ftype>(c.sfmt), static_cast<Ftype>(c.dfmt),
                                           static_cast<Rnd>(c.rnd), c.rint, c.ftz, c.sat);
        if (want >> 32 == 0 && dut.result_o == static_cast<uint32_t>(want)) return std::nullopt;
        return fmt::format("F2F {:#010x} f{} -> f{} rnd {} rint {} ftz {} sat {}: RTL {:#010x}, golden {:#x}", c.x,
                           c.sfmt == kF16 ? 16 : 32, c.dfmt == kF16 ? 16 : 32, c.rnd, c.rint, c.ftz, c.sat,
                           dut.result_o, want);
      });
  EXPECT_GE(checked, static_cast<size_t>(TSM_RANDOM_CASES));
}

// The GPU's own results: each cvt among f16 and f32 (narrowing, widening and same-size integral
// rounding; .ftz, .sat) of the reference vectors.
TEST(F2f, MatchesTheRealGpu) {
  std::vector<Case> cs;
  for (const auto& b : tsm::refvec::all_blocks()) {
    const tsm::refvec::Insn in = tsm::refvec::parse(b.ptx);
    if (in.op != "cvt" || in.types.size() != 2) continue;
    const std::string& dst = in.types[0];
    const std::string& src = in.types[1];
    if ((dst != "f16" && dst != "f32") || (src != "f16" && src != "f32")) continue;
    const auto fmt_of = [](const std::string& t) { return static_cast<uint8_t>(t == "f16" ? 0 : 1); };  // the ISA's ftype
    for (size_t i = 0; i < b.count; ++i)
      cs.push_back({static_cast<uint32_t>(b.in(i, 0)), fmt_of(src), fmt_of(dst), static_cast<uint8_t>(in.rnd), in.rint, in.ftz,
                    in.sat, static_cast<uint32_t>(b.outputs[i]), b.ptx.c_str()});
  }
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cs,
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        const uint32_t mask = c.dfmt == 0 ? 0xFFFFu : 0xFFFFFFFFu;
        if ((dut.result_o & mask) == c.gpu) return std::nullopt;
        return fmt::format("{} ({:#010x}): RTL {:#010x}, GPU {:#x}", c.ptx, c.x, dut.result_o, c.gpu);
      });
  EXPECT_GE(checked, 5000u);
}

}  // namespace
