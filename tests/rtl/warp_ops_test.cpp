// The warp-level operations (rtl/sm/tsm_warp_ops.sv), as Verilated RTL or as the Yosys netlist of
// it, against the golden model: SHFL's source lane and in-range predicate for every mode, lane,
// offset, clamp and segment mask through the golden model's own shfl_lane(); VOTE's ballot and
// results and S2R's special registers, the lane masks and the thread walk over blocks of every
// shape, restated in C++ from Exec::warp_op. Built with 8 lanes a row (g80's SP lanes).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER
#include "unit_driver.hpp"
#include "golden/shfl_lane.hpp"
#include "tsm/isa_gen.hpp"

namespace {

constexpr unsigned kLanes = 8, kRows = 32 / kLanes, kWarps = 24, kDimBits = 10;
namespace g = tsm::isa::gen;

using Shfl = tsm::golden::ShflLane;

/// SHFL's rule for one lane: the golden model's own (sim/golden/shfl_lane.hpp).
Shfl shfl_rule(g::Shfl mode, unsigned lane, uint32_t bval, uint32_t cval) { return tsm::golden::shfl_lane(mode, lane, bval, cval); }

class WarpOps : public ::testing::Test {
 protected:
  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

TEST_F(WarpOps, ShflMatchesTheRule) {
  std::mt19937 rng(1);
  unsigned bad = 0;
  for (unsigned c = 0; c < TSM_RANDOM_CASES && bad < 10; ++c) {
    const auto mode = static_cast<g::Shfl>(rng() % 4);
    const unsigned row = rng() % kRows;
    uint32_t b[kLanes], cv[kLanes];
    dut_->row_i = row;
    dut_->shfl_mode_i = static_cast<uint32_t>(mode);
    for (unsigned l = 0; l < kLanes; ++l) {
      // The usual operands (a clamp of 31 or a segment's last lane, segment masks of a power of two
      // less one, small offsets), with noise in the bits SHFL ignores.
      b[l] = rng() % 2 ? rng() % 32 : static_cast<uint32_t>(rng());
      const uint32_t width = 1u << (rng() % 6);  // 1 .. 32 lanes a segment
      const uint32_t clamp = rng() % 3 ? (mode == g::Shfl::UP ? 0 : 31) : rng() % 32;
      cv[l] = rng() % 4 ? (((32 - width) & 31) << 8 | clamp) : static_cast<uint32_t>(rng());
      dut_->shfl_b_i[l] = b[l];
      dut_->shfl_c_i[l] = cv[l];
    }
    dut_->eval();
    for (unsigned l = 0; l < kLanes; ++l) {
      const unsigned lane = row * kLanes + l;
      const Shfl want = shfl_rule(mode, lane, b[l], cv[l]);
      const unsigned got_source = dut_->shfl_source_o >> (5 * l) & 31;
      const bool got_ok = dut_->shfl_in_range_o >> l & 1;
      if (got_source != want.source || got_ok != want.in_range) {
        ++bad;
        ADD_FAILURE() << fmt::format("mode {} lane {} b {:#x} c {:#x}: got lane {} {}, want lane {} {}", static_cast<int>(mode), lane, b[l],
                                     cv[l], got_source, got_ok, want.source, want.in_range);
      }
    }
  }
  EXPECT_EQ(bad, 0u);
}

// __shfl_xor(v, 1) swaps neighbours; __shfl_up(v, 1) leaves lane 0 (and every segment's first lane)
// alone; __shfl_down(v, 1, 16) keeps each half's last lane; __shfl(v, 0, 8) reads each group of
// eight's first lane.
TEST_F(WarpOps, ShflCommonIdioms) {
  const auto run = [&](g::Shfl mode, uint32_t b, uint32_t c, unsigned lane) {
    dut_->row_i = lane / kLanes;
    dut_->shfl_mode_i = static_cast<uint32_t>(mode);
    for (unsigned l = 0; l < kLanes; ++l) {
      dut_->shfl_b_i[l] = b;
      dut_->shfl_c_i[l] = c;
    }
    dut_->eval();
    const unsigned l = lane % kLanes;
    return Shfl{static_cast<unsigned>(dut_->shfl_source_o >> (5 * l) & 31u), (dut_->shfl_in_range_o >> l & 1) != 0};
  };
  for (unsigned lane = 0; lane < 32; ++lane) {
    Shfl s = run(g::Shfl::BFLY, 1, 0x1F, lane);
    EXPECT_EQ(s.source, lane ^ 1);
    EXPECT_TRUE(s.in_range);
    s = run(g::Shfl::UP, 1, 0, lane);
    EXPECT_EQ(s.source, lane == 0 ? 0 : lane - 1);
    EXPECT_EQ(s.in_range, lane != 0);
    s = run(g::Shfl::DOWN, 1, 0x10 << 8 | 0xF, lane);  // width 16
    EXPECT_EQ(s.in_range, lane % 16 != 15) << lane;
    EXPECT_EQ(s.source, lane % 16 == 15 ? lane : lane + 1);
    s = run(g::Shfl::IDX, 0, 0x18 << 8 | 0x7, lane);  // width 8
    EXPECT_EQ(s.source, lane & ~7u);
    EXPECT_TRUE(s.in_range);
  }
}

TEST_F(WarpOps, Vote) {
  std::mt19937 rng(2);
  for (unsigned c = 0; c < 10000; ++c) {
    const uint32_t lanes = rng() % 4 ? 0xFFFF'FFFFu : static_cast<uint32_t>(rng());
    const uint32_t preds = rng() % 3 == 0 ? 0xFFFF'FFFFu : rng() % 3 == 0 ? 0u : static_cast<uint32_t>(rng());
    const uint32_t mode = rng() % 3;
    dut_->vote_mode_i = mode;
    dut_->vote_lanes_i = lanes;
    dut_->vote_predicates_i = preds;
    dut_->eval();
    const uint32_t ballot = lanes & preds;
    const bool want = mode == static_cast<uint32_t>(g::Vote::ALL)   ? ballot == lanes
                      : mode == static_cast<uint32_t>(g::Vote::ANY) ? ballot != 0
                                                                     : ballot == 0 || ballot == lanes;
    ASSERT_EQ(dut_->vote_ballot_o, ballot);
    ASSERT_EQ(dut_->vote_result_o != 0, want) << fmt::format("mode {} lanes {:#x} predicates {:#x}", mode, lanes, preds);
  }
}

TEST_F(WarpOps, S2rRegistersAndTheThreadWalk) {
  std::mt19937 rng(3);
  for (unsigned c = 0; c < 2000; ++c) {
    // A block shape, a warp of it, and its threads walked row by row from its first thread.
    const uint32_t bx = 1 + rng() % 40, by = 1 + rng() % 6, bz = 1 + rng() % 4;
    const uint32_t threads = bx * by * bz;
    const uint32_t first = 32 * (rng() % ((threads + 31) / 32));
    uint32_t t = first;
    uint32_t coords = (t / (bx * by)) << (2 * kDimBits) | (t / bx % by) << kDimBits | (t % bx);
    const uint32_t sreg = static_cast<uint32_t>(rng() % 2 ? g::Sreg::TID_X : static_cast<g::Sreg>(rng() % 26));
    const uint32_t warp = rng() % kWarps;
    dut_->s2r_register_i = sreg;
    dut_->s2r_clock_i = 0x1234'5678'9ABC'DEF0ull;
    dut_->s2r_warp_i = warp;
    dut_->s2r_sm_i = 3;
    dut_->s2r_sms_i = 16;
    dut_->s2r_block_dim_i[0] = bx;
    dut_->s2r_block_dim_i[1] = by;
    dut_->s2r_block_dim_i[2] = bz;
    dut_->s2r_block_index_i = 0x0003'0002'0001ull;
    dut_->s2r_grid_dim_i[0] = 100;
    dut_->s2r_grid_dim_i[1] = 20;
    dut_->s2r_grid_dim_i[2] = 2;
    for (unsigned row = 0; row < kRows; ++row) {
      dut_->row_i = row;
      dut_->s2r_thread_i = coords;
      dut_->eval();
      for (unsigned l = 0; l < kLanes; ++l, ++t) {
        const unsigned lane = row * kLanes + l;
        uint32_t want = 0;
        switch (static_cast<g::Sreg>(sreg)) {
          case g::Sreg::TID_X: want = t % bx; break;
          case g::Sreg::TID_Y: want = t / bx % by; break;
          case g::Sreg::TID_Z: want = t / (bx * by); break;
          case g::Sreg::NTID_X: want = bx; break;
          case g::Sreg::NTID_Y: want = by; break;
          case g::Sreg::NTID_Z: want = bz; break;
          case g::Sreg::CTAID_X: want = 1; break;
          case g::Sreg::CTAID_Y: want = 2; break;
          case g::Sreg::CTAID_Z: want = 3; break;
          case g::Sreg::NCTAID_X: want = 100; break;
          case g::Sreg::NCTAID_Y: want = 20; break;
          case g::Sreg::NCTAID_Z: want = 2; break;
          case g::Sreg::LANEID: want = lane; break;
          case g::Sreg::WARPID: want = warp; break;
          case g::Sreg::NWARPID: want = kWarps; break;
          case g::Sreg::SMID: want = 3; break;
          case g::Sreg::NSMID: want = 16; break;
          case g::Sreg::CLOCK: want = 0x9ABC'DEF0u; break;
          case g::Sreg::CLOCK_HI: want = 0x1234'5678u; break;
          case g::Sreg::LANEMASK_EQ: want = 1u << lane; break;
          case g::Sreg::LANEMASK_LT: want = (1u << lane) - 1; break;
          case g::Sreg::LANEMASK_LE: want = lane == 31 ? ~0u : (2u << lane) - 1; break;
          case g::Sreg::LANEMASK_GT: want = lane == 31 ? 0u : ~((2u << lane) - 1); break;
          case g::Sreg::LANEMASK_GE: want = ~((1u << lane) - 1); break;
          default: continue;  // other encodings: no register
        }
        ASSERT_EQ(dut_->s2r_data_o[l], want) << fmt::format("register {} lane {} of a {}x{}x{} block, thread {}", sreg, lane, bx, by, bz, t);
      }
      coords = dut_->s2r_next_thread_o;
      const uint32_t want_next = (t / (bx * by)) << (2 * kDimBits) | (t / bx % by) << kDimBits | (t % bx);
      ASSERT_EQ(coords, want_next) << fmt::format("the walk after row {} of a {}x{}x{} block", row, bx, by, bz);
    }
  }
}

}  // namespace
