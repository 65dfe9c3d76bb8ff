// Fuzzing the parser: 10^4 random mutations of real PTX (the committed fixtures) must each either
// parse or raise PtxError; any other exception fails the test, and a crash or hang fails it too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ptx/ast.hpp"

namespace tsm::ptx {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Fragments that steer mutations towards the grammar's corners.
// clang-format off
const char* const kFragments[] = {
    "{", "}", "[", "]", "(", ")", "<", ">", ";", ",", ":", "|", "!", "@", "=", "+", "-", "_", "\n", " ",
    "/*", "*/", "//", "\"", "@@DWARF", ".reg", ".b32", ".pred", ".param", ".shared", ".global", ".const",
    ".local", ".align 8", ".v4", ".entry", ".func", ".extern", ".visible", ".section", ".loc 1 2 3",
    ".maxntid 1,", ".pragma \"x\";", "%r<", "%r1", "%p1", "%tid.", "%clock64", "@%p1", "@!%p1",
    "0f3F800000", "0d3FF0000000000000", "0x", "0xFFFFFFFFFFFFFFFFF", "0b", "0f", "1.5e", "-", "99999999999999999999",
    "call.uni", "(retval0), ", "bra", "generic(", "0xFF00(", "$L__BB0_1", "$L__BB0_1:", "ld.global.v2.f32",
    "prototype_0: .callprototype", "\0", "\xff", "%", ".", "..", "::",
};
// clang-format on

std::string mutate(std::string text, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  int count = 1 + static_cast<int>(pick(4));
  for (int i = 0; i < count; ++i) {
    size_t at = pick(text.size() + 1);
    switch (pick(6)) {
      case 0:  // replace one byte
        if (!text.empty()) text[std::min(at, text.size() - 1)] = static_cast<char>(rng());
        break;
      case 1:  // delete a run
        text.erase(std::min(at, text.size()), 1 + pick(24));
        break;
      case 2: {  // insert a fragment
        const char* fragment = kFragments[pick(std::size(kFragments))];
        text.insert(at, fragment[0] == '\0' ? std::string(1, '\0') : std::string(fragment));
        break;
      }
      case 3: {  // duplicate a run elsewhere
        size_t from = pick(text.size() + 1);
        std::string run = text.substr(from, 1 + pick(80));
        text.insert(std::min(at, text.size()), run);
        break;
      }
      case 4:  // truncate
        text.resize(at);
        break;
      default: {  // swap two runs of equal length
        size_t a = pick(text.size() + 1);
        size_t b = pick(text.size() + 1);
        if (a > b) std::swap(a, b);
        size_t n = std::min({size_t{40}, b - a, text.size() - b});
        std::string left = text.substr(a, n);
        text.replace(a, n, text.substr(b, n));
        text.replace(b, n, left);
        break;
      }
    }
  }
  return text;
}

TEST(Fuzz, RandomMutationsOfRealPtxRaiseOnlyPtxError) {
  std::vector<std::string> seeds;
  for (const auto& entry : fs::directory_iterator(fs::path(TSM_SOURCE_DIR) / "tests" / "ptx" / "fixtures")) {
    seeds.push_back(read_file(entry.path()));
  }
  ASSERT_FALSE(seeds.empty());
  std::sort(seeds.begin(), seeds.end());
  std::mt19937_64 rng(20240611);
  int parsed = 0;
  int rejected = 0;
  for (int i = 0; i < 10000; ++i) {
    std::string input = mutate(seeds[static_cast<size_t>(i) % seeds.size()], rng);
    try {
      Module m = parse(input, "fuzz.ptx");
      ++parsed;
    } catch (const PtxError& e) {
      ++rejected;
      ASSERT_GT(e.loc.line, 0) << e.what();
      ASSERT_GT(e.loc.col, 0) << e.what();
      ASSERT_FALSE(e.message.empty());
    } catch (const std::exception& e) {
      FAIL() << "mutation " << i << " threw " << typeid(e).name() << ": " << e.what() << "\ninput:\n" << input;
    }
  }
  // Both outcomes must occur, or the mutations are not exercising the parser.
  EXPECT_GT(parsed, 100);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace tsm::ptx
