// The SP lane's conversion unit (rtl/sm/tsm_cvt.sv) between binary32 and integers of up to 32
// bits, as Verilated RTL or as the Yosys netlist of it, against sim/arith's f2i and i2f bit for
// bit (the 64-bit result: F2I sign- or zero-extends, I2F leaves the high word 0; the operand's
// high word, unused by these types, carries noise): every integer type of up to 32 bits, every rounding mode, .ftz; floats around every integer range's limits, halfway
// cases, subnormals, infinities and NaNs; integers of every length and both signs. And against a
// real NVIDIA GPU's results for every such cvt of the committed reference vectors (tests/refvec).
#include <gtest/gtest.h>

#include <algorithm>
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
using tsm::fp::Itype;
using tsm::fp::Rnd;

struct Case {
  bool to_float;
  uint32_t x;
  uint8_t itype, rnd;
  bool ftz;
  uint32_t gpu = 0, mask = 0;  // reference-vector cases: the real GPU's result and its width's bits,
  const char* ptx = nullptr;   // and the PTX form it ran
};

std::vector<Case> cases(size_t random_count) {
  std::vector<Case> out;
  std::mt19937_64 r(0xC0F7);
  std::vector<uint32_t> floats = {0x00000000, 0x00000001, 0x007FFFFF, 0x3F000000, 0x3F000001, 0x3EFFFFFF, 0x3F800000,
                                  0x3FC00000, 0x40200000, 0x4F000000, 0x4EFFFFFF, 0x4F800000, 0x4F7FFFFF, 0x477FFF00,
                                  0x47800000, 0x437F8000, 0x43000000, 0x5F000000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000,
                                  0x7F800001, 0x53800000};
  const size_t n = floats.size();
  for (size_t i = 0; i < n; ++i) floats.push_back(floats[i] | 0x80000000u);
  for (const uint32_t f : floats)
    for (uint8_t t = 0; t < 6; ++t)
      for (uint8_t rnd = 0; rnd < 4; ++rnd)
        for (const bool ftz : {false, true}) out.push_back({false, f, t, rnd, ftz});
  for (size_t i = 0; i < random_count; ++i) {
    const uint8_t t = static_cast<uint8_t>(r() % 6), rnd = static_cast<uint8_t>(r() % 4);
    if (i % 2 == 0) {
      const uint32_t exp = i % 4 == 0 ? static_cast<uint32_t>(110 + r() % 60) : static_cast<uint32_t>(r() % 256);
      const uint32_t frac = static_cast<uint32_t>(r()) & (i % 8 == 0 ? 0x7F0000u : 0x7FFFFFu);
      out.push_back({false, static_cast<uint32_t>(r() & 1) << 31 | exp << 23 | frac, t, rnd, r() % 3 == 0});
    } else {
      const int len = static_cast<int>(r() % 33);
      uint32_t v = len == 0 ? 0 : static_cast<uint32_t>(r()) >> (32 - len);
      if (r() % 2) v = 0 - v;
      out.push_back({true, v, t, rnd, false});
    }
  }
  return out;
}

// One case's operands on the unit's inputs.
void drive(TSM_MODEL_CLASS& dut, const Case& c) {
  dut.to_float_i = c.to_float;
  dut.x_i = static_cast<uint64_t>(~c.x) << 32 | c.x;  // the high word must not matter
  dut.itype_i = c.itype;
  dut.rnd_i = c.rnd;
  dut.ftz_i = c.ftz;
}

TEST(Cvt32, MatchesTheGoldenModelBitForBit) {
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cases(TSM_RANDOM_CASES),
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        const uint32_t low = static_cast<uint32_t>(
            c.to_float ? tsm::fp::i2f(c.x, static_cast<Itype>(c.itype), Ftype::F32, static_cast<Rnd>(c.rnd))
                       : tsm::fp::f2i(c.x, Ftype::F32, static_cast<Itype>(c.itype), static_cast<Rnd>(c.rnd), c.ftz));
        const bool sext = !c.to_float && (c.itype & 1u) != 0 && (low >> 31) != 0;  // signed types: bit 0 of the code
        const uint64_t want = (sext ? 0xFFFFFFFF00000000ull : 0ull) | low;
        if (dut.result_o == want) return std::nullopt;
        return fmt::format("{} {:#010x} itype {} rnd {} ftz {}: RTL {:#018x}, golden {:#018x}", c.to_float ? "I2F" : "F2I",
                           c.x, c.itype, c.rnd, c.ftz, static_cast<uint64_t>(dut.result_o), want);
      });
  EXPECT_GE(checked, 100000u);
}

// The GPU's own results: each cvt between f32 and an integer of up to 32 bits (every rounding
// mode, .ftz) of the reference vectors.
TEST(Cvt32, MatchesTheRealGpu) {
  const auto itype_of = [](const std::string& t) { return tsm::refvec::itype_of(t, false); };  // up to 32 bits
  std::vector<Case> cs;
  for (const auto& b : tsm::refvec::all_blocks()) {
    const tsm::refvec::Insn in = tsm::refvec::parse(b.ptx);
    if (in.op != "cvt" || in.types.size() != 2) continue;
    const std::string& dst = in.types[0];
    const std::string& src = in.types[1];
    const bool f2i = src == "f32" && itype_of(dst);
    const bool i2f = dst == "f32" && itype_of(src);
    if (!f2i && !i2f) continue;
    const uint32_t mask = b.out_width >= 4 ? 0xFFFFFFFFu : (1u << (8 * b.out_width)) - 1;
    for (size_t i = 0; i < b.count; ++i)
      cs.push_back({i2f, static_cast<uint32_t>(b.in(i, 0)), *itype_of(i2f ? src : dst), static_cast<uint8_t>(in.rnd), in.ftz,
                    static_cast<uint32_t>(b.outputs[i]), mask, b.ptx.c_str()});
  }
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cs,
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        if ((static_cast<uint32_t>(dut.result_o) & c.mask) == c.gpu) return std::nullopt;
        return fmt::format("{} ({:#010x}): RTL {:#010x}, GPU {:#x}", c.ptx, c.x, static_cast<uint32_t>(dut.result_o), c.gpu);
      });
  EXPECT_GE(checked, 25000u);
}

}  // namespace
