// The barrier unit (rtl/sm/tsm_barrier.sv), as Verilated RTL or as the Yosys netlist of it, against
// the golden model's barrier rules (sim/golden/execute.cpp Exec::barrier, model.cpp try_release),
// restated here: a barrier waits for its thread count rounded up to warps, or, with count 0, for
// every warp of the block that has not exited; the first arrival names the count and the
// reduction; BAR.RED counts, ANDs or ORs the arriving lanes' predicates; a warp's exit can complete
// a barrier the others wait at. Random blocks of warps arrive and exit clock by clock, and the
// directed cases pin what a kernel relies on. The RTL build also carries the barrier's deliberate
// bug (rtl/mutants/mutants.json, mutant 8), which must be caught here.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER
#include "unit_driver.hpp"

namespace {

constexpr unsigned kBlocks = 3;  // not a power of two
constexpr unsigned kBarriers = 16;
constexpr uint32_t kPopc = 0, kAnd = 1, kOr = 2;  // tsm_isa_pkg::REDOP_*

/// One barrier as the golden model keeps it.
struct Barrier {
  unsigned arrived = 0;
  uint32_t thread_count = 0;
  uint32_t redop = kPopc;
  uint32_t popc = 0;
  bool all = true;
  bool any = false;
  unsigned expected(unsigned unfinished) const { return thread_count ? (thread_count + 31) / 32 : unfinished; }
  uint32_t value() const { return redop == kPopc ? popc : redop == kAnd ? uint32_t{all} : uint32_t{any}; }
};

struct Arrival {
  bool reduce = false;
  uint32_t redop = kPopc;
  uint32_t count = 0;
  uint32_t lanes = 0xFFFF'FFFF;
  uint32_t votes = 0;
};

struct Decision {
  bool release = false;
  uint32_t value = 0;
  unsigned arrived = 0;
};

class BarrierUnit : public ::testing::Test {
 protected:
  explicit BarrierUnit(const std::string& plusargs = "") : unit_(plusargs) {
    dut_->clk_i = 0;
    dut_->eval();
    // Records start empty, as block placement leaves them.
    for (unsigned b = 0; b < kBlocks; ++b) clear_block(b);
  }

  void idle_inputs(unsigned block, unsigned barrier) {
    dut_->block_i = block;
    dut_->barrier_i = barrier;
    dut_->clear_i = 0;
    dut_->arrive_i = 0;
    dut_->arrive_reduce_i = 0;
    dut_->arrive_redop_i = 0;
    dut_->arrive_count_i = 0;
    dut_->arrive_lanes_i = 0;
    dut_->arrive_votes_i = 0;
    dut_->arrive_unfinished_i = 0;
    dut_->check_unfinished_i = 0;
  }
  void clock() { tsm::rtltest::clock(*dut_); }
  void clear_block(unsigned block) {
    for (unsigned id = 0; id < kBarriers; ++id) {
      idle_inputs(block, id);
      dut_->clear_i = 1;
      clock();
    }
  }
  void clear(unsigned block, unsigned id) {
    idle_inputs(block, id);
    dut_->clear_i = 1;
    clock();
  }
  /// A warp arrives at barrier `id` of `block`: the record is read, then updated. Returns the unit's
  /// decision.
  Decision arrive(unsigned block, unsigned id, const Arrival& a, unsigned unfinished) {
    idle_inputs(block, id);
    clock();
    dut_->arrive_i = 1;
    dut_->arrive_reduce_i = a.reduce;
    dut_->arrive_redop_i = a.redop;
    dut_->arrive_count_i = a.count;
    dut_->arrive_lanes_i = a.lanes;
    dut_->arrive_votes_i = a.votes;
    dut_->arrive_unfinished_i = unfinished;
    dut_->eval();
    const Decision d{dut_->arrive_release_o != 0, dut_->arrive_value_o, dut_->arrive_count_o};
    clock();
    return d;
  }
  /// After an exit: is barrier `id` of `block` complete with `unfinished` warps left?
  Decision check(unsigned block, unsigned id, unsigned unfinished) {
    idle_inputs(block, id);
    clock();
    idle_inputs(0, 0);
    dut_->check_unfinished_i = unfinished;
    dut_->eval();
    const Decision d{dut_->check_release_o != 0, dut_->check_value_o, 0};
    clock();
    return d;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

/// The reference's side of an arrival (Exec::barrier, then try_release).
Decision reference_arrive(Barrier& bar, const Arrival& a, unsigned unfinished) {
  if (bar.arrived == 0) {
    bar.thread_count = a.count;
    bar.redop = a.reduce ? a.redop : kPopc;
  }
  ++bar.arrived;
  if (a.reduce) {
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!(a.lanes >> lane & 1)) continue;
      const bool p = a.votes >> lane & 1;
      bar.popc += p;
      bar.all = bar.all && p;
      bar.any = bar.any || p;
    }
  }
  return {bar.arrived >= bar.expected(unfinished), bar.value(), bar.arrived};
}

Decision reference_check(const Barrier& bar, unsigned unfinished) {
  return {bar.arrived != 0 && bar.arrived >= bar.expected(unfinished), bar.value(), 0};
}

struct RandomRun : BarrierUnit {
  explicit RandomRun(const std::string& plusargs = "") : BarrierUnit(plusargs) {}

