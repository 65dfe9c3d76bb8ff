// Builds machine-IR instructions from native assembly templates with virtual-register placeholders.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ptx/mir.hpp"

namespace tsm::ptx {

/// Encode `tmpl` (native assembly; `%N` names regs[N], `%Nh` its second register, `%N.2`/`%N.3`
/// the third/fourth of a quad, `%pN` names preds[N]) and bind the register fields to those
/// virtual registers. Throws AsmError for a malformed template (a translator bug).
MInst build_inst(std::string_view tmpl, std::span<const uint32_t> regs, std::span<const uint32_t> preds, Loc loc);

}  // namespace tsm::ptx
