// The host driver's steps over a GpuLink (host_driver.hpp).
#include "rtl/host_driver.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "isa/isa.hpp"
#include "rtl/gpu_pins.hpp"
#include "runtime/runtime.hpp"

namespace tsm::rtl {

namespace {


std::string tag_name(uint64_t tag) {
  std::string s;
  for (unsigned i = 0; i < 8; ++i) {
    const char c = static_cast<char>(tag >> (8 * i) & 0xFF);
    if (c == 0) break;
    s.push_back(c >= 0x20 && c < 0x7F ? c : '?');
  }
  return s;
}

uint32_t round_up(uint64_t bytes, uint32_t unit) { return static_cast<uint32_t>((bytes + unit - 1) / unit * unit); }

}  // namespace

void HostDriver::identify(GpuLink& link, unsigned num_sms) const {
  const uint32_t id = link.mmio_read(mmio::kId);
  if (id != mmio::kIdValue)
    throw PortError(fmt::format("the GPU's ID register reads {:#010x}, not {:#010x} (\"TSM1\"): not a TeslaSM top level, or MMIO is broken", id,
                                mmio::kIdValue));
  const uint32_t sms = link.mmio_read(mmio::kNumSms);
  if (sms != num_sms) throw PortError(fmt::format("the GPU's NUM_SMS register reads {}, but the GPU was expected to have {} SMs", sms, num_sms));
  const uint64_t tag = link.mmio_read(mmio::kConfigLo) | uint64_t{link.mmio_read(mmio::kConfigHi)} << 32;
  if (tag != config_.config_tag)
    throw PortError(fmt::format("the GPU was built for configuration '{}', the backend was given '{}'", tag_name(tag), config_.name));
}

LaunchImages HostDriver::images(const golden::LaunchSpec& spec, uint64_t local_limit) const {
  LaunchImages im;
  const auto& text = spec.module->text;
  im.code.resize(text.size() * 8);
  for (size_t i = 0; i < text.size(); ++i)
    for (unsigned b = 0; b < 8; ++b) im.code[8 * i + b] = static_cast<uint8_t>(text[i] >> (8 * b));
  for (unsigned i = 0; i < kCbanks; ++i) {
    const auto& img = spec.cbanks[i];
    im.cbanks[i].assign(img.begin(), img.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(img.size(), kCbankStride)));
  }
  const KernelInfo& k = *spec.kernel;
  im.local_bytes = uint64_t{k.local_bytes} * config_.num_sms * config_.max_warps * golden::kWarpSize;
  if (im.local_bytes > local_limit)
    throw RuntimeError(ErrorCode::LaunchOutOfResources,
                       fmt::format("kernel '{}' needs {} bytes of local memory per thread, {} bytes for the whole GPU, more than the "
                                   "{} bytes the address map has for local memory",
                                   k.name, k.local_bytes, im.local_bytes, local_limit));
  return im;
}

Placement HostDriver::simulator_placement(const LaunchImages& im) {
  Placement p;
  p.code_base = kCodeBase;
  p.code_bytes = std::max<uint32_t>(256, round_up(im.code.size(), 256));  // whole fetch lines
  for (unsigned i = 0; i < kCbanks; ++i) {
    p.cbank_base[i] = kCbankBase + kCbankStride * i;
    p.cbank_bytes[i] = kCbankStride;
  }
  p.local_base = kLocalBase;
  return p;
}

Placement HostDriver::packed_placement(const LaunchImages& im, uint32_t begin, uint32_t end) {
  Placement p;
  uint64_t top = end;
  const auto take = [&](uint64_t bytes, const char* what) {
    const uint32_t size = round_up(bytes, 256);
    if (top < uint64_t{begin} + size)
      throw RuntimeError(ErrorCode::MemoryAllocation,
                         fmt::format("device memory [{:#010x}, {:#010x}) has no room left for {} ({} bytes): free some allocations or "
                                     "make the launch smaller",
                                     begin, end, what, size));
    top -= size;
    return static_cast<uint32_t>(top);
  };
  p.local_base = im.local_bytes ? take(im.local_bytes, "the launch's local memory") : static_cast<uint32_t>(top);
  for (unsigned i = kCbanks; i-- > 0;) {
    if (im.cbanks[i].empty()) {
      p.cbank_base[i] = 0;
      continue;
    }
    p.cbank_bytes[i] = round_up(im.cbanks[i].size(), 256);
    p.cbank_base[i] = take(im.cbanks[i].size(), "a constant bank");
  }
  p.code_bytes = std::max<uint32_t>(256, round_up(im.code.size(), 256));
  p.code_base = take(p.code_bytes, "the kernel's code");
  return p;
}

std::vector<DriverRegion> HostDriver::regions(const LaunchImages& im, const Placement& p) {
  std::vector<DriverRegion> r;
  r.push_back({p.code_base, p.code_bytes, im.code, "the kernel's code"});
  for (unsigned i = 0; i < kCbanks; ++i)
    if (p.cbank_bytes[i]) r.push_back({p.cbank_base[i], p.cbank_bytes[i], im.cbanks[i], "a constant bank"});
  if (im.local_bytes) r.push_back({p.local_base, static_cast<uint32_t>(im.local_bytes), {}, "local memory"});
  return r;
}

