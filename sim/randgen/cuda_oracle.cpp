// The differential oracle for compiled CUDA C (cuda_oracle.hpp): batches of random kernels through
// the host compiler with cuda_host_shim.h and through a CUDA front end, the translator and the
// golden model; failures isolated to their kernel and reduced.
#include "randgen/cuda_oracle.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "ptx/translate.hpp"
#include "randgen/random_ptx.hpp"
#include "runtime/runtime.hpp"
#include "tsm/config_gen.hpp"

extern char** environ;

namespace tsm::randgen {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Warp instructions a kernel may retire on the golden model before it counts as a runaway: the
/// generator's loops are bounded (the most of 20,000 kernels was 1.2 million), and a reduction step
/// that keeps a runaway must not take long to show it.
constexpr uint64_t kGoldenBudget = 4'000'000;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error(fmt::format("cannot write {}", p.string()));
}

std::optional<std::string> on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return std::nullopt;
}

struct ProcessResult {
  int status = 0;  // exit code, or 128 + signal
  std::string output;
};

/// Runs argv (argv[0] an absolute path), stdin from /dev/null, stdout and stderr into one file.
ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
  ProcessResult r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = read_file(log);
  return r;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

/// The first line of a compiler's output that says "error", or its first line.
std::string first_error(const std::string& output) {
  std::istringstream in(output);
  std::string l;
  while (std::getline(in, l))
    if (l.find("error") != std::string::npos) return l;
  return first_line(output);
}

/// A message with the kernel's name taken out and its numbers (lines, columns, registers,
/// addresses) made 'N', so that a reduction step (whose kernel has another name) counts as keeping
/// a failure only when the message is otherwise the same.
std::string normalize(const std::string& message, const std::string& entry = "") {
  std::string m = first_line(message);
  for (size_t at; !entry.empty() && (at = m.find(entry)) != std::string::npos;) m.replace(at, entry.size(), "KERNEL");
  const size_t at = m.find("error: ");
  if (at != std::string::npos) m = m.substr(at + 7);
  std::string r;
  for (size_t i = 0; i < m.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(m[i]))) {
      if (r.empty() || r.back() != 'N') r += 'N';
      while (i + 1 < m.size() && std::isalnum(static_cast<unsigned char>(m[i + 1]))) ++i;
    } else {
      r += m[i];
    }
  }
  return r;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

/// The PTX module restricted to one entry and the functions it calls (directly or not), so that
/// each kernel of a batch translates on its own and one refusal does not take the others along.
ptx::Module entry_module(const ptx::Module& m, const std::string& entry) {
  std::map<std::string, const ptx::Function*> by_name;
  for (const auto& f : m.functions) by_name[f.name] = &f;
  std::set<std::string> keep{entry};
  std::vector<std::string> work{entry};
  while (!work.empty()) {
    const auto it = by_name.find(work.back());
    work.pop_back();
    if (it == by_name.end()) continue;
    for (const auto& s : it->second->body) {
      if (s.kind != ptx::Statement::Kind::Instr || s.instr.opcode != "call" || s.instr.operands.size() < 2) continue;
      const std::string& callee = s.instr.operands[1].name;
      if (keep.insert(callee).second) work.push_back(callee);
    }
  }
  ptx::Module r;
  r.file = m.file;
  r.version_major = m.version_major;
  r.version_minor = m.version_minor;
  r.target = m.target;
  r.address_size = m.address_size;
  r.globals = m.globals;
  r.from_llvm = m.from_llvm;
  for (const auto& f : m.functions)
    if (keep.count(f.name) || f.is_extern) r.functions.push_back(f);
  return r;
}

