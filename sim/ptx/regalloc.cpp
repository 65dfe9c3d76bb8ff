// Register allocation for the translator (docs/translator.md §6): Chaitin–Briggs graph colouring.
//
// Liveness is exact per instruction (a value is live from where some definition of it can have
// happened to its last use on each path), so a value occupies a register only where it lives; two
// values interfere when one is written where the other is live. Colouring simplifies the graph
// (a node with fewer neighbours than colours can always be coloured), removes the cheapest node to
// spill optimistically when none is, and colours in reverse order, the lowest aligned registers
// first (pairs on even, quads on multiple-of-4 registers) and, where free, the register of a value
// it is copied from or to, so that the copy disappears. A value that gets no colour is spilled:
// a constant is recomputed before each use (rematerialization), a predicate is kept in a general
// register, anything else in local memory; then colouring starts again.
#include "ptx/regalloc.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "ptx/builder.hpp"
#include "ptx/reconverge.hpp"

namespace tsm::ptx {

namespace {

// A set of vregs as a bit vector.
class Bits {
 public:
  explicit Bits(size_t n = 0) : w_((n + 63) / 64, 0) {}
  bool test(size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1u; }
  void set(size_t i) { w_[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(size_t i) { w_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool operator==(const Bits& o) const { return w_ == o.w_; }
  Bits& operator|=(const Bits& o) {
    for (size_t k = 0; k < w_.size(); ++k) w_[k] |= o.w_[k];
    return *this;
  }
  Bits& operator&=(const Bits& o) {
    for (size_t k = 0; k < w_.size(); ++k) w_[k] &= o.w_[k];
    return *this;
  }
  Bits& minus(const Bits& o) {
    for (size_t k = 0; k < w_.size(); ++k) w_[k] &= ~o.w_[k];
    return *this;
  }
  template <typename Fn>
  void each(Fn&& fn) const {
    for (size_t k = 0; k < w_.size(); ++k)
      for (uint64_t x = w_[k]; x; x &= x - 1) fn(k * 64 + static_cast<size_t>(__builtin_ctzll(x)));
  }

 private:
  std::vector<uint64_t> w_;
};

bool is_def(const MInst& m, isa::Field f) {
  // The carry predicate is written by .CC (and read by .X).
  if (f == isa::Field::pcc) return isa::get(m.word, isa::Field::cc) != 0;
  for (unsigned i = 0; i < m.info->num_operands; ++i) {
    const auto& op = m.info->operands[i];
    if (op.field == f && op.dst) return true;
  }
  return false;
}

// Registers an operand field occupies in this instruction (1 for predicates).
unsigned field_words(const MInst& m, isa::Field f) {
  for (unsigned i = 0; i < m.info->num_operands; ++i) {
    const auto& op = m.info->operands[i];
    // Operand B names no field of its own: a register B is bound as rb.
    if (op.field == f || (f == isa::Field::rb && op.kind == isa::gen::OperandKind::B)) return isa::operand_width(op, m.word);
  }
  return 1;
}

bool guarded(const MInst& m) { return isa::get(m.word, isa::Field::pg) != isa::kPT || isa::get(m.word, isa::Field::pgn); }

// An unguarded `MOV Rd, Rb` (register to register, nothing else bound).
bool is_plain_move(const MInst& m) {
  if (!m.info || std::string_view(m.info->mnemonic) != "MOV" || m.binds.size() != 2) return false;
  if (guarded(m)) return false;
  const bool rd0 = m.binds[0].field == isa::Field::rd && m.binds[1].field == isa::Field::rb;
  const bool rd1 = m.binds[1].field == isa::Field::rd && m.binds[0].field == isa::Field::rb;
  return rd0 || rd1;
}

// Liveness is tracked per 32-bit word ("unit"): a pair is two units, so a 64-bit value built by
// IADD.CC (low word) and IADD.X (high word) is dead above the first and fully written by the
// second. What one instruction does: the units it reads (a guarded write also reads: the lanes it
// leaves keep the old value), writes, and kills (unguarded writes), and the vregs it writes.
struct Effect {
  std::vector<uint32_t> reads, writes, kills;  // units
  std::vector<uint32_t> written;               // vregs
};

Effect effect_of(const MFunction& f, const std::vector<uint32_t>& base, const MInst& m) {
  Effect e;
  const bool g = guarded(m);
  for (const auto& bind : m.binds) {
    const bool d = bind.field != isa::Field::pg && is_def(m, bind.field);
    const bool carry_in = bind.field == isa::Field::pcc && isa::get(m.word, isa::Field::x) != 0;
    const uint32_t width = f.vregs[bind.vreg].width;
    const uint32_t words = std::min<uint32_t>(field_words(m, bind.field), width - std::min<uint32_t>(bind.offset, width));
    if (d && bind.field != isa::Field::pcc && !f.vregs[bind.vreg].pred && bind.offset + field_words(m, bind.field) > width)
      throw PtxError("", m.loc, fmt::format("internal error: {} writes {} register(s) from word {} of a {}-word value", m.info->mnemonic,
                                            field_words(m, bind.field), bind.offset, width));
    for (uint32_t k = 0; k < std::max(words, 1u); ++k) {
      const uint32_t u = base[bind.vreg] + std::min<uint32_t>(bind.offset + k, width - 1);
      if (!d || carry_in || g) e.reads.push_back(u);
      if (d) {
        e.writes.push_back(u);
        if (!g && !carry_in) e.kills.push_back(u);
      }
    }
    if (d) e.written.push_back(bind.vreg);
  }
  // A unit both killed and read by one instruction (two binds) stays read.
  std::erase_if(e.kills, [&](uint32_t u) { return std::find(e.reads.begin(), e.reads.end(), u) != e.reads.end(); });
  return e;
}

[[noreturn]] void too_many(const std::string& file, Loc loc, const std::string& kernel, uint32_t budget, bool pred) {
  if (pred)
    throw PtxError(file, loc, fmt::format("kernel {}: this instruction needs more than the {} predicates there are, even with every "
                                          "other predicate kept in a general register",
                                          kernel, budget));
  throw PtxError(file, loc, fmt::format("kernel {}: this instruction needs more than the {} registers per thread allowed "
                                        "(--maxrregcount, launch bounds) even with every other value spilled to local memory",
                                        kernel, budget));
}

// One colouring attempt's result: a colour per vreg, or the vregs to spill.
struct Colouring {
  std::vector<int> phys;
  std::vector<uint32_t> spill;
  uint32_t registers = 0;
};

// Word-level liveness of a function: units, each instruction's effect, and per block the units
// live on exit (only where some definition can have reached) and reached on entry.
struct Liveness {
  std::vector<uint32_t> base, owner;         // vreg -> first unit; unit -> vreg
  std::vector<std::vector<Effect>> effects;  // per block, per instruction
  std::vector<Bits> live_out, reach_in, reach_out;
};

Liveness analyse(const MFunction& f) {
  Liveness l;
  const size_t nv = f.vregs.size();
  const size_t nb = f.blocks.size();
  l.base.assign(nv, 0);
  for (uint32_t v = 0; v < nv; ++v) {
    l.base[v] = static_cast<uint32_t>(l.owner.size());
    for (uint32_t k = 0; k < std::max<uint32_t>(1, f.vregs[v].width); ++k) l.owner.push_back(v);
  }
  const size_t nu = l.owner.size();
  l.effects.resize(nb);
  std::vector<Bits> use(nb, Bits(nu)), kill(nb, Bits(nu)), defs_any(nb, Bits(nu));
  for (size_t b = 0; b < nb; ++b) {
    const MBlock& blk = f.blocks[b];
    for (const MInst& m : blk.insts) {
      Effect e = effect_of(f, l.base, m);
      for (uint32_t u : e.reads)
        if (!kill[b].test(u)) use[b].set(u);
      for (uint32_t u : e.writes) defs_any[b].set(u);
      for (uint32_t u : e.kills) kill[b].set(u);
      l.effects[b].push_back(std::move(e));
    }
    if (blk.exit == MBlock::Exit::Branch && !kill[b].test(l.base[blk.cond])) use[b].set(l.base[blk.cond]);
  }
  std::vector<std::vector<int>> preds(nb), succs(nb);
  for (size_t b = 0; b < nb; ++b)
    for (int s : successors(f, static_cast<int>(b))) {
      succs[b].push_back(s);
      preds[static_cast<size_t>(s)].push_back(static_cast<int>(b));
    }
  std::vector<Bits> live_in(nb, Bits(nu));
  l.live_out.assign(nb, Bits(nu));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      Bits out(nu);
      for (int s : succs[b]) out |= live_in[static_cast<size_t>(s)];
      Bits in = out;
      in.minus(kill[b]) |= use[b];
      if (!(in == live_in[b]) || !(out == l.live_out[b])) {
        live_in[b] = std::move(in);
        l.live_out[b] = std::move(out);
        changed = true;
      }
    }
  }
  // A value is only worth keeping where some definition of it can have happened: a guarded write
  // to a fresh temporary reads as a use, but nothing upstream of its first write matters.
  l.reach_in.assign(nb, Bits(nu));
  l.reach_out.assign(nb, Bits(nu));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < nb; ++b) {
      Bits in(nu);
      for (int p : preds[b]) in |= l.reach_out[static_cast<size_t>(p)];
      Bits out = in;
      out |= defs_any[b];
      if (!(in == l.reach_in[b]) || !(out == l.reach_out[b])) {
        l.reach_in[b] = std::move(in);
        l.reach_out[b] = std::move(out);
        changed = true;
      }
    }
  }
  for (size_t b = 0; b < nb; ++b) l.live_out[b] &= l.reach_out[b];
  return l;
}

// Per instruction of a block: the pins of the lowering sequence it belongs to, or null. A sequence
// pins its operands and temporaries on its first and last instruction; its body may loop (branches
// inside one block), so nothing in between may move, and each pinned value holds its register from
// the first instruction to the last.
std::vector<const std::vector<uint32_t>*> sequence_spans(const MBlock& blk) {
  std::vector<const std::vector<uint32_t>*> span(blk.insts.size(), nullptr);
  for (size_t i = 0; i < blk.insts.size(); ++i) {
    const auto& pins = blk.insts[i].pins;
    if (pins.empty()) continue;
    size_t j = i + 1;
    while (j < blk.insts.size() && blk.insts[j].pins != pins) ++j;
    if (j == blk.insts.size()) j = i;
    for (size_t k = i; k <= j; ++k) span[k] = &pins;
    i = j;
  }
  return span;
}

// Instructions that only compute their destinations (no memory, no control, no warp-wide effect):
// deleted when nothing reads what they write. Loads stay (a dead load may still fault).
bool pure(const MInst& m) {
  const std::string_view c = m.info->cls;
  return c == "integer" || c == "fp32" || c == "fp64" || c == "conversion" || c == "sfu" ||
         std::string_view(m.info->mnemonic) == "S2R" || std::string_view(m.info->mnemonic) == "LDC";
}

// Before colouring, on word-level liveness: delete pure instructions whose results nobody reads,
// turn IMUL/IMAD.WIDE whose high word nobody reads into the 32-bit form and IADD.CC whose carry
// nobody reads into a plain IADD, and make a pair whose high word is then never touched a single
// register. clang computes shared-memory addresses in 64 bits (`mov.u64 %rd, partial; add.s64`)
// although a shared address is the low word only: this leaves those as 32-bit values.
void shrink(MFunction& f) {
  for (int round = 0; round < 8; ++round) {
    const Liveness l = analyse(f);
    bool changed = false;
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      MBlock& blk = f.blocks[b];
      Bits live = l.live_out[b];
      if (blk.exit == MBlock::Exit::Branch) live.set(l.base[blk.cond]);
      const auto span = sequence_spans(blk);
      std::vector<bool> drop(blk.insts.size(), false);
      for (size_t i = blk.insts.size(); i-- > 0;) {
        MInst& m = blk.insts[i];
        const Effect& e = l.effects[b][i];
        if (!span[i] && !e.writes.empty()) {
          const bool any_live = std::any_of(e.writes.begin(), e.writes.end(), [&](uint32_t u) { return live.test(u); });
          if (!any_live && pure(m)) {
            drop[i] = true;
            changed = true;
            continue;  // its reads are not reads
          }
          const std::string_view mn = m.info->mnemonic;
          if ((mn == "IMUL" || mn == "IMAD") && isa::get(m.word, isa::Field::mulw) == static_cast<uint64_t>(isa::gen::Mulw::WIDE)) {
            for (const auto& bind : m.binds)
              if (bind.field == isa::Field::rd && bind.offset == 0 && f.vregs[bind.vreg].width == 2 &&
                  !live.test(l.base[bind.vreg] + 1)) {
                m.word = isa::set(m.word, isa::Field::mulw, static_cast<uint64_t>(isa::gen::Mulw::LO));
                changed = true;
              }
          }
          if (mn == "IADD" && isa::get(m.word, isa::Field::cc) != 0) {
            for (const auto& bind : m.binds)
              if (bind.field == isa::Field::pcc && !live.test(l.base[bind.vreg])) {
                m.word = isa::set(m.word, isa::Field::cc, 0);
                changed = true;
              }
            if (isa::get(m.word, isa::Field::cc) == 0 && isa::get(m.word, isa::Field::x) == 0)
              std::erase_if(m.binds, [](const MInst::Bind& bind) { return bind.field == isa::Field::pcc; });
          }
        }
        // Live before: after minus kills, plus reads (the effect as computed before any change
        // above: a narrowed instruction reads no more than it did).
        for (uint32_t u : e.kills) live.reset(u);
        for (uint32_t u : e.reads) live.set(u);
      }
      if (std::find(drop.begin(), drop.end(), true) != drop.end()) {
        std::vector<MInst> kept;
        for (size_t i = 0; i < blk.insts.size(); ++i)
          if (!drop[i]) kept.push_back(std::move(blk.insts[i]));
        blk.insts = std::move(kept);
      }
    }
    if (!changed) break;
  }
  // A pair whose every access is one word at offset 0 holds a 32-bit value.
  std::vector<bool> narrow(f.vregs.size(), false);
  for (size_t v = 0; v < f.vregs.size(); ++v) narrow[v] = f.vregs[v].width == 2 && !f.vregs[v].pred;
  for (const MBlock& blk : f.blocks)
    for (const MInst& m : blk.insts) {
      for (const auto& bind : m.binds)
        if (narrow[bind.vreg] && (bind.offset != 0 || field_words(m, bind.field) != 1)) narrow[bind.vreg] = false;
      for (uint32_t p : m.pins) narrow[p] = false;
    }
  for (size_t v = 0; v < f.vregs.size(); ++v)
    if (narrow[v]) f.vregs[v].width = 1;
}