Descriptor HostDriver::descriptor(const golden::LaunchSpec& spec, const Placement& p, uint32_t watchdog) const {
  const KernelInfo& k = *spec.kernel;
  const Occupancy occ = compute_occupancy(config_, spec.block, {k.regs, k.shared_bytes + spec.dynamic_shared});
  const uint32_t shared = (k.shared_bytes + spec.dynamic_shared + 3) / 4 * 4;
  const uint32_t threads = static_cast<uint32_t>(spec.block.count());
  Descriptor d = {
      {mmio::kCodeBase, p.code_base},
      {mmio::kEntryPc, k.entry},
      {mmio::kGridX, spec.grid.x},
      {mmio::kGridY, spec.grid.y},
      {mmio::kGridZ, spec.grid.z},
      {mmio::kBlockX, spec.block.x},
      {mmio::kBlockY, spec.block.y},
      {mmio::kBlockZ, spec.block.z},
      {mmio::kThreads, threads},
      {mmio::kWarps, (threads + golden::kWarpSize - 1) / golden::kWarpSize},
      {mmio::kRegs, k.regs},
      {mmio::kShared, shared},
      {mmio::kLocalBytes, k.local_bytes},
      {mmio::kLocalBase, p.local_base},
      {mmio::kBlocksPerSm, occ.blocks_per_sm},
      {mmio::kTotalBlocks, static_cast<uint32_t>(spec.grid.count())},
      {mmio::kWatchdog, watchdog},
      {mmio::kCodeWords, static_cast<uint32_t>(spec.module->text.size())},
      {mmio::kActiveSms, active_sms_},
      {mmio::kSchedPolicy, sched_policy_},
  };
  for (unsigned i = 0; i < kCbanks; ++i) d.emplace_back(mmio::kCbankBase0 + 4 * i, p.cbank_base[i]);
  return d;
}

void HostDriver::start(GpuLink& link, const Descriptor& descriptor) {
  for (const auto& [addr, value] : descriptor) link.mmio_write(addr, value);
  link.mmio_write(mmio::kCtrl, 1);
}

uint32_t HostDriver::wait(GpuLink& link) {
  uint32_t status = 0;
  do {
    link.poll_wait();
    status = link.mmio_read(mmio::kStatus);
  } while (status & mmio::kStatusBusy);
  if (!(status & (mmio::kStatusDone | mmio::kStatusFault)))
    throw PortError(fmt::format("STATUS reads {:#x} after the launch started: neither busy, done nor fault", status));
  return status;
}

RtlFault HostDriver::read_fault(GpuLink& link) {
  RtlFault f;
  const uint32_t kind = link.mmio_read(mmio::kFaultKind);
  f.sm = link.mmio_read(mmio::kFaultSm);
  f.warp = link.mmio_read(mmio::kFaultWarp);
  f.pc = link.mmio_read(mmio::kFaultPc);
  f.addr = link.mmio_read(mmio::kFaultAddr);
  const uint32_t lane = link.mmio_read(mmio::kFaultLane);
  if (kind == 0 || kind > static_cast<uint32_t>(golden::FaultKind::Trap) + 1)
    throw PortError(fmt::format("STATUS reports a fault, but FAULT_KIND reads {} (1..{} are defined)", kind,
                                static_cast<uint32_t>(golden::FaultKind::Trap) + 1));
  f.kind = static_cast<golden::FaultKind>(kind - 1);
  if (lane != 0xFFFFFFFFu) f.lane = lane;
  return f;
}

golden::Fault HostDriver::fault(const RtlFault& f, const golden::LaunchSpec& spec, unsigned num_sms, uint64_t clocks, std::string* out) {
  // Deadlock and the watchdog are not one instruction's faults: no PC or lane to name. A store's
  // err comes back after it retired: the GPU reports its PC as 0xFFFFFFFF.
  const bool instruction_fault = f.kind != golden::FaultKind::BarrierDeadlock && f.kind != golden::FaultKind::RunawayKernel;
  const bool pc_known = instruction_fault && f.pc != 0xFFFFFFFFu;
  const auto& text = spec.module->text;
  const std::string disassembly = f.pc < text.size() ? isa::disassemble(text[f.pc], f.pc) : "(outside the code)";
  std::string message;
  if (instruction_fault) {
    message = pc_known ? fmt::format("reported by the GPU: SM {}, warp slot {}, PC {} ({})", f.sm, f.warp, f.pc, disassembly)
                       : fmt::format("reported by the GPU: SM {}, warp slot {}, a global store (its PC is no longer known)", f.sm, f.warp);
    if (f.lane) message += fmt::format(", lane {}", *f.lane);
    if (f.kind == golden::FaultKind::OutOfBounds || f.kind == golden::FaultKind::Misaligned || f.kind == golden::FaultKind::AddressRange)
      message += fmt::format(", address {:#010x}", f.addr);
  } else if (f.kind == golden::FaultKind::BarrierDeadlock) {
    message = fmt::format("reported by the GPU: no warp of SM {} can issue while some wait at a barrier", f.sm);
  } else {
    message = fmt::format("reported by the GPU: the watchdog stopped the kernel after {} clocks", clocks);
  }
  if (out) *out = message;
  golden::FaultSite site;
  site.kernel = spec.kernel->name;
  if (f.sm < num_sms) site.sm = f.sm;  // the watchdog names no SM
  if (pc_known) {
    site.pc = f.pc;
    site.disassembly = disassembly;
  }
  return golden::Fault(f.kind, message, site);
}

uint64_t HostDriver::read_counter(GpuLink& link, unsigned k) {
  const uint32_t lo = link.mmio_read(mmio::kCounter0 + 8 * k);
  const uint32_t hi = link.mmio_read(mmio::kCounter0 + 8 * k + 4);
  return uint64_t{hi} << 32 | lo;
}

std::array<uint64_t, kNumCounters> HostDriver::read_counters(GpuLink& link) {
  std::array<uint64_t, kNumCounters> c{};
  for (unsigned k = 0; k < kNumCounters; ++k) c[k] = read_counter(link, k);
  return c;
}

}  // namespace tsm::rtl
