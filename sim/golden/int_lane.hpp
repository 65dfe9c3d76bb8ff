// One SP lane's integer instruction (IADD ... PLOP) as a pure function of the instruction word and
// the operand values the lane reads: the golden model executes integer instructions through it and
// the RTL ALU's testbench (tests/rtl/alu32_test.cpp) holds rtl/sm/tsm_alu32.sv to it, so the two
// share one statement of the semantics.
#pragma once

#include <cstdint>
#include <optional>

#include "isa/isa.hpp"

namespace tsm::golden {

/// What one lane's integer instruction produces. Values the instruction does not write are defined
/// too (d, d_hi zero; preds the input predicates), as the RTL produces them.
struct IntLaneResult {
  uint32_t d = 0;        ///< Rd (the low word of a wide result)
  uint32_t d_hi = 0;     ///< Rd+1 of IMUL/IMAD .WIDE, else 0
  bool d_we = false;     ///< writes Rd (the caller discards writes to RZ)
  bool d_wide = false;   ///< writes the pair Rd, Rd+1
  uint8_t preds = 0x80;  ///< the lane's predicates after the instruction; bit 7 (PT) is always 1
  uint8_t preds_we = 0;  ///< predicates written (never PT: writes to it are discarded)
};

/// Executes integer instruction `insn` for one lane. `a` is register A (0 where the instruction
/// reads none), `b` operand B already resolved (register, constant or immediate; LOP3: register
/// rb), `c` register C (IMAD.WIDE: the pair C as `c_hi:c`), `preds` the lane's P0..P6 in bits 6:0
/// (bit 7 is read as PT = true whatever it holds). The guard predicate is the caller's business.
/// nullopt when the opcode is not an integer instruction.
std::optional<IntLaneResult> int_lane(uint64_t insn, uint32_t a, uint32_t b, uint32_t c, uint32_t c_hi, uint8_t preds);

/// PTX prmt.b32.mode: bytes of the pair {b, a} (a = bytes 3..0) selected by `sel`.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel, isa::gen::Prmt mode);
/// PTX bfe: the field of `a` at position packed[7:0], length packed[15:8], zero- or sign-extended.
uint32_t bfe(uint32_t a, uint32_t packed, bool is_signed);
/// PTX bfi: `base` with the field at position packed[7:0], length packed[15:8] (the bits of it
/// below 32) replaced by the low bits of `insert`.
uint32_t bfi(uint32_t insert, uint32_t packed, uint32_t base);
/// a icmp b, as signed or unsigned 32-bit integers.
bool compare_int(isa::gen::Icmp op, uint32_t a, uint32_t b, bool is_signed);
/// A comparison result combined with Ps (ISETP, FSETP, DSETP, PLOP).
bool combine(isa::gen::Bop op, bool t, bool s);

}  // namespace tsm::golden
