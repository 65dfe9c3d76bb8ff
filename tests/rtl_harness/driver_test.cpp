// The RTL backend (host driver) end to end through the runtime, against a scripted GPU that plays
// a recorded golden run: descriptor over MMIO, memory layout, the cycle loop with the memory model,
// lockstep on and off, faults (confirmed by the golden model or not), runaway and hang limits, and
// the identification checks.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "isa/assembler.hpp"
#include "replay_gpu.hpp"
#include "rtl/gpu_driver.hpp"
#include "scenarios.hpp"

namespace {

using namespace tsm;
using namespace tsm::rtltest;
using rtl::RtlBackend;
using rtl::RtlOptions;

const config::SmConfig& kSmall = *config::find_config("small");

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the message does not contain '" << part << "':\n" << text;
}

/// The mix kernel recorded on the golden model: its script, and the output it produced.
struct Golden {
  std::vector<Item> items;
  Recording rec;
  std::vector<uint8_t> out, cells;
  uint32_t entry = 0, regs = 0;
  std::vector<uint64_t> text;
  std::vector<uint8_t> c0;
  golden::LaunchStats stats;
};

Golden record_mix(const char* source = kMixKernel, Dim3 grid = kMixGrid, Dim3 block = kMixBlock) {
  auto backend = std::make_unique<RecordingBackend>();
  auto* b = backend.get();
  Runtime rt(kSmall, std::move(backend));
  const auto id = rt.load_module(assemble(source, "mix.tsa"));
  const MixBuffers buf = mix_kernel_args(rt);
  Golden gd;
  gd.stats = rt.launch(id, "k", grid, block, buf.args).stats;
  gd.rec = b->recordings.back();
  gd.items = to_items(gd.rec, kSmall.sp_lanes);
  gd.out.resize(size_t{kMixGrid.x} * kMixBlock.x * 16);
  rt.memcpy_to_host(gd.out, buf.out);
  gd.cells.resize(16);
  rt.memcpy_to_host(gd.cells, buf.cells);
  gd.entry = rt.module(id).kernels.at(0).entry;
  gd.regs = rt.module(id).kernels.at(0).regs;
  gd.text = rt.module(id).text;
  gd.c0 = gd.rec.spec.cbanks[0];
  return gd;
}

ReplayGpu::Script script_for(const Golden& gd) {
  ReplayGpu::Script s;
  s.items = gd.items;
  s.num_sms = kSmall.num_sms;
  s.sp_lanes = kSmall.sp_lanes;
  s.config_tag = kSmall.config_tag;
  return s;
}

/// A runtime over the RTL backend with a scripted GPU; `gpu` points at it.
std::unique_ptr<Runtime> rtl_runtime(ReplayGpu::Script script, RtlOptions options, ReplayGpu** gpu = nullptr) {
  auto pins = std::make_unique<ReplayGpu>(std::move(script));
  if (gpu) *gpu = pins.get();
  return std::make_unique<Runtime>(kSmall, std::make_unique<RtlBackend>(kSmall, std::move(pins), options));
}

struct RtlResult {
  LaunchResult launch;
  std::vector<uint8_t> out, cells;
};

RtlResult run_mix(Runtime& rt, const char* source = kMixKernel) {
  const auto id = rt.load_module(assemble(source, "mix.tsa"));
  const MixBuffers buf = mix_kernel_args(rt);
  RtlResult r;
  r.launch = rt.launch(id, "k", kMixGrid, kMixBlock, buf.args);
  r.out.resize(size_t{kMixGrid.x} * kMixBlock.x * 16);
  rt.memcpy_to_host(r.out, buf.out);
  r.cells.resize(16);
  rt.memcpy_to_host(r.cells, buf.cells);
  return r;
}

