// tsm-tool: the command-line front end behind ./tsm (assembler, disassembler, ISA and configurations).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cmd_bench.hpp"
#include "cmd_compile.hpp"
#include "cmd_config.hpp"
#include "cmd_isa.hpp"
#include "cmd_launch.hpp"
#include "cmd_models.hpp"
#include "cmd_random.hpp"

int main(int argc, char** argv) {
  CLI::App app{"TeslaSM tools: assembler, disassembler, ISA reference, configurations, occupancy, kernel launches", "tsm"};
  app.require_subcommand(1);
  add_isa_commands(app);
  add_config_commands(app);
  add_launch_commands(app);
  add_compile_command(app);
  add_random_command(app);
  add_bench_command(app);
  add_models_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