  /// Blocks of 1..24 warps arrive at random barriers and exit; every decision is compared with the
  /// reference; a completed barrier is cleared, as the SM does after releasing its warps. Returns the
  /// number of decisions that disagreed.
  unsigned run(unsigned events, uint32_t seed, bool stop_at_first = false) {
    std::mt19937 rng(seed);
    struct Block {
      unsigned unfinished = 0;
      std::array<Barrier, kBarriers> bars{};
    };
    std::array<Block, kBlocks> blocks{};
    const auto place = [&](unsigned b) {
      clear_block(b);
      blocks[b] = Block{};
      blocks[b].unfinished = 1 + rng() % 24;
    };
    for (unsigned b = 0; b < kBlocks; ++b) place(b);
    unsigned bad = 0;
    const auto compare = [&](const char* what, unsigned b, unsigned id, const Decision& got, const Decision& want,
                             bool with_count) {
      if (got.release == want.release && (!want.release || got.value == want.value) &&
          (!with_count || got.arrived == want.arrived))
        return true;
      ++bad;
      ADD_FAILURE() << fmt::format("{} at block {} barrier {}: got release {} value {} arrived {}, want {} {} {}", what, b, id,
                                   got.release, got.value, got.arrived, want.release, want.value, want.arrived);
      return false;
    };
    for (unsigned e = 0; e < events; ++e) {
      const unsigned b = rng() % kBlocks;
      Block& blk = blocks[b];
      const unsigned kind = rng() % 16;
      if (blk.unfinished == 0 || kind == 0) {
        place(b);  // a new block in the slot
      } else if (kind < 3) {
        // A warp exits: every barrier of the block is checked, as the SM does.
        --blk.unfinished;
        for (unsigned id = 0; id < kBarriers; ++id) {
          const Decision want = reference_check(blk.bars[id], blk.unfinished);
          const Decision got = check(b, id, blk.unfinished);
          if (!compare("check", b, id, got, want, false) && (stop_at_first || bad > 10)) return bad;
          if (want.release) {
            clear(b, id);
            blk.bars[id] = Barrier{};
          }
        }
      } else {
        // A warp arrives (no more warps than the block has).
        const unsigned id = rng() % 4 == 0 ? rng() % kBarriers : rng() % 2;  // mostly barriers 0 and 1
        Barrier& bar = blk.bars[id];
        if (bar.arrived >= blk.unfinished) continue;
        Arrival a;
        a.reduce = rng() % 3 == 0;
        a.redop = rng() % 3;
        a.count = rng() % 3 == 0 ? 32 * (1 + rng() % blk.unfinished) : 0;
        a.lanes = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) | 1u : 0xFFFF'FFFFu;
        a.votes = a.lanes & (rng() % 4 == 0 ? a.lanes : rng() % 4 == 0 ? 0u : static_cast<uint32_t>(rng()));
        const Decision want = reference_arrive(bar, a, blk.unfinished);
        const Decision got = arrive(b, id, a, blk.unfinished);
        if (!compare("arrival", b, id, got, want, true) && (stop_at_first || bad > 10)) return bad;
        if (want.release) {
          clear(b, id);
          bar = Barrier{};
        }
      }
    }
    return bad;
  }
};

TEST_F(RandomRun, MatchesTheGoldenRules) { EXPECT_EQ(run(TSM_RANDOM_CASES, 1), 0u); }

