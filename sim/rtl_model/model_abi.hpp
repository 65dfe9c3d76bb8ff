// What a model library (model.cpp.in) and the factory that loads it (factory.cpp) agree on: the
// request the factory passes to tsm_model_create, and a version number that changes with it or
// with GpuPins, so that a library built against another harness is refused, not called.
#pragma once

#include <string>
#include <vector>

#include "rtl/gpu_pins.hpp"

namespace tsm::rtl::models {

/// Raise when ModelRequest, GpuGeometry or the GpuPins interface changes.
inline constexpr unsigned kModelAbi = 1;

struct ModelRequest {
  GpuGeometry geometry;                            // the top's commit-port widths and SM count
  const std::vector<std::string>* verilator_args;  // to VerilatedContext::commandArgs
};

/// tsm_model_create: a new model the caller owns (delete through GpuPins' virtual destructor).
using CreateModel = GpuPins* (*)(const ModelRequest*);
/// tsm_model_abi: the library's kModelAbi.
using ModelAbi = unsigned (*)();

}  // namespace tsm::rtl::models
