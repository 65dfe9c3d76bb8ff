// The shared-memory unit (rtl/sm/tsm_smem.sv: banks, bank scheduling, crossbar), as Verilated RTL or
// as the Yosys netlist of it, clock by clock, against the golden model's rule for a half-warp's
// shared access (sim/golden/execute.cpp: the lanes in lane order, each loading its word or storing
// its bytes, a later lane overwriting an earlier one's byte): random half-warp loads and stores of
// 1, 2 and 4 bytes crowding a few words (conflicts, broadcasts, merges), run step by step until no
// lane is pending; every load's words, the memory after every store (read back through the
// caller's ports), and the steps each request takes (at least one lane a step, at most 16 steps).
// The RTL build also carries the unit's deliberate bug (rtl/mutants/mutants.json, mutant 7), which
// must be caught here.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include <fmt/format.h>
#include <verilated.h>

#include TSM_MODEL_HEADER
#include "unit_driver.hpp"

namespace {

// The testbench's build: 16 banks of 16 words (1 KB).
constexpr unsigned kBanks = 16, kWords = 16, kBytes = kBanks * kWords * 4;

struct Request {
  bool store = false;
  unsigned bytes = 4;
  uint32_t pending = 0;  // 16 lanes
  std::array<uint32_t, 16> address{}, data{};  // data replicated to fill a word
};

class Smem : public ::testing::Test {
 protected:
  explicit Smem(const std::string& plusargs = "") : unit_(plusargs) {
    dut_->clk_i = 0;
    idle();
    for (unsigned w = 0; w < kBanks * kWords; ++w) write_word(w, 0);
  }

  void idle() {
    dut_->step_i = 0;
    dut_->we_i = 0;
    dut_->be_i = 0;
    dut_->pending_i = 0;
  }

  /// The caller's ports: a word written or read (the data a clock later).
  void write_word(unsigned word, uint32_t value) {
    idle();
    dut_->we_i = 1u << (word % kBanks);
    dut_->be_i = uint64_t{0xF} << (4 * (word % kBanks));
    set_bank_address(word % kBanks, word / kBanks);
    dut_->wdata_i[word % kBanks] = value;
    tsm::rtltest::clock(*dut_);
    dut_->we_i = 0;
    model_[word] = value;
  }
  uint32_t read_word(unsigned word) {
    idle();
    set_bank_address(word % kBanks, word / kBanks);
    tsm::rtltest::clock(*dut_);
    return dut_->rdata_o[word % kBanks];
  }
  void set_bank_address(unsigned bank, unsigned row) {
    // 16 banks x 4 bits: a 64-bit port.
    dut_->addr_i = (dut_->addr_i & ~(uint64_t{0xF} << (4 * bank))) | (uint64_t{row} << (4 * bank));
  }

  /// Runs a request step by step; returns the steps, or 0 when a step served no lane. Loaded words
  /// go to `loaded`.
  unsigned run(const Request& r, std::array<uint32_t, 16>& loaded) {
    uint32_t pending = r.pending;
    unsigned steps = 0;
    while (pending) {
      dut_->step_i = 1;
      dut_->step_store_i = r.store;
      dut_->step_bytes_i = r.bytes;
      dut_->pending_i = pending;
      for (unsigned l = 0; l < 16; ++l) {
        dut_->lane_address_i[l] = r.address[l];
        dut_->lane_data_i[l] = r.data[l];
      }
      dut_->eval();
      const uint32_t served = dut_->serve_o & pending;
      if (served == 0 || ++steps > 16) return 0;
      tsm::rtltest::clock(*dut_);
      dut_->step_i = 0;
      dut_->pending_i = 0;
      dut_->we_i = 0;
      dut_->eval();
      for (unsigned l = 0; l < 16; ++l)
        if (served >> l & 1) loaded[l] = dut_->lane_word_o[l];
      pending &= ~served;
    }
    return steps;
  }

  /// The golden rule: lanes in lane order.
  void reference(const Request& r, std::array<uint32_t, 16>& loaded) {
    for (unsigned l = 0; l < 16; ++l) {
      if (!(r.pending >> l & 1)) continue;
      const unsigned word = r.address[l] / 4;
      if (!r.store) {
        loaded[l] = model_[word];
        continue;
      }
      for (unsigned b = 0; b < r.bytes && b < 4; ++b) {
        const unsigned byte = r.address[l] % 4 + b;
        const uint32_t mask = 0xFFu << (8 * byte);
        model_[word] = (model_[word] & ~mask) | (r.data[l] & mask);
      }
    }
  }

