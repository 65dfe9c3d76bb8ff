// Shared pieces of the host programs: runtime construction, kernel loading, reporting.
#include "host.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "board/board_backend.hpp"
#include "isa/assembler.hpp"
#include "rtl_model/models.hpp"
#include "ptx/compile.hpp"

namespace tsm::firmware {

bool run_saxpy(Runtime& rt, const HostOptions& o);
bool run_reduce(Runtime& rt, const HostOptions& o);
bool run_diverge(Runtime& rt, const HostOptions& o);
bool run_printf_hello(Runtime& rt, const HostOptions& o);
bool run_vecadd(Runtime& rt, const HostOptions& o);
bool run_spmv_csr(Runtime& rt, const HostOptions& o);
bool run_spmv_csr_cached(Runtime& rt, const HostOptions& o);
bool run_dot(Runtime& rt, const HostOptions& o);
bool run_constmem(Runtime& rt, const HostOptions& o);
bool run_localarray(Runtime& rt, const HostOptions& o);
bool run_warpreduce(Runtime& rt, const HostOptions& o);
bool run_matmul_naive(Runtime& rt, const HostOptions& o);
bool run_matmul_tiled(Runtime& rt, const HostOptions& o);
bool run_stencil2d(Runtime& rt, const HostOptions& o);
bool run_fastmath(Runtime& rt, const HostOptions& o);
bool run_mathlib(Runtime& rt, const HostOptions& o);
bool run_madloop(Runtime& rt, const HostOptions& o);

const std::vector<HostProgram>& host_programs() {
  static const std::vector<HostProgram> programs{
      {"saxpy", "y = a*x + y over n floats, one thread per element (FFMA, 64-bit addressing)", run_saxpy,
       {32, 64, 100, 256, 512}},
      {"reduce", "sum of n integers: shared-memory tree with barriers, one atomic add per block", run_reduce,
       {32, 64, 100, 256, 512}},
      {"diverge", "nested divergent branches, data-dependent loops with break, early exits", run_diverge,
       {32, 64, 100, 256, 512}},
      {"vecadd", "c = a + b over n floats with a grid-stride loop over a small fixed grid", run_vecadd,
       {32, 64, 100, 256, 512}},
      {"spmv_csr", "y = A*x for a random CSR matrix, one row per thread, fmaf in row order", run_spmv_csr,
       {32, 64, 100, 256, 512}},
      {"spmv_csr_cached", "CSR y = A*x for a banded matrix, each block's window of x staged in shared memory",
       run_spmv_csr_cached, {32, 64, 100, 256, 512}},
      {"dot", "integer a.b: grid-stride per-thread sums, shared-memory tree, per-block partials", run_dot,
       {32, 64, 100, 256, 512}},
      {"constmem", "FIR filter and gain table in __constant__ memory written with write_symbol", run_constmem,
       {32, 64, 100, 256, 512}},
      {"localarray", "per-thread insertion sort of 16 ints in a local-memory array", run_localarray,
       {32, 64, 100, 256, 512}},
      {"warpreduce", "per-warp __shfl_down_sync sums and __ballot_sync/__popc, partial warps included",
       run_warpreduce, {32, 64, 100, 256, 512}},
      {"printf_hello", "formatted device printf from several threads and blocks (ints, floats, strings)", run_printf_hello,
       {32, 64, 100, 256, 512}},
      {"matmul_naive", "C = A*B, one thread per element on a 2D grid of 2D blocks, fmaf chain in k order",
       run_matmul_naive, {32, 64, 100, 256, 512}},
      {"matmul_tiled", "C = A*B with 16x16 shared-memory tiles, barriers, zero-padded partial tiles", run_matmul_tiled,
       {256}},
      {"stencil2d", "3x3 weighted stencil, __constant__ weights, zero boundary skipped at the image edges",
       run_stencil2d, {32, 64, 100, 256, 512}},
      {"fastmath", "fast intrinsics (__sinf, __expf, __powf, rsqrtf, ...) within the CUDA guide's bounds, __mul24 etc.",
       run_fastmath, {32, 64, 100, 256, 512}},
      {"mathlib", "accurate float math library (sinf, powf, atan2f, ...) within the CUDA guide's ulp bounds",
       run_mathlib, {32, 64, 100, 256, 512}},
      {"madloop", "MAD-bound: eight independent fmaf chains per thread on registers (the SP-throughput case)",
       run_madloop, {32, 64, 100, 256, 512}},
  };
  return programs;
}

std::unique_ptr<Backend> make_backend_rtl(const config::SmConfig& cfg, uint32_t sms, bool lockstep,
                                          const std::vector<std::string>& verilator_args, bool netlist, uint32_t mutant,
                                          const rtl::TraceOptions& trace, const std::string& sched) {
  rtl::RtlOptions ro;
  ro.lockstep = lockstep;
  ro.trace = trace;
  ro.active_sms = sms;
  const std::optional<uint32_t> policy = rtl::sched_policy_value(sched);
  if (!policy)
    throw RuntimeError(ErrorCode::InvalidValue,
                       fmt::format("unknown warp-scheduling policy '{}' (--sched {})", sched, rtl::sched_policy_list()));
  ro.sched_policy = *policy;
  std::vector<std::string> args = verilator_args;
  rtl::ModelKind kind = netlist ? rtl::ModelKind::Netlist : rtl::ModelKind::Rtl;
  if (mutant != 0) {
    if (netlist) throw RuntimeError(ErrorCode::InvalidValue, "--mutant applies to the rtl backend only");
    kind = rtl::ModelKind::Mutant;
    args.push_back(fmt::format("+tsm+mutant={}", mutant));
  }
  try {
    rtl::ensure_gpu_model(cfg.name, kind);
    return rtl::make_rtl_backend(cfg, ro, args, kind);
  } catch (const std::invalid_argument& e) {
    throw RuntimeError(ErrorCode::InvalidValue, e.what());
  }
}

std::unique_ptr<Runtime> make_runtime(const HostOptions& o) {
  const config::SmConfig* cfg = config::find_config(o.config);
  if (!cfg) throw RuntimeError(ErrorCode::InvalidValue, fmt::format("unknown configuration '{}' (see: ./tsm configs)", o.config));
  if (o.backend != "rtl" && o.backend != "netlist" && o.sched != "lrr")
    throw RuntimeError(ErrorCode::InvalidValue,
                       fmt::format("--sched applies to the rtl and netlist backends only (the {} backend schedules warps its own way)",
                                   o.backend));
  if (o.backend == "golden") {
    if (o.sms != 0 || !o.verilator_args.empty() || o.mutant != 0)
      throw RuntimeError(ErrorCode::InvalidValue, "--sms, --verilator-arg and --mutant apply to the rtl and netlist backends only");
    if (!o.trace.fst.empty() || !o.trace.timeline.empty())
      throw RuntimeError(ErrorCode::InvalidValue, "--trace, --trace-on-fail and --timeline apply to the rtl backend only");
    return std::make_unique<Runtime>(*cfg, make_golden_backend());
  }
  if (o.backend == "rtl" || o.backend == "netlist")
    return std::make_unique<Runtime>(*cfg, make_backend_rtl(*cfg, o.sms, o.lockstep, o.verilator_args, o.backend == "netlist",
                                                                o.mutant, o.trace, o.sched));
  if (o.backend == "board") {
    if (o.sms != 0 || !o.verilator_args.empty() || o.mutant != 0)
      throw RuntimeError(ErrorCode::InvalidValue, "--sms, --verilator-arg and --mutant apply to the rtl and netlist backends only");
    if (!o.trace.fst.empty() || !o.trace.timeline.empty())
      throw RuntimeError(ErrorCode::InvalidValue,
                         "--trace, --trace-on-fail and --timeline need the rtl backend: the board has no waveform or commit port");
    board::BoardOptions bo;
    bo.port = o.port;
    bo.link.baud = o.baud;
    bo.link.timeout_s = o.board_timeout;
    return std::make_unique<Runtime>(*cfg, std::make_unique<board::BoardBackend>(*cfg, bo));
  }
  throw RuntimeError(ErrorCode::InvalidValue, fmt::format("unknown backend '{}' (golden, rtl, netlist or board)", o.backend));
}

namespace {

compiler::Frontend frontend_of(const std::string& name) {
  if (name == "nvcc") return compiler::Frontend::Nvcc;
  if (name == "clang") return compiler::Frontend::Clang;
  if (name == "auto") return compiler::Frontend::Auto;
  throw RuntimeError(ErrorCode::InvalidValue, fmt::format("unknown front end '{}' (auto, nvcc or clang)", name));
}

Module assemble_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw RuntimeError(ErrorCode::InvalidKernelImage, fmt::format("cannot open {}", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return assemble(ss.str(), path);
}

}  // namespace

Runtime::ModuleId load_kernel(Runtime& rt, const HostOptions& o, const std::string& name) {
  if (o.source == "asm") {
    const std::string path = fmt::format("{}/asm/{}.tsa", o.firmware_dir, name);
    if (!std::filesystem::exists(path))
      throw RuntimeError(ErrorCode::InvalidValue,
                         fmt::format("{} has no hand-written assembly version (programs with one: {})", name,
                                     fmt::join(asm_programs(o), ", ")));
    return rt.load_module(assemble_file(path));
  }
  if (o.source != "cuda")
    throw RuntimeError(ErrorCode::InvalidValue, fmt::format("unknown kernel source '{}' (cuda or asm)", o.source));
  // Like a CUDA programmer who passes --maxrregcount for the block size they launch, compile with
  // the register budget a block of o.block threads may use on this configuration (spilling if the
  // kernel needs more). Launch shapes with the same budget share one compilation.
  const uint32_t budget = o.block ? max_regs_for_block(rt.config(), Dim3{o.block, 1, 1}) : 128;
  if (budget == 0) {
    // The block cannot run on this configuration at all: say why, before the compiler is asked to
    // fit the kernel into no registers.
    try {
      (void)compute_occupancy(rt.config(), Dim3{o.block, 1, 1}, KernelResources{1, 0});
    } catch (const LaunchConfigError& e) {
      throw RuntimeError(ErrorCode::InvalidConfiguration, fmt::format("launch of '{}': {}", name, e.what()));
    }
    throw RuntimeError(ErrorCode::LaunchOutOfResources,
                       fmt::format("launch of '{}': a block of {} threads does not fit configuration {} even with one register per thread",
                                   name, o.block, rt.config().name));
  }
  static std::map<std::string, Module> cache;
  const std::string path = fmt::format("{}/cuda/{}.cu", o.firmware_dir, name);
  const std::string key = fmt::format("{}\n{}\n{}", path, o.frontend, budget);
  auto it = cache.find(key);
  if (it == cache.end()) {
    ptx::CompileOptions co;
    co.frontend = frontend_of(o.frontend);
    co.max_registers = budget;
    try {
      ptx::Compiled c = ptx::compile_file(path, co);
      for (const auto& k : c.stats)
        fmt::print("{}: compiled {} with {} (at most {} registers): kernel {}, {} registers, {} spilled, {} instructions, "
                   "{} B shared, {} B local\n",
                   name, std::filesystem::path(path).filename().string(), c.frontend, budget, k.name, k.registers,
                   k.spilled, k.instructions, k.shared_bytes, k.local_bytes);
      it = cache.emplace(key, std::move(c.module)).first;
    } catch (const compiler::CompileError& e) {
      throw RuntimeError(ErrorCode::InvalidKernelImage, e.what());
    } catch (const ptx::PtxError& e) {
      throw RuntimeError(ErrorCode::InvalidKernelImage, e.what());
    }
  }
  return rt.load_module(it->second);
}

std::vector<std::string> asm_programs(const HostOptions& o) {
  std::vector<std::string> names;
  for (const auto& p : host_programs())
    if (std::filesystem::exists(fmt::format("{}/asm/{}.tsa", o.firmware_dir, p.name))) names.push_back(p.name);
  return names;
}

void print_launch(const std::string& what, Dim3 grid, Dim3 block, const LaunchResult& r) {
  fmt::print("{}: grid {} x block {}, {} blocks ({} per SM), {} warp instructions, {} thread instructions\n", what,
             to_string(grid), to_string(block), r.stats.blocks, r.stats.blocks_per_sm, r.stats.warp_instructions,
             r.stats.thread_instructions);
}

Dim3 block_2d(uint32_t threads) {
  uint32_t y = 1;
  for (uint32_t d = 1; d * d <= threads; ++d)
    if (threads % d == 0) y = d;
  return Dim3{threads / y, y, 1};
}

}  // namespace tsm::firmware
