// The RTL backend of the runtime: the host driver (host_driver.hpp) talking to the clocked GPU top
// only through MMIO and the memory port (docs/gpu-interfaces.md), with the memory model behind the
// port and, when enabled, lockstep of the commit port against the golden model.
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
#include "rtl/host_driver.hpp"
#include "rtl/lockstep.hpp"
#include "rtl/memory_model.hpp"
#include "rtl/timeline.hpp"
#include "rtl/trace_options.hpp"
#include "runtime/runtime.hpp"
#include "tsm/config_gen.hpp"

namespace tsm::rtl {

struct RtlOptions {
  bool lockstep = true;
  uint32_t active_sms = 0;                  // SMs that take blocks (ACTIVE_SMS); 0: all of the model's
  uint32_t sched_policy = 0;                // the warp-scheduling policy (SCHED_POLICY; kSchedPolicyNames)
  std::optional<uint32_t> latency;          // memory latency in clocks; default: the configuration's mem_latency
  std::optional<uint32_t> bytes_per_clock;  // memory bandwidth; default: the configuration's mem_bytes_per_clock
  uint64_t max_cycles = 0;                  // 0: derived from the launch's instruction budget
  /// Clocks without a commit event before the run is declared hung (memory traffic alone does not
  /// count: a GPU can livelock re-fetching); 0: max(100000, 50 x latency).
  uint64_t hang_cycles = 0;
  TraceOptions trace;  // FST waveform and warp timeline (docs/waveforms.md)
};

/// What the last launch did on the GPU, beyond LaunchStats.
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
  class ClockedLink;  // the host driver's GpuLink: MMIO clock by clock, memory straight into the model
  bool debug_events_ = std::getenv("TSM_RTL_EVENTS") != nullptr;  // print every commit event to stderr
  void cycle(Run& run, bool mmio_valid = false, bool mmio_write = false, uint32_t addr = 0, uint32_t wdata = 0);
  void mmio_write(Run& run, uint32_t addr, uint32_t value);
  uint32_t mmio_read(Run& run, uint32_t addr);
  [[noreturn]] void report_fault(Run& run, GpuLink& link, const golden::LaunchSpec& spec);

  config::SmConfig config_;         // num_sms: the model's, for the local-memory layout
  config::SmConfig kernel_config_;  // num_sms: the SMs that take blocks
  std::unique_ptr<GpuPins> pins_;
  RtlOptions options_;
  HostDriver driver_;
  MemoryModel memory_;
  uint64_t cycle_ = 0;          // clocks since the model was created
  bool needs_reset_ = true;     // before the first launch and after one that did not end cleanly
  RtlLaunchInfo last_;
  std::array<uint64_t, kNumCounters> totals_{};
  bool tracing_ = false;                 // an FST is open
  std::unique_ptr<Timeline> timeline_;   // --timeline
};

}  // namespace tsm::rtl
