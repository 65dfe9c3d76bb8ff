// What the clocked unit testbenches of tests/rtl share: a Verilated model with its own context and
// run-time arguments, a clock, an edge of the asynchronous reset, and running a comparison whose
// mismatches are expected (a deliberate bug switched on with +tsm+mutant=N).
#pragma once

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include <verilated.h>

namespace tsm::rtltest {

/// A model and its context; `plusargs` (one argument, e.g. "+tsm+mutant=8") reaches $value$plusargs.
template <typename Model>
struct Unit {
  explicit Unit(const std::string& plusargs = "") {
    const char* argv[] = {"unit_test", plusargs.c_str()};
    context->commandArgs(plusargs.empty() ? 1 : 2, argv);
    dut = std::make_unique<Model>(context.get());
  }
  ~Unit() { dut->final(); }
  Unit(const Unit&) = delete;
  Unit& operator=(const Unit&) = delete;

  std::unique_ptr<VerilatedContext> context = std::make_unique<VerilatedContext>();
  std::unique_ptr<Model> dut;
};

/// One clock: the inputs settle, a rising edge, the clock low again.
template <typename Model>
void clock(Model& dut) {
  dut.eval();
  dut.clk_i = 1;
  dut.eval();
  dut.clk_i = 0;
  dut.eval();
}

/// An edge of the asynchronous reset (rst_ni high, low, high) with the clock low.
template <typename Model>
void reset(Model& dut) {
  dut.clk_i = 0;
  dut.rst_ni = 1;
  dut.eval();
  dut.rst_ni = 0;
  dut.eval();
  dut.rst_ni = 1;
  dut.eval();
}

/// Runs `run` -- a comparison that reports each mismatch with ADD_FAILURE and returns how many it
/// found -- with those reports intercepted, since a deliberate bug's mismatches are expected, and
/// returns its count.
template <typename Run>
unsigned expecting_mismatches(Run&& run) {
  ::testing::ScopedTrace note(__FILE__, __LINE__, "the mismatches below are the mutant's and expected");
  ::testing::TestPartResultArray failures;
  ::testing::ScopedFakeTestPartResultReporter quiet(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                                                   &failures);
  return std::forward<Run>(run)();
}

}  // namespace tsm::rtltest
