// libFuzzer target: bytes through the binary loader (docs/fuzzing.md). The CRC-32 of the container
// is repaired first, so that damage reaches the section parsers behind it. Bad input ends in a
// FormatError naming what and where; a module that loads must serialize to a binary that loads
// to the same module.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <zlib.h>

#include "isa/module.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  if (bytes.size() >= 32) {  // bytes 16..19: CRC-32 of bytes 32..end (docs/binary-format.md)
    const uint32_t crc = static_cast<uint32_t>(crc32(crc32(0, Z_NULL, 0), bytes.data() + 32, static_cast<uInt>(bytes.size() - 32)));
    for (int k = 0; k < 4; ++k) bytes[16 + k] = static_cast<uint8_t>(crc >> (8 * k));
  }
  tsm::Module module;
  try {
    module = tsm::Module::deserialize(bytes, "fuzz.tsb");
  } catch (const tsm::FormatError&) {
    return 0;
  }
  const std::vector<uint8_t> again = module.serialize();
  try {
    if (tsm::Module::deserialize(again, "again.tsb").serialize() == again) return 0;
    std::fprintf(stderr, "a loaded module does not survive serialize + load\n");
  } catch (const tsm::FormatError& e) {
    std::fprintf(stderr, "a loaded module serializes to a binary that does not load: %s\n", e.what());
  }
  std::abort();
}
