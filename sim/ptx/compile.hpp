// One call from a CUDA or PTX file to a native module: front end, parser, translator.
#pragma once

#include <string>
#include <vector>

#include "compiler/frontend.hpp"
#include "ptx/translate.hpp"

namespace tsm::ptx {

struct CompileOptions {
  compiler::Frontend frontend = compiler::Frontend::Auto;
  uint32_t max_registers = 128;  // --maxrregcount
  std::string config = "g80";    // the configuration launch bounds are fitted to
  uint32_t max_predicates = 7;   // fewer only to exercise predicate spilling in tests
};

struct Compiled {
  ::tsm::Module module;
  std::vector<KernelStats> stats;
  std::string ptx;       // the PTX that was translated
  std::string frontend;  // "nvcc", "clang", or "ptx" for PTX input
};

/// Compile FILE.cu (through a CUDA front end) or FILE.ptx. Throws compiler::CompileError for
/// front-end failures and PtxError for PTX the translator rejects.
Compiled compile_file(const std::string& path, const CompileOptions& options);

}  // namespace tsm::ptx