Colouring colour(const MFunction& f, const AllocOptions& o, const std::vector<bool>& unspillable, const std::string& file,
                 const std::string& kernel) {
  const size_t nv = f.vregs.size();
  const size_t nb = f.blocks.size();
  const Liveness l = analyse(f);
  const auto& owner = l.owner;
  const auto& base = l.base;
  const auto& effects = l.effects;
  std::vector<bool> present(nv, false);
  std::vector<double> cost(nv, 0.0);
  std::vector<Loc> def_loc(nv);
  const std::vector<int> depth = loop_depths(f);
  for (size_t b = 0; b < nb; ++b) {
    const MBlock& blk = f.blocks[b];
    const double weight = std::pow(10.0, std::min(depth[b], 4));
    for (size_t i = 0; i < blk.insts.size(); ++i) {
      const MInst& m = blk.insts[i];
      for (const auto& bind : m.binds) {
        cost[bind.vreg] += weight;
        present[bind.vreg] = true;
      }
      for (uint32_t v : effects[b][i].written)
        if (def_loc[v].line == 0) def_loc[v] = m.loc;
    }
    if (blk.exit == MBlock::Exit::Branch) {
      cost[blk.cond] += weight;
      present[blk.cond] = true;
    }
  }
  // Interference: walking each block backwards, every value written interferes with every value
  // of its class live after the instruction (and with the instruction's other writes). A plain
  // copy does not make its source and destination interfere: they hold the same value.
  std::vector<std::vector<uint32_t>> adj(nv);
  std::vector<std::vector<uint32_t>> partners(nv);  // copy-related values
  auto edge = [&](uint32_t a, uint32_t b) {
    if (a == b || f.vregs[a].pred != f.vregs[b].pred) return;
    adj[a].push_back(b);
    adj[b].push_back(a);
  };
  for (size_t b = 0; b < nb; ++b) {
    const MBlock& blk = f.blocks[b];
    Bits live = l.live_out[b];
    // Defined before instruction i of this block: the block's reach plus its own earlier writes.
    Bits reached = l.reach_in[b];
    std::vector<Bits> reached_before;
    reached_before.reserve(blk.insts.size());
    for (size_t i = 0; i < blk.insts.size(); ++i) {
      reached_before.push_back(reached);
      for (uint32_t u : effects[b][i].writes) reached.set(u);
    }
    if (blk.exit == MBlock::Exit::Branch && reached.test(base[blk.cond])) live.set(base[blk.cond]);
    const auto span = sequence_spans(blk);
    for (size_t i = 0; i < blk.insts.size(); ++i)
      if (span[i] && (i == 0 || span[i - 1] != span[i]))
        for (uint32_t p : *span[i]) {
          present[p] = true;
          for (uint32_t q : *span[i]) edge(p, q);
        }
    for (size_t i = blk.insts.size(); i-- > 0;) {
      const Effect& e = effects[b][i];
      const MInst& m = blk.insts[i];
      uint32_t copy_src = 0;
      if (is_plain_move(m)) {
        const auto& d = m.binds[0].field == isa::Field::rd ? m.binds[0] : m.binds[1];
        const auto& s = m.binds[0].field == isa::Field::rd ? m.binds[1] : m.binds[0];
        if (d.offset == s.offset && f.vregs[d.vreg].width == f.vregs[s.vreg].width) {
          copy_src = s.vreg;
          partners[d.vreg].push_back(s.vreg);
          partners[s.vreg].push_back(d.vreg);
        }
      }
      for (uint32_t d : e.written) {
        live.each([&](size_t u) {
          if (owner[u] != copy_src) edge(d, owner[u]);
        });
        for (uint32_t d2 : e.written) edge(d, d2);
        if (span[i])
          for (uint32_t p : *span[i]) edge(d, p);
      }
      if (span[i])
        for (uint32_t p : *span[i]) live.each([&](size_t u) { edge(p, owner[u]); });
      for (uint32_t u : e.kills) live.reset(u);
      for (uint32_t u : e.reads)
        if (reached_before[i].test(u)) live.set(u);
      for (uint32_t u : e.writes)  // the first write: nothing of the word exists above it
        if (!reached_before[i].test(u)) live.reset(u);
    }
  }
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  // Simplify. For a value of width w (aligned to w), a neighbour of width x blocks max(1, x/w) of
  // its floor(K/w) possible places; fewer blocked than places means it can always be coloured.
  auto places = [&](uint32_t v) { return f.vregs[v].pred ? o.predicates : o.registers / f.vregs[v].width; };
  auto blocks = [&](uint32_t v, uint32_t u) { return std::max<uint32_t>(1, f.vregs[u].width / f.vregs[v].width); };
  std::vector<uint32_t> pressure(nv, 0);
  std::vector<bool> removed(nv, true);
  size_t remaining = 0;
  for (uint32_t v = 1; v < nv; ++v)
    if (present[v]) {
      removed[v] = false;
      ++remaining;
    }
  for (uint32_t v = 1; v < nv; ++v)
    if (!removed[v])
      for (uint32_t u : adj[v]) pressure[v] += blocks(v, u);
  std::vector<uint32_t> stack;
  stack.reserve(remaining);
  std::vector<uint32_t> low;
  for (uint32_t v = 1; v < nv; ++v)
    if (!removed[v] && pressure[v] < places(v)) low.push_back(v);
  auto remove = [&](uint32_t v) {
    removed[v] = true;
    --remaining;
    stack.push_back(v);
    for (uint32_t u : adj[v]) {
      if (removed[u]) continue;
      const bool was_high = pressure[u] >= places(u);
      pressure[u] -= blocks(u, v);
      if (was_high && pressure[u] < places(u)) low.push_back(u);
    }
  };
  while (remaining > 0) {
    bool progress = false;
    while (!low.empty()) {
      const uint32_t v = low.back();
      low.pop_back();
      if (removed[v]) continue;
      remove(v);
      progress = true;
    }
    if (remaining == 0) break;
    (void)progress;
    // Blocked: the cheapest value per neighbour goes optimistically (spilled only if, when its
    // turn comes, no colour is left). Unspillable values only when nothing else is left.
    uint32_t pick = 0;
    double best = 0;
    for (uint32_t v = 1; v < nv; ++v) {
      if (removed[v]) continue;
      const bool fixed = unspillable[v];
      const double score = (fixed ? 1e30 : cost[v]) / static_cast<double>(std::max<uint32_t>(1, pressure[v]));
      if (pick == 0 || score < best) {
        pick = v;
        best = score;
      }
    }
    remove(pick);
  }
  // Select, in reverse removal order.
  Colouring c;
  c.phys.assign(nv, -1);
  std::vector<uint32_t> failed;
  for (size_t k = stack.size(); k-- > 0;) {
    const uint32_t v = stack[k];
    const bool pred = f.vregs[v].pred;
    const uint32_t w = f.vregs[v].width;
    const uint32_t limit = pred ? o.predicates : o.registers;
    std::vector<bool> busy(limit + 4, false);
    for (uint32_t u : adj[v]) {
      const int p = c.phys[u];
      if (p < 0) continue;
      for (uint32_t x = 0; x < f.vregs[u].width; ++x)
        if (static_cast<size_t>(p) + x < busy.size()) busy[static_cast<size_t>(p) + x] = true;
    }
    auto fits = [&](uint32_t r) {
      if (r % w != 0 || r + w > limit) return false;
      for (uint32_t x = 0; x < w; ++x)
        if (busy[r + x]) return false;
      return true;
    };
    int got = -1;
    for (uint32_t p : partners[v])  // the register of a copy's other side, where free
      if (c.phys[p] >= 0 && fits(static_cast<uint32_t>(c.phys[p]))) {
        got = c.phys[p];
        break;
      }
    for (uint32_t r = 0; r + w <= limit && got < 0; r += w)
      if (fits(r)) got = static_cast<int>(r);
    if (got < 0) {
      failed.push_back(v);
      continue;
    }
    c.phys[v] = got;
    if (!pred) c.registers = std::max(c.registers, static_cast<uint32_t>(got) + w);
  }
  for (uint32_t v : failed) {
    if (!unspillable[v]) {
      c.spill.push_back(v);
      continue;
    }
    // A value that must stay in a register: spill its cheapest spillable neighbour instead.
    uint32_t victim = 0;
    for (uint32_t u : adj[v])
      if (!unspillable[u] && c.phys[u] >= 0 && (victim == 0 || cost[u] < cost[victim])) victim = u;
    if (victim == 0) too_many(file, def_loc[v], kernel, f.vregs[v].pred ? o.predicates : o.registers, f.vregs[v].pred);
    c.spill.push_back(victim);
  }
  std::sort(c.spill.begin(), c.spill.end());
  c.spill.erase(std::unique(c.spill.begin(), c.spill.end()), c.spill.end());
  c.registers = std::max(c.registers, 1u);
  return c;
}

