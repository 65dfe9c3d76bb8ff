// Shared-memory bank scheduling (rtl/sm/tsm_smem_sched.sv), as Verilated RTL or as the Yosys
// netlist of it: each step of a half-warp request against a C++ statement of the rule
// (docs/sm-rtl.md §2.8), and the costs a CUDA programmer knows: stride 1 and a broadcast take one
// step, stride 2 two, a stride of 16 words sixteen.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER

namespace {

constexpr unsigned kLanes = 16, kBanks = 16, kAddrBits = 12;

// The rule: the lowest pending lane's word is broadcast to every lane addressing it; each other
// bank serves its lowest pending lane.
uint32_t reference_step(uint32_t pending, const std::vector<uint32_t>& addr) {
  if (pending == 0) return 0;
  unsigned first = 0;
  while (!(pending >> first & 1)) ++first;
  const uint32_t broadcast = addr[first];
  uint32_t serve = 0, banks = 1u << (broadcast % kBanks);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(pending >> l & 1)) continue;
    if (addr[l] == broadcast) {
      serve |= 1u << l;
    } else if (!(banks >> (addr[l] % kBanks) & 1)) {
      serve |= 1u << l;
      banks |= 1u << (addr[l] % kBanks);
    }
  }
  return serve;
}

class SmemSched : public ::testing::Test {
 protected:
  // Runs a request to completion on the model, checking every step; returns the steps it took.
  unsigned steps(uint32_t active, const std::vector<uint32_t>& addr) {
    // addr_i is 192 bits wide: Verilator gives it as 32-bit words.
    uint32_t words[kLanes * kAddrBits / 32] = {};
    for (unsigned l = 0; l < kLanes; ++l) {
      const unsigned bit = kAddrBits * l;
      words[bit / 32] |= addr[l] << (bit % 32);
      if (bit % 32 + kAddrBits > 32) words[bit / 32 + 1] |= addr[l] >> (32 - bit % 32);
    }
    for (unsigned w = 0; w < kLanes * kAddrBits / 32; ++w) dut_->addr_i[w] = words[w];
    unsigned n = 0;
    for (uint32_t pending = active; pending != 0; ++n) {
      dut_->pending_i = pending;
      dut_->eval();
      const uint32_t want = reference_step(pending, addr);
      EXPECT_EQ(dut_->serve_o, want) << fmt::format("pending {:#06x}, step {}", pending, n);
      if (dut_->serve_o != want || want == 0) return 1000;
      pending &= ~want;
    }
    return n;
  }
  std::unique_ptr<VerilatedContext> ctx_ = std::make_unique<VerilatedContext>();
  std::unique_ptr<TSM_MODEL_CLASS> dut_ = std::make_unique<TSM_MODEL_CLASS>(ctx_.get());
};

std::vector<uint32_t> strided(uint32_t base, uint32_t stride) {
  std::vector<uint32_t> a(kLanes);
  for (unsigned l = 0; l < kLanes; ++l) a[l] = (base + l * stride) % (1u << kAddrBits);
  return a;
}

TEST_F(SmemSched, CostsOfTheClassicPatterns) {
  EXPECT_EQ(steps(0xFFFF, strided(100, 1)), 1u);   // consecutive words: conflict-free
  EXPECT_EQ(steps(0xFFFF, strided(7, 0)), 1u);     // one word for everyone: broadcast
  EXPECT_EQ(steps(0xFFFF, strided(0, 2)), 2u);     // two-way conflicts
  EXPECT_EQ(steps(0xFFFF, strided(3, 16)), 16u);   // sixteen words in one bank
  EXPECT_EQ(steps(0xFFFF, strided(0, 3)), 1u);     // odd strides hit every bank once
  EXPECT_EQ(steps(0x0000, strided(0, 16)), 0u);    // nothing to do
  EXPECT_EQ(steps(0x0101, strided(0, 16)), 2u);    // only the active lanes count
}

TEST_F(SmemSched, EveryStepFollowsTheRule) {
  std::mt19937_64 r(0x5AE3);
  for (int i = 0; i < TSM_RANDOM_CASES; ++i) {
    std::vector<uint32_t> addr(kLanes);
    const uint32_t pool = 1 + static_cast<uint32_t>(r() % 40);  // few distinct words: conflicts and broadcasts
    for (auto& a : addr) a = i % 2 ? static_cast<uint32_t>(r() % (1u << kAddrBits)) : static_cast<uint32_t>(r() % pool) * (1 + r() % 17);
    const uint32_t active = i % 5 == 0 ? 0xFFFF : static_cast<uint32_t>(r()) & 0xFFFF;
    const unsigned n = steps(active, addr);
    ASSERT_LE(n, 16u) << "a request never needs more steps than lanes";
  }
}

}  // namespace
