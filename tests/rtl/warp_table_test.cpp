// The SM's warp table (rtl/sm/tsm_warp_table.sv), as Verilated RTL or as the Yosys netlist of it,
// clock by clock against the table's rules restated in C++ (docs/sm-rtl.md §2.3): random commands
// from the engine, block dispatch, release walk, memory tracker, SFU pipe and memory, every output
// compared after every clock; then the cases the SM depends on: a wait's end beats its set in the
// same clock, a placement clears every wait but not the slot's stores in flight, a launch frees every
// slot and zeroes the stores, the lowest free slot, readiness.
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

// The testbench's build: 6 warps (the free-slot search over a count that is not a power of two),
// 2 block bits, 8 register-row bits, 3 bits a thread coordinate.
constexpr unsigned kWarps = 6;
constexpr unsigned kBlockBits = 2, kRowBits = 8, kDimBits = 3;

struct Slot {
  bool valid = false, wait = false, scoreboard = false, atomic = false, sfu = false, sfu_wait = false, reduction = false;
  uint32_t pc = 0, active = 0, live = 0, seq = 0, reduction_lanes = 0, reduction_seq = 0;
  unsigned block = 0, base = 0, thread = 0, barrier = 0, reduction_register = 0, loads = 0, stores = 0;
  bool operator==(const Slot&) const = default;
};

/// One clock's commands.
struct Commands {
  bool start = false;
  bool place = false;
  unsigned place_warp = 0, place_block = 0, place_base = 0, place_thread = 0;
  uint32_t place_pc = 0, place_lanes = 0;
  unsigned warp = 0;
  bool issue = false, scoreboard_wait = false, sfu_wait = false, sfu_issue = false, atomic_wait = false;
  bool load_issue = false, barrier_arrive = false, reduction = false, pc_write = false, lanes_write = false;
  bool finish = false;
  unsigned barrier_id = 0, reduction_register = 0;
  uint32_t reduction_lanes = 0, reduction_seq = 0, pc = 0, active = 0, live = 0;
  bool store_issue = false, store_ack = false;
  unsigned store_warp = 0, store_ack_warp = 0;
  unsigned release_slot = 0;
  bool release_wake = false, release_reduction_done = false;
  bool sfu_done = false, sfu_free = false, slot_done = false, slot_done_atomic = false;
  unsigned sfu_done_warp = 0, slot_done_warp = 0;
};

/// The rules, slot by slot.
void reference(std::array<Slot, kWarps>& table, const Commands& c) {
  for (unsigned w = 0; w < kWarps; ++w) {
    Slot& s = table[w];
    const Slot old = s;
    const bool placed = c.place && c.place_warp == w, current = c.warp == w, released = c.release_slot == w;
    const bool done = c.slot_done && c.slot_done_warp == w;
    // Resident: a launch frees every slot; a placement takes one; an exit frees it.
    if (c.start) s.valid = false;
    else if (placed) s.valid = true;
    else if (c.finish && current) s.valid = false;
    if (placed) {
      s.block = c.place_block, s.base = c.place_base, s.thread = c.place_thread;
      s.pc = c.place_pc, s.active = s.live = c.place_lanes, s.seq = 0;
    } else {
      if (c.pc_write && current) s.pc = c.pc;
      if (c.lanes_write && current) s.active = c.active, s.live = c.live;
      if (c.issue && current) s.seq = old.seq + 1;
    }
    // Barriers.
    if (placed) s.wait = false;
    else if (c.barrier_arrive && current) s.wait = true;
    else if (c.release_wake && released) s.wait = false;
    if (c.barrier_arrive && current) s.barrier = c.barrier_id;
    if (placed) s.reduction = false;
    else if (c.reduction && current) s.reduction = true;
    else if (c.release_reduction_done && released) s.reduction = false;
    if (c.reduction && current)
      s.reduction_register = c.reduction_register, s.reduction_lanes = c.reduction_lanes, s.reduction_seq = c.reduction_seq;
    // Waits the other units end: the end wins.
    if (done) s.scoreboard = false;
    else if (placed) s.scoreboard = false;
    else if (c.scoreboard_wait && current) s.scoreboard = true;
    if (done && c.slot_done_atomic) s.atomic = false;
    else if (placed) s.atomic = false;
    else if (c.atomic_wait && current) s.atomic = true;
    if (c.sfu_done && c.sfu_done_warp == w) s.sfu = false;
    else if (placed) s.sfu = false;
    else if (c.sfu_issue && current) s.sfu = true;
    if (c.sfu_free || placed) s.sfu_wait = false;
    else if (c.sfu_wait && current) s.sfu_wait = true;
    // Memory in flight (4- and 6-bit counters).
    s.loads = ((placed ? 0 : old.loads + (c.load_issue && current)) - done) & 15;
    s.stores = c.start ? 0 : (old.stores + (c.store_issue && c.store_warp == w) - (c.store_ack && c.store_ack_warp == w)) & 63;
  }
}

