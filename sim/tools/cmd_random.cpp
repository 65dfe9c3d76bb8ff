// tsm-tool random: generate seeded random kernels (sim/randgen), run each on the golden model and on
// the chosen backend (the RTL in lockstep by default), and compare every buffer byte for byte.
#include "cmd_random.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli_args.hpp"
#include <fmt/ranges.h>

#include "isa/assembler.hpp"
#include "randgen/random_kernel.hpp"
#include "rtl_model/models.hpp"
#include "runtime/runtime.hpp"

namespace {

using tsm::tools::fail;
using tsm::tools::read_text;

namespace rg = tsm::randgen;

struct RandomCmd {
  uint64_t seed = 1;
  uint64_t count = 1;
  std::string config = "small";
  std::string backend = "rtl";
  std::string keep;
  bool lockstep = true;
  uint32_t sms = 0;
  std::string exclude;
  std::string kernel_file;
  unsigned min_size = rg::RandomOptions{}.min_size;
  unsigned max_size = rg::RandomOptions{}.max_size;
  std::vector<std::string> verilator_args;
  uint32_t mutant = 0;
  bool print_kernel = false;
};

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream f(path, std::ios::trunc);
  f << text;
  if (!f) fmt::print(stderr, "warning: cannot write {}\n", path.string());
}

std::unique_ptr<tsm::Runtime> make_backend_runtime(const RandomCmd& o, const tsm::config::SmConfig& cfg) {
  if (o.backend == "golden") return std::make_unique<tsm::Runtime>(cfg, tsm::make_golden_backend());
  tsm::rtl::RtlOptions ro;
  ro.lockstep = o.lockstep;
  ro.active_sms = o.sms;
  try {
    std::vector<std::string> args = o.verilator_args;
    if (o.mutant != 0) args.push_back(fmt::format("+tsm+mutant={}", o.mutant));
    return std::make_unique<tsm::Runtime>(
        cfg, tsm::rtl::make_rtl_backend(cfg, ro, args, o.mutant != 0 ? tsm::rtl::ModelKind::Mutant : tsm::rtl::ModelKind::Rtl));
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
}

// The first difference between the two runs' buffers, or "".
std::string compare(const rg::RandomKernel& k, const rg::RandomRun& want, const rg::RandomRun& got, const std::string& name) {
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    const auto& x = want.buffers[b];
    const auto& y = got.buffers[b];
    size_t diffs = 0, first = x.size();
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] != y[i]) {
        if (first == x.size()) first = i;
        ++diffs;
      }
    if (diffs == 0) continue;
    const size_t w = first & ~size_t{3};
    const auto word = [&](const std::vector<uint8_t>& v) {
      uint32_t r = 0;
      for (size_t i = 0; i < 4 && w + i < v.size(); ++i) r |= uint32_t{v[w + i]} << (8 * i);
      return r;
    };
    std::string where = fmt::format("byte {}", first);
    if (k.buffers[b].name == "out") where += fmt::format(" (thread {}, byte {} of its region)", first / 64, first % 64);
    return fmt::format("buffer '{}' differs in {} bytes; first at {}: word {:#010x} on golden, {:#010x} on {}", k.buffers[b].name, diffs,
                       where, word(x), word(y), name);
  }
  return "";
}

