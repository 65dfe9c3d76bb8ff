// The FIFO primitive (rtl/prim/tsm_fifo.sv, 3 entries of 16 bits), as Verilated RTL or as the
// Yosys netlist of it, against a std::deque clock by clock under random pushes and pops: order,
// full and empty, a push and a pop in one clock (also when full), and data that stays put until it
// is popped.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <random>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER

namespace {

constexpr unsigned kDepth = 3;

class Fifo : public ::testing::Test {
 protected:
  Fifo() {
    dut_->clk_i = 0;
    dut_->rst_ni = 1;
    dut_->eval();
    dut_->rst_ni = 0;  // an edge of the asynchronous reset
    dut_->eval();
    dut_->rst_ni = 1;
    dut_->eval();
  }
  ~Fifo() override { dut_->final(); }
  void clock() {
    dut_->clk_i = 1;
    dut_->eval();
    dut_->clk_i = 0;
    dut_->eval();
  }
  std::unique_ptr<VerilatedContext> ctx_ = std::make_unique<VerilatedContext>();
  std::unique_ptr<TSM_MODEL_CLASS> dut_ = std::make_unique<TSM_MODEL_CLASS>(ctx_.get());
};

TEST_F(Fifo, BehavesLikeAQueue) {
  std::mt19937 rng(5);
  std::deque<uint16_t> ref;
  unsigned pushes = 0, pops = 0, both_when_full = 0;
  for (unsigned t = 0; t < TSM_RANDOM_CASES; ++t) {
    // Phases of mostly pushing and mostly popping, so that the queue runs full and empty.
    const bool filling = (t / 50) % 2 == 0;
    dut_->push_valid_i = rng() % 4 < (filling ? 3u : 1u);
    dut_->push_data_i = static_cast<uint16_t>(rng());
    dut_->pop_ready_i = rng() % 4 < (filling ? 1u : 3u);
    dut_->eval();
    const std::string at = fmt::format("clock {} ({} held)", t, ref.size());
    ASSERT_EQ(dut_->push_ready_o != 0, ref.size() < kDepth) << at;
    ASSERT_EQ(dut_->pop_valid_o != 0, !ref.empty()) << at;
    if (!ref.empty()) ASSERT_EQ(dut_->pop_data_o, ref.front()) << at;
    const bool push = dut_->push_valid_i && dut_->push_ready_o;
    const bool pop = dut_->pop_valid_o && dut_->pop_ready_i;
    if (dut_->push_valid_i && dut_->pop_ready_i && ref.size() == kDepth) ++both_when_full;
    if (pop) ref.pop_front(), ++pops;
    if (push) ref.push_back(static_cast<uint16_t>(dut_->push_data_i)), ++pushes;
    clock();
  }
  // The random phases reached what they were for.
  EXPECT_GT(pushes, TSM_RANDOM_CASES / 4);
  EXPECT_GT(pops, TSM_RANDOM_CASES / 4);
  EXPECT_GT(both_when_full, 10u);
}

}  // namespace
