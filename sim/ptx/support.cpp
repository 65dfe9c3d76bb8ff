// The supported-instruction table (kept next to lower.cpp, which implements each row).
#include "ptx/support.hpp"

#include <fmt/format.h>

namespace tsm::ptx {

const std::vector<SupportEntry>& support_table() {
  static const std::vector<SupportEntry> table = {
      {"ld", "b/u/s 8-64, f32, f64; .v2/.v4", "global, shared, local, const, param, generic; nc, volatile, cache hints ignored",
       "LDG/LDS/LDL/LD (.E for 64-bit addresses), LDC, parameters as c[0] operands", ""},
      {"ldu", "as ld", "global", "LDG", ""},
      {"st", "b/u/s 8-64, f32, f64; .v2/.v4", "global, shared, local, generic; param of calls", "STG/STS/STL/ST; MOV/BFI into parameter registers", "st.param to kernel parameters"},
      {"mov", "all, pred", "special registers, symbols (addresses of variables)", "MOV, S2R, PLOP", ""},
      {"cvta", "u32, u64", "global, shared, local; to", "MOV, or IADD of the window base in c[0]", "other state spaces"},
      {"add", "s/u 32/64, f32, f64", "sat (s32), rn rz rm rp, ftz, sat (f32)", "IADD (carry chain for 64-bit), FADD, DADD", "f16; f64 without a DP unit"},
      {"sub", "s/u 32/64, f32, f64", "as add", "IADD with negated B, FADD, DADD", "f16"},
      {"mul", "s/u 32/64, f32, f64", "lo, hi, wide; rn rz rm rp, ftz, sat", "IMUL.LO/HI/WIDE, 64-bit lo as three multiplies, mul.hi.64 sequence, FMUL, DMUL; without a DP unit the mul.rn.f64 sequence",
       "f64 other than .rn without a DP unit"},
      {"mul24", "s32, u32", "lo, hi", "BFE of the low 24 bits, then IMUL (lo) or IMUL.WIDE and a shift (hi)", ""},
      {"mad24", "s32, u32", "lo", "BFE of the low 24 bits, then IMAD", "mad24.hi"},
      {"copysign", "f32, f64", "", "SHR of the sign, BFI into the magnitude", ""},
      {"mad", "s/u 32/64, f32, f64", "lo, hi, wide; rn..., ftz, sat", "IMAD, FFMA, DFMA", "mad.hi.64, mad.cc"},
      {"fma", "f32, f64", "rn rz rm rp, ftz, sat", "FFMA, DFMA", "f64 without a DP unit"},
      {"min", "s/u 32/64, f32, f64", "ftz, NaN", "IMNMX, 64-bit sequence, FMNMX, DMNMX", ""},
      {"max", "s/u 32/64, f32, f64", "ftz, NaN", "IMNMX, 64-bit sequence, FMNMX, DMNMX", ""},
      {"neg", "s32, s64, f32, f64", "ftz", "IADD from RZ, F2F with negated source, DADD", ""},
      {"abs", "s32, s64, f32, f64", "ftz", "IMNMX of x and -x, (x ^ s) - s for 64-bit, F2F with |x|, DADD", ""},
      {"and", "b32, b64, pred", "", "LOP.AND, PLOP.AND", ""},
      {"or", "b32, b64, pred", "", "LOP.OR, PLOP.OR", ""},
      {"xor", "b32, b64, pred", "", "LOP.XOR, PLOP.XOR", ""},
      {"not", "b32, b64, pred", "", "LOP.PASS_B of ~x, PLOP", ""},
      {"lop3", "b32", "immLut", "LOP3", ""},
      {"shl", "b32, b64", "", "SHL, SHF for 64-bit, a sequence for 64-bit register amounts", ""},
      {"shr", "b/u/s 32, 64", "", "SHR, SHF for 64-bit, a sequence for 64-bit register amounts", ""},
      {"shf", "b32", "l, r, clamp, wrap", "SHF", ""},
      {"setp", "b/u/s 32/64, f32, f64", "all comparisons incl. unsigned aliases and NaN variants; and/or/xor with a predicate; ftz",
       "ISETP, FSETP, DSETP (DP unit), sequences for 64-bit integers", "f64 without a DP unit"},
      {"selp", "b/u/s 32/64, f32, f64", "", "SEL", ""},
      {"cvt", "all integer and float pairs", "rn rz rm rp, rni rzi rmi rpi, ftz, sat", "I2F, F2I, F2F, BFE/MOV/SHR for integer widths, cvt.sat sequences; f32->f64 always, and without a DP unit "
       "int->f64 and f64->f32 (.rn), as integer sequences", "other f64 conversions without a DP unit"},
      {"rcp", "f32", "rn, approx, ftz", "MUFU.RCP; rcp.rn as a correctly rounded sequence", ""},
      {"rsqrt", "f32", "approx, ftz", "MUFU.RSQ", ""},
      {"sqrt", "f32", "rn, approx, ftz", "sequences around MUFU.RSQ (sqrt.rn correctly rounded)", ""},
      {"div", "s/u 32/64, f32", "rn, full, approx, ftz", "sequences: correctly rounded div.rn.f32 (MUFU.RCP + FFMA refinement, scaled slow path), integer division by reciprocal estimate", "predicated division (a guard on the PTX instruction); f32 rz, rm, rp (an error)"},
      {"rem", "s/u 32/64", "", "integer division sequences", "predicated remainder"},
      {"sad", "s32, u32", "", "both differences (IADD), ISETP and SEL of the non-negative one, IADD of c", "16- and 64-bit types"},
      {"bfind", "u32, s32, u64, s64", "shiftamt", "sequences over CLZ", ""},
      {"ex2", "f32", "approx, ftz", "MUFU.EX2", ""},
      {"lg2", "f32", "approx, ftz", "MUFU.LG2", ""},
      {"sin", "f32", "approx, ftz", "MUFU.SIN", ""},
      {"cos", "f32", "approx, ftz", "MUFU.COS", ""},
      {"popc", "b32, b64", "", "POPC (64-bit: sequence)", ""},
      {"clz", "b32, b64", "", "CLZ (64-bit: sequence)", ""},
      {"brev", "b32, b64", "", "BREV (64-bit: sequence)", ""},
      {"bfe", "u32, s32, u64, s64", "", "BFE with packed position/length; 64-bit by shifts", "64-bit with register position or length"},
      {"bfi", "b32, b64", "", "BFI; per word for b64", "b64 with register position or length"},
      {"prmt", "b32", "f4e b4e rc8 ecl ecr rc16", "PRMT", ""},
      {"atom", "b/u/s 32/64, f32", "global, shared, generic; add min max inc dec exch cas and or xor", "ATOM, ATOMS, ATOMCAS, ATOMSCAS",
       "offsets on 64-bit addresses, f64"},
      {"red", "as atom", "as atom", "ATOM/ATOMS with RZ destination", "as atom"},
      {"bar", "", "sync, arrive, red.popc/and/or; barrier ids and counts as immediates", "BAR, BRED", "register ids and counts"},
      {"barrier", "", "sync, arrive, aligned", "BAR", "register ids and counts"},
      {"membar", "", "cta, gl, sys", "MEMBAR", ""},
      {"fence", "", "cta, gpu, sys; acq_rel, sc", "MEMBAR", ""},
      {"vote", "pred, b32", "sync; all, any, uni, ballot", "VOTE", ""},
      {"activemask", "b32", "", "VOTE.ANY of PT", ""},
      {"shfl", "b32", "sync; idx, up, down, bfly; predicate output", "SHFL", ""},
      {"bra", "", "uni", "BRA, with SSY/SYNC or PBK/BRK placed by the reconvergence pass", "loops with several exit targets"},
      {"call", "", "uni; direct calls of device functions defined in the module, vprintf, __assertfail",
       "the callee's body inlined (parameters in registers); vprintf: a printf-buffer record (ATOM.ADD, STG); __assertfail: "
       "a message record and TRAP", "indirect calls, recursion, separately compiled functions"},
      {"ret", "", "", "EXIT in kernels, a branch to the call site's continuation in inlined functions", ""},
      {"exit", "", "", "EXIT", ""},
      {"trap", "", "", "TRAP", ""},
      {"brkpt", "", "", "TRAP", ""},
  };
  return table;
}

const SupportEntry* find_support(std::string_view opcode) {
  for (const auto& e : support_table())
    if (opcode == e.opcode) return &e;
  return nullptr;
}

std::string support_markdown() {
  std::string s =
      "<!-- Generated by tsm-tool ptx-support from the translator's table (sim/ptx/support.cpp): do not edit; run ./tsm docs. -->\n"
      "# PTX supported by the translator\n\n"
      "Every PTX instruction the translator accepts, with what it becomes on the TeslaSM ISA ([isa.md](isa.md)). "
      "Anything else is refused with `file:line:col: error: unsupported PTX instruction ...`. How the pieces fit together: "
      "[translator.md](translator.md).\n\n"
      "| PTX | types | modifiers | native instructions | not yet supported |\n|---|---|---|---|---|\n";
  for (const auto& e : support_table())
    s += fmt::format("| `{}` | {} | {} | {} | {} |\n", e.opcode, e.types, e.modifiers, e.lowering, *e.limits ? e.limits : "—");
  s += "\nNot supported at all yet: textures and surfaces, f16 arithmetic, indirect calls and recursion.\n";
  return s;
}

}  // namespace tsm::ptx
