// Reading the sample kernels and other files in the ISA tests.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tsm::test {

inline std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The hand-written kernels in firmware/asm/, by name.
inline const std::vector<std::string>& sample_kernels() {
  static const std::vector<std::string> names{"saxpy", "divergence", "reduce"};
  return names;
}

inline std::string sample_kernel_path(const std::string& name) {
  return std::string(TSM_SOURCE_DIR) + "/firmware/asm/" + name + ".tsa";
}

}  // namespace tsm::test