/// The words of the first thread whose words differ, host against golden ("; thread 3: o[0]
/// 0x... host, 0x... golden; ...").
std::string word_differences(const std::vector<uint8_t>& host, const std::vector<uint8_t>& golden) {
  const size_t words = std::min(host.size(), golden.size()) / 4;
  for (size_t w = 0; w < words; ++w) {
    if (std::memcmp(&host[4 * w], &golden[4 * w], 4) == 0) continue;
    const size_t thread = w / kCudaOutWords;
    std::string s = fmt::format("; thread {}:", thread);
    for (size_t j = thread * kCudaOutWords; j < (thread + 1) * kCudaOutWords && j < words; ++j) {
      uint32_t a, b;
      std::memcpy(&a, &host[4 * j], 4);
      std::memcpy(&b, &golden[4 * j], 4);
      if (a != b) s += fmt::format(" o[{}] {:#010x} host, {:#010x} golden;", j - thread * kCudaOutWords, a, b);
    }
    s.pop_back();
    return s;
  }
  return "";
}

}  // namespace

std::string find_host_cxx() {
  for (const char* name : {"g++", "c++", "clang++"})
    if (auto p = on_path(name)) return *p;
  return "";
}

std::vector<CudaCase> cuda_cases(const std::vector<CudaKernel>& kernels) {
  std::vector<CudaCase> cases;
  for (const auto& k : kernels) cases.push_back(CudaCase{&k, k.source(), k.name, ""});
  return cases;
}

