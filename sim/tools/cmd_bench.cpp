// `tsm-tool bench`: runs every suite kernel on the golden model and on the RTL (g80 under each
// warp-scheduling policy of --sched, and small with and without lockstep for two of them) several times and prints medians of host time,
// simulated cycles per host second, thread instructions per host second, and the RTL's counters
// (SPEC §5); `--json` writes the same rows. Wall-clock numbers are measured here and never
// asserted in tests.
#include "cmd_bench.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>
#include <fcntl.h>

#include "host.hpp"
#include "rtl/gpu_driver.hpp"
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
    if (const auto* rtl = dynamic_cast<const tsm::rtl::RtlBackend*>(inner_.get())) {
      for (unsigned k = 0; k < tsm::rtl::kNumCounters; ++k) counters[k] += rtl->last_launch().counters[k];
      const auto& m = rtl->last_launch().memory;
      memory.requests += m.requests;
      memory.bytes += m.bytes;
      memory.reads += m.reads;
      memory.writes += m.writes;
      memory.atomics += m.atomics;
    }
    return stats;
  }
  double seconds = 0;
  uint64_t thread_instructions = 0;
  std::array<uint64_t, tsm::rtl::kNumCounters> counters{};
  tsm::rtl::MemoryCounters memory;

 private:
  std::unique_ptr<Backend> inner_;
};

struct Sample {
  double seconds = 0;
  uint64_t thread_instructions = 0;
  std::array<uint64_t, tsm::rtl::kNumCounters> counters{};
  tsm::rtl::MemoryCounters memory;
};

