// Call inlining: every call of a `.func` defined in the module is replaced by a renamed copy of
// the callee's body (docs/translator.md, "Device functions"). Calls of vprintf and __assertfail
// stay calls; the lowering turns them into native sequences.
#pragma once

#include "ptx/ast.hpp"

namespace tsm::ptx {

/// `entry` with every call to a defined device function inlined, recursively. Callee registers,
/// local variables and labels get a per-call-site suffix; the callee's formal parameters and return
/// values become the caller's argument and return `.param` variables; `ret` becomes a branch to
/// the end of the inlined body. Throws PtxError for recursion, indirect calls, calls of functions
/// that are declared but not defined, and argument lists that do not match the callee.
Function inline_calls(const Module& mod, const Function& entry);

/// Calls the lowering implements itself rather than inlining.
bool is_builtin_call(const std::string& callee);

}  // namespace tsm::ptx