// A value whose every word is defined once, by an unguarded instruction that reads nothing
// (MOV32I, MOV of a constant-bank word or of RZ, S2R of a special register that does not change
// while the warp runs): it can be recomputed before each read instead of being kept. Returns the
// defining instructions (one per word), or nothing.
std::vector<MInst> rematerializable(const MFunction& f, uint32_t v) {
  if (f.vregs[v].pred || f.vregs[v].width > 2) return {};
  std::vector<MInst> defs;
  std::vector<bool> word(f.vregs[v].width, false);
  for (const MBlock& blk : f.blocks)
    for (const MInst& m : blk.insts) {
      // An operand of a lowering sequence: a copy put inside the sequence would move its branches.
      if (std::find(m.pins.begin(), m.pins.end(), v) != m.pins.end()) return {};
      for (const auto& bind : m.binds) {
        if (bind.vreg != v || bind.field == isa::Field::pg || !is_def(m, bind.field)) continue;
        if (guarded(m) || m.binds.size() != 1 || !m.pins.empty() || bind.offset >= word.size() || word[bind.offset] ||
            field_words(m, bind.field) != 1)
          return {};
        const std::string_view mn = m.info->mnemonic;
        bool constant = mn == "MOV32I" || mn == "MOV";  // its only bind is the destination: B is RZ, c[][] or an immediate
        if (mn == "S2R") {
          const auto sr = static_cast<isa::gen::Sreg>(isa::get(m.word, isa::Field::sreg));
          constant = sr != isa::gen::Sreg::CLOCK && sr != isa::gen::Sreg::CLOCK_HI && sr != isa::gen::Sreg::WARPID &&
                     sr != isa::gen::Sreg::SMID;
        }
        if (!constant) return {};
        word[bind.offset] = true;
        defs.push_back(m);
      }
    }
  if (defs.empty() || std::find(word.begin(), word.end(), false) != word.end()) return {};
  return defs;
}

