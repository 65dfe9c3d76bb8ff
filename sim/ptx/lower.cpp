// Instruction selection from PTX to machine IR (docs/translator.md §3). Each PTX instruction
// becomes native instructions written as assembly templates over virtual registers.
#include "ptx/lower.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "isa/assembler.hpp"
#include "isa/isa.hpp"
#include "ptx/builder.hpp"
#include "ptx/sequences.hpp"
#include "ptx/support.hpp"
#include "runtime/printf.hpp"

namespace tsm::ptx {

namespace g = isa::gen;

namespace {

std::optional<Type> parse_type(std::string_view m) {
  if (m == "pred") return Type{Type::Kind::Pred, 1};
  if (m.size() < 2) return std::nullopt;
  Type t;
  switch (m[0]) {
    case 'b': t.kind = Type::Kind::B; break;
    case 'u': t.kind = Type::Kind::U; break;
    case 's': t.kind = Type::Kind::S; break;
    case 'f': t.kind = Type::Kind::F; break;
    default: return std::nullopt;
  }
  const std::string_view bits = m.substr(1);
  if (bits == "8") t.bits = 8;
  else if (bits == "16") t.bits = 16;
  else if (bits == "32") t.bits = 32;
  else if (bits == "64") t.bits = 64;
  else return std::nullopt;
  return t;
}

MBlock named_block(std::string label) {
  MBlock b;
  b.label = std::move(label);
  return b;
}

struct Reg {
  uint32_t vreg = 0;
  Type type;
};

/// A source value: a virtual register, an immediate (raw bits) or a constant-bank word.
struct Val {
  enum class Kind { V, Imm, Const } kind = Kind::V;
  uint32_t vreg = 0;
  uint64_t imm = 0;
  uint32_t bank = 0, off = 0;
};

class Lowering;

/// Collects one template's placeholders.
class Em {
 public:
  explicit Em(Lowering& l) : l_(l) {}
  std::string r(uint32_t vreg) {
    regs_.push_back(vreg);
    return fmt::format("%{}", regs_.size() - 1);
  }
  std::string hi(uint32_t vreg) {
    regs_.push_back(vreg);
    return fmt::format("%{}h", regs_.size() - 1);
  }
  std::string part(uint32_t vreg, unsigned k) {
    regs_.push_back(vreg);
    return k == 0 ? fmt::format("%{}", regs_.size() - 1) : k == 1 ? fmt::format("%{}h", regs_.size() - 1) : fmt::format("%{}.{}", regs_.size() - 1, k);
  }
  std::string p(uint32_t vpred) {
    preds_.push_back(vpred);
    return fmt::format("%p{}", preds_.size() - 1);
  }
  /// Operand B (32-bit, or the low/high word of a 64-bit value): register, constant or immediate.
  std::string b(const Val& v, bool high = false, bool float_imm = false);
  MInst& operator()(const std::string& text);

 private:
  Lowering& l_;
  std::vector<uint32_t> regs_, preds_;
};

class Lowering {
 public:
  Lowering(const Module& mod, const Function& fn, const Layout& layout) : mod_(mod), fn_(fn), layout_(layout) {
    f_.name = fn.name;
  }

  MFunction run();

  // ---- used by Em ----
  MInst& append(MInst m) {
    f_.blocks[cur_].insts.push_back(std::move(m));
    return f_.blocks[cur_].insts.back();
  }
  Loc loc() const { return loc_; }
  uint32_t temp(uint8_t width = 1) { return f_.new_vreg(width); }
  uint32_t temp_pred() { return f_.new_vreg(1, true); }
  uint32_t materialize32(uint32_t bits) {
    const uint32_t t = temp();
    Em e(*this);
    e(fmt::format("MOV32I {}, {:#x}", e.r(t), bits));
    return t;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw PtxError(mod_.file, loc_, what); }
  [[noreturn]] void no_dp_unit(const Instruction& in) const {
    std::string full = in.opcode;
    for (const auto& m : in.mods) full += "." + m;
    fail(fmt::format("'{}' needs a DP unit: configuration {} has none and the translator has no integer sequence for it "
                     "(compile with --config gt200, or see docs/lowering-sequences.md)",
                     full, layout_.config));
  }
  [[noreturn]] void unsupported(const Instruction& in) const {
    std::string full = in.opcode;
    for (const auto& m : in.mods) full += "." + m;
    fail(fmt::format("unsupported PTX instruction '{}' (see docs/ptx-support.md)", full));
  }

  void declare_registers();
  void find_constant_addresses();
  int block_of(const std::string& label) const;
  void select(const Instruction& in);
  void guarded(const Instruction& in);

  // operands
  const Reg& reg(const Operand& op) const;
  uint32_t dst(const Operand& op) const { return reg(op).vreg; }
  Val value(const Operand& op, const Type& t);
  uint32_t vreg_value(const Operand& op, const Type& t);  // forced into a register
  uint32_t pred_value(const Operand& op, bool& neg);
  Type type_of(const Instruction& in, size_t nth = 0) const;
  bool has(const Instruction& in, std::string_view mod) const {
    return std::find(in.mods.begin(), in.mods.end(), mod) != in.mods.end();
  }
  Space space_of(const Instruction& in) const;

  // families
  void mov(const Instruction& in);
  void mov_vector(const Instruction& in);
  void int_arith(const Instruction& in);
  void float_arith(const Instruction& in);
  void logic(const Instruction& in);
  void shift(const Instruction& in);
  void setp(const Instruction& in);
  void selp(const Instruction& in);
  void cvt(const Instruction& in);
  void cvta(const Instruction& in);
  void load_store(const Instruction& in);
  void atomic(const Instruction& in);
  void special_function(const Instruction& in);
  void control(const Instruction& in);
  void sync(const Instruction& in);
  void warp(const Instruction& in);
  void bits(const Instruction& in);
  void bfe64(const Instruction& in);
  void bfi64(const Instruction& in);
  void mul24(const Instruction& in);
  void copysign(const Instruction& in);
  void call(const Instruction& in);
  void call_param(const Instruction& in, bool load, const Type& t, unsigned vec);
  uint32_t param_word(const std::string& symbol, uint32_t word);
  uint32_t pair_of_param(const std::string& symbol);
  std::string format_string(const Instruction& call, const std::string& param) const;
  uint32_t printf_reserve(uint32_t record_bytes, uint32_t& fits);
  void guard_with(MInst& m, uint32_t pred, bool neg = false);
  void extend_loaded(uint32_t d, const Type& t);
  bool sequence(const std::string& name, const std::vector<uint32_t>& ins, const std::vector<uint32_t>& outs);
  void shr64_imm(uint32_t d, uint32_t a, uint32_t n, bool arith);

  // helpers
  std::string addr_reg_and_offset(Em& e, const Operand& addr, Space sp, bool& wide, int64_t& off);
  void copy(uint32_t d, uint32_t s, uint8_t width);

  const Module& mod_;
  const Function& fn_;
  const Layout& layout_;
  MFunction f_;
  std::map<std::string, Reg, std::less<>> regs_;
  // 8- and 16-bit integers live in 32-bit registers whose upper bits are not kept clean (add,
  // and, shl... only need the low bits right). Instructions whose result depends on the upper
  // bits set this, and value() extends such operands (BFE) and immediates to 32 bits first.
  bool extend_narrow_ = false;
  // Registers that only ever hold the address of a local or shared variable plus a constant and
  // are only used as local/shared load/store addresses (nvcc's %SPL + k per array element): folded
  // into the address offsets, never materialized (ptxas does the same).
  std::map<std::string, int64_t, std::less<>> const_addr_;
  std::set<const Instruction*> const_addr_defs_;
  std::map<std::string, int, std::less<>> labels_;
  int cur_ = 0;
  Loc loc_;
  int sequences_ = 0;  // instantiated sequences, for unique labels
  // Call parameters (and the parameters of inlined device functions), one vreg per 32-bit word.
  std::map<std::pair<std::string, uint32_t>, uint32_t> param_words_;
  uint32_t guard_pred_ = 0;
  bool guard_neg_ = false;
  bool check_widths_ = false;  // value() insists that registers match the instruction's type size
};

std::string Em::b(const Val& v, bool high, bool float_imm) {
  switch (v.kind) {
    case Val::Kind::V: return high ? hi(v.vreg) : r(v.vreg);
    case Val::Kind::Const: return fmt::format("c[{}][{:#x}]", v.bank, v.off + (high ? 4 : 0));
    case Val::Kind::Imm: break;
  }
  const uint32_t bits = static_cast<uint32_t>(high ? v.imm >> 32 : v.imm);
  if (float_imm) {
    if ((bits & 0xFFF) == 0) return isa::format_f32(bits);
  } else {
    const auto s = static_cast<int32_t>(bits);
    if (s >= -(1 << 19) && s < (1 << 19)) return fmt::format("{}", s);
  }
  return r(l_.materialize32(bits));
}

MInst& Em::operator()(const std::string& text) { return l_.append(build_inst(text, regs_, preds_, l_.loc())); }

// ---- registers and operands --------------------------------------------------------------------

void Lowering::declare_registers() {
  for (const VarDecl& d : fn_.decls) {
    if (d.space != Space::Reg) continue;
    const uint8_t width = d.type.kind == Type::Kind::Pred ? 1 : (d.type.bits == 64 ? 2 : 1) * static_cast<uint8_t>(d.vector);
    auto add = [&](const std::string& name) {
      regs_[name] = Reg{f_.new_vreg(width, d.type.kind == Type::Kind::Pred), d.type};
    };
    if (d.range) {
      for (unsigned i = 0; i < d.range; ++i) add(d.name + std::to_string(i));
    } else {
      add(d.name);
    }
  }
}

const Reg& Lowering::reg(const Operand& op) const {
  auto it = regs_.find(op.name);
  if (it == regs_.end()) fail(fmt::format("register '{}' is not declared", op.name));
  return it->second;
}

Type Lowering::type_of(const Instruction& in, size_t nth) const {
  size_t seen = 0;
  for (const auto& m : in.mods) {
    if (auto t = parse_type(m)) {
      if (seen++ == nth) return *t;
    }
  }
  fail(fmt::format("'{}' needs a type", in.opcode));
}

Space Lowering::space_of(const Instruction& in) const {
  for (const auto& m : in.mods) {
    if (m == "global") return Space::Global;
    if (m == "shared") return Space::Shared;
    if (m == "local") return Space::Local;
    if (m == "const") return Space::Const;
    if (m == "param") return Space::Param;
  }
  return Space::Generic;
}

Val Lowering::value(const Operand& op, const Type& t) {
  Val v;
  switch (op.kind) {
    case Operand::Kind::Reg: {
      const Reg& r = reg(op);
      // Arithmetic and logic take registers of exactly their type's size (ptxas rejects the rest).
      if (check_widths_ && r.type.kind != Type::Kind::Pred && t.kind != Type::Kind::Pred && (r.type.bits == 64) != (t.bits == 64))
        fail(fmt::format("operand '{}' is a {}-bit register, but the instruction operates on .{}", op.name, r.type.bits, t.str()));
      v.vreg = r.vreg;
      if (extend_narrow_ && t.bits < 32 && t.kind != Type::Kind::F && t.kind != Type::Kind::Pred) {
        v.vreg = temp();
        Em e(*this);
        e(fmt::format("BFE.{} {}, {}, {:#x}", t.kind == Type::Kind::S ? "S32" : "U32", e.r(v.vreg), e.r(r.vreg), t.bits << 8));
      }
      return v;
    }
    case Operand::Kind::Imm:
      v.kind = Val::Kind::Imm;
      v.imm = static_cast<uint64_t>(op.imm);
      if (t.bits < 64) v.imm &= 0xFFFFFFFFu;
      if (t.bits < 32 && t.kind != Type::Kind::F) {  // a 16-bit immediate is its low 16 bits, extended by the type
        const uint32_t low = static_cast<uint32_t>(op.imm) & ((1u << t.bits) - 1);
        const bool negative = t.kind == Type::Kind::S && (low >> (t.bits - 1)) != 0;
        v.imm = negative ? (low | ~((1u << t.bits) - 1)) : low;
      }
      return v;
    case Operand::Kind::FImm: {
      v.kind = Val::Kind::Imm;
      if (t.bits == 64) v.imm = op.f64 ? op.fbits : std::bit_cast<uint64_t>(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(op.fbits))));
      else v.imm = op.f64 ? std::bit_cast<uint32_t>(static_cast<float>(std::bit_cast<double>(op.fbits))) : op.fbits;
      return v;
    }
    case Operand::Kind::Special: {
      static const std::map<std::string, std::string, std::less<>> kSpecial = {
          {"%tid.x", "SR_TID_X"}, {"%tid.y", "SR_TID_Y"}, {"%tid.z", "SR_TID_Z"},
          {"%ntid.x", "SR_NTID_X"}, {"%ntid.y", "SR_NTID_Y"}, {"%ntid.z", "SR_NTID_Z"},
          {"%ctaid.x", "SR_CTAID_X"}, {"%ctaid.y", "SR_CTAID_Y"}, {"%ctaid.z", "SR_CTAID_Z"},
          {"%nctaid.x", "SR_NCTAID_X"}, {"%nctaid.y", "SR_NCTAID_Y"}, {"%nctaid.z", "SR_NCTAID_Z"},
          {"%laneid", "SR_LANEID"}, {"%warpid", "SR_WARPID"}, {"%nwarpid", "SR_NWARPID"},
          {"%smid", "SR_SMID"}, {"%nsmid", "SR_NSMID"}, {"%clock", "SR_CLOCK"},
          {"%lanemask_eq", "SR_LANEMASK_EQ"}, {"%lanemask_lt", "SR_LANEMASK_LT"}, {"%lanemask_le", "SR_LANEMASK_LE"},
          {"%lanemask_gt", "SR_LANEMASK_GT"}, {"%lanemask_ge", "SR_LANEMASK_GE"}};
      if (op.name == "%clock64") {
        const uint32_t t64 = temp(2);
        Em e(*this);
        e(fmt::format("S2R {}, SR_CLOCK", e.r(t64)));
        Em e2(*this);
        e2(fmt::format("S2R {}, SR_CLOCK_HI", e2.hi(t64)));
        v.vreg = t64;
        return v;
      }
      if (op.name == "%dynamic_smem_size") {
        v.kind = Val::Kind::Const;
        v.off = g::kC0DynShared;
        return v;
      }
      auto it = kSpecial.find(op.name);
      if (it == kSpecial.end() && op.name.rfind("%envreg", 0) == 0)
        fail(fmt::format("'{}' is the grid-synchronization workspace of cooperative groups (grid.sync()), which is not supported",
                         op.name));
      if (it == kSpecial.end()) fail(fmt::format("unsupported special register '{}'", op.name));
      v.vreg = temp(t.bits == 64 ? 2 : 1);
      Em e(*this);
      e(fmt::format("S2R {}, {}", e.r(v.vreg), it->second));
      if (t.bits == 64) {
        Em z(*this);
        z(fmt::format("MOV {}, RZ", z.hi(v.vreg)));
      }
      return v;
    }
    case Operand::Kind::Symbol: {
      if (op.name == "WARP_SZ") {  // PTX's predefined warp-size constant (nvcc's warpSize)
        v.kind = Val::Kind::Imm;
        v.imm = 32;
        return v;
      }
      auto it = layout_.symbols.find(op.name);
      if (it == layout_.symbols.end()) fail(fmt::format("unknown symbol '{}'", op.name));
      const Symbol& s = it->second;
      if (s.space == Space::Global) {  // the address slot in bank 1
        v.kind = Val::Kind::Const;
        v.bank = g::kCbankLiterals;
        v.off = s.offset;
        return v;
      }
      // A kernel parameter's address is its offset in bank 0, which ld.param through a register
      // reads with LDC (clang passes structures by value that way).
      if (s.space == Space::Param && op.kind == Operand::Kind::Symbol && !std::any_of(fn_.params.begin(), fn_.params.end(), [&](const VarDecl& d) { return d.name == op.name; }))
        fail(fmt::format("the address of parameter '{}' cannot be taken", op.name));
      // Shared and local addresses are offsets within their space; a constant variable's address
      // is its offset in bank 2, which ld.const through a register reads with LDC.
      v.kind = Val::Kind::Imm;
      v.imm = s.offset;
      return v;
    }
    default: fail("unexpected operand");
  }
}

