// What the tests reached (docs/coverage.md): instruction forms, reconvergence-stack depths,
// shared-memory bank-conflict degrees, fault kinds and the RTL's stall reasons, gathered by the golden
// model (which executes every instruction the RTL retires in lockstep) and the RTL backend. Off unless
// TSM_COVERAGE_DIR names a directory; then the process writes its counts there as JSON at exit, and
// `./tsm regress --coverage` merges the files of all its cases.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace tsm::golden {

struct Coverage {
  std::map<std::string, uint64_t> forms;   // warp instructions by form: mnemonic and suffixes, e.g. FFMA.RM.FTZ
  std::array<uint64_t, 33> stack_depth{};  // warp instructions by reconvergence-stack entries when they issued
  std::array<uint64_t, 17> bank_degree{};  // shared-memory half-warp accesses by bank-conflict degree (1: none)
  std::map<std::string, uint64_t> faults;  // faults by kind
  std::map<std::string, uint64_t> stalls;  // RTL stall SM-clocks by reason (scoreboard, barrier, fetch)
};

/// True when TSM_COVERAGE_DIR is set (read once).
bool coverage_enabled();
/// The process's counts; written to TSM_COVERAGE_DIR/coverage-PID.json at exit.
Coverage& coverage();
/// The form of an instruction word: its disassembly's mnemonic with suffixes, without guard or operands.
std::string instruction_form(uint64_t word);

}  // namespace tsm::golden
