// tsm-tool's `launch` (any kernel binary or assembly file, arguments from the command line),
// `run` (the firmware host programs with their C++ references) and `programs` (the suite as JSON).
#include "cmd_launch.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli_args.hpp"
#include "host.hpp"
#include "isa/assembler.hpp"
#include "board/board_backend.hpp"
#include "launch_args.hpp"
#include "ptx/compile.hpp"
#include "rtl/gpu_driver.hpp"
#include "rtl_model/models.hpp"
#include "runtime/runtime.hpp"

namespace {

/// On the rtl and board backends, what the GPU's counters say about the launches so far (docs/sm-rtl.md §4).
void print_rtl_counters(const std::string& prefix, tsm::Runtime& rt) {
  const auto* rtl = dynamic_cast<const tsm::rtl::RtlBackend*>(&rt.backend());
  const auto* board = dynamic_cast<const tsm::board::BoardBackend*>(&rt.backend());
  if (!rtl && !board) return;
  const auto& k = rtl ? rtl->total_counters() : board->total_counters();
  const unsigned sms = rtl ? rtl->kernel_config().num_sms : board->info().num_sms;
  const double sm_cycles = static_cast<double>(k[0]) * sms;
  const auto per_sm = [&](uint64_t v) { return sm_cycles > 0 ? static_cast<double>(v) / sm_cycles : 0.0; };
  fmt::print("{}{} {} cycles, IPC {:.3f} per SM ({} SM{}), SP busy {:.1f} %, SFU busy {:.1f} % ({:.1f} % both), {} memory requests, {} transactions, "
             "{} bank conflicts\n",
             prefix, rtl ? "rtl" : "board", k[0], per_sm(k[1]), sms, sms == 1 ? "" : "s", 100.0 * per_sm(k[3]), 100.0 * per_sm(k[4]), 100.0 * per_sm(k[11]),
             k[8], k[10], k[9]);
}

using tsm::tools::fail;
using tsm::tools::WaveOptions;
using tsm::tools::LaunchArg;
using tsm::tools::LaunchOptions;
using tsm::tools::LaunchPlan;

using tsm::DevicePtr;
using tsm::Runtime;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(fmt::format("{}: cannot open", path));
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A binary (by its magic number), CUDA or PTX (compiled on the fly), or assembly source. CUDA and
// PTX are compiled with --maxrregcount when it is given, otherwise with the register budget a block
// of `block` threads may use on `config` (as ./tsm run does, firmware/host/host.cpp), so that a
// kernel that needs more spills instead of being refused at the launch.
tsm::Module load_kernel_file(const LaunchOptions& o, const tsm::config::SmConfig& config, tsm::Dim3 block) {
  const std::string& path = o.kernel_file;
  const std::vector<uint8_t> bytes = read_file(path);
  const std::string ext = std::filesystem::path(path).extension().string();
  const bool binary = bytes.size() >= 4 && bytes[0] == 'T' && bytes[1] == 'S' && bytes[2] == 'M' && bytes[3] == 'B';
  if (!binary && (ext == ".cu" || ext == ".ptx")) {
    tsm::ptx::CompileOptions co;
    co.frontend = o.frontend == "nvcc"    ? tsm::compiler::Frontend::Nvcc
                  : o.frontend == "clang" ? tsm::compiler::Frontend::Clang
                                          : tsm::compiler::Frontend::Auto;
    co.config = o.config;
    // 0 when the block cannot run on the configuration at all: then the default budget, and the
    // launch says what is wrong with the block.
    const uint32_t fits = tsm::max_regs_for_block(config, block);
    co.max_registers = o.maxrregcount ? o.maxrregcount : fits ? fits : co.max_registers;
    try {
      tsm::ptx::Compiled c = tsm::ptx::compile_file(path, co);
      const std::string why = o.maxrregcount ? "--maxrregcount"
                              : fits        ? fmt::format("the most a block of {} threads may use on {}", block.count(), config.name)
                                            : "the default";
      for (const auto& k : c.stats)
        fmt::print("compiled {} with {} at {} registers ({}): kernel {}, {} registers, {} spilled values, {} instructions\n",
                   std::filesystem::path(path).filename().string(), c.frontend, co.max_registers, why, k.name, k.registers,
                   k.spilled, k.instructions);
      return std::move(c.module);
    } catch (const tsm::ptx::PtxError& e) {
      fmt::print(stderr, "{}\n", e.what());
      throw CLI::RuntimeError(1);
    } catch (const tsm::compiler::CompileError& e) {
      fmt::print(stderr, "{}\n", e.what());
      throw CLI::RuntimeError(1);
    }
  }
  if (o.maxrregcount)
    fail(fmt::format("--maxrregcount applies to kernels compiled here (.cu, .ptx); {} is already {}", path,
                     binary ? "a binary" : "native assembly"));
  if (binary) return tsm::Module::deserialize(bytes, path);
  return tsm::assemble(std::string(bytes.begin(), bytes.end()), path);
}

/// The clock where the rtl backend of `rt` stopped, or 0 for another backend (or none yet).
uint64_t clock_of(Runtime* rt) {
  const auto* rtl = rt ? dynamic_cast<const tsm::rtl::RtlBackend*>(&rt->backend()) : nullptr;
  return rtl ? rtl->clock() : 0;
}

/// On the rtl backend with --timeline, how many instructions the timeline holds.
void print_timeline(const std::string& path, Runtime& rt) {
  const auto* rtl = dynamic_cast<const tsm::rtl::RtlBackend*>(&rt.backend());
  if (rtl && !path.empty()) fmt::print("  timeline: {} instructions to {} (open it in Perfetto)\n", rtl->timeline_instructions(), path);
}

/// Runs `attempt` once with the waveform options `w` asks for. With --trace-on-fail it first runs
/// untraced; when that fails (attempt reported the failure, set `clock` to where the rtl backend
/// stopped and threw CLI::RuntimeError) it runs again, identically, tracing the --trace-window
/// clocks up to that clock, then ends with the first run's failure.
void with_waveforms(const WaveOptions& w, const std::function<void(const tsm::rtl::TraceOptions&, uint64_t& clock)>& attempt) {
  tsm::rtl::TraceOptions t;
  t.depth = w.depth;
  t.timeline = w.timeline;
  uint64_t clock = 0;
  if (!w.on_fail) {
    t.fst = w.trace;
    t.from = w.from;
    t.to = w.to;
    attempt(t, clock);
    return;
  }
  try {
    attempt(t, clock);
  } catch (const CLI::RuntimeError&) {
    if (clock == 0) throw;  // not a failure on the GPU: nothing to trace
    t.fst = w.trace.empty() ? "tsm-failure.fst" : w.trace;
    t.from = clock > w.window ? clock - w.window : 0;
    t.to = clock;
    t.timeline.clear();  // the first run wrote it
    fmt::print(stderr, "trace-on-fail: the run failed at clock {}; running it again to trace clocks {}..{} into {}\n", clock, t.from,
               t.to, t.fst);
    uint64_t again = 0;
    try {
      attempt(t, again);
    } catch (const CLI::RuntimeError&) {
    }
    if (again != clock)
      fmt::print(stderr, "trace-on-fail: warning: the second run stopped at clock {}, not {}: the trace may not show the failure\n",
                 again, clock);
    fmt::print(stderr, "trace-on-fail: wrote {} (clocks {}..{}); view it with ./tsm wave {}\n", t.fst, t.from, t.to, t.fst);
    throw;
  }
}

const char* elem_name(tsm::tools::ElemType t) {
  switch (t) {
    case tsm::tools::ElemType::I32: return "i32";
    case tsm::tools::ElemType::F32: return "f32";
    default: return "u32";
  }
}

struct BufferArg {
  DevicePtr ptr;
  uint32_t bytes;
  std::string out_file;
  size_t position;  // 1-based, in --arg order
};

void launch_once(const LaunchOptions& o, const tsm::rtl::TraceOptions& trace, uint64_t& clock) {
  tsm::firmware::HostOptions ho;
  ho.trace = trace;
  ho.backend = o.backend;
  ho.config = o.config;
  ho.sms = o.sms;
  ho.sched = o.sched;
  ho.lockstep = o.lockstep;
  ho.verilator_args = o.verilator_args;
  ho.mutant = o.mutant;
  ho.port = o.port;
  ho.baud = o.baud;
  ho.board_timeout = o.board_timeout;
  LaunchPlan plan;
  try {
    plan = tsm::tools::parse_launch(o);
  } catch (const tsm::tools::LaunchArgError& e) {
    fail(e.what());
  }
  std::unique_ptr<Runtime> rt;
  try {
    rt = tsm::firmware::make_runtime(ho);
    rt->set_instruction_budget(o.budget);
    rt->set_printf_sink(stdout);
    const auto mod = rt->load_module(load_kernel_file(o, rt->config(), plan.block));
    tsm::KernelArgs args;
    std::vector<BufferArg> buffers;
    for (const LaunchArg& a : plan.args) {
      switch (a.kind) {
        case LaunchArg::Kind::I32:
        case LaunchArg::Kind::U32:
        case LaunchArg::Kind::F32: args.u32(static_cast<uint32_t>(a.bits)); break;
        case LaunchArg::Kind::I64:
        case LaunchArg::Kind::U64: args.u64(a.bits); break;
        case LaunchArg::Kind::Buf:
        case LaunchArg::Kind::Zeros:
        case LaunchArg::Kind::Iota:
        case LaunchArg::Kind::Fill:
        case LaunchArg::Kind::Rand: {
          std::vector<uint8_t> init;
          if (a.kind != LaunchArg::Kind::Buf && a.kind != LaunchArg::Kind::Zeros) {
            init = tsm::tools::generate_buffer(a);
          } else if (a.kind == LaunchArg::Kind::Buf) {
            init = read_file(a.in_file);
            if (init.empty()) fail(fmt::format("--arg {}: the buffer would be empty", a.spec));
            if (init.size() > UINT32_MAX) fail(fmt::format("--arg {}: {} is larger than the 32-bit device address space", a.spec, a.in_file));
          }
          const uint32_t bytes = init.empty() ? static_cast<uint32_t>(a.bytes) : static_cast<uint32_t>(init.size());
          const DevicePtr p = rt->malloc(bytes);
          if (init.empty()) init.assign(bytes, 0);
          rt->memcpy_to_device(p, init);
          buffers.push_back({p, bytes, a.out_file, static_cast<size_t>(&a - plan.args.data()) + 1});
          args.ptr(p);
          break;
        }
      }
    }
    const auto& module = rt->module(mod);
    std::string kernel = o.kernel;
    if (kernel.empty()) {
      if (module.kernels.size() != 1) fail(fmt::format("{} has {} kernels: name one with --kernel", o.kernel_file, module.kernels.size()));
      kernel = module.kernels[0].name;
    }
    const tsm::LaunchResult r = rt->launch(mod, kernel, plan.grid, plan.block, args, o.shared);
    fmt::print("launch {} on {} ({}): grid {}, block {}, {} bytes dynamic shared\n", kernel, rt->backend().name(), o.config,
               tsm::to_string(plan.grid), tsm::to_string(plan.block), o.shared);
    fmt::print("  blocks {} ({} resident per SM), warp instructions {}, thread instructions {}, scheduler rounds {}\n",
               r.stats.blocks, r.stats.blocks_per_sm, r.stats.warp_instructions, r.stats.thread_instructions, r.stats.rounds);
    print_rtl_counters("  ", *rt);
    print_timeline(o.wave.timeline, *rt);
    for (const auto& b : buffers) {
      if (b.out_file.empty()) continue;
      std::vector<uint8_t> data(b.bytes);
      rt->memcpy_to_host(data, b.ptr);
      std::ofstream f(b.out_file, std::ios::binary | std::ios::trunc);
      f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
      if (!f) fail(fmt::format("{}: cannot write", b.out_file));
      fmt::print("  wrote {} bytes to {}\n", data.size(), b.out_file);
    }
    for (const auto& p : plan.prints) {
      for (const auto& b : buffers) {
        if (b.position != p.arg) continue;
        std::vector<uint8_t> data(b.bytes);
        rt->memcpy_to_host(data, b.ptr);
        std::string lines = tsm::tools::format_elements(data, p.elem, p.count);
        for (size_t at = 0; (at = lines.find('\n', at)) != std::string::npos; at += 5) lines.replace(at, 1, "\n    ");
        fmt::print("  --arg {} ({}) as {}:\n    {}\n", p.arg, plan.args[p.arg - 1].spec, elem_name(p.elem), lines);
      }
    }
  } catch (const tsm::RuntimeError& e) {
    clock = clock_of(rt.get());
    fail(e.what());
  } catch (const tsm::FormatError& e) {
    fail(e.what());
  } catch (const tsm::AsmError& e) {
    fail(e.what());
  }
}

void run_launch(const LaunchOptions& o) {
  with_waveforms(o.wave, [&](const tsm::rtl::TraceOptions& trace, uint64_t& clock) { launch_once(o, trace, clock); });
}

std::vector<uint32_t> parse_blocks(const std::string& text) {
  std::vector<uint32_t> blocks;
  if (text.empty()) return {0};
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    uint64_t v = 0;
    try {
      v = tsm::tools::parse_number("--block", item, false);
    } catch (const tsm::tools::LaunchArgError& e) {
      fail(e.what());
    }
    if (v == 0 || v > 0xFFFFFFFFu) fail(fmt::format("--block: '{}' is not a valid block size", item));
    blocks.push_back(static_cast<uint32_t>(v));
  }
  if (blocks.empty()) fail("--block: no block size given");
  return blocks;
}

