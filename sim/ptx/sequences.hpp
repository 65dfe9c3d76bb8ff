// Native instruction sequences for the PTX operations the ISA has no single instruction for
// (div.rn.f32, sqrt.rn.f32, integer div/rem, 64-bit helpers, saturating integer cvt ...), as
// assembly templates the translator instantiates with its own registers and labels. Algorithms,
// costs and register budgets: docs/lowering-sequences.md.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tsm::ptx {

/// A register or predicate operand of a sequence, written "%name" in its body.
struct Placeholder {
  std::string name;  // "%a", "%d", "%t0", "%w0", "%p0" ...
  /// Reg: one 32-bit register. Pair: an aligned 64-bit register pair, written "%x" where the
  /// instruction takes a pair and "%x.lo" / "%x.hi" for its low (even) and high register.
  /// Pred: a predicate P0..P6.
  enum class Kind { Reg, Pair, Pred } kind;
};

/// One PTX operation as native assembly. The body is entered at its first line and left by
/// falling off its last (no EXIT, RET or branch out); divergent parts are closed with SSY/SYNC
/// inside the body, so it needs two free reconvergence-stack entries when it has an SSY.
///
/// Contract for the translator:
/// - inputs are only read; temps are scratch, fresh per instantiation, and hold nothing on entry;
/// - every output is written after the last read of every input on each path, so an output may
///   share its register (or pair, or predicate) with an input of the same kind;
/// - treat inputs, outputs and temps as live across the whole body (it is one single-entry,
///   single-exit region with internal branches);
/// - local labels are written "%L0", "%L1" ... and must become names unique in the function;
/// - the body uses no register or predicate other than its placeholders, RZ and PT, and at most
///   four predicate temps.
struct Sequence {
  std::string name;                 // the PTX operation, e.g. "div.rn.f32", "cvt.sat.s8.s32"
  std::vector<Placeholder> inputs;  // read
  std::vector<Placeholder> outputs; // written
  std::vector<Placeholder> temps;   // scratch, fresh per instantiation
  std::string body;                 // lines of native assembly with %placeholders and %L labels
};

/// Every sequence, in a fixed order. Names are unique; PTX spellings of one operation (e.g.
/// setp.lo.u64 and setp.lt.u64, mul.lo.s64 and mul.lo.u64) each have their own entry.
const std::vector<Sequence>& sequences();

/// The sequence for a PTX operation name, or nullptr.
const Sequence* find_sequence(std::string_view name);

/// Concrete operands for instantiate(): placeholder name -> register number (Reg; Pair: its
/// first, even register) or predicate number (Pred).
using Bindings = std::map<std::string, unsigned, std::less<>>;

/// The body with placeholders replaced by R<n>/P<n> and every "%Lk" by "<label_prefix>Lk", ready
/// for the assembler. Throws std::invalid_argument if a placeholder is unbound, a pair is not
/// even, or the body names an unknown placeholder.
std::string instantiate(const Sequence& seq, const Bindings& bindings, std::string_view label_prefix);

}  // namespace tsm::ptx
