// CUDA/PTX file -> native module: picks the front end for .cu files, parses, translates.
#include "ptx/compile.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace tsm::ptx {

Compiled compile_file(const std::string& path, const CompileOptions& options) {
  Compiled out;
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".ptx") {
    std::ifstream f(path);
    if (!f) throw PtxError(path, Loc{}, "cannot open the file");
    std::stringstream ss;
    ss << f.rdbuf();
    out.ptx = ss.str();
    out.frontend = "ptx";
  } else if (ext == ".cu") {
    compiler::FrontendOptions fo;
    fo.frontend = options.frontend;
    compiler::PtxOutput p = compiler::cuda_to_ptx(path, fo);
    out.ptx = std::move(p.ptx);
    out.frontend = compiler::to_string(p.used);
  } else {
    throw PtxError(path, Loc{}, fmt::format("expected a .cu or .ptx file, got '{}'", ext));
  }
  // Errors in PTX generated from a .cu file name the PTX file the front end wrote; name the
  // source too, since that is what the user has.
  const std::string ptx_name = ext == ".ptx" ? path : path + " (generated PTX)";
  TranslateOptions to;
  to.max_registers = options.max_registers;
  to.config = options.config;
  to.max_predicates = options.max_predicates;
  TranslateResult r = translate(parse(out.ptx, ptx_name), to);
  out.module = std::move(r.module);
  out.stats = std::move(r.stats);
  return out;
}

}  // namespace tsm::ptx
