// Translator driver: layout of symbols, register allocation, emission of the native module.
#include "ptx/translate.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "config/occupancy.hpp"
#include "isa/isa.hpp"
#include "ptx/builder.hpp"
#include "ptx/inline.hpp"
#include "ptx/lower.hpp"
#include "ptx/reconverge.hpp"

namespace tsm::ptx {

namespace g = isa::gen;

namespace {

uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

uint32_t element_bytes(const VarDecl& d) { return std::max(1u, d.type.bits / 8) * d.vector; }

uint64_t total_bytes(const VarDecl& d) {
  uint64_t n = element_bytes(d);
  for (uint64_t dim : d.dims) n *= dim;
  return n;
}

uint32_t alignment(const VarDecl& d) { return std::max(d.align, element_bytes(d)); }

DataType data_type(const VarDecl& d) {
  DataType t;
  if (d.vector == 1 && d.dims.empty()) {
    const std::string name = d.type.kind == Type::Kind::F ? fmt::format("f{}", d.type.bits)
                             : d.type.kind == Type::Kind::S ? fmt::format("s{}", d.type.bits)
                             : d.type.kind == Type::Kind::U ? fmt::format("u{}", d.type.bits)
                                                            : fmt::format("b{}", d.type.bits);
    if (lookup_scalar_type(name, t)) return t;
  }
  t.name = "bytes";
  t.size = static_cast<uint32_t>(total_bytes(d));
  t.align = std::min<uint32_t>(16, std::bit_ceil(alignment(d)));
  return t;
}

// A data symbol as the module describes it: an array of the element type, or of bytes.
DataSymbol data_symbol(const VarDecl& d, uint32_t bank, uint32_t offset, uint32_t slot = 0) {
  DataSymbol s;
  s.name = d.name;
  s.bank = bank;
  s.offset = offset;
  s.slot = slot;
  VarDecl elem = d;
  elem.dims.clear();
  elem.vector = 1;
  s.type = data_type(elem);
  if (s.type.name == "bytes") lookup_scalar_type("u8", s.type);
  s.count = static_cast<uint32_t>(total_bytes(d) / s.type.size);
  return s;
}

std::vector<uint8_t> init_bytes(const VarDecl& d) {
  std::vector<uint8_t> out(static_cast<size_t>(total_bytes(d)), 0);
  const unsigned eb = std::max(1u, d.type.bits / 8);
  for (size_t i = 0; i < d.init.size() && (i + 1) * eb <= out.size(); ++i)
    for (unsigned b = 0; b < eb; ++b) out[i * eb + b] = static_cast<uint8_t>(d.init[i] >> (8 * b));
  return out;
}

// ---- register allocation -------------------------------------------------------------------------

struct Allocation {
  std::vector<int> phys;  // per vreg: first physical register or predicate, -1 if unused
  uint32_t registers = 0;
  uint32_t spill = 0;     // when allocation failed: the vreg to spill (0: none can be)
};

bool is_def(const MInst& m, isa::Field f) {
  // The carry predicate is written by .CC (and read by .X, see reads_too()).
  if (f == isa::Field::pcc) return isa::get(m.word, isa::Field::cc) != 0;
  for (unsigned i = 0; i < m.info->num_operands; ++i) {
    const auto& op = m.info->operands[i];
    if (op.field == f && op.dst) return true;
  }
  return false;
}

// An unguarded `MOV Rd, Rb` (register to register, nothing else bound).
bool is_plain_move(const MInst& m) {
  if (!m.info || std::string_view(m.info->mnemonic) != "MOV" || m.binds.size() != 2) return false;
  if (isa::get(m.word, isa::Field::pg) != isa::kPT || isa::get(m.word, isa::Field::pgn)) return false;
  const bool rd0 = m.binds[0].field == isa::Field::rd && m.binds[1].field == isa::Field::rb;
  const bool rd1 = m.binds[1].field == isa::Field::rd && m.binds[0].field == isa::Field::rb;
  return rd0 || rd1;
}

// The peephole pass after allocation: moves whose source and destination got the same register.
size_t remove_self_moves(MFunction& f, const std::vector<int>& phys) {
  size_t removed = 0;
  for (MBlock& blk : f.blocks) {
    const size_t before = blk.insts.size();
    std::erase_if(blk.insts, [&](const MInst& m) {
      if (!is_plain_move(m) || m.target >= 0) return false;
      return phys[m.binds[0].vreg] + m.binds[0].offset == phys[m.binds[1].vreg] + m.binds[1].offset;
    });
    removed += before - blk.insts.size();
  }
  return removed;
}

// One attempt at allocation. When registers run out, returns with `spill` naming the live value
// whose interval reaches furthest (not a sequence's pinned operand, not a spill temporary).
Allocation allocate_once(const MFunction& f, uint32_t budget, const std::string& file, const std::string& kernel,
                         const std::vector<bool>& unspillable) {
  const size_t nv = f.vregs.size();
  const size_t nb = f.blocks.size();
  // Positions: each instruction, plus one for each block's terminator.
  std::vector<size_t> block_start(nb), block_end(nb);
  size_t pos = 0;
  for (size_t b = 0; b < nb; ++b) {
    block_start[b] = pos;
    pos += f.blocks[b].insts.size() + 1;
    block_end[b] = pos - 1;
  }
  std::vector<std::vector<bool>> use(nb, std::vector<bool>(nv)), def(nb, std::vector<bool>(nv));
  std::vector<size_t> first(nv, SIZE_MAX), last(nv, 0);
  auto touch = [&](uint32_t v, size_t p) {
    first[v] = std::min(first[v], p);
    last[v] = std::max(last[v], p);
  };
  std::vector<bool> pinned(nv, false);
  std::vector<Loc> pos_loc(pos);
  // Copies: a value defined by `MOV v, s` would rather live in s's register (the MOV then goes).
  std::vector<uint32_t> copy_of(nv, 0);
  for (const MBlock& blk : f.blocks)
    for (const MInst& m : blk.insts) {
      if (!is_plain_move(m)) continue;
      const auto& d = m.binds[0].field == isa::Field::rd ? m.binds[0] : m.binds[1];
      const auto& src = m.binds[0].field == isa::Field::rd ? m.binds[1] : m.binds[0];
      if (d.offset == src.offset && f.vregs[d.vreg].width == f.vregs[src.vreg].width && !f.vregs[d.vreg].pred)
        copy_of[d.vreg] = src.vreg;
    }
  for (size_t b = 0; b < nb; ++b) {
    const MBlock& blk = f.blocks[b];
    size_t p = block_start[b];
    for (const MInst& m : blk.insts) {
      for (uint32_t v : m.pins) pinned[v] = true;
      pos_loc[p] = m.loc;
      const bool guarded = isa::get(m.word, isa::Field::pg) != isa::kPT || isa::get(m.word, isa::Field::pgn);
      for (const auto& bind : m.binds) {
        const bool d = bind.field != isa::Field::pg && is_def(m, bind.field);
        const bool carry_in = bind.field == isa::Field::pcc && isa::get(m.word, isa::Field::x) != 0;
        if (!d || guarded || carry_in) {  // a guarded write keeps the old value in the other lanes: a use too
          if (!def[b][bind.vreg]) use[b][bind.vreg] = true;
        }
        touch(bind.vreg, p);
      }
      for (const auto& bind : m.binds)
        if (bind.field != isa::Field::pg && is_def(m, bind.field) && !guarded && !(bind.field == isa::Field::pcc && isa::get(m.word, isa::Field::x)))
          def[b][bind.vreg] = true;
      for (uint32_t v : m.pins) touch(v, p);
      ++p;
    }
    if (blk.exit == MBlock::Exit::Branch) {
      if (!def[b][blk.cond]) use[b][blk.cond] = true;
      touch(blk.cond, block_end[b]);
    }
  }
  std::vector<std::vector<bool>> live_in(nb, std::vector<bool>(nv)), live_out(nb, std::vector<bool>(nv));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t bi = nb; bi-- > 0;) {
      std::vector<bool> out(nv, false);
      for (int s : successors(f, static_cast<int>(bi)))
        for (size_t v = 0; v < nv; ++v) out[v] = out[v] || live_in[static_cast<size_t>(s)][v];
      std::vector<bool> in(nv);
      for (size_t v = 0; v < nv; ++v) in[v] = use[bi][v] || (out[v] && !def[bi][v]);
      if (in != live_in[bi] || out != live_out[bi]) {
        live_in[bi] = std::move(in);
        live_out[bi] = std::move(out);
        changed = true;
      }
    }
  }
  // A value is only worth keeping where some definition of it can have happened: a guarded write
  // to a fresh temporary reads as a use above, but nothing upstream of its first write matters.
  std::vector<std::vector<bool>> defs_any(nb, std::vector<bool>(nv)), reach_in(nb, std::vector<bool>(nv)),
      reach_out(nb, std::vector<bool>(nv));
  for (size_t b = 0; b < nb; ++b)
    for (const MInst& m : f.blocks[b].insts)
      for (const auto& bind : m.binds)
        if (bind.field != isa::Field::pg && is_def(m, bind.field)) defs_any[b][bind.vreg] = true;
  std::vector<std::vector<int>> preds(nb);
  for (size_t b = 0; b < nb; ++b)
    for (int s2 : successors(f, static_cast<int>(b))) preds[static_cast<size_t>(s2)].push_back(static_cast<int>(b));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < nb; ++b) {
      std::vector<bool> in(nv, false);
      for (int pb : preds[b])
        for (size_t v = 0; v < nv; ++v) in[v] = in[v] || reach_out[static_cast<size_t>(pb)][v];
      std::vector<bool> out(nv);
      for (size_t v = 0; v < nv; ++v) out[v] = in[v] || defs_any[b][v];
      if (in != reach_in[b] || out != reach_out[b]) {
        reach_in[b] = std::move(in);
        reach_out[b] = std::move(out);
        changed = true;
      }
    }
  }
  for (size_t b = 0; b < nb; ++b)
    for (size_t v = 1; v < nv; ++v) {
      live_in[b][v] = live_in[b][v] && reach_in[b][v];
      live_out[b][v] = live_out[b][v] && reach_out[b][v];
    }
  for (size_t b = 0; b < nb; ++b)
    for (size_t v = 1; v < nv; ++v) {
      if (live_in[b][v]) touch(static_cast<uint32_t>(v), block_start[b]);
      if (live_out[b][v]) touch(static_cast<uint32_t>(v), block_end[b]);
    }
  // Linear scan, registers and predicates separately.
  std::vector<uint32_t> order;
  for (uint32_t v = 1; v < nv; ++v)
    if (first[v] != SIZE_MAX) order.push_back(v);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return first[a] < first[b]; });
  Allocation a;
  a.phys.assign(nv, -1);
  // A register is free for v from the position where its last value dies: an instruction reads
  // its operands before it writes, so a destination may take a dying source's register. Not a
  // dead destination's register at its own position, though (two destinations would collide).
  std::vector<size_t> reg_busy_until(isa::kRZ, 0), pred_busy_until(isa::kPT, 0);
  std::vector<bool> reg_used(isa::kRZ, false), pred_used(isa::kPT, false), reg_dead_def(isa::kRZ, false);
  std::vector<uint32_t> reg_owner(isa::kRZ, 0);
  auto reg_free_at = [&](unsigned r, size_t at) {
    return !reg_used[r] || reg_busy_until[r] < at || (reg_busy_until[r] == at && !reg_dead_def[r]);
  };
  for (uint32_t v : order) {
    const VRegInfo& info = f.vregs[v];
    if (info.pred) {
      int got = -1;
      for (unsigned p = 0; p < isa::kPT && got < 0; ++p)
        if (!pred_used[p] || pred_busy_until[p] < first[v]) got = static_cast<int>(p);
      if (got < 0)
        throw PtxError(file, Loc{}, fmt::format("kernel {} needs more than {} live predicates at once; predicate spilling is not supported", kernel, isa::kPT));
      pred_used[static_cast<size_t>(got)] = true;
      pred_busy_until[static_cast<size_t>(got)] = last[v];
      a.phys[v] = got;
      continue;
    }
    const unsigned w = info.width;
    int got = -1;
    if (const uint32_t c = copy_of[v]; c && a.phys[c] >= 0 && static_cast<unsigned>(a.phys[c]) + w <= budget) {
      bool free = true;
      for (unsigned k = 0; k < w && free; ++k) free = reg_free_at(static_cast<unsigned>(a.phys[c]) + k, first[v]);
      if (free) got = a.phys[c];
    }
    for (unsigned r = 0; r + w <= budget && got < 0; r += w) {
      bool free = true;
      for (unsigned k = 0; k < w && free; ++k) free = reg_free_at(r + k, first[v]);
      if (free) got = static_cast<int>(r);
    }
    if (got < 0) {
      // Spill the candidate live here (v included) whose interval ends last.
      uint32_t victim = 0;
      auto consider = [&](uint32_t c) {
        if (c == 0 || unspillable[c] || pinned[c] || f.vregs[c].pred || last[c] <= first[c] + 1) return;
        if (victim == 0 || last[c] > last[victim]) victim = c;
      };
      consider(v);
      for (unsigned r = 0; r < budget; ++r)
        if (reg_used[r] && reg_busy_until[r] >= first[v]) consider(reg_owner[r]);
      a.spill = victim;
      if (victim == 0)
        throw PtxError(file, first[v] < pos_loc.size() ? pos_loc[first[v]] : Loc{},
                       fmt::format("kernel {}: this instruction needs more than the {} registers per thread allowed "
                                   "(--maxrregcount, launch bounds) even with every other value spilled to local memory",
                                   kernel, budget));
      return a;
    }
    for (unsigned k = 0; k < w; ++k) {
      reg_used[static_cast<size_t>(got) + k] = true;
      reg_busy_until[static_cast<size_t>(got) + k] = last[v];
      reg_dead_def[static_cast<size_t>(got) + k] = first[v] == last[v];
      reg_owner[static_cast<size_t>(got) + k] = v;
    }
    a.phys[v] = got;
    a.registers = std::max(a.registers, static_cast<uint32_t>(got) + w);
  }
  a.registers = std::max(a.registers, 1u);
  return a;
}

