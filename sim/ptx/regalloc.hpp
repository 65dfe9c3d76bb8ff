// Register allocation for the translator: graph colouring over exact liveness, with copies
// coalesced by preference, constants rematerialized, values spilled to local memory and
// predicates to general registers (docs/translator.md §6).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptx/mir.hpp"

namespace tsm::ptx {

struct Allocation {
  std::vector<int> phys;      // per vreg: first physical register or predicate, -1 if unused
  uint32_t registers = 0;     // registers per thread (highest used + 1)
  uint32_t spilled = 0;       // values kept in local memory
  uint32_t spill_bytes = 0;   // local memory they take, after the kernel's own
  uint32_t spilled_predicates = 0;  // predicates kept in general registers
  uint32_t rematerialized = 0;      // constants recomputed where used instead of kept
};

struct AllocOptions {
  uint32_t registers = 128;   // general registers available (R0..R(n-1))
  uint32_t predicates = 7;    // predicates available (P0..P(n-1)); fewer only to test spilling
  uint32_t local_base = 0;    // first byte of local memory free for spills
};

/// Allocate `f`'s virtual registers, rewriting it where values are spilled or rematerialized.
/// Throws PtxError (at the instruction's PTX line) when one instruction needs more than there is.
Allocation allocate(MFunction& f, const AllocOptions& options, const std::string& file, const std::string& kernel);

/// The peephole pass after allocation: deletes moves whose source and destination got the same
/// register. Returns how many.
size_t remove_self_moves(MFunction& f, const std::vector<int>& phys);

}  // namespace tsm::ptx
