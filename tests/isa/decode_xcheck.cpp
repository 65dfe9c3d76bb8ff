// The SystemVerilog decode package (Verilated RTL, or the Yosys netlist of it) accepts exactly the
// words the C++ decoder accepts, and reports the same unit and register usage for each opcode.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include <fmt/format.h>
#include <verilated.h>

#include "isa/isa.hpp"
#include "random_word.hpp"
#include TSM_PROBE_HEADER

namespace {

using namespace tsm::isa;

// Register usage as the ISA table's operand list states it (bit order of the probe's flags_o).
uint32_t expected_flags(const InsnInfo& in) {
  bool reads_ra = false, has_b = false, reads_rb = false, reads_rc = false, reads_rd = false, writes_rd = false,
       writes_pd = false, reads_ps = false, uses_pcc = false;
  for (unsigned i = 0; i < in.num_operands; ++i) {
    const auto& op = in.operands[i];
    const bool reg_read = !op.dst && (op.kind == OperandKind::Reg || op.kind == OperandKind::Mem || op.kind == OperandKind::Cmem);
    reads_ra |= reg_read && op.field == Field::ra;
    reads_rb |= reg_read && op.field == Field::rb;
    reads_rc |= reg_read && op.field == Field::rc;
    reads_rd |= reg_read && op.field == Field::rd;
    has_b |= op.kind == OperandKind::B;
    writes_rd |= op.dst && op.field == Field::rd;
    writes_pd |= op.dst && op.kind == OperandKind::Pred;
    reads_ps |= op.field == Field::ps;
    uses_pcc |= op.field == Field::pcc;
  }
  return reads_ra | has_b << 1 | reads_rb << 2 | reads_rc << 3 | reads_rd << 4 | writes_rd << 5 | writes_pd << 6 |
         reads_ps << 7 | uses_pcc << 8;
}

// Registers occupied by the rd, ra, B and rc operands (1 where the instruction has none), packed
// as the probe's regs_o.
uint32_t expected_regs(const InsnInfo& in, uint64_t w) {
  uint32_t packed = 0;
  const Field slots[] = {Field::rd, Field::ra, Field::None, Field::rc};
  for (unsigned slot = 0; slot < 4; ++slot) {
    unsigned regs = 1;
    for (unsigned i = 0; i < in.num_operands; ++i) {
      const auto& op = in.operands[i];
      const bool is_b = op.kind == OperandKind::B;
      const bool reg_like = op.kind == OperandKind::Reg || op.kind == OperandKind::Mem || op.kind == OperandKind::Cmem;
      if ((slot == 2 && is_b) || (slot != 2 && reg_like && op.field == slots[slot])) regs = operand_width(op, w);
    }
    packed |= regs << (3 * slot);
  }
  return packed;
}

TEST(SvDecoder, AgreesWithTheCppDecoder) {
  auto context = std::make_unique<VerilatedContext>();
  auto probe = std::make_unique<TSM_PROBE_CLASS>(context.get());
  tsm::test::RandomWord gen(0xDEC0DE);
  std::mt19937_64 rng(42);
  unsigned valid = 0, invalid = 0, mismatches = 0;
  auto check = [&](uint64_t w) {
    probe->insn_i = w;
    probe->eval();
    const Decoded d = decode(w);
    (d ? valid : invalid)++;
    if (static_cast<bool>(probe->valid_o) != static_cast<bool>(d)) {
      ADD_FAILURE() << fmt::format("{:#018x}: SV says {}, C++ says {}", w, probe->valid_o ? "valid" : "invalid",
                                   d ? "valid" : d.error);
      return ++mismatches < 10;
    }
    if (d) {
      EXPECT_EQ(probe->unit_o, static_cast<unsigned>(d.insn->unit)) << d.insn->mnemonic;
      EXPECT_EQ(probe->flags_o, expected_flags(*d.insn)) << d.insn->mnemonic;
      EXPECT_EQ(probe->regs_o, expected_regs(*d.insn, w)) << d.insn->mnemonic << fmt::format(" {:#018x}", w);
    }
    return true;
  };
  for (int round = 0; round < 300; ++round) {
    for (const auto& in : gen::kInsns) {
      const uint64_t w = gen.make(in);
      if (!check(w)) return;
      if (!check(w ^ (1ull << (rng() % 64)))) return;  // one bit off a valid word: often invalid
    }
    for (int i = 0; i < 64; ++i)
      if (!check(rng())) return;
  }
  EXPECT_GT(valid, 30000u);
  EXPECT_GT(invalid, 10000u);
  probe->final();
}

}  // namespace
