// The Verilated GPU tops of this build and the runtime's "rtl" backend over them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rtl/gpu_driver.hpp"
#include "rtl/gpu_pins.hpp"
#include "runtime/runtime.hpp"
#include "tsm/config_gen.hpp"

namespace tsm::rtl {

/// Configurations that have a Verilated model in this build.
std::vector<std::string> rtl_model_configs();

/// A fresh GPU model of configuration `config` (the configuration's NumSms SMs). `verilator_args`
/// go to the model's context, e.g. "+verilator+rand+reset+2". Throws std::invalid_argument naming
/// the configurations that have a model.
std::unique_ptr<GpuPins> make_gpu_model(const std::string& config, const std::vector<std::string>& verilator_args = {});

/// The runtime's "rtl" backend for `config`, with `options` (lockstep, memory timing, active SMs).
std::unique_ptr<Backend> make_rtl_backend(const config::SmConfig& config, const RtlOptions& options = {},
                                          const std::vector<std::string>& verilator_args = {});

}  // namespace tsm::rtl