void run_random(const RandomCmd& o) {
  const tsm::config::SmConfig* cfg = tsm::config::find_config(o.config);
  if (!cfg) fail(fmt::format("unknown configuration '{}' (see: tsm-tool configs)", o.config));
  if (o.backend == "golden" && (o.sms != 0 || !o.verilator_args.empty() || o.mutant != 0))
    fail("--sms, --verilator-arg and --mutant apply to the rtl backend only");
  rg::RandomOptions ro;
  ro.config = o.config;
  ro.min_size = o.min_size;
  ro.max_size = std::max(o.min_size, o.max_size);
  try {
    ro.excluded = rg::parse_features(o.exclude);
  } catch (const std::invalid_argument& e) {
    fail(fmt::format("--exclude: {}", e.what()));
  }
  const std::string override_src = o.kernel_file.empty() ? "" : read_text(o.kernel_file);
  const std::filesystem::path fail_dir = o.keep.empty() ? std::filesystem::path("random-failures") : std::filesystem::path(o.keep);
  std::string repro_flags = fmt::format("--config {} --backend {}", o.config, o.backend);
  if (!o.lockstep) repro_flags += " --no-lockstep";
  if (o.sms) repro_flags += fmt::format(" --sms {}", o.sms);
  if (o.mutant) repro_flags += fmt::format(" --mutant {}", o.mutant);
  if (!o.exclude.empty()) repro_flags += fmt::format(" --exclude {}", o.exclude);
  if (o.min_size != rg::RandomOptions{}.min_size || o.max_size != rg::RandomOptions{}.max_size)
    repro_flags += fmt::format(" --min-size {} --max-size {}", o.min_size, o.max_size);
  for (const auto& a : o.verilator_args) repro_flags += fmt::format(" --verilator-arg {}", a);

  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<tsm::Runtime> brt;
  std::vector<uint64_t> failed;
  uint64_t total_insns = 0;
  for (uint64_t i = 0; i < o.count; ++i) {
    const uint64_t seed = o.seed + i;
    rg::RandomKernel k;
    try {
      k = rg::generate(seed, ro);
    } catch (const std::exception& e) {
      fail(fmt::format("seed {}: generation failed: {}", seed, e.what()));
    }
    const std::string& src = override_src.empty() ? k.source : override_src;
    if (o.print_kernel) fmt::print("{}", src);
    if (!o.keep.empty()) write_text(std::filesystem::path(o.keep) / fmt::format("seed-{}.tsa", seed), src);

    std::string problem;
    rg::RandomRun want, got;
    bool have_want = false;
    try {
      tsm::Runtime grt(*cfg, tsm::make_golden_backend());
      want = rg::run_kernel(grt, k, src);
      have_want = true;
    } catch (const tsm::AsmError& e) {
      problem = fmt::format("the kernel does not assemble: {}", e.what());
    } catch (const std::exception& e) {
      problem = fmt::format("the golden model failed (a generator or golden-model bug): {}", e.what());
    }
    if (have_want) {
      try {
        if (!brt || o.backend == "golden") brt = make_backend_runtime(o, *cfg);
        got = rg::run_kernel(*brt, k, src);
        problem = compare(k, want, got, o.backend);
        if (!problem.empty() && o.backend == "rtl" && o.lockstep)
          problem += " (lockstep passed: the RTL's memory matched the golden model stepped in its order, so the kernel's result "
                     "depends on the schedule: a generator bug, or an atomic order the golden model accepted)";
      } catch (const std::exception& e) {
        problem = fmt::format("{} failed: {}", o.backend, e.what());
        brt.reset();  // a fresh model for the next seed
      }
    }
    const uint64_t insns = have_want ? want.stats.warp_instructions : 0;
    total_insns += insns;
    if (problem.empty()) {
      fmt::print("seed {}: {} warp instructions retired: ok ({})\n", seed, insns, k.description);
    } else {
      failed.push_back(seed);
      const auto path = fail_dir / fmt::format("seed-{}.tsa", seed);
      const std::string repro = fmt::format("./tsm random --seed {} --count 1 {}{}", seed, repro_flags,
                                            o.kernel_file.empty() ? "" : " --kernel-file " + o.kernel_file);
      std::string text = src;
      text.insert(0, fmt::format("// FAILED on {}: reproduce with: {} --kernel-file {}\n", o.backend, repro, path.string()));
      write_text(path, text);
      write_text(fail_dir / fmt::format("seed-{}.txt", seed), problem + "\n");
      fmt::print("seed {}: {} warp instructions retired: FAIL ({})\n  {}\n  kernel: {}\n  reproduce: {}\n", seed, insns,
                 k.description, problem, path.string(), repro);
    }
    std::fflush(stdout);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("random: {} seeds from {} on {} ({}{}): {} passed, {} failed; {} warp instructions in {:.1f} s\n", o.count, o.seed,
             o.backend, o.config, o.backend == "rtl" ? (o.lockstep ? ", lockstep" : ", no lockstep") : "", o.count - failed.size(),
             failed.size(), total_insns, secs);
  if (!failed.empty()) {
    fmt::print("failed seeds: {}\n", fmt::join(failed, " "));
    throw CLI::RuntimeError(1);
  }
}

}  // namespace

void add_random_command(CLI::App& app) {
  auto o = std::make_shared<RandomCmd>();
  CLI::App* cmd = app.add_subcommand(
      "random", "Differential test: seeded random kernels on the golden model and on a backend (the RTL in lockstep), memory compared");
  cmd->add_option("--seed", o->seed, "First seed")->capture_default_str();
  cmd->add_option("--count", o->count, "Number of seeds (seed, seed+1, ...)")->capture_default_str();
  cmd->add_option("--config", o->config, "SM configuration")->capture_default_str();
  cmd->add_option("--backend", o->backend, "Backend compared with the golden model: rtl or golden")
      ->check(CLI::IsMember({"golden", "rtl"}))
      ->capture_default_str();
  cmd->add_option("--keep", o->keep, "Write every kernel's .tsa here (failures go here too; default ./random-failures)");
  cmd->add_flag("!--no-lockstep", o->lockstep, "rtl: do not check each retired instruction against the golden model");
  cmd->add_option("--sms", o->sms, "rtl: SMs that take blocks (default: the configuration's)");
  cmd->add_option("--mutant", o->mutant, "rtl: run the RTL with deliberate bug N switched on (the mutant model, docs/regression.md §3)");
  cmd->add_option("--verilator-arg", o->verilator_args, "rtl: a run-time argument of the Verilated model (repeatable)");
  std::string names;
  for (const auto& n : tsm::randgen::feature_names()) names += (names.empty() ? "" : " ") + n;
  cmd->add_option("--exclude", o->exclude, "Comma-separated generator features to leave out: " + names);
  cmd->add_option("--kernel-file", o->kernel_file,
                  "Run this .tsa instead of the generated text, with the seed's launch shape and buffers (to reduce a failure)");
  cmd->add_option("--min-size", o->min_size, "Smallest kernel body in static instructions")->capture_default_str();
  cmd->add_option("--max-size", o->max_size, "Largest kernel body in static instructions")->capture_default_str();
  cmd->add_flag("--print", o->print_kernel, "Print each kernel's assembly");
  cmd->callback([o] { run_random(*o); });
}