// Keep `v` in local memory at byte `offset`: a fresh temporary per instruction that touches it,
// loaded before (if read) and stored after (if written). Returns the temporaries.
std::vector<uint32_t> spill(MFunction& f, uint32_t v, uint32_t offset) {
  std::vector<uint32_t> temps;
  const uint8_t width = f.vregs[v].width;
  const std::string sz = width == 2 ? ".64" : width == 4 ? ".128" : "";
  for (MBlock& blk : f.blocks) {
    std::vector<MInst> out;
    out.reserve(blk.insts.size());
    for (MInst& m : blk.insts) {
      bool reads = false, writes = false;
      const bool guarded = isa::get(m.word, isa::Field::pg) != isa::kPT || isa::get(m.word, isa::Field::pgn);
      for (const auto& bind : m.binds) {
        if (bind.vreg != v) continue;
        const bool d = bind.field != isa::Field::pg && is_def(m, bind.field);
        if (d) writes = true;
        if (!d || guarded) reads = true;
      }
      if (writes && width > 1) reads = true;  // a write of one word keeps the others: load them first
      if (!reads && !writes) {
        out.push_back(std::move(m));
        continue;
      }
      const uint32_t t = f.new_vreg(width);
      temps.push_back(t);
      for (auto& bind : m.binds)
        if (bind.vreg == v) bind.vreg = t;
      const Loc loc = m.loc;
      const std::vector<uint32_t> regs{t}, no_preds;
      if (reads) out.push_back(build_inst(fmt::format("LDL{} %0, [RZ+{:#x}]", sz, offset), regs, no_preds, loc));
      out.push_back(std::move(m));
      if (writes) out.push_back(build_inst(fmt::format("STL{} [RZ+{:#x}], %0", sz, offset), regs, no_preds, loc));
    }
    blk.insts = std::move(out);
  }
  return temps;
}

