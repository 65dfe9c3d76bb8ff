// libFuzzer target: tsm-tool launch's command line (docs/fuzzing.md). The input is the argument
// list, one argument per line; it goes through the same CLI11 declaration and decoding as
// `tsm-tool launch`, and a decoded launch shape through the configuration's launch checks. Bad
// input ends in a CLI11 parse error, a LaunchArgError or a LaunchConfigError; nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/occupancy.hpp"
#include "launch_args.hpp"
#include "tsm/config_gen.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> argv;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  while (!text.empty() && argv.size() < 64) {
    const size_t nl = text.find('\n');
    argv.emplace_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  CLI::App app{"fuzz", "tsm-tool launch"};
  tsm::tools::LaunchOptions o;
  tsm::tools::declare_launch_options(app, o, "backend");
  try {
    std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 takes them last first
    app.parse(reversed);
  } catch (const CLI::ParseError&) {
    return 0;
  }
  try {
    const tsm::tools::LaunchPlan plan = tsm::tools::parse_launch(o);
    const tsm::config::SmConfig* cfg = tsm::config::find_config(o.config);
    if (!cfg) return 0;
    tsm::check_grid(*cfg, plan.grid);
    (void)tsm::compute_occupancy(*cfg, plan.block, tsm::KernelResources{1, o.shared});
  } catch (const tsm::tools::LaunchArgError&) {
  } catch (const tsm::LaunchConfigError&) {
  }
  return 0;
}