TEST(RtlBackend, RunsALaunchInLockstepAndLeavesTheResultsInMemory) {
  const Golden gd = record_mix();
  ReplayGpu* gpu = nullptr;
  auto rt = rtl_runtime(script_for(gd), RtlOptions{}, &gpu);
  EXPECT_EQ(rt->backend().name(), "rtl");
  const RtlResult r = run_mix(*rt);
  EXPECT_EQ(r.out, gd.out);
  EXPECT_EQ(r.cells, gd.cells);
  EXPECT_EQ(r.launch.stats.warp_instructions, gd.stats.warp_instructions);  // the golden model's statistics
  EXPECT_EQ(r.launch.stats.thread_instructions, gd.stats.thread_instructions);
  const auto& backend = dynamic_cast<RtlBackend&>(rt->backend());
  EXPECT_EQ(backend.last_launch().retired, gd.stats.warp_instructions);
  const auto events = static_cast<uint64_t>(std::count_if(gd.items.begin(), gd.items.end(), [](const Item& i) { return i.event.has_value(); }));
  EXPECT_GT(backend.last_launch().cycles, events);  // one event a clock
  EXPECT_GT(backend.last_launch().memory.writes, 0u);
  EXPECT_EQ(gpu->resets, 1u);
  EXPECT_EQ(gpu->errors, 0u);

  // The descriptor (docs/gpu-interfaces.md §1).
  namespace m = rtl::mmio;
  const Occupancy occ = compute_occupancy(kSmall, kMixBlock, {gd.regs, 512});
  const std::pair<uint32_t, uint32_t> expected[] = {
      {m::kCodeBase, rtl::kCodeBase}, {m::kEntryPc, gd.entry}, {m::kGridX, 7}, {m::kGridY, 1}, {m::kGridZ, 1},
      {m::kBlockX, 80}, {m::kBlockY, 1}, {m::kBlockZ, 1}, {m::kThreads, 80}, {m::kWarps, 3}, {m::kRegs, gd.regs},
      {m::kShared, 512}, {m::kLocalBytes, 8}, {m::kLocalBase, rtl::kLocalBase}, {m::kBlocksPerSm, occ.blocks_per_sm},
      {m::kTotalBlocks, 7}, {m::kCtrl, 1}};
  for (const auto& [addr, value] : expected) EXPECT_EQ(gpu->registers[addr], value) << fmt::format("register {:#05x}", addr);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(gpu->registers[m::kCbankBase0 + 4 * i], rtl::kCbankBase + 0x10000 * i) << i;
  EXPECT_EQ(gpu->registers[m::kWatchdog], 0u);  // the derived limit does not fit in 32 bits: no watchdog

  // Code and constant bank 0 where the descriptor says, little-endian.
  const auto& code = gpu->read_back.at(ReplayGpu::kCodeReadId);
  const uint32_t first = gd.entry & ~1u;
  EXPECT_EQ(code[0] | uint64_t{code[1]} << 32, gd.text.at(first));
  if (first + 1 < gd.text.size()) {
    EXPECT_EQ(code[2] | uint64_t{code[3]} << 32, gd.text.at(first + 1));
  }
  const auto& c0 = gpu->read_back.at(ReplayGpu::kCbankReadId);
  std::array<uint8_t, 16> bytes{};
  std::memcpy(bytes.data(), c0.data(), 16);
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), gd.c0.begin()));

  // The driver's regions are gone after the launch: only the runtime's allocations remain.
  for (const auto& [start, size] : backend.memory().allocations()) EXPECT_LT(start, rtl::kCodeBase) << fmt::format("{:#x}", start);
}

TEST(RtlBackend, WithoutLockstepStatisticsComeFromTheGpusCounters) {
  const Golden gd = record_mix();
  RtlOptions opt;
  opt.lockstep = false;
  auto rt = rtl_runtime(script_for(gd), opt);
  const RtlResult r = run_mix(*rt);
  EXPECT_EQ(r.out, gd.out);
  EXPECT_EQ(r.launch.stats.warp_instructions, gd.stats.warp_instructions);
  EXPECT_EQ(r.launch.stats.thread_instructions, gd.stats.thread_instructions);
  EXPECT_GT(r.launch.stats.rounds, gd.stats.warp_instructions);  // COUNTER[0]: clocks
  EXPECT_EQ(r.launch.stats.blocks, 7u);
}

TEST(RtlBackend, ALockstepMismatchPropagatesOutOfTheLaunch) {
  const Golden gd = record_mix();
  ReplayGpu::Script s = script_for(gd);
  for (Item& it : s.items)
    if (it.event && it.event->kind == rtl::kReg && it.event->reg == 7) {
      it.event->data[0] ^= 1;
      break;
    }
  auto rt = rtl_runtime(s, RtlOptions{});
  try {
    run_mix(*rt);
    FAIL() << "no mismatch";
  } catch (const rtl::LockstepMismatch& e) {
    EXPECT_TRUE(Contains(e.what(), "register writes differ: R7 (1 of 32 lanes)"));
  }
}

