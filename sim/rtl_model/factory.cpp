// Picks the Verilated GPU model (RTL or netlist) of a configuration and builds the runtime's "rtl"
// backend on it.
#include <stdexcept>

#include <fmt/format.h>

#include "model_table.hpp"
#include "rtl_model/models.hpp"

namespace tsm::rtl {

namespace {

const std::vector<std::pair<std::string, models::MakeModel>>& table_of(ModelKind kind) {
  switch (kind) {
    case ModelKind::Netlist: return models::netlist_table();
    case ModelKind::Mutant: return models::mutant_table();
    case ModelKind::Untraced: return models::untraced_table();
    default: return models::model_table();
  }
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
  for (const auto& [name, make] : table_of(kind)) names.push_back(name);
  return names;
}

std::unique_ptr<GpuPins> make_gpu_model(const std::string& config, const std::vector<std::string>& verilator_args,
                                        ModelKind kind) {
  for (const auto& [name, make] : table_of(kind))
    if (name == config) return make(verilator_args);
  throw std::invalid_argument(fmt::format("configuration '{}' has no {} model in this build ({} models: {})", config,
                                          model_kind_name(kind), model_kind_name(kind),
                                          fmt::join(rtl_model_configs(kind), ", ")));
}

std::unique_ptr<Backend> make_rtl_backend(const config::SmConfig& config, const RtlOptions& options,
                                          const std::vector<std::string>& verilator_args, ModelKind kind) {
  return std::make_unique<RtlBackend>(config, make_gpu_model(config.name, verilator_args, kind), options);
}

}  // namespace tsm::rtl
