// Picks the Verilated GPU model (RTL, netlist, mutant or untraced) of a configuration, builds it
// when ./tsm asked for builds on first use, loads its library and builds the runtime's "rtl"
// backend on it (docs/runtime.md §6).
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "model_table.hpp"
#include "rtl_model/model_abi.hpp"
#include "rtl_model/models.hpp"

namespace tsm::rtl {

namespace {

const models::ModelEntry& find_entry(const std::string& config, ModelKind kind) {
  for (const auto& m : models::kModels)
    if (m.kind == kind && config == m.config) return m;
  throw std::invalid_argument(fmt::format("configuration '{}' has no {} model in this build ({} models: {})", config,
                                          model_kind_name(kind), model_kind_name(kind),
                                          fmt::join(rtl_model_configs(kind), ", ")));
}

std::string describe(const models::ModelEntry& m) {
  return fmt::format("the {} model of {}", model_kind_name(m.kind), m.config);
}

bool exists(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0;
}

/// Single quotes for /bin/sh.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The library's path: TSM_MODEL_DIR/NAME.so when TSM_MODEL_DIR is set (models of another build
/// tree, never built from here), else the build's own.
std::string library_of(const models::ModelEntry& m) {
  const char* dir = std::getenv("TSM_MODEL_DIR");
  if (dir == nullptr || *dir == '\0') return m.library;
  return fmt::format("{}/{}.so", dir, m.target);
}

std::mutex g_mutex;
std::map<std::string, bool> g_ensured;     // by target: built (or found) in this process
std::map<std::string, void*> g_libraries;  // by library path: dlopen handles, never closed

void ensure_locked(const models::ModelEntry& m) {
  if (g_ensured.count(m.target)) return;
  const char* command = std::getenv("TSM_BUILD_COMMAND");
  const char* model_dir = std::getenv("TSM_MODEL_DIR");
  const std::string library = library_of(m);
  if (command != nullptr && *command != '\0' && (model_dir == nullptr || *model_dir == '\0')) {
    if (!exists(m.library))
      fmt::print(stderr, "tsm: {} is not built yet: building it now (a few minutes on 2 cores; once)\n", describe(m));
    std::fflush(stdout);
    const std::string line = fmt::format("{} --target {} --what {}", command, m.target, shell_quote(describe(m)));
    const int status = std::system(line.c_str());
    if (status != 0)
      throw std::runtime_error(fmt::format("building {} failed (target {}; the build log is in {})", describe(m),
                                           m.target, models::kBuildDir));
  } else if (!exists(library.c_str())) {
    throw std::runtime_error(fmt::format(
        "{} is not built ({} is missing): ./tsm builds it on first use, or build it with: cmake --build {} --target {}",
        describe(m), library, models::kBuildDir, m.target));
  }
  g_ensured[m.target] = true;
}

}  // namespace

const char* model_kind_name(ModelKind kind) {
  switch (kind) {
    case ModelKind::Netlist: return "netlist";
    case ModelKind::Mutant: return "mutant";
    case ModelKind::Untraced: return "untraced RTL";
    default: return "RTL";
  }
}

std::vector<std::string> rtl_model_configs(ModelKind kind) {
  std::vector<std::string> names;
  for (const auto& m : models::kModels)
    if (m.kind == kind) names.emplace_back(m.config);
  return names;
}

const char* model_kind_option(ModelKind kind) {
  switch (kind) {
    case ModelKind::Netlist: return "netlist";
    case ModelKind::Mutant: return "mutant";
    case ModelKind::Untraced: return "untraced";
    default: return "rtl";
  }
}

std::vector<ModelInfo> rtl_models() {
  std::vector<ModelInfo> all;
  for (const auto& m : models::kModels) all.push_back({m.config, m.kind, m.target, library_of(m), exists(library_of(m).c_str())});
  return all;
}

bool rtl_model_built(const std::string& config, ModelKind kind) {
  for (const auto& m : models::kModels)
    if (m.kind == kind && config == m.config) return exists(library_of(m).c_str());
  return false;
}

void ensure_gpu_model(const std::string& config, ModelKind kind) {
  const models::ModelEntry& m = find_entry(config, kind);
  std::lock_guard<std::mutex> lock(g_mutex);
  ensure_locked(m);
}

std::unique_ptr<GpuPins> make_gpu_model(const std::string& config, const std::vector<std::string>& verilator_args,
                                        ModelKind kind) {
  const models::ModelEntry& m = find_entry(config, kind);
  const config::SmConfig* c = config::find_config(config);
  if (c == nullptr) throw std::invalid_argument(fmt::format("unknown configuration '{}'", config));
  models::CreateModel create = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ensure_locked(m);
    const std::string library = library_of(m);
    void*& handle = g_libraries[library];
    if (handle == nullptr) {
      handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr)
        throw std::runtime_error(fmt::format("cannot load {} from {}: {}", describe(m), library, ::dlerror()));
    }
    auto abi = reinterpret_cast<models::ModelAbi>(::dlsym(handle, "tsm_model_abi"));
    create = reinterpret_cast<models::CreateModel>(::dlsym(handle, "tsm_model_create"));
    if (abi == nullptr || create == nullptr)
      throw std::runtime_error(fmt::format("{} is not a model library (no tsm_model_create): rebuild it", library));
    if (abi() != models::kModelAbi)
      throw std::runtime_error(fmt::format("{} was built for another version of the harness (interface {}, this "
                                           "program has {}): rebuild it (cmake --build {} --target {})",
                                           library, abi(), models::kModelAbi, models::kBuildDir, m.target));
  }
  // The netlist is of the GPU top with one SM (rtl/CMakeLists.txt); the RTL has the configuration's.
  const unsigned sms = kind == ModelKind::Netlist ? 1 : c->num_sms;
  const models::ModelRequest request{GpuGeometry::of(sms, c->sp_lanes, c->max_warps), &verilator_args};
  return std::unique_ptr<GpuPins>(create(&request));
}

std::unique_ptr<Backend> make_rtl_backend(const config::SmConfig& config, const RtlOptions& options,
                                          const std::vector<std::string>& verilator_args, ModelKind kind) {
  return std::make_unique<RtlBackend>(config, make_gpu_model(config.name, verilator_args, kind), options);
}

}  // namespace tsm::rtl
