// tsm-tool's `compile`: CUDA C or PTX to a native .tsb module through a front end and the translator.
#include "cmd_compile.hpp"

#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "isa/assembler.hpp"
#include "ptx/compile.hpp"
#include "tsm/config_gen.hpp"
#include "ptx/support.hpp"

namespace {

struct CompileCliOptions {
  std::string input;
  std::string output;
  std::string frontend = "auto";
  uint32_t maxrregcount = 128;
  std::string config = "g80";
  bool stats = false;
  bool listing = false;
  std::string emit_ptx;
};

[[noreturn]] void fail(const std::string& message) {
  fmt::print(stderr, "{}\n", message);
  throw CLI::RuntimeError(1);
}

void run_compile(const CompileCliOptions& o) {
  if (!tsm::config::find_config(o.config)) fail(fmt::format("error: unknown configuration '{}' (see: ./tsm configs)", o.config));
  tsm::ptx::CompileOptions co;
  co.frontend = o.frontend == "nvcc" ? tsm::compiler::Frontend::Nvcc
                : o.frontend == "clang" ? tsm::compiler::Frontend::Clang
                                        : tsm::compiler::Frontend::Auto;
  co.max_registers = o.maxrregcount;
  co.config = o.config;
  tsm::ptx::Compiled c;
  try {
    c = tsm::ptx::compile_file(o.input, co);
  } catch (const tsm::ptx::PtxError& e) {
    // --emit-ptx still writes the PTX the translator refused, for the user to read (and for
    // sim/tools/regtable.py to give to ptxas): the front end runs again, the translator does not.
    if (!o.emit_ptx.empty() && std::filesystem::path(o.input).extension() == ".cu") {
      try {
        tsm::compiler::FrontendOptions fo;
        fo.frontend = co.frontend;
        std::ofstream(o.emit_ptx) << tsm::compiler::cuda_to_ptx(o.input, fo).ptx;
      } catch (const tsm::compiler::CompileError&) {
      }
    }
    fail(e.what());
  } catch (const tsm::compiler::CompileError& e) {
    fail(e.what());
  }
  if (!o.emit_ptx.empty()) {
    std::ofstream(o.emit_ptx) << c.ptx;
  }
  const std::string out = o.output.empty() ? std::filesystem::path(o.input).replace_extension(".tsb").string() : o.output;
  tsm::save_module_file(out, c.module);
  if (o.listing) fmt::print("{}", tsm::disassemble_module(c.module));
  if (o.stats) {
    fmt::print("{} ({}): {} kernel(s) -> {}\n", o.input, c.frontend, c.stats.size(), out);
    for (const auto& k : c.stats) {
      std::string extra;
      if (k.spilled_predicates) extra += fmt::format(", {} predicates kept in registers", k.spilled_predicates);
      if (k.rematerialized) extra += fmt::format(", {} constants recomputed where used", k.rematerialized);
      fmt::print("  {}: {} registers, {} instructions, {} bytes shared, {} bytes local, {} spilled values ({} bytes){}\n",
                 k.name, k.registers, k.instructions, k.shared_bytes, k.local_bytes, k.spilled, k.spill_bytes, extra);
    }
  }
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto o = std::make_shared<CompileCliOptions>();
  CLI::App* cmd = app.add_subcommand("compile", "Compile CUDA C (.cu) or PTX (.ptx) to a native module (.tsb)");
  cmd->add_option("input", o->input, "CUDA or PTX file")->required();
  cmd->add_option("-o,--output", o->output, "Output module (default: input with .tsb)");
  cmd->add_option("--frontend", o->frontend, "CUDA front end: auto (nvcc if installed, else clang), nvcc, clang")
      ->check(CLI::IsMember({"auto", "nvcc", "clang"}))
      ->capture_default_str();
  cmd->add_option("--maxrregcount", o->maxrregcount, "Registers per thread the translator may use")->check(CLI::Range(1, 254))->capture_default_str();
  cmd->add_option("--config", o->config, "Configuration that launch bounds (__launch_bounds__) are fitted to")
      ->capture_default_str();
  cmd->add_flag("--stats", o->stats, "Print registers, spills, instructions, shared and local bytes per kernel");
  cmd->add_flag("-l,--listing", o->listing, "Print the disassembly of the result");
  cmd->add_option("--emit-ptx", o->emit_ptx, "Also write the PTX the front end produced (also when the translator refuses it)");
  cmd->callback([o] { run_compile(*o); });

  auto doc_out = std::make_shared<std::string>();
  CLI::App* support = app.add_subcommand("ptx-support", "Print the table of PTX instructions the translator supports (Markdown)");
  support->add_option("-o,--output", *doc_out, "Write it to this file instead of stdout");
  support->callback([doc_out] {
    const std::string md = tsm::ptx::support_markdown();
    if (doc_out->empty()) {
      fmt::print("{}", md);
      return;
    }
    std::ofstream f(*doc_out, std::ios::trunc);
    f << md;
    if (!f) fail(fmt::format("error: {}: cannot write", *doc_out));
  });
}