uint32_t Lowering::vreg_value(const Operand& op, const Type& t) {
  const Val v = value(op, t);
  if (v.kind == Val::Kind::V) return v.vreg;
  const uint8_t width = t.bits == 64 ? 2 : 1;
  const uint32_t d = temp(width);
  Em e(*this);
  e(fmt::format("MOV {}, {}", e.r(d), e.b(v)));
  if (width == 2) {
    Em e2(*this);
    e2(fmt::format("MOV {}, {}", e2.hi(d), e2.b(v, true)));
  }
  return d;
}

uint32_t Lowering::pred_value(const Operand& op, bool& neg) {
  neg = op.neg;
  if (op.kind == Operand::Kind::Imm) {  // a constant predicate
    const uint32_t p = temp_pred();
    Em e(*this);
    e(fmt::format("ISETP.{}.U32 {}, PT, RZ, RZ", op.imm ? "EQ" : "NE", e.p(p)));  // RZ == RZ holds, RZ != RZ does not
    return p;
  }
  const Reg& r = reg(op);
  if (r.type.kind != Type::Kind::Pred) fail(fmt::format("'{}' is not a predicate", op.name));
  return r.vreg;
}

void Lowering::copy(uint32_t d, uint32_t s, uint8_t width) {
  for (unsigned k = 0; k < width; ++k) {
    Em e(*this);
    e(fmt::format("MOV {}, {}", e.part(d, k), e.part(s, k)));
  }
}

// ---- driver ------------------------------------------------------------------------------------

int Lowering::block_of(const std::string& label) const {
  auto it = labels_.find(label);
  if (it == labels_.end()) fail(fmt::format("undefined label '{}'", label));
  return it->second;
}

void Lowering::find_constant_addresses() {
  // Candidate definitions: unguarded `mov R, SYM` (SYM a local or shared variable) and
  // `add R, C, imm` / `add R, imm, C` with C a register of known value (nvcc: %SPL, which other
  // instructions may also need in a register). A register is folded when its value is known and
  // it is used only as the address of a local or shared ld/st or as the C of a folded add.
  struct Def {
    const Instruction* in;
    std::string src;  // empty for mov of a symbol
    int64_t add = 0;
  };
  std::map<std::string, std::vector<Def>, std::less<>> defs;
  std::map<std::string, int, std::less<>> other;  // appearances that are neither
  std::vector<std::pair<std::string, std::string>> feeds;  // (candidate add's result, its C)
  std::function<void(const Operand&)> mark = [&](const Operand& op) {
    if ((op.kind == Operand::Kind::Reg || op.kind == Operand::Kind::Address) && !op.name.empty()) ++other[op.name];
    for (const auto& e : op.elems) mark(e);
  };
  for (const Statement& st : fn_.body) {
    if (st.kind != Statement::Kind::Instr) continue;
    const Instruction& in = st.instr;
    const auto& ops = in.operands;
    const bool plain = in.guard.empty() && ops.size() >= 2 && ops[0].kind == Operand::Kind::Reg;
    if (plain && in.opcode == "mov" && ops.size() == 2 && ops[1].kind == Operand::Kind::Symbol) {
      auto sym = layout_.symbols.find(ops[1].name);
      if (sym != layout_.symbols.end() && (sym->second.space == Space::Local || sym->second.space == Space::Shared) &&
          regs_.count(ops[1].name) == 0) {
        defs[ops[0].name].push_back({&in, "", static_cast<int64_t>(sym->second.offset)});
        continue;
      }
    }
    if (plain && in.opcode == "add" && ops.size() == 3 && in.mods.size() == 1 && in.mods[0].size() >= 2 &&
        (in.mods[0][0] == 'u' || in.mods[0][0] == 's' || in.mods[0][0] == 'b')) {
      const int r = ops[1].kind == Operand::Kind::Reg && ops[2].kind == Operand::Kind::Imm   ? 1
                    : ops[2].kind == Operand::Kind::Reg && ops[1].kind == Operand::Kind::Imm ? 2
                                                                                            : 0;
      if (r != 0 && !ops[static_cast<size_t>(r)].neg) {
        defs[ops[0].name].push_back({&in, ops[static_cast<size_t>(r)].name, ops[static_cast<size_t>(3 - r)].imm});
        feeds.emplace_back(ops[0].name, ops[static_cast<size_t>(r)].name);
        continue;
      }
    }
    const bool address_use = (in.opcode == "ld" || in.opcode == "st") && in.guard.empty() &&
                             (space_of(in) == Space::Local || space_of(in) == Space::Shared);
    for (size_t i = 0; i < ops.size(); ++i) {
      if (address_use && ops[i].kind == Operand::Kind::Address && !ops[i].name.empty() && regs_.count(ops[i].name)) continue;
      mark(ops[i]);
    }
    if (!in.guard.empty()) ++other[in.guard];
  }
  // Known: defined once by a candidate, from a symbol or a known register.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, d] : defs) {
      if (d.size() != 1 || const_addr_.count(name) || !regs_.count(name)) continue;
      if (d.front().src.empty()) {
        const_addr_[name] = d.front().add;
      } else if (auto it = const_addr_.find(d.front().src); it != const_addr_.end()) {
        const_addr_[name] = it->second + d.front().add;
      } else {
        continue;
      }
      changed = true;
    }
  }
  // Folded: known, and every use an address or the C of a folded add (an add that stays reads its
  // C from a register, which then stays too).
  auto folded = [&](const std::string& name) { return const_addr_.count(name) && !other.count(name); };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [result, src] : feeds)
      if (!folded(result) && folded(src)) {
        ++other[src];
        changed = true;
      }
  }
  for (auto it = const_addr_.begin(); it != const_addr_.end();) {
    if (folded(it->first)) {
      const_addr_defs_.insert(defs.at(it->first).front().in);
      ++it;
    } else {
      it = const_addr_.erase(it);
    }
  }
}

MFunction Lowering::run() {
  declare_registers();
  find_constant_addresses();
  f_.blocks.push_back(named_block("entry"));
  // Pre-create blocks for labels in order so forward branches resolve.
  {
    std::vector<std::string> order;
    for (const Statement& st : fn_.body)
      if (st.kind == Statement::Kind::Label) order.push_back(st.label);
    for (const auto& l : order) {
      labels_[l] = static_cast<int>(f_.blocks.size());
      f_.blocks.push_back(named_block(l));
    }
  }
  // Statements between labels go into the current block; a terminator starts an anonymous block.
  // Blocks are later laid out in statement order, so record the order as we go.
  std::vector<int> order{0};
  cur_ = 0;
  for (const Statement& st : fn_.body) {
    loc_ = st.loc;
    if (st.kind == Statement::Kind::Label) {
      const int b = labels_.at(st.label);
      if (f_.blocks[cur_].exit == MBlock::Exit::Fall) f_.blocks[cur_].fall = b;
      cur_ = b;
      order.push_back(b);
      continue;
    }
    loc_ = st.instr.loc;
    try {
      select(st.instr);
    } catch (const AsmError&) {
      // A modifier the lowering passed through that no native instruction has (setp.ie, say):
      // the PTX instruction is what the user can act on, not the native text made of it.
      unsupported(st.instr);
    } catch (const std::out_of_range&) {
      // The lowering reads operands and modifiers with at(): an instruction missing one ends here.
      std::string full = st.instr.opcode;
      for (const auto& m : st.instr.mods) full += "." + m;
      fail(fmt::format("'{}' is missing an operand or a modifier ({} operand{} given)", full, st.instr.operands.size(),
                       st.instr.operands.size() == 1 ? "" : "s"));
    }
    const MBlock::Exit ex = f_.blocks[cur_].exit;
    if (ex != MBlock::Exit::Fall) {  // the instruction ended the block
      const int nb = static_cast<int>(f_.blocks.size());
      f_.blocks.push_back(named_block(fmt::format("$after{}", nb)));
      if (ex == MBlock::Exit::Branch) f_.blocks[cur_].fall = nb;
      cur_ = nb;
      order.push_back(nb);
    }
  }
  if (f_.blocks[cur_].exit == MBlock::Exit::Fall) {  // falling off the end returns
    Em e(*this);
    e("EXIT");
    f_.blocks[cur_].exit = MBlock::Exit::Stop;
  }
  // Re-index blocks in layout order.
  std::vector<int> new_index(f_.blocks.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) new_index[static_cast<size_t>(order[i])] = static_cast<int>(i);
  std::vector<MBlock> laid;
  for (int b : order) laid.push_back(std::move(f_.blocks[static_cast<size_t>(b)]));
  for (auto& b : laid) {
    if (b.taken >= 0) b.taken = new_index[static_cast<size_t>(b.taken)];
    if (b.fall >= 0) b.fall = new_index[static_cast<size_t>(b.fall)];
    for (auto& m : b.insts)
      if (m.target >= 0) m.target = new_index[static_cast<size_t>(m.target)];
  }
  // A block that falls through must fall into the next one in layout.
  for (size_t i = 0; i < laid.size(); ++i) {
    auto& b = laid[i];
    if ((b.exit == MBlock::Exit::Fall || b.exit == MBlock::Exit::Branch) && b.fall != static_cast<int>(i) + 1)
      b.fall = i + 1 < laid.size() ? static_cast<int>(i) + 1 : -1;
    if (b.exit == MBlock::Exit::Fall && b.fall < 0) {  // last block falls off: return
      b.insts.push_back(build_inst("EXIT", {}, {}, loc_));
      b.exit = MBlock::Exit::Stop;
    }
  }
  f_.blocks = std::move(laid);
  return std::move(f_);
}

void Lowering::select(const Instruction& in) {
  if (const_addr_defs_.count(&in)) return;  // a constant address: folded where it is used
  guard_pred_ = 0;
  if (!in.guard.empty()) {
    Operand g;
    g.kind = Operand::Kind::Reg;
    g.name = in.guard;
    bool neg = false;
    guard_pred_ = pred_value(g, neg);
    guard_neg_ = in.guard_neg;
  }
  const std::string& op = in.opcode;
  if (!find_support(op)) unsupported(in);  // the table is the contract (docs/ptx-support.md)
  if (op == "bra" || op == "ret" || op == "exit" || op == "trap" || op == "brkpt") return control(in);
  if (op == "call") return call(in);
  guarded(in);
}

