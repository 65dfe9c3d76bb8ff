// The round-robin arbiter primitive (rtl/prim/tsm_rr_arbiter.sv, 5 requesters), as Verilated RTL
// or as the Yosys netlist of it: for every request pattern and every last grant, the grant is the
// first requester after the last one in cyclic order, and nothing is granted without a request.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER

namespace {

constexpr unsigned kRequesters = 5;

TEST(RrArbiter, GrantsTheFirstRequesterAfterTheLast) {
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = std::make_unique<TSM_MODEL_CLASS>(ctx.get());
  for (unsigned last = 0; last < 8; ++last) {  // 5 to 7 are no requester: the search still wraps
    for (uint32_t req = 0; req < (1u << kRequesters); ++req) {
      dut->request_i = req;
      dut->last_i = last;
      dut->eval();
      bool want_valid = false;
      unsigned want = 0;
      for (unsigned i = 1; i <= kRequesters && !want_valid; ++i) {
        const unsigned r = (last + i) % kRequesters;
        if (req >> r & 1) want_valid = true, want = r;
      }
      ASSERT_EQ(dut->grant_valid_o != 0, want_valid) << fmt::format("requests {:#07b}, last {}", req, last);
      if (want_valid) ASSERT_EQ(dut->grant_o, want) << fmt::format("requests {:#07b}, last {}", req, last);
    }
  }
  dut->final();
}

// A requester that keeps asking is granted within kRequesters grants, whoever else asks.
TEST(RrArbiter, StarvesNobody) {
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = std::make_unique<TSM_MODEL_CLASS>(ctx.get());
  uint32_t lfsr = 0xACE1u;
  for (unsigned victim = 0; victim < kRequesters; ++victim) {
    unsigned last = 0, waited = 0;
    for (unsigned t = 0; t < 1000; ++t) {
      lfsr = (lfsr >> 1) ^ (-(lfsr & 1u) & 0xB400u);
      dut->request_i = (lfsr | 1u << victim) & ((1u << kRequesters) - 1);
      dut->last_i = last;
      dut->eval();
      ASSERT_TRUE(dut->grant_valid_o);
      last = dut->grant_o;
      waited = last == victim ? 0 : waited + 1;
      ASSERT_LT(waited, kRequesters) << fmt::format("requester {} waited {} grants", victim, waited);
    }
  }
  dut->final();
}

}  // namespace
