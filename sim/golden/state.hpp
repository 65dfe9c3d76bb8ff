// Internal state of the golden model: SMs, resident blocks and warps, barriers, and the executor.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "golden/model.hpp"
#include "isa/isa.hpp"

namespace tsm::golden {

enum class StackKind : uint8_t { Sync, Div, Brk, Ret };

struct StackEntry {
  StackKind kind;
  uint32_t mask;
  uint32_t pc;
};

struct Warp {
  bool resident = false;
  bool exited = false;
  uint32_t block_slot = 0;
  uint32_t warp_in_block = 0;
  uint32_t pc = 0;
  uint32_t active = 0;  // lanes executing now
  uint32_t live = 0;    // lanes not exited
  std::vector<StackEntry> stack;
  std::vector<uint32_t> regs;        // [lane * nregs + r]
  std::array<uint8_t, kWarpSize> preds{};  // bit p = predicate Pp (P0..P6)
  uint64_t seq = 0;
  bool waiting = false;  // at a barrier
  uint32_t barrier = 0;
  std::optional<uint8_t> reduction_rd;  // BRED destination, written at release
  uint32_t reduction_lanes = 0;
};

struct Barrier {
  uint32_t arrived = 0;       // warps
  uint32_t thread_count = 0;  // 0: every warp with live threads
  isa::gen::Redop redop = isa::gen::Redop::POPC;
  uint32_t popc = 0;
  bool all = true;
  bool any = false;
};

struct Block {
  bool resident = false;
  uint64_t linear = 0;
  Dim3 ctaid;
  std::vector<uint32_t> warp_slots;
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local;  // [thread * local_bytes + offset]
  std::array<Barrier, 16> bars{};
  uint32_t warps_unfinished = 0;
};

struct Sm {
  std::vector<Warp> warps;
  std::vector<Block> blocks;
  uint32_t resident_blocks = 0;
  uint32_t last_issued = 0;
  uint64_t clock = 0;
};

/// What the executor knows about the instruction in flight, for fault reports.
struct Ctx {
  uint32_t sm;
  uint32_t slot;
  Warp& warp;
  Block& block;
  uint32_t pc;
  uint64_t insn;
  const isa::InsnInfo* info;
};

struct State {
  State(const LaunchSpec& spec, const Occupancy& occ, DeviceMemory& memory);

  LaunchSpec spec;
  Occupancy occ;
  DeviceMemory& memory;
  std::vector<Sm> sms;
  std::vector<const isa::InsnInfo*> decoded;  // per PC, nullptr where the word is invalid
  uint32_t nregs = 0;
  uint32_t threads_per_block = 0;
  uint32_t warps_per_block = 0;
  uint32_t shared_bytes = 0;
  uint64_t total_blocks = 0;
  uint64_t next_block = 0;
  uint64_t blocks_done = 0;
  LaunchStats stats;
  std::vector<uint64_t*> pc_form;  // while coverage is on: per PC, its form's count in coverage().forms

  Dim3 block_index(uint64_t linear) const;
  Dim3 thread_index(uint32_t linear) const;
  void place_block(uint32_t sm, uint64_t linear);
  void warp_finished(uint32_t sm, Warp& w, Commit* commit);
  uint32_t expected_warps(const Block& b, const Barrier& bar) const;
  void try_release(uint32_t sm, Block& b, uint32_t id, Commit* commit);
  [[noreturn]] void report_deadlock(uint32_t sm);
  [[noreturn]] void report_runaway();
  FaultSite kernel_site() const;
  FaultSite block_site(const Block& b) const;

  void push(Warp& w, StackKind kind, uint32_t mask, uint32_t pc, const Ctx& c);
  void pop_until_active(Warp& w);
  void leave(Warp& w, uint32_t lanes, StackKind kind, const Ctx& c);

  /// Execute one instruction of a warp (execute.cpp).
  Commit execute(uint32_t sm, uint32_t slot, const StepInputs& inputs);
  /// Throw a fault located at the instruction in flight; `lane` names the thread.
  [[noreturn]] void fault(const Ctx& c, FaultKind kind, const std::string& what, std::optional<unsigned> lane = {}) const;
};

}  // namespace tsm::golden
