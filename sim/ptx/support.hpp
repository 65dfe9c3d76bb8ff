// The translator's table of supported PTX instructions: lowering refuses anything not listed, and
// docs/ptx-support.md is generated from it (tsm-tool ptx-support).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tsm::ptx {

struct SupportEntry {
  const char* opcode;
  const char* types;      // PTX types accepted
  const char* modifiers;  // modifiers honoured
  const char* lowering;   // the native instructions it becomes
  const char* limits;     // what is not supported yet ("" if nothing)
};

const std::vector<SupportEntry>& support_table();
const SupportEntry* find_support(std::string_view opcode);

/// docs/ptx-support.md, generated from the table.
std::string support_markdown();

}  // namespace tsm::ptx
