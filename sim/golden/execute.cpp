// The meaning of every instruction, lane by lane, as docs/isa.md states it.
#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "arith/fp.hpp"
#include "golden/coverage.hpp"
#include "golden/int_lane.hpp"
#include "golden/shfl_lane.hpp"
#include "golden/state.hpp"
#include "sfu/sfu.hpp"

namespace tsm::golden {

namespace g = isa::gen;
using isa::Field;
using isa::OperandKind;

void State::fault(const Ctx& c, FaultKind kind, const std::string& what, std::optional<unsigned> lane) const {
  FaultSite site = block_site(c.block);
  site.sm = c.sm;
  site.warp = c.warp.warp_in_block;
  site.pc = c.pc;
  site.disassembly = isa::disassemble(c.insn, c.pc);
  if (lane) {
    const Dim3 t = thread_index(c.warp.warp_in_block * kWarpSize + *lane);
    site.thread_x = t.x;
    site.thread_y = t.y;
    site.thread_z = t.z;
  }
  throw Fault(kind, what, site);
}

namespace {

using Regs4 = std::array<uint32_t, 4>;
enum class Space { Global, Shared, Local };

const char* space_name(Space s) { return s == Space::Global ? "global" : s == Space::Shared ? "shared" : "local"; }

unsigned msz_bytes(g::Msz m) {
  switch (m) {
    case g::Msz::U8: case g::Msz::S8: return 1;
    case g::Msz::U16: case g::Msz::S16: return 2;
    case g::Msz::B32: return 4;
    case g::Msz::B64: return 8;
    case g::Msz::B128: return 16;
  }
  return 4;
}

uint32_t sign_bit_of(g::Ftype f) { return f == g::Ftype::F16 ? 15 : f == g::Ftype::F32 ? 31 : 63; }

class Exec {
 public:
  Exec(State& s, uint32_t sm, uint32_t slot, const StepInputs& in)
      : s_(s), m_(s.sms[sm]), w_(m_.warps[slot]), b_(m_.blocks[w_.block_slot]), in_(in),
        c_{sm, slot, w_, b_, w_.pc, 0, nullptr} {}

  Commit run();

 private:
  // ---- access to the instruction and registers ----
  uint64_t f(Field fld) const { return isa::get(word_, fld); }
  template <typename E>
  E e(Field fld) const { return static_cast<E>(f(fld)); }
  bool flag(Field fld) const { return fld != Field::None && f(fld) != 0; }

  uint32_t reg(unsigned lane, uint64_t r) const { return r == isa::kRZ ? 0 : w_.regs[lane * s_.nregs + r]; }
  uint64_t reg64(unsigned lane, uint64_t r) const { return r == isa::kRZ ? 0 : reg(lane, r) | uint64_t{reg(lane, r + 1)} << 32; }
  bool pred(unsigned lane, uint64_t p) const { return p == isa::kPT || (w_.preds[lane] >> p & 1); }
  bool pred_n(unsigned lane, Field p, Field neg) const { return pred(lane, f(p)) != flag(neg); }

  void write_regs(unsigned lane, uint64_t r, unsigned count, const Regs4& v);
  void write_reg(unsigned lane, uint64_t r, uint32_t v) { write_regs(lane, r, 1, {v, 0, 0, 0}); }
  void write_reg64(unsigned lane, uint64_t r, uint64_t v) {
    write_regs(lane, r, 2, {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32), 0, 0});
  }
  void write_pred(unsigned lane, uint64_t p, bool v);

  const isa::OperandInfo& operand(unsigned i) const { return info_->operands[i]; }
  const isa::OperandInfo* operand_b() const;
  uint64_t b_value(unsigned lane) const;  // operand B at its width, sign-extended immediates
  uint32_t cbank_load(uint32_t bank, uint32_t offset, unsigned bytes, unsigned lane) const;
  uint32_t dec32(const isa::OperandInfo& op, uint32_t v) const;  // -x, |x| on binary32 bits
  uint64_t dec_bits(const isa::OperandInfo& op, uint64_t v, unsigned sign_bit) const;

  [[noreturn]] void fault(FaultKind k, const std::string& what, std::optional<unsigned> lane = {}) const {
    s_.fault(c_, k, what, lane);
  }
  void check_registers() const;
  bool uniform_guard(const char* what) const;

  // ---- memory ----
  uint32_t address(unsigned lane, const isa::OperandInfo& op) const;
  void check_access(Space sp, unsigned lane, uint32_t addr, unsigned bytes) const;
  void load(Space sp, unsigned lane, uint32_t addr, unsigned bytes, uint8_t* out) const;
  void store(Space sp, unsigned lane, uint32_t addr, unsigned bytes, const uint8_t* in, bool atomic);
  std::pair<Space, uint32_t> resolve_generic(uint32_t addr) const;
  uint8_t* bytes_at(Space sp, unsigned lane, uint32_t addr);

  // ---- instruction families ----
  void integer(g::Op op);
  void floating(g::Op op);
  void dp(g::Op op);
  void memory_op(g::Op op);
  void count_bank_degree(unsigned mem_index) const;
  void atomic(g::Op op);
  void control(g::Op op);
  void barrier(g::Op op);
  void warp_op(g::Op op);

