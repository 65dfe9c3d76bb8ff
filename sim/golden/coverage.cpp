// Coverage counts of one process (coverage.hpp), written as JSON at exit.
#include "golden/coverage.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "golden/fault.hpp"
#include "isa/isa.hpp"

namespace tsm::golden {

namespace {

const char* coverage_dir() {
  static const char* dir = std::getenv("TSM_COVERAGE_DIR");
  return dir && *dir ? dir : nullptr;
}

void write_coverage() {
  const Coverage& c = coverage();
  nlohmann::json j;
  j["forms"] = c.forms;
  j["stack_depth"] = c.stack_depth;
  j["bank_degree"] = c.bank_degree;
  // Every kind, raised or not, so that the report can name the kinds never raised.
  std::map<std::string, uint64_t> faults = c.faults;
  for (int k = 0; k < kFaultKindCount; ++k) faults.try_emplace(to_string(static_cast<FaultKind>(k)), 0);
  j["faults"] = faults;
  j["stalls"] = c.stalls;
  std::error_code ec;
  std::filesystem::create_directories(coverage_dir(), ec);
  std::ofstream f(std::filesystem::path(coverage_dir()) / ("coverage-" + std::to_string(::getpid()) + ".json"));
  f << j.dump() << "\n";
}

}  // namespace

bool coverage_enabled() { return coverage_dir() != nullptr; }

Coverage& coverage() {
  static Coverage* c = [] {
    auto* p = new Coverage;  // never destroyed: the atexit writer may run after static destructors
    if (coverage_enabled()) std::atexit(write_coverage);
    return p;
  }();
  return *c;
}

std::string instruction_form(uint64_t word) {
  std::string text = isa::disassemble(word);
  if (!text.empty() && text[0] == '@') text = text.substr(text.find(' ') + 1);
  return text.substr(0, text.find(' '));
}

}  // namespace tsm::golden