// Every data instruction may carry a guard: each native instruction it becomes gets it.
void Lowering::guarded(const Instruction& in) {
  const size_t first = f_.blocks[cur_].insts.size();
  const std::string& op = in.opcode;
  static const std::set<std::string, std::less<>> same_size = {"add", "sub", "mul", "mad", "min", "max", "neg", "abs",
                                                              "and", "or", "xor", "not", "setp", "selp", "fma", "div", "rem"};
  check_widths_ = same_size.count(op) > 0;
  {
    static const std::set<std::string, std::less<>> upper_bits_matter = {"setp", "shr", "div", "rem", "min", "max", "sad"};
    const bool wide_or_hi = (op == "mul" || op == "mad") && (has(in, "wide") || has(in, "hi"));
    extend_narrow_ = (upper_bits_matter.count(op) > 0 || wide_or_hi) && !in.mods.empty();
  }
  if (op == "mov") mov(in);
  else if (op == "ld" || op == "st" || op == "ldu") load_store(in);
  else if (op == "add" || op == "sub" || op == "mul" || op == "mad" || op == "min" || op == "max" || op == "neg" || op == "abs") {
    const Type t = type_of(in);
    if (t.kind == Type::Kind::F) float_arith(in);
    else int_arith(in);
  } else if (op == "rem" || op == "sad") {
    int_arith(in);
  } else if (op == "fma" || op == "div" || op == "sqrt" || op == "rcp" || op == "rsqrt" || op == "ex2" || op == "lg2" || op == "sin" ||
             op == "cos" || op == "tanh") {
    if (op == "fma") float_arith(in);
    else if (op == "div" && type_of(in).kind != Type::Kind::F) int_arith(in);
    else special_function(in);
  } else if (op == "and" || op == "or" || op == "xor" || op == "not" || op == "cnot" || op == "lop3") logic(in);
  else if (op == "shl" || op == "shr" || op == "shf") shift(in);
  else if (op == "setp") setp(in);
  else if (op == "selp") selp(in);
  else if (op == "cvt") cvt(in);
  else if (op == "cvta") cvta(in);
  else if (op == "atom" || op == "red") atomic(in);
  else if (op == "bar" || op == "barrier" || op == "membar" || op == "fence") sync(in);
  else if (op == "shfl" || op == "vote" || op == "activemask") warp(in);
  else if (op == "popc" || op == "clz" || op == "brev" || op == "bfe" || op == "bfi" || op == "prmt") bits(in);
  else if (op == "mul24" || op == "mad24") mul24(in);
  else if (op == "copysign") copysign(in);
  else if (op == "bfind") {
    const Type t = type_of(in);
    const std::string name = fmt::format("bfind{}.{}", has(in, "shiftamt") ? ".shiftamt" : "", t.str());
    if (!sequence(name, {vreg_value(in.operands.at(1), t)}, {dst(in.operands.at(0))})) unsupported(in);
  }
  else unsupported(in);
  if (guard_pred_ == 0) return;
  // Apply the guard to every instruction the PTX instruction became.
  auto& insts = f_.blocks[cur_].insts;
  for (size_t i = first; i < insts.size(); ++i) {
    MInst& m = insts[i];
    if (isa::get(m.word, isa::Field::pg) != isa::kPT) fail("internal: a guarded template is guarded again");
    m.word = isa::set(m.word, isa::Field::pg, 0);
    m.word = isa::set(m.word, isa::Field::pgn, guard_neg_ ? 1 : 0);
    m.binds.push_back({isa::Field::pg, guard_pred_, 0});
  }
}

// ---- data movement ------------------------------------------------------------------------------

void Lowering::mov(const Instruction& in) {
  const Type t = type_of(in);
  const Operand& d = in.operands.at(0);
  const Operand& s = in.operands.at(1);
  if (t.kind == Type::Kind::Pred) {
    bool neg = false;
    const uint32_t src = pred_value(s, neg);
    Em e(*this);
    e(fmt::format("PLOP.AND {}, {}{}, PT", e.p(dst(d)), neg ? "!" : "", e.p(src)));
    return;
  }
  if (d.kind == Operand::Kind::Vector || s.kind == Operand::Kind::Vector) return mov_vector(in);
  const uint32_t dv = dst(d);
  if (s.kind == Operand::Kind::Special && t.bits == 32 && s.name != "%dynamic_smem_size") {
    const Val v = value(s, t);  // S2R into a temporary...
    f_.blocks[cur_].insts.back().binds[0].vreg = dv;  // ...retargeted to the destination
    (void)v;
    return;
  }
  const Val v = value(s, t);
  Em e(*this);
  e(fmt::format("MOV {}, {}", e.r(dv), e.b(v)));
  if (t.bits == 64) {
    Em e2(*this);
    if (v.kind == Val::Kind::Imm && s.kind == Operand::Kind::Symbol) e2(fmt::format("MOV {}, RZ", e2.hi(dv)));  // shared/local offsets
    else e2(fmt::format("MOV {}, {}", e2.hi(dv), e2.b(v, true)));
  }
}

// mov.b64 d, {lo, hi} and mov.b32 d, {lo16, hi16} put the elements together, lowest first;
// mov.b64 {lo, hi}, s and mov.b32 {lo16, hi16}, s take a value apart (`_` skips an element).
void Lowering::mov_vector(const Instruction& in) {
  const Type t = type_of(in);
  const Operand& d = in.operands.at(0);
  const Operand& s = in.operands.at(1);
  const bool pack = s.kind == Operand::Kind::Vector;
  const Operand& vec = pack ? s : d;
  if (d.kind == s.kind || vec.elems.size() != 2 || (t.bits != 64 && t.bits != 32))
    fail("mov with a vector operand is supported as mov.b64 with two 32-bit elements and mov.b32 with two 16-bit elements");
  const Type elem{Type::Kind::B, t.bits / 2};
  if (t.bits == 64) {
    if (pack) {
      const uint32_t dv = dst(d);
      Em lo(*this);
      lo(fmt::format("MOV {}, {}", lo.r(dv), lo.b(value(vec.elems[0], elem))));
      Em hi(*this);
      hi(fmt::format("MOV {}, {}", hi.hi(dv), hi.b(value(vec.elems[1], elem))));
      return;
    }
    const Val v = value(s, t);
    for (size_t k = 0; k < 2; ++k) {
      if (vec.elems[k].kind == Operand::Kind::Discard) continue;
      Em e(*this);
      e(fmt::format("MOV {}, {}", e.r(dst(vec.elems[k])), e.b(v, k == 1)));
    }
    return;
  }
  if (pack) {  // d = lo16 | hi16 << 16
    const uint32_t dv = dst(d);
    const uint32_t low = temp();
    Em m(*this);
    m(fmt::format("LOP.AND {}, {}, 0xffff", m.r(low), m.r(vreg_value(vec.elems[0], elem))));
    Em e(*this);
    e(fmt::format("BFI {}, {}, 0x1010, {}", e.r(dv), e.r(vreg_value(vec.elems[1], elem)), e.r(low)));
    return;
  }
  const uint32_t sv = vreg_value(s, t);
  if (vec.elems[0].kind != Operand::Kind::Discard) {
    Em e(*this);
    e(fmt::format("LOP.AND {}, {}, 0xffff", e.r(dst(vec.elems[0])), e.r(sv)));
  }
  if (vec.elems[1].kind != Operand::Kind::Discard) {
    Em e(*this);
    e(fmt::format("SHR.U32 {}, {}, 16", e.r(dst(vec.elems[1])), e.r(sv)));
  }
}

void Lowering::cvta(const Instruction& in) {
  // cvta.to.SPACE: generic -> space (subtract the window); cvta.SPACE: space -> generic (add it).
  const bool to = has(in, "to");
  const Space sp = space_of(in);
  const Type t = type_of(in);
  const uint32_t d = dst(in.operands.at(0));
  const Val s = value(in.operands.at(1), t);
  if (sp == Space::Global) {  // the global window is the identity
    Em e(*this);
    e(fmt::format("MOV {}, {}", e.r(d), e.b(s)));
    if (t.bits == 64) {
      Em e2(*this);
      e2(fmt::format("MOV {}, {}", e2.hi(d), s.kind == Val::Kind::Imm && in.operands.at(1).kind == Operand::Kind::Symbol ? "RZ" : e2.b(s, true)));
    }
    return;
  }
  if (sp != Space::Shared && sp != Space::Local) fail(fmt::format("cvta to or from this state space is not supported"));
  const uint32_t base = sp == Space::Shared ? g::kC0SharedWindow : g::kC0LocalWindow;
  Em e(*this);
  e(fmt::format("IADD {}, {}, {}c[0][{:#x}]", e.r(d), e.r(vreg_value(in.operands.at(1), Type{Type::Kind::U, 32})), to ? "-" : "", base));
  if (t.bits == 64) {
    Em e2(*this);
    e2(fmt::format("MOV {}, RZ", e2.hi(d)));
  }
}

std::string Lowering::addr_reg_and_offset(Em& e, const Operand& addr, Space sp, bool& wide, int64_t& off) {
  off = addr.imm;
  wide = false;
  if (addr.name.empty()) return "RZ";
  auto sym = layout_.symbols.find(addr.name);
  if (sym != layout_.symbols.end() && regs_.find(addr.name) == regs_.end()) {
    const Symbol& s = sym->second;
    if (s.space == Space::Shared || s.space == Space::Local) {
      off += s.offset;
      return "RZ";
    }
    if (s.space == Space::Global) {  // load the 64-bit address from its slot
      const uint32_t a = temp(2);
      Em m(*this);
      m(fmt::format("MOV {}, c[1][{:#x}]", m.r(a), s.offset));
      Em m2(*this);
      m2(fmt::format("MOV {}, c[1][{:#x}]", m2.hi(a), s.offset + 4));
      wide = true;
      return e.r(a);
    }
    fail(fmt::format("'{}' cannot be addressed in this state space", addr.name));
  }
  if (auto c = const_addr_.find(addr.name); c != const_addr_.end()) {
    off += c->second;
    return "RZ";
  }
  const Reg& r = reg(addr);
  wide = r.type.bits == 64;
  if (sp == Space::Shared || sp == Space::Local) wide = false;  // 32-bit offsets; a 64-bit register's low word holds it
  return e.r(r.vreg);
}

void Lowering::load_store(const Instruction& in) {
  const bool load = in.opcode != "st";
  const Type t = type_of(in);
  Space sp = space_of(in);
  unsigned vec = 1;
  for (const auto& m : in.mods) {
    if (m == "v2") vec = 2;
    if (m == "v4") vec = 4;
  }
  const Operand& data = in.operands.at(load ? 0 : 1);
  const Operand& addr = in.operands.at(load ? 1 : 0);
  if (addr.kind != Operand::Kind::Address) fail("expected an address operand [...]");
  const unsigned elem_bytes = t.bits / 8;
  const unsigned bytes = elem_bytes * vec;
  if (bytes > 16) fail("accesses wider than 128 bits are not supported");

  // Parameters: kernel parameters live in constant bank 0, call parameters in registers.
  unsigned cbank = 2;  // constant variables; kernel parameters read through a register: bank 0
  if (sp == Space::Param && regs_.count(addr.name)) {
    if (!load) fail("st.param through a register: kernel parameters are read-only");
    sp = Space::Const;
    cbank = 0;
  }
  if (sp == Space::Param) {
    auto it = layout_.symbols.find(addr.name);
    if (it == layout_.symbols.end() || it->second.space != Space::Param) return call_param(in, load, t, vec);
    if (!load) fail(fmt::format("st.param to the kernel parameter '{}': kernel parameters are read-only", addr.name));
    const uint32_t off = it->second.offset + static_cast<uint32_t>(addr.imm);
    const uint32_t d = dst(data);
    for (unsigned w = 0; w < std::max(1u, bytes / 4); ++w) {
      Em e(*this);
      e(fmt::format("MOV {}, c[0][{:#x}]", e.part(d, w), (off & ~3u) + 4 * w));
    }
    if (bytes < 4) {  // sub-word parameters: extract and extend
      Em e(*this);
      e(fmt::format("BFE.{} {}, {}, {:#x}", t.kind == Type::Kind::S ? "S32" : "U32", e.r(d), e.r(d), (bytes * 8) << 8 | ((off & 3) * 8)));
    }
    if (bytes <= 4) extend_loaded(d, t);
    return;
  }
  std::string size;
  switch (bytes) {
    case 1: size = t.kind == Type::Kind::S && load ? ".S8" : ".U8"; break;
    case 2: size = t.kind == Type::Kind::S && load ? ".S16" : ".U16"; break;
    case 4: size = ""; break;
    case 8: size = ".64"; break;
    case 16: size = ".128"; break;
    default: fail("unsupported access size");
  }
  // The data register(s): a vector goes through a temporary tuple.
  const uint8_t regs_needed = static_cast<uint8_t>(std::max(1u, bytes / 4));
  uint32_t tuple = 0;
  if (data.kind == Operand::Kind::Vector && data.elems.size() != vec)
    fail(fmt::format("the vector operand has {} elements, but the access is .v{}", data.elems.size(), vec));
  if (data.kind == Operand::Kind::Vector || regs_needed > 1) {
    if (data.kind == Operand::Kind::Vector && elem_bytes < 4) fail("vector accesses of sub-word elements are not supported");
    tuple = temp(regs_needed);
    if (!load) {
      if (data.kind == Operand::Kind::Vector) {
        for (unsigned k = 0; k < vec; ++k) {
          const Val v = value(data.elems[k], t);
          for (unsigned h = 0; h < elem_bytes / 4; ++h) {
            Em e(*this);
            e(fmt::format("MOV {}, {}", e.part(tuple, k * (elem_bytes / 4) + h), e.b(v, h == 1)));
          }
        }
      } else {
        copy(tuple, vreg_value(data, t), regs_needed);
      }
    }
  }
  if (sp == Space::Const) {
    if (!load) fail("st.const does not exist");
    // Constant variables live in bank 2, addressed by name or through a register.
    Em e(*this);
    const std::string d_text = tuple ? e.r(tuple) : e.r(dst(data));
    auto sym = layout_.symbols.find(addr.name);
    if (sym != layout_.symbols.end() && sym->second.space == Space::Const && regs_.find(addr.name) == regs_.end()) {
      e(fmt::format("LDC{} {}, c[2][RZ+{:#x}]", size, d_text, sym->second.offset + static_cast<uint32_t>(addr.imm)));
    } else {
      const std::string base = e.r(reg(addr).vreg);
      e(fmt::format("LDC{} {}, c[{}][{}+{:#x}]", size, d_text, cbank, base, static_cast<uint32_t>(addr.imm)));
    }
  } else {
    Em e(*this);
    bool wide = false;
    int64_t off = 0;
    const std::string base = addr_reg_and_offset(e, addr, sp, wide, off);
    const char* mnemonic = sp == Space::Global ? (load ? "LDG" : "STG")
                           : sp == Space::Shared ? (load ? "LDS" : "STS")
                           : sp == Space::Local  ? (load ? "LDL" : "STL")
                                                 : (load ? "LD" : "ST");
    const bool e_flag = wide && (sp == Space::Global || sp == Space::Generic);
    const std::string mem = off == 0 ? fmt::format("[{}]", base) : fmt::format("[{}{}{:#x}]", base, off < 0 ? "-" : "+", off < 0 ? -off : off);
    const std::string reg_text = tuple ? e.r(tuple) : (load ? e.r(dst(data)) : e.r(vreg_value(data, t)));
    if (load) e(fmt::format("{}{}{} {}, {}", mnemonic, size, e_flag ? ".E" : "", reg_text, mem));
    else e(fmt::format("{}{}{} {}, {}", mnemonic, size, e_flag ? ".E" : "", mem, reg_text));
  }
  if (load && tuple) {
    if (data.kind == Operand::Kind::Vector) {
      for (unsigned k = 0; k < vec; ++k) {
        if (data.elems[k].kind == Operand::Kind::Discard) continue;
        const uint32_t d = dst(data.elems[k]);
        for (unsigned h = 0; h < std::max(1u, elem_bytes / 4); ++h) {
          Em e(*this);
          e(fmt::format("MOV {}, {}", e.part(d, h), e.part(tuple, k * std::max(1u, elem_bytes / 4) + h)));
        }
      }
    } else {
      copy(dst(data), tuple, regs_needed);
    }
  }
  if (load && !tuple && bytes <= 4) extend_loaded(dst(data), t);
}