  State& s_;
  Sm& m_;
  Warp& w_;
  Block& b_;
  const StepInputs& in_;
  Ctx c_;
  uint64_t word_ = 0;
  const isa::InsnInfo* info_ = nullptr;
  uint32_t exec_ = 0;  // active lanes whose guard holds
  bool uses_ra_ = false;  // the instruction reads register A (other fields may reuse its bits)
  bool pc_set_ = false;
  Commit out_;
};

void Exec::write_regs(unsigned lane, uint64_t r, unsigned count, const Regs4& v) {
  if (r == isa::kRZ) return;
  for (unsigned i = 0; i < count; ++i) w_.regs[lane * s_.nregs + r + i] = v[i];
  auto it = std::find_if(out_.regs.begin(), out_.regs.end(), [&](const Commit::RegWrite& x) { return x.reg == r; });
  if (it == out_.regs.end()) {
    out_.regs.push_back({});
    it = out_.regs.end() - 1;
    it->reg = static_cast<uint8_t>(r);
    it->count = static_cast<uint8_t>(count);
  }
  it->lanes |= 1u << lane;
  it->values[lane] = v;
}

void Exec::write_pred(unsigned lane, uint64_t p, bool v) {
  if (p == isa::kPT) return;
  w_.preds[lane] = static_cast<uint8_t>((w_.preds[lane] & ~(1u << p)) | (uint32_t{v} << p));
  auto it = std::find_if(out_.preds.begin(), out_.preds.end(), [&](const Commit::PredWrite& x) { return x.pred == p; });
  if (it == out_.preds.end()) {
    out_.preds.push_back({});
    it = out_.preds.end() - 1;
    it->pred = static_cast<uint8_t>(p);
  }
  it->lanes |= 1u << lane;
  it->values = (it->values & ~(1u << lane)) | (uint32_t{v} << lane);
}

const isa::OperandInfo* Exec::operand_b() const {
  for (unsigned i = 0; i < info_->num_operands; ++i)
    if (operand(i).kind == OperandKind::B) return &operand(i);
  return nullptr;
}

uint32_t Exec::cbank_load(uint32_t bank, uint32_t offset, unsigned bytes, unsigned lane) const {
  if (uint64_t{offset} + bytes > g::kCbankBytes)
    fault(FaultKind::OutOfBounds, fmt::format("constant address c[{}][{:#x}] is beyond the 64 KiB bank", bank, offset), lane);
  const auto& img = s_.spec.cbanks[bank];
  uint32_t v = 0;
  for (unsigned i = 0; i < bytes; ++i)
    if (offset + i < img.size()) v |= uint32_t{img[offset + i]} << (8 * i);
  return v;  // bytes beyond the loaded image read as zero
}

uint64_t Exec::b_value(unsigned lane) const {
  const isa::OperandInfo& op = *operand_b();
  const unsigned width = isa::operand_width(op, word_);
  switch (isa::b_source(word_)) {
    case g::Bsel::REG: return width == 2 ? reg64(lane, f(Field::rb)) : reg(lane, f(Field::rb));
    case g::Bsel::CONST: {
      const auto bank = static_cast<uint32_t>(f(Field::cbank)), off = static_cast<uint32_t>(f(Field::coff));
      const uint64_t lo = cbank_load(bank, off, 4, lane);
      return width == 2 ? lo | uint64_t{cbank_load(bank, off + 4, 4, lane)} << 32 : lo;
    }
    default: {
      const uint64_t v = isa::b_immediate_bits(op, word_);
      return width == 2 ? v : static_cast<uint32_t>(v);
    }
  }
}

uint64_t Exec::dec_bits(const isa::OperandInfo& op, uint64_t v, unsigned sign_bit) const {
  const uint64_t sign = uint64_t{1} << sign_bit;
  if (flag(op.abs)) v &= ~sign;
  if (flag(op.neg)) v ^= sign;
  return v;
}

uint32_t Exec::dec32(const isa::OperandInfo& op, uint32_t v) const { return static_cast<uint32_t>(dec_bits(op, v, 31)); }

void Exec::check_registers() const {
  for (unsigned i = 0; i < info_->num_operands; ++i) {
    const auto& op = operand(i);
    uint64_t r = isa::kRZ;
    if (op.kind == OperandKind::Reg || op.kind == OperandKind::Mem || op.kind == OperandKind::Cmem) r = f(op.field);
    if (op.kind == OperandKind::B && isa::b_source(word_) == g::Bsel::REG) r = f(Field::rb);
    if (r != isa::kRZ && r + isa::operand_width(op, word_) > s_.nregs)
      fault(FaultKind::InvalidInstruction,
            fmt::format("R{} is beyond the {} registers per thread the kernel declares (.regs)", r, s_.nregs));
  }
}

bool Exec::uniform_guard(const char* what) const {
  if (exec_ == 0) return false;
  if (exec_ != w_.active)
    fault(FaultKind::InvalidInstruction,
          fmt::format("{} is a warp-level instruction but its guard holds for only some active threads (mask {:#010x} of {:#010x})",
                      what, exec_, w_.active));
  return true;
}

// ---- memory ---------------------------------------------------------------------------------------

uint32_t Exec::address(unsigned lane, const isa::OperandInfo& op) const {
  const int64_t off = op.no_offset ? 0 : isa::sign_extend(f(Field::moff), isa::field_info(Field::moff).width);
  if (isa::operand_width(op, word_) == 2) {
    const uint64_t a = reg64(lane, f(op.field)) + static_cast<uint64_t>(off);
    if (a >> 32)
      fault(FaultKind::AddressRange, fmt::format("64-bit address {:#018x} has a non-zero upper word (device addresses are 32 bits)", a), lane);
    return static_cast<uint32_t>(a);
  }
  return static_cast<uint32_t>(reg(lane, f(op.field)) + static_cast<uint32_t>(off));
}

std::pair<Space, uint32_t> Exec::resolve_generic(uint32_t a) const {
  if (a - g::kSharedWindowBase < g::kWindowBytes) return {Space::Shared, a - g::kSharedWindowBase};
  if (a - g::kLocalWindowBase < g::kWindowBytes) return {Space::Local, a - g::kLocalWindowBase};
  return {Space::Global, a};
}

void Exec::check_access(Space sp, unsigned lane, uint32_t addr, unsigned bytes) const {
  if (addr % bytes)
    fault(FaultKind::Misaligned, fmt::format("{} address {:#010x} is not aligned to the {}-byte access", space_name(sp), addr, bytes), lane);
  switch (sp) {
    case Space::Global:
      if (!s_.memory.accessible(addr, bytes))
        fault(FaultKind::OutOfBounds, fmt::format("global address {:#010x} ({} bytes) is outside every allocation", addr, bytes), lane);
      break;
    case Space::Shared:
      if (uint64_t{addr} + bytes > b_.shared.size())
        fault(FaultKind::OutOfBounds,
              fmt::format("shared address {:#x} ({} bytes) is beyond the block's {} bytes of shared memory", addr, bytes, b_.shared.size()), lane);
      break;
    case Space::Local:
      if (uint64_t{addr} + bytes > s_.spec.kernel->local_bytes)
        fault(FaultKind::OutOfBounds,
              fmt::format("local address {:#x} ({} bytes) is beyond the thread's {} bytes of local memory (.local)", addr, bytes,
                          s_.spec.kernel->local_bytes), lane);
      break;
  }
}

uint8_t* Exec::bytes_at(Space sp, unsigned lane, uint32_t addr) {
  if (sp == Space::Shared) return b_.shared.data() + addr;
  const uint32_t thread = w_.warp_in_block * kWarpSize + lane;
  return b_.local.data() + size_t{thread} * s_.spec.kernel->local_bytes + addr;
}

void Exec::load(Space sp, unsigned lane, uint32_t addr, unsigned bytes, uint8_t* out) const {
  check_access(sp, lane, addr, bytes);
  if (sp == Space::Global) {
    s_.memory.read(addr, std::span(out, bytes));
    return;
  }
  std::memcpy(out, const_cast<Exec*>(this)->bytes_at(sp, lane, addr), bytes);
}

void Exec::store(Space sp, unsigned lane, uint32_t addr, unsigned bytes, const uint8_t* in, bool atomic) {
  check_access(sp, lane, addr, bytes);
  if (sp != Space::Global) {
    std::memcpy(bytes_at(sp, lane, addr), in, bytes);
    return;
  }
  s_.memory.write(addr, std::span(in, bytes));
  Commit::Store st;
  st.lane = lane;
  st.addr = addr;
  st.bytes = static_cast<uint8_t>(bytes);
  std::memcpy(st.data.data(), in, bytes);
  st.atomic = atomic;
  out_.stores.push_back(st);
}

// ---- dispatch -------------------------------------------------------------------------------------

Commit Exec::run() {
  const uint32_t pc = w_.pc;
  c_.pc = pc;
  if (pc >= s_.spec.module->text.size()) {
    c_.insn = 0;
    fault(FaultKind::InvalidInstruction, fmt::format("PC {} is outside the code ({} instructions)", pc, s_.spec.module->text.size()));
  }
  word_ = c_.insn = s_.spec.module->text[pc];
  info_ = c_.info = s_.decoded[pc];
  if (coverage_enabled()) {
    if (s_.pc_form.empty()) s_.pc_form.resize(s_.spec.module->text.size());
    if (!s_.pc_form[pc]) s_.pc_form[pc] = &coverage().forms[instruction_form(word_)];  // map nodes do not move
    ++*s_.pc_form[pc];
    ++coverage().stack_depth[std::min<size_t>(w_.stack.size(), 32)];
  }
  if (!info_) fault(FaultKind::InvalidInstruction, isa::decode(word_).error);
  check_registers();
  for (unsigned i = 0; i < info_->num_operands; ++i)
    uses_ra_ |= operand(i).field == Field::ra && operand(i).kind == OperandKind::Reg;

  out_.sm = c_.sm;
  out_.warp_slot = c_.slot;
  out_.seq = w_.seq++;
  out_.pc = pc;
  out_.insn = word_;
  out_.active = w_.active;
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    if ((w_.active >> lane & 1) && pred_n(lane, Field::pg, Field::pgn)) exec_ |= 1u << lane;
  out_.executed = exec_;

  const auto op = static_cast<g::Op>(info_->opcode);
  switch (info_->unit) {
    case g::Unit::SP:
      if (op == g::Op::VOTE || op == g::Op::SHFL || op == g::Op::S2R) warp_op(op);
      else if (op == g::Op::F2F || op == g::Op::F2I || op == g::Op::I2F || info_->cls == std::string_view("fp32")) floating(op);
      else integer(op);
      break;
    case g::Unit::SFU:
      for (unsigned lane = 0; lane < kWarpSize; ++lane)
        if (exec_ >> lane & 1)
          write_reg(lane, f(Field::rd), sfu::evaluate(e<g::Mufu>(Field::mufu), reg(lane, f(Field::ra)), flag(Field::ftz)));
      break;
    case g::Unit::DP: dp(op); break;
    case g::Unit::MEM:
      if (op == g::Op::ATOM || op == g::Op::ATOMS || op == g::Op::ATOMCAS || op == g::Op::ATOMSCAS) atomic(op);
      else if (op != g::Op::MEMBAR) memory_op(op);  // memory is sequentially consistent here: MEMBAR has nothing to wait for
      break;
    case g::Unit::CTRL: control(op); break;
    case g::Unit::SYNC: barrier(op); break;
  }
  if (!pc_set_) w_.pc = pc + 1;

  ++s_.stats.warp_instructions;
  s_.stats.thread_instructions += static_cast<uint64_t>(std::popcount(exec_));
  ++s_.stats.by_unit[static_cast<size_t>(info_->unit)];
  if (w_.live == 0) {
    out_.warp_exited = true;
    s_.warp_finished(c_.sm, w_, &out_);
  }
  return out_;
}

// ---- integer --------------------------------------------------------------------------------------

void Exec::integer(g::Op op) {
  // The operands the lane's ALU receives: A, B resolved (LOP3 reads rb directly) and C, a pair for
  // IMAD.WIDE.
  const isa::OperandInfo* b_op = operand_b();
  const isa::OperandInfo* rb_op = nullptr;
  const isa::OperandInfo* rc_op = nullptr;
  for (unsigned i = 0; i < info_->num_operands; ++i) {
    const isa::OperandInfo& o = operand(i);
    if (o.kind != OperandKind::Reg || o.dst) continue;
    if (o.field == Field::rb) rb_op = &o;
    if (o.field == Field::rc) rc_op = &o;
  }
  const bool c_pair = rc_op && isa::operand_width(*rc_op, word_) == 2;
  const uint64_t rd = f(Field::rd);
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!(exec_ >> lane & 1)) continue;
    const uint32_t a = uses_ra_ ? reg(lane, f(Field::ra)) : 0;
    const uint32_t b = b_op ? static_cast<uint32_t>(b_value(lane)) : rb_op ? reg(lane, f(Field::rb)) : 0;
    const uint64_t c = !rc_op ? 0 : c_pair ? reg64(lane, f(Field::rc)) : reg(lane, f(Field::rc));
    const auto r = int_lane(word_, a, b, static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), w_.preds[lane]);
    if (!r) fault(FaultKind::InvalidInstruction, fmt::format("{} has no integer semantics", info_->mnemonic));
    if (r->d_we) {
      if (r->d_wide) write_reg64(lane, rd, uint64_t{r->d_hi} << 32 | r->d);
      else write_reg(lane, rd, r->d);
    }
    // In the order the instruction writes them, as the commit record lists them: ISETP's Pd first.
    unsigned we = r->preds_we;
    if (op == g::Op::ISETP && (we >> f(Field::pd) & 1)) {
      write_pred(lane, f(Field::pd), r->preds >> f(Field::pd) & 1);
      we &= ~(1u << f(Field::pd));
    }
    for (unsigned p = 0; p < isa::kPT; ++p)
      if (we >> p & 1) write_pred(lane, p, r->preds >> p & 1);
  }
}

