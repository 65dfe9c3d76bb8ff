// Host runtime: allocator, module loading, symbols, launch building, fault-to-error mapping, printf.
#include "runtime/runtime.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "isa/isa.hpp"
#include "runtime/printf.hpp"

namespace tsm {

namespace g = isa::gen;

const char* error_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidValue: return "cudaErrorInvalidValue";
    case ErrorCode::MemoryAllocation: return "cudaErrorMemoryAllocation";
    case ErrorCode::InvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case ErrorCode::InvalidSymbol: return "cudaErrorInvalidSymbol";
    case ErrorCode::InvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case ErrorCode::InvalidKernelImage: return "cudaErrorInvalidKernelImage";
    case ErrorCode::InvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case ErrorCode::LaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case ErrorCode::IllegalAddress: return "cudaErrorIllegalAddress";
    case ErrorCode::MisalignedAddress: return "cudaErrorMisalignedAddress";
    case ErrorCode::IllegalInstruction: return "cudaErrorIllegalInstruction";
    case ErrorCode::Assert: return "cudaErrorAssert";
    case ErrorCode::LaunchTimeout: return "cudaErrorLaunchTimeout";
    case ErrorCode::LaunchFailure: return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}

RuntimeError::RuntimeError(ErrorCode c, const std::string& message, std::string printed)
    : std::runtime_error(fmt::format("{}: {}", error_name(c), message)), code(c), printf_output(std::move(printed)) {}

namespace {

class GoldenBackend : public Backend {
 public:
  GoldenBackend() : model_(memory_) {}
  std::string name() const override { return "golden"; }
  void map(DevicePtr addr, uint32_t bytes) override { memory_.map(addr, bytes); }
  void unmap(DevicePtr addr) override { memory_.unmap(addr); }
  void write(DevicePtr addr, std::span<const uint8_t> bytes) override { memory_.write(addr, bytes); }
  void read(DevicePtr addr, std::span<uint8_t> bytes) override { memory_.read(addr, bytes); }
  golden::LaunchStats launch(const golden::LaunchSpec& spec) override {
    model_.begin(spec);
    return model_.run();
  }

 private:
  golden::DeviceMemory memory_;
  golden::GoldenModel model_;
};

ErrorCode error_for(golden::FaultKind kind) {
  using golden::FaultKind;
  switch (kind) {
    case FaultKind::OutOfBounds:
    case FaultKind::AddressRange: return ErrorCode::IllegalAddress;
    case FaultKind::Misaligned: return ErrorCode::MisalignedAddress;
    case FaultKind::InvalidInstruction: return ErrorCode::IllegalInstruction;
    case FaultKind::Trap: return ErrorCode::Assert;
    case FaultKind::RunawayKernel: return ErrorCode::LaunchTimeout;
    default: return ErrorCode::LaunchFailure;
  }
}

void put32(std::vector<uint8_t>& v, size_t at, uint32_t x) { std::memcpy(v.data() + at, &x, 4); }

}  // namespace

std::unique_ptr<Backend> make_golden_backend() { return std::make_unique<GoldenBackend>(); }

Runtime::Runtime(const config::SmConfig& config, std::unique_ptr<Backend> backend)
    : config_(config), backend_(std::move(backend)) {
  printf_bytes_ = backend_->printf_buffer_bytes();
  printf_buffer_ = malloc(printf_bytes_);
  std::vector<uint8_t> header(kPrintfHeaderBytes, 0);
  put32(header, 0, kPrintfHeaderBytes);
  put32(header, 4, printf_bytes_);
  memcpy_to_device(printf_buffer_, header);
}

Runtime::~Runtime() = default;

