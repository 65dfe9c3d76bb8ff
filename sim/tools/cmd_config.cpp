// tsm-tool's `configs` (list or show the named SM configurations) and `occupancy` subcommands.
#include "cmd_config.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli_args.hpp"
#include "config/occupancy.hpp"
#include "tsm/config_gen.hpp"

namespace {

using tsm::tools::fail;
using tsm::tools::read_text;

using tsm::config::SmConfig;

// Reports a user error the way every tsm-tool command does and ends the command with exit code 1
// (CLI11 prints nothing more for a RuntimeError).
const SmConfig& config_named(const std::string& name) {
  if (const SmConfig* config = tsm::config::find_config(name)) return *config;
  std::string known;
  for (const SmConfig& config : tsm::config::kAllConfigs) {
    known += known.empty() ? config.name : fmt::format(", {}", config.name);
  }
  fail(fmt::format("unknown configuration '{}' (known: {})", name, known));
}

tsm::Dim3 dim3_option(std::string_view option, const std::string& text) {
  if (auto dim = tsm::tools::parse_dim3(text)) return *dim;
  fail(fmt::format("{} '{}': expected X[,Y[,Z]] with unsigned integers", option, text));
}

void list_configs() {
  // The parameters that tell configurations apart at a glance; `configs NAME` shows all of them.
  struct Column {
    const char* title;
    std::uint32_t SmConfig::*field;
  };
  static constexpr Column kColumns[] = {
      {"SPs", &SmConfig::sp_lanes},        {"SFUs", &SmConfig::sfu_units},
      {"DP", &SmConfig::dp_units},         {"warps", &SmConfig::max_warps},
      {"blocks", &SmConfig::max_blocks},   {"threads/blk", &SmConfig::max_threads_per_block},
      {"registers", &SmConfig::registers}, {"shared", &SmConfig::shared_bytes},
      {"banks", &SmConfig::shared_banks},  {"SMs", &SmConfig::num_sms},
  };
  std::size_t name_width = 4;
  std::vector<std::size_t> widths;
  for (const Column& column : kColumns) widths.push_back(std::string_view(column.title).size());
  for (const SmConfig& config : tsm::config::kAllConfigs) {
    name_width = std::max(name_width, std::string_view(config.name).size());
    for (std::size_t i = 0; i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], fmt::formatted_size("{}", config.*kColumns[i].field));
    }
  }
  std::string header = fmt::format("{:<{}}", "name", name_width);
  for (std::size_t i = 0; i < widths.size(); ++i) header += fmt::format("  {:>{}}", kColumns[i].title, widths[i]);
  fmt::print("{}  description\n", header);
  for (const SmConfig& config : tsm::config::kAllConfigs) {
    std::string row = fmt::format("{:<{}}", config.name, name_width);
    for (std::size_t i = 0; i < widths.size(); ++i) {
      row += fmt::format("  {:>{}}", config.*kColumns[i].field, widths[i]);
    }
    fmt::print("{}  {}\n", row, config.description);
  }
  fmt::print("\nEvery parameter of one configuration: configs NAME\n");
}

void show_config(const SmConfig& config) {
  fmt::print("{}: {}\n\n", config.name, config.description);
  std::size_t name_width = 0;
  for (const auto& parameter : tsm::config::kParameters) name_width = std::max(name_width, parameter.name.size());
  for (const auto& parameter : tsm::config::kParameters) {
    fmt::print("  {:<{}}  {:>6}  {} (allowed: {})\n", parameter.name, name_width, config.*parameter.field,
               parameter.doc, parameter.allowed);
  }
}

struct OccupancyOptions {
  std::string config;
  std::string block;
  std::string grid;
  std::uint32_t regs = 0;
  std::uint32_t shared = 0;
};

void print_occupancy(const OccupancyOptions& options) {
  const SmConfig& config = config_named(options.config);
  const tsm::Dim3 block = dim3_option("--block", options.block);
  const std::optional<tsm::Dim3> grid =
      options.grid.empty() ? std::nullopt : std::optional(dim3_option("--grid", options.grid));
  const tsm::KernelResources resources{options.regs, options.shared};
  tsm::Occupancy occ;
  try {
    occ = tsm::compute_occupancy(config, block, resources);
    if (grid) tsm::check_grid(config, *grid);
  } catch (const tsm::LaunchConfigError& e) {
    fail(e.what());
  }
  fmt::print("config {}, block {}: {} threads = {} warps, {} registers/thread, {} bytes shared\n", config.name,
             tsm::to_string(block), occ.threads_per_block, occ.warps_per_block, resources.regs_per_thread,
             resources.shared_bytes);
  fmt::print("per block: {} registers, {} bytes shared (as allocated)\n", occ.regs_per_block, occ.shared_per_block);
  fmt::print("{}", occ.explanation);
  if (grid) {
    const std::uint64_t resident = std::uint64_t{occ.blocks_per_sm} * config.num_sms;
    fmt::print("grid {}: {} blocks over {} SM(s) x {} resident = {} wave(s)\n", tsm::to_string(*grid), grid->count(),
               config.num_sms, occ.blocks_per_sm, (grid->count() + resident - 1) / resident);
  }
}

}  // namespace

void add_config_commands(CLI::App& app) {
  auto configs_name = std::make_shared<std::string>();
  CLI::App* configs = app.add_subcommand("configs", "List the named SM configurations, or show every parameter of one");
  configs->add_option("name", *configs_name, "Configuration to show (default: list all)");
  configs->callback([configs_name] {
    if (configs_name->empty()) {
      list_configs();
    } else {
      show_config(config_named(*configs_name));
    }
  });

  auto options = std::make_shared<OccupancyOptions>();
  CLI::App* occupancy = app.add_subcommand(
      "occupancy", "Resident blocks per SM for a launch shape, and which resource limits them");
  occupancy->add_option("--config", options->config, "Configuration name (see: configs)")->required();
  occupancy->add_option("--block", options->block, "Block shape X[,Y[,Z]]")->required();
  occupancy->add_option("--regs", options->regs, "Registers per thread (default 0: not counted)");
  occupancy->add_option("--shared", options->shared, "Shared memory per block in bytes, static + dynamic");
  occupancy->add_option("--grid", options->grid, "Grid shape X[,Y[,Z]]: also check it and count the waves");
  occupancy->callback([options] { print_occupancy(*options); });
}
