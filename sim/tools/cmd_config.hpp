// The `configs` and `occupancy` subcommands of tsm-tool.
#pragma once

#include <CLI/CLI.hpp>

/// Registers `configs [NAME]` and `occupancy --config NAME --block X[,Y[,Z]] ...` on `app`.
/// An unknown name or a refused launch prints "error: ..." to stderr and throws CLI::RuntimeError(1).
void add_config_commands(CLI::App& app);