// Replace v by fresh temporaries defined by copies of `defs` just before each instruction that
// reads it; the original definitions go. Returns the temporaries.
std::vector<uint32_t> rematerialize(MFunction& f, uint32_t v, const std::vector<MInst>& defs) {
  std::vector<uint32_t> temps;
  for (MBlock& blk : f.blocks) {
    std::vector<MInst> out;
    out.reserve(blk.insts.size());
    for (MInst& m : blk.insts) {
      bool reads = false, writes = false;
      for (const auto& bind : m.binds)
        if (bind.vreg == v) (bind.field != isa::Field::pg && is_def(m, bind.field) ? writes : reads) = true;
      if (writes) continue;  // a definition itself
      if (!reads) {
        out.push_back(std::move(m));
        continue;
      }
      const uint32_t t = f.new_vreg(f.vregs[v].width);
      temps.push_back(t);
      for (MInst copy : defs) {
        copy.binds[0].vreg = t;
        copy.loc = m.loc;
        out.push_back(std::move(copy));
      }
      for (auto& bind : m.binds)
        if (bind.vreg == v) bind.vreg = t;
      out.push_back(std::move(m));
    }
    blk.insts = std::move(out);
  }
  return temps;
}

// Constants are recomputed where they are read, as ptxas does, when that costs at most one
// instruction per read and adds none to a loop the definition is not in: a kernel parameter or
// special register read at the start and used once or twice much later then holds no register
// in between.
uint32_t rematerialize_constants(MFunction& f) {
  const std::vector<int> depth = loop_depths(f);
  const size_t nv = f.vregs.size();
  std::vector<int> def_depth(nv, -1), max_use_depth(nv, -1), reads(nv, 0);
  for (size_t b = 0; b < f.blocks.size(); ++b)
    for (const MInst& m : f.blocks[b].insts) {
      for (const auto& bind : m.binds) {
        const bool d = bind.field != isa::Field::pg && is_def(m, bind.field);
        if (d) {
          def_depth[bind.vreg] = std::max(def_depth[bind.vreg], depth[b]);
        } else {
          max_use_depth[bind.vreg] = std::max(max_use_depth[bind.vreg], depth[b]);
          ++reads[bind.vreg];
        }
      }
      for (uint32_t p : m.pins) reads[p] += 1000;  // a sequence's operand stays
    }
  uint32_t count = 0;
  for (uint32_t v = 1; v < nv; ++v) {
    if (reads[v] == 0 || reads[v] > 2 || max_use_depth[v] > def_depth[v]) continue;
    const std::vector<MInst> defs = rematerializable(f, v);
    if (defs.empty()) continue;
    rematerialize(f, v, defs);
    ++count;
  }
  return count;
}

