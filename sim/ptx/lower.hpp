// Instruction selection: one PTX function to machine IR over virtual registers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ptx/ast.hpp"
#include "ptx/mir.hpp"

namespace tsm::ptx {

/// Where a named variable lives, as the kernel sees it.
struct Symbol {
  Space space = Space::Global;
  uint32_t offset = 0;  // param: c[0] offset; const: c[2] offset; shared/local: byte offset; global: bank-1 slot
  uint32_t bytes = 0;
};

/// The layout the lowering needs: every variable and parameter by name.
struct Layout {
  std::map<std::string, Symbol, std::less<>> symbols;
  uint32_t shared_bytes = 0;   // static shared memory
  uint32_t local_bytes = 0;
  uint32_t dynamic_shared_offset = 0;  // where extern .shared arrays start
  /// The target configuration has no DP unit: binary64 goes through integer sequences, and f64
  /// operations without one are an error naming the configuration.
  bool soft_f64 = false;
  std::string config;  // its name, for those errors
};

/// The global string the translator adds for assertion messages (CUDA's wording), when a kernel
/// calls __assertfail.
inline constexpr const char* kAssertFormatSymbol = "$tsm$assert_format";
inline constexpr const char* kAssertFormat =
    "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n";

/// Lower the body of `fn` (an entry) to machine IR. Throws PtxError for anything unsupported.
MFunction lower_function(const Module& mod, const Function& fn, const Layout& layout);

}  // namespace tsm::ptx
