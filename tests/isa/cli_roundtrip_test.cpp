// `tsm asm` -> `tsm disasm` -> `tsm asm` through the real command-line tool, on a module holding
// several random encodings of every instruction in the ISA table: the binaries must be identical.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include <fmt/format.h>

#include "isa/isa.hpp"
#include "random_word.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tsm::isa;

std::vector<char> bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int run(const std::string& cmd) { return std::system((cmd + " 2>&1").c_str()); }

TEST(CliRoundTrip, EveryInstructionThroughAsmAndDisasm) {
  tsm::test::RandomWord gen(2024);
  constexpr int kCopies = 8;
  const int64_t n = static_cast<int64_t>(gen::kInsns.size()) * kCopies;
  std::string src = ".kernel all_forms\n";
  int64_t pc = 0;
  for (int copy = 0; copy < kCopies; ++copy) {
    for (const auto& in : gen::kInsns) {
      uint64_t w = gen.make(in);
      for (unsigned i = 0; i < in.num_operands; ++i)  // branch targets must land inside the module
        if (in.operands[i].kind == OperandKind::Label)
          w = set(w, Field::target, static_cast<uint64_t>(static_cast<int64_t>(gen.below(n)) - pc) & 0xFFFFFF);
      ASSERT_TRUE(decode(w)) << in.mnemonic;
      src += "    " + disassemble(w, pc) + "\n";
      ++pc;
    }
  }
  const fs::path dir = fs::temp_directory_path() / fmt::format("tsm_cli_roundtrip_{}", ::getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "all.tsa") << src;
  const std::string tool = TSM_TOOL;
  ASSERT_EQ(run(fmt::format("{} asm {} -o {}", tool, (dir / "all.tsa").string(), (dir / "all.tsb").string())), 0);
  ASSERT_EQ(run(fmt::format("{} disasm {} -o {}", tool, (dir / "all.tsb").string(), (dir / "again.tsa").string())), 0);
  ASSERT_EQ(run(fmt::format("{} asm {} -o {}", tool, (dir / "again.tsa").string(), (dir / "again.tsb").string())), 0);
  const auto first = bytes(dir / "all.tsb"), second = bytes(dir / "again.tsb");
  EXPECT_GT(first.size(), static_cast<size_t>(n * 8));
  EXPECT_EQ(first, second) << "the listing in " << dir << " does not re-assemble to the same binary";
  if (first == second) fs::remove_all(dir);
}

}  // namespace
