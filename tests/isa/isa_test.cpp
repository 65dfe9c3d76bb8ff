// Every instruction form of the ISA table encodes, decodes, disassembles and re-assembles to the
// same word; words the table does not define are rejected with a reason.
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>

#include "isa/assembler.hpp"
#include "isa/isa.hpp"
#include "random_word.hpp"

namespace {

using namespace tsm::isa;
TEST(IsaTable, EveryInstructionRoundTripsThroughText) {
  tsm::test::RandomWord gen(0x7E5A);
  for (const auto& in : gen::kInsns) {
    for (int n = 0; n < 2000; ++n) {
      const uint64_t w = gen.make(in);
      const Decoded d = decode(w);
      ASSERT_TRUE(d) << in.mnemonic << fmt::format(" {:#018x}: ", w) << d.error;
      ASSERT_EQ(d.insn, &in);
      const std::string text = disassemble(w);
      uint64_t back = 0;
      try {
        back = tsm::assemble_instruction(text);
      } catch (const tsm::AsmError& e) {
        FAIL() << fmt::format("{:#018x} '{}': {}", w, text, e.what());
      }
      ASSERT_EQ(back, w) << fmt::format("'{}' re-assembled to {:#018x}, expected {:#018x}", text, back, w);
    }
  }
}

TEST(IsaTable, OpcodesAndMnemonicsAreUniqueAndIndexed) {
  std::set<std::string> names;
  std::set<int> opcodes;
  for (const auto& in : gen::kInsns) {
    EXPECT_TRUE(names.insert(in.mnemonic).second) << in.mnemonic;
    EXPECT_TRUE(opcodes.insert(in.opcode).second) << in.mnemonic;
    EXPECT_EQ(find_opcode(in.opcode), &in);
    EXPECT_EQ(find_mnemonic(in.mnemonic), &in);
    EXPECT_EQ(in.match & ~in.mask, 0u) << in.mnemonic << ": match bits outside the mask";
  }
}

TEST(IsaTable, CoversTheRequiredOperationFamilies) {
  // The list of what PTX lowering needs, by mnemonic.
  for (const char* m : {"IADD", "IMUL", "IMAD", "SHL", "SHR", "SHF", "LOP", "LOP3", "IMNMX", "ISETP", "SEL", "POPC", "CLZ",
                        "BREV", "BFE", "BFI", "PRMT", "FADD", "FMUL", "FFMA", "FMNMX", "FSETP", "F2F", "F2I", "I2F", "MUFU",
                        "LDG", "STG", "LDS", "STS", "LDL", "STL", "LDC", "LD", "ST", "ATOM", "ATOMS", "ATOMCAS", "ATOMSCAS",
                        "MEMBAR", "BRA", "SSY", "SYNC", "PBK", "BRK", "CAL", "RET", "EXIT", "TRAP", "BAR", "BRED", "VOTE",
                        "SHFL", "S2R"})
    EXPECT_NE(find_mnemonic(m), nullptr) << m;
}

TEST(IsaDecode, RejectsUndefinedOpcode) {
  const Decoded d = decode(0x01);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error.find("undefined opcode 0x01"), std::string::npos) << d.error;
}

TEST(IsaDecode, ZeroFilledMemoryIsNotCode) {
  // A jump into cleared memory must fault at once rather than run as NOPs.
  const Decoded d = decode(0);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error.find("undefined opcode 0x00"), std::string::npos) << d.error;
  EXPECT_FALSE(decode(~0ull)) << "all-ones (erased flash) is not code either";
}

TEST(IsaDecode, RejectsReservedBits) {
  const uint64_t nop = tsm::assemble_instruction("NOP");
  const Decoded d = decode(nop | (1ull << 40));
  ASSERT_FALSE(d);
  EXPECT_NE(d.error.find("reserved bits"), std::string::npos) << d.error;
}

TEST(IsaDecode, RejectsUndefinedEnumValues) {
  const uint64_t w = tsm::assemble_instruction("FSETP.LT P0, PT, R1, R2");
  const Decoded d = decode(set(w, Field::fcmp, 15));
  ASSERT_FALSE(d);
  EXPECT_NE(d.error.find("field 'fcmp' holds undefined value 15"), std::string::npos) << d.error;
  EXPECT_FALSE(decode(set(w, Field::bsel, 3))) << "bsel 3 is undefined";
}

TEST(IsaDecode, RejectsMisalignedRegisterTuples) {
  const uint64_t w = tsm::assemble_instruction("DADD R2, R4, R6");
  EXPECT_FALSE(decode(set(w, Field::rd, 3)));
  EXPECT_FALSE(decode(set(w, Field::rb, 5)));
  const uint64_t q = tsm::assemble_instruction("LDG.E.128 R8, [R2]");
  const Decoded d = decode(set(q, Field::rd, 10));
  ASSERT_FALSE(d);
  EXPECT_NE(d.error.find("multiple of 4"), std::string::npos) << d.error;
}

TEST(IsaDisasm, ReadsLikeTheReference) {
  EXPECT_EQ(disassemble(tsm::assemble_instruction("@!P2 ffma.rz.ftz r1, -r2, c[0][0x24], -r4")),
            "@!P2 FFMA.RZ.FTZ R1, -R2, c[0][0x24], -R4");
  EXPECT_EQ(disassemble(tsm::assemble_instruction("FADD R1, |R2|, -0.5")), "FADD R1, |R2|, -0.5");
  EXPECT_EQ(disassemble(tsm::assemble_instruction("ISETP.LT.S32.AND P0, PT, R1, -3, PT")), "ISETP.LT.S32 P0, PT, R1, -3");
  EXPECT_EQ(disassemble(tsm::assemble_instruction("LDG.E.64 R2, [R4-0x10]")), "LDG.64.E R2, [R4-0x10]");
  EXPECT_EQ(disassemble(tsm::assemble_instruction("BRA -3"), 10), "BRA -3");
  EXPECT_EQ(disassemble(tsm::assemble_instruction("S2R R0, SR_TID_X")), "S2R R0, SR_TID_X");
  EXPECT_EQ(disassemble(tsm::assemble_instruction("MOV32I R0, 1.5")), "MOV32I R0, 0x3fc00000");
}

TEST(IsaDisasm, FloatImmediatesAreExact) {
  for (uint32_t bits : {0x3F800000u, 0xBF800000u, 0x7F800000u, 0xFF800000u, 0x00001000u, 0x7FFFF000u, 0x80000000u, 0x7FC00000u}) {
    const std::string text = fmt::format("FMUL R0, R1, {}", format_f32(bits));
    const uint64_t w = tsm::assemble_instruction(text);
    EXPECT_EQ(b_immediate_bits(find_mnemonic("FMUL")->operands[2], w), bits) << text;
  }
}

}  // namespace