// ---- floating point -------------------------------------------------------------------------------

void Exec::floating(g::Op op) {
  const uint64_t rd = f(Field::rd);
  const auto rnd = static_cast<g::Rnd>(f(Field::rnd));  // the irnd field shares the bits
  const bool ftz = flag(Field::ftz);
  // Conversions that touch binary64 run on the DP unit.
  if ((op == g::Op::F2F || op == g::Op::F2I || op == g::Op::I2F) && s_.spec.config->dp_units == 0) {
    const bool f64 = (op != g::Op::I2F && e<g::Ftype>(Field::sfmt) == g::Ftype::F64) ||
                     (op != g::Op::F2I && e<g::Ftype>(Field::dfmt) == g::Ftype::F64);
    if (f64)
      fault(FaultKind::InvalidInstruction,
            fmt::format("{} with binary64 needs a DP unit; configuration {} has none (the translator lowers f64 there)",
                        info_->mnemonic, s_.spec.config->name));
  }
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!(exec_ >> lane & 1)) continue;
    switch (op) {
      case g::Op::FADD:
      case g::Op::FMUL:
      case g::Op::FFMA:
      case g::Op::FMNMX:
      case g::Op::FSETP: {
        const uint32_t a = dec32(operand(op == g::Op::FSETP ? 2 : 1), reg(lane, f(Field::ra)));
        const uint32_t b = dec32(*operand_b(), static_cast<uint32_t>(b_value(lane)));
        const bool sat = flag(Field::sat);
        if (op == g::Op::FADD) write_reg(lane, rd, fp::add_f32(a, b, rnd, ftz, sat));
        if (op == g::Op::FMUL) write_reg(lane, rd, fp::mul_f32(a, b, rnd, ftz, sat));
        if (op == g::Op::FFMA) write_reg(lane, rd, fp::fma_f32(a, b, dec32(operand(3), reg(lane, f(Field::rc))), rnd, ftz, sat));
        if (op == g::Op::FMNMX) {
          const bool nan = flag(Field::nan);
          write_reg(lane, rd, e<g::Mnmx>(Field::mnmx) == g::Mnmx::MIN ? fp::min_f32(a, b, ftz, nan) : fp::max_f32(a, b, ftz, nan));
        }
        if (op == g::Op::FSETP) {
          const bool t = fp::cmp_f32(e<g::Fcmp>(Field::fcmp), a, b, ftz);
          const bool s = pred_n(lane, Field::ps, Field::psn);
          write_pred(lane, f(Field::pd), combine(e<g::Bop>(Field::bop), t, s));
          write_pred(lane, f(Field::pq), combine(e<g::Bop>(Field::bop), !t, s));
        }
        break;
      }
      case g::Op::F2F: {
        const auto sf = e<g::Ftype>(Field::sfmt), df = e<g::Ftype>(Field::dfmt);
        const uint64_t src = dec_bits(operand(1), sf == g::Ftype::F64 ? reg64(lane, f(Field::ra)) : reg(lane, f(Field::ra)), sign_bit_of(sf));
        const uint64_t r = fp::f2f(src, sf, df, rnd, flag(Field::rint), ftz, flag(Field::sat));
        if (df == g::Ftype::F64) write_reg64(lane, rd, r);
        else write_reg(lane, rd, static_cast<uint32_t>(r));
        break;
      }
      case g::Op::F2I: {
        const auto sf = e<g::Ftype>(Field::sfmt);
        const auto it = e<g::Itype>(Field::itype);
        const uint64_t src = sf == g::Ftype::F64 ? reg64(lane, f(Field::ra)) : reg(lane, f(Field::ra));
        const uint64_t r = fp::f2i(src, sf, it, rnd, ftz);
        if (it == g::Itype::U64 || it == g::Itype::S64) write_reg64(lane, rd, r);
        else write_reg(lane, rd, static_cast<uint32_t>(r));
        break;
      }
      case g::Op::I2F: {
        const auto it = e<g::Itype>(Field::itype);
        const auto df = e<g::Ftype>(Field::dfmt);
        const uint64_t src = (it == g::Itype::U64 || it == g::Itype::S64) ? reg64(lane, f(Field::ra)) : reg(lane, f(Field::ra));
        const uint64_t r = fp::i2f(src, it, df, rnd);
        if (df == g::Ftype::F64) write_reg64(lane, rd, r);
        else write_reg(lane, rd, static_cast<uint32_t>(r));
        break;
      }
      default: fault(FaultKind::InvalidInstruction, fmt::format("{} has no floating-point semantics", info_->mnemonic));
    }
  }
}

