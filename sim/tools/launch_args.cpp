// tsm-tool launch's options and the decoding of --grid, --block and --arg (launch_args.hpp).
#include "launch_args.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "cli_args.hpp"
#include "rtl/host_driver.hpp"

namespace tsm::tools {

void declare_wave_options(CLI::App& app, WaveOptions& w) {
  app.add_option("--trace", w.trace, "rtl: write an FST waveform of the run (docs/waveforms.md; open it with ./tsm wave FILE.fst)");
  app.add_option("--trace-from", w.from, "rtl: the first clock the trace holds (clocks as the rtl backend counts them)");
  app.add_option("--trace-to", w.to, "rtl: the last clock the trace holds");
  app.add_option("--trace-depth", w.depth, "rtl: trace the signals at most N levels below TOP (0: all; 4: the SMs' own signals, debug signals included; 5: also the per-warp ones)");
  app.add_flag("--trace-on-fail", w.on_fail,
               "rtl: when the run fails (lockstep mismatch, fault, watchdog, hang, wrong result), run it again and trace the "
               "--trace-window clocks before the failure into --trace FILE (default tsm-failure.fst)");
  app.add_option("--trace-window", w.window, "rtl: clocks before the failure that --trace-on-fail traces")->capture_default_str();
  app.add_option("--timeline", w.timeline,
                 "rtl, netlist: write the warp timeline (one track per warp, a slice per instruction from issue to retirement) "
                 "as Chrome trace JSON for Perfetto");
}

void declare_board_options(CLI::App& app, std::string& port, uint32_t& baud, double& timeout) {
  app.add_option("--port", port, "board: the serial port of the board's UART (docs/fpga.md), e.g. /dev/ttyUSB0 or a simulated board's /dev/pts/N")
      ->capture_default_str();
  app.add_option("--baud", baud, "board: the UART's bit rate (the bitstream's; 3000000 for the ULX3S build)")->capture_default_str();
  app.add_option("--board-timeout", timeout, "board: seconds to wait for each reply of the board before giving up")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

void declare_sched_option(CLI::App& app, std::string& sched) {
  app.add_option("--sched", sched,
                 fmt::format("rtl, netlist: the warp-scheduling policy, {} (loose round-robin, greedy then oldest; "
                             "docs/sm-rtl.md §2.3)",
                             tsm::rtl::sched_policy_list()))
      ->check(CLI::IsMember(std::vector<std::string>(tsm::rtl::kSchedPolicyNames.begin(), tsm::rtl::kSchedPolicyNames.end())))
      ->capture_default_str();
}

void declare_launch_options(CLI::App& launch, LaunchOptions& o, const std::string& backend_help) {
  declare_wave_options(launch, o.wave);
  declare_board_options(launch, o.port, o.baud, o.board_timeout);
  launch.add_option("kernel_file", o.kernel_file, "Kernel: .tsb binary, .tsa assembly, or .cu/.ptx (compiled on the fly)")->required();
  launch.add_option("--frontend", o.frontend, "CUDA front end for .cu files: auto, nvcc, clang")
      ->check(CLI::IsMember({"auto", "nvcc", "clang"}))
      ->capture_default_str();
  launch.add_option("--maxrregcount", o.maxrregcount,
                    ".cu/.ptx: registers per thread the translator may use (without it: the most a block of --block "
                    "threads may use on --config, as ./tsm run compiles; the kernel spills to local memory if it needs more)")
      ->check(CLI::Range(1, 254));
  launch.add_option("--kernel", o.kernel, "Kernel name (optional when the module has one kernel)");
  launch.add_option("--grid", o.grid, "Grid shape X[,Y[,Z]]")->capture_default_str();
  launch.add_option("--block", o.block, "Block shape X[,Y[,Z]]")->capture_default_str();
  launch.add_option("--shared", o.shared, "Dynamic shared memory bytes")->capture_default_str();
  launch.add_option("--backend", o.backend, backend_help)
      ->check(CLI::IsMember({"golden", "rtl", "netlist", "board"}))
      ->capture_default_str();
  launch.add_option("--config", o.config, "SM configuration (see: configs)")->capture_default_str();
  launch.add_option("--sms", o.sms, "rtl, netlist: SMs that take blocks (default: all the model has)");
  declare_sched_option(launch, o.sched);
  launch.add_flag("!--no-lockstep", o.lockstep, "rtl, netlist: do not check each retired instruction against the golden model");
  launch.add_option("--verilator-arg", o.verilator_args,
                    "rtl, netlist: a run-time argument of the Verilated model, e.g. +verilator+rand+reset+2 or +verilator+seed+7 (repeatable)");
  launch.add_option("--mutant", o.mutant, "rtl: run the RTL with deliberate bug N switched on (the mutant model, docs/regression.md §3)");
  launch.add_option("--budget", o.budget, "Warp instructions before a runaway-kernel fault")->capture_default_str();
  launch.add_option("--arg", o.args,
                    "Kernel argument, in parameter order: i32:V u32:V f32:V i64:V u64:V, buf:IN_FILE[:OUT_FILE] "
                    "(device buffer from a raw little-endian file, written back to OUT_FILE), zeros:BYTES[:OUT_FILE], "
                    "and buffers of N elements of TYPE (i32, u32, f32) made here: iota:TYPE:N[:OUT_FILE] (0, 1, 2, ...), "
                    "fill:TYPE:N:V[:OUT_FILE], rand:TYPE:N[:SEED[:OUT_FILE]] (seed 1 by default; i32/u32 over their "
                    "whole range, f32 uniform in [-1, 1))");
  launch.add_option("--print", o.prints,
                    "After the launch, print buffer argument N (1-based, in --arg order) as typed values: "
                    "N[:TYPE[:COUNT]], TYPE i32, u32 or f32 (default: a generated buffer's own, else u32), COUNT "
                    "values (default 16; 0: all) (repeatable)")
      ->type_name("N[:TYPE[:COUNT]]");
}

std::optional<ElemType> parse_elem_type(const std::string& text) {
  if (text == "i32") return ElemType::I32;
  if (text == "u32") return ElemType::U32;
  if (text == "f32") return ElemType::F32;
  return std::nullopt;
}

std::vector<uint8_t> generate_buffer(const LaunchArg& arg) {
  std::vector<uint8_t> out(arg.count * 4);
  std::mt19937 rng(static_cast<uint32_t>(arg.seed ^ (arg.seed >> 32)));
  for (uint64_t i = 0; i < arg.count; ++i) {
    uint32_t w = 0;
    switch (arg.kind) {
      case LaunchArg::Kind::Iota:
        w = arg.elem == ElemType::F32 ? std::bit_cast<uint32_t>(static_cast<float>(i)) : static_cast<uint32_t>(i);
        break;
      case LaunchArg::Kind::Fill: w = static_cast<uint32_t>(arg.bits); break;
      default: {
        const uint32_t r = static_cast<uint32_t>(rng());
        // f32: the top 24 bits as a multiple of 2^-23 in [-1, 1), exact in binary32.
        w = arg.elem == ElemType::F32 ? std::bit_cast<uint32_t>(static_cast<float>(static_cast<int32_t>(r >> 8) - (1 << 23)) / 8388608.0f)
                                      : r;
        break;
      }
    }
    std::memcpy(out.data() + 4 * i, &w, 4);
  }
  return out;
}

std::string format_elements(const std::vector<uint8_t>& data, ElemType elem, uint64_t count) {
  const uint64_t have = data.size() / 4;
  const uint64_t n = count == 0 ? have : std::min(count, have);
  std::string out;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t w;
    std::memcpy(&w, data.data() + 4 * i, 4);
    if (i % 8 == 0) out += fmt::format("{}[{}]", i ? "\n" : "", i);
    switch (elem) {
      case ElemType::I32: out += fmt::format(" {}", static_cast<int32_t>(w)); break;
      case ElemType::U32: out += fmt::format(" {}", w); break;
      case ElemType::F32: out += fmt::format(" {}", std::bit_cast<float>(w)); break;
    }
  }
  if (n < have) out += fmt::format("{}... ({} more)", n ? "\n" : "", have - n);
  return out;
}

PrintSpec parse_print(const std::string& text, const std::vector<LaunchArg>& args) {
  PrintSpec p;
  p.spec = text;
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t c; (c = text.find(':', start)) != std::string::npos; start = c + 1) parts.push_back(text.substr(start, c - start));
  parts.push_back(text.substr(start));
  if (parts.size() > 3) throw LaunchArgError(fmt::format("--print '{}': expected N[:TYPE[:COUNT]]", text));
  const uint64_t n = parse_number("--print " + text, parts[0], false);
  if (n == 0 || n > args.size())
    throw LaunchArgError(fmt::format("--print '{}': argument {} does not exist (there are {} --arg)", text, parts[0], args.size()));
  const LaunchArg& a = args[n - 1];
  using K = LaunchArg::Kind;
  if (a.kind != K::Buf && a.kind != K::Zeros && a.kind != K::Iota && a.kind != K::Fill && a.kind != K::Rand)
    throw LaunchArgError(fmt::format("--print '{}': argument {} ({}) is a scalar, not a buffer", text, n, a.spec));
  p.arg = n;
  p.elem = (a.kind == K::Iota || a.kind == K::Fill || a.kind == K::Rand) ? a.elem : ElemType::U32;
  if (parts.size() > 1) {
    const auto t = parse_elem_type(parts[1]);
    if (!t) throw LaunchArgError(fmt::format("--print '{}': the type '{}' is not one of i32, u32, f32", text, parts[1]));
    p.elem = *t;
  }
  if (parts.size() > 2) p.count = parse_number("--print " + text, parts[2], false);
  return p;
}

