// Random valid encodings of any instruction of the ISA table, for round-trip and cross-check tests.
#pragma once

#include <random>

#include "isa/isa.hpp"

namespace tsm::test {

class RandomWord {
 public:
  using Field = isa::Field;
  using InsnInfo = isa::InsnInfo;
  using OperandInfo = isa::OperandInfo;
  using OperandKind = isa::OperandKind;
  using Bsel = isa::gen::Bsel;
  using FieldKind = isa::gen::FieldKind;

  explicit RandomWord(uint64_t seed) : rng_(seed) {}

  uint64_t below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }

  // A random valid encoding of `in`: modifiers first (they decide register widths), then operands.
  uint64_t make(const InsnInfo& in) {
    uint64_t w = isa::set(0, Field::op, in.opcode);
    w = isa::set(w, Field::pg, below(8));
    w = isa::set(w, Field::pgn, below(2));
    for (unsigned i = 0; i < in.num_mods; ++i) {
      const auto& fi = isa::field_info(in.mods[i]);
      w = isa::set(w, in.mods[i], fi.kind == FieldKind::Flag ? below(2) : below(isa::enum_info(fi.enum_id).count));
    }
    for (unsigned i = 0; i < in.num_operands; ++i) w = operand(in.operands[i], w);
    return w;
  }

 private:
  uint64_t reg(unsigned width) {
    if (below(16) == 0) return isa::kRZ;
    return width * below((isa::kRZ - width) / width + 1);
  }
  uint64_t flags(const OperandInfo& op, uint64_t w) {
    for (Field f : {op.neg, op.abs, op.inv, op.pneg})
      if (f != Field::None) w = isa::set(w, f, below(2));
    return w;
  }
  uint64_t operand(const OperandInfo& op, uint64_t w) {
    w = flags(op, w);
    const unsigned width = isa::operand_width(op, w);
    switch (op.kind) {
      case OperandKind::Reg: return isa::set(w, op.field, reg(width));
      case OperandKind::Pred: return isa::set(w, op.field, below(8));
      case OperandKind::Imm32: return isa::set(w, Field::imm32, below(1ull << 32));
      case OperandKind::Mem:
        w = isa::set(w, op.field, reg(width));
        return op.no_offset ? w : isa::set(w, Field::moff, below(1ull << 24));
      case OperandKind::Cmem:
        w = isa::set(w, Field::cbank, below(16));
        return isa::set(isa::set(w, op.field, reg(1)), Field::coff, below(1ull << 16));
      case OperandKind::Label: return isa::set(w, Field::target, below(1ull << 24));
      case OperandKind::Uimm: return isa::set(w, op.field, below(1ull << isa::field_info(op.field).width));
      case OperandKind::Sreg: return isa::set(w, op.field, below(isa::enum_info(isa::field_info(op.field).enum_id).count));
      case OperandKind::B: {
        const auto src = static_cast<Bsel>(below(3));
        w = isa::set(w, Field::bsel, static_cast<uint64_t>(src));
        if (src == Bsel::REG) return isa::set(w, Field::rb, reg(width));
        if (src == Bsel::CONST) return isa::set(isa::set(w, Field::cbank, below(16)), Field::coff, 4 * width * below(65536 / (4 * width)));
        return isa::set(w, Field::imm20, below(1ull << 20));
      }
    }
    return w;
  }
  std::mt19937_64 rng_;
};

}  // namespace tsm::test
