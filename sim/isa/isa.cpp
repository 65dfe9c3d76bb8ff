// Decoding, validation and disassembly of TeslaSM instruction words, driven by the generated table.
#include "isa.hpp"

#include <bit>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace tsm::isa {

using gen::Bsel;
using gen::EnumId;
using gen::FieldKind;
using gen::ImmKind;

const gen::EnumInfo& enum_info(EnumId id) { return gen::kEnums[static_cast<size_t>(id)]; }

const InsnInfo* find_mnemonic(std::string_view mnemonic) {
  for (const auto& in : gen::kInsns)
    if (mnemonic == in.mnemonic) return &in;
  return nullptr;
}

const InsnInfo* find_opcode(uint8_t opcode) {
  const int idx = gen::kOpcodeIndex[opcode];
  return idx < 0 ? nullptr : &gen::kInsns[static_cast<size_t>(idx)];
}

Bsel b_source(uint64_t word) { return static_cast<Bsel>(get(word, Field::bsel)); }

unsigned operand_width(const OperandInfo& op, uint64_t word) {
  if (op.width_field == Field::None) return op.width;
  const auto& fi = field_info(op.width_field);
  const uint64_t v = get(word, op.width_field);
  if (fi.kind == FieldKind::Flag) return v ? 2 : 1;
  const auto& e = enum_info(fi.enum_id);
  return v < e.count ? e.regs[v] : 1;
}

uint64_t b_immediate_bits(const OperandInfo& op, uint64_t word) {
  const uint64_t imm = get(word, Field::imm20);
  switch (op.imm) {
    case ImmKind::F32: return imm << 12;
    case ImmKind::F64: return imm << 44;
    default: return static_cast<uint64_t>(sign_extend(imm, field_info(Field::imm20).width));
  }
}

namespace {

// Fields that hold enum values in this instruction: modifiers, operand B's source, special registers.
template <typename Fn>
void for_each_enum_field(const InsnInfo& in, Fn&& fn) {
  for (unsigned i = 0; i < in.num_mods; ++i)
    if (field_info(in.mods[i]).kind == FieldKind::Enum) fn(in.mods[i]);
  for (unsigned i = 0; i < in.num_operands; ++i) {
    const auto& op = in.operands[i];
    if (op.kind == OperandKind::B) fn(Field::bsel);
    if (op.kind == OperandKind::Sreg) fn(op.field);
  }
}

std::string check_register_tuple(const char* what, uint64_t reg, unsigned width) {
  if (width == 1 || reg == kRZ) return {};
  if (reg % width != 0 || reg + width > kRZ)
    return fmt::format("{} R{} must be {} (a {}-register tuple)", what, reg,
                       width == 2 ? "even" : "a multiple of 4", width);
  return {};
}

}  // namespace

Decoded decode(uint64_t word) {
  Decoded d;
  const InsnInfo* in = find_opcode(static_cast<uint8_t>(get(word, Field::op)));
  if (!in) {
    d.error = fmt::format("undefined opcode {:#04x}", get(word, Field::op));
    return d;
  }
  if (const uint64_t bad = (word ^ in->match) & in->mask; bad) {
    d.error = fmt::format("{}: reserved bits {:#018x} must be zero", in->mnemonic, bad);
    return d;
  }
  std::string err;
  for_each_enum_field(*in, [&](Field f) {
    const auto& fi = field_info(f);
    const uint64_t v = get(word, f);
    if (err.empty() && v >= enum_info(fi.enum_id).count)
      err = fmt::format("{}: field '{}' holds undefined value {}", in->mnemonic, fi.name, v);
  });
  for (unsigned i = 0; i < in->num_operands && err.empty(); ++i) {
    const auto& op = in->operands[i];
    const unsigned w = operand_width(op, word);
    if (op.kind == OperandKind::Reg || op.kind == OperandKind::Mem) {
      err = check_register_tuple(field_info(op.field).name, get(word, op.field), w);
    } else if (op.kind == OperandKind::B && b_source(word) == Bsel::REG) {
      err = check_register_tuple("rb", get(word, Field::rb), w);
    } else if (op.kind == OperandKind::B && b_source(word) == Bsel::CONST) {
      if (get(word, Field::coff) % (4 * w) != 0)
        err = fmt::format("constant offset {:#x} must be a multiple of {}", get(word, Field::coff), 4 * w);
    }
    if (!err.empty()) err = fmt::format("{}: {}", in->mnemonic, err);
  }
  if (!err.empty()) {
    d.error = std::move(err);
    return d;
  }
  d.insn = in;
  return d;
}

namespace {

// Shortest decimal that parses back to the same bits; NaNs (whose payload decimal cannot carry)
// and anything else that does not round-trip as raw bits with the given prefix.
template <typename Float, typename Bits>
std::string format_exact(Bits bits, const char* raw_prefix, int max_digits) {
  const Float f = std::bit_cast<Float>(bits);
  const std::string raw = fmt::format("{}{:0{}X}", raw_prefix, bits, 2 * sizeof(Bits));
  if (std::isnan(f)) return raw;
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  for (int prec = 1; prec <= max_digits; ++prec) {
    std::string s = fmt::format("{:.{}g}", f, prec);
    const Float back = sizeof(Float) == 4 ? std::strtof(s.c_str(), nullptr) : static_cast<Float>(std::strtod(s.c_str(), nullptr));
    if (std::bit_cast<Bits>(back) == bits) return s;
  }
  return raw;
}

}  // namespace

std::string format_f32(uint32_t bits) { return format_exact<float>(bits, "0f", 9); }
std::string format_f64(uint64_t bits) { return format_exact<double>(bits, "0d", 17); }

