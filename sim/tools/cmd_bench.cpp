// `tsm-tool bench`: runs suite kernels on the golden model and on the RTL (with and without
// lockstep) several times and prints medians of host time, simulated cycles per host second,
// thread instructions per host second, and the RTL's counters (SPEC §5). Wall-clock numbers are
// measured here and never asserted in tests.
#include "cmd_bench.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>
#include <fcntl.h>

#include "host.hpp"
#include "rtl_model/models.hpp"

namespace {

using tsm::Backend;
using tsm::DevicePtr;

/// Forwards to a backend and times its launches.
class TimedBackend : public Backend {
 public:
  explicit TimedBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  void map(DevicePtr addr, uint32_t bytes) override { inner_->map(addr, bytes); }
  void unmap(DevicePtr addr) override { inner_->unmap(addr); }
  void write(DevicePtr addr, std::span<const uint8_t> bytes) override { inner_->write(addr, bytes); }
  void read(DevicePtr addr, std::span<uint8_t> bytes) override { inner_->read(addr, bytes); }
  tsm::golden::LaunchStats launch(const tsm::golden::LaunchSpec& spec) override {
    const auto t0 = std::chrono::steady_clock::now();
    const auto stats = inner_->launch(spec);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    thread_instructions += stats.thread_instructions;
    if (const auto* rtl = dynamic_cast<const tsm::rtl::RtlBackend*>(inner_.get()))
      for (unsigned k = 0; k < tsm::rtl::kNumCounters; ++k) counters[k] += rtl->last_launch().counters[k];
    return stats;
  }
  double seconds = 0;
  uint64_t thread_instructions = 0;
  std::array<uint64_t, tsm::rtl::kNumCounters> counters{};

 private:
  std::unique_ptr<Backend> inner_;
};

struct Sample {
  double seconds = 0;
  uint64_t thread_instructions = 0;
  std::array<uint64_t, tsm::rtl::kNumCounters> counters{};
};

Sample run_once(const tsm::firmware::HostProgram& p, tsm::firmware::HostOptions o) {
  const tsm::config::SmConfig& cfg = *tsm::config::find_config(o.config);
  std::unique_ptr<Backend> inner;
  if (o.backend == "golden") inner = tsm::make_golden_backend();
  else inner = tsm::firmware::make_backend_rtl(cfg, 0, o.lockstep);
  auto timed = std::make_unique<TimedBackend>(std::move(inner));
  TimedBackend* t = timed.get();
  tsm::Runtime rt(cfg, std::move(timed));
  if (!p.run(rt, o)) throw CLI::RuntimeError(fmt::format("bench: {} did not match its reference", p.name), 1);
  return Sample{t->seconds, t->thread_instructions, t->counters};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void run_bench(unsigned repeat) {
  struct Case {
    std::string program, backend, config;
    bool lockstep;
    uint32_t block;
  };
  const std::vector<Case> cases{
      {"matmul_naive", "golden", "g80", false, 256},
      {"saxpy", "rtl", "small", true, 256},
      {"saxpy", "rtl", "small", false, 256},
      {"matmul_tiled", "rtl", "small", true, 256},
      {"matmul_tiled", "rtl", "small", false, 256},
      {"matmul_tiled", "rtl", "g80", false, 256},
      {"warpreduce", "rtl", "g80", false, 256},
      {"fastmath", "rtl", "g80", false, 256},
      {"madloop", "rtl", "g80", false, 256},
  };
  fmt::print("{} repetitions each, medians; host time is the launches' only (compile and reference excluded)\n\n", repeat);
  fmt::print("{:<13} {:<7} {:<6} {:<4} {:>8} {:>12} {:>13} {:>12} {:>6} {:>6} {:>6} {:>8} {:>8} {:>8} {:>9} {:>8}\n", "program",
             "backend", "config", "lock", "host s", "sim cycles", "cycles/host s", "thr insn/s", "IPC", "SP %", "SFU %",
             "st.sb %", "st.bar %", "st.ifet %", "mem reqs", "bank cf");
  for (const Case& c : cases) {
    const tsm::firmware::HostProgram* p = nullptr;
    for (const auto& hp : tsm::firmware::host_programs())
      if (hp.name == c.program) p = &hp;
    tsm::firmware::HostOptions o;
    o.backend = c.backend;
    o.config = c.config;
    o.lockstep = c.lockstep;
    o.block = c.block;
    std::vector<double> secs;
    Sample last;
    {
      // The host programs report on stdout; the bench prints only its table.
      std::fflush(stdout);
      const int saved = ::dup(1);
      const int devnull = ::open("/dev/null", O_WRONLY);
      if (devnull >= 0) ::dup2(devnull, 1);
      try {
        for (unsigned r = 0; r < repeat; ++r) {
          last = run_once(*p, o);
          secs.push_back(last.seconds);
        }
      } catch (...) {
        std::fflush(stdout);
        if (saved >= 0) ::dup2(saved, 1);
        throw;
      }
      std::fflush(stdout);
      if (saved >= 0) ::dup2(saved, 1);
      if (devnull >= 0) ::close(devnull);
      if (saved >= 0) ::close(saved);
    }
    const double s = median(secs);
    const double thr = s > 0 ? static_cast<double>(last.thread_instructions) / s : 0;
    if (c.backend == "golden") {
      fmt::print("{:<13} {:<7} {:<6} {:<4} {:>8.3f} {:>12} {:>13} {:>12.3g}\n", c.program, c.backend, c.config, "-", s, "-", "-", thr);
      continue;
    }
    const auto& k = last.counters;
    const double cyc = static_cast<double>(k[0]);
    const unsigned sms = tsm::config::find_config(c.config)->num_sms;
    const auto pct = [&](uint64_t v) { return cyc > 0 ? 100.0 * static_cast<double>(v) / (cyc * sms) : 0.0; };
    fmt::print("{:<13} {:<7} {:<6} {:<4} {:>8.3f} {:>12} {:>13.3g} {:>12.3g} {:>6.3f} {:>6.1f} {:>6.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>9} {:>8}\n",
               c.program, c.backend, c.config, c.lockstep ? "on" : "off", s, k[0], s > 0 ? cyc / s : 0.0, thr,
               cyc > 0 ? static_cast<double>(k[1]) / (cyc * sms) : 0.0, pct(k[3]), pct(k[4]), pct(k[5]), pct(k[6]), pct(k[7]), k[8], k[9]);
  }
  fmt::print("\nIPC is warp instructions per clock per SM; SP %, SFU % and the stall columns are cycles per SM.\n");
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto repeat = std::make_shared<unsigned>(3);
  CLI::App* bench = app.add_subcommand("bench", "Simulation speed of the golden model and the RTL, and the RTL's performance counters");
  bench->add_option("--repeat", *repeat, "Repetitions per case (the median is printed)")->capture_default_str();
  bench->callback([repeat] { run_bench(std::max(1u, *repeat)); });
}
