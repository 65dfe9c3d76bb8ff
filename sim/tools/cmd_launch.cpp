// tsm-tool's `launch` (any kernel binary or assembly file, arguments from the command line),
// `run` (the firmware host programs with their C++ references) and `programs` (the suite as JSON).
#include "cmd_launch.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli_args.hpp"
#include "host.hpp"
#include "isa/assembler.hpp"
#include "ptx/compile.hpp"
#include "rtl/gpu_driver.hpp"
#include "rtl_model/models.hpp"
#include "runtime/runtime.hpp"

namespace {

/// On the rtl backend, what the GPU's counters say about the launches so far (docs/sm-rtl.md §4).
void print_rtl_counters(const std::string& prefix, tsm::Runtime& rt) {
  const auto* rtl = dynamic_cast<const tsm::rtl::RtlBackend*>(&rt.backend());
  if (!rtl) return;
  const auto& k = rtl->total_counters();
  const unsigned sms = rtl->kernel_config().num_sms;
  const double sm_cycles = static_cast<double>(k[0]) * sms;
  const auto per_sm = [&](uint64_t v) { return sm_cycles > 0 ? static_cast<double>(v) / sm_cycles : 0.0; };
  fmt::print("{}rtl {} cycles, IPC {:.3f} per SM ({} SM{}), SP busy {:.1f} %, SFU busy {:.1f} % ({:.1f} % both), {} memory requests, {} transactions, "
             "{} bank conflicts\n",
             prefix, k[0], per_sm(k[1]), sms, sms == 1 ? "" : "s", 100.0 * per_sm(k[3]), 100.0 * per_sm(k[4]), 100.0 * per_sm(k[11]),
             k[8], k[10], k[9]);
}

using tsm::tools::fail;
using tsm::tools::read_text;

using tsm::DevicePtr;
using tsm::Runtime;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(fmt::format("{}: cannot open", path));
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A binary (by its magic number), CUDA or PTX (compiled on the fly), or assembly source.
tsm::Module load_kernel_file(const std::string& path, const std::string& frontend, const std::string& config) {
  const std::vector<uint8_t> bytes = read_file(path);
  if (bytes.size() >= 4 && bytes[0] == 'T' && bytes[1] == 'S' && bytes[2] == 'M' && bytes[3] == 'B')
    return tsm::Module::deserialize(bytes, path);
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".cu" || ext == ".ptx") {
    tsm::ptx::CompileOptions co;
    co.frontend = frontend == "nvcc" ? tsm::compiler::Frontend::Nvcc
                  : frontend == "clang" ? tsm::compiler::Frontend::Clang
                                        : tsm::compiler::Frontend::Auto;
    co.config = config;
    try {
      return tsm::ptx::compile_file(path, co).module;
    } catch (const tsm::ptx::PtxError& e) {
      fmt::print(stderr, "{}\n", e.what());
      throw CLI::RuntimeError(1);
    } catch (const tsm::compiler::CompileError& e) {
      fmt::print(stderr, "{}\n", e.what());
      throw CLI::RuntimeError(1);
    }
  }
  return tsm::assemble(std::string(bytes.begin(), bytes.end()), path);
}

struct LaunchOptions {
  std::string kernel_file;
  std::string kernel;
  std::string grid = "1";
  std::string block = "1";
  uint32_t shared = 0;
  std::string backend = "golden";
  std::string config = "g80";
  uint32_t sms = 0;
  bool lockstep = true;
  std::vector<std::string> verilator_args;
  uint32_t mutant = 0;
  std::string frontend = "auto";
  uint64_t budget = 200'000'000;
  std::vector<std::string> args;
};

struct BufferArg {
  DevicePtr ptr;
  uint32_t bytes;
  std::string out_file;
};

uint64_t parse_number(const std::string& spec, const std::string& text, bool is_signed) {
  try {
    size_t used = 0;
    const uint64_t v = is_signed ? static_cast<uint64_t>(std::stoll(text, &used, 0)) : std::stoull(text, &used, 0);
    if (used != text.size() || text.empty()) throw std::invalid_argument("trailing");
    if (!is_signed && text[0] == '-') throw std::invalid_argument("negative");
    return v;
  } catch (const std::exception&) {
    fail(fmt::format("--arg {}: '{}' is not a valid {} number", spec, text, is_signed ? "signed" : "unsigned"));
  }
}