  static Request random_request(std::mt19937& rng) {
    static constexpr unsigned kSizes[] = {1, 2, 4, 4};
    Request r;
    r.store = rng() % 2 == 0;
    r.bytes = kSizes[rng() % 4];
    r.pending = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) & 0xFFFF : 0xFFFF;
    if (r.pending == 0) r.pending = 1;
    const unsigned few = 1 + rng() % 6;  // a few words: conflicts, broadcasts and merges are common
    std::array<uint32_t, 6> pool{};
    for (auto& w : pool) w = static_cast<uint32_t>(rng()) % (kBytes / 4);
    for (unsigned l = 0; l < 16; ++l) {
      const uint32_t word = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) % (kBytes / 4) : pool[rng() % few];
      r.address[l] = word * 4 + (static_cast<uint32_t>(rng()) % 4 & ~(r.bytes - 1));
      uint32_t v = static_cast<uint32_t>(rng());
      if (r.bytes == 1) v = (v & 0xFF) * 0x01010101u;
      if (r.bytes == 2) v = (v & 0xFFFF) * 0x00010001u;
      r.data[l] = v;
    }
    return r;
  }

  /// Random requests against the rule; returns how many disagreed.
  unsigned random_run(unsigned cases, uint32_t seed, bool stop_at_first = false) {
    std::mt19937 rng(seed);
    unsigned bad = 0;
    for (unsigned n = 0; n < cases; ++n) {
      const Request r = random_request(rng);
      std::array<uint32_t, 16> got{}, want{};
      const unsigned steps = run(r, got);
      reference(r, want);
      bool same = steps != 0;
      for (unsigned l = 0; l < 16; ++l)
        if (!r.store && (r.pending >> l & 1) && got[l] != want[l]) same = false;
      if (r.store) {
        // The words the store touched, read back through the caller's ports.
        for (unsigned l = 0; l < 16; ++l)
          if ((r.pending >> l & 1) && read_word(r.address[l] / 4) != model_[r.address[l] / 4]) same = false;
      }
      if (same) continue;
      ++bad;
      ADD_FAILURE() << fmt::format("case {}: {}-byte {} of lanes {:#06x}: {}", n, r.bytes, r.store ? "store" : "load", r.pending,
                                   steps == 0 ? "a step served no lane, or more than 16 steps" : "words differ");
      // Resynchronize the model with the memory so that one bad store is reported once.
      for (unsigned w = 0; w < kBanks * kWords; ++w) model_[w] = read_word(w);
      if (stop_at_first || bad > 10) return bad;
    }
    return bad;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
  std::array<uint32_t, kBanks * kWords> model_{};
};

TEST_F(Smem, MatchesTheGoldenRule) { EXPECT_EQ(random_run(TSM_RANDOM_CASES, 1), 0u); }

Request strided(unsigned stride_words, bool store) {
  Request r;
  r.store = store;
  r.pending = 0xFFFF;
  for (unsigned l = 0; l < 16; ++l) {
    r.address[l] = 4 * stride_words * l;
    r.data[l] = 0x1000 + l;
  }
  return r;
}

TEST_F(Smem, StepsOfTheClassicPatterns) {
  std::array<uint32_t, 16> loaded{};
  EXPECT_EQ(run(strided(1, true), loaded), 1u) << "stride 1: every lane its own bank";
  EXPECT_EQ(run(strided(1, false), loaded), 1u);
  for (unsigned l = 0; l < 16; ++l) EXPECT_EQ(loaded[l], 0x1000 + l) << "lane " << l;
  EXPECT_EQ(run(strided(2, false), loaded), 2u) << "stride 2: two lanes a bank";
  EXPECT_EQ(run(strided(16, false), loaded), 16u) << "stride 16: one bank";
  EXPECT_EQ(run(strided(0, false), loaded), 1u) << "one word for every lane: a broadcast";
}

TEST_F(Smem, NarrowStoresMergeInLaneOrder) {
  write_word(5, 0xAAAA'AAAA);
  Request r;
  r.store = true;
  r.bytes = 1;
  r.pending = 0b1111;
  r.address = {};
  r.address[0] = 20;  // word 5, byte 0
  r.address[1] = 22;  // byte 2
  r.address[2] = 20;  // byte 0 again: lane 2 wins
  r.address[3] = 23;
  r.data[0] = 0x1111'1111;
  r.data[1] = 0x2222'2222;
  r.data[2] = 0x3333'3333;
  r.data[3] = 0x4444'4444;
  std::array<uint32_t, 16> loaded{};
  EXPECT_EQ(run(r, loaded), 1u) << "one word: one step";
  EXPECT_EQ(read_word(5), 0x4422'AA33u);
}

#ifdef TSM_UNIT_MUTANTS
// The unit's deliberate bug (mutant 7, a step's store goes to the next bank), with +tsm+mutant=7.
class SmemMutant : public Smem {
 protected:
  SmemMutant() : Smem("+tsm+mutant=7") {}
};

TEST_F(SmemMutant, StoreToTheNextBankIsCaught) {
  const unsigned bad = tsm::rtltest::expecting_mismatches([&] { return random_run(2000, 7, true); });
  EXPECT_GT(bad, 0u) << "mutant 7 went unnoticed";
}
#endif

}  // namespace