class WarpTable : public ::testing::Test {
 protected:
  WarpTable() { tsm::rtltest::reset(*dut_); }

  void apply(const Commands& c) {
    dut_->start_i = c.start;
    dut_->place_i = c.place;
    dut_->place_warp_i = c.place_warp;
    dut_->place_pc_i = c.place_pc;
    dut_->place_lanes_i = c.place_lanes;
    dut_->place_block_i = c.place_block;
    dut_->place_base_i = c.place_base;
    dut_->place_thread_i = c.place_thread;
    dut_->warp_i = c.warp;
    dut_->issue_i = c.issue;
    dut_->scoreboard_wait_i = c.scoreboard_wait;
    dut_->sfu_wait_i = c.sfu_wait;
    dut_->sfu_issue_i = c.sfu_issue;
    dut_->atomic_wait_i = c.atomic_wait;
    dut_->load_issue_i = c.load_issue;
    dut_->barrier_arrive_i = c.barrier_arrive;
    dut_->barrier_id_i = c.barrier_id;
    dut_->reduction_i = c.reduction;
    dut_->reduction_register_i = c.reduction_register;
    dut_->reduction_lanes_i = c.reduction_lanes;
    dut_->reduction_seq_i = c.reduction_seq;
    dut_->pc_write_i = c.pc_write;
    dut_->pc_i = c.pc;
    dut_->lanes_write_i = c.lanes_write;
    dut_->active_i = c.active;
    dut_->live_i = c.live;
    dut_->finish_i = c.finish;
    dut_->store_issue_i = c.store_issue;
    dut_->store_warp_i = c.store_warp;
    dut_->store_ack_i = c.store_ack;
    dut_->store_ack_warp_i = c.store_ack_warp;
    dut_->release_slot_i = c.release_slot;
    dut_->release_wake_i = c.release_wake;
    dut_->release_reduction_done_i = c.release_reduction_done;
    dut_->sfu_done_i = c.sfu_done;
    dut_->sfu_done_warp_i = c.sfu_done_warp;
    dut_->sfu_free_i = c.sfu_free;
    dut_->slot_done_i = c.slot_done;
    dut_->slot_done_warp_i = c.slot_done_warp;
    dut_->slot_done_atomic_i = c.slot_done_atomic;
    tsm::rtltest::clock(*dut_);
    reference(model_, c);
  }

  static uint32_t bits(uint64_t v, unsigned at, unsigned n) { return static_cast<uint32_t>(v >> at) & ((1u << n) - 1); }
  template <typename Wide>
  static uint32_t word(const Wide& v, unsigned i) { return v[i]; }

  /// The table as the RTL shows it.
  std::array<Slot, kWarps> observed() const {
    std::array<Slot, kWarps> t{};
    for (unsigned w = 0; w < kWarps; ++w) {
      Slot& s = t[w];
      s.valid = dut_->valid_o >> w & 1;
      s.wait = dut_->barrier_wait_o >> w & 1;
      s.scoreboard = dut_->scoreboard_wait_o >> w & 1;
      s.atomic = dut_->atomic_wait_o >> w & 1;
      s.sfu = dut_->sfu_o >> w & 1;
      s.sfu_wait = dut_->sfu_wait_o >> w & 1;
      s.reduction = dut_->reduction_o >> w & 1;
      s.pc = word(dut_->pc_o, w);
      s.active = word(dut_->active_o, w);
      s.live = word(dut_->live_o, w);
      s.seq = word(dut_->seq_o, w);
      s.reduction_lanes = word(dut_->reduction_lanes_o, w);
      s.reduction_seq = word(dut_->reduction_seq_o, w);
      s.block = bits(dut_->block_o, kBlockBits * w, kBlockBits);
      s.base = bits(dut_->base_o, kRowBits * w, kRowBits);
      s.thread = bits(dut_->thread_o, 3 * kDimBits * w, 3 * kDimBits);
      s.barrier = bits(dut_->barrier_o, 4 * w, 4);
      s.reduction_register = bits(dut_->reduction_register_o, 8 * w, 8);
      s.loads = bits(dut_->loads_o, 4 * w, 4);
      s.stores = bits(dut_->stores_o, 6 * w, 6);
    }
    return t;
  }