/// One run of `p`; on the rtl backend over the model of `kind`.
Sample run_once(const tsm::firmware::HostProgram& p, tsm::firmware::HostOptions o,
                tsm::rtl::ModelKind kind = tsm::rtl::ModelKind::Rtl) {
  const tsm::config::SmConfig& cfg = *tsm::config::find_config(o.config);
  std::unique_ptr<Backend> inner;
  if (o.backend == "golden") {
    inner = tsm::make_golden_backend();
  } else {
    tsm::rtl::RtlOptions ro;
    ro.lockstep = o.lockstep;
    ro.sched_policy = tsm::rtl::sched_policy_value(o.sched).value_or(0);
    inner = tsm::rtl::make_rtl_backend(cfg, ro, {}, kind);
  }
  auto timed = std::make_unique<TimedBackend>(std::move(inner));
  TimedBackend* t = timed.get();
  tsm::Runtime rt(cfg, std::move(timed));
  if (!p.run(rt, o)) throw CLI::RuntimeError(fmt::format("bench: {} did not match its reference", p.name), 1);
  return Sample{t->seconds, t->thread_instructions, t->counters, t->memory};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Runs `body` with stdout sent to /dev/null: the host programs report there, the bench prints
/// only its tables.
template <class F>
void quietly(F body) {
  std::fflush(stdout);
  const int saved = ::dup(1);
  const int devnull = ::open("/dev/null", O_WRONLY);
  if (devnull >= 0) ::dup2(devnull, 1);
  const auto restore = [&] {
    std::fflush(stdout);
    if (saved >= 0) ::dup2(saved, 1);
    if (devnull >= 0) ::close(devnull);
    if (saved >= 0) ::close(saved);
  };
  try {
    body();
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

/// What the FST writer costs when compiled in but not tracing: the g80 RTL (lockstep off) against
/// the same RTL built without it, runs interleaved (each goes first every other time) so that both
/// see the same machine load.
nlohmann::json bench_tracing_cost(const std::vector<std::string>& programs, unsigned repeat, uint32_t block) {
  nlohmann::json rows = nlohmann::json::array();
  // Built on first use under ./tsm; without it, a missing model skips this part with the reason.
  try {
    tsm::rtl::ensure_gpu_model("g80", tsm::rtl::ModelKind::Untraced);
  } catch (const std::runtime_error& e) {
    fmt::print("\ntracing cost: not measured: {}\n", e.what());
    return rows;
  }
  fmt::print("\nTracing compiled in but off (g80 RTL, lockstep off) against the same RTL built without the FST writer, medians:\n");
  fmt::print("{:<15} {:>12} {:>12} {:>9}\n", "program", "traced s", "untraced s", "slowdown");
  for (const auto& name : programs) {
    const tsm::firmware::HostProgram* p = nullptr;
    for (const auto& hp : tsm::firmware::host_programs())
      if (hp.name == name) p = &hp;
    tsm::firmware::HostOptions o;
    o.backend = "rtl";
    o.config = "g80";
    o.lockstep = false;
    o.block = block;
    std::vector<double> traced, untraced;
    quietly([&] {
      for (unsigned r = 0; r < repeat; ++r) {  // alternating which goes first
        if (r % 2 == 0) traced.push_back(run_once(*p, o, tsm::rtl::ModelKind::Rtl).seconds);
        untraced.push_back(run_once(*p, o, tsm::rtl::ModelKind::Untraced).seconds);
        if (r % 2 == 1) traced.push_back(run_once(*p, o, tsm::rtl::ModelKind::Rtl).seconds);
      }
    });
    const double t = median(traced), u = median(untraced);
    const double slowdown = u > 0 ? 100.0 * (t / u - 1.0) : 0.0;
    fmt::print("{:<15} {:>12.3f} {:>12.3f} {:>8.1f}%\n", name, t, u, slowdown);
    rows.push_back({{"program", name}, {"config", "g80"}, {"repeat", repeat}, {"traced_host_seconds", t},
                    {"untraced_host_seconds", u}, {"slowdown_percent", slowdown}});
  }
  return rows;
}

struct BenchOptions {
  unsigned repeat = 3;
  std::vector<std::string> programs;  // empty: every suite kernel
  std::string json;                   // file for the rows as JSON, or empty
  std::vector<std::string> sched{"lrr", "gto"};  // the warp-scheduling policies the g80 RTL rows run
};

void run_bench(const BenchOptions& opt) {
  struct Case {
    std::string program, backend, config;
    bool lockstep;
    std::string sched = "lrr";
  };
  const auto& suite = tsm::firmware::host_programs();
  for (const auto& name : opt.programs)
    if (std::none_of(suite.begin(), suite.end(), [&](const auto& hp) { return hp.name == name; }))
      throw CLI::ValidationError("--program", fmt::format("no suite kernel '{}'", name));
  const auto wanted = [&](const std::string& name) {
    return opt.programs.empty() || std::find(opt.programs.begin(), opt.programs.end(), name) != opt.programs.end();
  };
  // What lockstep costs (small, 2 SMs), then every suite kernel on the golden model and on g80.
  std::vector<Case> cases;
  for (const char* name : {"saxpy", "matmul_tiled"})
    if (wanted(name)) {
      cases.push_back({name, "rtl", "small", true});
      cases.push_back({name, "rtl", "small", false});
    }
  for (const auto& hp : suite)
    if (wanted(hp.name)) {
      cases.push_back({hp.name, "golden", "g80", false});
      for (const auto& policy : opt.sched) cases.push_back({hp.name, "rtl", "g80", false, policy});
    }
  constexpr uint32_t kBlock = 256;  // threads per block: every suite kernel runs it on small and g80
  fmt::print("{} repetitions each, medians; host time is the launches' only (compile and reference excluded)\n\n", opt.repeat);
  fmt::print("{:<15} {:<7} {:<6} {:<4} {:<5} {:>8} {:>12} {:>13} {:>12} {:>6} {:>6} {:>6} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8}\n",
             "program", "backend", "config", "lock", "sched", "host s", "sim cycles", "cycles/host s", "thr insn/s", "IPC", "SP %", "SFU %",
             "st.sb %", "st.bar %", "st.ifet %", "mem reqs", "trans", "bank cf");
  nlohmann::json rows = nlohmann::json::array();
  for (const Case& c : cases) {
    const tsm::firmware::HostProgram* p = nullptr;
    for (const auto& hp : suite)
      if (hp.name == c.program) p = &hp;
    tsm::firmware::HostOptions o;
    o.backend = c.backend;
    o.config = c.config;
    o.lockstep = c.lockstep;
    o.sched = c.sched;
    o.block = kBlock;
    std::vector<double> secs;
    Sample last;
    quietly([&] {
      for (unsigned r = 0; r < opt.repeat; ++r) {
        last = run_once(*p, o);
        secs.push_back(last.seconds);
      }
    });
    const double s = median(secs);
    const double thr = s > 0 ? static_cast<double>(last.thread_instructions) / s : 0;
    nlohmann::json row = {{"program", c.program}, {"backend", c.backend}, {"config", c.config},
                          {"block", kBlock},      {"repeat", opt.repeat},  {"host_seconds", s},
                          {"thread_instructions", last.thread_instructions}, {"thread_instructions_per_host_second", thr},
                          {"thread_instructions_per_second", thr}};
    if (c.backend == "golden") {
      fmt::print("{:<15} {:<7} {:<6} {:<4} {:<5} {:>8.3f} {:>12} {:>13} {:>12.3g}\n", c.program, c.backend, c.config, "-", "-", s, "-", "-",
                 thr);
      rows.push_back(row);
      continue;
    }
    const auto& k = last.counters;
    const double cyc = static_cast<double>(k[0]);
    const unsigned sms = tsm::config::find_config(c.config)->num_sms;
    const auto pct = [&](uint64_t v) { return cyc > 0 ? 100.0 * static_cast<double>(v) / (cyc * sms) : 0.0; };
    const double ipc = cyc > 0 ? static_cast<double>(k[1]) / (cyc * sms) : 0.0;
    fmt::print("{:<15} {:<7} {:<6} {:<4} {:<5} {:>8.3f} {:>12} {:>13.3g} {:>12.3g} {:>6.3f} {:>6.1f} {:>6.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>9} {:>8} {:>8}\n",
               c.program, c.backend, c.config, c.lockstep ? "on" : "off", c.sched, s, k[0], s > 0 ? cyc / s : 0.0, thr, ipc,
               pct(k[3]), pct(k[4]), pct(k[5]), pct(k[6]), pct(k[7]), k[8], k[10], k[9]);
    row["lockstep"] = c.lockstep;
    row["sched"] = c.sched;
    row["sms"] = sms;
    row["cycles_per_host_second"] = s > 0 ? cyc / s : 0.0;
    row["ipc_per_sm"] = ipc;
    row["sp_busy_percent"] = pct(k[3]);
    row["sfu_busy_percent"] = pct(k[4]);
    row["stall_percent"] = {{"scoreboard", pct(k[5])}, {"barrier", pct(k[6])}, {"fetch", pct(k[7])}};
    // The same under the names of the measurement plan (docs/sm-rtl.md §4): utilizations as fractions
    // of the cycles per SM, stalls in SM-cycles.
    row["cycles"] = k[0];
    row["warp_instructions"] = k[1];
    row["ipc"] = ipc;
    row["sp_utilization"] = pct(k[3]) / 100.0;
    row["sfu_utilization"] = pct(k[4]) / 100.0;
    row["stalls"] = {{"scoreboard", k[5]}, {"barrier", k[6]}, {"fetch", k[7]}};
    row["bank_conflicts"] = k[9];
    row["mem_transactions"] = k[10];
    row["sim_cycles_per_second"] = s > 0 ? cyc / s : 0.0;
    nlohmann::json counters = nlohmann::json::object();
    for (unsigned i = 0; i < tsm::rtl::kNumCounters; ++i) counters[tsm::rtl::kCounterNames[i]] = k[i];
    row["counters"] = counters;
    row["memory_port"] = {{"requests", last.memory.requests}, {"bytes", last.memory.bytes}, {"reads", last.memory.reads},
                          {"writes", last.memory.writes},     {"atomics", last.memory.atomics}};
    rows.push_back(row);
  }
  fmt::print("\nIPC is warp instructions per clock per SM; SP %, SFU % and the stall columns are cycles per SM; sched is the\n"
             "warp-scheduling policy (docs/sm-rtl.md §2.3).\n");
  // The policies side by side: simulated cycles of each against the first (g80 rows).
  if (opt.sched.size() > 1) {
    fmt::print("\nWarp-scheduling policies on g80, simulated cycles (ratio to {}):\n{:<15}", opt.sched[0], "program");
    for (const auto& policy : opt.sched) fmt::print(" {:>12}", policy);
    fmt::print("\n");
    for (const auto& hp : suite) {
      if (!wanted(hp.name)) continue;
      std::vector<uint64_t> cyc;
      for (const auto& policy : opt.sched)
        for (const auto& r : rows)
          if (r["program"] == hp.name && r["backend"] == "rtl" && r["config"] == "g80" && r.value("sched", "") == policy)
            cyc.push_back(r["cycles"].get<uint64_t>());
      if (cyc.size() != opt.sched.size() || cyc[0] == 0) continue;
      fmt::print("{:<15}", hp.name);
      for (size_t i = 0; i < cyc.size(); ++i)
        fmt::print(" {:>12}", i == 0 ? fmt::format("{}", cyc[i]) : fmt::format("{} {:.3f}", cyc[i], static_cast<double>(cyc[i]) / cyc[0]));
      fmt::print("\n");
    }
  }
  std::vector<std::string> cost_programs;
  for (const char* name : {"saxpy", "matmul_tiled", "reduce", "diverge"})
    if (wanted(name)) cost_programs.push_back(name);
  const nlohmann::json cost = bench_tracing_cost(cost_programs, opt.repeat, kBlock);
  if (!opt.json.empty()) {
    std::ofstream f(opt.json, std::ios::trunc);
    f << nlohmann::json{{"tool", "tsm bench"}, {"rows", rows}, {"tracing_cost", cost}}.dump(2) << "\n";
    if (!f) throw CLI::RuntimeError(fmt::format("bench: cannot write {}", opt.json), 1);
    fmt::print("wrote {} rows to {}\n", rows.size(), opt.json);
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto opt = std::make_shared<BenchOptions>();
  CLI::App* bench = app.add_subcommand("bench", "Simulation speed of the golden model and the RTL, and the RTL's performance counters");
  bench->add_option("--repeat", opt->repeat, "Repetitions per case (the median is printed)")->capture_default_str();
  bench->add_option("--program", opt->programs, "Only this suite kernel (repeatable; default: every one)");
  bench->add_option("--json", opt->json, "Also write the rows to this file as JSON");
  bench->add_option("--sched", opt->sched,
                    fmt::format("Warp-scheduling policies the g80 RTL rows run, comma-separated ({}; default: all of them)",
                                tsm::rtl::sched_policy_list()))
      ->delimiter(',')
      ->check(CLI::IsMember(std::vector<std::string>(tsm::rtl::kSchedPolicyNames.begin(), tsm::rtl::kSchedPolicyNames.end())))
      ->capture_default_str();
  bench->callback([opt] {
    opt->repeat = std::max(1u, opt->repeat);
    run_bench(*opt);
  });
}