// Gives every instruction that touches `v` a fresh vreg of v's kind in its place, and puts
// `before(t, loc)` ahead of one that reads v (a guarded, carry-in or partial-word write reads it
// too: the lanes or words it leaves keep the old value) and `after(t, loc)` behind one that writes
// it. A lowering sequence counts as one instruction: its body may loop, so v gets one fresh vreg
// for the whole sequence, set before its first instruction and saved after its last (this is what
// lets a long-lived operand of a sequence live in memory everywhere else). Returns the fresh vregs.
template <typename Before, typename After>
std::vector<uint32_t> replace_per_instruction(MFunction& f, uint32_t v, Before before, After after) {
  std::vector<uint32_t> temps;
  const uint8_t width = f.vregs[v].width;
  const bool pred = f.vregs[v].pred;
  for (MBlock& blk : f.blocks) {
    // The instructions [i, end[i]] form one unit: a sequence's span, or the instruction alone.
    const auto span = sequence_spans(blk);
    std::vector<size_t> end(blk.insts.size());
    for (size_t i = 0; i < blk.insts.size();) {
      size_t j = i;
      if (span[i])
        while (j + 1 < blk.insts.size() && span[j + 1] == span[i]) ++j;  // spans point at their first instruction's pins
      end[i] = j;
      i = j + 1;
    }
    std::vector<MInst> out;
    out.reserve(blk.insts.size());
    for (size_t i = 0; i < blk.insts.size(); i = end[i] + 1) {
      bool reads = false, writes = false;
      for (size_t k = i; k <= end[i]; ++k) {
        const MInst& m = blk.insts[k];
        const bool g = guarded(m);
        for (const auto& bind : m.binds) {
          if (bind.vreg != v) continue;
          const bool d = bind.field != isa::Field::pg && is_def(m, bind.field);
          const bool carry_in = bind.field == isa::Field::pcc && isa::get(m.word, isa::Field::x) != 0;
          const bool partial = d && (bind.offset != 0 || field_words(m, bind.field) < width);
          writes |= d;
          reads |= !d || g || carry_in || partial;
        }
        for (uint32_t p : m.pins) reads |= p == v;
      }
      if (!reads && !writes) {
        for (size_t k = i; k <= end[i]; ++k) out.push_back(std::move(blk.insts[k]));
        continue;
      }
      const uint32_t t = f.new_vreg(width, pred);
      temps.push_back(t);
      const Loc loc = blk.insts[i].loc;
      if (reads) out.push_back(before(t, loc));
      for (size_t k = i; k <= end[i]; ++k) {
        MInst& m = blk.insts[k];
        for (auto& bind : m.binds)
          if (bind.vreg == v) bind.vreg = t;
        for (auto& p : m.pins)
          if (p == v) p = t;
        out.push_back(std::move(m));
      }
      if (writes) out.push_back(after(t, loc));
    }
    blk.insts = std::move(out);
  }
  return temps;
}