void Exec::dp(g::Op op) {
  if (s_.spec.config->dp_units == 0)
    fault(FaultKind::InvalidInstruction,
          fmt::format("{} needs a DP unit; configuration {} has none (the translator lowers f64 there)", info_->mnemonic,
                      s_.spec.config->name));
  const auto rnd = e<g::Rnd>(Field::rnd);
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!(exec_ >> lane & 1)) continue;
    const uint64_t a = dec_bits(operand(op == g::Op::DSETP ? 2 : 1), reg64(lane, f(Field::ra)), 63);
    const uint64_t b = dec_bits(*operand_b(), b_value(lane), 63);
    const uint64_t rd = f(Field::rd);
    switch (op) {
      case g::Op::DADD: write_reg64(lane, rd, fp::add_f64(a, b, rnd)); break;
      case g::Op::DMUL: write_reg64(lane, rd, fp::mul_f64(a, b, rnd)); break;
      case g::Op::DFMA: write_reg64(lane, rd, fp::fma_f64(a, b, dec_bits(operand(3), reg64(lane, f(Field::rc)), 63), rnd)); break;
      case g::Op::DMNMX:
        write_reg64(lane, rd, e<g::Mnmx>(Field::mnmx) == g::Mnmx::MIN ? fp::min_f64(a, b, false) : fp::max_f64(a, b, false));
        break;
      case g::Op::DSETP: {
        const bool t = fp::cmp_f64(e<g::Fcmp>(Field::fcmp), a, b);
        const bool s = pred_n(lane, Field::ps, Field::psn);
        write_pred(lane, f(Field::pd), combine(e<g::Bop>(Field::bop), t, s));
        write_pred(lane, f(Field::pq), combine(e<g::Bop>(Field::bop), !t, s));
        break;
      }
      default: fault(FaultKind::InvalidInstruction, fmt::format("{} has no DP semantics", info_->mnemonic));
    }
  }
}

