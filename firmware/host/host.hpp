// Host programs for the firmware kernels: each prepares inputs, launches its kernel through the
// runtime, computes a C++ reference and compares. `./tsm run NAME` runs one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rtl/trace_options.hpp"
#include "runtime/runtime.hpp"

namespace tsm::firmware {

struct HostOptions {
  std::string backend = "golden";  // golden, rtl, netlist or board
  std::string config = "g80";
  uint32_t sms = 0;                 // rtl, netlist: SMs that take blocks; 0 = all the model has
  std::string sched = "lrr";        // rtl, netlist: the warp-scheduling policy (rtl::kSchedPolicyNames)
  bool lockstep = true;             // rtl, netlist: check every retired instruction against the golden model
  std::vector<std::string> verilator_args;  // rtl, netlist: run-time arguments of the Verilated model
  uint32_t mutant = 0;  // rtl: N > 0 runs the RTL with deliberate bug N switched on (docs/regression.md §3)
  uint32_t n = 0;  // problem size; 0 = the program's default
  uint32_t block = 0;  // threads per block; 0 = the program's default
  uint64_t seed = 1;
  std::string frontend = "auto";  // CUDA front end: auto (nvcc if installed, else clang), nvcc, clang
  std::string source = "cuda";    // cuda: firmware/cuda/NAME.cu; asm: firmware/asm/NAME.tsa
  std::string firmware_dir = TSM_FIRMWARE_DIR;
  rtl::TraceOptions trace;  // rtl: FST waveform and warp timeline (docs/waveforms.md)
  std::string port = "/dev/ttyUSB0";  // board: the serial port of the board's UART (docs/fpga.md)
  uint32_t baud = 3000000;            // board: the UART's bit rate
  double board_timeout = 1.0;         // board: seconds to wait for each reply of the bridge
};

struct HostProgram {
  std::string name;
  std::string description;
  std::function<bool(Runtime&, const HostOptions&)> run;  // true when the results match
  std::vector<uint32_t> shapes;  // the block sizes (threads per block) `--block all` runs; tests run these
};

const std::vector<HostProgram>& host_programs();

/// The RTL backend of configuration `cfg` with `sms` SMs taking blocks (0: all) and lockstep on or off;
/// with `netlist`, over the Verilated Yosys netlist of the GPU top (one SM) instead of the RTL; with
/// `mutant` N > 0, over the RTL with deliberate bug N switched on (docs/regression.md §3); `sched`
/// names the warp-scheduling policy (docs/sm-rtl.md §2.3).
std::unique_ptr<Backend> make_backend_rtl(const config::SmConfig& cfg, uint32_t sms, bool lockstep,
                                          const std::vector<std::string>& verilator_args = {}, bool netlist = false,
                                          uint32_t mutant = 0, const rtl::TraceOptions& trace = {}, const std::string& sched = "lrr");
/// A runtime over the backend and configuration the options name (clear errors for unknown ones).
std::unique_ptr<Runtime> make_runtime(const HostOptions& options);
/// Load the program's kernel module: firmware/cuda/NAME.cu compiled by the chosen front end and
/// translated (compiled once per process and front end), or with source "asm" the hand-written
/// firmware/asm/NAME.tsa. Errors are RuntimeError(InvalidKernelImage) with the compiler's message.
Runtime::ModuleId load_kernel(Runtime& rt, const HostOptions& options, const std::string& name);
/// Names of the programs that also have a hand-written assembly version (firmware/asm/NAME.tsa).
std::vector<std::string> asm_programs(const HostOptions& options);
/// Print the launch's statistics in one line.
void print_launch(const std::string& what, Dim3 grid, Dim3 block, const LaunchResult& r);
/// A 2D block of `threads` threads, as square as divides evenly, x the longer edge: 32 -> 8x4,
/// 64 -> 8x8, 100 -> 10x10, 256 -> 16x16, 512 -> 32x16.
Dim3 block_2d(uint32_t threads);

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