TEST(RtlBackend, TheMemoryLatencyAndBandwidthAreTheOptions) {
  const Golden gd = record_mix();
  RtlOptions slow;
  slow.latency = 300;
  slow.bytes_per_clock = 1;
  auto rt = rtl_runtime(script_for(gd), slow);
  const RtlResult r = run_mix(*rt);
  EXPECT_EQ(r.out, gd.out);
  const auto& backend = dynamic_cast<RtlBackend&>(rt->backend());
  EXPECT_EQ(backend.memory().latency(), 300u);
  EXPECT_EQ(backend.memory().bytes_per_clock(), 1u);
  // Every line request held the channel for 16 clocks.
  EXPECT_GE(backend.last_launch().cycles, 16 * backend.last_launch().memory.requests);
}

// ---- faults ---------------------------------------------------------------------------------------

struct FaultRun {
  Golden gd;
  ReplayGpu::Script script;
};

FaultRun fault_run(golden::FaultKind kind) {
  FaultRun f;
  auto backend = std::make_unique<RecordingBackend>();
  auto* b = backend.get();
  Runtime rt(kSmall, std::move(backend));
  const auto id = rt.load_module(assemble(kFaultKernel, "fault.tsa"));
  rt.launch(id, "k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(rt.malloc(4)));
  f.gd.rec = b->recordings.back();
  f.gd.items = to_items(f.gd.rec, kSmall.sp_lanes);
  f.script = script_for(f.gd);
  rtl::RtlFault fault;
  fault.kind = kind;
  fault.sm = f.gd.rec.fault_sm;
  fault.warp = f.gd.rec.fault_warp;
  fault.pc = *f.gd.rec.fault->site.pc;
  fault.addr = 0;
  fault.lane = 5;
  f.script.fault = fault;
  return f;
}

RuntimeError launch_error(ReplayGpu::Script script, RtlOptions options) {
  auto rt = rtl_runtime(std::move(script), options);
  const auto id = rt->load_module(assemble(kFaultKernel, "fault.tsa"));
  try {
    rt->launch(id, "k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(rt->malloc(4)));
  } catch (const RuntimeError& e) {
    return e;
  }
  ADD_FAILURE() << "the launch succeeded";
  return RuntimeError(ErrorCode::InvalidValue, "none");
}

TEST(RtlBackend, AFaultTheGoldenModelConfirmsIsReportedInItsWords) {
  const FaultRun f = fault_run(golden::FaultKind::OutOfBounds);
  const RuntimeError e = launch_error(f.script, RtlOptions{});
  EXPECT_EQ(e.code, ErrorCode::IllegalAddress);
  EXPECT_TRUE(Contains(e.what(), f.gd.rec.fault->what()));  // golden: names the thread and the allocation rule
}

TEST(RtlBackend, AnOutOfBoundsLoadTheGpuRetiredBeforeItsErrIsConfirmed) {
  // As the RTL does it: the LDG retires once its requests are out, the memory answers err, the
  // fault follows.
  FaultRun f = fault_run(golden::FaultKind::OutOfBounds);
  rtl::CommitEvent r;
  r.sm = f.gd.rec.fault_sm;
  r.kind = rtl::kRetire;
  r.warp = f.gd.rec.fault_warp;
  r.seq = 6;
  r.pc = 6;
  r.active = r.exec = 0xFFFFFFFF;
  f.script.items.push_back(Item{r, std::nullopt});
  const RuntimeError e = launch_error(f.script, RtlOptions{});
  EXPECT_EQ(e.code, ErrorCode::IllegalAddress);
  EXPECT_TRUE(Contains(e.what(), f.gd.rec.fault->what()));
}

TEST(RtlBackend, WithoutLockstepAFaultIsReportedFromTheFaultRegisters) {
  const FaultRun f = fault_run(golden::FaultKind::OutOfBounds);
  RtlOptions opt;
  opt.lockstep = false;
  const RuntimeError e = launch_error(f.script, opt);
  EXPECT_EQ(e.code, ErrorCode::IllegalAddress);
  EXPECT_TRUE(Contains(e.what(), "out-of-bounds access: reported by the GPU: SM 0, warp slot 0, PC 6 (LDG.E R6, [R4]), lane 5, address 0x00000000"));
  EXPECT_TRUE(Contains(e.what(), "kernel k on SM 0"));
  EXPECT_TRUE(Contains(e.what(), "at PC 6: LDG.E R6, [R4]"));
}

TEST(RtlBackend, AFaultTheGoldenModelDoesNotConfirmIsAMismatch) {
  const FaultRun f = fault_run(golden::FaultKind::Misaligned);
  auto rt = rtl_runtime(f.script, RtlOptions{});
  const auto id = rt->load_module(assemble(kFaultKernel, "fault.tsa"));
  try {
    rt->launch(id, "k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(rt->malloc(4)));
    FAIL() << "no mismatch";
  } catch (const rtl::LockstepMismatch& e) {
    EXPECT_TRUE(Contains(e.what(), "the RTL reports misaligned access"));
    EXPECT_TRUE(Contains(e.what(), "but the golden model faults differently"));
  }
}

TEST(RtlBackend, TheCycleLimitIsARunawayKernel) {
  const FaultRun f = fault_run(golden::FaultKind::OutOfBounds);
  ReplayGpu::Script s = f.script;
  s.hang = true;
  RtlOptions opt;
  opt.max_cycles = 2000;
  opt.hang_cycles = 1'000'000;
  ReplayGpu* gpu = nullptr;
  auto rt = rtl_runtime(s, opt, &gpu);
  const auto id = rt->load_module(assemble(kFaultKernel, "fault.tsa"));
  try {
    rt->launch(id, "k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(rt->malloc(4)));
    FAIL() << "no runaway reported";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.code, ErrorCode::LaunchTimeout);
    EXPECT_TRUE(Contains(e.what(), "the kernel ran for more than 2000 clocks on the RTL without finishing"));
  }
  EXPECT_EQ(gpu->registers[rtl::mmio::kWatchdog], 2000u);  // the GPU's own watchdog gets the same limit
}

TEST(RtlBackend, TheGpusWatchdogIsARunawayKernel) {
  FaultRun f = fault_run(golden::FaultKind::RunawayKernel);
  f.script.fault->sm = f.script.fault->warp = f.script.fault->pc = 0xFFFFFFFF;  // as tsm_gpu reports it
  f.script.fault->lane.reset();
  for (const bool lockstep : {true, false}) {
    RtlOptions opt;
    opt.lockstep = lockstep;
    const RuntimeError e = launch_error(f.script, opt);
    EXPECT_EQ(e.code, ErrorCode::LaunchTimeout) << lockstep;
    EXPECT_TRUE(Contains(e.what(), "runaway kernel: reported by the GPU: the watchdog stopped the kernel after")) << lockstep;
    EXPECT_FALSE(Contains(e.what(), "4294967295")) << lockstep;
  }
}

TEST(RtlBackend, AGpuThatMakesNoProgressIsAHang) {
  const FaultRun f = fault_run(golden::FaultKind::OutOfBounds);
  ReplayGpu::Script s = f.script;
  s.hang = true;
  RtlOptions opt;
  opt.hang_cycles = 500;
  ReplayGpu* gpu = nullptr;
  auto rt = rtl_runtime(s, opt, &gpu);
  const auto id = rt->load_module(assemble(kFaultKernel, "fault.tsa"));
  const DevicePtr p = rt->malloc(4);
  try {
    rt->launch(id, "k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(p));
    FAIL() << "no hang reported";
  } catch (const rtl::PortError& e) {
    EXPECT_TRUE(Contains(e.what(), "the GPU hangs: no commit event or memory write for 500 clocks while running kernel 'k'"));
  }
  // The next launch starts from reset (and, the script still hanging, hangs again).
  EXPECT_THROW(rt->launch(id, "k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(p)), rtl::PortError);
  EXPECT_EQ(gpu->resets, 2u);
}

TEST(RtlBackend, TheGpuMustIdentifyAsTheConfiguredTopLevel) {
  const FaultRun f = fault_run(golden::FaultKind::OutOfBounds);
  ReplayGpu::Script wrong_id = f.script;
  wrong_id.id = 0x12345678;
  EXPECT_THROW(
      {
        try {
          launch_error(wrong_id, RtlOptions{});
        } catch (const rtl::PortError& e) {
          EXPECT_TRUE(Contains(e.what(), "the GPU's ID register reads 0x12345678, not 0x314d5354"));
          throw;
        }
      },
      rtl::PortError);
  ReplayGpu::Script wrong_config = f.script;
  wrong_config.config_tag = config::find_config("g80")->config_tag;
  try {
    launch_error(wrong_config, RtlOptions{});
    FAIL() << "no error";
  } catch (const rtl::PortError& e) {
    EXPECT_TRUE(Contains(e.what(), "the GPU was built for configuration 'g80', the backend was given 'small'"));
  }
  // A model whose SP lanes do not match the configuration is refused up front.
  ReplayGpu::Script lanes = f.script;
  lanes.sp_lanes = 8;
  EXPECT_THROW(RtlBackend(kSmall, std::make_unique<ReplayGpu>(lanes)), std::invalid_argument);
}

}  // namespace
