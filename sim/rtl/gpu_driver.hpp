// The RTL backend of the runtime: a host driver that talks to the GPU top only through MMIO and
// the memory port (docs/gpu-interfaces.md), with the memory model behind the port and, when
// enabled, lockstep of the commit port against the golden model.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "golden/model.hpp"
#include "rtl/gpu_pins.hpp"
#include "rtl/lockstep.hpp"
#include "rtl/memory_model.hpp"
#include "rtl/timeline.hpp"
#include "rtl/trace_options.hpp"
#include "runtime/runtime.hpp"
#include "tsm/config_gen.hpp"

namespace tsm::rtl {

/// Driver-owned regions of device memory (docs/gpu-interfaces.md §2.1), mapped for each launch.
inline constexpr uint32_t kCodeBase = 0xF0000000;
inline constexpr uint32_t kCbankBase = 0xF1000000;
inline constexpr uint32_t kCbankStride = 0x10000;
inline constexpr uint32_t kLocalBase = 0xF2000000;

/// MMIO register addresses (docs/gpu-interfaces.md §1).
namespace mmio {
inline constexpr uint32_t kId = 0x000, kNumSms = 0x004, kConfigLo = 0x008, kConfigHi = 0x00C, kCtrl = 0x010, kStatus = 0x014;
inline constexpr uint32_t kCodeBase = 0x020, kEntryPc = 0x024, kGridX = 0x028, kGridY = 0x02C, kGridZ = 0x030;
inline constexpr uint32_t kBlockX = 0x034, kBlockY = 0x038, kBlockZ = 0x03C, kThreads = 0x040, kWarps = 0x044, kRegs = 0x048;
inline constexpr uint32_t kShared = 0x04C, kLocalBytes = 0x050, kLocalBase = 0x054, kBlocksPerSm = 0x058, kTotalBlocks = 0x05C;
inline constexpr uint32_t kWatchdog = 0x060, kCodeWords = 0x064, kActiveSms = 0x068, kCbankBase0 = 0x080;
inline constexpr uint32_t kFaultKind = 0x100, kFaultSm = 0x104, kFaultWarp = 0x108, kFaultPc = 0x10C, kFaultAddr = 0x110, kFaultLane = 0x114;
inline constexpr uint32_t kCounter0 = 0x200;  // COUNTER[k]: lo at kCounter0 + 8k, hi at + 4
inline constexpr uint32_t kIdValue = 0x314D5354;  // "TSM1"
inline constexpr uint32_t kStatusBusy = 1, kStatusDone = 2, kStatusFault = 4;
}  // namespace mmio

struct RtlOptions {
  bool lockstep = true;
  uint32_t active_sms = 0;                  // SMs that take blocks (ACTIVE_SMS); 0: all of the model's
  std::optional<uint32_t> latency;          // memory latency in clocks; default: the configuration's mem_latency
  std::optional<uint32_t> bytes_per_clock;  // memory bandwidth; default: the configuration's mem_bytes_per_clock
  uint64_t max_cycles = 0;                  // 0: derived from the launch's instruction budget
  /// Clocks without a commit event before the run is declared hung (memory traffic alone does not
  /// count: a GPU can livelock re-fetching); 0: max(100000, 50 x latency).
  uint64_t hang_cycles = 0;
  TraceOptions trace;  // FST waveform and warp timeline (docs/waveforms.md)
};

/// What the last launch did on the GPU, beyond LaunchStats.
/// The GPU's performance counters (COUNTER[k], docs/sm-rtl.md §4), summed over the SMs.
inline constexpr unsigned kNumCounters = 12;
inline constexpr std::array<const char*, kNumCounters> kCounterNames{
    "cycles",        "warp_instructions", "thread_instructions", "sp_busy",        "sfu_busy",     "stall_scoreboard",
    "stall_barrier", "stall_fetch",       "memory_requests",     "bank_conflicts", "transactions", "sp_sfu_together"};

struct RtlLaunchInfo {
  uint64_t cycles = 0;        // from the CTRL write to the end of the launch
  uint64_t retired = 0;       // RETIRE events seen
  MemoryCounters memory;      // the memory port's traffic in this launch
  std::array<uint64_t, kNumCounters> counters{};  // read from the GPU at the end of the launch
};

class RtlBackend : public Backend {
 public:
  RtlBackend(const config::SmConfig& config, std::unique_ptr<GpuPins> pins, RtlOptions options = {});
  ~RtlBackend() override;

  std::string name() const override { return "rtl"; }
  void map(DevicePtr addr, uint32_t bytes) override { memory_.map(addr, bytes); }
  void unmap(DevicePtr addr) override { memory_.unmap(addr); }
  void write(DevicePtr addr, std::span<const uint8_t> bytes) override { memory_.write(addr, bytes); }
  void read(DevicePtr addr, std::span<uint8_t> bytes) override { memory_.read(addr, bytes); }
  /// Throws golden::Fault for a kernel fault, LockstepMismatch when the RTL and the golden model
  /// disagree, PortError when the GPU breaks the interface protocol (or hangs).
  golden::LaunchStats launch(const golden::LaunchSpec& spec) override;

  const RtlLaunchInfo& last_launch() const { return last_; }
  /// The performance counters summed over every launch that ended cleanly on this backend.
  const std::array<uint64_t, kNumCounters>& total_counters() const { return totals_; }
  const MemoryModel& memory() const { return memory_; }
  /// Clocks since the model was created: where a failure happened, for --trace-on-fail.
  uint64_t clock() const { return cycle_; }
  /// Instructions the timeline holds (0 without --timeline).
  uint64_t timeline_instructions() const { return timeline_ ? timeline_->instructions() : 0; }
  GpuPins& pins() { return *pins_; }
  /// The configuration the GPU runs: the given one with num_sms set to the model's.
  const config::SmConfig& config() const { return config_; }
  /// What kernels see (and the golden model runs in lockstep): num_sms set to the active SMs.
  const config::SmConfig& kernel_config() const { return kernel_config_; }

 private:
  struct Run;  // one launch's cycle loop state
  bool debug_events_ = std::getenv("TSM_RTL_EVENTS") != nullptr;  // print every commit event to stderr
  void cycle(Run& run, bool mmio_valid = false, bool mmio_write = false, uint32_t addr = 0, uint32_t wdata = 0);
  void mmio_write(Run& run, uint32_t addr, uint32_t value);
  uint32_t mmio_read(Run& run, uint32_t addr);
  uint64_t read_counter(Run& run, unsigned k);
  void identify(Run& run);
  [[noreturn]] void report_fault(Run& run, const golden::LaunchSpec& spec);

  config::SmConfig config_;         // num_sms: the model's, for the local-memory layout
  config::SmConfig kernel_config_;  // num_sms: the SMs that take blocks
  std::unique_ptr<GpuPins> pins_;
  RtlOptions options_;
  MemoryModel memory_;
  uint64_t cycle_ = 0;          // clocks since the model was created
  bool needs_reset_ = true;     // before the first launch and after one that did not end cleanly
  RtlLaunchInfo last_;
  std::array<uint64_t, kNumCounters> totals_{};
  bool tracing_ = false;                 // an FST is open
  std::unique_ptr<Timeline> timeline_;   // --timeline
};

}  // namespace tsm::rtl