// PTX lets a load write a register wider than the type: the value is sign- or zero-extended.
void Lowering::extend_loaded(uint32_t d, const Type& t) {
  if (f_.vregs[d].width != 2) return;
  Em e(*this);
  if (t.kind == Type::Kind::S) e(fmt::format("SHR.S32 {}, {}, 31", e.hi(d), e.r(d)));
  else e(fmt::format("MOV {}, RZ", e.hi(d)));
}

// ---- calls: parameters, vprintf, __assertfail ----------------------------------------------------

uint32_t Lowering::param_word(const std::string& symbol, uint32_t word) {
  const auto key = std::make_pair(symbol, word);
  if (auto it = param_words_.find(key); it != param_words_.end()) return it->second;
  const bool declared = std::any_of(fn_.decls.begin(), fn_.decls.end(),
                                    [&](const VarDecl& d) { return d.space == Space::Param && d.name == symbol; });
  if (!declared) fail(fmt::format("'{}' is not a parameter of this kernel or of a call", symbol));
  // Zero where first touched, so that sub-word stores have a word to merge into.
  const uint32_t v = temp();
  Em e(*this);
  e(fmt::format("MOV {}, RZ", e.r(v)));
  param_words_[key] = v;
  return v;
}

// st.param / ld.param on a call's parameter or return value (after inlining, the callee's formal
// parameters are the caller's variables): moves between registers, sub-words by BFI/BFE.
void Lowering::call_param(const Instruction& in, bool load, const Type& t, unsigned vec) {
  const Operand& data = in.operands.at(load ? 0 : 1);
  const Operand& addr = in.operands.at(load ? 1 : 0);
  if (addr.imm < 0) fail("negative parameter offset");
  const unsigned eb = std::max(1u, t.bits / 8);
  for (unsigned k = 0; k < vec; ++k) {
    const Operand& elem = data.kind == Operand::Kind::Vector ? data.elems.at(k) : data;
    if (elem.kind == Operand::Kind::Discard) continue;
    const uint32_t at = static_cast<uint32_t>(addr.imm) + k * eb;
    if (at % eb) fail(fmt::format("misaligned parameter access at offset {} of '{}'", at, addr.name));
    if (eb >= 4) {
      const Val v = load ? Val{} : value(elem, t);
      const uint32_t d = load ? dst(elem) : 0;
      for (unsigned w = 0; w < eb / 4; ++w) {
        const uint32_t word = param_word(addr.name, at / 4 + w);
        Em e(*this);
        if (load) e(fmt::format("MOV {}, {}", e.part(d, w), e.r(word)));
        else e(fmt::format("MOV {}, {}", e.r(word), e.b(v, w == 1)));
      }
      if (load && eb == 4) extend_loaded(d, t);
      continue;
    }
    const uint32_t word = param_word(addr.name, at / 4);
    const uint32_t field = (eb * 8) << 8 | (at % 4) * 8;
    Em e(*this);
    if (load) {
      e(fmt::format("BFE.{} {}, {}, {:#x}", t.kind == Type::Kind::S ? "S32" : "U32", e.r(dst(elem)), e.r(word), field));
      extend_loaded(dst(elem), t);
    } else e(fmt::format("BFI {}, {}, {:#x}, {}", e.r(word), e.r(vreg_value(elem, t)), field, e.r(word)));
  }
}

uint32_t Lowering::pair_of_param(const std::string& symbol) {
  const uint32_t p = temp(2);
  Em e(*this);
  e(fmt::format("MOV {}, {}", e.r(p), e.r(param_word(symbol, 0))));
  Em e2(*this);
  e2(fmt::format("MOV {}, {}", e2.hi(p), e2.r(param_word(symbol, 1))));
  return p;
}

void Lowering::guard_with(MInst& m, uint32_t pred, bool neg) {
  m.word = isa::set(isa::set(m.word, isa::Field::pg, 0), isa::Field::pgn, neg ? 1 : 0);
  m.binds.push_back({isa::Field::pg, pred, 0});
}

// The format string a vprintf call passes: the global string whose address reaches the call's
// first parameter through mov/cvta (how nvcc and clang both pass string literals).
std::string Lowering::format_string(const Instruction& call, const std::string& param) const {
  const auto& body = fn_.body;
  size_t i = 0;
  while (i < body.size() && &body[i].instr != &call) ++i;
  const std::string not_literal = "printf: the format must be a string literal (its address could not be traced to a global string)";
  std::string reg;
  size_t j = i;
  while (j-- > 0) {
    const Instruction& s = body[j].instr;
    if (body[j].kind == Statement::Kind::Instr && s.opcode == "st" && s.operands.size() == 2 &&
        s.operands[0].kind == Operand::Kind::Address && s.operands[0].name == param) {
      reg = s.operands[1].name;
      break;
    }
  }
  auto global_string = [&](const std::string& name) -> std::optional<std::string> {
    for (const VarDecl& d : mod_.globals) {
      if (d.name != name || (d.space != Space::Global && d.space != Space::Const) || d.type.bits != 8) continue;
      std::string str;
      for (uint64_t c : d.init) {
        if (c == 0) break;
        str.push_back(static_cast<char>(c));
      }
      return str;
    }
    return std::nullopt;
  };
  for (int steps = 0; steps < 16 && !reg.empty(); ++steps) {
    if (auto str = global_string(reg)) return *str;
    bool found = false;
    while (j-- > 0) {
      const Instruction& s = body[j].instr;
      if (body[j].kind != Statement::Kind::Instr || s.operands.empty() || s.operands[0].kind != Operand::Kind::Reg ||
          s.operands[0].name != reg)
        continue;
      if ((s.opcode == "mov" || s.opcode == "cvta") && s.operands.size() == 2) {
        reg = s.operands[1].name;
        found = true;
      }
      break;
    }
    if (!found) break;
  }
  fail(not_literal);
}

// Reserve a record in the printf buffer (docs/runtime.md): ATOM.ADD on the buffer's byte count.
// Returns the record's address; `fits` is set where the record lies inside the buffer.
uint32_t Lowering::printf_reserve(uint32_t record_bytes, uint32_t& fits) {
  const uint32_t buf = temp(), old = temp(), end = temp(), rec = temp(), size = materialize32(record_bytes);
  fits = temp_pred();
  Em a(*this);
  a(fmt::format("MOV {}, c[0][{:#x}]", a.r(buf), g::kC0PrintfBuf));
  Em b(*this);
  b(fmt::format("ATOM.ADD.U32 {}, [{}], {}", b.r(old), b.r(buf), b.r(size)));
  Em c(*this);
  c(fmt::format("IADD {}, {}, {}", c.r(end), c.r(old), c.r(size)));
  Em d(*this);
  d(fmt::format("ISETP.LE.U32 {}, PT, {}, c[0][{:#x}]", d.p(fits), d.r(end), g::kC0PrintfSize));
  Em e(*this);
  e(fmt::format("IADD {}, {}, {}", e.r(rec), e.r(buf), e.r(old)));
  Em h(*this);
  guard_with(h(fmt::format("STG [{}], {}", h.r(rec), h.r(size))), fits);
  Em z(*this);
  guard_with(z(fmt::format("STG [{}+0x4], RZ", z.r(rec))), fits);
  return rec;
}

void Lowering::call(const Instruction& in) {
  if (guard_pred_) fail("internal error: guarded call reached the lowering");
  const std::string& callee = in.operands.at(1).name;
  const std::vector<Operand> none;
  const auto& rets = in.operands.at(0).kind == Operand::Kind::Vector ? in.operands.at(0).elems : none;
  const auto& args = in.operands.size() > 2 && in.operands.at(2).kind == Operand::Kind::Vector ? in.operands.at(2).elems : none;
  auto store_words = [&](uint32_t rec, uint32_t at, uint32_t lo, uint32_t hi, uint32_t fits) {
    Em e(*this);
    guard_with(e(fmt::format("STG [{}+{:#x}], {}", e.r(rec), at, e.r(lo))), fits);
    if (!hi) return;
    Em e2(*this);
    guard_with(e2(fmt::format("STG [{}+{:#x}], {}", e2.r(rec), at + 4, e2.r(hi))), fits);
  };
  if (callee == "vprintf") {
    if (args.size() != 2) fail("vprintf takes two arguments (format, argument buffer)");
    const std::string format = format_string(in, args[0].name);
    const uint32_t arg_bytes = printf_argument_bytes(format);
    const uint32_t record = (kPrintfRecordHeaderBytes + arg_bytes + 7) / 8 * 8;
    uint32_t fits = 0;
    const uint32_t rec = printf_reserve(record, fits);
    store_words(rec, 8, param_word(args[0].name, 0), param_word(args[0].name, 1), fits);
    if (arg_bytes) {  // copy the argument buffer (local memory, through its generic address)
      const uint32_t src = pair_of_param(args[1].name);
      for (uint32_t w = 0; w < (arg_bytes + 3) / 4; ++w) {
        const uint32_t t = temp();
        Em e(*this);
        guard_with(e(fmt::format("LD.E {}, [{}+{:#x}]", e.r(t), e.r(src), 4 * w)), fits);
        store_words(rec, kPrintfRecordHeaderBytes + 4 * w, t, 0, fits);
      }
    }
    if (!rets.empty()) {  // printf returns the number of arguments
      unsigned count = 0;
      for (const auto& c : parse_printf_format(format)) count += c.stars + (c.bytes ? 1 : 0);
      Em e(*this);
      e(fmt::format("MOV32I {}, {:#x}", e.r(param_word(rets[0].name, 0)), count));
    }
    return;
  }
  if (callee == "__assertfail") {
    // (message, file, line, function, char size): one printf record in CUDA's wording, then TRAP.
    if (args.size() != 5) fail("__assertfail takes five arguments");
    auto sym = layout_.symbols.find(kAssertFormatSymbol);
    if (sym == layout_.symbols.end()) fail("internal error: the assertion message format is missing");
    uint32_t fits = 0;
    const uint32_t rec = printf_reserve(kPrintfRecordHeaderBytes + 56, fits);
    const uint32_t fmt_addr = temp(2);
    Em f(*this);
    f(fmt::format("MOV {}, c[1][{:#x}]", f.r(fmt_addr), sym->second.offset));
    Em f2(*this);
    f2(fmt::format("MOV {}, c[1][{:#x}]", f2.hi(fmt_addr), sym->second.offset + 4));
    const uint32_t base = kPrintfRecordHeaderBytes;
    Em fa(*this);
    guard_with(fa(fmt::format("STG [{}+0x8], {}", fa.r(rec), fa.r(fmt_addr))), fits);
    Em fb(*this);
    guard_with(fb(fmt::format("STG [{}+0xc], {}", fb.r(rec), fb.hi(fmt_addr))), fits);
    store_words(rec, base + 0, param_word(args[1].name, 0), param_word(args[1].name, 1), fits);  // file
    store_words(rec, base + 8, param_word(args[2].name, 0), 0, fits);                            // line
    store_words(rec, base + 16, param_word(args[3].name, 0), param_word(args[3].name, 1), fits); // function
    const char* sregs[] = {"SR_CTAID_X", "SR_CTAID_Y", "SR_CTAID_Z", "SR_TID_X", "SR_TID_Y", "SR_TID_Z"};
    for (unsigned k = 0; k < 6; ++k) {
      const uint32_t t = temp();
      Em e(*this);
      e(fmt::format("S2R {}, {}", e.r(t), sregs[k]));
      store_words(rec, base + 24 + 4 * k, t, 0, fits);
    }
    store_words(rec, base + 48, param_word(args[0].name, 0), param_word(args[0].name, 1), fits);  // message
    Em m(*this);
    m("MEMBAR.GL");
    Em t(*this);
    t("TRAP");
    return;
  }
  fail(fmt::format("internal error: call of '{}' reached the lowering", callee));
}

