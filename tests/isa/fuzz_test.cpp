// Bad input never crashes the assembler or the loader: randomly damaged sources end in an
// AsmError and randomly damaged binaries (with a repaired checksum, so the damage reaches the
// parsers behind it) in a FormatError, or load as a valid module.
#include <gtest/gtest.h>

#include <random>

#include <zlib.h>

#include "isa/assembler.hpp"
#include "isa/isa.hpp"
#include "test_files.hpp"

namespace {

std::vector<std::string> samples() {
  std::vector<std::string> v;
  for (const auto& k : tsm::test::sample_kernels()) v.push_back(tsm::test::read_file(tsm::test::sample_kernel_path(k)));
  return v;
}

std::string mutate(std::string s, std::mt19937_64& rng) {
  static const std::string kAlphabet = "RPZ0123456789xX+-~|!@.,[]c:;/#\" \n\tabcdefFEL_";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t at = rng() % s.size();
    switch (rng() % 4) {
      case 0: s.erase(at, 1 + rng() % 3); break;
      case 1: s.insert(at, 1, kAlphabet[rng() % kAlphabet.size()]); break;
      case 2: s[at] = kAlphabet[rng() % kAlphabet.size()]; break;
      default: {  // duplicate a line somewhere else
        const size_t b = s.rfind('\n', at), end = s.find('\n', at);
        const std::string line = s.substr(b == std::string::npos ? 0 : b, end == std::string::npos ? std::string::npos : end - b);
        s.insert(rng() % s.size(), line);
      }
    }
  }
  return s;
}

TEST(Fuzz, DamagedSourcesGiveAssemblerErrorsOnly) {
  std::mt19937_64 rng(1234);
  const auto srcs = samples();
  unsigned errors = 0, accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string src = mutate(srcs[static_cast<size_t>(i) % srcs.size()], rng);
    try {
      const tsm::Module m = tsm::assemble(src, "fuzz.tsa");
      ++accepted;
      // Whatever assembles must also survive the round trip through the container.
      ASSERT_NO_THROW(tsm::Module::deserialize(m.serialize(), "fuzz.tsb")) << src;
    } catch (const tsm::AsmError& e) {
      ++errors;
      ASSERT_GE(e.line, 1) << e.what();
      ASSERT_GE(e.col, 1) << e.what();
    } catch (const std::exception& e) {
      FAIL() << "unexpected " << typeid(e).name() << ": " << e.what() << "\n" << src;
    }
  }
  EXPECT_GT(errors, 5000u);
  EXPECT_GT(accepted, 500u);
}

TEST(Fuzz, DamagedBinariesGiveFormatErrorsOnly) {
  std::mt19937_64 rng(99);
  const auto srcs = samples();
  unsigned errors = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = tsm::assemble(srcs[static_cast<size_t>(i) % srcs.size()], "s.tsa").serialize();
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits; ++e) {
      const size_t at = 32 + rng() % (b.size() - 32);  // behind the header, which the checksum repair needs
      b[at] = static_cast<uint8_t>(rng() % 4 == 0 ? "0123456789\"{}[],:-"[rng() % 18] : rng());
    }
    const uint32_t crc = static_cast<uint32_t>(crc32(crc32(0, Z_NULL, 0), b.data() + 32, static_cast<uInt>(b.size() - 32)));
    for (int k = 0; k < 4; ++k) b[16 + k] = static_cast<uint8_t>(crc >> (8 * k));
    try {
      const tsm::Module m = tsm::Module::deserialize(b, "fuzz.tsb");
      (void)tsm::disassemble_module(m);
    } catch (const tsm::FormatError&) {
      ++errors;
    } catch (const std::exception& e) {
      FAIL() << "unexpected " << typeid(e).name() << ": " << e.what();
    }
  }
  EXPECT_GT(errors, 10000u);
}

}  // namespace
