// The `compile` subcommand of tsm-tool.
#pragma once

#include <CLI/CLI.hpp>

/// Registers `compile FILE.cu|FILE.ptx [-o OUT.tsb] [--frontend ...] [--maxrregcount N] [--stats]`.
void add_compile_command(CLI::App& app);