struct Allocated {
  Allocation alloc;
  uint32_t spilled = 0;      // values kept in local memory
  uint32_t spill_bytes = 0;  // local memory they take, after the kernel's own
};

// Allocate within `budget` registers, spilling to local memory (from byte `local_base`) as needed.
Allocated allocate(MFunction& f, uint32_t budget, uint32_t local_base, const std::string& file, const std::string& kernel) {
  Allocated r;
  std::vector<bool> unspillable(f.vregs.size(), false);
  uint32_t offset = (local_base + 7) / 8 * 8;
  for (;;) {
    r.alloc = allocate_once(f, budget, file, kernel, unspillable);
    if (r.alloc.spill == 0) break;
    const uint32_t v = r.alloc.spill;
    const uint32_t bytes = 4u * f.vregs[v].width;
    offset = (offset + bytes - 1) / bytes * bytes;
    const std::vector<uint32_t> temps = spill(f, v, offset);
    offset += bytes;
    r.spill_bytes = offset - local_base;
    ++r.spilled;
    unspillable.resize(f.vregs.size(), false);
    unspillable[v] = true;
    for (uint32_t t : temps) unspillable[t] = true;
  }
  return r;
}

// --maxrregcount, lowered by .maxnreg, and by .maxntid/.reqntid so that such a block fits.
uint32_t register_budget(const Function& fn, const TranslateOptions& o, const std::string& file) {
  uint32_t budget = std::min<uint32_t>(o.max_registers, isa::kRZ);
  if (fn.maxnreg) budget = std::min(budget, fn.maxnreg);
  uint64_t threads = 0;
  for (const uint32_t* d : {fn.reqntid, fn.maxntid})
    if (d[0]) threads = uint64_t{d[0]} * std::max(1u, d[1]) * std::max(1u, d[2]);
  if (threads == 0) return budget;
  const config::SmConfig* cfg = config::find_config(o.config);
  if (!cfg) throw PtxError(file, fn.loc, fmt::format("unknown configuration '{}'", o.config));
  const Dim3 block{static_cast<uint32_t>(std::min<uint64_t>(threads, UINT32_MAX)), 1, 1};
  const uint32_t fits = max_regs_for_block(*cfg, block);
  if (fits == 0) {
    try {
      (void)compute_occupancy(*cfg, block, {1, 0});
    } catch (const LaunchConfigError& e) {
      throw PtxError(file, fn.loc, fmt::format("kernel {}: its launch bounds ({} threads) cannot fit configuration {}: {}",
                                               fn.name, threads, o.config, e.what()));
    }
  }
  return std::max(1u, std::min(budget, fits));
}

