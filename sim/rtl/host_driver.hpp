// The host driver of the GPU top (docs/gpu-interfaces.md): what a driver does for a launch — lay
// out the code, the constant banks and local memory, check the GPU's identity, write the
// descriptor over MMIO, start it, poll STATUS, read a fault and the performance counters — written
// once, over a GpuLink. The rtl and netlist backends (RtlBackend) run it over the clocked Verilated
// model; the board backend (sim/board) runs it over the FPGA board's UART bridge (docs/fpga.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/occupancy.hpp"
#include "golden/model.hpp"
#include "rtl/lockstep.hpp"
#include "tsm/config_gen.hpp"

namespace tsm::rtl {

/// MMIO register addresses (docs/gpu-interfaces.md §1).
namespace mmio {
inline constexpr uint32_t kId = 0x000, kNumSms = 0x004, kConfigLo = 0x008, kConfigHi = 0x00C, kCtrl = 0x010, kStatus = 0x014;
inline constexpr uint32_t kCodeBase = 0x020, kEntryPc = 0x024, kGridX = 0x028, kGridY = 0x02C, kGridZ = 0x030;
inline constexpr uint32_t kBlockX = 0x034, kBlockY = 0x038, kBlockZ = 0x03C, kThreads = 0x040, kWarps = 0x044, kRegs = 0x048;
inline constexpr uint32_t kShared = 0x04C, kLocalBytes = 0x050, kLocalBase = 0x054, kBlocksPerSm = 0x058, kTotalBlocks = 0x05C;
inline constexpr uint32_t kWatchdog = 0x060, kCodeWords = 0x064, kActiveSms = 0x068, kSchedPolicy = 0x06C, kCbankBase0 = 0x080;
inline constexpr uint32_t kFaultKind = 0x100, kFaultSm = 0x104, kFaultWarp = 0x108, kFaultPc = 0x10C, kFaultAddr = 0x110, kFaultLane = 0x114;
inline constexpr uint32_t kCounter0 = 0x200;  // COUNTER[k]: lo at kCounter0 + 8k, hi at + 4
inline constexpr uint32_t kIdValue = 0x314D5354;  // "TSM1"
inline constexpr uint32_t kStatusBusy = 1, kStatusDone = 2, kStatusFault = 4;
}  // namespace mmio

/// The warp-scheduling policies of SCHED_POLICY (docs/sm-rtl.md §2.3), by register value: the
/// names --sched takes.
inline constexpr std::array<const char*, 2> kSchedPolicyNames{"lrr", "gto"};
/// The SCHED_POLICY value of a policy name, or nullopt for an unknown one.
inline std::optional<uint32_t> sched_policy_value(std::string_view name) {
  for (uint32_t i = 0; i < kSchedPolicyNames.size(); ++i)
    if (name == kSchedPolicyNames[i]) return i;
  return std::nullopt;
}
/// "lrr, gto": the names, for help texts and messages (inline: the option parsers use it without
/// linking the driver).
inline std::string sched_policy_list() {
  std::string list;
  for (const char* name : kSchedPolicyNames) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

/// The GPU's performance counters (COUNTER[k], docs/sm-rtl.md §4), summed over the SMs.
inline constexpr unsigned kNumCounters = 12;
inline constexpr std::array<const char*, kNumCounters> kCounterNames{
    "cycles",        "warp_instructions", "thread_instructions", "sp_busy",        "sfu_busy",     "stall_scoreboard",
    "stall_barrier", "stall_fetch",       "memory_requests",     "bank_conflicts", "transactions", "sp_sfu_together"};

inline constexpr unsigned kCbanks = golden::kNumBanks;

/// The simulator's driver regions (docs/gpu-interfaces.md §2.1), mapped for each launch.
inline constexpr uint32_t kCodeBase = 0xF0000000;
inline constexpr uint32_t kCbankBase = 0xF1000000;
inline constexpr uint32_t kCbankStride = 0x10000;
inline constexpr uint32_t kLocalBase = 0xF2000000;

/// How the driver reaches a GPU: its MMIO registers and device memory.
class GpuLink {
 public:
  virtual ~GpuLink() = default;
  virtual void mmio_write(uint32_t addr, uint32_t value) = 0;
  virtual uint32_t mmio_read(uint32_t addr) = 0;
  virtual void mem_write(uint32_t addr, std::span<const uint8_t> bytes) = 0;
  /// What passes between two STATUS reads of a running launch (clocks, or time on a board).
  virtual void poll_wait() = 0;
};

/// What a launch needs in device memory besides the user's allocations.
struct LaunchImages {
  std::vector<uint8_t> code;                          // the module's text, 8 bytes an instruction
  std::array<std::vector<uint8_t>, kCbanks> cbanks;   // each bank's image (empty: unused)
  uint64_t local_bytes = 0;                           // the local-memory region (docs/gpu-interfaces.md §2.3)
};

/// Where a launch's regions go.
struct Placement {
  uint32_t code_base = 0;
  uint32_t code_bytes = 0;
  std::array<uint32_t, kCbanks> cbank_base{};
  std::array<uint32_t, kCbanks> cbank_bytes{};  // 0: the bank has no region
  uint32_t local_base = 0;
};

/// One region the driver maps and fills for a launch.
struct DriverRegion {
  uint32_t addr = 0;
  uint32_t bytes = 0;
  std::span<const uint8_t> image;  // written at addr; the rest of the region is not written
  const char* what = "";
};

/// The descriptor registers of a launch and their values, in the order they are written (CTRL last,
/// not included).
using Descriptor = std::vector<std::pair<uint32_t, uint32_t>>;

/// The driver's own steps. `config` is the GPU's (num_sms: the SMs it has); `active_sms` the SMs
/// that take blocks (0: all).
class HostDriver {
 public:
  HostDriver(const config::SmConfig& config, uint32_t active_sms, uint32_t sched_policy = 0)
      : config_(config), active_sms_(active_sms), sched_policy_(sched_policy) {}

  /// The ID, NUM_SMS and CONFIG registers: a TeslaSM GPU with `num_sms` SMs of this configuration.
  /// Throws PortError naming what differs.
  void identify(GpuLink& link, unsigned num_sms) const;

  /// The code, constant-bank images and local-memory size of a launch. Throws RuntimeError when
  /// its local memory exceeds `local_limit` bytes.
  LaunchImages images(const golden::LaunchSpec& spec, uint64_t local_limit) const;
  /// The simulator's fixed address map (docs/gpu-interfaces.md §2.1): code at 0xF0000000, bank i at
  /// 0xF1000000 + 0x10000·i (64 KiB each), local memory at 0xF2000000.
  static Placement simulator_placement(const LaunchImages& images);
  /// Everything packed downwards from `end` (exclusive), 256-byte aligned, each bank no larger than
  /// its image: a board's small memory. Throws RuntimeError when it would reach below `begin`.
  static Placement packed_placement(const LaunchImages& images, uint32_t begin, uint32_t end);
  static std::vector<DriverRegion> regions(const LaunchImages& images, const Placement& placement);

  /// The descriptor of `spec` with its regions at `placement` and the WATCHDOG value `watchdog`.
  Descriptor descriptor(const golden::LaunchSpec& spec, const Placement& placement, uint32_t watchdog) const;
  /// Writes the descriptor, then CTRL: the launch starts.
  static void start(GpuLink& link, const Descriptor& descriptor);
  /// Polls STATUS until it is not busy; returns it. Throws PortError when it is neither done nor faulted.
  static uint32_t wait(GpuLink& link);
  /// The FAULT_* registers after STATUS reported a fault. Throws PortError for an undefined kind.
  static RtlFault read_fault(GpuLink& link);
  /// The kernel fault of `f` as the runtime reports it; `clocks` is how long the launch ran (the
  /// watchdog's message names it).
  static golden::Fault fault(const RtlFault& f, const golden::LaunchSpec& spec, unsigned num_sms, uint64_t clocks,
                             std::string* message = nullptr);
  static uint64_t read_counter(GpuLink& link, unsigned k);
  static std::array<uint64_t, kNumCounters> read_counters(GpuLink& link);

  const config::SmConfig& config() const { return config_; }

 private:
  config::SmConfig config_;
  uint32_t active_sms_;
  uint32_t sched_policy_;  // SCHED_POLICY
};

}  // namespace tsm::rtl