// BAR.SYNC 0 with a thread count of 0 waits for every warp of the block.
TEST_F(BarrierUnit, ReleasesWhenEveryWarpArrived) {
  for (unsigned w = 1; w <= 4; ++w) {
    const Decision d = arrive(1, 3, {}, 4);
    EXPECT_EQ(d.arrived, w);
    EXPECT_EQ(d.release, w == 4) << "after " << w << " of 4 warps";
  }
}

// Exited warps are not waited for, whether they exit before the others arrive or while they wait.
TEST_F(BarrierUnit, ExitedWarpsAreNotWaitedFor) {
  EXPECT_FALSE(arrive(0, 0, {}, 4).release);
  EXPECT_FALSE(arrive(0, 0, {}, 4).release);
  EXPECT_FALSE(check(0, 0, 3).release) << "two of three arrived";
  const Decision d = check(0, 0, 2);
  EXPECT_TRUE(d.release) << "two of two arrived";
  clear(0, 0);
  // A block of 4 whose warp 3 exited first: three arrivals complete the barrier.
  EXPECT_FALSE(arrive(0, 1, {}, 3).release);
  EXPECT_FALSE(arrive(0, 1, {}, 3).release);
  EXPECT_TRUE(arrive(0, 1, {}, 3).release);
  // A barrier no warp waits at is never complete, however few warps are left.
  EXPECT_FALSE(check(0, 2, 0).release);
  EXPECT_FALSE(check(0, 2, 1).release);
}

// bar.sync 1, 64: two warps, however many the block has; the first arrival's count holds.
TEST_F(BarrierUnit, ThreadCountNamesTheWarps) {
  Arrival a;
  a.count = 64;
  EXPECT_FALSE(arrive(2, 1, a, 8).release);
  a.count = 256;  // a later arrival's count is the first's
  EXPECT_TRUE(arrive(2, 1, a, 8).release);
}

// BAR.RED.POPC, .AND, .OR over the arriving lanes' predicates (lanes that do not execute do not vote).
TEST_F(BarrierUnit, ReductionsOverTheArrivingLanes) {
  Arrival a;
  a.reduce = true;
  a.redop = kPopc;
  a.lanes = 0x0000'FFFF;
  a.votes = 0x0000'00FF;
  arrive(0, 5, a, 2);
  a.lanes = 0xFFFF'FFFF;
  a.votes = 0x8000'0001;
  Decision d = arrive(0, 5, a, 2);
  EXPECT_TRUE(d.release);
  EXPECT_EQ(d.value, 10u);
  clear(0, 5);
  a.redop = kAnd;
  a.lanes = 0x0000'000F;
  a.votes = 0x0000'000F;
  arrive(0, 5, a, 2);
  a.votes = 0x0000'0007;
  d = arrive(0, 5, a, 2);
  EXPECT_EQ(d.value, 0u) << "one lane false: AND is 0";
  clear(0, 5);
  a.votes = 0x0000'000F;
  arrive(0, 5, a, 2);
  EXPECT_EQ(arrive(0, 5, a, 2).value, 1u) << "every executing lane true: AND is 1";
  clear(0, 5);
  a.redop = kOr;
  a.votes = 0;
  arrive(0, 5, a, 2);
  EXPECT_EQ(arrive(0, 5, a, 2).value, 0u);
  clear(0, 5);
  arrive(0, 5, a, 2);
  a.votes = 0x0000'0004;
  EXPECT_EQ(arrive(0, 5, a, 2).value, 1u);
}

// Each block slot has its own 16 barriers: arrivals elsewhere do not count.
TEST_F(BarrierUnit, BlocksAndBarriersAreIndependent) {
  arrive(1, 2, {}, 2);
  arrive(2, 2, {}, 2);
  arrive(1, 3, {}, 2);
  EXPECT_FALSE(check(1, 2, 2).release);
  EXPECT_TRUE(arrive(1, 2, {}, 2).release);
  EXPECT_FALSE(check(2, 2, 2).release) << "block 2's barrier 2 has one arrival";
}

#ifdef TSM_UNIT_MUTANTS
// The barrier's deliberate bug (mutant 8, a release one warp early), switched on with +tsm+mutant=8.
class BarrierMutant : public RandomRun {
 protected:
  BarrierMutant() : RandomRun("+tsm+mutant=8") {}
};

TEST_F(BarrierMutant, EarlyReleaseIsCaught) {
  const unsigned bad = tsm::rtltest::expecting_mismatches([&] { return run(2000, 5, true); });
  EXPECT_GT(bad, 0u) << "mutant 8 went unnoticed";
}
#endif

}  // namespace
