// Device printf: the buffer layout kernels write (docs/runtime.md) and the host-side formatter.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tsm {

/// Buffer header: u32 bytes used (kernels reserve records with ATOM.ADD on it), u32 capacity,
/// 8 reserved bytes; records follow.
inline constexpr uint32_t kPrintfHeaderBytes = 16;
/// Record: u32 record bytes (a multiple of 8, header included), u32 zero, u64 address of the
/// format string, then the arguments as vprintf lays them out (each at its natural alignment,
/// float promoted to double, %s as a 64-bit address).
inline constexpr uint32_t kPrintfRecordHeaderBytes = 16;

/// One conversion of a printf format: where it is, its text without the length modifier, and the
/// argument bytes it takes from a vprintf buffer (int 4, long/double/pointer/string 8; each `*` a
/// further int before it). Shared by the host formatter and the translator, which sizes records
/// from the format string.
struct PrintfConversion {
  size_t begin = 0, end = 0;  // [begin, end) in the format; end is past the conversion character
  std::string spec;           // "%-08.3" (flags, width, precision; no length modifier)
  char conv = 0;              // 'd', 'f', 's', ...; 0 for "%%" and for an unknown or truncated one
  unsigned bytes = 0;         // argument bytes of the value itself (0 for "%%")
  unsigned stars = 0;         // '*' widths or precisions, each an int argument before the value
};

inline std::vector<PrintfConversion> parse_printf_format(std::string_view f) {
  std::vector<PrintfConversion> out;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    PrintfConversion c;
    c.begin = i;
    size_t j = i + 1;
    if (j < f.size() && f[j] == '%') {
      c.end = j + 1;
      out.push_back(c);
      i = j;
      continue;
    }
    while (j < f.size() && std::string_view("-+ #0123456789.*").find(f[j]) != std::string_view::npos) {
      if (f[j] == '*') ++c.stars;
      ++j;
    }
    c.spec = std::string(f.substr(i, j - i));
    const size_t len_start = j;
    while (j < f.size() && std::string_view("hlLqjzt").find(f[j]) != std::string_view::npos) ++j;
    const std::string_view length = f.substr(len_start, j - len_start);
    if (j >= f.size()) {  // a truncated conversion prints as text
      c.end = f.size();
      out.push_back(c);
      break;
    }
    const bool wide = length.find('l') != std::string_view::npos || length == "j" || length == "z" || length == "t" ||
                      length == "q" || length == "L";
    c.conv = f[j];
    c.end = j + 1;
    switch (c.conv) {
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': c.bytes = wide ? 8 : 4; break;
      case 'c': c.bytes = 4; break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': case 's': case 'p': c.bytes = 8; break;
      default: c.conv = 0; c.stars = 0; break;  // printed as text, takes nothing
    }
    out.push_back(c);
    i = j;
  }
  return out;
}

/// Bytes of the vprintf argument buffer the format's conversions read (each at its natural alignment).
inline uint32_t printf_argument_bytes(std::string_view format) {
  uint32_t pos = 0;
  for (const auto& c : parse_printf_format(format)) {
    for (unsigned s = 0; s < c.stars; ++s) pos = (pos + 3) / 4 * 4 + 4;
    if (c.bytes) pos = (pos + c.bytes - 1) / c.bytes * c.bytes + c.bytes;
  }
  return pos;
}

/// Reads a NUL-terminated string of at most `max` bytes from device memory.
using DeviceStringReader = std::function<std::string(uint32_t addr, size_t max)>;

/// Format every record of a drained buffer (header included) as the host's printf would.
std::string format_printf_buffer(std::span<const uint8_t> buffer, const DeviceStringReader& read_string);

}  // namespace tsm