// ---- memory ---------------------------------------------------------------------------------------

void Exec::memory_op(g::Op op) {
  const auto msz = e<g::Msz>(Field::msz);
  const unsigned bytes = msz_bytes(msz);
  const bool is_load = op == g::Op::LDG || op == g::Op::LDS || op == g::Op::LDL || op == g::Op::LD || op == g::Op::LDC;
  const unsigned mem_index = is_load ? 1 : 0;
  const uint64_t rd = f(Field::rd);
  if (coverage_enabled() && (op == g::Op::LDS || op == g::Op::STS)) count_bank_degree(mem_index);
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!(exec_ >> lane & 1)) continue;
    std::array<uint8_t, 16> buf{};
    if (op == g::Op::LDC) {
      const auto bank = static_cast<uint32_t>(f(Field::cbank));
      const uint32_t addr = reg(lane, f(Field::ra)) + static_cast<uint32_t>(f(Field::coff));
      if (addr % bytes)
        fault(FaultKind::Misaligned, fmt::format("constant address c[{}][{:#x}] is not aligned to the {}-byte access", bank, addr, bytes), lane);
      for (unsigned i = 0; i < bytes; i += std::min(bytes, 4u)) {
        const uint32_t v = cbank_load(bank, addr + i, std::min(bytes, 4u), lane);
        std::memcpy(buf.data() + i, &v, std::min(bytes, 4u));
      }
    } else {
      uint32_t addr = address(lane, operand(mem_index));
      Space sp = op == g::Op::LDS || op == g::Op::STS   ? Space::Shared
                 : op == g::Op::LDL || op == g::Op::STL ? Space::Local
                                                         : Space::Global;
      if (op == g::Op::LD || op == g::Op::ST) std::tie(sp, addr) = resolve_generic(addr);
      if (!is_load) {
        Regs4 v{};
        for (unsigned i = 0; i < std::max(bytes / 4, 1u); ++i) v[i] = reg(lane, rd == isa::kRZ ? rd : rd + i);
        std::memcpy(buf.data(), v.data(), bytes);
        store(sp, lane, addr, bytes, buf.data(), false);
        continue;
      }
      load(sp, lane, addr, bytes, buf.data());
      if (sp == Space::Global && in_.memory_results) std::memcpy(buf.data(), (*in_.memory_results)[lane].data(), bytes);
    }
    Regs4 v{};
    std::memcpy(v.data(), buf.data(), std::max(bytes, 4u));
    if (msz == g::Msz::S8) v[0] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(v[0])));
    if (msz == g::Msz::S16) v[0] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v[0])));
    write_regs(lane, rd, std::max(bytes / 4, 1u), v);
  }
}