// ---- emission ------------------------------------------------------------------------------------

std::vector<uint64_t> emit(const MFunction& f, const Allocation& a) {
  const size_t nb = f.blocks.size();
  // Which blocks need a trailing BRA, to place branch targets.
  auto trailing = [&](size_t b) {
    const MBlock& blk = f.blocks[b];
    const int next = static_cast<int>(b) + 1;
    int extra = 0;
    switch (blk.exit) {
      case MBlock::Exit::Fall: extra = blk.fall >= 0 && blk.fall != next; break;
      case MBlock::Exit::Jump: extra = blk.taken != next; break;
      case MBlock::Exit::Branch: extra = 1 + (blk.fall != next); break;
      default: break;
    }
    return extra;
  };
  std::vector<int64_t> start(nb);
  int64_t pc = 0;
  for (size_t b = 0; b < nb; ++b) {
    start[b] = pc;
    pc += static_cast<int64_t>(f.blocks[b].insts.size()) + trailing(b);
  }
  std::vector<uint64_t> out;
  auto place = [&](MInst m) {
    for (const auto& bind : m.binds) {
      const int p = a.phys[bind.vreg];
      m.word = isa::set(m.word, bind.field, static_cast<uint64_t>(p + bind.offset));
    }
    if (m.target >= 0) m.word = isa::set(m.word, isa::Field::target, static_cast<uint64_t>(start[static_cast<size_t>(m.target)] - static_cast<int64_t>(out.size())));
    out.push_back(m.word);
  };
  for (size_t b = 0; b < nb; ++b) {
    const MBlock& blk = f.blocks[b];
    for (const MInst& m : blk.insts) place(m);
    const int next = static_cast<int>(b) + 1;
    auto bra = [&](int target, uint32_t cond, bool neg) {
      MInst m = build_inst(cond ? (neg ? "@!%p0 BRA +0" : "@%p0 BRA +0") : "BRA +0", std::vector<uint32_t>{},
                           cond ? std::vector<uint32_t>{cond} : std::vector<uint32_t>{}, blk.branch_loc);
      m.target = target;
      place(m);
    };
    switch (blk.exit) {
      case MBlock::Exit::Fall:
        if (blk.fall >= 0 && blk.fall != next) bra(blk.fall, 0, false);
        break;
      case MBlock::Exit::Jump:
        if (blk.taken != next) bra(blk.taken, 0, false);
        break;
      case MBlock::Exit::Branch:
        bra(blk.taken, blk.cond, blk.cond_neg);
        if (blk.fall != next) bra(blk.fall, 0, false);
        break;
      default: break;
    }
  }
  return out;
}

}  // namespace

