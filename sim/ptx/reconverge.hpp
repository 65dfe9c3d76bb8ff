// Reconvergence for the translator: PBK/BRK around loops, SSY/SYNC around divergent branches.
#pragma once

#include <string>
#include <vector>

#include "ptx/mir.hpp"

namespace tsm::ptx {

/// Control-flow successors of a block (Break and Sync blocks lead to their `taken` block).
std::vector<int> successors(const MFunction& f, int block);

/// How many natural loops contain each block (0 outside every loop).
std::vector<int> loop_depths(const MFunction& f);

/// Insert the reconvergence instructions (docs/translator.md §4). Throws PtxError for control
/// flow it cannot handle yet.
void reconverge(MFunction& f, const std::string& file);

}  // namespace tsm::ptx
