// The shared atomics' arithmetic (rtl/sm/tsm_atomic_alu.sv), as Verilated RTL or as the Yosys
// netlist of it, against the memory model's atomic_new_value() (sim/rtl/memory_model.cpp, the
// golden model's semantics written for the memory side) with shared memory's rule: ATOM.ADD.F32
// does not flush subnormals. Every operation and type, on edge values (0, 1, the signed and
// unsigned limits, equal operands, binary32 specials and subnormals) and random ones; 32-bit types
// compare the low word only.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER
#include "unit_driver.hpp"
#include "rtl/memory_model.hpp"
#include "tsm/isa_gen.hpp"

namespace {

namespace g = tsm::isa::gen;

class AtomicAlu : public ::testing::Test {
 protected:
  AtomicAlu() {
    dut_->clk_i = 0;
    dut_->rst_ni = 1;
    dut_->eval();
  }

  /// Compares one case; returns whether it agreed.
  bool check(bool cas, g::Aop aop, g::Atype type, uint64_t old, uint64_t b, uint64_t c) {
    const bool wide = type == g::Atype::U64 || type == g::Atype::S64;
    if (!wide) old &= 0xFFFF'FFFFu;  // the SM reads a 32-bit old value into the low word
    dut_->cas_i = cas;
    dut_->aop_i = static_cast<uint32_t>(aop);
    dut_->atype_i = static_cast<uint32_t>(type);
    dut_->old_i = old;
    dut_->b_i = b;
    dut_->c_i = c;
    dut_->eval();
    const uint8_t atom = static_cast<uint8_t>((cas ? 0x80 : 0) | static_cast<unsigned>(type) << 4 | static_cast<unsigned>(aop));
    const uint64_t want = tsm::rtl::atomic_new_value(atom, old, b, c, /*global=*/false);
    const uint64_t got = wide ? dut_->new_o : dut_->new_o & 0xFFFF'FFFFu;
    if (got == want) return true;
    ADD_FAILURE() << fmt::format("{} aop {} type {}: old {:#x} b {:#x} c {:#x} -> got {:#x}, want {:#x}", cas ? "CAS" : "ATOM",
                                 static_cast<int>(aop), static_cast<int>(type), old, b, c, got, want);
    return false;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

const std::vector<uint64_t> kEdges = {
    0, 1, 2, 0x7FFF'FFFF, 0x8000'0000, 0xFFFF'FFFF, 0xFFFF'FFFE, 0x1'0000'0000, 0x7FFF'FFFF'FFFF'FFFF, 0x8000'0000'0000'0000,
    0xFFFF'FFFF'FFFF'FFFF,
    // binary32: +-0, the smallest subnormal, the largest subnormal, the smallest normal, 1, -1,
    // the largest finite, infinity, a quiet and a signalling NaN
    0x8000'0000, 0x0000'0001, 0x007F'FFFF, 0x0080'0000, 0x3F80'0000, 0xBF80'0000, 0x7F7F'FFFF, 0x7F80'0000, 0xFF80'0000,
    0x7FC0'0000, 0x7F80'0001, 0x8000'0001};

TEST_F(AtomicAlu, EveryOperationOnEdgeValues) {
  unsigned bad = 0;
  for (unsigned t = 0; t < 5; ++t) {
    const auto type = static_cast<g::Atype>(t);
    for (unsigned a = 0; a < 9; ++a) {
      const auto aop = static_cast<g::Aop>(a);
      if (type == g::Atype::F32 && aop != g::Aop::ADD && aop != g::Aop::MIN && aop != g::Aop::MAX && aop != g::Aop::EXCH) continue;
      for (uint64_t old : kEdges)
        for (uint64_t b : kEdges) bad += !check(false, aop, type, old, b, 0);
    }
    if (type == g::Atype::F32) continue;
    for (uint64_t old : kEdges)
      for (uint64_t b : kEdges) bad += !check(true, g::Aop::ADD, type, old, b, old ^ 0x5A5A'5A5A'5A5A'5A5Aull);
    if (bad > 20) break;
  }
  EXPECT_EQ(bad, 0u);
}

TEST_F(AtomicAlu, RandomOperands) {
  std::mt19937_64 rng(1);
  unsigned bad = 0;
  for (unsigned c = 0; c < TSM_RANDOM_CASES && bad < 20; ++c) {
    const auto type = static_cast<g::Atype>(rng() % 5);
    const auto aop = static_cast<g::Aop>(rng() % 9);
    if (type == g::Atype::F32 && aop != g::Aop::ADD && aop != g::Aop::MIN && aop != g::Aop::MAX && aop != g::Aop::EXCH) continue;
    const bool cas = type != g::Atype::F32 && rng() % 6 == 0;
    uint64_t old = rng(), b = rng();
    if (rng() % 4 == 0) b = old;                        // equal operands
    if (rng() % 4 == 0) b = old + (rng() % 5) - 2;      // near ones
    if (rng() % 8 == 0) old = rng() % 4;                // near zero
    bad += !check(cas, aop, type, old, b, rng());
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
