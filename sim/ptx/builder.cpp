// Encodes a native instruction from assembly text with placeholders, binding its register and
// predicate fields to virtual registers. The assembler's own parser does the encoding.
#include "ptx/builder.hpp"

#include <cctype>

#include <fmt/format.h>

#include "isa/assembler.hpp"

namespace tsm::ptx {

using isa::Field;
using isa::OperandKind;

MInst build_inst(std::string_view tmpl, std::span<const uint32_t> regs, std::span<const uint32_t> preds, Loc loc) {
  // %N, %Nh, %N.2, %N.3 -> R(4N + offset); %pN -> P(N).
  std::string text;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '%') {
      text += tmpl[i];
      continue;
    }
    size_t j = i + 1;
    const bool pred = j < tmpl.size() && tmpl[j] == 'p';
    if (pred) ++j;
    unsigned n = 0;
    const size_t digits = j;
    while (j < tmpl.size() && std::isdigit(static_cast<unsigned char>(tmpl[j]))) n = n * 10 + static_cast<unsigned>(tmpl[j++] - '0');
    if (j == digits) throw std::logic_error(fmt::format("bad placeholder in template '{}'", tmpl));
    if (pred) {
      if (n >= preds.size() || n >= isa::kPT) throw std::logic_error(fmt::format("predicate placeholder %p{} out of range in '{}'", n, tmpl));
      text += fmt::format("P{}", n);
    } else {
      if (n >= regs.size() || 4 * n + 3 >= isa::kRZ) throw std::logic_error(fmt::format("register placeholder %{} out of range in '{}'", n, tmpl));
      unsigned off = 0;
      if (j < tmpl.size() && tmpl[j] == 'h') {
        off = 1;
        ++j;
      } else if (j + 1 < tmpl.size() && tmpl[j] == '.' && std::isdigit(static_cast<unsigned char>(tmpl[j + 1]))) {
        off = static_cast<unsigned>(tmpl[j + 1] - '0');
        j += 2;
      }
      text += fmt::format("R{}", 4 * n + off);
    }
    i = j - 1;
  }
  MInst m;
  m.word = assemble_instruction(text);
  m.info = isa::decode(m.word).insn;
  m.loc = loc;
  auto bind_reg = [&](Field f) {
    const uint64_t v = isa::get(m.word, f);
    if (v == isa::kRZ) return;
    m.binds.push_back({f, regs[v / 4], static_cast<uint8_t>(v % 4)});
  };
  auto bind_pred = [&](Field f) {
    const uint64_t v = isa::get(m.word, f);
    if (v == isa::kPT) return;
    m.binds.push_back({f, preds[v], 0});
  };
  bind_pred(Field::pg);
  for (unsigned i = 0; i < m.info->num_operands; ++i) {
    const auto& op = m.info->operands[i];
    switch (op.kind) {
      case OperandKind::Reg:
      case OperandKind::Mem:
      case OperandKind::Cmem: bind_reg(op.field); break;
      case OperandKind::B:
        if (isa::b_source(m.word) == isa::gen::Bsel::REG) bind_reg(Field::rb);
        break;
      case OperandKind::Pred: bind_pred(op.field); break;
      default: break;
    }
  }
  return m;
}

}  // namespace tsm::ptx
