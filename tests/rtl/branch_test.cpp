// The SM's branch unit (rtl/sm/tsm_branch.sv), as Verilated RTL or as the Yosys netlist of it,
// against the golden model's control rules (sim/golden/execute.cpp Exec::control, model.cpp
// State::push) restated in C++ for one instruction: which fault, which stack command, and the
// warp's next PC and lanes. The encodings come from the C++ side, not the RTL: opcodes from the
// generated ISA header, stack kinds from golden::StackKind, fault kinds as 1 + golden::FaultKind.
// Random control instructions with every kind of guard (all active lanes, none, some) and stack
// depth (empty, full, in between), then the cases a user meets. The RTL build also carries the
// branch unit's deliberate bug (rtl/mutants/mutants.json, mutant 6), which must be caught here.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include <fmt/format.h>
#include <verilated.h>

#include "golden/fault.hpp"
#include "golden/state.hpp"
#include "tsm/isa_gen.hpp"
#include TSM_MODEL_HEADER
#include "unit_driver.hpp"

namespace {

using tsm::golden::FaultKind;
using tsm::golden::StackKind;
using Op = tsm::isa::gen::Op;

constexpr unsigned kDepth = 6;  // the testbench's build: 6 entries a warp

unsigned fault_code(FaultKind k) { return 1 + static_cast<unsigned>(k); }
unsigned kind_code(StackKind k) { return static_cast<unsigned>(k); }

struct Insn {
  Op op = Op::NOP;
  uint32_t target = 0;  // 24-bit offset
  uint32_t pc = 0, exec = 0, active = 0, live = 0;
  unsigned depth = 0;
};

struct Decision {
  std::optional<unsigned> fault;
  std::optional<unsigned> push_kind;
  uint32_t push_mask = 0, push_pc = 0;
  bool pop = false;
  std::optional<unsigned> leave_kind;
  bool exit = false;
  std::optional<uint32_t> next_pc, next_active, next_live;
  bool operator==(const Decision&) const = default;
};

uint32_t target_of(const Insn& i) {
  const int32_t offset = static_cast<int32_t>(i.target << 8) >> 8;
  return i.pc + static_cast<uint32_t>(offset);
}

/// The golden rules.
Decision reference(const Insn& i) {
  Decision d;
  const bool full = i.depth >= kDepth;
  const bool empty = i.depth == 0;
  // A warp-level instruction (SSY, PBK, CAL, SYNC): nothing without executing lanes, a fault unless
  // every active lane executes it.
  const auto uniform = [&]() -> bool {
    if (i.exec == 0) return false;
    if (i.exec != i.active) {
      d.fault = fault_code(FaultKind::InvalidInstruction);
      return false;
    }
    return true;
  };
  const auto push = [&](StackKind kind, uint32_t mask, uint32_t pc) -> bool {
    if (full) {
      d.fault = fault_code(FaultKind::StackOverflow);
      return false;
    }
    d.push_kind = kind_code(kind);
    d.push_mask = mask;
    d.push_pc = pc;
    return true;
  };
  switch (i.op) {
    case Op::BRA:
      if (i.exec == i.active) {
        d.next_pc = target_of(i);
      } else if (i.exec != 0 && push(StackKind::Div, i.active & ~i.exec, i.pc + 1)) {
        d.next_active = i.exec;
        d.next_pc = target_of(i);
      }
      break;
    case Op::SSY:
      if (uniform()) push(StackKind::Sync, i.active, target_of(i));
      break;
    case Op::PBK:
      if (uniform()) push(StackKind::Brk, i.active, target_of(i));
      break;
    case Op::CAL:
      if (uniform() && push(StackKind::Ret, i.active, i.pc + 1)) d.next_pc = target_of(i);
      break;
    case Op::SYNC:
      if (!uniform()) break;
      if (empty) d.fault = fault_code(FaultKind::StackUnderflow);
      else d.pop = true;
      break;
    case Op::BRK:
    case Op::RET:
      if (i.exec == 0) break;
      if (empty) d.fault = fault_code(FaultKind::StackUnderflow);
      else d.leave_kind = kind_code(i.op == Op::BRK ? StackKind::Brk : StackKind::Ret);
      break;
    case Op::EXIT:
      if (i.exec == 0) break;
      d.next_live = i.live & ~i.exec;
      d.next_active = i.active & ~i.exec;
      if (!empty) d.exit = true;                            // the exited lanes leave every entry
      else if ((i.active & ~i.exec) == 0) d.next_pc = i.pc + 1;  // the warp ends
      break;
    case Op::TRAP:
      if (i.exec != 0) d.fault = fault_code(FaultKind::Trap);
      break;
    default: break;  // NOP
  }
  return d;
}

std::string describe(const Decision& d) {
  std::string s;
  if (d.fault) s += fmt::format(" fault {}", *d.fault);
  if (d.push_kind) s += fmt::format(" push {{{}, {:#010x}, {}}}", *d.push_kind, d.push_mask, d.push_pc);
  if (d.pop) s += " pop";
  if (d.leave_kind) s += fmt::format(" leave {}", *d.leave_kind);
  if (d.exit) s += " exit";
  if (d.next_pc) s += fmt::format(" pc {}", *d.next_pc);
  if (d.next_active) s += fmt::format(" active {:#010x}", *d.next_active);
  if (d.next_live) s += fmt::format(" live {:#010x}", *d.next_live);
  return s.empty() ? " nothing" : s;
}

class Branch : public ::testing::Test {
 protected:
  explicit Branch(const std::string& plusargs = "") : unit_(plusargs) {}

