// libFuzzer target: PTX text through the parser and the translator (docs/fuzzing.md). Whatever the
// input, the result is a module or a PtxError naming file and line; anything else (a crash, a
// sanitizer report, another exception, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ptx/ast.hpp"
#include "ptx/translate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tsm::ptx::Module ptx = tsm::ptx::parse(text, "fuzz.ptx");
    // The smallest configuration: tight register budgets make the allocator spill.
    tsm::ptx::TranslateOptions options;
    options.config = "small";
    options.max_registers = 16;
    (void)tsm::ptx::translate(ptx, options);
  } catch (const tsm::ptx::PtxError&) {
  }
  return 0;
}