  /// Every output against the model; returns the mismatches (each reported once per clock).
  unsigned compare(const std::string& where) {
    unsigned bad = 0;
    const auto t = observed();
    for (unsigned w = 0; w < kWarps; ++w)
      if (!(t[w] == model_[w])) {
        ADD_FAILURE() << where << ": warp slot " << w << " differs from the rules";
        ++bad;
      }
    unsigned ready = 0, free = 0;
    bool found = false;
    for (unsigned w = 0; w < kWarps; ++w) {
      const Slot& s = model_[w];
      ready |= static_cast<unsigned>(s.valid && !s.wait && !s.scoreboard && !s.atomic && !s.sfu && !s.sfu_wait) << w;
      if (!s.valid && !found) free = w, found = true;
    }
    if (dut_->ready_o != ready) {
      ADD_FAILURE() << where << fmt::format(": ready {:#x}, the rules say {:#x}", dut_->ready_o, ready);
      ++bad;
    }
    if (dut_->free_o != free) {
      ADD_FAILURE() << where << fmt::format(": free slot {}, the rules say {}", dut_->free_o, free);
      ++bad;
    }
    return bad;
  }

  /// Random commands: often the same warp, so sets and ends meet; at most one engine command of a
  /// kind, as the engine gives them.
  static Commands random_commands(std::mt19937& rng) {
    auto one_in = [&](unsigned n) { return rng() % n == 0; };
    Commands c;
    c.start = one_in(500);
    c.place = one_in(6);
    c.place_warp = rng() % kWarps;
    c.place_pc = rng();
    c.place_lanes = rng();
    c.place_block = rng() % (1u << kBlockBits);
    c.place_base = rng() % (1u << kRowBits);
    c.place_thread = rng() % (1u << (3 * kDimBits));
    c.warp = rng() % kWarps;
    c.issue = one_in(3);
    c.scoreboard_wait = one_in(5);
    c.sfu_wait = one_in(6);
    c.sfu_issue = one_in(6);
    c.atomic_wait = one_in(8);
    c.load_issue = one_in(5);
    c.barrier_arrive = one_in(6);
    c.barrier_id = rng() % 16;
    c.reduction = c.barrier_arrive && one_in(2);
    c.reduction_register = rng() % 256;
    c.reduction_lanes = rng();
    c.reduction_seq = rng();
    c.pc_write = one_in(3);
    c.pc = rng();
    c.lanes_write = one_in(4);
    c.active = rng();
    c.live = rng();
    c.finish = one_in(20);
    c.store_issue = one_in(3);
    c.store_warp = rng() % kWarps;
    c.store_ack = one_in(4);
    c.store_ack_warp = rng() % kWarps;
    c.release_slot = rng() % kWarps;
    c.release_wake = one_in(4);
    c.release_reduction_done = one_in(5);
    c.sfu_done = one_in(5);
    c.sfu_done_warp = rng() % kWarps;
    c.sfu_free = one_in(8);
    c.slot_done = one_in(4);
    c.slot_done_warp = rng() % kWarps;
    c.slot_done_atomic = one_in(2);
    return c;
  }