CudaOracle::CudaOracle(CudaOracleOptions options) : options_(std::move(options)) {
  if (!config::find_config(options_.config)) throw std::invalid_argument(fmt::format("unknown configuration '{}'", options_.config));
  std::string pattern = (fs::temp_directory_path() / "tsm-cuda-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error(fmt::format("cannot create a temporary directory {}: {}", pattern, std::strerror(errno)));
  dir_ = pattern;
  host_cxx_ = find_host_cxx();
}

CudaOracle::~CudaOracle() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string CudaOracle::host_command() const {
  return fmt::format("{} -std=c++17 -O0 -ffp-contract=off -frounding-math -w -include {}/cuda_host_shim.h",
                     host_cxx_.empty() ? "g++" : host_cxx_, TSM_RANDGEN_DIR);
}

std::string CudaOracle::write_unit(const std::vector<CudaCase>& cases, const std::string& stem) {
  const fs::path path = fs::path(dir_) / fmt::format("{}-{}.cu", stem, serial_++);
  if (cases.size() == 1 && !cases[0].whole_file.empty()) {
    write_file(path, cases[0].whole_file);
  } else {
    std::vector<std::string> sources;
    for (const auto& c : cases) sources.push_back(c.source);
    write_file(path, cuda_translation_unit(sources));
  }
  return path.string();
}

std::string CudaOracle::compile_host(const std::vector<CudaCase>& cases, const std::string& exe) {
  const std::string unit = write_unit(cases, "host");
  std::string driver = fmt::format("#include \"{}\"\nstatic const tsm_host::Kernel tsm_kernels[] = {{\n", unit);
  for (const auto& c : cases) driver += fmt::format("  {},\n", c.entry);
  driver += "};\nint main(int argc, char** argv) { return tsm_host::run_launches(argc, argv, tsm_kernels, sizeof tsm_kernels / sizeof *tsm_kernels); }\n";
  const fs::path driver_path = fs::path(exe + ".cpp");
  write_file(driver_path, driver);
  std::vector<std::string> argv = {host_cxx_, "-std=c++17", "-O0", "-ffp-contract=off", "-frounding-math", "-w", "-include",
                                   std::string(TSM_RANDGEN_DIR) + "/cuda_host_shim.h"};
  argv.insert(argv.end(), options_.host_flags.begin(), options_.host_flags.end());
  for (const char* a : {"-o", exe.c_str()}) argv.emplace_back(a);
  argv.push_back(driver_path.string());
  const auto t0 = Clock::now();
  const ProcessResult r = run_process(argv, exe + ".log");
  times_.host_compile += seconds_since(t0);
  ++times_.host_compiles;
  if (r.status == 0) return "";
  return fmt::format("{} (command: {})", first_error(r.output), shell_join(argv));
}

std::vector<CudaHostResult> CudaOracle::run_host(const std::vector<CudaCase>& cases, const std::string& exe) {
  // The launch file: magic, count, then per launch grid, block, pa pb pf pl, in, out.
  std::string launch;
  auto u32 = [&](uint32_t v) { launch.append(reinterpret_cast<const char*>(&v), 4); };
  u32(0x484D5354u);
  u32(static_cast<uint32_t>(cases.size()));
  for (const auto& c : cases) {
    const CudaKernel& k = *c.kernel;
    for (uint32_t v : {k.grid.x, k.grid.y, k.grid.z, k.block.x, k.block.y, k.block.z}) u32(v);
    u32(static_cast<uint32_t>(k.pa));
    u32(k.pb);
    u32(std::bit_cast<uint32_t>(k.pf));
    u32(static_cast<uint32_t>(static_cast<uint64_t>(k.pl)));
    u32(static_cast<uint32_t>(static_cast<uint64_t>(k.pl) >> 32));
    u32(static_cast<uint32_t>(k.in.size()));
    launch.append(reinterpret_cast<const char*>(k.in.data()), 4 * k.in.size());
    u32(static_cast<uint32_t>(k.out_init.size()));
    launch.append(reinterpret_cast<const char*>(k.out_init.data()), 4 * k.out_init.size());
  }
  write_file(exe + ".launch", launch);
  const auto t0 = Clock::now();
  const ProcessResult r = run_process({exe, exe + ".launch", exe + ".results"}, exe + ".run.log");
  times_.host_run += seconds_since(t0);
  std::vector<CudaHostResult> results(cases.size());
  if (r.status != 0) {
    for (auto& x : results) x.problem = fmt::format("the host driver failed (status {}): {}", r.status, first_line(r.output));
    return results;
  }
  const std::string data = read_file(exe + ".results");
  size_t at = 0;
  auto take = [&](size_t n) {
    if (at + n > data.size()) throw std::runtime_error("the host driver's result file is truncated");
    const char* p = data.data() + at;
    at += n;
    return p;
  };
  auto word = [&] {
    uint32_t v;
    std::memcpy(&v, take(4), 4);
    return v;
  };
  for (auto& x : results) {
    const uint32_t status = word();
    const uint32_t len = word();
    const std::string message(take(len), len);
    const uint32_t words = word();
    const char* p = take(4 * size_t{words});
    if (status != 0) {
      x.problem = fmt::format("the host reference failed (a generator bug): {}", message);
    } else {
      x.out.assign(p, p + 4 * size_t{words});
    }
  }
  return results;
}

std::vector<CudaHostResult> CudaOracle::host(const std::vector<CudaCase>& cases) {
  std::vector<CudaHostResult> results(cases.size());
  if (cases.empty()) return results;
  if (host_cxx_.empty()) {
    for (auto& r : results) r.problem = "no host C++ compiler: neither g++, c++ nor clang++ is on PATH";
    return results;
  }
  const std::string exe = (fs::path(dir_) / fmt::format("host-{}", serial_++)).string();
  const std::string error = compile_host(cases, exe);
  if (error.empty()) return run_host(cases, exe);
  // Find the cases the host compiler rejects (a generator bug), then run the others together.
  std::vector<CudaCase> good;
  std::vector<size_t> good_index;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string one = (fs::path(dir_) / fmt::format("host-{}", serial_++)).string();
    const std::string e = cases.size() == 1 ? error : compile_host({cases[i]}, one);
    if (e.empty()) {
      good.push_back(cases[i]);
      good_index.push_back(i);
    } else {
      results[i].problem = "the host compiler rejected the kernel (a generator bug): " + e;
    }
  }
  if (!good.empty()) {
    const std::string rest = (fs::path(dir_) / fmt::format("host-{}", serial_++)).string();
    const std::string e = compile_host(good, rest);
    const auto run = e.empty() ? run_host(good, rest) : std::vector<CudaHostResult>(good.size(), CudaHostResult{e, {}});
    for (size_t j = 0; j < good.size(); ++j) results[good_index[j]] = run[j];
  }
  return results;
}

