// The load/store unit's line coalescer (rtl/sm/tsm_coalescer.sv), as Verilated RTL or as the Yosys
// netlist of it, against a C++ statement of its rule (docs/sm-rtl.md §2.9): the 16-byte line of the
// lowest pending lane, every pending lane in that line, the bytes they access, and the store data
// merged with the highest lane winning a byte. Random warps whose lanes crowd a few lines, with
// every access size; then the patterns a CUDA programmer knows (unit stride, broadcast, stride 2,
// scattered) as requests per warp. The RTL build also carries the coalescer's deliberate bug
// (rtl/mutants/mutants.json, mutant 9), which must be caught here.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER
#include "unit_driver.hpp"

namespace {

struct Access {
  uint32_t pending = 0;
  std::array<uint32_t, 32> addr{};
  std::array<uint32_t, 32> data{};  // each lane's store word, already replicated
  unsigned bytes = 4;
  bool store = false;
};

struct Line {
  uint32_t line = 0;
  uint32_t lanes = 0;
  uint32_t mask = 0;
  std::array<uint8_t, 16> data{};
  bool operator==(const Line&) const = default;
};

/// The rule, from the documentation rather than the RTL.
Line reference(const Access& a) {
  Line r;
  const unsigned first = static_cast<unsigned>(std::countr_zero(a.pending));
  r.line = a.addr[first] & ~0xFu;
  const unsigned width = a.bytes >= 4 ? 4 : a.bytes;
  for (unsigned q = 0; q < 32; ++q) {
    if (!(a.pending >> q & 1) || (a.addr[q] & ~0xFu) != r.line) continue;
    r.lanes |= 1u << q;
    for (unsigned i = 0; i < width; ++i) {
      const unsigned b = (a.addr[q] & 0xF) + i;
      r.mask |= 1u << b;
      if (a.store) r.data[b] = static_cast<uint8_t>(a.data[q] >> (8 * (b % 4)));  // later lanes overwrite
    }
  }
  return r;
}

class Coalescer : public ::testing::Test {
 protected:
  explicit Coalescer(const std::string& plusargs = "") : unit_(plusargs) {}

  Line apply(const Access& a) {
    dut_->pending_i = a.pending;
    for (unsigned q = 0; q < 32; ++q) {
      dut_->lane_addr_i[q] = a.addr[q];
      dut_->store_data_i[q] = a.data[q];
    }
    dut_->first_addr_i = a.addr[static_cast<unsigned>(std::countr_zero(a.pending))];
    dut_->bytes_i = a.bytes;
    dut_->store_i = a.store;
    dut_->eval();
    Line r;
    r.line = dut_->line_o;
    r.lanes = dut_->lanes_o;
    r.mask = dut_->byte_mask_o;
    for (unsigned b = 0; b < 16; ++b) r.data[b] = static_cast<uint8_t>(dut_->data_o[b / 4] >> (8 * (b % 4)));
    return r;
  }

  /// Lines a warp's access takes, as the LSU uses the coalescer: one request per line, the lanes of
  /// each taken off the pending set.
  unsigned requests(Access a) {
    unsigned n = 0;
    while (a.pending) {
      const Line got = apply(a);
      EXPECT_EQ(got, reference(a));
      if (got.lanes == 0) return 1000;  // no progress: the LSU would hang
      a.pending &= ~got.lanes;
      ++n;
    }
    return n;
  }

  static Access random_access(std::mt19937& rng) {
    Access a;
    static constexpr unsigned kSizes[] = {1, 2, 4, 8, 16};
    a.bytes = kSizes[rng() % 5];
    a.store = rng() % 2 == 0;
    a.pending = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) : 0xFFFF'FFFFu;
    if (a.pending == 0) a.pending = 1;
    const unsigned align = a.bytes >= 4 ? 4 : a.bytes;
    const uint32_t base = static_cast<uint32_t>(rng()) & ~0xFFu;
    const unsigned lines = 1 + rng() % 4;  // a few lines, so lanes share them
    for (unsigned q = 0; q < 32; ++q) {
      a.addr[q] = rng() % 16 == 0 ? static_cast<uint32_t>(rng()) & ~(align - 1)
                                   : base + 16 * (rng() % lines) + (rng() % 16 & ~(align - 1));
      uint32_t v = static_cast<uint32_t>(rng());
      if (a.bytes == 1) v = (v & 0xFF) * 0x01010101u;
      if (a.bytes == 2) v = (v & 0xFFFF) * 0x00010001u;
      a.data[q] = v;
    }
    return a;
  }

