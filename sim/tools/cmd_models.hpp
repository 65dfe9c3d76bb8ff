// The `models` subcommand of tsm-tool: the Verilated GPU models this build can make, which are
// built, and building them ahead of use.
#pragma once

#include <CLI/CLI.hpp>

/// Registers `models [--build CONFIG[:KIND]]...` on `app`.
void add_models_command(CLI::App& app);
