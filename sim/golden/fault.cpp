// Fault messages: what happened, then kernel, block, thread, warp, PC and instruction.
#include "fault.hpp"

#include <fmt/format.h>

#include "golden/coverage.hpp"

namespace tsm::golden {

const char* to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::OutOfBounds: return "out-of-bounds access";
    case FaultKind::Misaligned: return "misaligned access";
    case FaultKind::AddressRange: return "address out of range";
    case FaultKind::DivergentBarrier: return "divergent barrier";
    case FaultKind::BarrierDeadlock: return "barrier deadlock";
    case FaultKind::StackOverflow: return "reconvergence stack overflow";
    case FaultKind::StackUnderflow: return "reconvergence stack underflow";
    case FaultKind::RunawayKernel: return "runaway kernel";
    case FaultKind::InvalidInstruction: return "invalid instruction";
    case FaultKind::Trap: return "trap";
  }
  return "fault";
}

namespace {

std::string describe(FaultKind kind, const std::string& what, const FaultSite& s) {
  std::string m = fmt::format("{}: {}", to_string(kind), what);
  if (!s.kernel.empty()) m += fmt::format("\n  kernel {}", s.kernel);
  if (s.block_x) m += fmt::format(", block ({},{},{})", *s.block_x, s.block_y.value_or(0), s.block_z.value_or(0));
  if (s.thread_x) m += fmt::format(", thread ({},{},{})", *s.thread_x, s.thread_y.value_or(0), s.thread_z.value_or(0));
  if (s.warp) m += fmt::format(", warp {}", *s.warp);
  if (s.sm) m += fmt::format(" on SM {}", *s.sm);
  if (s.pc) m += fmt::format("\n  at PC {}: {}", *s.pc, s.disassembly);
  return m;
}

}  // namespace

Fault::Fault(FaultKind k, std::string what, FaultSite s)
    : std::runtime_error(describe(k, what, s)), kind(k), detail(std::move(what)), site(std::move(s)) {
  if (coverage_enabled()) ++coverage().faults[to_string(k)];
}

}  // namespace tsm::golden