std::vector<CudaDeviceResult> CudaOracle::device(const std::vector<CudaCase>& cases, compiler::Frontend frontend,
                                                 const std::vector<CudaHostResult>& host) {
  const config::SmConfig& cfg = *config::find_config(options_.config);
  std::vector<CudaDeviceResult> results(cases.size());
  std::vector<size_t> live;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!host.empty() && !host[i].problem.empty()) {
      results[i].problem = host[i].problem;
      results[i].kind = "host: " + normalize(host[i].problem, cases[i].entry);
    } else {
      live.push_back(i);
    }
  }
  const char* fe_name = compiler::to_string(frontend);

  // One front-end compile and one parse for all; where that fails, each case alone finds the ones
  // at fault, and the others are compiled together again.
  auto compile = [&](const std::vector<size_t>& which) -> ptx::Module {
    std::vector<CudaCase> subset;
    for (size_t i : which) subset.push_back(cases[i]);
    const std::string unit = write_unit(subset, fe_name);
    compiler::FrontendOptions fo;
    fo.frontend = frontend;
    const auto t0 = Clock::now();
    compiler::PtxOutput out;
    try {
      out = compiler::cuda_to_ptx(unit, fo);
    } catch (...) {
      times_.front_end += seconds_since(t0);
      ++times_.front_end_compiles;
      throw;
    }
    times_.front_end += seconds_since(t0);
    ++times_.front_end_compiles;
    const auto t1 = Clock::now();
    ptx::Module m = ptx::parse(out.ptx, fmt::format("{}.ptx", fs::path(unit).stem().string()));
    times_.translate += seconds_since(t1);
    return m;
  };
  ptx::Module module;
  try {
    module = compile(live);
  } catch (const std::exception& batch_error) {
    std::vector<size_t> good;
    for (size_t i : live) {
      try {
        if (live.size() > 1) compile({i});
        else throw;
        good.push_back(i);
      } catch (const compiler::CompileError& e) {
        results[i].problem = fmt::format("the {} front end rejected the kernel: {}", fe_name, e.headline);
        results[i].kind = "front end: " + normalize(e.headline, cases[i].entry);
      } catch (const std::exception& e) {
        results[i].problem = fmt::format("the translator's parser rejected {}'s PTX: {}", fe_name, e.what());
        results[i].kind = "parser: " + normalize(e.what(), cases[i].entry);
      }
    }
    live = good;
    if (!live.empty()) module = compile(live);
  }

  for (size_t i : live) {
    const CudaCase& c = cases[i];
    CudaDeviceResult& r = results[i];
    std::shared_ptr<Module> translated;
    try {
      const auto t0 = Clock::now();
      ptx::TranslateOptions to;
      to.max_registers = cfg.max_regs_per_thread;
      to.config = options_.config;
      translated = std::make_shared<Module>(ptx::translate(entry_module(module, c.entry), to).module);
      times_.translate += seconds_since(t0);
    } catch (const std::exception& e) {
      r.problem = fmt::format("the translator refused {}'s PTX: {}", fe_name, e.what());
      r.kind = "translator: " + normalize(e.what(), c.entry);
      continue;
    }
    r.module = translated;
    try {
      const auto t0 = Clock::now();
      Runtime rt(cfg, make_golden_backend());
      rt.set_instruction_budget(kGoldenBudget);
      r.golden = run_module(rt, *translated, c.entry, c.kernel->grid, c.kernel->block, cuda_buffers(*c.kernel),
                            cuda_scalar_arguments(*c.kernel));
      times_.golden += seconds_since(t0);
      r.warp_instructions = r.golden.stats.warp_instructions;
    } catch (const std::exception& e) {
      r.problem = fmt::format("the golden model failed on {}'s translation (a translator or golden-model bug): {}", fe_name, e.what());
      r.kind = "golden: " + normalize(e.what(), c.entry);
      continue;
    }
    if (host.empty()) continue;  // a reduction step that needs no reference
    const auto buffers = cuda_buffers(*c.kernel);
    const std::vector<std::vector<uint8_t>> want = {buffers[0].init, host[i].out};
    const std::string diff = compare_buffers(buffers, want, r.golden.buffers, 4 * kCudaOutWords, "the host reference", "golden");
    if (!diff.empty()) {
      r.problem = fmt::format("the golden model, running {}'s translation, differs from the host reference: {}{}", fe_name, diff,
                              word_differences(host[i].out, r.golden.buffers.at(1)));
      r.kind = "mismatch";
    }
  }
  return results;
}

