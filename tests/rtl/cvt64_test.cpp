// The SP lane's conversion unit (rtl/sm/tsm_cvt.sv) between binary32 and 64-bit integers, as
// Verilated RTL or as the Yosys netlist of it, against sim/arith's f2i and i2f bit for bit: U64
// and S64, every rounding mode, .ftz; floats around ±2^63 and 2^64, integral ties, subnormals,
// infinities and NaNs; integers of every length and sign, at the limits and with every kind of
// tail below binary32's precision (exact, below, at and above half). And against a real NVIDIA
// GPU's results for every such cvt of the committed reference vectors (tests/refvec).
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
using tsm::fp::Itype;
using tsm::fp::Rnd;

struct Case {
  bool to_float;
  uint64_t x;
  bool is_signed;
  uint8_t rnd;
  bool ftz;
  uint64_t gpu = 0;           // reference-vector cases: the real GPU's result,
  const char* ptx = nullptr;  // and the PTX form it ran
};

Itype itype(const Case& c) { return c.is_signed ? Itype::S64 : Itype::U64; }

// Floats: zeros, subnormals, integral ties (0.5, 1.5, 2.5, 2^23 - 0.5), 2^23, 2^24, 2^31, 2^32,
// just below, at and above 2^63 and 2^64, the largest finite value, infinity and NaNs.
const std::vector<uint32_t> kFloats = {
    0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x3E800000, 0x3F000000, 0x3F000001, 0x3EFFFFFF, 0x3F800000,
    0x3F7FFFFF, 0x3FC00000, 0x3FC00001, 0x3FBFFFFF, 0x40200000, 0x40600000, 0x4AFFFFFF, 0x4B000000, 0x4B000001,
    0x4B7FFFFF, 0x4B800000, 0x4F000000, 0x4F800000, 0x5E800000, 0x5EFFFFFF, 0x5F000000, 0x5F000001, 0x5F7FFFFF,
    0x5F800000, 0x5F800001, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FA5A5A5, 0x7FFFFFFF};

// Integers: 0, ±1, the limits of both types, binary32 ties at 2^24 + 1 and their shifted copies,
// values rounding up into a new binade (2^k - 1) and around 2^63.
std::vector<uint64_t> integers() {
  std::vector<uint64_t> v = {0,
                             1,
                             2,
                             3,
                             0x7FFFFFFFFFFFFFFF,
                             0x8000000000000000,
                             0x8000000000000001,
                             0xFFFFFFFFFFFFFFFF,
                             0xFFFFFFFFFFFFFFFE,
                             0x0000000001000001,
                             0x0000000001000003,
                             0x0000000000FFFFFF,
                             0x0000000001FFFFFF,
                             0x7FFFFF8000000000,
                             0x7FFFFFC000000000,
                             0x7FFFFFC000000001,
                             0x7FFFFF4000000000,
                             0xFFFFFF8000000000,
                             0xFFFFFF7FFFFFFFFF,
                             0x8000008000000000,
                             0x8000004000000000,
                             0x8000004000000001,
                             0x8000003FFFFFFFFF};
  for (int k = 0; k <= 40; ++k) {
    v.push_back(uint64_t{0x1000001} << k);
    v.push_back(uint64_t{0x1000003} << k);
    v.push_back((uint64_t{1} << (k + 24)) - 1);
  }
  return v;
}

