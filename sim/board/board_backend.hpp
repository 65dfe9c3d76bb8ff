// The runtime's "board" backend: the host driver (rtl/host_driver.hpp, the same code the rtl
// backend runs) over the FPGA board's UART bridge (board_link.hpp, docs/fpga.md). Device memory is
// the board's block RAM, one window [mem_base, mem_base + mem_bytes); the driver's code, constant
// banks and local memory are packed at its top for each launch. The board has no commit port, so
// there is no lockstep: programs compare their results with their C++ references.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "board/board_link.hpp"
#include "rtl/host_driver.hpp"
#include "runtime/runtime.hpp"

namespace tsm::board {

struct BoardOptions {
  std::string port = "/dev/ttyUSB0";
  LinkOptions link;
  /// Wall-clock seconds a launch may run on the board before the host gives up (0: derived from the
  /// watchdog and the board's clock).
  double launch_timeout_s = 0;
};

/// What the last launch did on the board.
struct BoardLaunchInfo {
  uint64_t cycles = 0;  // the GPU's cycle counter
  std::array<uint64_t, rtl::kNumCounters> counters{};
  double seconds = 0;   // wall clock from CTRL to done, polling included
};

class BoardBackend : public Backend {
 public:
  /// Opens the port, checks the board's identity (the bridge's, then the GPU's ID, NUM_SMS and
  /// CONFIG registers against `config`).
  BoardBackend(const config::SmConfig& config, const BoardOptions& options);
  ~BoardBackend() override;

  std::string name() const override { return "board"; }
  void map(DevicePtr addr, uint32_t bytes) override;
  void unmap(DevicePtr addr) override;
  void write(DevicePtr addr, std::span<const uint8_t> bytes) override;
  void read(DevicePtr addr, std::span<uint8_t> bytes) override;
  golden::LaunchStats launch(const golden::LaunchSpec& spec) override;
  uint32_t printf_buffer_bytes() const override { return kPrintfBytes; }

  const BoardInfo& info() const { return info_; }
  const BoardLaunchInfo& last_launch() const { return last_; }
  /// The performance counters summed over every launch that ended cleanly on this backend.
  const std::array<uint64_t, rtl::kNumCounters>& total_counters() const { return totals_; }
  BoardLink& link() { return *link_; }

  /// The board's printf buffer: its memory is small.
  static constexpr uint32_t kPrintfBytes = 4096;

 private:
  class Link;  // rtl::GpuLink over BoardLink
  void check_window(DevicePtr addr, uint64_t bytes, const char* what) const;

  config::SmConfig config_;
  BoardOptions options_;
  std::unique_ptr<BoardLink> link_;
  BoardInfo info_;
  std::unique_ptr<rtl::HostDriver> driver_;
  std::map<DevicePtr, uint32_t> allocations_;
  BoardLaunchInfo last_;
  std::array<uint64_t, rtl::kNumCounters> totals_{};
};

}  // namespace tsm::board