// Keep `v` in local memory at byte `offset`: loaded before each read, stored after each write.
std::vector<uint32_t> spill_to_local(MFunction& f, uint32_t v, uint32_t offset) {
  const uint8_t width = f.vregs[v].width;
  const std::string sz = width == 2 ? ".64" : width == 4 ? ".128" : "";
  const std::vector<uint32_t> no_preds;
  return replace_per_instruction(
      f, v,
      [&](uint32_t t, Loc loc) { return build_inst(fmt::format("LDL{} %0, [RZ+{:#x}]", sz, offset), std::vector<uint32_t>{t}, no_preds, loc); },
      [&](uint32_t t, Loc loc) { return build_inst(fmt::format("STL{} [RZ+{:#x}], %0", sz, offset), std::vector<uint32_t>{t}, no_preds, loc); });
}

// Keep predicate `v` in a general register as 0 or 1 (the ISA has no P2R/R2P): set from the
// register before each read (ISETP), saved into it after each write (SEL); a branch on it tests a
// fresh one at the block's end. Returns the fresh predicates. The register spills to local memory
// like any value.
std::vector<uint32_t> spill_predicate(MFunction& f, uint32_t v) {
  const uint32_t home = f.new_vreg(1);
  const std::vector<uint32_t> regs{home};
  auto restore = [&](uint32_t t, Loc loc) { return build_inst("ISETP.NE.U32 %p0, PT, %0, 0x0", regs, std::vector<uint32_t>{t}, loc); };
  std::vector<uint32_t> temps = replace_per_instruction(
      f, v, restore, [&](uint32_t t, Loc loc) { return build_inst("SEL %0, RZ, 0x1, !%p0", regs, std::vector<uint32_t>{t}, loc); });
  for (MBlock& blk : f.blocks)
    if (blk.exit == MBlock::Exit::Branch && blk.cond == v) {
      const uint32_t t = f.new_vreg(1, true);
      temps.push_back(t);
      blk.insts.push_back(restore(t, blk.branch_loc));
      blk.cond = t;
    }
  return temps;
}

}  // namespace

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

