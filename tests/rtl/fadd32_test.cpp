// The atomics' binary32 adder (rtl/sm/tsm_fadd32.sv), as Verilated RTL or as the Yosys netlist of
// it, against sim/arith's add_f32 (round to nearest even) bit for bit, with and without .ftz: all
// pairs of special values (zeros, subnormals at both ends, the smallest normals, the largest
// finite values, infinities, NaNs, both signs), then random operands biased toward cancellation,
// subnormal sums, results at the normal/subnormal boundary, overflow and ties. And against a real
// NVIDIA GPU's add.rn.f32 and sub.rn.f32 results, with and without .ftz, of the committed
// reference vectors (tests/refvec). The unit is combinational: each case is one evaluation.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include "arith/fp.hpp"
#include "refvec_data.hpp"
#include TSM_MODEL_HEADER

namespace {

using tsm::fp::Rnd;

struct Case {
  uint32_t a, b;
  bool ftz;
  uint32_t want;
  const char* what;  // the case's origin, for the message
};

uint32_t golden(uint32_t a, uint32_t b, bool ftz) { return tsm::fp::add_f32(a, b, Rnd::RN, ftz, false); }

std::vector<Case> golden_cases(size_t random_count) {
  std::vector<uint32_t> s = {0x00000000, 0x00000001, 0x00000002, 0x003FFFFF, 0x00400000, 0x007FFFFF, 0x00800000,
                             0x00800001, 0x00FFFFFF, 0x01000000, 0x33800000, 0x34000000, 0x3F800000, 0x3F800001,
                             0x3FFFFFFF, 0x4B800000, 0x7F000000, 0x7F7FFFFE, 0x7F7FFFFF, 0x7F800000, 0x7FC00000,
                             0x7F800001, 0x7FFFFFFF};
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) s.push_back(s[i] | 0x80000000u);
  std::vector<Case> out;
  for (const uint32_t a : s)
    for (const uint32_t b : s)
      for (const bool ftz : {false, true}) out.push_back({a, b, ftz, golden(a, b, ftz), "special"});
  std::mt19937_64 r(0xFADD32);
  for (size_t i = 0; i < random_count; ++i) {
    uint32_t a = static_cast<uint32_t>(r());
    uint32_t b = static_cast<uint32_t>(r());
    switch (i % 6) {
      case 0:  // opposite signs, nearby magnitudes: cancellation
        b = (a ^ 0x80000000u) + static_cast<uint32_t>(r() % 64) - 32;
        break;
      case 1:  // small exponents: subnormal sums and the boundary to the normals
        a &= 0x80FFFFFFu;
        b &= 0x80FFFFFFu;
        break;
      case 2:  // the largest exponents: overflow
        a = (a & 0x807FFFFFu) | 0x7F000000u;
        b = (b & 0x807FFFFFu) | (0x7E000000u + static_cast<uint32_t>(r() % 3) * 0x00800000u);
        break;
      case 3: {  // exponents within the alignment window: ties, round and sticky bits
        const uint32_t ea = a >> 23 & 0xFFu, k = static_cast<uint32_t>(r() % 28);
        b = (b & 0x807FFFFFu) | (ea >= k ? ea - k : 0u) << 23;
        break;
      }
      default:
        break;
    }
    const bool ftz = r() % 2 == 0;
    out.push_back({a, b, ftz, golden(a, b, ftz), "random"});
  }
  return out;
}

// Evaluates every case and reports the first ten mismatches; returns how many were checked.
size_t run(const std::vector<Case>& cases) {
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = std::make_unique<TSM_MODEL_CLASS>(ctx.get());
  size_t failures = 0;
  for (const Case& c : cases) {
    dut->a_i = c.a;
    dut->b_i = c.b;
    dut->ftz_i = c.ftz;
    dut->eval();
    if (dut->sum_o != c.want && failures++ < 10)
      ADD_FAILURE() << fmt::format("{}: {:#010x} + {:#010x} ftz {}: RTL {:#010x}, expected {:#010x}", c.what, c.a, c.b,
                                   c.ftz, dut->sum_o, c.want);
  }
  dut->final();
  return cases.size();
}

TEST(Fadd32, MatchesTheGoldenModelBitForBit) {
  EXPECT_GE(run(golden_cases(TSM_RANDOM_CASES)), 100000u);
}

// The GPU's own results: every add.rn.f32 and sub.rn.f32 (with and without .ftz, no .sat) of the
// reference vectors; a - b is a + (-b).
TEST(Fadd32, MatchesTheRealGpu) {
  std::vector<Case> cs;
  for (const auto& b : tsm::refvec::all_blocks()) {
    const tsm::refvec::Insn in = tsm::refvec::parse(b.ptx);
    if (in.type() != "f32" || !(in.op == "add" || in.op == "sub") || in.rnd != Rnd::RN || in.sat) continue;
    for (size_t i = 0; i < b.count; ++i) {
      const auto x = static_cast<uint32_t>(b.in(i, 0)), y = static_cast<uint32_t>(b.in(i, 1));
      cs.push_back({x, in.op == "sub" ? y ^ 0x80000000u : y, in.ftz, static_cast<uint32_t>(b.outputs[i]), b.ptx.c_str()});
    }
  }
  EXPECT_GE(run(cs), 7000u);  // 7,536 in the committed vectors
}

}  // namespace