uint64_t parse_number(const std::string& spec, const std::string& text, bool is_signed) {
  try {
    size_t used = 0;
    const uint64_t v = is_signed ? static_cast<uint64_t>(std::stoll(text, &used, 0)) : std::stoull(text, &used, 0);
    if (used != text.size() || text.empty()) throw std::invalid_argument("trailing");
    if (!is_signed && text[0] == '-') throw std::invalid_argument("negative");
    return v;
  } catch (const std::logic_error&) {  // std::stoll's invalid_argument and out_of_range
    throw LaunchArgError(fmt::format("--arg {}: '{}' is not a valid {} number", spec, text, is_signed ? "signed" : "unsigned"));
  }
}

namespace {

LaunchArg parse_arg(const std::string& a) {
  const size_t colon = a.find(':');
  if (colon == std::string::npos)
    throw LaunchArgError(fmt::format("--arg '{}': expected KIND:VALUE (i32 u32 f32 i64 u64 buf zeros iota fill rand)", a));
  const std::string kind = a.substr(0, colon), rest = a.substr(colon + 1);
  LaunchArg arg;
  arg.spec = a;
  using K = LaunchArg::Kind;
  if (kind == "i32") {
    arg.kind = K::I32;
    arg.bits = static_cast<uint32_t>(static_cast<int32_t>(parse_number(a, rest, true)));
  } else if (kind == "u32") {
    arg.kind = K::U32;
    arg.bits = static_cast<uint32_t>(parse_number(a, rest, false));
  } else if (kind == "i64") {
    arg.kind = K::I64;
    arg.bits = parse_number(a, rest, true);
  } else if (kind == "u64") {
    arg.kind = K::U64;
    arg.bits = parse_number(a, rest, false);
  } else if (kind == "f32") {
    arg.kind = K::F32;
    try {
      size_t used = 0;
      const float f = std::stof(rest, &used);
      if (used != rest.size()) throw std::invalid_argument("trailing");
      arg.bits = std::bit_cast<uint32_t>(f);
    } catch (const std::logic_error&) {
      throw LaunchArgError(fmt::format("--arg {}: '{}' is not a float", a, rest));
    }
  } else if (kind == "buf" || kind == "zeros") {
    const size_t colon2 = rest.find(':');
    const std::string first = rest.substr(0, colon2);
    arg.out_file = colon2 == std::string::npos ? "" : rest.substr(colon2 + 1);
    if (kind == "buf") {
      arg.kind = K::Buf;
      arg.in_file = first;
    } else {
      arg.kind = K::Zeros;
      arg.bytes = parse_number(a, first, false);
      if (arg.bytes == 0) throw LaunchArgError(fmt::format("--arg {}: the buffer would be empty", a));
      if (arg.bytes > UINT32_MAX) throw LaunchArgError(fmt::format("--arg {}: {} bytes do not fit the 32-bit device address space", a, arg.bytes));
    }
  } else if (kind == "iota" || kind == "fill" || kind == "rand") {
    // TYPE:N, then fill's value, rand's seed, and the output file (which may itself hold colons).
    std::vector<std::string> parts;
    size_t start = 0;
    const size_t fields = kind == "iota" ? 2 : 3;
    for (size_t c; parts.size() < fields && (c = rest.find(':', start)) != std::string::npos; start = c + 1)
      parts.push_back(rest.substr(start, c - start));
    parts.push_back(rest.substr(start));
    const std::string usage = kind == "iota" ? "iota:TYPE:N[:OUT_FILE]" : kind == "fill" ? "fill:TYPE:N:V[:OUT_FILE]" : "rand:TYPE:N[:SEED[:OUT_FILE]]";
    if (parts.size() < (kind == "fill" ? 3u : 2u)) throw LaunchArgError(fmt::format("--arg '{}': expected {}", a, usage));
    const auto elem = parse_elem_type(parts[0]);
    if (!elem) throw LaunchArgError(fmt::format("--arg {}: the type '{}' is not one of i32, u32, f32", a, parts[0]));
    arg.elem = *elem;
    arg.count = parse_number(a, parts[1], false);
    if (arg.count == 0) throw LaunchArgError(fmt::format("--arg {}: the buffer would be empty", a));
    if (arg.count > UINT32_MAX / 4) throw LaunchArgError(fmt::format("--arg {}: {} elements do not fit the 32-bit device address space", a, arg.count));
    arg.bytes = arg.count * 4;
    if (kind == "iota") {
      arg.kind = K::Iota;
      if (parts.size() > 2) arg.out_file = parts[2];
    } else if (kind == "fill") {
      arg.kind = K::Fill;
      try {
        arg.bits = parse_arg(parts[0] + ":" + parts[2]).bits;
      } catch (const LaunchArgError&) {
        throw LaunchArgError(fmt::format("--arg {}: the value '{}' is not a valid {}", a, parts[2], parts[0]));
      }
      if (parts.size() > 3) arg.out_file = parts[3];
    } else {
      arg.kind = K::Rand;
      if (parts.size() > 2 && !parts[2].empty()) arg.seed = parse_number(a, parts[2], false);
      if (parts.size() > 3) arg.out_file = parts[3];
    }
  } else {
    throw LaunchArgError(fmt::format("--arg '{}': unknown kind '{}' (i32 u32 f32 i64 u64 buf zeros iota fill rand)", a, kind));
  }
  return arg;
}

}  // namespace

LaunchPlan parse_launch(const LaunchOptions& o) {
  const auto grid = parse_dim3(o.grid), block = parse_dim3(o.block);
  if (!grid) throw LaunchArgError(fmt::format("--grid '{}': expected X[,Y[,Z]]", o.grid));
  if (!block) throw LaunchArgError(fmt::format("--block '{}': expected X[,Y[,Z]]", o.block));
  LaunchPlan plan{*grid, *block, {}};
  for (const std::string& a : o.args) plan.args.push_back(parse_arg(a));
  for (const std::string& p : o.prints) plan.prints.push_back(parse_print(p, plan.args));
  return plan;
}

}  // namespace tsm::tools