// ---- integer ------------------------------------------------------------------------------------

void Lowering::int_arith(const Instruction& in) {
  const std::string& op = in.opcode;
  const Type t = type_of(in);
  const bool sgn = t.kind == Type::Kind::S;
  const uint32_t d = dst(in.operands.at(0));
  const bool wide64 = t.bits == 64;
  if (op == "sad") {  // d = c + |a - b|, the difference taken as the type's signedness says
    if (t.bits != 32) fail(fmt::format("sad.{} is not supported (32-bit types only)", t.str()));
    const uint32_t a = vreg_value(in.operands.at(1), t), b = vreg_value(in.operands.at(2), t);
    const Val c = value(in.operands.at(3), t);
    const uint32_t ab = temp(), ba = temp(), diff = temp(), lt = temp_pred();
    Em e1(*this);
    e1(fmt::format("IADD {}, {}, -{}", e1.r(ab), e1.r(a), e1.r(b)));
    Em e2(*this);
    e2(fmt::format("IADD {}, {}, -{}", e2.r(ba), e2.r(b), e2.r(a)));
    Em e3(*this);
    e3(fmt::format("ISETP.LT.{} {}, PT, {}, {}", sgn ? "S32" : "U32", e3.p(lt), e3.r(a), e3.r(b)));
    Em e4(*this);
    e4(fmt::format("SEL {}, {}, {}, {}", e4.r(diff), e4.r(ba), e4.r(ab), e4.p(lt)));
    Em e5(*this);
    e5(fmt::format("IADD {}, {}, {}", e5.r(d), e5.r(diff), e5.b(c)));
    return;
  }
  if (op == "neg" || op == "abs") {
    const Val a = value(in.operands.at(1), t);
    if (wide64) {
      const uint32_t c = temp_pred();
      if (op == "neg") {  // 0 - a, as sub.s64 does it
        Em e(*this);
        e(fmt::format("IADD.CC {}, RZ, -{}, {}", e.r(d), e.b(a), e.p(c)));
        Em e2(*this);
        e2(fmt::format("IADD.X {}, RZ, -{}, {}", e2.hi(d), e2.b(a, true), e2.p(c)));
        return;
      }
      // abs: (a ^ s) - s with s = a >> 63 (all ones for negative a)
      const uint32_t av = vreg_value(in.operands.at(1), t), sg = temp(), x = temp(2);
      Em e(*this);
      e(fmt::format("SHR.S32 {}, {}, 31", e.r(sg), e.hi(av)));
      Em e1(*this);
      e1(fmt::format("LOP.XOR {}, {}, {}", e1.r(x), e1.r(av), e1.r(sg)));
      Em e2(*this);
      e2(fmt::format("LOP.XOR {}, {}, {}", e2.hi(x), e2.hi(av), e2.r(sg)));
      Em e3(*this);
      e3(fmt::format("IADD.CC {}, {}, -{}, {}", e3.r(d), e3.r(x), e3.r(sg), e3.p(c)));
      Em e4(*this);
      e4(fmt::format("IADD.X {}, {}, -{}, {}", e4.hi(d), e4.hi(x), e4.r(sg), e4.p(c)));
      return;
    }
    if (op == "neg") {
      Em e(*this);
      e(fmt::format("IADD {}, RZ, -{}", e.r(d), e.b(a)));
    } else {
      const uint32_t n = temp();
      Em e(*this);
      e(fmt::format("IADD {}, RZ, -{}", e.r(n), e.b(a)));
      Em e2(*this);
      e2(fmt::format("IMNMX.MAX.S32 {}, {}, {}", e2.r(d), e2.r(n), e2.b(a)));
    }
    return;
  }
  if (op == "div" || op == "rem" || ((op == "min" || op == "max") && wide64) || (op == "mul" && wide64 && has(in, "hi"))) {
    // 8/16-bit division: the 32-bit sequence on the extended operands (extend_narrow_) is exact.
    const Type seq_type = t.bits < 32 ? Type{t.kind, 32} : t;
    const std::string name = op == "mul" ? fmt::format("mul.hi.{}", t.str()) : fmt::format("{}.{}", op, seq_type.str());
    if (sequence(name, {vreg_value(in.operands.at(1), t), vreg_value(in.operands.at(2), t)}, {d})) return;
    unsupported(in);
  }
  const Val b = value(in.operands.at(2), t);
  if (op == "add" || op == "sub") {
    const char* neg = op == "sub" ? "-" : "";
    if (wide64) {
      const uint32_t c = temp_pred();
      Em e(*this);
      e(fmt::format("IADD.CC {}, {}, {}{}, {}", e.r(d), e.r(vreg_value(in.operands.at(1), t)), neg, e.b(b), e.p(c)));
      Em e2(*this);
      e2(fmt::format("IADD.X {}, {}, {}{}, {}", e2.hi(d), e2.hi(vreg_value(in.operands.at(1), t)), neg, e2.b(b, true), e2.p(c)));
      return;
    }
    const bool sat = has(in, "sat");
    Em e(*this);
    e(fmt::format("IADD{} {}, {}, {}{}", sat ? ".SAT" : "", e.r(d), e.r(vreg_value(in.operands.at(1), t)), neg, e.b(b)));
    return;
  }
  if (op == "min" || op == "max") {
    if (wide64) fail(fmt::format("{}.{} is not supported yet", op, t.str()));
    Em e(*this);
    e(fmt::format("IMNMX.{}.{} {}, {}, {}", op == "min" ? "MIN" : "MAX", sgn ? "S32" : "U32", e.r(d), e.r(vreg_value(in.operands.at(1), t)), e.b(b)));
    return;
  }
  if (op == "mul" || op == "mad") {
    const bool wide = has(in, "wide"), hi = has(in, "hi");
    const bool mad = op == "mad";
    // LLVM's NVPTX back end (clang 14) turns a 64-bit shift by 31 of a sign-extended int, which is
    // what `(long long)x * 2^31` and `x * (long long)INT_MIN` become, into mul.wide.s32 x, 2^31
    // with the constant cut to 32 bits: a multiplication by -2^31, the wrong sign. LLVM never
    // writes that instruction for a real multiplication by -2^31 (it becomes a shift and a
    // negation first), so from LLVM it is always this bug: refuse rather than compute it.
    if (mod_.from_llvm && op == "mul" && wide && sgn && t.bits == 32 && in.operands.size() > 2 &&
        in.operands[2].kind == Operand::Kind::Imm && static_cast<int32_t>(in.operands[2].imm) == INT32_MIN)
      fail("mul.wide.s32 by 0x80000000 from clang: LLVM's NVPTX back end writes this for a 64-bit shift by 31 of a "
           "sign-extended int (x * 2^31) and the PTX multiplies by -2^31 instead, the wrong sign (a clang bug); "
           "compile with --frontend nvcc, or shift an unsigned 64-bit value instead");
    if (wide64 && !wide) {
      if (hi) fail(fmt::format("{}.hi.{} is not supported yet", op, t.str()));
      // lo 64 of a 64x64 product: lo*lo (wide) + (alo*bhi + ahi*blo) << 32
      const uint32_t av = vreg_value(in.operands.at(1), t), bv = vreg_value(in.operands.at(2), t);
      const uint32_t p = temp(2), cross = temp();
      Em e1(*this);
      e1(fmt::format("IMUL.WIDE.U32 {}, {}, {}", e1.r(p), e1.r(av), e1.r(bv)));
      Em e2(*this);
      e2(fmt::format("IMAD.U32 {}, {}, {}, {}", e2.r(cross), e2.r(av), e2.hi(bv), e2.hi(p)));
      Em e3(*this);
      e3(fmt::format("IMAD.U32 {}, {}, {}, {}", e3.hi(p), e3.hi(av), e3.r(bv), e3.r(cross)));
      if (mad) {
        const uint32_t c = temp_pred();
        const uint32_t cv = vreg_value(in.operands.at(3), t);
        Em e4(*this);
        e4(fmt::format("IADD.CC {}, {}, {}, {}", e4.r(d), e4.r(p), e4.r(cv), e4.p(c)));
        Em e5(*this);
        e5(fmt::format("IADD.X {}, {}, {}, {}", e5.hi(d), e5.hi(p), e5.hi(cv), e5.p(c)));
      } else {
        copy(d, p, 2);
      }
      return;
    }
    // A wide product of 16-bit operands is a 32-bit register: the low word of the 32-bit product
    // of the extended operands (IMUL.WIDE would write a pair into the register after it).
    if (hi && t.bits <= 16) {  // the upper half of the 32-bit product of the extended operands
      const uint32_t p = temp();
      Em e(*this);
      if (mad) fail(fmt::format("mad.hi.{} is not supported", t.str()));
      e(fmt::format("IMUL.{} {}, {}, {}", sgn ? "S32" : "U32", e.r(p), e.r(vreg_value(in.operands.at(1), t)), e.b(b)));
      Em e2(*this);
      e2(fmt::format("SHR.{} {}, {}, {}", sgn ? "S32" : "U32", e2.r(d), e2.r(p), t.bits));
      return;
    }
    const bool narrow_wide = wide && t.bits <= 16;
    const std::string part = wide && !narrow_wide ? ".WIDE" : hi ? ".HI" : "";
    const std::string s = sgn ? ".S32" : ".U32";
    if (has(in, "24")) fail(fmt::format("{}24 is not supported yet", op));
    Em e(*this);
    if (mad) {
      const uint32_t c = vreg_value(in.operands.at(3), wide ? Type{t.kind, 2 * t.bits} : t);
      e(fmt::format("IMAD{}{} {}, {}, {}, {}", part, s, e.r(d), e.r(vreg_value(in.operands.at(1), t)), e.b(b), e.r(c)));
    } else {
      e(fmt::format("IMUL{}{} {}, {}, {}", part, s, e.r(d), e.r(vreg_value(in.operands.at(1), t)), e.b(b)));
    }
    return;
  }
  unsupported(in);
}

void Lowering::logic(const Instruction& in) {
  const Type t = type_of(in);
  const std::string& op = in.opcode;
  const uint32_t d = dst(in.operands.at(0));
  if (t.kind == Type::Kind::Pred) {
    bool na = false, nb = false;
    const uint32_t a = pred_value(in.operands.at(1), na);
    Em e(*this);
    if (op == "not") {
      e(fmt::format("PLOP.AND {}, {}{}, PT", e.p(d), na ? "" : "!", e.p(a)));
      return;
    }
    const uint32_t b = pred_value(in.operands.at(2), nb);
    const char* bop = op == "and" ? "AND" : op == "or" ? "OR" : "XOR";
    e(fmt::format("PLOP.{} {}, {}{}, {}{}", bop, e.p(d), na ? "!" : "", e.p(a), nb ? "!" : "", e.p(b)));
    return;
  }
  const unsigned halves = t.bits == 64 ? 2 : 1;
  if (op == "lop3") {
    if (halves != 1) fail("lop3 is 32-bit");
    const Operand& lut = in.operands.at(4);
    Em e(*this);
    e(fmt::format("LOP3 {}, {}, {}, {}, {:#x}", e.r(d), e.r(vreg_value(in.operands.at(1), t)), e.r(vreg_value(in.operands.at(2), t)),
                  e.r(vreg_value(in.operands.at(3), t)), lut.imm & 0xFF));
    return;
  }
  for (unsigned h = 0; h < halves; ++h) {
    Em e(*this);
    const std::string dd = h ? e.hi(d) : e.r(d);
    const uint32_t a = vreg_value(in.operands.at(1), t);
    const std::string aa = h ? e.hi(a) : e.r(a);
    if (op == "not") {
      e(fmt::format("LOP.PASS_B {}, RZ, ~{}", dd, aa));
      continue;
    }
    if (op == "cnot") fail("cnot is not supported yet");
    const Val b = value(in.operands.at(2), t);
    const char* lop = op == "and" ? "AND" : op == "or" ? "OR" : "XOR";
    e(fmt::format("LOP.{} {}, {}, {}", lop, dd, aa, e.b(b, h == 1)));
  }
}

