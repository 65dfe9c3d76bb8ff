// The SM's scoreboard (rtl/sm/tsm_scoreboard.sv), as Verilated RTL or as the Yosys netlist of it,
// against its rule stated over sets of registers rather than the RTL's range comparisons
// (docs/sm-rtl.md §2.3): an instruction waits while a register it reads or writes is one that a
// load of its own warp in flight will write; EXIT waits for the warp's loads, MEMBAR for its
// stores; a register at or beyond the kernel's count is a bad register. Random instructions against
// random load-slot tables crowded into a few registers and warps, then the cases a user meets. The
// RTL build also carries the scoreboard's deliberate bug (rtl/mutants/mutants.json, mutant 10),
// which must be caught here.
#include <gtest/gtest.h>

#include <array>
#include <bitset>
#include <cstdint>
#include <random>
#include <string>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER
#include "unit_driver.hpp"

namespace {

constexpr unsigned kSlots = 8;
constexpr unsigned kWarpBits = 3;  // the testbench's build: 8 warp numbers
constexpr unsigned kRZ = 255;

struct Operand {
  unsigned reg = kRZ;  // first register
  unsigned count = 1;  // registers
  bool used = false;   // read (A, B, C, D) or written (D)
};

struct Slot {
  bool valid = false;
  unsigned warp = 0, reg = 0, count = 1;
};

struct Case {
  unsigned warp = 0;
  Operand a, b, c, d;
  bool b_beside = false;  // B read as one register beside an immediate or constant
  bool d_read = false, d_written = false;
  bool exit = false, membar = false;
  std::array<Slot, kSlots> slots{};
  bool loads = false, stores = false;
  unsigned kernel_registers = 16;
};

struct Verdict {
  bool hazard = false, bad_register = false;
  bool operator==(const Verdict&) const = default;
};

using Registers = std::bitset<256>;

Registers registers_of(unsigned first, unsigned count) {
  Registers r;
  if (first == kRZ) return r;
  for (unsigned i = 0; i < count && first + i < kRZ; ++i) r.set(first + i);
  return r;
}

/// The rule, over sets of registers.
Verdict reference(const Case& c) {
  Registers touched;
  if (c.a.used) touched |= registers_of(c.a.reg, c.a.count);
  if (c.b.used) touched |= registers_of(c.b.reg, c.b_beside ? 1 : c.b.count);
  if (c.c.used) touched |= registers_of(c.c.reg, c.c.count);
  if (c.d_read || c.d_written) touched |= registers_of(c.d.reg, c.d.count);
  Registers pending;
  for (const Slot& s : c.slots)
    if (s.valid && s.warp == c.warp) pending |= registers_of(s.reg, s.count);
  Verdict v;
  v.hazard = (touched & pending).any() || (c.exit && c.loads) || (c.membar && c.stores);
  for (unsigned r = c.kernel_registers; r < kRZ; ++r) v.bad_register = v.bad_register || touched.test(r);
  return v;
}

class Scoreboard : public ::testing::Test {
 protected:
  explicit Scoreboard(const std::string& plusargs = "") : unit_(plusargs) {}

  Verdict apply(const Case& c) {
    dut_->warp_i = c.warp;
    dut_->ra_i = c.a.reg;
    dut_->rb_i = c.b.reg;
    dut_->rc_i = c.c.reg;
    dut_->rd_i = c.d.reg;
    dut_->ra_regs_i = c.a.count;
    dut_->b_regs_i = c.b.count;
    dut_->rc_regs_i = c.c.count;
    dut_->rd_regs_i = c.d.count;
    dut_->reads_ra_i = c.a.used;
    dut_->reads_b_i = c.b.used;
    dut_->reads_rb_i = c.b_beside;
    dut_->reads_rc_i = c.c.used;
    dut_->reads_rd_i = c.d_read;
    dut_->writes_rd_i = c.d_written;
    dut_->exit_i = c.exit;
    dut_->membar_i = c.membar;
    uint32_t valid = 0, warp = 0, regs = 0;
    uint64_t reg = 0;
    for (unsigned s = 0; s < kSlots; ++s) {
      valid |= static_cast<uint32_t>(c.slots[s].valid) << s;
      warp |= c.slots[s].warp << (kWarpBits * s);
      reg |= static_cast<uint64_t>(c.slots[s].reg) << (8 * s);
      regs |= c.slots[s].count << (3 * s);
    }
    dut_->slot_valid_i = valid;
    dut_->slot_warp_i = warp;
    dut_->slot_register_i = reg;
    dut_->slot_registers_i = regs;
    dut_->loads_in_flight_i = c.loads;
    dut_->stores_in_flight_i = c.stores;
    dut_->kernel_registers_i = c.kernel_registers;
    dut_->eval();
    return {dut_->hazard_o != 0, dut_->bad_register_o != 0};
  }

  static Operand random_operand(std::mt19937& rng, bool used) {
    static constexpr unsigned kCounts[] = {1, 1, 1, 2, 4};
    Operand o;
    o.used = used;
    o.reg = rng() % 8 == 0 ? kRZ : rng() % 20;
    o.count = kCounts[rng() % 5];
    return o;
  }