CudaReduction CudaOracle::reduce(const CudaKernel& kernel, compiler::Frontend frontend, const std::string& kind) {
  const auto t0 = Clock::now();
  CudaReduction red;
  red.kernel = kernel;
  const bool needs_host = kind == "mismatch" || kind.rfind("host", 0) == 0;
  constexpr size_t kVariants = 48;  // kernels a batch of reduction steps compiles at once
  unsigned serial = 0;
  // Which of `variants` still fail with `kind`.
  auto check = [&](const std::vector<CudaKernel>& variants) {
    std::vector<CudaCase> cases;
    for (const auto& v : variants) {
      const std::string entry = fmt::format("{}_v{}", kernel.name, serial++);
      cases.push_back(CudaCase{&v, v.source(entry), entry, ""});
    }
    const std::vector<CudaHostResult> host_results = needs_host ? host(cases) : std::vector<CudaHostResult>{};
    const auto results = device(cases, frontend, host_results);
    ++red.compiles;
    std::vector<bool> same(variants.size());
    for (size_t i = 0; i < variants.size(); ++i) same[i] = results[i].kind == kind;
    return same;
  };
  while (true) {
    const std::vector<CudaEdit> edits = red.kernel.edits();
    bool progress = false;
    for (size_t start = 0; start < edits.size() && !progress; start += kVariants) {
      if (seconds_since(t0) > options_.reduce_seconds) {
        red.stopped = true;
        return red;
      }
      std::vector<CudaKernel> variants;
      const size_t end = std::min(edits.size(), start + kVariants);
      for (size_t i = start; i < end; ++i) variants.push_back(red.kernel.with_edits({edits[i]}));
      const std::vector<bool> same = check(variants);
      std::vector<CudaEdit> keep;
      for (size_t i = 0; i < variants.size(); ++i)
        if (same[i]) keep.push_back(edits[start + i]);
      if (keep.empty()) continue;
      progress = true;
      ++red.rounds;
      if (keep.size() == 1) {
        red.kernel = red.kernel.with_edits(keep);
        break;
      }
      // Each step alone keeps the failure; together they may not. The longest prefix that does.
      std::vector<CudaKernel> prefixes;
      for (size_t n = keep.size(); n >= 2 && prefixes.size() < kVariants; --n)
        prefixes.push_back(red.kernel.with_edits(std::vector<CudaEdit>(keep.begin(), keep.begin() + static_cast<std::ptrdiff_t>(n))));
      const std::vector<bool> ok = check(prefixes);
      CudaKernel next = red.kernel.with_edits({keep[0]});
      for (size_t j = 0; j < prefixes.size(); ++j)
        if (ok[j]) {
          next = std::move(prefixes[j]);
          break;
        }
      red.kernel = std::move(next);
    }
    if (!progress) break;
  }
  return red;
}

}  // namespace tsm::randgen