void Lowering::shift(const Instruction& in) {
  const Type t = type_of(in);
  const uint32_t d = dst(in.operands.at(0));
  if (in.opcode == "shf") {
    const bool left = has(in, "l");
    const bool wrap = has(in, "wrap");
    Em e(*this);
    e(fmt::format("SHF.{}{} {}, {}, {}, {}", left ? "L" : "R", wrap ? ".WRAP" : "", e.r(d), e.r(vreg_value(in.operands.at(1), t)),
                  e.b(value(in.operands.at(3), Type{Type::Kind::U, 32})), e.r(vreg_value(in.operands.at(2), t))));
    return;
  }
  const Val amount = value(in.operands.at(2), Type{Type::Kind::U, 32});
  const uint32_t a = vreg_value(in.operands.at(1), t);
  if (t.bits == 64) {
    if (amount.kind != Val::Kind::Imm) {
      const std::string name = in.opcode == "shl" ? "shl.b64" : fmt::format("shr.{}", t.str());
      if (sequence(name, {a, vreg_value(in.operands.at(2), Type{Type::Kind::U, 32})}, {d})) return;
      unsupported(in);
    }
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(amount.imm, 64));
    Em e(*this);
    if (in.opcode == "shl") {
      if (n >= 32) {
        e(fmt::format("SHL {}, {}, {}", e.hi(d), e.r(a), n - 32));
        Em z(*this);
        z(fmt::format("MOV {}, RZ", z.r(d)));
      } else {
        e(fmt::format("SHF.L {}, {}, {}, {}", e.hi(d), e.r(a), n, e.hi(a)));
        Em z(*this);
        z(fmt::format("SHL {}, {}, {}", z.r(d), z.r(a), n));
      }
    } else {
      const bool s = t.kind == Type::Kind::S;
      if (n >= 32) {
        e(fmt::format("SHR.{} {}, {}, {}", s ? "S32" : "U32", e.r(d), e.hi(a), std::min(n - 32, 32u)));
        Em z(*this);
        if (s) z(fmt::format("SHR.S32 {}, {}, 31", z.hi(d), z.hi(a)));
        else z(fmt::format("MOV {}, RZ", z.hi(d)));
      } else {
        e(fmt::format("SHF.R {}, {}, {}, {}", e.r(d), e.r(a), n, e.hi(a)));
        Em z(*this);
        z(fmt::format("SHR.{} {}, {}, {}", s ? "S32" : "U32", z.hi(d), z.hi(a), n));
      }
    }
    return;
  }
  Em e(*this);
  if (in.opcode == "shl") e(fmt::format("SHL {}, {}, {}", e.r(d), e.r(a), e.b(amount)));
  else e(fmt::format("SHR.{} {}, {}, {}", t.kind == Type::Kind::S ? "S32" : "U32", e.r(d), e.r(a), e.b(amount)));
}

void Lowering::setp(const Instruction& in) {
  const std::string& cmp = in.mods.at(0);
  const Type t = type_of(in);
  std::string bop = "AND";
  for (const auto& m : in.mods)
    if (m == "and" || m == "or" || m == "xor") bop = fmt::format("{}", m == "and" ? "AND" : m == "or" ? "OR" : "XOR");
  const Operand& dd = in.operands.at(0);
  uint32_t p = 0, q = 0;
  if (dd.kind == Operand::Kind::Vector) {
    p = dst(dd.elems.at(0));
    if (dd.elems.size() > 1 && dd.elems[1].kind != Operand::Kind::Discard) q = dst(dd.elems[1]);
  } else {
    p = dst(dd);
  }
  std::string cpred = "PT";
  Em e(*this);
  if (in.operands.size() > 3) {
    bool neg = false;
    const uint32_t c = pred_value(in.operands.at(3), neg);
    cpred = (neg ? "!" : "") + e.p(c);
  }
  const std::string qs = q ? e.p(q) : "PT";
  std::string up = cmp;
  for (auto& ch : up) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (t.kind == Type::Kind::F) {
    if (t.bits == 64) {
      if (layout_.soft_f64) no_dp_unit(in);
      e(fmt::format("DSETP.{}.{} {}, {}, {}, {}, {}", up, bop, e.p(p), qs, e.r(vreg_value(in.operands.at(1), t)),
                    e.r(vreg_value(in.operands.at(2), t)), cpred));
      return;
    }
    const std::string ftz = has(in, "ftz") ? ".FTZ" : "";
    e(fmt::format("FSETP.{}{}.{} {}, {}, {}, {}, {}", up, ftz, bop, e.p(p), qs, e.r(vreg_value(in.operands.at(1), t)),
                  e.b(value(in.operands.at(2), t), false, true), cpred));
    return;
  }
  // Integer: LO/LS/HI/HS are the unsigned names.
  std::string icmp = up == "LO" ? "LT" : up == "LS" ? "LE" : up == "HI" ? "GT" : up == "HS" ? "GE" : up;
  const bool sgn = t.kind == Type::Kind::S && !(up == "LO" || up == "LS" || up == "HI" || up == "HS");
  if (t.bits == 64) {
    std::string low = cmp;
    const uint32_t r = temp_pred();
    if (!sequence(fmt::format("setp.{}.{}", low, t.str()), {vreg_value(in.operands.at(1), t), vreg_value(in.operands.at(2), t)}, {r}))
      unsupported(in);
    Em c(*this);
    c(fmt::format("PLOP.{} {}, {}, {}", bop, c.p(p), c.p(r), cpred == "PT" ? "PT" : cpred));
    if (q) {
      Em c2(*this);
      c2(fmt::format("PLOP.{} {}, !{}, {}", bop, c2.p(q), c2.p(r), cpred == "PT" ? "PT" : cpred));
    }
    return;
  }
  e(fmt::format("ISETP.{}.{}.{} {}, {}, {}, {}, {}", icmp, sgn ? "S32" : "U32", bop, e.p(p), qs, e.r(vreg_value(in.operands.at(1), t)),
                e.b(value(in.operands.at(2), t)), cpred));
}

void Lowering::selp(const Instruction& in) {
  const Type t = type_of(in);
  const uint32_t d = dst(in.operands.at(0));
  bool neg = false;
  const uint32_t c = pred_value(in.operands.at(3), neg);
  const uint32_t a = vreg_value(in.operands.at(1), t);
  const Val b = value(in.operands.at(2), t);
  for (unsigned h = 0; h < (t.bits == 64 ? 2u : 1u); ++h) {
    Em e(*this);
    e(fmt::format("SEL {}, {}, {}, {}{}", h ? e.hi(d) : e.r(d), h ? e.hi(a) : e.r(a), e.b(b, h == 1), neg ? "!" : "", e.p(c)));
  }
}

// ---- floating point ------------------------------------------------------------------------------

std::string rounding(const Instruction& in, bool integral = false) {
  for (const auto& m : in.mods) {
    const std::string_view r = integral && m.size() == 3 && m.back() == 'i' ? std::string_view(m).substr(0, 2) : std::string_view(m);
    if (r == "rn") return ".RN";
    if (r == "rz") return ".RZ";
    if (r == "rm") return ".RM";
    if (r == "rp") return ".RP";
  }
  return "";
}

void Lowering::float_arith(const Instruction& in) {
  const Type t = type_of(in);
  const std::string& op = in.opcode;
  const uint32_t d = dst(in.operands.at(0));
  const std::string ftz = has(in, "ftz") ? ".FTZ" : "";
  const std::string sat = has(in, "sat") ? ".SAT" : "";
  const std::string rnd = rounding(in);
  if (t.bits == 64 && layout_.soft_f64) {
    if (op == "mul" && (rnd.empty() || rnd == ".RN") &&
        sequence("mul.rn.f64", {vreg_value(in.operands.at(1), t), vreg_value(in.operands.at(2), t)}, {d}))
      return;
    no_dp_unit(in);
  }
  if (t.bits == 64) {
    const uint32_t a = vreg_value(in.operands.at(1), t);
    Em e(*this);
    if (op == "add" || op == "sub") e(fmt::format("DADD{} {}, {}, {}{}", rnd, e.r(d), e.r(a), op == "sub" ? "-" : "", e.r(vreg_value(in.operands.at(2), t))));
    else if (op == "mul") e(fmt::format("DMUL{} {}, {}, {}", rnd, e.r(d), e.r(a), e.r(vreg_value(in.operands.at(2), t))));
    else if (op == "fma" || op == "mad") e(fmt::format("DFMA{} {}, {}, {}, {}", rnd, e.r(d), e.r(a), e.r(vreg_value(in.operands.at(2), t)), e.r(vreg_value(in.operands.at(3), t))));
    else if (op == "neg") e(fmt::format("DADD {}, -{}, -0", e.r(d), e.r(a)));
    else if (op == "abs") e(fmt::format("DADD {}, |{}|, -0", e.r(d), e.r(a)));
    else if (op == "min" || op == "max") e(fmt::format("DMNMX.{} {}, {}, {}", op == "min" ? "MIN" : "MAX", e.r(d), e.r(a), e.r(vreg_value(in.operands.at(2), t))));
    else unsupported(in);
    return;
  }
  if (t.bits != 32) fail(fmt::format("{}.{}: half-precision arithmetic is not supported", op, t.str()));
  const uint32_t a = vreg_value(in.operands.at(1), t);
  Em e(*this);
  if (op == "neg" || op == "abs") {  // sign operations as a conversion to the same format (exact)
    e(fmt::format("F2F.F32.F32{} {}, {}", ftz, e.r(d), op == "neg" ? "-" + e.r(a) : "|" + e.r(a) + "|"));
    return;
  }
  const Val b = value(in.operands.at(2), t);
  if (op == "add" || op == "sub") {
    // a - imm is a + (-imm) with the immediate's sign flipped: the assembler cannot negate a raw
    // 0f... immediate (a NaN), and negation is exact either way.
    Val nb = b;
    bool negate = op == "sub";
    if (negate && nb.kind == Val::Kind::Imm) {
      nb.imm ^= 0x80000000u;
      negate = false;
    }
    e(fmt::format("FADD{}{}{} {}, {}, {}{}", rnd, ftz, sat, e.r(d), e.r(a), negate ? "-" : "", e.b(nb, false, true)));
  } else if (op == "mul") e(fmt::format("FMUL{}{}{} {}, {}, {}", rnd, ftz, sat, e.r(d), e.r(a), e.b(b, false, true)));
  else if (op == "fma" || op == "mad") e(fmt::format("FFMA{}{}{} {}, {}, {}, {}", rnd, ftz, sat, e.r(d), e.r(a), e.b(b, false, true), e.r(vreg_value(in.operands.at(3), t))));
  else if (op == "min" || op == "max") e(fmt::format("FMNMX.{}{}{} {}, {}, {}", op == "min" ? "MIN" : "MAX", ftz, has(in, "NaN") ? ".NAN" : "", e.r(d), e.r(a), e.b(b, false, true)));
  else unsupported(in);
}

void Lowering::special_function(const Instruction& in) {
  const Type t = type_of(in);
  const std::string& op = in.opcode;
  if (t.bits == 32 && (op == "div" || op == "rcp" || op == "sqrt") && (has(in, "rz") || has(in, "rm") || has(in, "rp"))) {
    // __fdiv_rz, __frcp_ru, __fsqrt_rd...: once lowered as the approximations, a silently wrong
    // result (the random CUDA differential found __fsqrt_ru(112.0f) one ulp low).
    const char* mode = has(in, "rz") ? "rz" : has(in, "rm") ? "rm" : "rp";
    fail(fmt::format("'{}.{}.f32' (a directed-rounding {}, CUDA's __f{}_{}) is not supported yet; the .rn form and the "
                     "approximations are",
                     op, mode, op == "div" ? "division" : op == "rcp" ? "reciprocal" : "square root", op == "div" ? "div" : op,
                     mode == std::string("rz") ? "rz" : mode == std::string("rm") ? "rd" : "ru"));
  }
  if (t.bits == 32 && (op == "div" || op == "rcp" || op == "sqrt" || op == "rsqrt")) {
    const std::string mode = has(in, "rn") ? ".rn" : has(in, "full") ? ".full" : ".approx";
    const std::string name = op + mode + (has(in, "ftz") ? ".ftz" : "") + ".f32";
    std::vector<uint32_t> ins{vreg_value(in.operands.at(1), t)};
    if (op == "div") ins.push_back(vreg_value(in.operands.at(2), t));
    if (sequence(name, ins, {dst(in.operands.at(0))})) return;
  }
  const bool approx = has(in, "approx");
  if (t.bits != 32 || !(approx || op == "ex2" || op == "lg2" || op == "sin" || op == "cos" || op == "rsqrt")) {
    std::string full = op;
    for (const auto& m : in.mods) full += "." + m;
    fail(fmt::format("'{}' needs a correctly rounded sequence, which the translator does not emit yet", full));
  }
  const uint32_t d = dst(in.operands.at(0));
  const uint32_t a = vreg_value(in.operands.at(1), t);
  const std::string ftz = has(in, "ftz") ? ".FTZ" : "";
  Em e(*this);
  if (op == "rcp") e(fmt::format("MUFU.RCP{} {}, {}", ftz, e.r(d), e.r(a)));
  else if (op == "rsqrt") e(fmt::format("MUFU.RSQ{} {}, {}", ftz, e.r(d), e.r(a)));
  else if (op == "ex2") e(fmt::format("MUFU.EX2{} {}, {}", ftz, e.r(d), e.r(a)));
  else if (op == "lg2") e(fmt::format("MUFU.LG2{} {}, {}", ftz, e.r(d), e.r(a)));
  else if (op == "sin") e(fmt::format("MUFU.SIN{} {}, {}", ftz, e.r(d), e.r(a)));
  else if (op == "cos") e(fmt::format("MUFU.COS{} {}, {}", ftz, e.r(d), e.r(a)));
  else if (op == "sqrt") {  // sqrt.approx = x * rsqrt(x), with rsqrt(0)=inf handled as x itself
    const uint32_t r = temp();
    e(fmt::format("MUFU.RSQ{} {}, {}", ftz, e.r(r), e.r(a)));
    Em m(*this);
    m(fmt::format("FMUL{} {}, {}, {}", ftz, m.r(d), m.r(a), m.r(r)));
    const uint32_t p = temp_pred();
    Em c(*this);
    c(fmt::format("FSETP.EQ {}, PT, {}, 0", c.p(p), c.r(a)));
    Em s(*this);
    s(fmt::format("SEL {}, {}, {}, {}", s.r(d), s.r(a), s.r(d), s.p(p)));
  } else if (op == "div") {  // div.approx / div.full: a * rcp(b)
    const uint32_t r = temp();
    e(fmt::format("MUFU.RCP{} {}, {}", ftz, e.r(r), e.r(vreg_value(in.operands.at(2), t))));
    Em m(*this);
    m(fmt::format("FMUL{} {}, {}, {}", ftz, m.r(d), m.r(a), m.r(r)));
  } else {
    unsupported(in);
  }
}

