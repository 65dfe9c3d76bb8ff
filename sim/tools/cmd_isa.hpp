// The `asm`, `disasm` and `isa` subcommands of tsm-tool.
#pragma once

#include <CLI/CLI.hpp>

/// Registers `asm`, `disasm` and `isa` on `app`. Errors print "error: ..." (assembler errors as
/// file:line:col with the offending line) and throw CLI::RuntimeError(1).
void add_isa_commands(CLI::App& app);
