// The `launch` and `run` subcommands of tsm-tool.
#pragma once

#include <CLI/CLI.hpp>

/// Registers `launch KERNEL_FILE ...` and `run PROGRAM ...` on `app`. Errors (a fault included)
/// print "error: ..." and throw CLI::RuntimeError(1).
void add_launch_commands(CLI::App& app);
