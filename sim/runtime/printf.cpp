// Formats device printf records: walks the format string, takes each argument from the record at
// its natural alignment, and formats it with the C library's printf for that one conversion.
#include "runtime/printf.hpp"

#include <cstdio>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace tsm {

namespace {

class Record {
 public:
  Record(std::span<const uint8_t> args) : args_(args) {}
  // The next argument of `size` bytes at its natural alignment, or nothing if the record ends.
  bool next(size_t size, uint64_t& out) {
    pos_ = (pos_ + size - 1) / size * size;
    if (pos_ + size > args_.size()) return false;
    out = 0;
    std::memcpy(&out, args_.data() + pos_, size);
    pos_ += size;
    return true;
  }

 private:
  std::span<const uint8_t> args_;
  size_t pos_ = 0;
};

std::string format_record(const std::string& fmt_str, Record& rec, const DeviceStringReader& read_string) {
  std::string out;
  size_t at = 0;
  for (const PrintfConversion& c : parse_printf_format(fmt_str)) {
    out += fmt_str.substr(at, c.begin - at);
    at = c.end;
    if (c.end == c.begin + 2 && fmt_str[c.begin + 1] == '%') {
      out += '%';
      continue;
    }
    if (c.conv == 0) {  // unknown or truncated: as text
      out += fmt_str.substr(c.begin, c.end - c.begin);
      continue;
    }
    // '*' widths and precisions come first, as ints; substitute them into the spec.
    std::string spec;
    bool ok = true;
    for (char ch : c.spec) {
      if (ch != '*') {
        spec += ch;
        continue;
      }
      uint64_t w = 0;
      ok = ok && rec.next(4, w);
      spec += std::to_string(static_cast<int32_t>(w));
    }
    uint64_t v = 0;
    ok = ok && rec.next(c.bytes, v);
    char buf[512];
    const bool wide = c.bytes == 8;
    switch (c.conv) {
      case 'd':
      case 'i':
        std::snprintf(buf, sizeof buf, (spec + "lld").c_str(),
                      wide ? static_cast<long long>(v) : static_cast<long long>(static_cast<int32_t>(v)));
        break;
      case 'u':
      case 'x':
      case 'X':
      case 'o':
        std::snprintf(buf, sizeof buf, (spec + "ll" + c.conv).c_str(),
                      static_cast<unsigned long long>(wide ? v : static_cast<uint32_t>(v)));
        break;
      case 'c': std::snprintf(buf, sizeof buf, (spec + "c").c_str(), static_cast<int>(v)); break;
      case 's': {
        const std::string str = read_string(static_cast<uint32_t>(v), 4096);
        std::snprintf(buf, sizeof buf, (spec + "s").c_str(), str.c_str());
        break;
      }
      case 'p': std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v)); break;
      default: {  // floating point, promoted to double
        double d;
        std::memcpy(&d, &v, 8);
        std::snprintf(buf, sizeof buf, (spec + c.conv).c_str(), d);
      }
    }
    out += ok ? buf : "<missing argument>";
  }
  out += fmt_str.substr(std::min(at, fmt_str.size()));
  return out;
}

}  // namespace

std::string format_printf_buffer(std::span<const uint8_t> buffer, const DeviceStringReader& read_string) {
  std::string out;
  size_t pos = kPrintfHeaderBytes;
  while (pos + kPrintfRecordHeaderBytes <= buffer.size()) {
    uint32_t size = 0;
    uint64_t fmt_addr = 0;
    std::memcpy(&size, buffer.data() + pos, 4);
    std::memcpy(&fmt_addr, buffer.data() + pos + 8, 8);
    if (size < kPrintfRecordHeaderBytes || size % 8 != 0 || pos + size > buffer.size()) {
      out += fmt::format("[printf: malformed record of {} bytes at buffer offset {}]\n", size, pos);
      break;
    }
    Record rec(buffer.subspan(pos + kPrintfRecordHeaderBytes, size - kPrintfRecordHeaderBytes));
    out += format_record(read_string(static_cast<uint32_t>(fmt_addr), 4096), rec, read_string);
    pos += size;
  }
  return out;
}

}  // namespace tsm
