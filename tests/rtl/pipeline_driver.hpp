// Drives a pipelined unit's Verilated model one operand set per clock and checks each result, in
// order, against a reference: the loop every unit testbench of tests/rtl shares.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <verilated.h>

namespace tsm::rtltest {

/// `apply(model, case)` sets the inputs for one case; `check(model, case)` returns a description
/// of the mismatch, or nothing when the model's output is right. Reports the first ten mismatches
/// and returns how many results were checked.
template <typename Model, typename Case, typename Apply, typename Check>
size_t run_pipeline(const std::vector<Case>& cases, Apply apply, Check check) {
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = std::make_unique<Model>(ctx.get());
  dut->clk_i = 0;
  dut->rst_ni = 0;
  dut->valid_i = 0;
  dut->eval();
  dut->rst_ni = 1;
  dut->eval();
  std::deque<size_t> in_flight;
  size_t next = 0, checked = 0, failures = 0, idle = 0;
  while (checked < cases.size()) {
    dut->valid_i = next < cases.size();
    if (dut->valid_i) {
      apply(*dut, cases[next]);
      in_flight.push_back(next++);
    }
    dut->clk_i = 1;
    dut->eval();
    dut->clk_i = 0;
    dut->eval();
    if (!dut->valid_o) {
      if (++idle > 1000) {
        ADD_FAILURE() << "no result for 1000 clocks";
        break;
      }
      continue;
    }
    idle = 0;
    if (in_flight.empty()) {
      ADD_FAILURE() << "a result without operands";
      break;
    }
    const Case& c = cases[in_flight.front()];
    in_flight.pop_front();
    if (const std::optional<std::string> what = check(*dut, c); what && failures++ < 10) ADD_FAILURE() << *what;
    ++checked;
  }
  dut->final();
  EXPECT_EQ(failures, 0u) << "of " << checked << " results";
  return checked;
}

}  // namespace tsm::rtltest
