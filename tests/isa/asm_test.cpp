// Assembler: whole-module round trips of the sample kernels, directives, and errors that carry
// file, line and column.
#include <gtest/gtest.h>

#include "isa/assembler.hpp"
#include "isa/isa.hpp"
#include "test_files.hpp"

namespace {

class SampleKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleKernel, DisassemblyReassemblesToTheIdenticalBinary) {
  const std::string path = tsm::test::sample_kernel_path(GetParam());
  const std::string src = tsm::test::read_file(path);
  ASSERT_FALSE(src.empty()) << path;
  const tsm::Module m = tsm::assemble(src, path);
  const auto bytes = m.serialize();
  const tsm::Module loaded = tsm::Module::deserialize(bytes, path);
  const std::string listing = tsm::disassemble_module(loaded);
  const tsm::Module again = tsm::assemble(listing, "listing");
  EXPECT_EQ(again.serialize(), bytes) << listing;
  ASSERT_EQ(loaded.kernels.size(), 1u);
  EXPECT_EQ(loaded.kernels[0].name, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Firmware, SampleKernel, ::testing::ValuesIn(tsm::test::sample_kernels()));

TEST(Assembler, KernelMetadataAndParameterLayout) {
  const tsm::Module m = tsm::assemble(R"(
.kernel k
.shared 256
.local 16
.param n u32
.param p u64          // aligned up to 0x28
.param s bytes 12 4
.param c s8
    MOV R1, c[0][p+4]
    EXIT
.kernel k2
    DADD R6, R2, R4      // .regs inferred: R6:R7 -> 8
    EXIT
)", "t.tsa");
  ASSERT_EQ(m.kernels.size(), 2u);
  const auto& k = m.kernels[0];
  EXPECT_EQ(k.shared_bytes, 256u);
  EXPECT_EQ(k.local_bytes, 16u);
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[0].offset, 0x20u);
  EXPECT_EQ(k.params[1].offset, 0x28u);
  EXPECT_EQ(k.params[2].offset, 0x30u);
  EXPECT_EQ(k.params[3].offset, 0x3Cu);
  EXPECT_EQ(k.regs, 2u);
  EXPECT_EQ(tsm::isa::get(m.text[0], tsm::isa::Field::coff), 0x2Cu);
  EXPECT_EQ(m.kernels[1].entry, 2u);
  EXPECT_EQ(m.kernels[1].regs, 8u);
}

TEST(Assembler, ConstantsLiteralsAndGlobals) {
  const tsm::Module m = tsm::assemble(R"(
.const coef f32[4] = 1.0, 0.5, -2
.literal big u32[1] = 0x12345678
.global counter u32[2] = 7
.global msg u8[8] = "hi\n"   // a comment after a string; "#" inside a string is text: "x#y" 
.kernel k
    FMUL R0, R1, c[2][coef+4]
    IADD R0, R0, c[1][big]
    MOV R2, c[1][counter]
    MOV R3, c[1][msg]
    EXIT
)", "t.tsa");
  const auto& b2 = m.cbanks.at(2);
  ASSERT_EQ(b2.size(), 16u);  // four elements, the last one zero
  EXPECT_EQ(b2[4], 0x00);
  EXPECT_EQ(b2[7], 0x3F);  // 0.5f = 0x3F000000
  ASSERT_EQ(m.globals.size(), 2u);
  EXPECT_EQ(m.globals[0].slot, 8u);   // after the 4-byte literal, 8-aligned
  EXPECT_EQ(m.globals[1].slot, 16u);
  EXPECT_EQ(m.globals[1].offset, 8u);
  EXPECT_EQ(m.global_data[0], 7);
  EXPECT_EQ(m.global_data[10], '\n');
  EXPECT_EQ(tsm::isa::get(m.text[2], tsm::isa::Field::coff), 8u);
  const std::string listing = tsm::disassemble_module(m);
  EXPECT_EQ(tsm::assemble(listing, "listing").serialize(), m.serialize()) << listing;
}

TEST(Assembler, CommentMarkersInsideStringsAreText) {
  const tsm::Module m = tsm::assemble(".const s u8[6] = \"a#b//\"  # real comment\n.kernel k\n  EXIT // done\n", "t.tsa");
  const auto& b = m.cbanks.at(2);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 5), "a#b//");
}

struct BadSource {
  const char* source;
  int line;
  int col;
  const char* message;
};

class AssemblerError : public ::testing::TestWithParam<BadSource> {};

TEST_P(AssemblerError, NamesLineColumnAndCause) {
  const BadSource& b = GetParam();
  try {
    tsm::assemble(b.source, "bad.tsa");
    FAIL() << "accepted: " << b.source;
  } catch (const tsm::AsmError& e) {
    EXPECT_EQ(e.line, b.line) << e.what();
    EXPECT_EQ(e.col, b.col) << e.what();
    EXPECT_NE(e.message.find(b.message), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("bad.tsa:", 0), 0u) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AssemblerError,
    ::testing::Values(
        BadSource{".kernel k\n  FOO R1, R2\n", 2, 3, "unknown instruction 'FOO'"},
        BadSource{".kernel k\n  IADD R1, R2\n", 2, 3, "IADD takes 3 to 4 operands, got 2"},
        BadSource{".kernel k\n  IADD R1, R2, R300\n", 2, 16, "integer immediate"},
        BadSource{".kernel k\n  FADD R1, R2, 1.1\n", 2, 16, "does not fit a 20-bit float immediate"},
        BadSource{".kernel k\n  IADD R1, R2, 0x80000\n", 2, 16, "does not fit 20 signed bits"},
        BadSource{".kernel k\n  BRA nowhere\n", 2, 7, "undefined label 'nowhere'"},
        BadSource{".kernel k\n  FADD.XYZ R1, R2, R3\n", 2, 3, "does not take suffix .XYZ"},
        BadSource{".kernel k\n  ISETP P0, PT, R1, R2\n", 2, 3, "needs a icmp suffix"},
        BadSource{".kernel k\n  DADD R1, R2, R4\n", 2, 3, "rd R1 must be even"},
        BadSource{".kernel k\n  LDG.E R1, [R2+0x1000000]\n", 2, 13, "memory offset 16777216 is out of range"},
        BadSource{".kernel k\n  ATOM.ADD.U32 R1, [R2+4], R3\n", 2, 20, "takes no address offset"},
        BadSource{".kernel k\n  MOV R1, c[0][nope]\n", 2, 11, "unknown symbol 'nope'"},
        BadSource{".kernel k\n  IADD R1, -R2, R3\n", 2, 12, "cannot be negated"},
        BadSource{".kernel k\n  S2R R1, SR_FOO\n", 2, 11, "unknown special register"},
        BadSource{"  .regs 4\n", 1, 3, ".regs must follow a .kernel directive"},
        BadSource{".kernel k\nx:\nx:\n", 3, 1, "label 'x' is defined twice"},
        BadSource{".kernel k\n.param a f128\n", 2, 1, "usage: .param"},
        BadSource{".const t u8[2] = 1, 300\n", 1, 1, "'300' does not fit type u8"},
        BadSource{".version 9\n", 1, 1, "this assembler implements version 1"},
        BadSource{".frobnicate\n", 1, 1, "unknown directive"},
        BadSource{".kernel k\n  @Q1 EXIT\n", 2, 3, "bad guard"}));

}  // namespace