  /// Random accesses against the reference; returns how many disagreed.
  unsigned random_run(unsigned cases, uint32_t seed, bool stop_at_first = false) {
    std::mt19937 rng(seed);
    unsigned bad = 0;
    for (unsigned c = 0; c < cases; ++c) {
      const Access a = random_access(rng);
      const Line want = reference(a);
      const Line got = apply(a);
      if (got == want) continue;
      ++bad;
      ADD_FAILURE() << fmt::format("case {}: {}-byte {} of lanes {:#010x}: got line {:#x} lanes {:#010x} mask {:#06x}, want line {:#x} "
                                   "lanes {:#010x} mask {:#06x}{}",
                                   c, a.bytes, a.store ? "store" : "load", a.pending, got.line, got.lanes, got.mask, want.line,
                                   want.lanes, want.mask, got.data != want.data ? " (store data differs)" : "");
      if (stop_at_first || bad > 10) return bad;
    }
    return bad;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

TEST_F(Coalescer, MatchesTheRule) { EXPECT_EQ(random_run(TSM_RANDOM_CASES, 1), 0u); }

Access strided(uint32_t base, unsigned stride_words, unsigned bytes = 4) {
  Access a;
  a.pending = 0xFFFF'FFFFu;
  a.bytes = bytes;
  for (unsigned q = 0; q < 32; ++q) a.addr[q] = base + q * stride_words * bytes;
  return a;
}

// The patterns of the CUDA programming guide, in 16-byte line requests per warp.
TEST_F(Coalescer, RequestsPerWarpForTheClassicPatterns) {
  EXPECT_EQ(requests(strided(0x1000, 1)), 8u) << "unit stride, 32-bit: 128 bytes";
  EXPECT_EQ(requests(strided(0x1004, 1)), 9u) << "unit stride, misaligned by a word";
  EXPECT_EQ(requests(strided(0x1000, 2)), 16u) << "stride 2";
  EXPECT_EQ(requests(strided(0x1000, 4)), 32u) << "stride 4: a line a lane";
  EXPECT_EQ(requests(strided(0x1000, 0)), 1u) << "every lane the same word";
  EXPECT_EQ(requests(strided(0x1000, 1, 1)), 2u) << "unit stride, bytes";
  EXPECT_EQ(requests(strided(0x1000, 1, 2)), 4u) << "unit stride, 16-bit";
  Access half = strided(0x2000, 1);
  half.pending = 0x0000'FFFF;
  EXPECT_EQ(requests(half), 4u) << "half a warp";
}

// A store of bytes writes only its bytes, the highest lane winning a byte two lanes store.
TEST_F(Coalescer, StoreDataAndByteMask) {
  Access a;
  a.store = true;
  a.bytes = 1;
  a.pending = 0b111;
  a.addr = {};
  a.addr[0] = 0x105;
  a.addr[1] = 0x105;
  a.addr[2] = 0x10A;
  a.data[0] = 0x11111111;
  a.data[1] = 0x22222222;
  a.data[2] = 0x33333333;
  const Line got = apply(a);
  EXPECT_EQ(got.line, 0x100u);
  EXPECT_EQ(got.lanes, 0b111u);
  EXPECT_EQ(got.mask, (1u << 5) | (1u << 10));
  EXPECT_EQ(got.data[5], 0x22) << "lane 1 is higher than lane 0";
  EXPECT_EQ(got.data[10], 0x33);
  EXPECT_EQ(got.data[4], 0) << "a byte no lane writes";
  a.store = false;
  EXPECT_EQ(apply(a).data, (std::array<uint8_t, 16>{})) << "a load carries no data";
}

#ifdef TSM_UNIT_MUTANTS
// The coalescer's deliberate bug (mutant 9, narrow stores write the whole word), with +tsm+mutant=9.
class CoalescerMutant : public Coalescer {
 protected:
  CoalescerMutant() : Coalescer("+tsm+mutant=9") {}
};

TEST_F(CoalescerMutant, WholeWordStoreIsCaught) {
  const unsigned bad = tsm::rtltest::expecting_mismatches([&] { return random_run(2000, 7, true); });
  EXPECT_GT(bad, 0u) << "mutant 9 went unnoticed";
}
#endif

}  // namespace