  Decision apply(const Insn& i) {
    dut_->opcode_i = static_cast<uint8_t>(i.op);
    dut_->target_i = i.target;
    dut_->pc_i = i.pc;
    dut_->exec_i = i.exec;
    dut_->active_i = i.active;
    dut_->live_i = i.live;
    dut_->depth_i = i.depth;
    dut_->eval();
    Decision d;
    if (dut_->fault_o) d.fault = dut_->fault_kind_o;
    if (dut_->push_o) {
      d.push_kind = dut_->push_kind_o;
      d.push_mask = dut_->push_mask_o;
      d.push_pc = dut_->push_pc_o;
    }
    d.pop = dut_->pop_o;
    if (dut_->leave_o) d.leave_kind = dut_->leave_kind_o;
    d.exit = dut_->exit_o;
    if (dut_->next_pc_valid_o) d.next_pc = dut_->next_pc_o;
    if (dut_->next_active_valid_o) d.next_active = dut_->next_active_o;
    if (dut_->next_live_valid_o) d.next_live = dut_->next_live_o;
    EXPECT_EQ(dut_->target_o, target_of(i)) << "the branch target";
    return d;
  }

  static Insn random_insn(std::mt19937& rng) {
    static constexpr Op kOps[] = {Op::BRA, Op::BRA, Op::BRA, Op::SSY, Op::PBK, Op::CAL, Op::SYNC,
                                  Op::BRK, Op::RET,  Op::EXIT, Op::EXIT, Op::TRAP, Op::NOP};
    Insn i;
    i.op = kOps[rng() % std::size(kOps)];
    i.target = rng() & 0xFF'FFFF;
    i.pc = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) : rng() % 4096;
    i.live = static_cast<uint32_t>(rng()) | (1u << (rng() % 32));
    i.active = i.live & (rng() % 2 ? 0xFFFF'FFFFu : static_cast<uint32_t>(rng()));
    if (i.active == 0) i.active = i.live;
    switch (rng() % 4) {  // the guard: every active lane, none, some
      case 0: i.exec = i.active; break;
      case 1: i.exec = 0; break;
      default: i.exec = i.active & static_cast<uint32_t>(rng()); break;
    }
    switch (rng() % 4) {
      case 0: i.depth = 0; break;
      case 1: i.depth = kDepth; break;
      default: i.depth = rng() % (kDepth + 1); break;
    }
    return i;
  }