void Lowering::cvt(const Instruction& in) {
  const Type dt = type_of(in, 0), st = type_of(in, 1);
  const uint32_t d = dst(in.operands.at(0));
  const uint32_t a = vreg_value(in.operands.at(1), st);
  const std::string ftz = has(in, "ftz") ? ".FTZ" : "";
  const std::string sat = has(in, "sat") ? ".SAT" : "";
  auto itype = [](const Type& t) { return fmt::format("{}{}", t.kind == Type::Kind::S ? "S" : "U", t.bits); };
  auto ftype = [](const Type& t) { return fmt::format("F{}", t.bits); };
  Em e(*this);
  // Without a DP unit, conversions to or from f64 are sequences (I2F/F2I between f32 and 64-bit
  // integers are native: only an f64 operand needs one).
  const bool f64_involved = (dt.kind == Type::Kind::F && dt.bits == 64) || (st.kind == Type::Kind::F && st.bits == 64);
  if (layout_.soft_f64 && f64_involved && !(dt.bits == 64 && st.kind == Type::Kind::F && st.bits == 32)) {
    const std::string r = rounding(in);
    if (dt.kind == Type::Kind::F && st.kind == Type::Kind::F && dt.bits == 32 && r == ".RN" && ftz.empty() && sat.empty() &&
        sequence("cvt.rn.f32.f64", {a}, {d}))
      return;
    if (dt.kind == Type::Kind::F && st.kind != Type::Kind::F && r == ".RN" && sat.empty()) {
      // Integers: 32-bit sources are extended (exactly) to the 64-bit sequences.
      const bool sgn = st.kind == Type::Kind::S;
      uint32_t src = a;
      if (st.bits < 64) {
        src = temp(2);
        Em x(*this);
        x(fmt::format("BFE.{} {}, {}, {:#x}", sgn ? "S32" : "U32", x.r(src), x.r(a), std::min(st.bits, 32u) << 8));
        Em h(*this);
        h(fmt::format("SHR.S32 {}, {}, 31", h.hi(src), h.r(src)));
        if (!sgn) {
          Em z(*this);
          z(fmt::format("MOV {}, RZ", z.hi(src)));
        }
      }
      if (sequence(sgn ? "cvt.rn.f64.s64" : "cvt.rn.f64.u64", {src}, {d})) return;
    }
    no_dp_unit(in);
  }
  if (dt.kind == Type::Kind::F && st.kind == Type::Kind::F) {
    // Widening is exact and has an integer sequence that needs no DP unit.
    if (dt.bits == 64 && st.bits == 32 && sat.empty() && sequence(ftz.empty() ? "cvt.f64.f32" : "cvt.ftz.f64.f32", {a}, {d})) return;
    const std::string r = rounding(in, true);
    const bool rint = !r.empty() && std::any_of(in.mods.begin(), in.mods.end(), [](const std::string& m) { return m.size() == 3 && m.back() == 'i'; });
    e(fmt::format("F2F.{}.{}{}{}{}{} {}, {}", ftype(dt), ftype(st), rint ? ".RINT" : "", r, ftz, sat, e.r(d), e.r(a)));
    return;
  }
  if (dt.kind == Type::Kind::F) {
    e(fmt::format("I2F.{}.{}{} {}, {}", ftype(dt), itype(st), rounding(in), e.r(d), e.r(a)));
    return;
  }
  if (st.kind == Type::Kind::F) {
    std::string r = rounding(in, true);
    if (r.empty()) r = ".RZ";
    e(fmt::format("F2I.{}.{}{}{} {}, {}", itype(dt), ftype(st), r, ftz, e.r(d), e.r(a)));
    return;
  }
  // Integer to integer: extend or truncate.
  if (!sat.empty()) {
    if (sequence(fmt::format("cvt.sat.{}.{}", dt.str(), st.str()), {a}, {d})) return;
    if (dt.bits >= st.bits && (dt.kind == st.kind)) {  // widening within a signedness cannot saturate
    } else {
      fail(fmt::format("cvt.sat.{}.{} is not supported", dt.str(), st.str()));
    }
  }
  const unsigned from = st.bits, to = dt.bits;
  const bool sext = st.kind == Type::Kind::S;
  if (to == 64) {
    const unsigned src_bits = std::min(from, 32u);
    if (src_bits < 32) e(fmt::format("BFE.{} {}, {}, {:#x}", sext ? "S32" : "U32", e.r(d), e.r(a), src_bits << 8));
    else e(fmt::format("MOV {}, {}", e.r(d), e.r(a)));
    Em h(*this);
    if (from == 64) h(fmt::format("MOV {}, {}", h.hi(d), h.hi(a)));
    else if (sext) h(fmt::format("SHR.S32 {}, {}, 31", h.hi(d), h.r(d)));
    else h(fmt::format("MOV {}, RZ", h.hi(d)));
    return;
  }
  const unsigned bits = std::min(from, to);
  const bool s = to < from ? dt.kind == Type::Kind::S : sext;
  if (bits >= 32) e(fmt::format("MOV {}, {}", e.r(d), e.r(a)));
  else e(fmt::format("BFE.{} {}, {}, {:#x}", s ? "S32" : "U32", e.r(d), e.r(a), bits << 8));
}

// ---- memory: atomics -----------------------------------------------------------------------------

void Lowering::atomic(const Instruction& in) {
  const bool red = in.opcode == "red";
  const Type t = type_of(in);
  Space sp = space_of(in);
  std::string aop;
  for (const auto& m : in.mods) {
    if (m == "add" || m == "min" || m == "max" || m == "inc" || m == "dec" || m == "exch" || m == "cas" || m == "and" || m == "or" || m == "xor") aop = m;
  }
  if (aop.empty()) fail("atomic without an operation");
  std::string at = t.kind == Type::Kind::F ? "F32" : fmt::format("{}{}", t.kind == Type::Kind::S ? "S" : "U", t.bits);
  if (t.kind == Type::Kind::B) at = t.bits == 64 ? "U64" : "U32";
  if (t.kind == Type::Kind::F && t.bits != 32) fail("only f32 floating-point atomics are supported");
  const Operand& addr = in.operands.at(red ? 0 : 1);
  const uint32_t d = red ? 0 : dst(in.operands.at(0));
  Em e(*this);
  bool wide = false;
  int64_t off = 0;
  const std::string base = addr_reg_and_offset(e, addr, sp, wide, off);
  std::string base_reg = base;
  if (off != 0) {  // atomics take no offset: fold it into the address
    const uint32_t a = temp(wide ? 2 : 1);
    Em m(*this);
    if (wide) {
      const uint32_t c = temp_pred();
      m(fmt::format("IADD.CC {}, {}, {}, {}", m.r(a), base == "RZ" ? "RZ" : base, off, m.p(c)));
      fail("atomic with an address offset on a 64-bit address is not supported yet");
    }
    Em m2(*this);
    m2(fmt::format("IADD {}, {}, {}", m2.r(a), base, off));
    base_reg = e.r(a);
  }
  const Val b = value(in.operands.at(red ? 1 : 2), t);
  const std::string rd = red ? "RZ" : e.r(d);
  std::string u = aop;
  for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const bool shared = sp == Space::Shared;
  const std::string efl = (!shared && wide) ? ".E" : "";
  if (aop == "cas") {
    const uint32_t c = vreg_value(in.operands.at(3), t);
    e(fmt::format("{}.{}{} {}, [{}], {}, {}", shared ? "ATOMSCAS" : "ATOMCAS", at, efl, rd, base_reg, e.b(b), e.r(c)));
    return;
  }
  e(fmt::format("{}.{}.{}{} {}, [{}], {}", shared ? "ATOMS" : "ATOM", u, at, efl, rd, base_reg, e.b(b)));
}

// ---- control flow and synchronization ------------------------------------------------------------

void Lowering::control(const Instruction& in) {
  MBlock& b = f_.blocks[cur_];
  const std::string& op = in.opcode;
  if (op == "trap" || op == "brkpt") {
    Em e(*this);
    MInst& m = e("TRAP");
    if (guard_pred_) {
      m.word = isa::set(isa::set(m.word, isa::Field::pg, 0), isa::Field::pgn, guard_neg_ ? 1 : 0);
      m.binds.push_back({isa::Field::pg, guard_pred_, 0});
    }
    return;
  }
  if (op == "ret" || op == "exit") {
    Em e(*this);
    MInst& m = e("EXIT");
    if (guard_pred_) {  // a guarded exit is an ordinary instruction: the block goes on
      m.word = isa::set(isa::set(m.word, isa::Field::pg, 0), isa::Field::pgn, guard_neg_ ? 1 : 0);
      m.binds.push_back({isa::Field::pg, guard_pred_, 0});
      return;
    }
    b.exit = MBlock::Exit::Stop;
    return;
  }
  // bra
  const Operand& target = in.operands.at(0);
  b.taken = block_of(target.name);
  b.branch_loc = in.loc;
  b.uniform = has(in, "uni");
  if (guard_pred_) {
    b.exit = MBlock::Exit::Branch;
    b.cond = guard_pred_;
    b.cond_neg = guard_neg_;
  } else {
    b.exit = MBlock::Exit::Jump;
  }
}

void Lowering::sync(const Instruction& in) {
  const std::string& op = in.opcode;
  if (op == "membar" || op == "fence") {
    Em e(*this);
    e(has(in, "cta") ? "MEMBAR.CTA" : has(in, "sys") ? "MEMBAR.SYS" : "MEMBAR.GL");
    return;
  }
  // bar.sync a{, b}; barrier.sync{.aligned} a{, b}; bar.red.op.pred/u32 d, a{, b}, {!}c; bar.arrive a, b
  const bool red = has(in, "red");
  const bool arrive = has(in, "arrive");
  const size_t id_at = red ? 1 : 0;
  const Operand& id = in.operands.at(id_at);
  if (id.kind != Operand::Kind::Imm) fail("barrier ids from registers are not supported");
  std::string count;
  const size_t count_at = id_at + 1;
  if (in.operands.size() > count_at && !(red && count_at == in.operands.size() - 1)) {
    const Operand& c = in.operands.at(count_at);
    if (c.kind != Operand::Kind::Imm) fail("barrier thread counts from registers are not supported");
    count = fmt::format(", {}", c.imm);
  }
  Em e(*this);
  if (red) {
    const Operand& pr = in.operands.back();
    bool neg = false;
    const uint32_t p = pred_value(pr, neg);
    std::string rop = has(in, "popc") ? "POPC" : has(in, "and") ? "AND" : "OR";
    const bool pred_dest = has(in, "pred");
    const uint32_t d = pred_dest ? temp() : dst(in.operands.at(0));
    e(fmt::format("BRED.{} {}, {}, {}{}{}", rop, e.r(d), id.imm, neg ? "!" : "", e.p(p), count));
    if (pred_dest) {
      Em s(*this);
      s(fmt::format("ISETP.NE.U32 {}, PT, {}, RZ", s.p(dst(in.operands.at(0))), s.r(d)));
    }
    return;
  }
  e(fmt::format("BAR.{} {}{}", arrive ? "ARV" : "SYNC", id.imm, count));
}

void Lowering::warp(const Instruction& in) {
  const std::string& op = in.opcode;
  Em e(*this);
  if (op == "activemask") {
    const uint32_t d = dst(in.operands.at(0));
    e(fmt::format("VOTE.ANY {}, PT, PT, -1", e.r(d)));
    return;
  }
  if (op == "vote") {
    // vote.sync.mode.pred d, {!}a, membermask;  vote.sync.ballot.b32 d, {!}a, membermask;
    const bool ballot = has(in, "ballot");
    bool neg = false;
    const uint32_t a = pred_value(in.operands.at(1), neg);
    const Val mask = in.operands.size() > 2 ? value(in.operands.at(2), Type{Type::Kind::B, 32}) : Val{Val::Kind::Imm, 0, 0xFFFFFFFFu};
    const std::string mode = has(in, "all") ? "ALL" : has(in, "any") ? "ANY" : has(in, "uni") ? "UNI" : "ANY";
    if (ballot) e(fmt::format("VOTE.ANY {}, PT, {}{}, {}", e.r(dst(in.operands.at(0))), neg ? "!" : "", e.p(a), e.b(mask)));
    else e(fmt::format("VOTE.{} RZ, {}, {}{}, {}", mode, e.p(dst(in.operands.at(0))), neg ? "!" : "", e.p(a), e.b(mask)));
    return;
  }
  // shfl.sync.mode.b32 d[|p], a, b, c, membermask
  const Operand& dd = in.operands.at(0);
  uint32_t d = 0, p = 0;
  if (dd.kind == Operand::Kind::Vector) {
    d = dst(dd.elems.at(0));
    if (dd.elems.size() > 1) p = dst(dd.elems[1]);
  } else {
    d = dst(dd);
  }
  const std::string mode = has(in, "up") ? "UP" : has(in, "down") ? "DOWN" : has(in, "bfly") ? "BFLY" : "IDX";
  const Type t{Type::Kind::B, 32};
  const uint32_t c = vreg_value(in.operands.at(3), t);
  e(fmt::format("SHFL.{} {}, {}, {}, {}, {}", mode, e.r(d), p ? e.p(p) : "PT", e.r(vreg_value(in.operands.at(1), t)), e.b(value(in.operands.at(2), t)),
                e.r(c)));
}

