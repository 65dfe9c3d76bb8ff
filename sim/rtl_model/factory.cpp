// Picks the Verilated GPU model of a configuration and builds the runtime's "rtl" backend on it.
#include <stdexcept>

#include <fmt/format.h>

#include "model_table.hpp"
#include "rtl_model/models.hpp"

namespace tsm::rtl {

std::vector<std::string> rtl_model_configs() {
  std::vector<std::string> names;
  for (const auto& [name, make] : models::model_table()) names.push_back(name);
  return names;
}

std::unique_ptr<GpuPins> make_gpu_model(const std::string& config, const std::vector<std::string>& verilator_args) {
  for (const auto& [name, make] : models::model_table())
    if (name == config) return make(verilator_args);
  throw std::invalid_argument(fmt::format("configuration '{}' has no RTL model in this build (models: {})", config,
                                          fmt::join(rtl_model_configs(), ", ")));
}

std::unique_ptr<Backend> make_rtl_backend(const config::SmConfig& config, const RtlOptions& options,
                                          const std::vector<std::string>& verilator_args) {
  return std::make_unique<RtlBackend>(config, make_gpu_model(config.name, verilator_args), options);
}

}  // namespace tsm::rtl
