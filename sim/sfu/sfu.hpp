// SFU golden model: MUFU transcendental approximations, bit-exact with the RTL datapath (docs/sfu.md).
#pragma once

#include <cstdint>

#include "tsm/isa_gen.hpp"

namespace tsm::sfu {

using isa::gen::Mufu;

/// MUFU `func` of the binary32 value with bits `x`; returns the result's bits. The result is
/// the SFU's table-based quadratic interpolation, computed in the same integer arithmetic as the
/// hardware (products truncated as it truncates them), so it is the value the RTL must produce.
/// `ftz` flushes subnormal inputs and results to zero of the same sign. Every NaN result is the
/// canonical NaN 0x7FFFFFFF.
uint32_t evaluate(Mufu func, uint32_t x, bool ftz);

}  // namespace tsm::sfu