// Coverage: the bank-conflict degree of each half-warp of a shared load or store, the most distinct
// words any one bank serves (a word read by several lanes is one broadcast).
void Exec::count_bank_degree(unsigned mem_index) const {
  const uint32_t banks = s_.spec.config->shared_banks;
  for (unsigned half = 0; half < 2; ++half) {
    std::map<uint32_t, std::set<uint32_t>> words;  // bank -> words
    for (unsigned lane = 16 * half; lane < 16 * half + 16; ++lane)
      if (exec_ >> lane & 1) {
        const uint32_t word = address(lane, operand(mem_index)) / 4;
        words[word % banks].insert(word);
      }
    size_t degree = 0;
    for (const auto& [bank, w] : words) degree = std::max(degree, w.size());
    if (degree) ++coverage().bank_degree[std::min<size_t>(degree, 16)];
  }
}

void Exec::atomic(g::Op op) {
  const auto type = e<g::Atype>(Field::atype);
  const bool wide = type == g::Atype::U64 || type == g::Atype::S64;
  const unsigned bytes = wide ? 8 : 4;
  const bool cas = op == g::Op::ATOMCAS || op == g::Op::ATOMSCAS;
  const bool shared_op = op == g::Op::ATOMS || op == g::Op::ATOMSCAS;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {  // lanes in order: the documented serialization
    if (!(exec_ >> lane & 1)) continue;
    uint32_t addr = address(lane, operand(1));
    Space sp = Space::Shared;
    if (!shared_op) {
      std::tie(sp, addr) = resolve_generic(addr);
      if (sp == Space::Local) fault(FaultKind::OutOfBounds, fmt::format("atomic on the local window address {:#x}", addr), lane);
    }
    std::array<uint8_t, 8> buf{};
    load(sp, lane, addr, bytes, buf.data());
    uint64_t old = 0;
    std::memcpy(&old, buf.data(), bytes);
    // `base` is the value the operation combines with, `old` the one the thread gets back.
    uint64_t base = old;
    if (sp == Space::Global && in_.memory_results) {
      // In lockstep the memory's order decides the old values: the RTL's. An operation whose
      // final memory does not depend on the order (integer ADD, MIN, MAX, AND, OR, XOR) still
      // combines with the golden model's own memory, so that reductions, which return no old
      // value, and atomics the golden model steps in another order than memory performed them
      // end in the same memory; INC, DEC, EXCH, CAS and f32 ADD follow the RTL's order.
      const auto& r = (*in_.memory_results)[lane];
      old = r[0] | (wide ? uint64_t{r[1]} << 32 : 0);
      const auto order_free = [](g::Aop aop) {
        return aop == g::Aop::ADD || aop == g::Aop::MIN || aop == g::Aop::MAX || aop == g::Aop::AND || aop == g::Aop::OR ||
               aop == g::Aop::XOR;
      };
      if (cas || type == g::Atype::F32 || !order_free(e<g::Aop>(Field::aop))) base = old;
    }
    const uint64_t b = b_value(lane);
    const auto apply = [&](uint64_t x) {
      uint64_t nv = x;
      if (cas) {
        const uint64_t swap = wide ? reg64(lane, f(Field::rc)) : reg(lane, f(Field::rc));
        if (x == b) nv = swap;
        return nv;
      }
      const bool sgn = type == g::Atype::S32 || type == g::Atype::S64;
      const auto as_signed = [&](uint64_t v) { return wide ? static_cast<int64_t>(v) : int64_t{static_cast<int32_t>(v)}; };
      switch (e<g::Aop>(Field::aop)) {
        case g::Aop::ADD:
          // PTX: atom.add.f32 on global memory flushes subnormal inputs and results; on shared memory it does not.
          nv = type == g::Atype::F32 ? fp::add_f32(static_cast<uint32_t>(x), static_cast<uint32_t>(b), g::Rnd::RN, sp == Space::Global, false)
                                     : x + b;
          break;
        case g::Aop::MIN:
        case g::Aop::MAX: {
          const bool want_min = e<g::Aop>(Field::aop) == g::Aop::MIN;
          if (type == g::Atype::F32) {
            nv = want_min ? fp::min_f32(static_cast<uint32_t>(x), static_cast<uint32_t>(b), false, false)
                          : fp::max_f32(static_cast<uint32_t>(x), static_cast<uint32_t>(b), false, false);
          } else {
            const bool b_less = sgn ? as_signed(b) < as_signed(x) : b < x;
            nv = (b_less == want_min) ? b : x;
          }
          break;
        }
        case g::Aop::INC: nv = x >= b ? 0 : x + 1; break;
        case g::Aop::DEC: nv = (x == 0 || x > b) ? b : x - 1; break;
        case g::Aop::EXCH: nv = b; break;
        case g::Aop::AND: nv = x & b; break;
        case g::Aop::OR: nv = x | b; break;
        case g::Aop::XOR: nv = x ^ b; break;
      }
      return wide ? nv : nv & 0xFFFFFFFFu;
    };
    const uint64_t nv = apply(base);
    std::memcpy(buf.data(), &nv, bytes);
    store(sp, lane, addr, bytes, buf.data(), true);
    if (sp == Space::Global) out_.stores.back().step = base == old ? nv : apply(old);
    const uint64_t rd = f(Field::rd);
    if (wide) write_reg64(lane, rd, old);
    else write_reg(lane, rd, static_cast<uint32_t>(old));
  }
}

