// Argument parsing shared by tsm-tool's commands.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "config/occupancy.hpp"

namespace tsm::tools {

/// Prints "error: MESSAGE" and ends the command with exit code 1.
[[noreturn]] inline void fail(const std::string& message) {
  fmt::print(stderr, "error: {}\n", message);
  throw CLI::RuntimeError(1);
}

/// The whole file at `path`, or fail() naming it.
inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) fail(fmt::format("{}: cannot open", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Parses "X", "X,Y" or "X,Y,Z" ('x' also separates, as in "16x16"); missing dimensions are 1.
inline std::optional<Dim3> parse_dim3(std::string_view text) {
  std::vector<uint32_t> dims;
  for (size_t begin = 0;;) {
    const size_t end = std::min(text.find_first_of(",x", begin), text.size());
    uint32_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + begin, text.data() + end, value);
    if (ec != std::errc() || ptr != text.data() + end || end == begin) return std::nullopt;
    dims.push_back(value);
    if (end == text.size()) break;
    begin = end + 1;
  }
  if (dims.size() > 3) return std::nullopt;
  dims.resize(3, 1);
  return Dim3{dims[0], dims[1], dims[2]};
}

}  // namespace tsm::tools
