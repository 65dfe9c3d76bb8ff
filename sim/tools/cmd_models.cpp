// tsm-tool's `models` subcommand: lists the RTL, netlist, mutant and untraced models of this build
// with their state, and builds the ones named by --build (under ./tsm; docs/runtime.md §6).
#include "cmd_models.hpp"

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_args.hpp"
#include "rtl_model/models.hpp"

namespace {

using tsm::rtl::ModelKind;

struct ModelsCmd {
  std::vector<std::string> build;
};

// CONFIG[:KIND] -> (config, kind); KIND is rtl (the default), netlist, mutant or untraced.
std::pair<std::string, ModelKind> parse_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string config = spec.substr(0, colon);
  const std::string kind = colon == std::string::npos ? "rtl" : spec.substr(colon + 1);
  for (ModelKind k : {ModelKind::Rtl, ModelKind::Netlist, ModelKind::Mutant, ModelKind::Untraced})
    if (kind == tsm::rtl::model_kind_option(k)) return {config, k};
  tsm::tools::fail(fmt::format("--build '{}': the kind '{}' is not one of rtl, netlist, mutant, untraced", spec, kind));
}

void run_models(const ModelsCmd& o) {
  if (!o.build.empty()) {
    for (const auto& spec : o.build) {
      const auto [config, kind] = parse_spec(spec);
      try {
        tsm::rtl::ensure_gpu_model(config, kind);
      } catch (const std::exception& e) {
        tsm::tools::fail(e.what());
      }
    }
    return;
  }
  fmt::print("{:<9} {:<9} {:<6} {}\n", "config", "kind", "built", "library (CMake target)");
  for (const auto& m : tsm::rtl::rtl_models())
    fmt::print("{:<9} {:<9} {:<6} {} ({})\n", m.config, tsm::rtl::model_kind_option(m.kind), m.built ? "yes" : "no",
               m.library, m.target);
}

}  // namespace

void add_models_command(CLI::App& app) {
  auto o = std::make_shared<ModelsCmd>();
  CLI::App* cmd = app.add_subcommand(
      "models", "List the Verilated GPU models (RTL, netlist, mutant, untraced) of this build and which are built; "
                "under ./tsm, a command builds the model it needs on first use");
  cmd->add_option("--build", o->build,
                  "Build (or check) the model CONFIG[:KIND], KIND one of rtl (default), netlist, mutant, untraced; "
                  "repeatable. Under ./tsm it is built when missing or out of date, otherwise a missing one is an error")
      ->type_name("CONFIG[:KIND]");
  cmd->callback([o] { run_models(*o); });
}
