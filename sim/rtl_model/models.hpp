// The Verilated GPU tops of this build (RTL and Yosys netlists) and the runtime's "rtl" and
// "netlist" backends over them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rtl/gpu_driver.hpp"
#include "rtl/gpu_pins.hpp"
#include "runtime/runtime.hpp"
#include "tsm/config_gen.hpp"

namespace tsm::rtl {

/// Which model of a configuration's GPU top: the Verilated RTL (the configuration's NumSms SMs), the
/// Verilated Yosys netlist of it with one SM (docs/sm-rtl.md §2.11), or the RTL with the deliberate
/// bugs of rtl/mutants/ compiled in, switched on by +tsm+mutant=N (docs/regression.md §3).
/// Untraced: the RTL built without the FST writer (g80), which ./tsm bench compares with the traced
/// one.
enum class ModelKind { Rtl, Netlist, Mutant, Untraced };

/// "RTL", "netlist", "mutant" or "untraced RTL".
const char* model_kind_name(ModelKind kind);

/// Configurations that have a Verilated model of `kind` in this build, built yet or not.
std::vector<std::string> rtl_model_configs(ModelKind kind = ModelKind::Rtl);

/// One model this build can make: its configuration and kind, the CMake target that builds it,
/// its library, and whether that library exists now.
struct ModelInfo {
  std::string config;
  ModelKind kind;
  std::string target;
  std::string library;
  bool built;
};
std::vector<ModelInfo> rtl_models();

/// "rtl", "netlist", "mutant" or "untraced": the kind's name on tsm-tool's command lines.
const char* model_kind_option(ModelKind kind);

/// Whether the model library of `config` and `kind` has been built (tests skip what is not).
bool rtl_model_built(const std::string& config, ModelKind kind = ModelKind::Rtl);

/// Makes sure the model of `config` and `kind` is built and current: under ./tsm (which sets
/// TSM_BUILD_COMMAND) it builds the model's target, with progress, when it is missing or out of
/// date; otherwise a missing model is an error naming the command that builds it. Throws
/// std::invalid_argument for a configuration without such a model, std::runtime_error when the
/// build fails.
void ensure_gpu_model(const std::string& config, ModelKind kind = ModelKind::Rtl);

/// A fresh GPU model of configuration `config`, loaded from its library (built first as
/// ensure_gpu_model says). `verilator_args` go to the model's context, e.g.
/// "+verilator+rand+reset+2". Throws std::invalid_argument naming the configurations that have a
/// model of that kind, std::runtime_error when the library is missing or cannot be loaded.
std::unique_ptr<GpuPins> make_gpu_model(const std::string& config, const std::vector<std::string>& verilator_args = {},
                                        ModelKind kind = ModelKind::Rtl);

/// The runtime's "rtl" backend for `config` over the model of `kind`, with `options` (lockstep,
/// memory timing, active SMs).
std::unique_ptr<Backend> make_rtl_backend(const config::SmConfig& config, const RtlOptions& options = {},
                                          const std::vector<std::string>& verilator_args = {},
                                          ModelKind kind = ModelKind::Rtl);

}  // namespace tsm::rtl
