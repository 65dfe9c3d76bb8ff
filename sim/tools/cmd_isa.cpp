// tsm-tool's `asm` (assemble), `disasm` (disassemble a binary or words) and `isa` (describe the ISA).
#include "cmd_isa.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_args.hpp"

#include "isa/assembler.hpp"
#include "isa/isa.hpp"

namespace {

using tsm::tools::fail;
using tsm::tools::read_text;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
  if (!f) fail(fmt::format("{}: cannot write", path));
}

struct AsmOptions {
  std::string input;
  std::string output;
  bool listing = false;
};

void run_asm(const AsmOptions& o) {
  const std::string source = read_text(o.input);
  try {
    const tsm::Module m = tsm::assemble(source, o.input);
    const std::string out = o.output.empty() ? std::filesystem::path(o.input).replace_extension(".tsb").string() : o.output;
    tsm::save_module_file(out, m);
    if (o.listing) fmt::print("{}", tsm::disassemble_module(m));
    fmt::print(stderr, "{}: {} instructions, {} kernel(s) -> {}\n", o.input, m.text.size(), m.kernels.size(), out);
  } catch (const tsm::AsmError& e) {
    // Show the offending line with a caret under the column.
    std::istringstream lines(source);
    std::string line;
    for (int i = 0; i < e.line && std::getline(lines, line); ++i) {
    }
    fmt::print(stderr, "{}\n  {}\n  {}^\n", e.what(), line, std::string(static_cast<size_t>(std::max(e.col - 1, 0)), ' '));
    throw CLI::RuntimeError(1);
  } catch (const tsm::FormatError& e) {
    fail(e.what());
  }
}

struct DisasmOptions {
  std::string input;
  std::string output;
  std::vector<std::string> words;
};

void run_disasm(const DisasmOptions& o) {
  if (!o.words.empty()) {
    for (const auto& w : o.words) {
      char* end = nullptr;
      const uint64_t word = std::strtoull(w.c_str(), &end, 16);
      if (w.empty() || *end != '\0') fail(fmt::format("'{}' is not a hexadecimal instruction word", w));
      fmt::print("{:016x}  {}\n", word, tsm::isa::disassemble(word));
    }
    return;
  }
  if (o.input.empty()) fail("give a binary file or --word HEX");
  try {
    const std::string text = tsm::disassemble_module(tsm::load_module_file(o.input));
    if (o.output.empty()) fmt::print("{}", text);
    else write_text(o.output, text);
  } catch (const tsm::FormatError& e) {
    fail(e.what());
  }
}

void describe(const tsm::isa::InsnInfo& in) {
  using tsm::isa::gen::FieldKind;
  fmt::print("{}  (opcode {:#04x}, unit {}, {})\n  {}\n", in.mnemonic, in.opcode,
             tsm::isa::gen::kUnitNames[static_cast<int>(in.unit)], in.cls, in.summary);
  for (unsigned i = 0; i < in.num_mods; ++i) {
    const auto& fi = tsm::isa::field_info(in.mods[i]);
    if (fi.kind == FieldKind::Flag) {
      fmt::print("  .{:<10} {}\n", fi.suffix, fi.doc);
      continue;
    }
    const auto& e = tsm::isa::enum_info(fi.enum_id);
    std::string alts;
    for (unsigned v = 0; v < e.count; ++v) alts += fmt::format("{}{}", v ? "|" : "", e.values[v]);
    fmt::print("  .{{{}}}  {}{}\n", alts, fi.doc, fi.default_value >= 0 ? fmt::format(" (default {})", e.values[fi.default_value]) : "");
  }
  fmt::print("  semantics:\n");
  std::istringstream sem(in.semantics);
  for (std::string line; std::getline(sem, line);) fmt::print("    {}\n", line);
}

}  // namespace

void add_isa_commands(CLI::App& app) {
  auto a = std::make_shared<AsmOptions>();
  CLI::App* asm_cmd = app.add_subcommand("asm", "Assemble TeslaSM assembly (.tsa) into a binary (.tsb)");
  asm_cmd->add_option("input", a->input, "Assembly source")->required();
  asm_cmd->add_option("-o,--output", a->output, "Output binary (default: input with .tsb)");
  asm_cmd->add_flag("-l,--listing", a->listing, "Also print the disassembly of the result");
  asm_cmd->callback([a] { run_asm(*a); });

  auto d = std::make_shared<DisasmOptions>();
  CLI::App* dis = app.add_subcommand("disasm", "Disassemble a binary into assembly that re-assembles to the same binary");
  dis->add_option("input", d->input, "Binary (.tsb)");
  dis->add_option("-o,--output", d->output, "Write the listing here instead of stdout");
  dis->add_option("-w,--word", d->words, "Disassemble these hexadecimal instruction words instead");
  dis->callback([d] { run_disasm(*d); });

  auto name = std::make_shared<std::string>();
  CLI::App* isa = app.add_subcommand("isa", "List the instruction set, or describe one instruction");
  isa->add_option("mnemonic", *name, "Instruction to describe");
  isa->callback([name] {
    if (name->empty()) {
      for (const auto& in : tsm::isa::gen::kInsns)
        fmt::print("{:#04x}  {:<9} {:<5} {}\n", in.opcode, in.mnemonic, tsm::isa::gen::kUnitNames[static_cast<int>(in.unit)], in.summary);
      fmt::print("\n{} instructions; full reference: docs/isa.md\n", tsm::isa::gen::kInsns.size());
      return;
    }
    std::string up;
    for (char c : *name) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto* in = tsm::isa::find_mnemonic(up);
    if (!in) fail(fmt::format("no instruction '{}' (list them with: isa)", *name));
    describe(*in);
  });
}
