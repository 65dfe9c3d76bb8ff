// Faults a kernel can raise: one exception type carrying the structured facts a user acts on.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace tsm::golden {

enum class FaultKind {
  OutOfBounds,       // an access outside every allocation / the space's size
  Misaligned,        // an access not aligned to its size
  AddressRange,      // a 64-bit address whose upper word is not zero
  DivergentBarrier,  // a warp at a barrier while some of its live threads are elsewhere
  BarrierDeadlock,   // every unfinished warp of an SM waits at a barrier that cannot complete
  StackOverflow,     // the reconvergence stack is full
  StackUnderflow,    // SYNC/BRK/RET with no matching entry
  RunawayKernel,     // the instruction budget ran out
  InvalidInstruction,  // undecodable word, a register beyond the kernel's count, a unit the config lacks
  Trap,              // TRAP executed
};
/// Kinds in FaultKind (Trap is the last).
inline constexpr int kFaultKindCount = static_cast<int>(FaultKind::Trap) + 1;

const char* to_string(FaultKind kind);

/// Where a fault happened. Fields that do not apply stay empty.
struct FaultSite {
  std::string kernel;
  std::optional<uint32_t> block_x, block_y, block_z;  // block index
  std::optional<uint32_t> thread_x, thread_y, thread_z;  // thread index within the block
  std::optional<uint32_t> sm, warp;  // SM and warp (index within the block)
  std::optional<uint32_t> pc;
  std::string disassembly;
};

/// A fault: the kind, a message that says what happened, and where.
class Fault : public std::runtime_error {
 public:
  Fault(FaultKind kind, std::string what, FaultSite site);
  FaultKind kind;
  std::string detail;  // the message without the site
  FaultSite site;
};

}  // namespace tsm::golden
