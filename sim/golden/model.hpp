// The golden functional model: executes a kernel binary exactly as docs/isa.md specifies, warp by
// warp, and reports each retired warp instruction as a commit record. Theory of operation:
// docs/golden-model.md.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "config/occupancy.hpp"
#include "golden/fault.hpp"
#include "golden/memory.hpp"
#include "isa/module.hpp"
#include "tsm/config_gen.hpp"

namespace tsm::golden {

inline constexpr unsigned kWarpSize = 32;
inline constexpr unsigned kNumBanks = 16;

/// Everything one launch needs. The runtime builds it; every backend receives the same.
struct LaunchSpec {
  const Module* module = nullptr;
  const KernelInfo* kernel = nullptr;
  Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  std::array<std::vector<uint8_t>, kNumBanks> cbanks;  // c[0] = launch information + parameters
  const config::SmConfig* config = nullptr;
  uint64_t instruction_budget = 200'000'000;  // warp instructions before a runaway-kernel fault
};

/// Values the RTL supplies in lockstep because the golden model cannot predict them (SPEC §4.2).
struct StepInputs {
  std::optional<uint64_t> clock;  // the SM's cycle counter as the instruction read it
  /// Per lane: the value a global load or atomic returned (old value), for loads racing with
  /// other SMs and for atomics, whose order only the memory side knows.
  std::optional<std::array<std::array<uint32_t, 4>, kWarpSize>> memory_results;
};

/// One retired warp instruction: what the RTL's commit port reports and lockstep compares.
struct Commit {
  uint32_t sm = 0;
  uint32_t warp_slot = 0;  // warp slot in the SM
  uint64_t seq = 0;        // per-warp sequence number, from 0
  uint32_t pc = 0;
  uint64_t insn = 0;
  uint32_t active = 0;    // lanes active when it issued
  uint32_t executed = 0;  // active lanes whose guard held
  struct RegWrite {
    uint8_t reg = 0;
    uint8_t count = 1;  // registers written per lane (pairs, quads)
    uint32_t lanes = 0;
    std::array<std::array<uint32_t, 4>, kWarpSize> values{};
  };
  struct PredWrite {
    uint8_t pred = 0;
    uint32_t lanes = 0;
    uint32_t values = 0;  // bit per lane
  };
  struct Store {  // a global store or atomic, as memory performed it
    uint32_t lane = 0;
    uint32_t addr = 0;
    uint8_t bytes = 0;
    std::array<uint32_t, 4> data{};
    bool atomic = false;
    /// Atomics: the operation applied to the old value the thread got back (the word after this
    /// atomic in the memory's order). It differs from `data` where the golden model combined an
    /// order-free atomic with its own memory (StepInputs.memory_results).
    uint64_t step = 0;
  };
  std::vector<RegWrite> regs;
  std::vector<PredWrite> preds;
  std::vector<Store> stores;
  bool warp_exited = false;     // the warp has no live threads left
  bool barrier_wait = false;    // the warp arrived at a barrier and waits for the others
  /// Warps this instruction released from a barrier (its own included), with the reduction
  /// result a BRED writes into each of them.
  struct Release {
    uint32_t warp_slot = 0;
    std::optional<RegWrite> reduction;
  };
  std::vector<Release> released;
};

struct LaunchStats {
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;  // executed lanes summed over warp instructions
  uint64_t rounds = 0;               // scheduler rounds (one instruction per SM per round at most)
  uint32_t blocks = 0;
  uint32_t blocks_per_sm = 0;  // occupancy
  std::array<uint64_t, 6> by_unit{};  // warp instructions per isa::gen::Unit
};

struct State;

class GoldenModel {
 public:
  explicit GoldenModel(DeviceMemory& memory);
  ~GoldenModel();
  GoldenModel(const GoldenModel&) = delete;
  GoldenModel& operator=(const GoldenModel&) = delete;

  /// Check the launch against the configuration and prepare empty SMs. Throws LaunchConfigError.
  void begin(const LaunchSpec& spec);

  /// Run the whole grid with the documented scheduling policy. Throws Fault.
  LaunchStats run();

  // ---- lockstep interface: the RTL decides placement and order ---------------------------------
  /// Put block `linear_block` (x fastest) on `sm`; its warps take the lowest free warp slots.
  void place_block(uint32_t sm, uint32_t linear_block);
  /// Execute one instruction of the warp in `warp_slot` of `sm`. Throws Fault.
  Commit step(uint32_t sm, uint32_t warp_slot, const StepInputs& inputs = {});
  /// Can the warp issue now (resident, not exited, not waiting at a barrier)?
  bool ready(uint32_t sm, uint32_t warp_slot) const;
  bool finished() const;
  const LaunchStats& stats() const;
  /// Throw the barrier-deadlock fault of `sm` (which barrier waits for how many warps), as run()
  /// reports it when no warp of the SM can issue; lockstep uses it to explain the RTL's deadlock.
  [[noreturn]] void report_deadlock(uint32_t sm);

 private:
  std::unique_ptr<State> state_;
  DeviceMemory& memory_;
};

}  // namespace tsm::golden
