// The `bench` subcommand of tsm-tool: simulation speed of the golden model and the RTL, and the
// modelled hardware's counters (IPC, unit busy, stalls), on a fixed set of suite kernels.
#pragma once

#include <CLI/CLI.hpp>

void add_bench_command(CLI::App& app);
