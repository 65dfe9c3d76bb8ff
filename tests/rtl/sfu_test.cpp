// The SFU datapath (rtl/sm/tsm_sfu.sv), as Verilated RTL or as the Yosys netlist of it, against the
// golden model's tsm::sfu::evaluate bit for bit: every MUFU function, with and without ftz, on
// special values, every binade's edges, and random operands biased toward each function's
// interesting range; and on the inputs a real NVIDIA GPU ran in the committed reference vectors
// (tests/refvec). One operand enters the pipeline per clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include "pipeline_driver.hpp"
#include "refvec_data.hpp"
#include "sfu/sfu.hpp"
#include TSM_MODEL_HEADER

namespace {

using tsm::sfu::Mufu;

struct Case {
  uint8_t func;
  uint32_t x;
  bool ftz;
};

std::vector<Case> cases(size_t random_per_function) {
  std::vector<Case> out;
  std::mt19937_64 r(0x5F0);
  std::vector<uint32_t> base = {0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0x3F7FFFFF, 0x3F800001,
                                0x40000000, 0x3FC00000, 0x40490FDB, 0x40C90FDB, 0x42FE0000, 0x43000000, 0x7F7FFFFF,
                                0x7F800000, 0x7FC00000, 0x7F800001, 0x39800000, 0x39000000, 0x4B000000, 0x5A000000};
  for (uint32_t e = 0; e < 255; ++e)
    for (uint32_t f : {0u, 1u, 0x400000u, 0x7FFFFFu}) base.push_back(e << 23 | f);
  const size_t n = base.size();
  for (size_t i = 0; i < n; ++i) base.push_back(base[i] | 0x80000000u);
  for (uint8_t func = 0; func < 6; ++func) {
    for (const uint32_t x : base)
      for (const bool ftz : {false, true}) out.push_back({func, x, ftz});
    for (size_t i = 0; i < random_per_function; ++i) {
      const uint32_t sign = static_cast<uint32_t>(r() & 1) << 31;
      uint32_t exp = 0;
      switch (r() % 4) {
        case 0: exp = static_cast<uint32_t>(r() % 256); break;
        case 1: exp = 100 + static_cast<uint32_t>(r() % 40); break;   // around 1
        case 2: exp = static_cast<uint32_t>(r() % 4); break;          // subnormal and tiny
        default: exp = 120 + static_cast<uint32_t>(r() % 15); break;  // the PTX domains
      }
      out.push_back({func, sign | exp << 23 | (static_cast<uint32_t>(r()) & 0x7FFFFF), r() % 4 == 0});
    }
  }
  return out;
}

// One case's operands on the unit's inputs.
void drive(TSM_MODEL_CLASS& dut, const Case& c) {
  dut.func_i = c.func;
  dut.x_i = c.x;
  dut.ftz_i = c.ftz;
}

// The unit's result against the golden model's bits.
std::optional<std::string> check(TSM_MODEL_CLASS& dut, const Case& c) {
  const uint32_t want = tsm::sfu::evaluate(static_cast<Mufu>(c.func), c.x, c.ftz);
  if (dut.result_o == want) return std::nullopt;
  return fmt::format("MUFU {} of {:#010x} ftz {}: RTL {:#010x}, golden {:#010x}", c.func, c.x, c.ftz, dut.result_o, want);
}

TEST(Sfu, MatchesTheGoldenModelBitForBit) {
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cases(TSM_RANDOM_CASES),
      drive,
      check);
  EXPECT_GE(checked, 100000u);
}

// The inputs the real GPU ran for each .approx function of the reference vectors (tests/refvec),
// with and without .ftz: the RTL gives the golden model's bits on them too. (Against the GPU's own
// outputs the golden model is held to the PTX error bounds, by refvec.RefVec.*: the SFU's
// approximations are not the GPU's.)
TEST(Sfu, MatchesTheGoldenModelOnTheGpuInputs) {
  static const std::vector<std::string> funcs = {"rcp", "rsqrt", "sin", "cos", "ex2", "lg2"};  // the ISA's MUFU order
  std::vector<Case> cs;
  for (const auto& b : tsm::refvec::all_blocks()) {
    const tsm::refvec::Insn in = tsm::refvec::parse(b.ptx);
    const auto f = std::find(funcs.begin(), funcs.end(), in.op);
    if (!in.approx || f == funcs.end()) continue;
    for (size_t i = 0; i < b.count; ++i)
      cs.push_back({static_cast<uint8_t>(f - funcs.begin()), static_cast<uint32_t>(b.in(i, 0)), in.ftz});
  }
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cs,
      drive,
      check);
  EXPECT_GE(checked, 60000u);
}

}  // namespace
