// The rtl backend: the host driver (host_driver.cpp) over a link that clocks the model with the
// memory model on its port, and turns a fault, a hang or a lockstep difference into the runtime's
// exceptions.
#include "rtl/gpu_driver.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "config/occupancy.hpp"
#include "golden/coverage.hpp"
#include "isa/isa.hpp"

namespace tsm::rtl {

namespace {

constexpr unsigned kPollPeriod = 16;  // clocks from one STATUS read to the next

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / 4 / a) return std::numeric_limits<uint64_t>::max() / 4;
  return a * b;
}

/// Driver regions mapped for one launch; unmapped however the launch ends.
class LaunchRegions {
 public:
  explicit LaunchRegions(MemoryModel& m) : memory_(m) {}
  ~LaunchRegions() {
    for (uint32_t start : starts_) memory_.unmap(start);
  }
  LaunchRegions(const LaunchRegions&) = delete;
  LaunchRegions& operator=(const LaunchRegions&) = delete;

  void add(uint32_t addr, uint32_t bytes, const char* what) {
    for (const auto& [start, size] : memory_.allocations())
      if (uint64_t{start} < uint64_t{addr} + bytes && uint64_t{addr} < uint64_t{start} + size)
        throw RuntimeError(ErrorCode::MemoryAllocation,
                           fmt::format("the RTL driver needs device memory [{:#010x}, {:#010x}) for {}, but the allocation at {:#010x} "
                                       "({} bytes) overlaps it",
                                       addr, uint64_t{addr} + bytes, what, start, size));
    memory_.map(addr, bytes);
    starts_.push_back(addr);
  }

 private:
  MemoryModel& memory_;
  std::vector<uint32_t> starts_;
};

}  // namespace

struct RtlBackend::Run {
  const golden::LaunchSpec* spec = nullptr;
  Lockstep* lockstep = nullptr;
  uint64_t start = 0;         // cycle of the CTRL write
  uint64_t max_cycles = std::numeric_limits<uint64_t>::max();   // the limit the user asked for
  uint64_t cycle_limit = std::numeric_limits<uint64_t>::max();  // when the driver stops waiting
  uint64_t budget = std::numeric_limits<uint64_t>::max();
  uint64_t hang_cycles = std::numeric_limits<uint64_t>::max();
  uint64_t last_progress = 0;          // the last clock with a commit event or a write request
  uint64_t requests_since_progress = 0;
  uint64_t retired = 0;
  bool started = false;
  std::optional<uint32_t> read_data;  // MMIO read data seen in the last clock
};

RtlBackend::RtlBackend(const config::SmConfig& config, std::unique_ptr<GpuPins> pins, RtlOptions options)
    : config_(config),
      pins_(std::move(pins)),
      options_(options),
      driver_(config, options.active_sms, options.sched_policy),
      memory_(options.latency.value_or(config.mem_latency), options.bytes_per_clock.value_or(config.mem_bytes_per_clock)) {
  if (!pins_) throw std::invalid_argument("RtlBackend needs a GPU model");
  if (pins_->sp_lanes() != config.sp_lanes)
    throw std::invalid_argument(fmt::format("the GPU model has {} SP lanes per SM, configuration '{}' has {}: it was built for another "
                                            "configuration",
                                            pins_->sp_lanes(), config.name, config.sp_lanes));
  if (pins_->num_sms() == 0) throw std::invalid_argument("the GPU model has no SMs");
  if (options.active_sms > pins_->num_sms())
    throw std::invalid_argument(fmt::format("{} active SMs asked for, but the GPU model of configuration '{}' has {}", options.active_sms,
                                            config.name, pins_->num_sms()));
  if (options.sched_policy >= kSchedPolicyNames.size())
    throw std::invalid_argument(fmt::format("warp-scheduling policy {} does not exist (SCHED_POLICY 0 to {}: {})", options.sched_policy,
                                            kSchedPolicyNames.size() - 1, sched_policy_list()));
  config_.num_sms = pins_->num_sms();  // the top level's NumSms parameter may differ from the default
  kernel_config_ = config_;
  driver_ = HostDriver(config_, options.active_sms, options.sched_policy);
  if (options.active_sms) kernel_config_.num_sms = options.active_sms;
  if (!options_.trace.fst.empty()) {
    if (!pins_->can_trace())
      throw std::invalid_argument("this GPU model was built without the FST writer: --trace needs the rtl backend's RTL model");
    if (options_.trace.from > options_.trace.to)
      throw std::invalid_argument(fmt::format("the trace window ends (clock {}) before it starts (clock {})", options_.trace.to,
                                              options_.trace.from));
    try {
      pins_->trace_open(options_.trace.fst, options_.trace.depth);
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());
    }
    tracing_ = true;
  }
  if (!options_.trace.timeline.empty()) timeline_ = std::make_unique<Timeline>();
}

