// ISA access layer over the generated tables: field access, decoding with validation, operand
// widths and disassembly. Everything here is driven by isa/isa.toml through tsm/isa_gen.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tsm/isa_gen.hpp"

namespace tsm::isa {

using gen::Field;
using gen::FieldInfo;
using gen::InsnInfo;
using gen::OperandInfo;
using gen::OperandKind;

inline constexpr unsigned kRZ = gen::kRz;
inline constexpr unsigned kPT = gen::kPt;

constexpr const FieldInfo& field_info(Field f) { return gen::kFields[static_cast<size_t>(f)]; }

constexpr uint64_t field_mask(Field f) {
  const auto& fi = field_info(f);
  return (fi.width == 64 ? ~0ull : ((1ull << fi.width) - 1)) << fi.lsb;
}

constexpr uint64_t get(uint64_t word, Field f) {
  const auto& fi = field_info(f);
  return (word & field_mask(f)) >> fi.lsb;
}

constexpr uint64_t set(uint64_t word, Field f, uint64_t value) {
  const auto& fi = field_info(f);
  return (word & ~field_mask(f)) | ((value << fi.lsb) & field_mask(f));
}

/// Sign-extend the low `bits` bits of v.
constexpr int64_t sign_extend(uint64_t v, unsigned bits) {
  const uint64_t m = 1ull << (bits - 1);
  v &= (bits == 64) ? ~0ull : ((1ull << bits) - 1);
  return static_cast<int64_t>((v ^ m) - m);
}

const gen::EnumInfo& enum_info(gen::EnumId id);

/// The instruction with this mnemonic, or nullptr.
const InsnInfo* find_mnemonic(std::string_view mnemonic);
/// The instruction with this opcode, or nullptr.
const InsnInfo* find_opcode(uint8_t opcode);

/// Decoding result: the instruction, or why the word is not a valid instruction.
struct Decoded {
  const InsnInfo* insn = nullptr;
  std::string error;  // empty when insn is set
  explicit operator bool() const { return insn != nullptr; }
};

/// Decode and fully validate a word: opcode, must-be-zero bits, enum ranges, register alignment
/// of pairs and quads. The same rules as the RTL's generated insn_valid(), plus alignment.
Decoded decode(uint64_t word);

/// Registers occupied by a register operand (1, 2 or 4) in this encoding.
unsigned operand_width(const OperandInfo& op, uint64_t word);

/// Does the instruction read operand B from a register, a constant bank or an immediate?
gen::Bsel b_source(uint64_t word);

/// The value of a 20-bit immediate operand B as the instruction sees it: sign-extended integer,
/// or the float/double whose top 20 bits are the field.
uint64_t b_immediate_bits(const OperandInfo& op, uint64_t word);

/// Branch target PC of a label operand.
inline int64_t branch_target(uint64_t word, int64_t pc) {
  return pc + sign_extend(get(word, Field::target), field_info(Field::target).width);
}

/// Names a branch target for the disassembler; return empty to print a relative offset.
using LabelNamer = std::function<std::string(int64_t target)>;

/// Names a constant-bank offset (a parameter, constant or global slot, maybe "name+4"); return
/// empty to print the number.
using ConstNamer = std::function<std::string(uint32_t bank, uint32_t offset)>;

/// One line of assembly for a word; `pc` places branch targets. Invalid words print as `.word`.
std::string disassemble(uint64_t word, int64_t pc = 0, const LabelNamer& namer = {}, const ConstNamer& consts = {});

/// Format a float so that parsing it back gives the same bits (shortest exact decimal, or 0f/0d
/// hex for NaN payloads).
std::string format_f32(uint32_t bits);
std::string format_f64(uint64_t bits);

}  // namespace tsm::isa
