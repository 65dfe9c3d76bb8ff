// libFuzzer target: assembly text through the assembler, and what it accepts through the
// disassembler and back (docs/fuzzing.md). Bad input ends in an AsmError naming file:line:col; a
// module that assembles must disassemble to a listing that assembles to the same binary.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>

#include "isa/assembler.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tsm::Module module;
  try {
    module = tsm::assemble(text, "fuzz.tsa");
  } catch (const tsm::AsmError&) {
    return 0;
  }
  const std::string listing = tsm::disassemble_module(module);
  try {
    if (tsm::assemble(listing, "listing.tsa").serialize() == module.serialize()) return 0;
    std::fprintf(stderr, "the disassembly assembles to a different binary:\n%s\n", listing.c_str());
  } catch (const tsm::AsmError& e) {
    std::fprintf(stderr, "the disassembly does not assemble: %s\n%s\n", e.what(), listing.c_str());
  }
  std::abort();
}
