// tsm-tool random: generate seeded random kernels (sim/randgen), run each on the golden model and on
// the chosen backend (the RTL in lockstep by default), and compare every buffer byte for byte. At
// --level ptx the kernels are PTX, translated by our translator at the configuration's register
// budget and at a small one (spilling), and the golden model must also match the generator's own
// reference evaluation. At --level cuda they are CUDA C, compiled in batches by the front ends and
// translated, and the golden model must match the same source compiled for the host; a failing
// kernel is reduced to a small reproducer.
#include "cmd_random.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli_args.hpp"
#include <fmt/ranges.h>

#include "compiler/frontend.hpp"
#include "launch_args.hpp"
#include "isa/assembler.hpp"
#include "ptx/translate.hpp"
#include "randgen/cuda_oracle.hpp"
#include "randgen/random_cuda.hpp"
#include "randgen/random_kernel.hpp"
#include "randgen/random_ptx.hpp"
#include "rtl_model/models.hpp"
#include "runtime/runtime.hpp"

namespace {

using tsm::tools::fail;
using tsm::tools::read_text;

namespace rg = tsm::randgen;

struct RandomCmd {
  std::string level = "native";
  uint64_t seed = 1;
  uint64_t count = 1;
  std::string config = "small";
  std::string backend = "rtl";
  std::string keep;
  bool lockstep = true;
  uint32_t sms = 0;
  std::string sched = "lrr";  // rtl: the warp-scheduling policy
  std::string exclude;
  std::string kernel_file;
  unsigned min_size = rg::RandomOptions{}.min_size;
  unsigned max_size = rg::RandomOptions{}.max_size;
  std::vector<std::string> verilator_args;
  uint32_t mutant = 0;
  bool print_kernel = false;
  bool reference = true;  // ptx: compare the golden model with the generator's reference evaluation
  std::string frontend = "both";  // cuda: clang, nvcc or both (nvcc where installed)
  uint32_t batch = 100;           // cuda: kernels a translation unit holds
  bool reduce = true;             // cuda: cut a failing kernel down
};

std::string first_line_of(const std::string& text) { return text.substr(0, text.find('\n')); }

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
  ro.sched_policy = tsm::rtl::sched_policy_value(o.sched).value_or(0);  // checked by the option
  try {
    std::vector<std::string> args = o.verilator_args;
    if (o.mutant != 0) args.push_back(fmt::format("+tsm+mutant={}", o.mutant));
    return std::make_unique<tsm::Runtime>(
        cfg, tsm::rtl::make_rtl_backend(cfg, ro, args, o.mutant != 0 ? tsm::rtl::ModelKind::Mutant : tsm::rtl::ModelKind::Rtl));
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
}

// Runs a kernel on the chosen backend (a model made on first use, and again after a failure) and
// compares every buffer with the golden model's run. Returns the problem, or "".
std::string check_backend(const RandomCmd& o, const tsm::config::SmConfig& cfg, std::unique_ptr<tsm::Runtime>& brt,
                          const std::function<rg::RandomRun(tsm::Runtime&)>& run, const std::vector<rg::RandomBuffer>& buffers,
                          const rg::RandomRun& want, uint32_t out_stride) {
  try {
    if (!brt || o.backend == "golden") brt = make_backend_runtime(o, cfg);
    const rg::RandomRun got = run(*brt);
    std::string problem = rg::compare_buffers(buffers, want.buffers, got.buffers, out_stride, "golden", o.backend);
    if (!problem.empty() && o.backend == "rtl" && o.lockstep)
      problem += " (lockstep passed: the RTL's memory matched the golden model stepped in its order, so the kernel's result "
                 "depends on the schedule: a generator bug, or an atomic order the golden model accepted)";
    return problem;
  } catch (const std::exception& e) {
    brt.reset();  // a fresh model for the next seed
    return fmt::format("{} failed: {}", o.backend, e.what());
  }
}

// Prints a seed's result; a failure is written to `fail_dir` as seed-S.EXT (the kernel, its first
// line the command that reproduces it) and seed-S.txt (the problem).
void report(const std::filesystem::path& fail_dir, const std::string& backend, uint64_t seed, uint64_t insns,
            const std::string& description, const std::string& problem, const std::string& src, const std::string& ext,
            const std::string& repro, std::vector<uint64_t>& failed) {
  if (problem.empty()) {
    fmt::print("seed {}: {} warp instructions retired: ok ({})\n", seed, insns, description);
    return;
  }
  failed.push_back(seed);
  const auto path = fail_dir / fmt::format("seed-{}.{}", seed, ext);
  write_text(path, fmt::format("// FAILED on {}: reproduce with: {} --kernel-file {}\n", backend, repro, path.string()) + src);
  write_text(fail_dir / fmt::format("seed-{}.txt", seed), problem + "\n");
  fmt::print("seed {}: {} warp instructions retired: FAIL ({})\n  {}\n  kernel: {}\n  reproduce: {}\n", seed, insns, description,
             problem, path.string(), repro);
}

// The last line of a run (regress.py reads it), and exit code 1 when a seed failed.
void summarize(const RandomCmd& o, const char* what, const std::vector<uint64_t>& failed, uint64_t total_insns,
               std::chrono::steady_clock::time_point t0) {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("random: {} seeds from {} on {} ({}{}{}): {} passed, {} failed; {} warp instructions in {:.1f} s\n", o.count, o.seed,
             o.backend, o.config, o.backend == "rtl" ? (o.lockstep ? ", lockstep" : ", no lockstep") : "", what, o.count - failed.size(),
             failed.size(), total_insns, secs);
  if (!failed.empty()) {
    fmt::print("failed seeds: {}\n", fmt::join(failed, " "));
    throw CLI::RuntimeError(1);
  }
}

// One PTX seed: translate at each register budget, the golden model against the reference for
// each, then the backend against the golden model for one of them.
std::string check_ptx(const RandomCmd& o, const tsm::config::SmConfig& cfg, std::unique_ptr<tsm::Runtime>& brt, const rg::PtxKernel& k,
                      const std::string& src, uint64_t& insns) {
  std::vector<uint32_t> budgets{cfg.max_regs_per_thread};
  if (rg::kPtxSpillBudget < cfg.max_regs_per_thread) budgets.push_back(rg::kPtxSpillBudget);
  std::vector<tsm::Module> modules;
  std::vector<rg::RandomRun> runs;
  for (uint32_t budget : budgets) {
    const std::string variant = budget == cfg.max_regs_per_thread ? "" : fmt::format(" (--maxrregcount {})", budget);
    try {
      tsm::ptx::TranslateOptions to;
      to.max_registers = budget;
      to.config = o.config;
      modules.push_back(tsm::ptx::translate(tsm::ptx::parse(src, fmt::format("random-{}.ptx", k.seed)), to).module);
    } catch (const std::exception& e) {
      return fmt::format("the kernel does not translate{}: {}", variant, e.what());
    }
    try {
      tsm::Runtime grt(cfg, tsm::make_golden_backend());
      runs.push_back(rg::run_ptx_kernel(grt, k, modules.back()));
    } catch (const std::exception& e) {
      return fmt::format("the golden model failed{} (a translator, generator or golden-model bug): {}", variant, e.what());
    }
    std::string problem = rg::compare_buffers(k.buffers, k.expected, runs.back().buffers, rg::kPtxOutStride, "the reference",
                                              "golden" + variant);
    if (!problem.empty() && o.reference)
      return "the golden model differs from the reference evaluation (a translator or generator bug): " + problem;
  }
  // The backend runs one of the translations, alternating by seed.
  const size_t v = k.seed % modules.size();
  insns = runs[v].stats.warp_instructions;
  return check_backend(
      o, cfg, brt, [&](tsm::Runtime& rt) { return rg::run_ptx_kernel(rt, k, modules[v]); }, k.buffers, runs[v], rg::kPtxOutStride);
}

// What one seed gave: the problem ("" for none), the warp instructions the backend's kernel retired
// on the golden model, and what a failure report needs.
struct SeedOutcome {
  std::string problem;
  uint64_t insns = 0;
  std::string description, src, ext, repro;
};

// Runs every seed through `one` (`brt` is the backend's model, kept from seed to seed), reports
// each, and ends with the summary line.
void run_seeds(const RandomCmd& o, const char* what, const std::function<SeedOutcome(uint64_t, std::unique_ptr<tsm::Runtime>&)>& one) {
  const std::filesystem::path fail_dir = o.keep.empty() ? std::filesystem::path("random-failures") : std::filesystem::path(o.keep);
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<tsm::Runtime> brt;
  std::vector<uint64_t> failed;
  uint64_t total_insns = 0;
  for (uint64_t i = 0; i < o.count; ++i) {
    const uint64_t seed = o.seed + i;
    const SeedOutcome r = one(seed, brt);
    total_insns += r.insns;
    report(fail_dir, o.backend, seed, r.insns, r.description, r.problem, r.src, r.ext, r.repro, failed);
    std::fflush(stdout);
  }
  summarize(o, what, failed, total_insns, t0);
}

void run_random_ptx(const RandomCmd& o, const tsm::config::SmConfig& cfg, const std::string& repro_flags) {
  const std::string override_src = o.kernel_file.empty() ? "" : read_text(o.kernel_file);
  rg::PtxOptions po;
  po.config = o.config;
  run_seeds(o, ", PTX", [&](uint64_t seed, std::unique_ptr<tsm::Runtime>& brt) {
    rg::PtxKernel k;
    try {
      k = rg::generate_ptx(seed, po);
    } catch (const std::exception& e) {
      fail(fmt::format("seed {}: generation failed: {}", seed, e.what()));
    }
    SeedOutcome r;
    r.src = override_src.empty() ? k.ptx : override_src;
    if (o.print_kernel) fmt::print("{}", r.src);
    if (!o.keep.empty()) {
      write_text(std::filesystem::path(o.keep) / fmt::format("seed-{}.ptx", seed), r.src);
      write_text(std::filesystem::path(o.keep) / fmt::format("seed-{}.launch", seed), rg::describe_launch(k));
    }
    r.problem = check_ptx(o, cfg, brt, k, r.src, r.insns);
    r.description = k.description;
    r.ext = "ptx";
    r.repro = fmt::format("./tsm random --level ptx --seed {} --count 1 {}", seed, repro_flags);
    return r;
  });
}

// ---- --level cuda -------------------------------------------------------------------------------

/// Failures of one kind (front end and what failed) that are reduced in one run; the rest are saved
/// as generated, with the command that reduces them alone.
constexpr unsigned kReductionsPerKind = 2;

/// One seed's outcome on one front end.
struct CudaOutcome {
  tsm::compiler::Frontend frontend;
  std::string problem, kind;
  uint64_t insns = 0;
};

// Prints one seed's line; returns whether every front end passed. A failure is reduced (at most
// kReductionsPerKind of a kind a run) and written to `fail_dir`: seed-S.cu for the first front end
// that failed, seed-S-FE.cu for another, each with the command that reproduces it on its first
// line, and seed-S-unreduced.cu and seed-S.txt (the problems).
bool report_cuda_seed(const RandomCmd& o, tsm::randgen::CudaOracle& oracle, const tsm::randgen::CudaKernel& k, const std::string& text,
                      const std::vector<CudaOutcome>& outcomes, const std::filesystem::path& fail_dir, const std::string& repro_flags,
                      std::map<std::string, unsigned>& reductions) {
  std::vector<std::string> counts;
  bool ok = true;
  for (const auto& r : outcomes) {
    ok = ok && r.problem.empty();
    counts.push_back(fmt::format("{} {}", tsm::compiler::to_string(r.frontend), r.insns));
  }
  if (ok) {
    fmt::print("seed {}: ok, warp instructions {} ({})\n", k.seed, fmt::join(counts, ", "), k.description);
    return true;
  }
  fmt::print("seed {}: FAIL ({})\n", k.seed, k.description);
  const std::filesystem::path unreduced = fail_dir / fmt::format("seed-{}-unreduced.cu", k.seed);
  if (o.kernel_file.empty()) write_text(unreduced, text);
  std::string report_text;
  bool first_file = true;
  for (const auto& r : outcomes) {
    if (r.problem.empty()) continue;
    const char* fe = tsm::compiler::to_string(r.frontend);
    report_text += fmt::format("{}: {}\n", fe, r.problem);
    const std::string repro = fmt::format("./tsm random --level cuda --seed {} --count 1 --frontend {} {}", k.seed, fe, repro_flags);
    const auto path = fail_dir / (first_file ? fmt::format("seed-{}.cu", k.seed) : fmt::format("seed-{}-{}.cu", k.seed, fe));
    std::string reproducer = text;
    std::string note;
    unsigned& reduced = reductions[fmt::format("{} {}", fe, r.kind)];
    if (!o.kernel_file.empty()) {
      note = " (a --kernel-file is not reduced)";
    } else if (!o.reduce) {
      note = " (not reduced: --no-reduce)";
    } else if (r.kind == "rtl") {
      note = " (not reduced: the reducer checks against the host reference; cut it down by hand with --kernel-file)";
    } else if (reduced >= kReductionsPerKind) {
      note = fmt::format(" (not reduced: {} failures of this kind were reduced in this run; the reproduce command reduces it)",
                         kReductionsPerKind);
    } else {
      ++reduced;
      const auto red = oracle.reduce(k, r.frontend, r.kind);
      reproducer = tsm::randgen::cuda_translation_unit({red.kernel.source()});
      note = fmt::format(" (reduced from {} to {} statements in {} steps, {} compiles{}; unreduced: {})", k.statement_count(),
                         red.kernel.statement_count(), red.rounds, red.compiles, red.stopped ? ", stopped at the time limit" : "",
                         unreduced.string());
    }
    write_text(path, fmt::format("// FAILED ({}, {}): reproduce with: {} --kernel-file {}\n// {}\n", fe, r.kind, repro, path.string(),
                                 first_line_of(r.problem)) +
                         reproducer);
    fmt::print("  {}: {}\n  kernel: {}{}\n  reproduce: {}\n", fe, r.problem, path.string(), note, repro);
    first_file = false;
  }
  write_text(fail_dir / fmt::format("seed-{}.txt", k.seed), report_text);
  return false;
}

void run_random_cuda(const RandomCmd& o, const tsm::config::SmConfig& cfg, const std::string& repro_flags) {
  namespace fs = std::filesystem;
  using tsm::compiler::Frontend;
  std::vector<Frontend> frontends;
  std::string skipped;
  if (o.frontend == "clang" || o.frontend == "both") frontends.push_back(Frontend::Clang);
  if (o.frontend == "nvcc" || o.frontend == "both") {
    if (tsm::compiler::find_nvcc()) {
      frontends.push_back(Frontend::Nvcc);
    } else if (o.frontend == "nvcc") {
      fail("--frontend nvcc: nvcc is not installed (looked on PATH and at /usr/local/cuda/bin/nvcc)");
    } else {
      skipped = "nvcc";
      fmt::print("nvcc is not installed: the nvcc part is skipped\n");
    }
  }
  if (!tsm::compiler::find_clang() && std::find(frontends.begin(), frontends.end(), Frontend::Clang) != frontends.end())
    fail("the clang front end needs clang++ (or clang++-14) on PATH; install Debian's clang package");
  if (tsm::randgen::find_host_cxx().empty()) fail("the host reference needs a C++ compiler: g++, c++ or clang++ on PATH");
  const std::string kernel_file = o.kernel_file.empty() ? "" : read_text(o.kernel_file);
  if (!kernel_file.empty() && o.count != 1) fail("--kernel-file runs one seed's kernel: use --count 1");
  const fs::path fail_dir = o.keep.empty() ? fs::path("random-failures") : fs::path(o.keep);
  tsm::randgen::CudaOracleOptions oo;
  oo.config = o.config;
  tsm::randgen::CudaOracle oracle(oo);

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> failed;
  std::map<Frontend, unsigned> passed;
  std::map<std::string, unsigned> reductions;  // front end and kind -> reductions done
  uint64_t total_insns = 0;
  std::unique_ptr<tsm::Runtime> brt;
  tsm::randgen::CudaOptions co;
  co.config = o.config;
  try {
    co.excluded = tsm::randgen::parse_cuda_features(o.exclude);
  } catch (const std::invalid_argument& e) {
    fail(fmt::format("--exclude: {}", e.what()));
  }
  for (uint64_t first = 0; first < o.count; first += o.batch) {
    const uint64_t n = std::min<uint64_t>(o.batch, o.count - first);
    std::vector<tsm::randgen::CudaKernel> kernels;
    for (uint64_t i = 0; i < n; ++i) {
      try {
        kernels.push_back(tsm::randgen::generate_cuda(o.seed + first + i, co));
      } catch (const std::exception& e) {
        fail(fmt::format("seed {}: generation failed: {}", o.seed + first + i, e.what()));
      }
    }
    std::vector<tsm::randgen::CudaCase> cases = tsm::randgen::cuda_cases(kernels);
    if (!kernel_file.empty()) cases[0].whole_file = kernel_file;
    std::vector<std::string> texts;  // each kernel as a file of its own
    for (size_t i = 0; i < kernels.size(); ++i) {
      const auto& k = kernels[i];
      texts.push_back(kernel_file.empty() ? tsm::randgen::cuda_translation_unit({cases[i].source}) : kernel_file);
      if (o.print_kernel) fmt::print("// seed {}: {}\n{}", k.seed, k.description, kernel_file.empty() ? cases[i].source : kernel_file);
      if (!o.keep.empty()) {
        write_text(fail_dir / fmt::format("seed-{}.cu", k.seed), texts.back());
        write_text(fail_dir / fmt::format("seed-{}.launch", k.seed), tsm::randgen::describe_cuda_launch(k));
      }
    }
    const auto host = oracle.host(cases);
    std::vector<std::vector<CudaOutcome>> outcomes(kernels.size());
    for (Frontend fe : frontends) {
      const auto device = oracle.device(cases, fe, host);
      for (size_t i = 0; i < kernels.size(); ++i) {
        CudaOutcome out{fe, device[i].problem, device[i].kind, device[i].warp_instructions};
        if (out.problem.empty() && o.backend == "rtl") {
          const auto& module = device[i].module;
          const auto& k = kernels[i];
          out.problem = check_backend(
              o, cfg, brt,
              [&](tsm::Runtime& rt) {
                return tsm::randgen::run_module(rt, *module, cases[i].entry, k.grid, k.block, tsm::randgen::cuda_buffers(k),
                                                tsm::randgen::cuda_scalar_arguments(k));
              },
              tsm::randgen::cuda_buffers(k), device[i].golden, 4 * tsm::randgen::kCudaOutWords);
          if (!out.problem.empty()) out.kind = "rtl";
        }
        outcomes[i].push_back(std::move(out));
      }
    }
    for (size_t i = 0; i < kernels.size(); ++i) {
      for (const auto& r : outcomes[i]) {
        if (r.problem.empty()) ++passed[r.frontend];
        total_insns += r.insns;
      }
      if (!report_cuda_seed(o, oracle, kernels[i], texts[i], outcomes[i], fail_dir, repro_flags, reductions))
        failed.push_back(kernels[i].seed);
      std::fflush(stdout);
    }
  }
  const auto& t = oracle.times();
  std::vector<std::string> per_fe;
  for (Frontend fe : frontends) per_fe.push_back(fmt::format("{} {}/{}", tsm::compiler::to_string(fe), passed[fe], o.count));
  if (!skipped.empty()) per_fe.push_back(skipped + " skipped (not installed)");
  fmt::print("kernels passed: {}; front ends {:.1f} s ({} compiles), host {:.1f} s compile + {:.1f} s run, translator {:.1f} s, golden {:.1f} s\n",
             fmt::join(per_fe, ", "), t.front_end, t.front_end_compiles, t.host_compile, t.host_run, t.translate, t.golden);
  std::string what = ", CUDA:";
  for (Frontend fe : frontends) what += std::string(" ") + tsm::compiler::to_string(fe);
  summarize(o, what.c_str(), failed, total_insns, t0);
}

void run_random(const RandomCmd& o) {
  const tsm::config::SmConfig* cfg = tsm::config::find_config(o.config);
  if (!cfg) fail(fmt::format("unknown configuration '{}' (see: tsm-tool configs)", o.config));
  if (o.backend == "golden" && (o.sms != 0 || !o.verilator_args.empty() || o.mutant != 0 || o.sched != "lrr"))
    fail("--sms, --sched, --verilator-arg and --mutant apply to the rtl backend only");
  rg::RandomOptions ro;
  ro.config = o.config;
  ro.min_size = o.min_size;
  ro.max_size = std::max(o.min_size, o.max_size);
  try {
    if (o.level == "native") ro.excluded = rg::parse_features(o.exclude);
  } catch (const std::invalid_argument& e) {
    fail(fmt::format("--exclude: {}", e.what()));
  }
  const std::string override_src = o.kernel_file.empty() ? "" : read_text(o.kernel_file);
  std::string repro_flags = fmt::format("--config {} --backend {}", o.config, o.backend);
  if (!o.lockstep) repro_flags += " --no-lockstep";
  if (o.sms) repro_flags += fmt::format(" --sms {}", o.sms);
  if (o.sched != "lrr") repro_flags += fmt::format(" --sched {}", o.sched);
  if (o.mutant) repro_flags += fmt::format(" --mutant {}", o.mutant);
  if (!o.exclude.empty()) repro_flags += fmt::format(" --exclude {}", o.exclude);
  if (o.min_size != rg::RandomOptions{}.min_size || o.max_size != rg::RandomOptions{}.max_size)
    repro_flags += fmt::format(" --min-size {} --max-size {}", o.min_size, o.max_size);
  for (const auto& a : o.verilator_args) repro_flags += fmt::format(" --verilator-arg {}", a);
  // The model is built (on first use) or found before the first seed, so that a missing model is
  // this command's error, not a seed's failure.
  if (o.backend != "golden") {
    try {
      tsm::rtl::ensure_gpu_model(o.config, o.mutant != 0 ? tsm::rtl::ModelKind::Mutant : tsm::rtl::ModelKind::Rtl);
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  const RandomCmd defaults;
  if (o.level != "cuda" && (o.frontend != defaults.frontend || o.batch != defaults.batch || !o.reduce))
    fail("--frontend, --batch and --no-reduce apply to --level cuda only");
  if (o.level != "native" && (o.min_size != rg::RandomOptions{}.min_size || o.max_size != rg::RandomOptions{}.max_size))
    fail("--min-size and --max-size apply to --level native only");
  if (o.level == "ptx" && !o.exclude.empty()) fail("--exclude applies to --level native and cuda only");
  if (o.level == "ptx") {
    run_random_ptx(o, *cfg, repro_flags);
    return;
  }
  if (o.level == "cuda") {
    if (!o.reference) fail("--no-reference applies to --level ptx only");
    if (o.batch == 0) fail("--batch must be at least 1");
    run_random_cuda(o, *cfg, repro_flags);
    return;
  }

  run_seeds(o, "", [&](uint64_t seed, std::unique_ptr<tsm::Runtime>& brt) {
    rg::RandomKernel k;
    try {
      k = rg::generate(seed, ro);
    } catch (const std::exception& e) {
      fail(fmt::format("seed {}: generation failed: {}", seed, e.what()));
    }
    SeedOutcome r;
    r.src = override_src.empty() ? k.source : override_src;
    if (o.print_kernel) fmt::print("{}", r.src);
    if (!o.keep.empty()) write_text(std::filesystem::path(o.keep) / fmt::format("seed-{}.tsa", seed), r.src);
    rg::RandomRun want;
    bool have_want = false;
    try {
      tsm::Runtime grt(*cfg, tsm::make_golden_backend());
      want = rg::run_kernel(grt, k, r.src);
      have_want = true;
    } catch (const tsm::AsmError& e) {
      r.problem = fmt::format("the kernel does not assemble: {}", e.what());
    } catch (const std::exception& e) {
      r.problem = fmt::format("the golden model failed (a generator or golden-model bug): {}", e.what());
    }
    if (have_want)
      r.problem = check_backend(
          o, *cfg, brt, [&](tsm::Runtime& rt) { return rg::run_kernel(rt, k, r.src); }, k.buffers, want, 64);
    r.insns = have_want ? want.stats.warp_instructions : 0;
    r.description = k.description;
    r.ext = "tsa";
    r.repro = fmt::format("./tsm random --seed {} --count 1 {}{}", seed, repro_flags,
                          o.kernel_file.empty() ? "" : " --kernel-file " + o.kernel_file);
    return r;
  });
}

}  // namespace

void add_random_command(CLI::App& app) {
  auto o = std::make_shared<RandomCmd>();
  CLI::App* cmd = app.add_subcommand(
      "random", "Differential test: seeded random kernels on the golden model and on a backend (the RTL in lockstep), memory compared");
  cmd->add_option("--level", o->level,
                  "native: random native-ISA kernels; ptx: random PTX kernels through our translator (at the configuration's register "
                  "budget and at a small one that spills), the golden model checked against the generator's own reference "
                  "evaluation, then the backend against the golden model; cuda: random CUDA C kernels through the front ends, "
                  "the translator and the golden model, checked against the same source compiled for the host")
      ->check(CLI::IsMember({"native", "ptx", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "First seed")->capture_default_str();
  cmd->add_option("--count", o->count, "Number of seeds (seed, seed+1, ...)")->capture_default_str();
  cmd->add_option("--config", o->config, "SM configuration")->capture_default_str();
  cmd->add_option("--backend", o->backend, "Backend compared with the golden model: rtl or golden")
      ->check(CLI::IsMember({"golden", "rtl"}))
      ->capture_default_str();
  cmd->add_option("--keep", o->keep, "Write every kernel's .tsa (ptx: .ptx and .launch; cuda: .cu and .launch) here (failures go here too; default ./random-failures)");
  cmd->add_flag("!--no-lockstep", o->lockstep, "rtl: do not check each retired instruction against the golden model");
  cmd->add_option("--sms", o->sms, "rtl: SMs that take blocks (default: the configuration's)");
  tsm::tools::declare_sched_option(*cmd, o->sched);
  cmd->add_option("--mutant", o->mutant, "rtl: run the RTL with deliberate bug N switched on (the mutant model, docs/regression.md §3)");
  cmd->add_option("--verilator-arg", o->verilator_args, "rtl: a run-time argument of the Verilated model (repeatable)");
  std::string names;
  for (const auto& n : tsm::randgen::feature_names()) names += (names.empty() ? "" : " ") + n;
  std::string cuda_names;
  for (const auto& n : tsm::randgen::cuda_feature_names()) cuda_names += (cuda_names.empty() ? "" : " ") + n;
  cmd->add_option("--exclude", o->exclude,
                  "native and cuda: comma-separated generator features to leave out; native: " + names + "; cuda: " + cuda_names);
  cmd->add_option("--kernel-file", o->kernel_file,
                  "Run this .tsa (ptx: .ptx; cuda: .cu, whose kernel is k<seed>) instead of the generated text, with the seed's launch "
                  "shape and buffers (ptx: and its reference result), to reduce a failure");
  cmd->add_option("--min-size", o->min_size, "native: smallest kernel body in static instructions")->capture_default_str();
  cmd->add_option("--max-size", o->max_size, "native: largest kernel body in static instructions")->capture_default_str();
  cmd->add_flag("!--no-reference", o->reference,
                "ptx: do not compare the golden model with the generator's reference (to cut down a --kernel-file whose golden "
                "and RTL runs differ)");
  cmd->add_option("--frontend", o->frontend,
                  "cuda: the CUDA front ends that compile each kernel: clang, nvcc, or both (nvcc only where it is installed)")
      ->check(CLI::IsMember({"clang", "nvcc", "both"}))
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "cuda: kernels compiled together in one translation unit")->capture_default_str();
  cmd->add_flag("!--no-reduce", o->reduce, "cuda: save a failing kernel as generated, without cutting it down");
  cmd->add_flag("--print", o->print_kernel, "Print each kernel's assembly (ptx: its PTX; cuda: its CUDA C)");
  cmd->callback([o] { run_random(*o); });
}