std::vector<Case> cases(size_t random_count) {
  std::vector<Case> out;
  std::mt19937_64 r(0xC64);
  for (const uint32_t f : kFloats)
    for (const uint64_t sign : {uint64_t{0}, uint64_t{0x80000000}})
      for (const bool s : {false, true})
        for (uint8_t rnd = 0; rnd < 4; ++rnd)
          for (const bool ftz : {false, true})
            out.push_back({false, (f | sign) | (rnd == 1 ? 0xDEADBEEF00000000u : 0u), s, rnd, ftz});
  for (const uint64_t x : integers())
    for (const uint64_t y : {x, 0 - x})
      for (const bool s : {false, true})
        for (uint8_t rnd = 0; rnd < 4; ++rnd) out.push_back({true, y, s, rnd, rnd == 2});
  for (size_t i = 0; i < random_count; ++i) {
    Case c{};
    c.is_signed = r() % 2;
    c.rnd = static_cast<uint8_t>(r() % 4);
    c.ftz = r() % 2;
    const uint64_t bits = r();
    switch (i % 4) {
      case 0: {  // F2I across the whole range of 64-bit integers and beyond: 2^-3 .. 2^66
        const uint64_t exp = 124 + r() % 70;
        c.x = (bits & 0xFFFFFFFF807FFFFFu) | exp << 23;
        break;
      }
      case 1:  // F2I on any pattern, subnormals and specials one time in four
        c.x = r() % 4 == 0 ? (bits & 0x807FFFFFu) | (r() % 2 ? 0u : 0x7F800000u) : bits;
        break;
      case 2: {  // I2F of every length and sign
        const int len = static_cast<int>(r() % 65);
        c.to_float = true;
        c.x = len == 0 ? 0 : bits >> (64 - len);
        if (r() % 2) c.x = 0 - c.x;
        break;
      }
      default: {  // I2F with a tail below binary32's precision: zero, below, at and above half
        const int len = 25 + static_cast<int>(r() % 40);
        const int tail = len - 24;
        const uint64_t head = (uint64_t{1} << 23 | (bits & 0x7FFFFF)) << tail;
        const uint64_t half = uint64_t{1} << (tail - 1);
        const uint64_t low = r() % (half * 2);
        const uint64_t tails[] = {0, half, half - 1, half + 1, low};
        c.to_float = true;
        c.x = head | tails[r() % 5];
        if (r() % 2) c.x = 0 - c.x;
        break;
      }
    }
    out.push_back(c);
  }
  return out;
}

// One case's operands on the unit's inputs.
void drive(TSM_MODEL_CLASS& dut, const Case& c) {
  dut.to_float_i = c.to_float;
  dut.x_i = c.x;
  dut.itype_i = static_cast<uint8_t>(itype(c));
  dut.rnd_i = c.rnd;
  dut.ftz_i = c.ftz;
}

TEST(Cvt64, MatchesTheGoldenModelBitForBit) {
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cases(TSM_RANDOM_CASES),
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        const uint64_t want = c.to_float ? tsm::fp::i2f(c.x, itype(c), Ftype::F32, static_cast<Rnd>(c.rnd))
                                         : tsm::fp::f2i(c.x, Ftype::F32, itype(c), static_cast<Rnd>(c.rnd), c.ftz);
        if (dut.result_o == want) return std::nullopt;
        return fmt::format("{} {:#018x} {} rnd {} ftz {}: RTL {:#018x}, golden {:#018x}", c.to_float ? "I2F" : "F2I", c.x,
                           c.is_signed ? "s64" : "u64", c.rnd, c.ftz, dut.result_o, want);
      });
  EXPECT_GE(checked, static_cast<size_t>(TSM_RANDOM_CASES));
}

// The GPU's own results: each cvt between f32 and u64 or s64 (every rounding mode, .ftz) of the
// reference vectors.
TEST(Cvt64, MatchesTheRealGpu) {
  std::vector<Case> cs;
  for (const auto& b : tsm::refvec::all_blocks()) {
    const tsm::refvec::Insn in = tsm::refvec::parse(b.ptx);
    if (in.op != "cvt" || in.types.size() != 2) continue;
    const std::string& dst = in.types[0];
    const std::string& src = in.types[1];
    const bool f2i = src == "f32" && (dst == "u64" || dst == "s64");
    const bool i2f = dst == "f32" && (src == "u64" || src == "s64");
    if (!f2i && !i2f) continue;
    for (size_t i = 0; i < b.count; ++i)
      cs.push_back({i2f, b.in(i, 0), (i2f ? src : dst) == "s64", static_cast<uint8_t>(in.rnd), in.ftz, b.outputs[i], b.ptx.c_str()});
  }
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cs,
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        if (dut.result_o == c.gpu) return std::nullopt;
        return fmt::format("{} ({:#018x}): RTL {:#018x}, GPU {:#x}", c.ptx, c.x, static_cast<uint64_t>(dut.result_o), c.gpu);
      });
  EXPECT_GE(checked, 5000u);
}

}  // namespace