RtlBackend::~RtlBackend() {
  if (tracing_) pins_->trace_close();
  if (timeline_) {
    try {
      timeline_->write(options_.trace.timeline, cycle_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
    }
  }
}

// ---- the clock --------------------------------------------------------------------------------------

void RtlBackend::cycle(Run& run, bool mmio_valid, bool mmio_write, uint32_t addr, uint32_t wdata) {
  pins_->set_mmio(mmio_valid, mmio_write, addr, wdata);
  const bool ready = memory_.ready(cycle_);
  pins_->set_mem_req_ready(ready);
  const std::optional<MemResponse> response = memory_.response(cycle_);
  pins_->set_mem_resp(response.has_value(), response.value_or(MemResponse{}));
  pins_->eval();
  if (timeline_) {
    for (unsigned sm = 0; sm < pins_->num_sms(); ++sm) {
      if (const std::optional<IssueEvent> is = pins_->issue(sm)) timeline_->issue(sm, *is, cycle_);
      timeline_->stalls(sm, pins_->stalls(sm), cycle_);
    }
  }

  // Per SM, the commit port's event, then the retire channel's.
  for (unsigned ch = 0; ch < 2 * pins_->num_sms(); ++ch) {
    const unsigned sm = ch / 2;
    const std::optional<CommitEvent> e = ch % 2 == 0 ? pins_->commit(sm) : pins_->commit_retire(sm);
    if (!e) continue;
    run.last_progress = cycle_;
    run.requests_since_progress = 0;
    if (debug_events_)
      std::fprintf(stderr, "[%llu] sm%u k%u w%u seq%u pc%u act%08x exe%08x exit%d r%u g%u l%x d%08x,%08x a%08x m%04x\n",
                   static_cast<unsigned long long>(cycle_), e->sm, e->kind, e->warp, e->seq, e->pc, e->active, e->exec,
                   e->exit, e->reg, e->group, e->lanes, e->data[0], e->data[1], e->addr, e->mask);
    if (e->kind == kRetire || e->kind == kRegRetire || e->kind == kPredRetire) {
      ++run.retired;
      if (timeline_) timeline_->retire(*e, cycle_);
    }
    if (run.lockstep) run.lockstep->on_event(*e, cycle_);
  }
  run.read_data = pins_->mmio_rvalid() ? std::optional<uint32_t>(pins_->mmio_rdata()) : std::nullopt;
  // Reads alone are not progress: a GPU that keeps fetching but commits nothing is stuck. Writes
  // are: placing a block zeroes its local memory before any of its instructions retires, which on
  // a large block takes more clocks than the hang window.
  if (ready && pins_->mem_req_valid()) {
    const MemRequest req = pins_->mem_req();
    memory_.accept(req, cycle_);
    ++run.requests_since_progress;
    if (req.kind == kMemWrite) {
      run.last_progress = cycle_;
      run.requests_since_progress = 0;
    }
  }
  if (response && pins_->mem_resp_ready()) memory_.pop();
  if (tracing_ && cycle_ >= options_.trace.from && cycle_ <= options_.trace.to) pins_->trace_clock(cycle_);
  pins_->tick();
  ++cycle_;

  if (!run.started) return;
  const std::string kernel = run.spec->kernel->name;
  golden::FaultSite site;
  site.kernel = kernel;
  if (run.retired > run.budget)
    throw golden::Fault(golden::FaultKind::RunawayKernel,
                        fmt::format("the kernel executed more than {} warp instructions on the RTL without finishing (raise the budget "
                                    "if this is intended; otherwise look for a loop whose exit condition never holds)",
                                    run.budget),
                        site);
  if (cycle_ - run.start > run.cycle_limit)
    throw golden::Fault(golden::FaultKind::RunawayKernel,
                        fmt::format("the kernel ran for more than {} clocks on the RTL without finishing (the cycle limit; raise it "
                                    "with RtlOptions::max_cycles if this is intended)",
                                    run.max_cycles),
                        site);
  if (cycle_ - run.last_progress > run.hang_cycles)
    throw PortError(fmt::format("the GPU hangs: no commit event or memory write for {} clocks while running kernel '{}' (clock {}, {} instructions "
                                "retired; meanwhile {} memory requests, {} responses outstanding)",
                                run.hang_cycles, kernel, cycle_, run.retired, run.requests_since_progress, memory_.outstanding()));
}

void RtlBackend::mmio_write(Run& run, uint32_t addr, uint32_t value) { cycle(run, true, true, addr, value); }

uint32_t RtlBackend::mmio_read(Run& run, uint32_t addr) {
  cycle(run, true, false, addr);
  cycle(run);
  if (!run.read_data)
    throw PortError(fmt::format("MMIO read of register {:#05x}: mmio_rvalid_o did not rise the clock after the read (clock {})", addr, cycle_));
  return *run.read_data;
}

class RtlBackend::ClockedLink : public GpuLink {
 public:
  ClockedLink(RtlBackend& backend, Run& run) : b_(backend), run_(run) {}
  void mmio_write(uint32_t addr, uint32_t value) override { b_.mmio_write(run_, addr, value); }
  uint32_t mmio_read(uint32_t addr) override { return b_.mmio_read(run_, addr); }
  void mem_write(uint32_t addr, std::span<const uint8_t> bytes) override { b_.memory_.write(addr, bytes); }
  void poll_wait() override {
    for (unsigned i = 0; i + 2 < kPollPeriod; ++i) b_.cycle(run_);  // the STATUS read takes the other two clocks
  }

 private:
  RtlBackend& b_;
  Run& run_;
};

// ---- a launch ---------------------------------------------------------------------------------------

golden::LaunchStats RtlBackend::launch(const golden::LaunchSpec& in) {
  if (!in.module || !in.kernel) throw std::invalid_argument("LaunchSpec needs a module and a kernel");
  if (in.config && in.config->config_tag != config_.config_tag)
    throw RuntimeError(ErrorCode::InvalidValue, fmt::format("the launch is for configuration '{}', but the RTL backend runs '{}'",
                                                            in.config->name, config_.name));
  golden::LaunchSpec spec = in;
  spec.config = &kernel_config_;
  const KernelInfo& k = *spec.kernel;
  check_grid(config_, spec.grid);
  const Occupancy occ = compute_occupancy(config_, spec.block, {k.regs, k.shared_bytes + spec.dynamic_shared});

  Run run;
  run.spec = &spec;
  ClockedLink link(*this, run);
  try {
    if (needs_reset_) {
      pins_->reset();
      memory_.drop_outstanding();
      driver_.identify(link, pins_->num_sms());
      needs_reset_ = false;
    }

    // Code, constant banks and local memory, as docs/gpu-interfaces.md §2.1 lays them out.
    const LaunchImages images = driver_.images(spec, isa::gen::kSharedWindowBase - kLocalBase);
    const Placement placement = HostDriver::simulator_placement(images);
    LaunchRegions regions(memory_);
    for (const DriverRegion& r : HostDriver::regions(images, placement)) {
      regions.add(r.addr, r.bytes, r.what);
      if (!r.image.empty()) link.mem_write(r.addr, r.image);
    }

    std::unique_ptr<Lockstep> lockstep;
    if (options_.lockstep) {
      LockstepOptions lo;
      if (images.local_bytes) lo.private_regions.emplace_back(placement.local_base, static_cast<uint32_t>(images.local_bytes));
      lockstep = std::make_unique<Lockstep>(memory_, spec, lo);
      run.lockstep = lockstep.get();
    }

    // Limits: the instruction budget as the golden model has it, a cycle limit, a hang detector.
    const uint32_t latency = memory_.latency();
    run.budget = spec.instruction_budget;
    run.max_cycles = options_.max_cycles ? options_.max_cycles
                                         : saturating_mul(spec.instruction_budget, golden::kWarpSize / config_.sp_lanes + latency);
    run.hang_cycles = options_.hang_cycles ? options_.hang_cycles : std::max<uint64_t>(100000, uint64_t{50} * latency);
    // A limit that fits the WATCHDOG register is the GPU's to enforce (it reports a runaway fault);
    // the driver waits a few polls longer before it gives up on its own.
    const bool watchdog = run.max_cycles <= 0xFFFFFFFFu;
    run.cycle_limit = watchdog ? run.max_cycles + 4 * kPollPeriod : run.max_cycles;

    // The descriptor, then CTRL.
    for (const auto& [addr, value] : driver_.descriptor(spec, placement, watchdog ? static_cast<uint32_t>(run.max_cycles) : 0u))
      link.mmio_write(addr, value);
    memory_.reset_counters();
    if (timeline_) timeline_->begin_launch(k.name, spec.module->text, cycle_);
    link.mmio_write(mmio::kCtrl, 1);
    run.start = run.last_progress = cycle_;
    run.started = true;

    const uint32_t status = HostDriver::wait(link);
    if (status & mmio::kStatusFault) report_fault(run, link, spec);
    while (memory_.outstanding() > 0) cycle(run);  // done should imply this; be sure memory is final

    golden::LaunchStats stats;
    last_ = RtlLaunchInfo{cycle_ - run.start, run.retired, memory_.counters(), {}};
    if (lockstep) lockstep->finish(cycle_);
    last_.counters = HostDriver::read_counters(link);
    if (lockstep) {
      stats = lockstep->stats();
    } else {
      stats.rounds = last_.counters[0];
      stats.warp_instructions = last_.counters[1];
      stats.thread_instructions = last_.counters[2];
      stats.blocks = static_cast<uint32_t>(spec.grid.count());
      stats.blocks_per_sm = occ.blocks_per_sm;
    }
    for (unsigned c = 0; c < kNumCounters; ++c) totals_[c] += last_.counters[c];
    if (golden::coverage_enabled()) {  // the stall reasons this launch reached (docs/sm-rtl.md §4)
      golden::coverage().stalls["scoreboard"] += last_.counters[5];
      golden::coverage().stalls["barrier"] += last_.counters[6];
      golden::coverage().stalls["fetch"] += last_.counters[7];
    }
    return stats;
  } catch (...) {
    if (tracing_) pins_->trace_flush();  // the trace up to the failure, whatever ends the run next
    needs_reset_ = true;  // the GPU may be mid-launch: start the next one from reset
    last_ = RtlLaunchInfo{run.started ? cycle_ - run.start : 0, run.retired, memory_.counters(), {}};
    throw;
  }
}

void RtlBackend::report_fault(Run& run, GpuLink& link, const golden::LaunchSpec& spec) {
  const RtlFault f = HostDriver::read_fault(link);
  // The first fault stops issue; requests already sent still complete (and lockstep sees them).
  while (memory_.outstanding() > 0) cycle(run);
  std::string message;
  golden::Fault fault = HostDriver::fault(f, spec, pins_->num_sms(), cycle_ - run.start, &message);
  if (run.lockstep) run.lockstep->confirm_fault(f, message, cycle_);
  throw fault;
}

}  // namespace tsm::rtl