void run_program(const std::string& name, tsm::firmware::HostOptions o, const std::string& blocks_text, const WaveOptions& wave) {
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
  if (blocks_text.empty()) {
    // No --block: the program's own default, unless the configuration cannot hold the largest
    // default a program has (firmware/host/*.cpp: 64, 128 or 256 threads); then the largest tested
    // shape that it can (tiny).
    constexpr uint32_t kLargestProgramDefault = 256;
    const tsm::config::SmConfig* cfg = tsm::config::find_config(o.config);
    if (cfg && cfg->max_threads_per_block < kLargestProgramDefault) {
      uint32_t best = 0;
      for (uint32_t b : program->shapes)
        if (b <= cfg->max_threads_per_block) best = std::max(best, b);
      if (best == 0)
        fail(fmt::format("{}: no tested block size of the program fits configuration {} (at most {} threads per block)",
                         name, o.config, cfg->max_threads_per_block));
      blocks = {best};
    }
  }
  if (blocks.size() > 1 && !wave.timeline.empty()) fail("--timeline records one run: name one block size with --block");
  if (blocks.size() > 1 && !wave.trace.empty() && !wave.on_fail) fail("--trace records one run: name one block size with --block");
  for (uint32_t b : blocks) {
    o.block = b;
    bool ok = true;
    try {
      with_waveforms(wave, [&](const tsm::rtl::TraceOptions& trace, uint64_t& clock) {
        o.trace = trace;
        std::unique_ptr<Runtime> rt;
        try {
          rt = tsm::firmware::make_runtime(o);
          rt->set_printf_sink(stdout);
          ok = program->run(*rt, o);
          print_rtl_counters(name + ": ", *rt);
          print_timeline(trace.timeline, *rt);
        } catch (const tsm::RuntimeError& e) {
          clock = clock_of(rt.get());
          fail(e.what());
        } catch (const tsm::AsmError& e) {
          fail(e.what());
        }
        if (!ok && wave.on_fail) {  // a wrong result: trace the end of the run
          clock = clock_of(rt.get());
          throw CLI::RuntimeError(1);
        }
      });
    } catch (const CLI::RuntimeError&) {
      if (ok) throw;  // an error, not a wrong result
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
      "Backend: golden (the functional model), rtl (the Verilated RTL), netlist (the Verilated Yosys netlist of "
      "the GPU top, one SM; built for: {}) or board (the FPGA board over its UART, --port; no lockstep: results are "
      "checked against the references)",
      fmt::join(tsm::rtl::rtl_model_configs(tsm::rtl::ModelKind::Netlist), ", "));
  auto o = std::make_shared<LaunchOptions>();
  CLI::App* launch = app.add_subcommand(
      "launch", "Launch a kernel (.tsb binary, .tsa assembly, or .cu/.ptx compiled on the fly) with arguments from the command line");
  tsm::tools::declare_launch_options(*launch, *o, backend_help);
  launch->callback([o] { run_launch(*o); });

  auto name = std::make_shared<std::string>();
  auto ho = std::make_shared<tsm::firmware::HostOptions>();
  std::string programs;
  for (const auto& p : tsm::firmware::host_programs()) programs += fmt::format("\n  {:<16} {}", p.name, p.description);
  CLI::App* run = app.add_subcommand("run", "Run a firmware kernel with its host program and check it against the C++ reference:" + programs);
  run->add_option("program", *name, "Program name")->required();
  run->add_option("--backend", ho->backend, backend_help)
      ->check(CLI::IsMember({"golden", "rtl", "netlist", "board"}))
      ->capture_default_str();
  run->add_option("--config", ho->config, "SM configuration")->capture_default_str();
  run->add_option("--sms", ho->sms, "rtl, netlist: SMs that take blocks (default: all the model has)");
  tsm::tools::declare_sched_option(*run, ho->sched);
  run->add_flag("!--no-lockstep", ho->lockstep, "rtl, netlist: do not check each retired instruction against the golden model");
  run->add_option("--verilator-arg", ho->verilator_args,
                  "rtl, netlist: a run-time argument of the Verilated model, e.g. +verilator+rand+reset+2 or +verilator+seed+7 (repeatable)");
  run->add_option("--mutant", ho->mutant, "rtl: run the RTL with deliberate bug N switched on (the mutant model, docs/regression.md §3)");
  run->add_option("-n,--size", ho->n, "Problem size (default: the program's)");
  auto blocks = std::make_shared<std::string>();
  run->add_option("--block", *blocks, "Threads per block, a comma-separated list to run each, or 'all' for the program's tested shapes (default: the program's; on a configuration that holds fewer than 256 threads a block, the largest tested shape it holds)");
  run->add_option("--seed", ho->seed, "Input seed")->capture_default_str();
  run->add_option("--frontend", ho->frontend, "CUDA front end: auto (nvcc if installed, else clang), nvcc, clang")
      ->check(CLI::IsMember({"auto", "nvcc", "clang"}))
      ->capture_default_str();
  run->add_option("--source", ho->source, "Kernel source: cuda (firmware/cuda/NAME.cu) or asm (firmware/asm/NAME.tsa, where one exists)")
      ->check(CLI::IsMember({"cuda", "asm"}))
      ->capture_default_str();
  auto wave = std::make_shared<WaveOptions>();
  tsm::tools::declare_wave_options(*run, *wave);
  tsm::tools::declare_board_options(*run, ho->port, ho->baud, ho->board_timeout);
  run->callback([name, ho, blocks, wave] { run_program(*name, *ho, *blocks, *wave); });

  // A raw buffer file (launch's OUT_FILE) as typed values, without a script.
  struct DumpOptions {
    std::string file;
    std::string type = "u32";
    uint64_t count = 0;
    uint64_t offset = 0;
  };
  auto d = std::make_shared<DumpOptions>();
  CLI::App* dump = app.add_subcommand("dump", "Print a raw little-endian buffer file (e.g. launch's OUT_FILE) as typed values");
  dump->add_option("file", d->file, "The file")->required();
  dump->add_option("--type", d->type, "Element type: i32, u32, f32")->check(CLI::IsMember({"i32", "u32", "f32"}))->capture_default_str();
  dump->add_option("--count", d->count, "Elements to print (0: all)")->capture_default_str();
  dump->add_option("--offset", d->offset, "Bytes to skip first (a multiple of 4)")->capture_default_str();
  dump->callback([d] {
    if (d->offset % 4 != 0) fail(fmt::format("--offset {}: not a multiple of 4 bytes", d->offset));
    std::vector<uint8_t> data = read_file(d->file);
    if (d->offset > data.size()) fail(fmt::format("{}: --offset {} is past its {} bytes", d->file, d->offset, data.size()));
    data.erase(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(d->offset));
    if (data.size() % 4 != 0)
      fmt::print(stderr, "warning: {}: {} bytes after the offset are not a whole number of 4-byte elements; the last {} are not shown\n",
                 d->file, data.size(), data.size() % 4);
    fmt::print("{}\n", tsm::tools::format_elements(data, *tsm::tools::parse_elem_type(d->type), d->count));
  });

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
