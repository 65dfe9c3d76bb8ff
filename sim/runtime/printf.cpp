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
  for (size_t i = 0; i < fmt_str.size(); ++i) {
    if (fmt_str[i] != '%') {
      out += fmt_str[i];
      continue;
    }
    if (i + 1 < fmt_str.size() && fmt_str[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < fmt_str.size() && std::strchr("-+ #0123456789.", fmt_str[j])) ++j;
    size_t len_start = j;
    while (j < fmt_str.size() && std::strchr("hlLqjzt", fmt_str[j])) ++j;
    const std::string_view length(fmt_str.data() + len_start, j - len_start);
    if (j >= fmt_str.size()) {
      out += fmt_str.substr(i);
      break;
    }
    const char conv = fmt_str[j];
    const std::string spec_no_len = fmt_str.substr(i, len_start - i);
    const bool wide = length.find('l') != std::string_view::npos || length == "j" || length == "z" || length == "t" || length == "q";
    uint64_t v = 0;
    char buf[512];
    bool ok = true;
    switch (conv) {
      case 'd':
      case 'i':
        ok = rec.next(wide ? 8 : 4, v);
        std::snprintf(buf, sizeof buf, (spec_no_len + "lld").c_str(),
                      wide ? static_cast<long long>(v) : static_cast<long long>(static_cast<int32_t>(v)));
        break;
      case 'u':
      case 'x':
      case 'X':
      case 'o':
        ok = rec.next(wide ? 8 : 4, v);
        std::snprintf(buf, sizeof buf, (spec_no_len + "ll" + conv).c_str(), static_cast<unsigned long long>(v));
        break;
      case 'c':
        ok = rec.next(4, v);
        std::snprintf(buf, sizeof buf, (spec_no_len + "c").c_str(), static_cast<int>(v));
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        ok = rec.next(8, v);
        double d;
        std::memcpy(&d, &v, 8);
        std::snprintf(buf, sizeof buf, (spec_no_len + conv).c_str(), d);
        break;
      }
      case 's': {
        ok = rec.next(8, v);
        const std::string str = read_string(static_cast<uint32_t>(v), 4096);
        std::snprintf(buf, sizeof buf, (spec_no_len + "s").c_str(), str.c_str());
        break;
      }
      case 'p':
        ok = rec.next(8, v);
        std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
        break;
      default:
        std::snprintf(buf, sizeof buf, "%s", fmt_str.substr(i, j - i + 1).c_str());
    }
    out += ok ? buf : "<missing argument>";
    i = j;
  }
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
