// Host runtime in the spirit of the CUDA runtime: device memory, modules, symbols, launches and
// printf, over a backend (the golden model today; the RTL model, SystemC and the board later).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "config/occupancy.hpp"
#include "runtime/backend_error.hpp"
#include "golden/model.hpp"
#include "isa/module.hpp"
#include "tsm/config_gen.hpp"

namespace tsm {

/// Error codes named after their CUDA runtime counterparts (docs/runtime-errors.md).
enum class ErrorCode {
  InvalidValue,             // cudaErrorInvalidValue
  MemoryAllocation,         // cudaErrorMemoryAllocation
  InvalidDevicePointer,     // cudaErrorInvalidDevicePointer
  InvalidSymbol,            // cudaErrorInvalidSymbol
  InvalidDeviceFunction,    // cudaErrorInvalidDeviceFunction
  InvalidKernelImage,       // cudaErrorInvalidKernelImage
  InvalidConfiguration,     // cudaErrorInvalidConfiguration
  LaunchOutOfResources,     // cudaErrorLaunchOutOfResources
  IllegalAddress,           // cudaErrorIllegalAddress
  MisalignedAddress,        // cudaErrorMisalignedAddress
  IllegalInstruction,       // cudaErrorIllegalInstruction
  Assert,                   // cudaErrorAssert
  LaunchTimeout,            // cudaErrorLaunchTimeout
  LaunchFailure,            // cudaErrorLaunchFailure
};

/// "cudaErrorIllegalAddress" etc.
const char* error_name(ErrorCode code);

class RuntimeError : public std::runtime_error {
 public:
  RuntimeError(ErrorCode code, const std::string& message, std::string printf_output = {});
  ErrorCode code;
  std::string printf_output;  ///< for a kernel fault: what the kernel printed before it (already sent to the sink)
};

using DevicePtr = uint32_t;

/// The device-side printf buffer's size on backends that do not choose their own.
inline constexpr uint32_t kPrintfBufferBytes = 1u << 20;

/// Where memory lives and kernels run. Device memory is byte-addressed with 32-bit addresses.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// An allocation now exists / no longer exists (the golden model faults outside allocations).
  virtual void map(DevicePtr addr, uint32_t bytes) = 0;
  virtual void unmap(DevicePtr addr) = 0;
  virtual void write(DevicePtr addr, std::span<const uint8_t> bytes) = 0;
  virtual void read(DevicePtr addr, std::span<uint8_t> bytes) = 0;
  /// Run a launch to completion. Throws golden::Fault on a kernel fault.
  virtual golden::LaunchStats launch(const golden::LaunchSpec& spec) = 0;
  /// Bytes of device memory for the printf buffer (a board with little memory asks for less).
  virtual uint32_t printf_buffer_bytes() const { return kPrintfBufferBytes; }
};

/// The golden functional model as a backend.
std::unique_ptr<Backend> make_golden_backend();

/// Builds a kernel's parameter block in declaration order, checking each value's size.
class KernelArgs {
 public:
  KernelArgs& u32(uint32_t v) { return raw(&v, 4); }
  KernelArgs& i32(int32_t v) { return raw(&v, 4); }
  KernelArgs& f32(float v) { return raw(&v, 4); }
  KernelArgs& u64(uint64_t v) { return raw(&v, 8); }
  KernelArgs& i64(int64_t v) { return raw(&v, 8); }
  KernelArgs& ptr(DevicePtr p) { return u64(p); }  // PTX pointers are 64-bit
  KernelArgs& bytes(std::span<const uint8_t> b) {
    values_.emplace_back(b.begin(), b.end());
    return *this;
  }
  const std::vector<std::vector<uint8_t>>& values() const { return values_; }

 private:
  KernelArgs& raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    values_.emplace_back(b, b + n);
    return *this;
  }
  std::vector<std::vector<uint8_t>> values_;
};

struct LaunchResult {
  golden::LaunchStats stats;
  std::string printf_output;
};

class Runtime {
 public:
  Runtime(const config::SmConfig& config, std::unique_ptr<Backend> backend);
  ~Runtime();

  const config::SmConfig& config() const { return config_; }
  Backend& backend() { return *backend_; }

  DevicePtr malloc(uint32_t bytes);
  void free(DevicePtr ptr);
  void memcpy_to_device(DevicePtr dst, std::span<const uint8_t> src);
  void memcpy_to_host(std::span<uint8_t> dst, DevicePtr src);
  void memset(DevicePtr dst, uint8_t value, uint32_t bytes);

  using ModuleId = size_t;
  /// Load a module: allocate and initialize its global variables, fill their address slots.
  ModuleId load_module(Module module);
  const Module& module(ModuleId id) const;
  /// cudaMemcpyToSymbol / FromSymbol for `.const` and `.global` symbols.
  void write_symbol(ModuleId id, std::string_view name, std::span<const uint8_t> bytes, uint32_t offset = 0);
  void read_symbol(ModuleId id, std::string_view name, std::span<uint8_t> bytes, uint32_t offset = 0);
  /// Device address of a `.global` symbol.
  DevicePtr symbol_address(ModuleId id, std::string_view name) const;

  /// Launch and wait (launches are synchronous). printf output is returned and, if a sink is
  /// set, written there as well.
  LaunchResult launch(ModuleId id, std::string_view kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                      uint32_t dynamic_shared = 0);
  void set_printf_sink(std::FILE* sink) { printf_sink_ = sink; }
  void set_instruction_budget(uint64_t warp_instructions) { budget_ = warp_instructions; }

 private:
  struct LoadedModule {
    Module module;
    std::map<std::string, DevicePtr, std::less<>> globals;
  };
  const LoadedModule& loaded(ModuleId id) const;
  std::vector<uint8_t> param_block(const KernelInfo& k, const KernelArgs& args) const;
  std::string drain_printf();

  const config::SmConfig& config_;
  std::unique_ptr<Backend> backend_;
  std::map<DevicePtr, uint32_t> allocations_;
  std::vector<std::unique_ptr<LoadedModule>> modules_;
  DevicePtr printf_buffer_ = 0;
  uint32_t printf_bytes_ = 0;  // the printf buffer's size (the backend's choice)
  std::FILE* printf_sink_ = nullptr;
  uint64_t budget_ = 200'000'000;
};

/// Device memory allocations start here (address 0 stays unmapped so null pointers fault) and
/// stay below the generic windows.
inline constexpr DevicePtr kHeapBase = 0x00100000;
inline constexpr uint32_t kAllocAlignment = 256;

}  // namespace tsm
