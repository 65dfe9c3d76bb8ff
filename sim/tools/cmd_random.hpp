// The `random` subcommand of tsm-tool: differential runs of constrained-random kernels.
#pragma once

#include <CLI/CLI.hpp>

/// Registers `random --seed S --count N [--config C] [--backend golden|rtl] [--keep DIR] [--no-lockstep]
/// [--exclude FEATURES] [--kernel-file F]`: each seed's kernel (sim/randgen) runs on the golden model and
/// on the backend, and every buffer must match byte for byte. Prints a line per seed and a summary;
/// any fault, lockstep mismatch or difference throws CLI::RuntimeError(1) at the end.
void add_random_command(CLI::App& app);