  static Case random_case(std::mt19937& rng) {
    Case c;
    c.warp = rng() % 3;  // few warps, so slots often belong to the instruction's
    c.a = random_operand(rng, rng() % 4 != 0);
    c.b = random_operand(rng, rng() % 2 == 0);
    c.b_beside = c.b.used && rng() % 4 == 0;
    c.c = random_operand(rng, rng() % 3 == 0);
    c.d = random_operand(rng, false);
    c.d_written = rng() % 3 != 0;
    c.d_read = rng() % 5 == 0;
    c.exit = rng() % 16 == 0;
    c.membar = !c.exit && rng() % 16 == 0;
    c.loads = rng() % 2 == 0;
    c.stores = rng() % 2 == 0;
    const unsigned in_use = rng() % (kSlots + 1);
    for (unsigned s = 0; s < kSlots; ++s) {
      static constexpr unsigned kCounts[] = {1, 1, 2, 4};
      c.slots[s].valid = s < in_use && rng() % 4 != 0;
      c.slots[s].warp = rng() % 3;
      c.slots[s].reg = rng() % 20;
      c.slots[s].count = kCounts[rng() % 4];
    }
    c.kernel_registers = 8 + rng() % 16;
    return c;
  }

  /// Random cases against the rule; returns how many disagreed.
  unsigned random_run(unsigned cases, uint32_t seed, bool stop_at_first = false) {
    std::mt19937 rng(seed);
    unsigned bad = 0;
    for (unsigned n = 0; n < cases; ++n) {
      const Case c = random_case(rng);
      const Verdict want = reference(c);
      const Verdict got = apply(c);
      if (got == want) continue;
      ++bad;
      ADD_FAILURE() << fmt::format("case {}: warp {} A R{}x{}{} B R{}x{}{} C R{}x{}{} D R{}x{}{}: got hazard {} bad {}, want {} {}", n,
                                   c.warp, c.a.reg, c.a.count, c.a.used ? "" : " (unused)", c.b.reg, c.b.count,
                                   c.b.used ? "" : " (unused)", c.c.reg, c.c.count, c.c.used ? "" : " (unused)", c.d.reg,
                                   c.d.count, c.d_written || c.d_read ? "" : " (unused)", got.hazard, got.bad_register,
                                   want.hazard, want.bad_register);
      if (stop_at_first || bad > 10) return bad;
    }
    return bad;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

TEST_F(Scoreboard, MatchesTheRule) { EXPECT_EQ(random_run(TSM_RANDOM_CASES, 1), 0u); }

/// `FADD R4, R1, R2` by warp 1, with one load in flight.
Case fadd_after_load(unsigned load_warp, unsigned load_reg, unsigned load_count) {
  Case c;
  c.warp = 1;
  c.a = {1, 1, true};
  c.b = {2, 1, true};
  c.d = {4, 1, false};
  c.d_written = true;
  c.slots[3] = {true, load_warp, load_reg, load_count};
  c.loads = load_warp == 1;
  return c;
}

TEST_F(Scoreboard, ReadAfterLoadWaits) {
  EXPECT_TRUE(apply(fadd_after_load(1, 2, 1)).hazard) << "B is the load's destination";
  EXPECT_TRUE(apply(fadd_after_load(1, 0, 2)).hazard) << "A is the second register of a 64-bit load";
  EXPECT_TRUE(apply(fadd_after_load(1, 4, 1)).hazard) << "the result would be overwritten by the load";
  EXPECT_FALSE(apply(fadd_after_load(1, 5, 4)).hazard) << "the load writes R5..R8, which the FADD does not touch";
  EXPECT_FALSE(apply(fadd_after_load(0, 2, 1)).hazard) << "another warp's load";
  Case idle = fadd_after_load(1, 2, 1);
  idle.slots[3].valid = false;
  EXPECT_FALSE(apply(idle).hazard) << "a free slot";
}

TEST_F(Scoreboard, RZNeverWaits) {
  Case c = fadd_after_load(1, 2, 1);
  c.b.reg = kRZ;
  EXPECT_FALSE(apply(c).hazard);
}

TEST_F(Scoreboard, ExitAndMembarWaitForMemory) {
  Case c;
  c.warp = 2;
  c.exit = true;
  EXPECT_FALSE(apply(c).hazard);
  c.loads = true;
  EXPECT_TRUE(apply(c).hazard) << "EXIT waits for the warp's loads";
  c = Case{};
  c.membar = true;
  c.loads = true;
  EXPECT_FALSE(apply(c).hazard) << "MEMBAR waits for stores only";
  c.stores = true;
  EXPECT_TRUE(apply(c).hazard);
}

TEST_F(Scoreboard, RegistersBeyondTheKernelsCount) {
  Case c = fadd_after_load(0, 0, 1);
  c.kernel_registers = 5;
  EXPECT_FALSE(apply(c).bad_register) << "R4 is the kernel's last register";
  c.kernel_registers = 4;
  EXPECT_TRUE(apply(c).bad_register);
  c.d.reg = kRZ;
  EXPECT_FALSE(apply(c).bad_register) << "RZ is always there";
  c.a = {3, 2, true};
  EXPECT_TRUE(apply(c).bad_register) << "the pair R3:R4";
}

#ifdef TSM_UNIT_MUTANTS
// The scoreboard's deliberate bug (mutant 10, operand B forgotten), with +tsm+mutant=10.
class ScoreboardMutant : public Scoreboard {
 protected:
  ScoreboardMutant() : Scoreboard("+tsm+mutant=10") {}
};

TEST_F(ScoreboardMutant, ForgottenOperandIsCaught) {
  const unsigned bad = tsm::rtltest::expecting_mismatches([&] { return random_run(2000, 7, true); });
  EXPECT_GT(bad, 0u) << "mutant 10 went unnoticed";
}
#endif

}  // namespace
