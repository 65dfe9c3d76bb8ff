// Shared pieces of the host programs: runtime construction, kernel loading, reporting.
#include "host.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "isa/assembler.hpp"

namespace tsm::firmware {

bool run_saxpy(Runtime& rt, const HostOptions& o);
bool run_reduce(Runtime& rt, const HostOptions& o);
bool run_diverge(Runtime& rt, const HostOptions& o);

const std::vector<HostProgram>& host_programs() {
  static const std::vector<HostProgram> programs{
      {"saxpy", "y = a*x + y over n floats, one thread per element (FFMA, 64-bit addressing)", run_saxpy},
      {"reduce", "sum of n integers: shared-memory tree with barriers, one atomic add per block", run_reduce},
      {"diverge", "nested divergent branches, data-dependent loops with break, early exits", run_diverge},
  };
  return programs;
}

std::unique_ptr<Runtime> make_runtime(const HostOptions& o) {
  const config::SmConfig* cfg = config::find_config(o.config);
  if (!cfg) throw RuntimeError(ErrorCode::InvalidValue, fmt::format("unknown configuration '{}' (see: ./tsm configs)", o.config));
  if (o.backend != "golden")
    throw RuntimeError(ErrorCode::InvalidValue,
                       fmt::format("backend '{}' is not available yet; this build has: golden", o.backend));
  return std::make_unique<Runtime>(*cfg, make_golden_backend());
}

Runtime::ModuleId load_kernel(Runtime& rt, const HostOptions& o, const std::string& name) {
  const std::string path = fmt::format("{}/asm/{}.tsa", o.firmware_dir, name);
  std::ifstream f(path);
  if (!f) throw RuntimeError(ErrorCode::InvalidKernelImage, fmt::format("cannot open {}", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return rt.load_module(assemble(ss.str(), path));
}

void print_launch(const std::string& what, Dim3 grid, Dim3 block, const LaunchResult& r) {
  fmt::print("{}: grid {} x block {}, {} blocks ({} per SM), {} warp instructions, {} thread instructions\n", what,
             to_string(grid), to_string(block), r.stats.blocks, r.stats.blocks_per_sm, r.stats.warp_instructions,
             r.stats.thread_instructions);
}

}  // namespace tsm::firmware
