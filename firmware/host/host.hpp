// Host programs for the firmware kernels: each prepares inputs, launches its kernel through the
// runtime, computes a C++ reference and compares. `./tsm run NAME` runs one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"

namespace tsm::firmware {

struct HostOptions {
  std::string backend = "golden";
  std::string config = "g80";
  uint32_t n = 0;  // problem size; 0 = the program's default
  uint32_t block = 0;  // threads per block; 0 = the program's default
  uint64_t seed = 1;
  std::string firmware_dir = TSM_FIRMWARE_DIR;
};

struct HostProgram {
  std::string name;
  std::string description;
  std::function<bool(Runtime&, const HostOptions&)> run;  // true when the results match
};

const std::vector<HostProgram>& host_programs();

/// A runtime over the backend and configuration the options name (clear errors for unknown ones).
std::unique_ptr<Runtime> make_runtime(const HostOptions& options);
/// Assemble firmware/asm/NAME.tsa and load it.
Runtime::ModuleId load_kernel(Runtime& rt, const HostOptions& options, const std::string& name);
/// Print the launch's statistics in one line.
void print_launch(const std::string& what, Dim3 grid, Dim3 block, const LaunchResult& r);

template <typename T>
DevicePtr upload(Runtime& rt, const std::vector<T>& v) {
  const DevicePtr p = rt.malloc(static_cast<uint32_t>(v.size() * sizeof(T)));
  rt.memcpy_to_device(p, std::span(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)));
  return p;
}

template <typename T>
std::vector<T> download(Runtime& rt, DevicePtr p, size_t count) {
  std::vector<T> v(count);
  rt.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(v.data()), count * sizeof(T)), p);
  return v;
}

}  // namespace tsm::firmware
