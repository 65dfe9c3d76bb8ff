// The PTX abstract syntax tree: what the parser produces and the translator lowers. Flat and
// name-based; every node keeps its source position for file:line:column errors.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tsm::ptx {

struct Loc {
  int line = 0;
  int col = 0;
};

/// A PTX error at a source position; what() reads "file:line:col: error: message".
class PtxError : public std::runtime_error {
 public:
  PtxError(const std::string& file, Loc loc, const std::string& message);
  std::string file;
  Loc loc;
  std::string message;
};

enum class Space { Reg, SReg, Param, Global, Shared, Local, Const, Generic };

/// A scalar PTX type: .b8 .. .b64, .u8 .. .u64, .s8 .. .s64, .f16 .. .f64, .pred.
struct Type {
  enum class Kind { B, U, S, F, Pred } kind = Kind::B;
  unsigned bits = 32;
  std::string str() const;  // "u32", "pred", ...
};

struct Operand {
  enum class Kind {
    Reg,      // %r1, %rd2, %p1, %f3, a user name; `neg` for !%p in predicate operands
    Special,  // %tid.x, %ctaid.y, %laneid, %clock64, %lanemask_lt, ... (name includes the component)
    Imm,      // integer literal (decimal, hex, octal, binary; U suffix) in `imm`
    FImm,     // floating literal: 0fXXXXXXXX (f32 bits) or 0dXXXXXXXXXXXXXXXX (f64 bits) or decimal, in `fbits`/`f64`
    Symbol,   // a variable, function or label name used as a value (mov.u64 %rd1, $str;)
    Address,  // [base], [base+off], [base-off], [off]: `base` is a register or symbol name (empty for [imm])
    Vector,   // {a, b, c, d} in `elems`
    Discard,  // _ (an ignored destination)
  } kind = Kind::Reg;
  std::string name;  // Reg/Special/Symbol name, or Address base
  int64_t imm = 0;   // Imm value, or Address offset
  uint64_t fbits = 0;
  bool f64 = false;
  bool neg = false;  // !%p
  std::vector<Operand> elems;
  Loc loc;
};

struct Instruction {
  Loc loc;
  std::string guard;  // predicate register, empty if unguarded
  bool guard_neg = false;
  std::string opcode;              // "add", "ld", "setp", "bra", "call", ...
  std::vector<std::string> mods;   // modifiers in source order without dots: {"rn", "ftz", "f32"}
  std::vector<Operand> operands;   // for call: {return-value Vector (maybe empty), Symbol callee, argument Vector}
};

struct Statement {
  enum class Kind { Label, Instr } kind = Kind::Instr;
  std::string label;  // Kind::Label
  Instruction instr;  // Kind::Instr
  Loc loc;
};

/// A declaration: .reg/.shared/.local/.global/.const/.param variable, or a register range %r<10>.
struct VarDecl {
  Space space = Space::Reg;
  Type type;
  unsigned vector = 1;       // .v2/.v4
  std::string name;          // for a range "%r<10>": name "%r", range 10 (declares %r0..%r9)
  unsigned range = 0;        // 0: a single name
  uint32_t align = 0;        // .align N, 0 if absent
  std::vector<uint64_t> dims;  // array dimensions ([] with no size gives 0: extern/unsized)
  bool is_extern = false;
  bool is_visible = false;
  std::vector<uint64_t> init;             // initializer elements as raw bits of `type`
  std::vector<std::string> init_symbols;  // generic(sym)/sym initializers for pointers, per element ("" = numeric)
  // Added by the parser: per element, the mask of nvcc's byte-of-an-address form 0xFF00(generic(sym)+off)
  // (packed structs holding pointers): the element is ((address + off) & mask) >> ctz(mask). 0 = the whole
  // value. For address elements `init` holds the offset.
  std::vector<uint64_t> init_masks;
  bool has_init = false;
  bool ptr = false;          // .param .ptr attribute
  Space ptr_space = Space::Generic;
  Loc loc;
};

struct Function {
  bool is_entry = false;
  bool is_visible = false;
  bool is_extern = false;    // declaration only (e.g. vprintf)
  std::string name;
  std::vector<VarDecl> returns;  // .func (.param .b32 retval) name (...)
  std::vector<VarDecl> params;
  std::vector<VarDecl> decls;    // everything declared in the body, nested blocks flattened
  std::vector<Statement> body;   // nested { } blocks flattened; names declared inside a nested block
                                 // are made unique by the parser (suffix "$<n>") and references rewritten
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t minnctapersm = 0;
  uint32_t maxnreg = 0;
  Loc loc;
};

struct Module {
  std::string file;
  unsigned version_major = 0, version_minor = 0;
  std::string target;       // "sm_75"
  unsigned address_size = 64;
  std::vector<VarDecl> globals;  // module-scope .global/.const/.shared variables, in order
  std::vector<Function> functions;
};

/// Parse a PTX module. Throws PtxError on the first syntax error.
Module parse(std::string_view text, std::string_view file);

}  // namespace tsm::ptx
