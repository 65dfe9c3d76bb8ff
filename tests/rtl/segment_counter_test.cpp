// The transactions counter (rtl/sm/tsm_segment_counter.sv), as Verilated RTL or as the Yosys netlist
// of it, against the compute capability 1.2 coalescing rule of the CUDA C Programming Guide,
// restated in C++: per half-warp, every distinct aligned segment (32 bytes for 1-byte accesses, 64
// for 2-byte, 128 for wider) that a counted lane touches is one transaction. Random warps, and the
// guide's own examples; the count must also be complete within the clocks the LSU gives it (one per
// segment of the larger half).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <set>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER
#include "unit_driver.hpp"

namespace {

struct Access {
  uint32_t lanes = 0xFFFF'FFFF;
  std::array<uint32_t, 32> addr{};
  unsigned bytes = 4;
};

unsigned segment_bytes(unsigned bytes) { return bytes == 1 ? 32 : bytes == 2 ? 64 : 128; }

/// Transactions of each half-warp by the rule.
std::array<unsigned, 2> rule(const Access& a) {
  std::array<unsigned, 2> n{};
  for (unsigned h = 0; h < 2; ++h) {
    std::set<uint32_t> segments;
    for (unsigned l = 16 * h; l < 16 * h + 16; ++l)
      if (a.lanes >> l & 1) segments.insert(a.addr[l] / segment_bytes(a.bytes));
    n[h] = static_cast<unsigned>(segments.size());
  }
  return n;
}

class SegmentCounter : public ::testing::Test {
 protected:
  SegmentCounter() {
    tsm::rtltest::reset(*dut_);
  }

  void clock() { tsm::rtltest::clock(*dut_); }
  /// Loads the access, counts for `clocks` clocks, and returns the count after each of them.
  std::vector<unsigned> count(const Access& a, unsigned clocks) {
    for (unsigned l = 0; l < 32; ++l) dut_->lane_addr_i[l] = a.addr[l];
    dut_->bytes_i = a.bytes;
    dut_->lanes_i = a.lanes;
    dut_->load_i = 1;
    clock();
    dut_->load_i = 0;
    dut_->lanes_i = 0;  // only the loaded lanes count
    std::vector<unsigned> after;
    for (unsigned c = 0; c < clocks; ++c) {
      clock();
      after.push_back(dut_->count_o);
    }
    return after;
  }
  unsigned total(const Access& a) {
    const auto n = rule(a);
    const std::vector<unsigned> after = count(a, std::max(n[0], n[1]) + 3);
    // Complete after as many clocks as the larger half has segments, and no more counting after.
    EXPECT_EQ(after[std::max(n[0], n[1]) > 0 ? std::max(n[0], n[1]) - 1 : 0], n[0] + n[1]);
    EXPECT_EQ(after.back(), n[0] + n[1]);
    return after.back();
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

TEST_F(SegmentCounter, MatchesTheRule) {
  std::mt19937 rng(1);
  unsigned bad = 0;
  for (unsigned c = 0; c < TSM_RANDOM_CASES && bad < 10; ++c) {
    Access a;
    static constexpr unsigned kSizes[] = {1, 2, 4, 8, 16};
    a.bytes = kSizes[rng() % 5];
    a.lanes = rng() % 3 ? 0xFFFF'FFFFu : static_cast<uint32_t>(rng());
    const uint32_t base = static_cast<uint32_t>(rng()) & ~0x3FFu;
    const unsigned spread = 1u << (rng() % 14);  // from one segment to many
    const unsigned align = std::min(a.bytes, 4u);
    for (unsigned l = 0; l < 32; ++l) a.addr[l] = (base + (static_cast<uint32_t>(rng()) % spread)) & ~(align - 1);
    const auto n = rule(a);
    const std::vector<unsigned> after = count(a, std::max(n[0], n[1]) + 2);
    if (after.back() != n[0] + n[1] || (n[0] + n[1] > 0 && after[std::max(n[0], n[1]) - 1] != n[0] + n[1])) {
      ++bad;
      ADD_FAILURE() << fmt::format("case {}: {}-byte access of lanes {:#010x}: counted {}, the rule says {} + {}", c, a.bytes, a.lanes,
                                   after.back(), n[0], n[1]);
    }
  }
  EXPECT_EQ(bad, 0u);
}

Access strided(uint32_t base, unsigned stride_bytes, unsigned bytes) {
  Access a;
  a.bytes = bytes;
  for (unsigned l = 0; l < 32; ++l) a.addr[l] = base + l * stride_bytes;
  return a;
}

// The programming guide's cases for compute capability 1.2: a half-warp of consecutive aligned
// words is one transaction; misaligned by a word it spans two segments; a stride of two words
// doubles the bytes, and a stride of 32 words makes a transaction a lane.
TEST_F(SegmentCounter, TheGuidesPatterns) {
  EXPECT_EQ(total(strided(0x1000, 4, 4)), 2u) << "32-bit words, consecutive and aligned";
  EXPECT_EQ(total(strided(0x1004, 4, 4)), 3u) << "misaligned by a word: the second half crosses a 128-byte boundary";
  EXPECT_EQ(total(strided(0x1000, 8, 4)), 2u) << "stride 2: 128 bytes a half-warp, still one segment each";
  EXPECT_EQ(total(strided(0x1000, 16, 4)), 4u) << "stride 4: 256 bytes a half-warp";
  EXPECT_EQ(total(strided(0x1000, 128, 4)), 32u) << "stride 32 words: a segment a lane";
  EXPECT_EQ(total(strided(0x1000, 0, 4)), 2u) << "every lane the same word: one a half-warp";
  EXPECT_EQ(total(strided(0x1000, 1, 1)), 2u) << "bytes: 16 bytes in one 32-byte segment a half";
  EXPECT_EQ(total(strided(0x1018, 1, 1)), 3u) << "bytes: the first half straddles a 32-byte boundary";
  EXPECT_EQ(total(strided(0x1000, 2, 2)), 2u) << "16-bit: 32 bytes in one 64-byte segment a half";
  Access none = strided(0x1000, 4, 4);
  none.lanes = 0;
  EXPECT_EQ(total(none), 0u) << "no lane counts";
  Access odd = strided(0x1000, 128, 4);
  odd.lanes = 0x0001'0001;
  EXPECT_EQ(total(odd), 2u) << "one lane in each half";
}

}  // namespace