namespace {

Allocation colour_and_spill(MFunction& f, const AllocOptions& o, const std::string& file, const std::string& kernel) {
  Allocation a;
  std::vector<bool> unspillable(f.vregs.size(), false);
  uint32_t offset = (o.local_base + 7) / 8 * 8;
  for (;;) {
    const Colouring c = colour(f, o, unspillable, file, kernel);
    if (c.spill.empty()) {
      a.phys = c.phys;
      a.registers = c.registers;
      return a;
    }
    for (uint32_t v : c.spill) {
      std::vector<uint32_t> temps;
      if (f.vregs[v].pred) {
        temps = spill_predicate(f, v);
        ++a.spilled_predicates;
      } else if (const auto defs = rematerializable(f, v); !defs.empty()) {
        temps = rematerialize(f, v, defs);
        ++a.rematerialized;
      } else {
        const uint32_t bytes = 4u * f.vregs[v].width;
        offset = (offset + bytes - 1) / bytes * bytes;
        temps = spill_to_local(f, v, offset);
        offset += bytes;
        a.spill_bytes = offset - o.local_base;
        ++a.spilled;
      }
      unspillable.resize(f.vregs.size(), false);
      unspillable[v] = true;
      for (uint32_t t : temps) unspillable[t] = true;
    }
  }
}

}  // namespace

Allocation allocate(MFunction& f, const AllocOptions& o, const std::string& file, const std::string& kernel) {
  shrink(f);
  // Recomputing constants where they are read costs instructions; it is kept only where it saves
  // registers.
  MFunction recomputed = f;
  const uint32_t constants = rematerialize_constants(recomputed);
  Allocation kept = colour_and_spill(f, o, file, kernel);
  try {
    Allocation a = colour_and_spill(recomputed, o, file, kernel);
    if (a.registers < kept.registers) {
      a.rematerialized += constants;
      f = std::move(recomputed);
      return a;
    }
  } catch (const PtxError&) {
  }
  return kept;
}

}  // namespace tsm::ptx