  unsigned run_random(unsigned clocks, uint32_t seed) {
    std::mt19937 rng(seed);
    unsigned bad = 0;
    for (unsigned i = 0; i < clocks && bad < 10; ++i) {
      const Commands c = random_commands(rng);
      apply(c);
      bad += compare(fmt::format("clock {}", i));
    }
    return bad;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
  std::array<Slot, kWarps> model_{};
};

TEST_F(WarpTable, RandomCommandsFollowTheRules) {
  EXPECT_EQ(run_random(TSM_RANDOM_CASES, 33), 0u);
}

TEST_F(WarpTable, AWaitsEndBeatsItsSetInTheSameClock) {
  Commands place;
  place.place = true, place.place_warp = 2, place.place_lanes = 0xFFFF'FFFF;
  apply(place);
  Commands c;
  c.warp = 2;
  c.scoreboard_wait = true, c.atomic_wait = true, c.sfu_issue = true, c.sfu_wait = true;
  c.slot_done = true, c.slot_done_warp = 2, c.slot_done_atomic = true;  // ... and every end of them
  c.sfu_done = true, c.sfu_done_warp = 2, c.sfu_free = true;
  apply(c);
  EXPECT_EQ(compare("set and end together"), 0u);
  EXPECT_EQ(dut_->ready_o, 1u << 2) << "the warp is ready: each wait ended in the clock it was set";
  // Set alone, the waits hold the warp back until each one's end.
  Commands set;
  set.warp = 2, set.scoreboard_wait = true, set.sfu_issue = true;
  apply(set);
  EXPECT_EQ(dut_->ready_o, 0u);
  Commands end;
  end.slot_done = true, end.slot_done_warp = 2;
  apply(end);
  EXPECT_EQ(dut_->ready_o, 0u) << "the SFU wait still holds it";
  end = {}, end.sfu_done = true, end.sfu_done_warp = 2;
  apply(end);
  EXPECT_EQ(dut_->ready_o, 1u << 2);
  EXPECT_EQ(compare("after the ends"), 0u);
}

TEST_F(WarpTable, APlacementKeepsTheSlotsStoresInFlight) {
  Commands c;
  c.place = true, c.place_warp = 0;
  apply(c);
  c = {};
  c.store_issue = true, c.store_warp = 0;
  apply(c);
  apply(c);
  c = {};
  c.warp = 0, c.finish = true, c.barrier_arrive = true;
  apply(c);
  EXPECT_EQ(dut_->valid_o, 0u);
  c = {};
  c.place = true, c.place_warp = 0, c.place_pc = 7;
  apply(c);
  EXPECT_EQ(compare("re-placed"), 0u);
  EXPECT_EQ(dut_->stores_o & 63u, 2u) << "the previous warp's two stores still count";
  EXPECT_EQ(dut_->barrier_wait_o, 0u) << "the new warp waits at no barrier";
  EXPECT_EQ(word(dut_->pc_o, 0), 7u);
  c = {};
  c.store_ack = true, c.store_ack_warp = 0;
  apply(c);
  EXPECT_EQ(dut_->stores_o & 63u, 1u);
  c = {};
  c.start = true, c.store_ack = true, c.store_ack_warp = 0;
  apply(c);
  EXPECT_EQ(dut_->stores_o, 0u) << "a launch zeroes the stores";
  EXPECT_EQ(dut_->valid_o, 0u) << "a launch frees every slot";
  EXPECT_EQ(compare("after the launch"), 0u);
}

TEST_F(WarpTable, WarpsArePlacedInTheLowestFreeSlot) {
  for (unsigned i = 0; i < kWarps; ++i) {
    EXPECT_EQ(dut_->free_o, i);
    Commands c;
    c.place = true, c.place_warp = dut_->free_o;
    apply(c);
  }
  EXPECT_EQ(dut_->valid_o, (1u << kWarps) - 1);
  Commands c;
  c.warp = 3, c.finish = true;
  apply(c);
  EXPECT_EQ(dut_->free_o, 3u);
  c.warp = 1;
  apply(c);
  EXPECT_EQ(dut_->free_o, 1u);
  EXPECT_EQ(compare("after two exits"), 0u);
}

TEST_F(WarpTable, TheReleaseWalkWakesOnlyItsSlot) {
  Commands c;
  for (unsigned w = 0; w < 3; ++w) {
    c = {};
    c.place = true, c.place_warp = w;
    apply(c);
    c = {};
    c.warp = w, c.barrier_arrive = true, c.barrier_id = 5, c.reduction = w == 1, c.reduction_register = 9;
    apply(c);
  }
  EXPECT_EQ(dut_->ready_o, 0u);
  c = {};
  c.release_slot = 1, c.release_wake = true;
  apply(c);
  EXPECT_EQ(dut_->ready_o, 1u << 1);
  EXPECT_EQ(dut_->reduction_o, 1u << 1) << "its reduction value is still to be written";
  c = {};
  c.release_slot = 1, c.release_reduction_done = true;
  apply(c);
  EXPECT_EQ(dut_->reduction_o, 0u);
  EXPECT_EQ(compare("after the walk's slot"), 0u);
}

}  // namespace