TranslateResult translate(const Module& ptx, const TranslateOptions& options) {
  TranslateResult result;
  ::tsm::Module& out = result.module;
  Layout common;
  // Module-scope variables: constants in bank 2, globals in the global image with an address slot
  // in bank 1, shared variables at the start of every kernel's shared memory.
  auto& bank1 = out.cbanks[g::kCbankLiterals];
  for (const VarDecl& d : ptx.globals) {
    const uint64_t bytes = total_bytes(d);
    if (d.space == Space::Const) {
      auto& bank2 = out.cbanks[g::kCbankUser];
      const uint32_t off = align_up(static_cast<uint32_t>(bank2.size()), alignment(d));
      if (off + bytes > g::kCbankBytes) throw PtxError(ptx.file, d.loc, fmt::format("constant '{}' does not fit the 64 KiB constant bank", d.name));
      bank2.resize(off, 0);
      const auto init = init_bytes(d);
      bank2.insert(bank2.end(), init.begin(), init.end());
      out.consts.push_back(data_symbol(d, g::kCbankUser, off));
      common.symbols[d.name] = {Space::Const, off, static_cast<uint32_t>(bytes)};
    } else if (d.space == Space::Global) {
      // Initializers holding addresses of other globals become relocations the loader fills in.
      const unsigned eb = std::max(1u, d.type.bits / 8);
      for (size_t i = 0; i < d.init_symbols.size(); ++i) {
        const std::string& target = d.init_symbols[i];
        if (target.empty()) continue;
        const bool is_global = std::any_of(ptx.globals.begin(), ptx.globals.end(), [&](const VarDecl& g) {
          return g.name == target && g.space == Space::Global;
        });
        if (!is_global)
          throw PtxError(ptx.file, d.loc, fmt::format("global '{}': its initializer holds the address of '{}', which is not a "
                                                      ".global variable (only addresses of global variables are supported)",
                                                      d.name, target));
        const uint64_t mask = i < d.init_masks.size() ? d.init_masks[i] : 0;
        Relocation r;
        r.global = d.name;
        r.at = static_cast<uint32_t>(i * eb);
        r.target = target;
        r.addend = static_cast<int64_t>(d.init[i]);
        r.bytes = mask ? 1 : eb;
        r.shift = mask ? static_cast<uint32_t>(std::countr_zero(mask)) : 0;
        out.relocs.push_back(std::move(r));
      }
      const uint32_t off = align_up(static_cast<uint32_t>(out.global_data.size()), alignment(d));
      out.global_data.resize(off, 0);
      const auto init = init_bytes(d);
      out.global_data.insert(out.global_data.end(), init.begin(), init.end());
      const uint32_t slot = align_up(static_cast<uint32_t>(bank1.size()), 8);
      bank1.resize(slot + 8, 0);
      out.globals.push_back(data_symbol(d, g::kCbankLiterals, off, slot));
      common.symbols[d.name] = {Space::Global, slot, static_cast<uint32_t>(bytes)};
    } else if (d.space == Space::Shared) {
      const uint32_t off = align_up(common.shared_bytes, alignment(d));
      common.shared_bytes = off + static_cast<uint32_t>(bytes);
      common.symbols[d.name] = {Space::Shared, off, static_cast<uint32_t>(bytes)};
    } else {
      throw PtxError(ptx.file, d.loc, fmt::format("module-scope variables in this state space are not supported ('{}')", d.name));
    }
  }
  // Assertion messages are printf records with a format the translator supplies.
  const bool asserts = std::any_of(ptx.functions.begin(), ptx.functions.end(), [](const Function& f) {
    return std::any_of(f.body.begin(), f.body.end(), [](const Statement& st) {
      return st.kind == Statement::Kind::Instr && st.instr.opcode == "call" && st.instr.operands.size() > 1 &&
             st.instr.operands[1].name == "__assertfail";
    });
  });
  if (asserts) {
    VarDecl d;
    d.space = Space::Global;
    d.type = Type{Type::Kind::B, 8};
    d.name = kAssertFormatSymbol;
    for (const char* c = kAssertFormat; *c; ++c) d.init.push_back(static_cast<uint8_t>(*c));
    d.init.push_back(0);
    d.dims = {d.init.size()};
    d.has_init = true;
    const uint32_t off = static_cast<uint32_t>(out.global_data.size());
    const auto init = init_bytes(d);
    out.global_data.insert(out.global_data.end(), init.begin(), init.end());
    const uint32_t slot = align_up(static_cast<uint32_t>(bank1.size()), 8);
    bank1.resize(slot + 8, 0);
    out.globals.push_back(data_symbol(d, g::kCbankLiterals, off, slot));
    common.symbols[d.name] = {Space::Global, slot, static_cast<uint32_t>(init.size())};
  }
  if (bank1.empty()) out.cbanks.erase(g::kCbankLiterals);

  for (const Function& kernel : ptx.functions) {
    if (!kernel.is_entry) continue;  // device functions are inlined where they are called
    const Function fn = inline_calls(ptx, kernel);
    Layout layout = common;
    const config::SmConfig* cfg = config::find_config(options.config);
    if (!cfg) throw PtxError(ptx.file, kernel.loc, fmt::format("unknown configuration '{}'", options.config));
    layout.soft_f64 = cfg->dp_units == 0;
    layout.config = options.config;
    KernelInfo k;
    k.name = fn.name;
    k.entry = static_cast<uint32_t>(out.text.size());
    uint32_t param_end = g::kC0Params;
    for (const VarDecl& p : fn.params) {
      ParamInfo pi;
      pi.name = p.name;
      pi.type = data_type(p);
      pi.offset = align_up(param_end, std::max(alignment(p), pi.type.align));
      if (pi.type.name == "bytes") pi.type.align = std::min<uint32_t>(16, std::bit_ceil(std::max(alignment(p), 1u)));
      pi.offset = align_up(param_end, pi.type.align);
      param_end = pi.offset + pi.type.size;
      if (param_end > g::kC0Params + g::kMaxParamBytes)
        throw PtxError(ptx.file, p.loc, fmt::format("kernel {}: parameters exceed {} bytes", fn.name, g::kMaxParamBytes));
      layout.symbols[p.name] = {Space::Param, pi.offset, pi.type.size};
      k.params.push_back(pi);
    }
    bool has_dynamic = false;
    for (const VarDecl& d : fn.decls) {
      if (d.space == Space::Shared) {
        const bool dynamic = d.is_extern || (!d.dims.empty() && d.dims.back() == 0);
        if (dynamic) {
          has_dynamic = true;
          continue;
        }
        const uint32_t off = align_up(layout.shared_bytes, alignment(d));
        layout.shared_bytes = off + static_cast<uint32_t>(total_bytes(d));
        layout.symbols[d.name] = {Space::Shared, off, static_cast<uint32_t>(total_bytes(d))};
      } else if (d.space == Space::Local) {
        const uint32_t off = align_up(layout.local_bytes, alignment(d));
        layout.local_bytes = off + static_cast<uint32_t>(total_bytes(d));
        layout.symbols[d.name] = {Space::Local, off, static_cast<uint32_t>(total_bytes(d))};
      }
    }
    if (has_dynamic) {  // every extern .shared array starts where the static ones end
      layout.dynamic_shared_offset = align_up(layout.shared_bytes, 16);
      for (const VarDecl& d : fn.decls)
        if (d.space == Space::Shared && (d.is_extern || (!d.dims.empty() && d.dims.back() == 0)))
          layout.symbols[d.name] = {Space::Shared, layout.dynamic_shared_offset, 0};
      for (const VarDecl& d : ptx.globals)
        if (d.space == Space::Shared && d.is_extern) layout.symbols[d.name] = {Space::Shared, layout.dynamic_shared_offset, 0};
      layout.shared_bytes = layout.dynamic_shared_offset;
    }
    MFunction mf = lower_function(ptx, fn, layout);
    reconverge(mf, ptx.file);
    const uint32_t local_base = align_up(layout.local_bytes, 8);
    const Allocated allocated = allocate(mf, register_budget(kernel, options, ptx.file), local_base, ptx.file, fn.name);
    const Allocation& alloc = allocated.alloc;
    if (allocated.spilled) layout.local_bytes = local_base + allocated.spill_bytes;
    remove_self_moves(mf, alloc.phys);
    const std::vector<uint64_t> code = emit(mf, alloc);
    out.text.insert(out.text.end(), code.begin(), code.end());
    k.regs = alloc.registers;
    k.shared_bytes = layout.shared_bytes;
    k.local_bytes = align_up(layout.local_bytes, 4);
    out.kernels.push_back(k);
    result.stats.push_back({fn.name, k.regs, static_cast<uint32_t>(code.size()), k.shared_bytes, k.local_bytes,
                            allocated.spilled, allocated.spill_bytes});
  }
  try {
    out.validate(ptx.file);
  } catch (const FormatError& e) {
    throw PtxError(ptx.file, Loc{}, fmt::format("internal error: the translated module is invalid: {}", e.what()));
  }
  return result;
}

}  // namespace tsm::ptx