  /// Random instructions against the rules; returns how many disagreed.
  unsigned random_run(unsigned cases, uint32_t seed, bool stop_at_first = false) {
    std::mt19937 rng(seed);
    unsigned bad = 0;
    for (unsigned n = 0; n < cases; ++n) {
      const Insn i = random_insn(rng);
      const Decision want = reference(i);
      const Decision got = apply(i);
      if (got == want) continue;
      ++bad;
      ADD_FAILURE() << fmt::format("case {}: opcode {:#04x} exec {:#010x} active {:#010x} depth {}: got{}, want{}", n,
                                   static_cast<unsigned>(i.op), i.exec, i.active, i.depth, describe(got), describe(want));
      if (stop_at_first || bad > 10) return bad;
    }
    return bad;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

TEST_F(Branch, MatchesTheGoldenRules) { EXPECT_EQ(random_run(TSM_RANDOM_CASES, 1), 0u); }

Insn bra(uint32_t exec, unsigned depth = 0) {
  Insn i;
  i.op = Op::BRA;
  i.pc = 100;
  i.target = 0xFF'FFF6;  // -10: a loop's back edge
  i.live = i.active = 0xFFFF'FFFF;
  i.exec = exec;
  i.depth = depth;
  return i;
}

TEST_F(Branch, BranchesUniformAndDivergent) {
  EXPECT_EQ(apply(bra(0xFFFF'FFFF)).next_pc, 90u) << "taken by every lane: the target, nothing pushed";
  const Decision none = apply(bra(0));
  EXPECT_FALSE(none.next_pc) << "taken by no lane: the next instruction";
  EXPECT_FALSE(none.push_kind);
  const Decision split = apply(bra(0x0000'FFFF));
  ASSERT_TRUE(split.push_kind) << "a divergent branch pushes the other lanes";
  EXPECT_EQ(*split.push_kind, kind_code(StackKind::Div));
  EXPECT_EQ(split.push_mask, 0xFFFF'0000u) << "the lanes that did not take it";
  EXPECT_EQ(split.push_pc, 101u) << "they resume after the branch";
  EXPECT_EQ(split.next_active, 0x0000'FFFFu);
  EXPECT_EQ(split.next_pc, 90u);
  EXPECT_EQ(apply(bra(0x0000'FFFF, kDepth)).fault, fault_code(FaultKind::StackOverflow)) << "a full stack";
  EXPECT_FALSE(apply(bra(0xFFFF'FFFF, kDepth)).fault) << "a uniform branch needs no entry";
}

TEST_F(Branch, WarpLevelInstructionsNeedEveryActiveLane) {
  Insn i = bra(0x0000'00FF);
  i.op = Op::SSY;
  EXPECT_EQ(apply(i).fault, fault_code(FaultKind::InvalidInstruction));
  i.exec = i.active;
  EXPECT_EQ(apply(i).push_kind, kind_code(StackKind::Sync));
  i.op = Op::SYNC;
  EXPECT_EQ(apply(i).fault, fault_code(FaultKind::StackUnderflow)) << "SYNC on an empty stack";
  i.depth = 1;
  EXPECT_TRUE(apply(i).pop);
  i.exec = 0;
  EXPECT_EQ(apply(i), Decision{}) << "no lane executes it: nothing";
}

TEST_F(Branch, CallBreakReturnExit) {
  Insn i = bra(0xFFFF'FFFF);
  i.op = Op::CAL;
  const Decision call = apply(i);
  EXPECT_EQ(call.push_kind, kind_code(StackKind::Ret));
  EXPECT_EQ(call.push_pc, 101u) << "the return address";
  EXPECT_EQ(call.next_pc, 90u);
  i.op = Op::BRK;
  i.exec = 0x0000'0003;
  i.depth = 2;
  EXPECT_EQ(apply(i).leave_kind, kind_code(StackKind::Brk)) << "some lanes break out of a loop";
  i.op = Op::RET;
  EXPECT_EQ(apply(i).leave_kind, kind_code(StackKind::Ret));
  i.depth = 0;
  EXPECT_EQ(apply(i).fault, fault_code(FaultKind::StackUnderflow)) << "RET without CAL";
  i.op = Op::EXIT;
  const Decision exit = apply(i);
  EXPECT_EQ(exit.next_live, 0xFFFF'FFFCu) << "the exiting lanes die";
  EXPECT_EQ(exit.next_active, 0xFFFF'FFFCu);
  EXPECT_FALSE(exit.next_pc) << "the others go on";
  i.exec = i.active;
  EXPECT_EQ(apply(i).next_pc, 101u) << "the whole warp exits";
  i.depth = 1;
  EXPECT_TRUE(apply(i).exit) << "inside a divergent region: the stack walk decides";
  i.op = Op::TRAP;
  EXPECT_EQ(apply(i).fault, fault_code(FaultKind::Trap));
}

#ifdef TSM_UNIT_MUTANTS
// The branch unit's deliberate bug (mutant 6, a divergent branch pushes every active lane), with
// +tsm+mutant=6.
class BranchMutant : public Branch {
 protected:
  BranchMutant() : Branch("+tsm+mutant=6") {}
};

TEST_F(BranchMutant, WholeMaskPushIsCaught) {
  const unsigned bad = tsm::rtltest::expecting_mismatches([&] { return random_run(2000, 7, true); });
  EXPECT_GT(bad, 0u) << "mutant 6 went unnoticed";
}
#endif

}  // namespace