void run_launch(const LaunchOptions& o) {
  tsm::firmware::HostOptions ho;
  ho.backend = o.backend;
  ho.config = o.config;
  ho.sms = o.sms;
  ho.lockstep = o.lockstep;
  ho.verilator_args = o.verilator_args;
  ho.mutant = o.mutant;
  try {
    auto rt = tsm::firmware::make_runtime(ho);
    rt->set_instruction_budget(o.budget);
    rt->set_printf_sink(stdout);
    const auto mod = rt->load_module(load_kernel_file(o.kernel_file, o.frontend, o.config));
    const auto grid = tsm::tools::parse_dim3(o.grid), block = tsm::tools::parse_dim3(o.block);
    if (!grid) fail(fmt::format("--grid '{}': expected X[,Y[,Z]]", o.grid));
    if (!block) fail(fmt::format("--block '{}': expected X[,Y[,Z]]", o.block));

    tsm::KernelArgs args;
    std::vector<BufferArg> buffers;
    for (const std::string& a : o.args) {
      const size_t colon = a.find(':');
      if (colon == std::string::npos) fail(fmt::format("--arg '{}': expected KIND:VALUE (i32 u32 f32 i64 u64 buf zeros)", a));
      const std::string kind = a.substr(0, colon), rest = a.substr(colon + 1);
      if (kind == "i32") args.i32(static_cast<int32_t>(parse_number(a, rest, true)));
      else if (kind == "u32") args.u32(static_cast<uint32_t>(parse_number(a, rest, false)));
      else if (kind == "i64") args.i64(static_cast<int64_t>(parse_number(a, rest, true)));
      else if (kind == "u64") args.u64(parse_number(a, rest, false));
      else if (kind == "f32") {
        try {
          size_t used = 0;
          const float f = std::stof(rest, &used);
          if (used != rest.size()) throw std::invalid_argument("trailing");
          args.f32(f);
        } catch (const std::exception&) {
          fail(fmt::format("--arg {}: '{}' is not a float", a, rest));
        }
      } else if (kind == "buf" || kind == "zeros") {
        const size_t colon2 = rest.find(':');
        const std::string first = rest.substr(0, colon2);
        const std::string out = colon2 == std::string::npos ? "" : rest.substr(colon2 + 1);
        std::vector<uint8_t> init;
        if (kind == "buf") init = read_file(first);
        else init.assign(static_cast<size_t>(parse_number(a, first, false)), 0);
        if (init.empty()) fail(fmt::format("--arg {}: the buffer would be empty", a));
        const DevicePtr p = rt->malloc(static_cast<uint32_t>(init.size()));
        rt->memcpy_to_device(p, init);
        buffers.push_back({p, static_cast<uint32_t>(init.size()), out});
        args.ptr(p);
      } else {
        fail(fmt::format("--arg '{}': unknown kind '{}' (i32 u32 f32 i64 u64 buf zeros)", a, kind));
      }
    }
    const auto& module = rt->module(mod);
    std::string kernel = o.kernel;
    if (kernel.empty()) {
      if (module.kernels.size() != 1) fail(fmt::format("{} has {} kernels: name one with --kernel", o.kernel_file, module.kernels.size()));
      kernel = module.kernels[0].name;
    }
    const tsm::LaunchResult r = rt->launch(mod, kernel, *grid, *block, args, o.shared);
    fmt::print("launch {} on {} ({}): grid {}, block {}, {} bytes dynamic shared\n", kernel, rt->backend().name(), o.config,
               tsm::to_string(*grid), tsm::to_string(*block), o.shared);
    fmt::print("  blocks {} ({} resident per SM), warp instructions {}, thread instructions {}, scheduler rounds {}\n",
               r.stats.blocks, r.stats.blocks_per_sm, r.stats.warp_instructions, r.stats.thread_instructions, r.stats.rounds);
    print_rtl_counters("  ", *rt);
    for (const auto& b : buffers) {
      if (b.out_file.empty()) continue;
      std::vector<uint8_t> data(b.bytes);
      rt->memcpy_to_host(data, b.ptr);
      std::ofstream f(b.out_file, std::ios::binary | std::ios::trunc);
      f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
      if (!f) fail(fmt::format("{}: cannot write", b.out_file));
      fmt::print("  wrote {} bytes to {}\n", data.size(), b.out_file);
    }
  } catch (const tsm::RuntimeError& e) {
    fail(e.what());
  } catch (const tsm::FormatError& e) {
    fail(e.what());
  } catch (const tsm::AsmError& e) {
    fail(e.what());
  }
}

