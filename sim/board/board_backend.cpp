// The board backend (board_backend.hpp): the host driver over the UART bridge.
#include "board/board_backend.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "config/occupancy.hpp"

namespace tsm::board {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

/// The host driver's GpuLink over the board's UART: MMIO and memory are requests to the bridge; the
/// time between two STATUS polls is the round trip itself, with a wall-clock limit.
class BoardBackend::Link : public rtl::GpuLink {
 public:
  explicit Link(BoardLink& link) : link_(link) {}
  void mmio_write(uint32_t addr, uint32_t value) override { link_.mmio_write(addr, value); }
  uint32_t mmio_read(uint32_t addr) override { return link_.mmio_read(addr); }
  void mem_write(uint32_t addr, std::span<const uint8_t> bytes) override { link_.mem_write(addr, bytes); }
  void poll_wait() override {
    if (deadline_s_ > 0 && seconds_since(start_) > deadline_s_)
      throw BoardError(fmt::format("the board did not finish kernel '{}' within {:.1f} s: STATUS still reads busy although its watchdog "
                                   "should have stopped the kernel by then; press the board's reset button (BTN0) before the next run",
                                   kernel_, deadline_s_));
  }
  void arm(const std::string& kernel, double deadline_s) {
    kernel_ = kernel;
    deadline_s_ = deadline_s;
    start_ = Clock::now();
  }

 private:
  BoardLink& link_;
  std::string kernel_;
  double deadline_s_ = 0;
  Clock::time_point start_ = Clock::now();
};

BoardBackend::BoardBackend(const config::SmConfig& config, const BoardOptions& options) : config_(config), options_(options) {
  link_ = std::make_unique<BoardLink>(options.port, options.link);
  info_ = link_->identify();
  if (info_.num_sms == 0) throw BoardError(fmt::format("the board on {} reports a GPU with no SMs", options.port));
  config_.num_sms = info_.num_sms;
  driver_ = std::make_unique<rtl::HostDriver>(config_, 0);
  Link l(*link_);
  driver_->identify(l, info_.num_sms);
}

BoardBackend::~BoardBackend() = default;

void BoardBackend::check_window(DevicePtr addr, uint64_t bytes, const char* what) const {
  const uint64_t end = uint64_t{info_.mem_base} + info_.mem_bytes;
  if (addr < info_.mem_base || addr + bytes > end)
    throw RuntimeError(ErrorCode::MemoryAllocation,
                       fmt::format("{} [{:#010x}, {:#010x}) is outside the board's device memory [{:#010x}, {:#010x}) ({} KiB of block "
                                   "RAM): use a smaller problem size",
                                   what, addr, addr + bytes, info_.mem_base, end, info_.mem_bytes / 1024));
}

void BoardBackend::map(DevicePtr addr, uint32_t bytes) {
  check_window(addr, bytes, "an allocation at");
  allocations_[addr] = bytes;
}

void BoardBackend::unmap(DevicePtr addr) { allocations_.erase(addr); }

void BoardBackend::write(DevicePtr addr, std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  check_window(addr, bytes.size(), "a copy to the device at");
  link_->mem_write(addr, bytes);
}

void BoardBackend::read(DevicePtr addr, std::span<uint8_t> bytes) {
  if (bytes.empty()) return;
  check_window(addr, bytes.size(), "a copy from the device at");
  link_->mem_read(addr, bytes);
}

golden::LaunchStats BoardBackend::launch(const golden::LaunchSpec& in) {
  if (!in.module || !in.kernel) throw std::invalid_argument("LaunchSpec needs a module and a kernel");
  if (in.config && in.config->config_tag != config_.config_tag)
    throw RuntimeError(ErrorCode::InvalidValue, fmt::format("the launch is for configuration '{}', but the board runs '{}'",
                                                            in.config->name, config_.name));
  golden::LaunchSpec spec = in;
  spec.config = &config_;
  const KernelInfo& k = *spec.kernel;
  check_grid(config_, spec.grid);
  const Occupancy occ = compute_occupancy(config_, spec.block, {k.regs, k.shared_bytes + spec.dynamic_shared});

  Link link(*link_);
  const uint32_t status = link.mmio_read(rtl::mmio::kStatus);
  if (status & rtl::mmio::kStatusBusy)
    throw BoardError(fmt::format("the board's GPU is still running an earlier launch (STATUS {:#x}): wait for it, or press the board's "
                                 "reset button (BTN0)",
                                 status));

  // The driver's regions at the top of the board's memory, above every allocation.
  const uint32_t window_end = info_.mem_base + info_.mem_bytes;
  uint32_t used_end = info_.mem_base;
  for (const auto& [start, size] : allocations_) used_end = std::max(used_end, start + size);
  const rtl::LaunchImages images = driver_->images(spec, window_end - used_end);
  const rtl::Placement placement = rtl::HostDriver::packed_placement(images, used_end, window_end);
  for (const rtl::DriverRegion& r : rtl::HostDriver::regions(images, placement))
    if (!r.image.empty()) link.mem_write(r.addr, r.image);

  // The GPU's watchdog enforces the instruction budget's clock equivalent; the host waits for it
  // twice as long as that takes at the board's clock, and at least 10 s.
  const uint64_t per_instruction = golden::kWarpSize / config_.sp_lanes + config_.mem_latency;
  const uint64_t max_cycles = spec.instruction_budget > 0xFFFFFFFFu / per_instruction ? 0xFFFFFFFFu : spec.instruction_budget * per_instruction;
  const double deadline =
      options_.launch_timeout_s > 0 ? options_.launch_timeout_s
                                    : std::max(10.0, 2.0 * static_cast<double>(max_cycles) / std::max<uint32_t>(1, info_.clock_hz));
  rtl::HostDriver::start(link, driver_->descriptor(spec, placement, static_cast<uint32_t>(max_cycles)));
  link.arm(k.name, deadline);
  const auto t0 = Clock::now();
  const uint32_t end_status = rtl::HostDriver::wait(link);
  last_ = BoardLaunchInfo{};
  last_.seconds = seconds_since(t0);
  if (end_status & rtl::mmio::kStatusFault) {
    const rtl::RtlFault f = rtl::HostDriver::read_fault(link);
    throw rtl::HostDriver::fault(f, spec, info_.num_sms, rtl::HostDriver::read_counter(link, 0));
  }
  last_.counters = rtl::HostDriver::read_counters(link);
  last_.cycles = last_.counters[0];
  for (unsigned c = 0; c < rtl::kNumCounters; ++c) totals_[c] += last_.counters[c];

  golden::LaunchStats stats;
  stats.rounds = last_.counters[0];
  stats.warp_instructions = last_.counters[1];
  stats.thread_instructions = last_.counters[2];
  stats.blocks = static_cast<uint32_t>(spec.grid.count());
  stats.blocks_per_sm = occ.blocks_per_sm;
  return stats;
}

}  // namespace tsm::board