// ---- control flow ---------------------------------------------------------------------------------

void Exec::control(g::Op op) {
  const uint32_t pc = c_.pc;
  const auto target = [&] { return static_cast<uint32_t>(isa::branch_target(word_, pc)); };
  switch (op) {
    case g::Op::NOP: break;
    case g::Op::BRA: {
      pc_set_ = true;
      if (exec_ == w_.active) {
        w_.pc = target();
      } else if (exec_ == 0) {
        w_.pc = pc + 1;
      } else {
        s_.push(w_, StackKind::Div, w_.active & ~exec_, pc + 1, c_);
        w_.active = exec_;
        w_.pc = target();
      }
      break;
    }
    case g::Op::SSY:
      if (uniform_guard("SSY")) s_.push(w_, StackKind::Sync, w_.active, target(), c_);
      break;
    case g::Op::PBK:
      if (uniform_guard("PBK")) s_.push(w_, StackKind::Brk, w_.active, target(), c_);
      break;
    case g::Op::CAL:
      if (uniform_guard("CAL")) {
        s_.push(w_, StackKind::Ret, w_.active, pc + 1, c_);
        w_.pc = target();
        pc_set_ = true;
      }
      break;
    case g::Op::SYNC: {
      if (!uniform_guard("SYNC")) break;
      if (w_.stack.empty()) fault(FaultKind::StackUnderflow, "SYNC with an empty reconvergence stack (no SSY or divergent branch to return to)");
      const StackEntry top = w_.stack.back();
      w_.stack.pop_back();
      w_.active = top.mask & w_.live;
      w_.pc = top.pc;
      pc_set_ = true;
      s_.pop_until_active(w_);
      break;
    }
    case g::Op::BRK:
    case g::Op::RET:
      if (exec_ == 0) break;
      s_.leave(w_, exec_, op == g::Op::BRK ? StackKind::Brk : StackKind::Ret, c_);
      if (w_.active == 0) {
        w_.pc = pc + 1;
        s_.pop_until_active(w_);
        pc_set_ = true;
      }
      break;
    case g::Op::EXIT:
      if (exec_ == 0) break;
      w_.live &= ~exec_;
      w_.active &= ~exec_;
      for (auto& entry : w_.stack) entry.mask &= ~exec_;
      if (w_.active == 0) {
        w_.pc = pc + 1;
        s_.pop_until_active(w_);
        pc_set_ = true;
      }
      break;
    case g::Op::TRAP:
      if (exec_ != 0)
        fault(FaultKind::Trap, "the kernel executed TRAP (a failed assert or an explicit trap)", static_cast<unsigned>(std::countr_zero(exec_)));
      break;
    default: fault(FaultKind::InvalidInstruction, fmt::format("{} has no control semantics", info_->mnemonic));
  }
}

void Exec::barrier(g::Op op) {
  if (exec_ == 0) return;
  const uint32_t id = static_cast<uint32_t>(f(Field::barid));
  Barrier& bar = b_.bars[id];
  const auto divergent = [&](const std::string& why) {
    fault(FaultKind::DivergentBarrier,
          fmt::format("barrier {}: {} ({} of {} warps arrived so far)", id, why, bar.arrived, s_.expected_warps(b_, bar)));
  };
  if (exec_ != w_.active) divergent("the barrier's guard holds for only some of the warp's active threads");
  if (w_.active != w_.live)
    divergent(fmt::format("warp {} reached it with {} of its {} live threads; the others are on another path",
                          w_.warp_in_block, std::popcount(w_.active), std::popcount(w_.live)));
  const uint32_t count = static_cast<uint32_t>(f(Field::bcount));
  if (count % kWarpSize)
    fault(FaultKind::InvalidInstruction, fmt::format("barrier thread count {} is not a multiple of the warp size", count));
  if (bar.arrived == 0) {
    bar.thread_count = count;
    if (op == g::Op::BRED) bar.redop = e<g::Redop>(Field::redop);
  }
  ++bar.arrived;
  if (op == g::Op::BRED) {
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
      if (!(exec_ >> lane & 1)) continue;
      const bool p = pred_n(lane, Field::ps, Field::psn);
      bar.popc += p;
      bar.all = bar.all && p;
      bar.any = bar.any || p;
    }
    w_.reduction_rd = static_cast<uint8_t>(f(Field::rd));
    w_.reduction_lanes = exec_;
  }
  const bool wait = op == g::Op::BRED || e<g::Barmode>(Field::barmode) == g::Barmode::SYNC;
  if (wait) {
    w_.waiting = true;
    w_.barrier = id;
    out_.barrier_wait = true;
  }
  s_.try_release(c_.sm, b_, id, &out_);
}

