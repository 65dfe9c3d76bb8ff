// The SP lane's binary32 compare/min/max (rtl/sm/tsm_fcmp32.sv), as Verilated RTL or as the Yosys
// netlist of it, against sim/arith's cmp_f32, min_f32 and max_f32 bit for bit: every comparison,
// with and without .ftz and FMNMX.NAN, on all pairs of special values (zeros of both signs,
// subnormals, infinities, quiet and signaling NaNs) and random operands, many of them equal or
// differing in one bit; and against a real NVIDIA GPU's results for every f32 min, max and setp of
// the committed reference vectors (tests/refvec, docs/reference-vectors.md).
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

using tsm::fp::Fcmp;

struct Case {
  uint32_t a, b;
  uint8_t fcmp;
  bool ftz, nan;
  const char* gpu_op = nullptr;  // reference-vector cases: min, max or setp,
  uint32_t gpu = 0;              // the real GPU's result,
  const char* ptx = nullptr;     // and the PTX form it ran
};

std::vector<Case> cases(size_t random_count) {
  std::vector<uint32_t> s = {0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0x3F800001, 0x7F7FFFFF,
                             0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0x40490FDB};
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) s.push_back(s[i] | 0x80000000u);
  std::vector<Case> out;
  for (const uint32_t a : s)
    for (const uint32_t b : s)
      for (uint8_t op = 0; op < 14; ++op)
        for (unsigned flags = 0; flags < 4; ++flags) out.push_back({a, b, op, (flags & 1) != 0, (flags & 2) != 0});
  std::mt19937_64 r(0xFC32);
  for (size_t i = 0; i < random_count; ++i) {
    const uint32_t a = static_cast<uint32_t>(r());
    uint32_t b = static_cast<uint32_t>(r());
    if (i % 3 == 0) b = a ^ (1u << (r() % 32));  // close, or the same but for the sign
    if (i % 7 == 0) b = a;
    out.push_back({a, b, static_cast<uint8_t>(r() % 14), r() % 2 == 0, r() % 4 == 0});
  }
  return out;
}

// One case's operands on the unit's inputs.
void drive(TSM_MODEL_CLASS& dut, const Case& c) {
  dut.a_i = c.a;
  dut.b_i = c.b;
  dut.fcmp_i = c.fcmp;
  dut.ftz_i = c.ftz;
  dut.nan_i = c.nan;
}

TEST(Fcmp32, MatchesTheGoldenModelBitForBit) {
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cases(TSM_RANDOM_CASES),
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        const bool pred = tsm::fp::cmp_f32(static_cast<Fcmp>(c.fcmp), c.a, c.b, c.ftz);
        const uint32_t mn = tsm::fp::min_f32(c.a, c.b, c.ftz, c.nan), mx = tsm::fp::max_f32(c.a, c.b, c.ftz, c.nan);
        if (dut.pred_o == pred && dut.min_o == mn && dut.max_o == mx) return std::nullopt;
        return fmt::format("a {:#010x} b {:#010x} fcmp {} ftz {} nan {}: RTL pred {} min {:#010x} max {:#010x}, golden {} {:#010x} {:#010x}",
                           c.a, c.b, c.fcmp, c.ftz, c.nan, dut.pred_o, dut.min_o, dut.max_o, pred, mn, mx);
      });
  EXPECT_GE(checked, 100000u);
}

// The GPU's own results: each f32 min, max (with and without .ftz and .NaN) and setp (every
// comparison, with and without .ftz) of the reference vectors.
TEST(Fcmp32, MatchesTheRealGpu) {
  std::vector<Case> cs;
  for (const auto& b : tsm::refvec::all_blocks()) {
    const tsm::refvec::Insn in = tsm::refvec::parse(b.ptx);
    if (in.type() != "f32" || !(in.op == "min" || in.op == "max" || in.op == "setp")) continue;
    const char* op = in.op == "min" ? "min" : in.op == "max" ? "max" : "setp";
    const auto fcmp = static_cast<uint8_t>(in.cmp ? *in.cmp : tsm::refvec::Fcmp::EQ);
    for (size_t i = 0; i < b.count; ++i)
      cs.push_back({static_cast<uint32_t>(b.in(i, 0)), static_cast<uint32_t>(b.in(i, 1)), fcmp, in.ftz, in.nan, op,
                    static_cast<uint32_t>(b.outputs[i]), b.ptx.c_str()});
  }
  const size_t checked = tsm::rtltest::run_pipeline<TSM_MODEL_CLASS>(
      cs,
      drive,
      [](TSM_MODEL_CLASS& dut, const Case& c) -> std::optional<std::string> {
        const std::string op = c.gpu_op;
        const uint32_t got = op == "min" ? dut.min_o : op == "max" ? dut.max_o : dut.pred_o;
        if (got == c.gpu) return std::nullopt;
        return fmt::format("{} ({:#010x}, {:#010x}): RTL {:#x}, GPU {:#x}", c.ptx, c.a, c.b, got, c.gpu);
      });
  EXPECT_GE(checked, 34000u);
}

}  // namespace