namespace {

std::string reg_name(uint64_t r) { return r == kRZ ? "RZ" : fmt::format("R{}", r); }
std::string pred_name(uint64_t p) { return p == kPT ? "PT" : fmt::format("P{}", p); }

std::string format_int(int64_t v) {
  if (v > -256 && v < 256) return fmt::format("{}", v);
  return v < 0 ? fmt::format("-{:#x}", -v) : fmt::format("{:#x}", v);
}

std::string signed_offset(int64_t v) {
  if (v == 0) return "";
  return v < 0 ? fmt::format("-{:#x}", -v) : fmt::format("+{:#x}", v);
}

bool flag(uint64_t word, Field f) { return f != Field::None && get(word, f) != 0; }

std::string decorate(std::string s, const OperandInfo& op, uint64_t word) {
  // A negated or inverted immediate is parenthesized so that -(5) never reads as the number -5.
  const bool imm = op.kind == OperandKind::B && b_source(word) == Bsel::IMM;
  if (imm && !flag(word, op.abs) && (flag(word, op.neg) || flag(word, op.inv))) s = "(" + s + ")";
  if (flag(word, op.abs)) s = "|" + s + "|";
  if (flag(word, op.neg)) s = "-" + s;
  if (flag(word, op.inv)) s = "~" + s;
  return s;
}

std::string const_offset(uint64_t bank, uint64_t off, const ConstNamer& consts) {
  if (consts) {
    std::string name = consts(static_cast<uint32_t>(bank), static_cast<uint32_t>(off));
    if (!name.empty()) return name;
  }
  return fmt::format("{:#x}", off);
}

std::string format_b(const OperandInfo& op, uint64_t word, const ConstNamer& consts) {
  switch (b_source(word)) {
    case Bsel::REG: return reg_name(get(word, Field::rb));
    case Bsel::CONST:
      return fmt::format("c[{}][{}]", get(word, Field::cbank), const_offset(get(word, Field::cbank), get(word, Field::coff), consts));
    default: break;
  }
  const uint64_t bits = b_immediate_bits(op, word);
  if (op.imm == ImmKind::F32) return format_f32(static_cast<uint32_t>(bits));
  if (op.imm == ImmKind::F64) return format_f64(bits);
  return format_int(static_cast<int64_t>(bits));
}

std::string format_operand(const OperandInfo& op, uint64_t word, int64_t pc, const LabelNamer& namer, const ConstNamer& consts) {
  switch (op.kind) {
    case OperandKind::Reg: return decorate(reg_name(get(word, op.field)), op, word);
    case OperandKind::Pred: return (flag(word, op.pneg) ? "!" : "") + pred_name(get(word, op.field));
    case OperandKind::B: return decorate(format_b(op, word, consts), op, word);
    case OperandKind::Imm32: return fmt::format("{:#x}", get(word, Field::imm32));
    case OperandKind::Mem: {
      const int64_t off = op.no_offset ? 0 : sign_extend(get(word, Field::moff), field_info(Field::moff).width);
      return fmt::format("[{}{}]", reg_name(get(word, op.field)), signed_offset(off));
    }
    case OperandKind::Cmem: {
      const uint64_t off = get(word, Field::coff);
      return fmt::format("c[{}][{}{}]", get(word, Field::cbank), reg_name(get(word, op.field)),
                         off == 0 ? "" : "+" + const_offset(get(word, Field::cbank), off, consts));
    }
    case OperandKind::Label: {
      const int64_t target = branch_target(word, pc);
      if (namer) {
        std::string name = namer(target);
        if (!name.empty()) return name;
      }
      const int64_t rel = target - pc;
      return rel < 0 ? fmt::format("{}", rel) : fmt::format("+{}", rel);
    }
    case OperandKind::Uimm: {
      const uint64_t v = get(word, op.field);
      return v < 10 ? fmt::format("{}", v) : fmt::format("{:#x}", v);
    }
    case OperandKind::Sreg:
      return fmt::format("SR_{}", enum_info(field_info(op.field).enum_id).values[get(word, op.field)]);
  }
  return "?";
}

bool at_default(const OperandInfo& op, uint64_t word) {
  if (op.kind == OperandKind::Pred) return get(word, op.field) == kPT && !flag(word, op.pneg);
  return get(word, op.field) == 0;
}

}  // namespace

std::string disassemble(uint64_t word, int64_t pc, const LabelNamer& namer, const ConstNamer& consts) {
  const Decoded d = decode(word);
  if (!d) return fmt::format(".word {:#018x}  // invalid: {}", word, d.error);
  const InsnInfo& in = *d.insn;
  std::string s;
  const uint64_t pg = get(word, Field::pg);
  if (pg != kPT || flag(word, Field::pgn)) s = fmt::format("@{}{} ", flag(word, Field::pgn) ? "!" : "", pred_name(pg));
  s += in.mnemonic;
  for (unsigned i = 0; i < in.num_mods; ++i) {
    const auto& fi = field_info(in.mods[i]);
    const uint64_t v = get(word, in.mods[i]);
    if (fi.kind == FieldKind::Flag) {
      if (v) s += fmt::format(".{}", fi.suffix);
    } else if (static_cast<int>(v) != fi.default_value) {
      s += fmt::format(".{}", enum_info(fi.enum_id).values[v]);
    }
  }
  unsigned n = in.num_operands;
  while (n > 0 && in.operands[n - 1].optional && at_default(in.operands[n - 1], word)) --n;
  for (unsigned i = 0; i < n; ++i) {
    s += i == 0 ? " " : ", ";
    s += format_operand(in.operands[i], word, pc, namer, consts);
  }
  return s;
}

}  // namespace tsm::isa
