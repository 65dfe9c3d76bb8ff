// The warp scheduler (rtl/sm/tsm_warp_sched.sv with its policies tsm_sched_lrr and tsm_sched_gto),
// as Verilated RTL or as the Yosys netlist of it, against a C++ statement of each policy
// (docs/sm-rtl.md §2.3) clock by clock under random readiness, holds, placements and takes; and
// the properties a user relies on: loose round-robin is fair (every warp that stays ready is chosen
// within Warps choices), greedy-then-oldest stays on one warp while it is ready and then falls
// back to the warp that became resident first. The RTL build also carries the scheduler's
// deliberate bugs (rtl/mutants/mutants.json), and each must be caught here.
#include <gtest/gtest.h>

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

constexpr unsigned kWarps = 6;  // not a power of two: the round-robin wraps at 6, not 8
constexpr uint32_t kLrr = 0, kGto = 1;

/// What the scheduler should do, written from docs/sm-rtl.md §2.3 rather than from the RTL.
class Reference {
 public:
  struct Choice {
    bool valid = false;
    unsigned warp = 0;
  };
  Choice choose(uint32_t policy, uint32_t ready, bool hold, unsigned hold_warp) const {
    uint32_t candidates = ready & ((1u << kWarps) - 1);
    if (hold) candidates &= ~(1u << hold_warp);
    Choice c;
    if (policy == kGto) {
      if (candidates >> last_ & 1) return {true, last_};
      if (hold && hold_warp == last_) return c;  // wait a clock for the greedy warp
      // The oldest candidate: the one placed first (never placed counts as oldest of all).
      for (unsigned w = 0; w < kWarps; ++w) {
        if (!(candidates >> w & 1)) continue;
        if (!c.valid || stamp_[w] < stamp_[c.warp]) c = {true, w};
      }
      return c;
    }
    for (unsigned i = 1; i <= kWarps; ++i) {
      const unsigned w = (last_ + i) % kWarps;
      if (candidates >> w & 1) return {true, w};
    }
    return c;
  }
  void clock(bool place, unsigned place_warp, bool take, unsigned chosen) {
    if (take) last_ = chosen;
    if (place) stamp_[place_warp] = ++now_;
  }

 private:
  unsigned last_ = kWarps - 1;
  uint64_t now_ = 0;
  std::vector<uint64_t> stamp_ = std::vector<uint64_t>(kWarps, 0);
};

class WarpSched : public ::testing::Test {
 protected:
  explicit WarpSched(const std::string& plusargs = "") : unit_(plusargs) {
    // An edge of the asynchronous reset.
    tsm::rtltest::reset(*dut_);
  }

  struct Inputs {
    uint32_t policy = kLrr;
    uint32_t ready = 0;
    bool hold = false;
    unsigned hold_warp = 0;
    bool place = false;
    unsigned place_warp = 0;
  };
  /// Applies `in`, returns this clock's choice, then clocks with take_i = `take` (only when there is
  /// a choice).
  Reference::Choice step(const Inputs& in, bool take) {
    dut_->policy_i = in.policy;
    dut_->ready_i = in.ready;
    dut_->hold_valid_i = in.hold;
    dut_->hold_warp_i = in.hold_warp;
    dut_->place_i = in.place;
    dut_->place_warp_i = in.place_warp;
    dut_->take_i = 0;
    dut_->eval();
    const Reference::Choice got{dut_->choice_valid_o != 0, dut_->choice_warp_o};
    dut_->take_i = take && got.valid;
    dut_->eval();
    dut_->clk_i = 1;
    dut_->eval();
    dut_->clk_i = 0;
    dut_->eval();
    return got;
  }

