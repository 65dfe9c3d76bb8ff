// The reconvergence (SIMT) stack (rtl/sm/tsm_simt_stack.sv), as Verilated RTL or as the Yosys
// netlist of it, against the golden model's rules restated in C++ (sim/golden/execute.cpp
// Exec::control, model.cpp pop_until_active and leave): random control flow of several warps —
// divergent branches, SSY/SYNC, PBK/BRK, CAL/RET and EXIT — with the warp's active lanes, PC and
// stack depth compared after every instruction, and the walks' clock counts pinned. The RTL build
// also carries the stack's deliberate bug (rtl/mutants/mutants.json, mutant 5), which must be
// caught here.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER
#include "unit_driver.hpp"

namespace {

constexpr unsigned kWarps = 3, kDepth = 6;  // neither a power of two
enum Kind : uint32_t { kSync = 0, kDiv = 1, kBrk = 2, kRet = 3 };

struct Entry {
  uint32_t kind, mask, pc;
};

/// One warp as the golden model keeps it.
struct Warp {
  std::vector<Entry> stack;
  uint32_t active = 0, live = 0, pc = 0;
  void pop_until_active() {
    while (active == 0 && !stack.empty()) {
      const Entry e = stack.back();
      stack.pop_back();
      active = e.mask & live;
      pc = e.pc;
    }
  }
};

class SimtStack : public ::testing::Test {
 protected:
  explicit SimtStack(const std::string& plusargs = "") : unit_(plusargs) {
    tsm::rtltest::reset(*dut_);
  }

  void quiet() {
    dut_->clear_i = 0;
    dut_->push_i = 0;
    dut_->pop_i = 0;
    dut_->leave_i = 0;
    dut_->exit_i = 0;
  }
  void clock() { tsm::rtltest::clock(*dut_); }
  unsigned depth(unsigned warp) const {
    constexpr unsigned bits = 3;  // DepthBits
    return static_cast<unsigned>(dut_->depth_o >> (bits * warp) & ((1u << bits) - 1));
  }
  void clear(unsigned warp) {
    quiet();
    dut_->clear_i = 1;
    dut_->clear_warp_i = warp;
    clock();
    quiet();
  }
  void push(unsigned warp, const Entry& e) {
    quiet();
    EXPECT_TRUE(dut_->idle_o);
    dut_->warp_i = warp;
    dut_->push_i = 1;
    dut_->push_kind_i = e.kind;
    dut_->push_mask_i = e.mask;
    dut_->push_pc_i = e.pc;
    clock();
    quiet();
  }

  struct Walk {
    bool fault = false;
    std::optional<uint32_t> active, pc;  // the last values the walk gave
    unsigned clocks = 0;                 // from the command to the clock with done or fault
  };
  /// Starts a walk in the clock of the command (as the engine's E_CT does) and runs it to its end.
  Walk walk(unsigned warp, char what, uint32_t kind, uint32_t lanes, uint32_t active, uint32_t live, uint32_t pc) {
    quiet();
    EXPECT_TRUE(dut_->idle_o);
    dut_->warp_i = warp;
    dut_->lanes_i = lanes;
    dut_->active_i = active;
    dut_->live_i = live;
    dut_->pc_i = pc;
    dut_->leave_kind_i = kind;
    (what == 'p' ? dut_->pop_i : what == 'l' ? dut_->leave_i : dut_->exit_i) = 1;
    clock();
    quiet();
    Walk w;
    for (w.clocks = 1; w.clocks < 100; ++w.clocks) {
      dut_->eval();
      if (dut_->active_valid_o) w.active = dut_->active_o;
      if (dut_->pc_valid_o) w.pc = dut_->pc_o;
      if (dut_->done_o || dut_->fault_o) {
        w.fault = dut_->fault_o;
        clock();
        return w;
      }
      clock();
    }
    ADD_FAILURE() << "the walk did not end";
    return w;
  }