DevicePtr Runtime::malloc(uint32_t bytes) {
  if (bytes == 0) throw RuntimeError(ErrorCode::InvalidValue, "malloc of 0 bytes");
  const uint64_t size = (uint64_t{bytes} + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
  uint64_t candidate = kHeapBase;
  for (const auto& [start, len] : allocations_) {  // first fit, in address order
    if (candidate + size <= start) break;
    candidate = std::max<uint64_t>(candidate, (uint64_t{start} + len + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment);
  }
  if (candidate + size > g::kSharedWindowBase)
    throw RuntimeError(ErrorCode::MemoryAllocation,
                       fmt::format("cannot allocate {} bytes: device memory below the generic windows ({:#x}) is exhausted",
                                   bytes, g::kSharedWindowBase));
  const auto addr = static_cast<DevicePtr>(candidate);
  allocations_[addr] = bytes;
  backend_->map(addr, bytes);
  return addr;
}

void Runtime::free(DevicePtr ptr) {
  auto it = allocations_.find(ptr);
  if (it == allocations_.end())
    throw RuntimeError(ErrorCode::InvalidDevicePointer, fmt::format("free({:#x}): not the start of an allocation", ptr));
  allocations_.erase(it);
  backend_->unmap(ptr);
}

namespace {
void check_range(const std::map<DevicePtr, uint32_t>& allocs, DevicePtr addr, size_t bytes, const char* what) {
  auto it = allocs.upper_bound(addr);
  if (it != allocs.begin()) {
    --it;
    if (uint64_t{addr} + bytes <= uint64_t{it->first} + it->second) return;
  }
  throw RuntimeError(ErrorCode::InvalidValue,
                     fmt::format("{} of {} bytes at {:#x} is not inside one allocation", what, bytes, addr));
}
}  // namespace

void Runtime::memcpy_to_device(DevicePtr dst, std::span<const uint8_t> src) {
  check_range(allocations_, dst, src.size(), "copy to device");
  backend_->write(dst, src);
}

void Runtime::memcpy_to_host(std::span<uint8_t> dst, DevicePtr src) {
  check_range(allocations_, src, dst.size(), "copy to host");
  backend_->read(src, dst);
}

void Runtime::memset(DevicePtr dst, uint8_t value, uint32_t bytes) {
  memcpy_to_device(dst, std::vector<uint8_t>(bytes, value));
}

Runtime::ModuleId Runtime::load_module(Module module) {
  try {
    module.validate("module");
  } catch (const FormatError& e) {
    throw RuntimeError(ErrorCode::InvalidKernelImage, e.what());
  }
  auto lm = std::make_unique<LoadedModule>();
  for (const auto& gsym : module.globals) {
    const DevicePtr addr = malloc(gsym.bytes());
    memcpy_to_device(addr, std::span(module.global_data).subspan(gsym.offset, gsym.bytes()));
    auto& slot = module.cbanks.at(gsym.bank);
    const uint64_t a = addr;
    std::memcpy(slot.data() + gsym.slot, &a, 8);
    lm->globals.emplace(gsym.name, addr);
  }
  for (const auto& r : module.relocs) {  // addresses inside initialized globals
    const uint64_t value = (uint64_t{lm->globals.at(r.target)} + static_cast<uint64_t>(r.addend)) >> r.shift;
    uint8_t bytes[8];
    for (uint32_t b = 0; b < r.bytes; ++b) bytes[b] = static_cast<uint8_t>(value >> (8 * b));
    memcpy_to_device(lm->globals.at(r.global) + r.at, std::span(bytes, r.bytes));
  }
  lm->module = std::move(module);
  modules_.push_back(std::move(lm));
  return modules_.size() - 1;
}

const Runtime::LoadedModule& Runtime::loaded(ModuleId id) const {
  if (id >= modules_.size()) throw RuntimeError(ErrorCode::InvalidValue, fmt::format("no module {}", id));
  return *modules_[id];
}

const Module& Runtime::module(ModuleId id) const { return loaded(id).module; }

DevicePtr Runtime::symbol_address(ModuleId id, std::string_view name) const {
  const auto& lm = loaded(id);
  auto it = lm.globals.find(name);
  if (it == lm.globals.end()) throw RuntimeError(ErrorCode::InvalidSymbol, fmt::format("no global variable '{}'", name));
  return it->second;
}

void Runtime::write_symbol(ModuleId id, std::string_view name, std::span<const uint8_t> bytes, uint32_t offset) {
  (void)loaded(id);  // checks the id
  LoadedModule& lm = *modules_[id];
  for (const auto& c : lm.module.consts) {
    if (c.name != name) continue;
    if (uint64_t{offset} + bytes.size() > c.bytes())
      throw RuntimeError(ErrorCode::InvalidValue, fmt::format("{} bytes at offset {} overflow '{}' ({} bytes)", bytes.size(), offset, name, c.bytes()));
    std::copy(bytes.begin(), bytes.end(), lm.module.cbanks.at(c.bank).begin() + c.offset + offset);
    return;
  }
  for (const auto& gsym : lm.module.globals) {
    if (gsym.name != name) continue;
    if (uint64_t{offset} + bytes.size() > gsym.bytes())
      throw RuntimeError(ErrorCode::InvalidValue, fmt::format("{} bytes at offset {} overflow '{}' ({} bytes)", bytes.size(), offset, name, gsym.bytes()));
    memcpy_to_device(symbol_address(id, name) + offset, bytes);
    return;
  }
  throw RuntimeError(ErrorCode::InvalidSymbol, fmt::format("no constant or global symbol '{}'", name));
}

void Runtime::read_symbol(ModuleId id, std::string_view name, std::span<uint8_t> bytes, uint32_t offset) {
  const auto& lm = loaded(id);
  for (const auto& c : lm.module.consts) {
    if (c.name != name) continue;
    if (uint64_t{offset} + bytes.size() > c.bytes()) throw RuntimeError(ErrorCode::InvalidValue, fmt::format("read overflows '{}'", name));
    const auto& img = lm.module.cbanks.at(c.bank);
    std::copy_n(img.begin() + c.offset + offset, bytes.size(), bytes.begin());
    return;
  }
  for (const auto& gsym : lm.module.globals) {
    if (gsym.name != name) continue;
    if (uint64_t{offset} + bytes.size() > gsym.bytes()) throw RuntimeError(ErrorCode::InvalidValue, fmt::format("read overflows '{}'", name));
    memcpy_to_host(bytes, symbol_address(id, name) + offset);
    return;
  }
  throw RuntimeError(ErrorCode::InvalidSymbol, fmt::format("no constant or global symbol '{}'", name));
}

std::vector<uint8_t> Runtime::param_block(const KernelInfo& k, const KernelArgs& args) const {
  const auto& v = args.values();
  if (v.size() != k.params.size())
    throw RuntimeError(ErrorCode::InvalidValue,
                       fmt::format("kernel '{}' takes {} parameters, the launch passes {}", k.name, k.params.size(), v.size()));
  std::vector<uint8_t> block(k.param_end(), 0);
  for (size_t i = 0; i < v.size(); ++i) {
    const ParamInfo& p = k.params[i];
    if (v[i].size() != p.type.size)
      throw RuntimeError(ErrorCode::InvalidValue, fmt::format("parameter {} '{}' of kernel '{}' is {} bytes ({}), the launch passes {}",
                                                              i, p.name, k.name, p.type.size, p.type.name, v[i].size()));
    std::copy(v[i].begin(), v[i].end(), block.begin() + p.offset);
  }
  return block;
}

LaunchResult Runtime::launch(ModuleId id, std::string_view kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                             uint32_t dynamic_shared) {
  const LoadedModule& lm = loaded(id);
  const KernelInfo* k = lm.module.find_kernel(kernel);
  if (!k) throw RuntimeError(ErrorCode::InvalidDeviceFunction, fmt::format("the module has no kernel '{}'", kernel));
  golden::LaunchSpec spec;
  spec.module = &lm.module;
  spec.kernel = k;
  spec.grid = grid;
  spec.block = block;
  spec.dynamic_shared = dynamic_shared;
  spec.config = &config_;
  spec.instruction_budget = budget_;
  try {
    check_grid(config_, grid);
    (void)compute_occupancy(config_, block, {k->regs, k->shared_bytes + dynamic_shared});
  } catch (const LaunchConfigError& e) {
    const bool resources = std::string_view(e.what()).find("register") != std::string_view::npos ||
                           std::string_view(e.what()).find("shared") != std::string_view::npos;
    throw RuntimeError(resources ? ErrorCode::LaunchOutOfResources : ErrorCode::InvalidConfiguration,
                       fmt::format("launch of '{}': {}", k->name, e.what()));
  }
  auto& c0 = spec.cbanks[g::kCbankLaunch];
  c0 = param_block(*k, args);
  put32(c0, g::kC0PrintfBuf, printf_buffer_);
  put32(c0, g::kC0PrintfSize, printf_bytes_);
  put32(c0, g::kC0SharedWindow, g::kSharedWindowBase);
  put32(c0, g::kC0LocalWindow, g::kLocalWindowBase);
  put32(c0, g::kC0DynShared, dynamic_shared);
  put32(c0, g::kC0LocalBytes, k->local_bytes);
  for (const auto& [bank, image] : lm.module.cbanks) spec.cbanks[bank] = image;

  LaunchResult result;
  try {
    result.stats = backend_->launch(spec);
  } catch (const golden::Fault& f) {
    // What the kernel printed before the fault (an assertion's message among it) is not lost.
    const std::string printed = drain_printf();
    if (printf_sink_ && !printed.empty()) std::fputs(printed.c_str(), printf_sink_);
    throw RuntimeError(error_for(f.kind), f.what(), printed);
  } catch (const BackendError&) {
    const std::string printed = drain_printf();
    if (printf_sink_ && !printed.empty()) std::fputs(printed.c_str(), printf_sink_);
    throw;
  }
  result.printf_output = drain_printf();
  if (printf_sink_ && !result.printf_output.empty()) std::fputs(result.printf_output.c_str(), printf_sink_);
  return result;
}

std::string Runtime::drain_printf() {
  std::vector<uint8_t> header(kPrintfHeaderBytes);
  backend_->read(printf_buffer_, header);
  uint32_t used = 0;
  std::memcpy(&used, header.data(), 4);
  if (used <= kPrintfHeaderBytes) return "";
  const uint32_t valid = std::min(used, printf_bytes_);
  std::vector<uint8_t> buf(valid);
  backend_->read(printf_buffer_, buf);
  std::string out = format_printf_buffer(buf, [this](DevicePtr addr, size_t max) {
    std::string s;
    for (size_t i = 0; i < max; ++i) {
      uint8_t c = 0;
      backend_->read(addr + static_cast<uint32_t>(i), std::span(&c, 1));
      if (c == 0) break;
      s.push_back(static_cast<char>(c));
    }
    return s;
  });
  if (used > printf_bytes_)
    out += fmt::format("[printf buffer overflow: {} bytes of output were lost]\n", used - printf_bytes_);
  put32(header, 0, kPrintfHeaderBytes);
  backend_->write(printf_buffer_, std::span(header.data(), 4));
  return out;
}

}  // namespace tsm
