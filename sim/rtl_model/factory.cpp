// Picks the Verilated GPU model of a configuration and builds the runtime's "rtl" backend on it.
#include <stdexcept>

#include <fmt/format.h>

#include "rtl_model/models.hpp"

namespace tsm::rtl {

std::vector<std::string> rtl_model_configs() { return {"small", "g80"}; }

std::unique_ptr<GpuPins> make_gpu_model(const std::string& config, const std::vector<std::string>& verilator_args) {
  if (config == "small") return models::make_small(verilator_args);
  if (config == "g80") return models::make_g80(verilator_args);
  throw std::invalid_argument(fmt::format("configuration '{}' has no RTL model in this build (models: {})", config,
                                          fmt::join(rtl_model_configs(), ", ")));
}

std::unique_ptr<Backend> make_rtl_backend(const config::SmConfig& config, const RtlOptions& options,
                                          const std::vector<std::string>& verilator_args) {
  return std::make_unique<RtlBackend>(config, make_gpu_model(config.name, verilator_args), options);
}

}  // namespace tsm::rtl
