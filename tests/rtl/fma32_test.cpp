// The SP lane's fused multiply-add (rtl/sm/tsm_fma32.sv), as Verilated RTL or as the Yosys netlist
// of it, against the golden model's arithmetic (sim/arith fma_f32) bit for bit: every rounding
// mode with and without .ftz and .sat, on special values in all combinations and random operands
// biased toward the hard cases (cancellation, subnormal results, overflow, ties); and against a real
// NVIDIA GPU's results for every f32 add, sub, mul and fma of the committed reference vectors
// (tests/refvec, docs/reference-vectors.md). One operand set enters the pipeline per clock.
#include <gtest/gtest.h>

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

using tsm::fp::Rnd;

struct Case {
  uint32_t a, b, c;
  uint8_t rnd;
  bool ftz, sat;
  std::optional<uint32_t> gpu = std::nullopt;  // the real GPU's result, for the reference-vector cases
  const char* ptx = nullptr;                    // and the PTX form it ran
};

std::vector<uint32_t> specials() {
  std::vector<uint32_t> v = {0x00000000, 0x00000001, 0x00000002, 0x007FFFFF, 0x00400000, 0x00800000, 0x00800001,
                             0x00FFFFFF, 0x01000000, 0x0C000000, 0x33800000, 0x34000000, 0x3F000000, 0x3F7FFFFF,
                             0x3F800000, 0x3F800001, 0x3FC00000, 0x40000000, 0x4B000000, 0x5F800000, 0x7F000000,
                             0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0x1F800000, 0x20000000};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | 0x80000000u);
  return v;
}

uint32_t random_operand(std::mt19937_64& r) {
  const uint32_t sign = static_cast<uint32_t>(r() & 1) << 31;
  const uint32_t frac = static_cast<uint32_t>(r()) & 0x7FFFFF;
  switch (r() % 6) {
    case 0: return static_cast<uint32_t>(r());
    case 1: return sign | (static_cast<uint32_t>(r() % 24) << 23) | frac;          // tiny and subnormal
    case 2: return sign | (static_cast<uint32_t>(230 + r() % 25) << 23) | frac;    // huge
    case 3: return sign | (static_cast<uint32_t>(50 + r() % 30) << 23) | frac;     // products near the bottom
    case 4: return sign | (static_cast<uint32_t>(120 + r() % 15) << 23) | (frac & ~((1u << (r() % 23)) - 1));
    default: return sign | (static_cast<uint32_t>(r() % 255) << 23) | frac;
  }
}

std::vector<Case> cases(size_t random_count) {
  std::vector<Case> out;
  std::mt19937_64 r(0x5EEDF0A);
  const auto s = specials();
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = 0; j < s.size(); ++j)
      for (size_t k = 0; k < s.size(); k += 5)
        out.push_back({s[i], s[j], s[(k + i + j) % s.size()], static_cast<uint8_t>((i + j + k) % 4), (i + k) % 3 == 0, (j + k) % 7 == 0});
  for (size_t i = 0; i < random_count; ++i) {
    Case c{random_operand(r), random_operand(r), random_operand(r), static_cast<uint8_t>(r() % 4), r() % 3 == 0, r() % 8 == 0};
    if (i % 4 == 0) {  // c close to -(a*b): cancellation
      float p = 0;
      const float fa = std::bit_cast<float>(c.a), fb = std::bit_cast<float>(c.b);
      p = fa * fb;
      c.c = std::bit_cast<uint32_t>(-p) ^ static_cast<uint32_t>(r() % 3);
    }
    out.push_back(c);
  }
  return out;
}

// One case's operands on the unit's inputs.
void drive(TSM_MODEL_CLASS& dut, const Case& c) {
  dut.a_i = c.a;
  dut.b_i = c.b;
  dut.c_i = c.c;
  dut.rnd_i = c.rnd;
  dut.ftz_i = c.ftz;
  dut.sat_i = c.sat;
}

TEST(Fma32, MatchesTheGoldenModelBitForBit) {
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cases(TSM_RANDOM_CASES),
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        const uint32_t want = tsm::fp::fma_f32(c.a, c.b, c.c, static_cast<Rnd>(c.rnd), c.ftz, c.sat);
        if (dut.result_o == want) return std::nullopt;
        return fmt::format("fma({:#010x}, {:#010x}, {:#010x}) rnd {} ftz {} sat {}: RTL {:#010x}, golden {:#010x}", c.a,
                           c.b, c.c, c.rnd, c.ftz, c.sat, dut.result_o, want);
      });
  EXPECT_GE(checked, 100000u);
}

// The GPU's own results: each f32 add, sub, mul and fma the reference vectors hold (four rounding
// modes, .ftz, .sat), fed to the unit the way the SP group feeds it (rtl/sm/tsm_sp_group.sv): FADD is
// a * 1.0 + b, FMUL is a * b + (a zero with the product's sign).
TEST(Fma32, MatchesTheRealGpu) {
  std::vector<Case> cs;
  for (const auto& b : tsm::refvec::all_blocks()) {
    const tsm::refvec::Insn in = tsm::refvec::parse(b.ptx);
    if (in.type() != "f32" || !(in.op == "add" || in.op == "sub" || in.op == "mul" || in.op == "fma")) continue;
    for (size_t i = 0; i < b.count; ++i) {
      const auto a = static_cast<uint32_t>(b.in(i, 0)), x = static_cast<uint32_t>(b.in(i, 1));
      Case c{a, x, 0, static_cast<uint8_t>(in.rnd), in.ftz, in.sat, static_cast<uint32_t>(b.outputs[i]), b.ptx.c_str()};
      if (in.op == "add" || in.op == "sub") c.b = 0x3F800000u, c.c = in.op == "sub" ? x ^ 0x80000000u : x;
      if (in.op == "mul") c.c = (a ^ x) & 0x80000000u;
      if (in.op == "fma") c.c = static_cast<uint32_t>(b.in(i, 2));
      cs.push_back(c);
    }
  }
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cs,
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        if (dut.result_o == *c.gpu) return std::nullopt;
        return fmt::format("{} ({:#010x}, {:#010x}, {:#010x} as fma): RTL {:#010x}, GPU {:#010x}", c.ptx, c.a, c.b, c.c,
                           dut.result_o, *c.gpu);
      });
  EXPECT_GE(checked, 140000u);
}

}  // namespace