// ---- warp-level operations ------------------------------------------------------------------------

void Exec::warp_op(g::Op op) {
  const uint64_t rd = f(Field::rd);
  switch (op) {
    case g::Op::S2R: {
      const auto sr = e<g::Sreg>(Field::sreg);
      for (unsigned lane = 0; lane < kWarpSize; ++lane) {
        if (!(exec_ >> lane & 1)) continue;
        const Dim3 tid = s_.thread_index(w_.warp_in_block * kWarpSize + lane);
        const auto& sp = s_.spec;
        const uint64_t clock = in_.clock.value_or(m_.clock);
        uint32_t v = 0;
        switch (sr) {
          case g::Sreg::LANEID: v = lane; break;
          case g::Sreg::CLOCK: v = static_cast<uint32_t>(clock); break;
          case g::Sreg::CLOCK_HI: v = static_cast<uint32_t>(clock >> 32); break;
          case g::Sreg::WARPID: v = c_.slot; break;
          case g::Sreg::NWARPID: v = sp.config->max_warps; break;
          case g::Sreg::SMID: v = c_.sm; break;
          case g::Sreg::NSMID: v = sp.config->num_sms; break;
          case g::Sreg::TID_X: v = tid.x; break;
          case g::Sreg::TID_Y: v = tid.y; break;
          case g::Sreg::TID_Z: v = tid.z; break;
          case g::Sreg::NTID_X: v = sp.block.x; break;
          case g::Sreg::NTID_Y: v = sp.block.y; break;
          case g::Sreg::NTID_Z: v = sp.block.z; break;
          case g::Sreg::CTAID_X: v = b_.ctaid.x; break;
          case g::Sreg::CTAID_Y: v = b_.ctaid.y; break;
          case g::Sreg::CTAID_Z: v = b_.ctaid.z; break;
          case g::Sreg::NCTAID_X: v = sp.grid.x; break;
          case g::Sreg::NCTAID_Y: v = sp.grid.y; break;
          case g::Sreg::NCTAID_Z: v = sp.grid.z; break;
          case g::Sreg::LANEMASK_EQ: v = 1u << lane; break;
          case g::Sreg::LANEMASK_LT: v = (1u << lane) - 1; break;
          case g::Sreg::LANEMASK_LE: v = lane == 31 ? ~0u : (2u << lane) - 1; break;
          case g::Sreg::LANEMASK_GT: v = lane == 31 ? 0 : ~((2u << lane) - 1); break;
          case g::Sreg::LANEMASK_GE: v = ~((1u << lane) - 1); break;
        }
        write_reg(lane, rd, v);
      }
      break;
    }
    case g::Op::VOTE: {
      if (exec_ == 0) break;
      const uint32_t members = exec_ & static_cast<uint32_t>(b_value(static_cast<unsigned>(std::countr_zero(exec_))));
      uint32_t ballot = 0;
      for (unsigned lane = 0; lane < kWarpSize; ++lane)
        if ((members >> lane & 1) && pred_n(lane, Field::ps, Field::psn)) ballot |= 1u << lane;
      const auto mode = e<g::Vote>(Field::vote);
      const bool result = mode == g::Vote::ALL ? ballot == members : mode == g::Vote::ANY ? ballot != 0 : (ballot == 0 || ballot == members);
      for (unsigned lane = 0; lane < kWarpSize; ++lane) {
        if (!(exec_ >> lane & 1)) continue;
        write_reg(lane, rd, ballot);
        write_pred(lane, f(Field::pd2), result);
      }
      break;
    }
    case g::Op::SHFL: {
      std::array<uint32_t, kWarpSize> src{};  // every lane's A, read before any lane writes
      for (unsigned lane = 0; lane < kWarpSize; ++lane) src[lane] = reg(lane, f(Field::ra));
      const auto mode = e<g::Shfl>(Field::shfl);
      for (unsigned lane = 0; lane < kWarpSize; ++lane) {
        if (!(exec_ >> lane & 1)) continue;
        const ShflLane shfl = shfl_lane(mode, lane, static_cast<uint32_t>(b_value(lane)), reg(lane, f(Field::rc)));
        write_reg(lane, rd, src[shfl.source]);
        write_pred(lane, f(Field::pd2), shfl.in_range);
      }
      break;
    }
    default: fault(FaultKind::InvalidInstruction, fmt::format("{} has no warp-level semantics", info_->mnemonic));
  }
}

}  // namespace

Commit State::execute(uint32_t sm, uint32_t slot, const StepInputs& inputs) { return Exec(*this, sm, slot, inputs).run(); }

}  // namespace tsm::golden