std::vector<uint32_t> parse_blocks(const std::string& text) {
  std::vector<uint32_t> blocks;
  if (text.empty()) return {0};
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const uint64_t v = parse_number("--block", item, false);
    if (v == 0 || v > 0xFFFFFFFFu) fail(fmt::format("--block: '{}' is not a valid block size", item));
    blocks.push_back(static_cast<uint32_t>(v));
  }
  if (blocks.empty()) fail("--block: no block size given");
  return blocks;
}

void run_program(const std::string& name, tsm::firmware::HostOptions o, const std::string& blocks_text) {
  const tsm::firmware::HostProgram* program = nullptr;
  for (const auto& p : tsm::firmware::host_programs())
    if (p.name == name) program = &p;
  if (!program) {
    std::string known;
    for (const auto& p : tsm::firmware::host_programs()) known += (known.empty() ? "" : ", ") + p.name;
    fail(fmt::format("no program '{}' (known: {})", name, known));
  }
  // One run per block size; the kernel is compiled once.
  size_t failed = 0;
  std::vector<uint32_t> blocks = blocks_text == "all" ? program->shapes : parse_blocks(blocks_text);
  if (blocks_text == "all") {
    // 'all' means the program's shapes that the configuration can launch.
    const tsm::config::SmConfig* cfg = tsm::config::find_config(o.config);
    const uint32_t max_threads = cfg ? cfg->max_threads_per_block : UINT32_MAX;
    std::vector<uint32_t> skipped;
    std::erase_if(blocks, [&](uint32_t b) { return b > max_threads && (skipped.push_back(b), true); });
    if (!skipped.empty())
      fmt::print("{}: skipping block size {} (configuration {} allows at most {} threads per block)\n", name,
                 fmt::join(skipped, ", "), o.config, max_threads);
  }
  for (uint32_t b : blocks) {
    o.block = b;
    bool ok = false;
    try {
      auto rt = tsm::firmware::make_runtime(o);
      rt->set_printf_sink(stdout);
      ok = program->run(*rt, o);
      print_rtl_counters(name + ": ", *rt);
    } catch (const tsm::RuntimeError& e) {
      fail(e.what());
    } catch (const tsm::AsmError& e) {
      fail(e.what());
    }
    failed += ok ? 0 : 1;
  }
  if (blocks.size() > 1)
    fmt::print("{}: {} of {} launch shapes match\n", name, blocks.size() - failed, blocks.size());
  if (failed) throw CLI::RuntimeError(1);
}

}  // namespace