  /// Random control flow of kWarps warps against the reference; returns how many instructions
  /// disagreed.
  unsigned random_run(unsigned instructions, uint32_t seed, bool stop_at_first = false) {
    std::mt19937 rng(seed);
    std::array<Warp, kWarps> warps{};
    const auto start = [&](unsigned w) {
      clear(w);
      warps[w] = Warp{};
      warps[w].live = rng() % 4 ? 0xFFFF'FFFFu : static_cast<uint32_t>(rng()) | 1u;
      warps[w].active = warps[w].live;
      warps[w].pc = rng() % 1000;
    };
    for (unsigned w = 0; w < kWarps; ++w) start(w);
    unsigned bad = 0;
    for (unsigned n = 0; n < instructions; ++n) {
      const unsigned w = rng() % kWarps;
      Warp& ref = warps[w];
      if (ref.active == 0) {  // the warp has ended: a new one in its slot
        start(w);
        continue;
      }
      const uint32_t pc = ref.pc;
      // Some of the active lanes (never none).
      uint32_t some = ref.active & static_cast<uint32_t>(rng());
      if (some == 0 || rng() % 3 == 0) some = ref.active;
      const unsigned op = rng() % 10;
      const bool full = ref.stack.size() >= kDepth;
      std::string what;
      Walk got;
      Walk want;
      if (op < 4 && !full) {
        // A push: a divergent branch (the lanes that do not take it), SSY, PBK or CAL.
        const uint32_t kind = rng() % 4;
        Entry e{kind, kind == kDiv ? ref.active & ~some : ref.active, static_cast<uint32_t>(rng() % 1000)};
        if (kind == kDiv && e.mask == 0) continue;
        what = fmt::format("push {}", kind);
        push(w, e);
        ref.stack.push_back(e);
        if (kind == kDiv) ref.active = some;
        ref.pc = e.pc + 1;
      } else if (op < 6 && !ref.stack.empty()) {
        what = "SYNC";
        got = walk(w, 'p', 0, ref.active, ref.active, ref.live, pc);
        const Entry top = ref.stack.back();
        ref.stack.pop_back();
        ref.active = top.mask & ref.live;
        ref.pc = top.pc;
        ref.pop_until_active();
        want.active = ref.active;
        want.pc = ref.pc;
      } else if (op < 8 && !ref.stack.empty()) {
        const uint32_t kind = rng() % 2 ? kBrk : kRet;
        what = fmt::format("{} lanes {:#x}", kind == kBrk ? "BRK" : "RET", some);
        got = walk(w, 'l', kind, some, ref.active, ref.live, pc);
        int match = -1;
        for (int i = static_cast<int>(ref.stack.size()) - 1; i >= 0; --i)
          if (ref.stack[static_cast<unsigned>(i)].kind == kind) {
            match = i;
            break;
          }
        if (match < 0) {
          want.fault = true;  // the golden model's StackUnderflow: the warp ends with the fault
          for (auto& e : ref.stack) e.mask &= ~some;  // the walk took the lanes off every entry it passed
          ref.active = 0;
        } else {
          for (unsigned i = static_cast<unsigned>(match) + 1; i < ref.stack.size(); ++i) ref.stack[i].mask &= ~some;
          ref.active &= ~some;
          want.active = ref.active;
          if (ref.active == 0) {
            ref.pc = pc + 1;
            ref.pop_until_active();
            want.active = ref.active;
            want.pc = ref.pc;
          }
        }
      } else if (op == 8) {
        what = fmt::format("EXIT lanes {:#x}", some);
        const uint32_t live = ref.live & ~some;
        if (ref.stack.empty()) continue;  // the engine does not walk an empty stack
        got = walk(w, 'e', 0, some, ref.active, live, pc);
        ref.live = live;
        ref.active &= ~some;
        for (auto& e : ref.stack) e.mask &= ~some;
        if (ref.active == 0) {  // the stack is not empty: at least one pop
          ref.pc = pc + 1;
          ref.pop_until_active();
          want.active = ref.active;
          want.pc = ref.pc;
        }
      } else {
        continue;
      }
      // The RTL gives the active lanes and PC only where they change; compare what it gave, and
      // require it where the reference changed them.
      const bool ok = got.fault == want.fault &&
                      (want.fault || ((!want.active || (got.active && *got.active == *want.active)) &&
                                      (!want.pc || (got.pc && *got.pc == *want.pc)) && depth(w) == ref.stack.size()));
      if (!ok) {
        ++bad;
        ADD_FAILURE() << fmt::format("warp {} instruction {} ({}): got fault {} active {} pc {} depth {}; want fault {} active {} pc {} depth {}", w, n,
                                     what, got.fault, got.active ? fmt::format("{:#x}", *got.active) : "-",
                                     got.pc ? fmt::format("{}", *got.pc) : "-", depth(w), want.fault,
                                     want.active ? fmt::format("{:#x}", *want.active) : "-", want.pc ? fmt::format("{}", *want.pc) : "-",
                                     ref.stack.size());
        if (stop_at_first || bad > 10) return bad;
      }
      if (want.fault) start(w);
    }
    return bad;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

TEST_F(SimtStack, MatchesTheGoldenRules) { EXPECT_EQ(random_run(TSM_RANDOM_CASES, 1), 0u); }

// if/else: the branch pushes the lanes that do not take it, SYNC reconverges through the SSY entry.
TEST_F(SimtStack, IfElseReconverges) {
  push(0, {kSync, 0xFF, 50});               // SSY 50
  push(0, {kDiv, 0xF0, 11});                // BRA: lanes 0-3 take it, 4-7 wait at 11
  Walk w = walk(0, 'p', 0, 0x0F, 0x0F, 0xFF, 20);  // the taken side's SYNC
  EXPECT_EQ(*w.active, 0xF0u);
  EXPECT_EQ(*w.pc, 11u);
  EXPECT_EQ(depth(0), 1u);
  w = walk(0, 'p', 0, 0xF0, 0xF0, 0xFF, 30);       // the other side's SYNC
  EXPECT_EQ(*w.active, 0xFFu);
  EXPECT_EQ(*w.pc, 50u);
  EXPECT_EQ(depth(0), 0u);
  EXPECT_EQ(w.clocks, 2u) << "one entry: its address, then its use";
}

// A loop's BRK: lanes that break leave the entries above PBK's; when the last lanes break, the warp
// pops to the break target with every lane that broke.
TEST_F(SimtStack, BreakLeavesTheLoop) {
  push(1, {kBrk, 0xFF, 90});  // PBK 90
  push(1, {kSync, 0xFF, 40});  // SSY inside the loop
  Walk w = walk(1, 'l', kBrk, 0x03, 0xFF, 0xFF, 33);
  EXPECT_FALSE(w.fault);
  EXPECT_EQ(*w.active, 0xFCu);
  EXPECT_FALSE(w.pc) << "lanes remain: no jump";
  w = walk(1, 'l', kBrk, 0xFC, 0xFC, 0xFF, 34);
  EXPECT_EQ(*w.pc, 90u) << "SSY's entry has no lane left: popped on to PBK's";
  EXPECT_EQ(*w.active, 0xFFu);
  EXPECT_EQ(depth(1), 0u);
}

// RET without CAL, and BRK with only a RET entry, are underflows.
TEST_F(SimtStack, LeaveWithoutItsEntryFaults) {
  push(2, {kRet, 0xFF, 7});
  EXPECT_TRUE(walk(2, 'l', kBrk, 0x01, 0xFF, 0xFF, 3).fault);
}

// EXIT of some lanes inside an if: they leave every entry, and the rest reconverge without them.
TEST_F(SimtStack, ExitedLanesLeaveEveryEntry) {
  push(0, {kSync, 0xFF, 60});
  push(0, {kDiv, 0x0F, 21});
  Walk w = walk(0, 'e', 0, 0xF0, 0xF0, 0x0F, 30);  // the taken lanes 4-7 all exit
  EXPECT_EQ(*w.pc, 21u);
  EXPECT_EQ(*w.active, 0x0Fu);
  w = walk(0, 'p', 0, 0x0F, 0x0F, 0x0F, 25);
  EXPECT_EQ(*w.active, 0x0Fu) << "SSY's entry lost the exited lanes";
  EXPECT_EQ(*w.pc, 60u);
}

#ifdef TSM_UNIT_MUTANTS
// The stack's deliberate bug (mutant 5, a pop that does not lower the depth), with +tsm+mutant=5.
class SimtStackMutant : public SimtStack {
 protected:
  SimtStackMutant() : SimtStack("+tsm+mutant=5") {}
};

TEST_F(SimtStackMutant, LostPopIsCaught) {
  const unsigned bad = tsm::rtltest::expecting_mismatches([&] { return random_run(2000, 9, true); });
  EXPECT_GT(bad, 0u) << "mutant 5 went unnoticed";
}
#endif

}  // namespace
