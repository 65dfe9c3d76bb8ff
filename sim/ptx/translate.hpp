// The PTX → native translator: lowers a parsed PTX module to a TeslaSM module (docs/translator.md).
#pragma once

#include <cstdint>
#include <string>

#include "isa/module.hpp"
#include "ptx/ast.hpp"

namespace tsm::ptx {

struct TranslateOptions {
  uint32_t max_registers = 128;  // per thread (--maxrregcount, or the configuration's limit)
  /// The configuration a kernel's .maxntid/.reqntid (__launch_bounds__) is fitted to: its register
  /// budget is lowered until a block of that many threads fits the SM's register file.
  std::string config = "g80";
  /// Predicates the allocator may use (P0..P(n-1), at most 7); fewer only to exercise predicate
  /// spilling in tests.
  uint32_t max_predicates = 7;
};

struct KernelStats {
  std::string name;
  uint32_t registers = 0;
  uint32_t instructions = 0;
  uint32_t shared_bytes = 0;
  uint32_t local_bytes = 0;
  uint32_t spilled = 0;      // values spilled to local memory
  uint32_t spill_bytes = 0;  // local memory they take (included in local_bytes)
  uint32_t spilled_predicates = 0;  // predicates kept in general registers (more live than P0-P6)
  uint32_t rematerialized = 0;      // constants recomputed where used instead of kept in a register
};

struct TranslateResult {
  ::tsm::Module module;
  std::vector<KernelStats> stats;
};

/// Translate every entry of the module. Unsupported PTX is a PtxError naming file, line and
/// instruction.
TranslateResult translate(const Module& ptx, const TranslateOptions& options);

}  // namespace tsm::ptx