void add_launch_commands(CLI::App& app) {
  const std::string backend_help = fmt::format(
      "Backend: golden (the functional model), rtl (the Verilated RTL) or netlist (the Verilated Yosys netlist of "
      "the GPU top, one SM; built for: {})",
      fmt::join(tsm::rtl::rtl_model_configs(tsm::rtl::ModelKind::Netlist), ", "));
  auto o = std::make_shared<LaunchOptions>();
  CLI::App* launch = app.add_subcommand("launch", "Launch a kernel (.tsb binary or .tsa assembly) with arguments from the command line");
  launch->add_option("kernel_file", o->kernel_file, "Kernel: .tsb binary, .tsa assembly, or .cu/.ptx (compiled on the fly)")->required();
  launch->add_option("--frontend", o->frontend, "CUDA front end for .cu files: auto, nvcc, clang")
      ->check(CLI::IsMember({"auto", "nvcc", "clang"}))
      ->capture_default_str();
  launch->add_option("--kernel", o->kernel, "Kernel name (optional when the module has one kernel)");
  launch->add_option("--grid", o->grid, "Grid shape X[,Y[,Z]]")->capture_default_str();
  launch->add_option("--block", o->block, "Block shape X[,Y[,Z]]")->capture_default_str();
  launch->add_option("--shared", o->shared, "Dynamic shared memory bytes")->capture_default_str();
  launch->add_option("--backend", o->backend, backend_help)
      ->check(CLI::IsMember({"golden", "rtl", "netlist"}))
      ->capture_default_str();
  launch->add_option("--config", o->config, "SM configuration (see: configs)")->capture_default_str();
  launch->add_option("--sms", o->sms, "rtl, netlist: SMs that take blocks (default: all the model has)");
  launch->add_flag("!--no-lockstep", o->lockstep, "rtl, netlist: do not check each retired instruction against the golden model");
  launch->add_option("--verilator-arg", o->verilator_args,
                     "rtl, netlist: a run-time argument of the Verilated model, e.g. +verilator+rand+reset+2 or +verilator+seed+7 (repeatable)");
  launch->add_option("--mutant", o->mutant, "rtl: run the RTL with deliberate bug N switched on (the mutant model, docs/regression.md §3)");
  launch->add_option("--budget", o->budget, "Warp instructions before a runaway-kernel fault")->capture_default_str();
  launch->add_option("--arg", o->args,
                     "Kernel argument, in parameter order: i32:V u32:V f32:V i64:V u64:V, buf:IN_FILE[:OUT_FILE] "
                     "(device buffer from a raw little-endian file, written back to OUT_FILE), zeros:BYTES[:OUT_FILE]");
  launch->callback([o] { run_launch(*o); });

  auto name = std::make_shared<std::string>();
  auto ho = std::make_shared<tsm::firmware::HostOptions>();
  std::string programs;
  for (const auto& p : tsm::firmware::host_programs()) programs += fmt::format("\n  {:<16} {}", p.name, p.description);
  CLI::App* run = app.add_subcommand("run", "Run a firmware kernel with its host program and check it against the C++ reference:" + programs);
  run->add_option("program", *name, "Program name")->required();
  run->add_option("--backend", ho->backend, backend_help)
      ->check(CLI::IsMember({"golden", "rtl", "netlist"}))
      ->capture_default_str();
  run->add_option("--config", ho->config, "SM configuration")->capture_default_str();
  run->add_option("--sms", ho->sms, "rtl, netlist: SMs that take blocks (default: all the model has)");
  run->add_flag("!--no-lockstep", ho->lockstep, "rtl, netlist: do not check each retired instruction against the golden model");
  run->add_option("--verilator-arg", ho->verilator_args,
                  "rtl, netlist: a run-time argument of the Verilated model, e.g. +verilator+rand+reset+2 or +verilator+seed+7 (repeatable)");
  run->add_option("--mutant", ho->mutant, "rtl: run the RTL with deliberate bug N switched on (the mutant model, docs/regression.md §3)");
  run->add_option("-n,--size", ho->n, "Problem size (default: the program's)");
  auto blocks = std::make_shared<std::string>();
  run->add_option("--block", *blocks, "Threads per block, a comma-separated list to run each, or 'all' for the program's tested shapes (default: the program's)");
  run->add_option("--seed", ho->seed, "Input seed")->capture_default_str();
  run->add_option("--frontend", ho->frontend, "CUDA front end: auto (nvcc if installed, else clang), nvcc, clang")
      ->check(CLI::IsMember({"auto", "nvcc", "clang"}))
      ->capture_default_str();
  run->add_option("--source", ho->source, "Kernel source: cuda (firmware/cuda/NAME.cu) or asm (firmware/asm/NAME.tsa, where one exists)")
      ->check(CLI::IsMember({"cuda", "asm"}))
      ->capture_default_str();
  run->callback([name, ho, blocks] { run_program(*name, *ho, *blocks); });

  // The suite as data, for ./tsm regress: name, tested block sizes, hand-written assembly or not.
  CLI::App* programs_cmd =
      app.add_subcommand("programs", "List the kernel suite's programs as JSON: name, description, tested block sizes, asm version");
  programs_cmd->callback([] {
    const std::vector<std::string> with_asm = tsm::firmware::asm_programs(tsm::firmware::HostOptions{});
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : tsm::firmware::host_programs())
      list.push_back({{"name", p.name},
                      {"description", p.description},
                      {"shapes", p.shapes},
                      {"asm", std::find(with_asm.begin(), with_asm.end(), p.name) != with_asm.end()}});
    fmt::print("{}\n", list.dump(1));
  });
}