void Lowering::bits(const Instruction& in) {
  const std::string& op = in.opcode;
  const Type t = type_of(in);
  const uint32_t d = dst(in.operands.at(0));
  if (t.bits == 64 && op == "bfe") return bfe64(in);
  if (t.bits == 64 && (op == "popc" || op == "clz" || op == "brev")) {
    if (sequence(fmt::format("{}.b64", op), {vreg_value(in.operands.at(1), t)}, {d})) return;
  }
  if (t.bits == 64 && op == "bfi") return bfi64(in);
  if (t.bits == 64) fail(fmt::format("{}.b64 is not supported yet", op));
  const uint32_t a = vreg_value(in.operands.at(1), t);
  Em e(*this);
  if (op == "popc" || op == "clz" || op == "brev") {
    e(fmt::format("{} {}, {}", op == "popc" ? "POPC" : op == "clz" ? "CLZ" : "BREV", e.r(d), e.r(a)));
    return;
  }
  if (op == "bfe") {  // bfe d, a, pos, len: pack pos | len << 8
    const uint32_t packed = temp();  // pos | len << 8, BFE's operand B
    Em m(*this);
    m(fmt::format("BFI {}, {}, 0x808, {}", m.r(packed), m.r(vreg_value(in.operands.at(3), Type{Type::Kind::U, 32})), m.r(vreg_value(in.operands.at(2), Type{Type::Kind::U, 32}))));
    e(fmt::format("BFE.{} {}, {}, {}", t.kind == Type::Kind::S ? "S32" : "U32", e.r(d), e.r(a), e.r(packed)));
    return;
  }
  if (op == "bfi") {  // bfi d, f, b, pos, len
    const uint32_t packed = temp();
    Em m(*this);
    m(fmt::format("BFI {}, {}, 0x808, {}", m.r(packed), m.r(vreg_value(in.operands.at(4), Type{Type::Kind::U, 32})), m.r(vreg_value(in.operands.at(3), Type{Type::Kind::U, 32}))));
    e(fmt::format("BFI {}, {}, {}, {}", e.r(d), e.r(a), e.r(packed), e.r(vreg_value(in.operands.at(2), t))));
    return;
  }
  if (op == "prmt") {
    std::string mode;
    for (const auto& m : in.mods)
      if (m == "f4e" || m == "b4e" || m == "rc8" || m == "ecl" || m == "ecr" || m == "rc16") mode = m;
    for (auto& ch : mode) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    e(fmt::format("PRMT{}{} {}, {}, {}, {}", mode.empty() ? "" : ".", mode, e.r(d), e.r(a), e.b(value(in.operands.at(3), t)),
                  e.r(vreg_value(in.operands.at(2), t))));
    return;
  }
  unsupported(in);
}

// d = a >> n for 64-bit pairs and a constant amount (arithmetic or logical).
void Lowering::shr64_imm(uint32_t d, uint32_t a, uint32_t n, bool arith) {
  n = std::min(n, 64u);
  const char* s = arith ? "S32" : "U32";
  Em e(*this);
  if (n >= 32) {
    e(fmt::format("SHR.{} {}, {}, {}", s, e.r(d), e.hi(a), std::min(n - 32, 32u)));
    Em h(*this);
    if (arith) h(fmt::format("SHR.S32 {}, {}, 31", h.hi(d), h.hi(a)));
    else h(fmt::format("MOV {}, RZ", h.hi(d)));
  } else {
    e(fmt::format("SHF.R {}, {}, {}, {}", e.r(d), e.r(a), n, e.hi(a)));
    Em h(*this);
    h(fmt::format("SHR.{} {}, {}, {}", s, h.hi(d), h.hi(a), n));
  }
}

// mul24.lo/hi and mad24.lo: the product of the operands' low 24 bits (sign- or zero-extended);
// .lo is its low word, .hi its bits 16..47.
void Lowering::mul24(const Instruction& in) {
  const Type t = type_of(in);
  const bool sgn = t.kind == Type::Kind::S;
  const bool hi = has(in, "hi");
  if (in.opcode == "mad24" && hi) unsupported(in);
  uint32_t x[2];
  for (unsigned k = 0; k < 2; ++k) {
    x[k] = temp();
    Em e(*this);
    e(fmt::format("BFE.{} {}, {}, 0x1800", sgn ? "S32" : "U32", e.r(x[k]), e.r(vreg_value(in.operands.at(1 + k), t))));
  }
  const uint32_t d = dst(in.operands.at(0));
  Em e(*this);
  if (!hi) {
    if (in.opcode == "mad24")
      e(fmt::format("IMAD.{} {}, {}, {}, {}", sgn ? "S32" : "U32", e.r(d), e.r(x[0]), e.r(x[1]), e.r(vreg_value(in.operands.at(3), t))));
    else
      e(fmt::format("IMUL.{} {}, {}, {}", sgn ? "S32" : "U32", e.r(d), e.r(x[0]), e.r(x[1])));
    return;
  }
  const uint32_t wide = temp(2), shifted = temp(2);
  e(fmt::format("IMUL.WIDE.{} {}, {}, {}", sgn ? "S32" : "U32", e.r(wide), e.r(x[0]), e.r(x[1])));
  shr64_imm(shifted, wide, 16, sgn);
  copy(d, shifted, 1);
}

// copysign d, a, b: b's magnitude with a's sign.
void Lowering::copysign(const Instruction& in) {
  const Type t = type_of(in);
  const uint32_t a = vreg_value(in.operands.at(1), t), b = vreg_value(in.operands.at(2), t), d = dst(in.operands.at(0));
  const uint32_t sign = temp(), r = temp(t.bits == 64 ? 2 : 1);
  Em e(*this);
  e(fmt::format("SHR.U32 {}, {}, 31", e.r(sign), t.bits == 64 ? e.hi(a) : e.r(a)));
  Em e2(*this);
  e2(fmt::format("BFI {}, {}, 0x11f, {}", t.bits == 64 ? e2.hi(r) : e2.r(r), e2.r(sign), t.bits == 64 ? e2.hi(b) : e2.r(b)));
  if (t.bits == 64) {
    Em e3(*this);
    e3(fmt::format("MOV {}, {}", e3.r(r), e3.r(b)));
  }
  copy(d, r, t.bits == 64 ? 2 : 1);
}

// bfi.b64 with constant position and length: per word, the part of the field it holds is the
// insert's bits shifted down to that word, inserted with BFI.
void Lowering::bfi64(const Instruction& in) {
  const Type t = type_of(in);
  const Operand& pos = in.operands.at(3);
  const Operand& len = in.operands.at(4);
  if (pos.kind != Operand::Kind::Imm || len.kind != Operand::Kind::Imm) fail("bfi.b64 with register position or length is not supported");
  const uint32_t p = static_cast<uint32_t>(std::min<int64_t>(pos.imm & 0xFF, 64));
  const uint32_t l = static_cast<uint32_t>(std::min<int64_t>(len.imm & 0xFF, 64 - p));
  const uint32_t a = vreg_value(in.operands.at(1), t), b = vreg_value(in.operands.at(2), t);
  const uint32_t r = temp(2);
  for (unsigned w = 0; w < 2; ++w) {
    const uint32_t lo = std::max(p, 32 * w), hi = std::min(p + l, 32 * w + 32);
    Em e(*this);
    if (lo >= hi) {
      e(fmt::format("MOV {}, {}", e.part(r, w), e.part(b, w)));
      continue;
    }
    const uint32_t src = temp(2);
    shr64_imm(src, a, lo - p, false);
    e(fmt::format("BFI {}, {}, {:#x}, {}", e.part(r, w), e.r(src), (hi - lo) << 8 | (lo - 32 * w), e.part(b, w)));
  }
  copy(dst(in.operands.at(0)), r, 2);
}

// bfe.u64/s64 with constant position and length: shift the field down, then extract its width.
void Lowering::bfe64(const Instruction& in) {
  const Type t = type_of(in);
  const Operand& pos = in.operands.at(2);
  const Operand& len = in.operands.at(3);
  if (pos.kind != Operand::Kind::Imm || len.kind != Operand::Kind::Imm) fail("bfe.b64 with register position or length is not supported yet");
  const bool sgn = t.kind == Type::Kind::S;
  const uint32_t p = static_cast<uint32_t>(std::min<int64_t>(pos.imm & 0xFF, 64));
  const uint32_t l = static_cast<uint32_t>(std::min<int64_t>(len.imm & 0xFF, 64 - p));
  const uint32_t d = dst(in.operands.at(0));
  const uint32_t shifted = temp(2);
  shr64_imm(shifted, vreg_value(in.operands.at(1), t), p, sgn);
  Em e(*this);
  if (l == 0) {
    e(fmt::format("MOV {}, RZ", e.r(d)));
    Em h(*this);
    h(fmt::format("MOV {}, RZ", h.hi(d)));
  } else if (l <= 32) {
    e(fmt::format("BFE.{} {}, {}, {:#x}", sgn ? "S32" : "U32", e.r(d), e.r(shifted), l << 8));
    Em h(*this);
    if (sgn) h(fmt::format("SHR.S32 {}, {}, 31", h.hi(d), h.r(d)));
    else h(fmt::format("MOV {}, RZ", h.hi(d)));
  } else {
    e(fmt::format("MOV {}, {}", e.r(d), e.r(shifted)));
    Em h(*this);
    h(fmt::format("BFE.{} {}, {}, {:#x}", sgn ? "S32" : "U32", h.hi(d), h.hi(shifted), (l - 32) << 8));
  }
}

// Instantiate the named native sequence (docs/lowering-sequences.md) over these virtual registers.
// Returns false if there is no such sequence.
bool Lowering::sequence(const std::string& name, const std::vector<uint32_t>& ins, const std::vector<uint32_t>& outs) {
  const Sequence* seq = find_sequence(name);
  if (!seq) return false;
  std::vector<uint32_t> regs, preds;
  Bindings bind;
  auto add = [&](const Placeholder& ph, uint32_t vreg) {
    if (ph.kind == Placeholder::Kind::Pred) {
      bind[ph.name] = static_cast<unsigned>(preds.size());
      preds.push_back(vreg);
    } else {
      bind[ph.name] = static_cast<unsigned>(4 * regs.size());
      regs.push_back(vreg);
    }
  };
  for (size_t i = 0; i < seq->inputs.size(); ++i) add(seq->inputs[i], ins.at(i));
  for (size_t i = 0; i < seq->outputs.size(); ++i) add(seq->outputs[i], outs.at(i));
  for (const auto& t : seq->temps)
    add(t, t.kind == Placeholder::Kind::Pred ? temp_pred() : temp(t.kind == Placeholder::Kind::Pair ? 2 : 1));
  const bool branches = seq->body.find("BRA") != std::string::npos || seq->body.find("SSY") != std::string::npos;
  if (branches && guard_pred_) fail(fmt::format("a predicated {} is not supported yet", name));
  const std::string text = instantiate(*seq, bind, fmt::format("Lseq{}_", sequences_++));
  // Lines -> instructions; local labels -> relative branch offsets (the body stays contiguous).
  std::vector<std::string> lines;
  std::map<std::string, int> labels;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (const size_t c = line.find("//"); c != std::string::npos) line.resize(c);
    const size_t a = line.find_first_not_of(" \t"), z = line.find_last_not_of(" \t");
    if (a == std::string::npos) continue;
    line = line.substr(a, z - a + 1);
    if (line.back() == ':') {
      labels[line.substr(0, line.size() - 1)] = static_cast<int>(lines.size());
      continue;
    }
    lines.push_back(line);
  }
  std::vector<uint32_t> all(regs);
  all.insert(all.end(), preds.begin(), preds.end());
  const size_t first = f_.blocks[cur_].insts.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    for (const auto& [label, at] : labels) {
      const size_t k = line.find(label);
      if (k != std::string::npos) line.replace(k, label.size(), fmt::format("{:+d}", at - static_cast<int>(i)));
    }
    append(build_inst(line, regs, preds, loc_));
  }
  auto& insts = f_.blocks[cur_].insts;
  if (insts.size() > first) {  // every placeholder lives across the whole body (it may loop)
    insts[first].pins = all;
    insts.back().pins = all;
  }
  return true;
}

}  // namespace

MFunction lower_function(const Module& mod, const Function& fn, const Layout& layout) {
  return Lowering(mod, fn, layout).run();
}

}  // namespace tsm::ptx