  /// Random clocks against the reference; returns the number of clocks that disagreed.
  unsigned random_run(uint32_t policy, unsigned clocks, uint32_t seed, bool stop_at_first = false) {
    std::mt19937 rng(seed);
    Reference ref;
    unsigned bad = 0;
    for (unsigned t = 0; t < clocks; ++t) {
      Inputs in;
      in.policy = policy;
      // Mostly dense readiness, sometimes sparse: both the greedy and the fall-back paths run.
      in.ready = rng() % 4 == 0 ? rng() & rng() : rng() | rng();
      in.ready &= (1u << kWarps) - 1;
      in.hold = rng() % 3 == 0;
      in.hold_warp = rng() % kWarps;
      in.place = rng() % 8 == 0;
      in.place_warp = rng() % kWarps;
      const bool take = rng() % 4 != 0;
      const Reference::Choice want = ref.choose(policy, in.ready, in.hold, in.hold_warp);
      const Reference::Choice got = step(in, take);
      if (got.valid != want.valid || (want.valid && got.warp != want.warp)) {
        ++bad;
        ADD_FAILURE() << fmt::format("clock {} policy {}: ready {:#04x} hold {}:{} -> got {}:{}, want {}:{}", t, policy, in.ready,
                                     in.hold, in.hold_warp, got.valid, got.warp, want.valid, want.warp);
        if (stop_at_first || bad > 10) return bad;
      }
      ref.clock(in.place, in.place_warp, take && want.valid, want.warp);
    }
    return bad;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

TEST_F(WarpSched, LooseRoundRobinMatchesTheRule) { EXPECT_EQ(random_run(kLrr, TSM_RANDOM_CASES, 1), 0u); }

TEST_F(WarpSched, GreedyThenOldestMatchesTheRule) { EXPECT_EQ(random_run(kGto, TSM_RANDOM_CASES, 2), 0u); }

TEST_F(WarpSched, UnknownPolicyValuesScheduleRoundRobin) {
  for (uint32_t policy : {2u, 7u, 15u}) {
    Reference ref;
    for (unsigned t = 0; t < 50; ++t) {
      const uint32_t ready = (t * 37 + 11) % 64;
      const auto want = ref.choose(kLrr, ready, false, 0);
      const auto got = step({policy, ready}, true);
      ASSERT_EQ(got.valid, want.valid) << fmt::format("policy {} clock {}", policy, t);
      if (want.valid) ASSERT_EQ(got.warp, want.warp) << fmt::format("policy {} clock {}", policy, t);
      ref.clock(false, 0, want.valid, want.warp);
    }
  }
}

// Every warp ready all the time: each is chosen exactly once in every kWarps choices, in slot order.
TEST_F(WarpSched, RoundRobinIsFair) {
  std::vector<unsigned> order;
  for (unsigned t = 0; t < 4 * kWarps; ++t) {
    const auto c = step({kLrr, (1u << kWarps) - 1}, true);
    ASSERT_TRUE(c.valid);
    order.push_back(c.warp);
  }
  for (unsigned t = 0; t < order.size(); ++t) EXPECT_EQ(order[t], t % kWarps) << "choice " << t;
}

// Whatever the other warps do, a warp that stays ready is chosen within kWarps choices.
TEST_F(WarpSched, RoundRobinStarvesNoReadyWarp) {
  std::mt19937 rng(3);
  for (unsigned victim = 0; victim < kWarps; ++victim) {
    unsigned since = 0;
    for (unsigned t = 0; t < 2000; ++t) {
      const uint32_t ready = (rng() | 1u << victim) & ((1u << kWarps) - 1);
      const auto c = step({kLrr, ready}, true);
      ASSERT_TRUE(c.valid);
      since = c.warp == victim ? 0 : since + 1;
      ASSERT_LT(since, kWarps) << fmt::format("warp {} waited {} choices at clock {}", victim, since, t);
    }
  }
}

// Warps placed in the order 4, 1, 3, 0: greedy-then-oldest keeps the warp it chose while it is
// ready (even with older ones ready), waits while the engine holds it, and then takes the oldest.
TEST_F(WarpSched, GreedyThenOldestKeepsItsWarpThenTakesTheOldest) {
  for (unsigned w : {4u, 1u, 3u, 0u}) step({kGto, 0, false, 0, true, w}, false);
  const uint32_t all = 1u << 4 | 1u << 1 | 1u << 3 | 1u << 0;
  auto c = step({kGto, all}, true);  // the last warp (5 after reset) is not ready: the oldest, 4
  ASSERT_TRUE(c.valid);
  EXPECT_EQ(c.warp, 4u);
  for (unsigned t = 0; t < 20; ++t) {  // greedy: 4 again and again
    c = step({kGto, all}, true);
    ASSERT_TRUE(c.valid);
    EXPECT_EQ(c.warp, 4u);
  }
  c = step({kGto, all, true, 4}, false);  // the engine holds warp 4: wait for it
  EXPECT_FALSE(c.valid);
  c = step({kGto, all & ~(1u << 4)}, true);  // 4 stalls: the oldest ready is 1
  ASSERT_TRUE(c.valid);
  EXPECT_EQ(c.warp, 1u);
  c = step({kGto, all}, true);  // 4 is ready again, but greedy stays on 1
  EXPECT_EQ(c.warp, 1u);
  c = step({kGto, 1u << 3 | 1u << 0}, true);  // 1 and 4 stall: 3 is older than 0
  EXPECT_EQ(c.warp, 3u);
  step({kGto, 0, false, 0, true, 4}, false);  // 4 is placed again (a new block): now the youngest
  c = step({kGto, 1u << 4 | 1u << 0}, true);  // 3 stalls: 0 is older than the new 4
  EXPECT_EQ(c.warp, 0u);
}

#ifdef TSM_UNIT_MUTANTS
// The scheduler's deliberate bugs (rtl/mutants/mutants.json), switched on with +tsm+mutant=N: the
// random comparison above must see each one. One model a process (ctest runs each test alone).
class WarpSchedMutant : public WarpSched, public ::testing::WithParamInterface<unsigned> {
 protected:
  WarpSchedMutant() : WarpSched(fmt::format("+tsm+mutant={}", GetParam())) {}
};

TEST_P(WarpSchedMutant, IsCaught) {
  const unsigned bad = tsm::rtltest::expecting_mismatches([&] { return random_run(kLrr, 5000, 11, true) + random_run(kGto, 5000, 12, true); });
  EXPECT_GT(bad, 0u) << "mutant " << GetParam() << " went unnoticed";
}
INSTANTIATE_TEST_SUITE_P(Scheduler, WarpSchedMutant, ::testing::Values(13u, 14u));
#endif

}  // namespace
