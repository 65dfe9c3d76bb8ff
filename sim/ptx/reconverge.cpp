// Reconvergence: PBK/BRK for loops, SSY/SYNC for other divergent branches (docs/translator.md §4).
#include "ptx/reconverge.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "ptx/builder.hpp"

namespace tsm::ptx {

std::vector<int> successors(const MFunction& f, int b) {
  const MBlock& blk = f.blocks[static_cast<size_t>(b)];
  std::vector<int> s = blk.side_exits;
  switch (blk.exit) {
    case MBlock::Exit::Fall:
      if (blk.fall >= 0) s.push_back(blk.fall);
      break;
    case MBlock::Exit::Jump: s.push_back(blk.taken); break;
    case MBlock::Exit::Branch:
      s.push_back(blk.taken);
      s.push_back(blk.fall);
      break;
    case MBlock::Exit::Break:
    case MBlock::Exit::Sync:
      if (blk.taken >= 0) s.push_back(blk.taken);
      break;
    case MBlock::Exit::Stop: break;
  }
  return s;
}

namespace {

using Set = std::vector<bool>;

// Dominators (forward) or post-dominators (reverse, with a virtual exit at index n) by iteration.
std::vector<Set> dominators(const MFunction& f, bool post) {
  const size_t n = f.blocks.size();
  const size_t total = post ? n + 1 : n;
  std::vector<std::vector<int>> preds(total), succs(total);
  for (size_t b = 0; b < n; ++b) {
    auto s = successors(f, static_cast<int>(b));
    if (post && s.empty()) s.push_back(static_cast<int>(n));
    for (int t : s) {
      succs[b].push_back(t);
      preds[static_cast<size_t>(t)].push_back(static_cast<int>(b));
    }
  }
  const size_t root = post ? n : 0;
  std::vector<Set> dom(total, Set(total, true));
  dom[root] = Set(total, false);
  dom[root][root] = true;
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t b = 0; b < total; ++b) {
      if (b == root) continue;
      Set nd(total, true);
      const auto& in = post ? succs[b] : preds[b];
      if (in.empty()) nd.assign(total, false);
      for (int p : in)
        for (size_t k = 0; k < total; ++k) nd[k] = nd[k] && dom[static_cast<size_t>(p)][k];
      nd[b] = true;
      if (nd != dom[b]) {
        dom[b] = nd;
        changed = true;
      }
    }
  }
  return dom;
}

int immediate(const std::vector<Set>& dom, int b) {
  // The strict dominator that every other strict dominator dominates.
  const size_t total = dom.size();
  for (size_t c = 0; c < total; ++c) {
    if (static_cast<int>(c) == b || !dom[static_cast<size_t>(b)][c]) continue;
    bool immediate = true;
    for (size_t o = 0; o < total && immediate; ++o)
      if (o != c && static_cast<int>(o) != b && dom[static_cast<size_t>(b)][o] && !dom[c][o]) immediate = false;
    if (immediate) return static_cast<int>(c);
  }
  return -1;
}

MInst ctrl(const char* text, int target, Loc loc) {
  MInst m = build_inst(text, {}, {}, loc);
  m.target = target;
  return m;
}

[[noreturn]] void fail(const std::string& file, Loc loc, const std::string& what) { throw PtxError(file, loc, what); }

int append_block(MFunction& f, MBlock blk) {
  f.blocks.push_back(std::move(blk));
  return static_cast<int>(f.blocks.size()) - 1;
}

// Blocks reachable from `from` without passing `stop` (`from` included).
Set reach(const MFunction& f, int from, int stop, const Set* within = nullptr) {
  Set seen(f.blocks.size(), false);
  std::vector<int> work{from};
  while (!work.empty()) {
    const int x = work.back();
    work.pop_back();
    if (x == stop || seen[static_cast<size_t>(x)]) continue;
    if (within && !(*within)[static_cast<size_t>(x)]) continue;
    seen[static_cast<size_t>(x)] = true;
    for (int s : successors(f, x)) work.push_back(s);
  }
  return seen;
}

void loops(MFunction& f, const std::string& file) {
  for (;;) {  // one loop per round, outermost first: the CFG changes under us
    const auto dom = dominators(f, false);
    const size_t n = f.blocks.size();
    int header = -1, latch = -1;
    for (size_t u = 0; u < n && header < 0; ++u)
      for (int h : successors(f, static_cast<int>(u)))
        if (dom[u][static_cast<size_t>(h)] && !f.blocks[static_cast<size_t>(h)].loop_done) {
          header = h;
          latch = static_cast<int>(u);
          break;
        }
    if (header < 0) return;
    MBlock& hb = f.blocks[static_cast<size_t>(header)];
    hb.loop_done = true;
    // Natural loop: the header plus every block reaching a back edge's source without passing it.
    Set body(n, false);
    body[static_cast<size_t>(header)] = true;
    for (size_t u = 0; u < n; ++u) {
      bool back = false;
      for (int s : successors(f, static_cast<int>(u))) back |= s == header && dom[u][static_cast<size_t>(header)];
      if (!back) continue;
      std::vector<int> work{static_cast<int>(u)};
      while (!work.empty()) {
        const int x = work.back();
        work.pop_back();
        if (body[static_cast<size_t>(x)]) continue;
        body[static_cast<size_t>(x)] = true;
        for (size_t p = 0; p < n; ++p)
          for (int s : successors(f, static_cast<int>(p)))
            if (s == x) work.push_back(static_cast<int>(p));
      }
    }
    (void)latch;
    std::set<int> exits;
    for (size_t b = 0; b < n; ++b)
      if (body[b])
        for (int s : successors(f, static_cast<int>(b)))
          if (!body[static_cast<size_t>(s)]) exits.insert(s);
    if (exits.empty()) continue;  // left only by exiting threads: nothing to wait for
    if (exits.size() > 1)
      fail(file, hb.branch_loc.line ? hb.branch_loc : Loc{},
           "a loop with several exit targets is not supported yet (every exit of a loop must reach one block)");
    const int x = *exits.begin();
    for (size_t b = 0; b < n; ++b) {  // the edges that leave the loop become BRK
      if (!body[b]) continue;
      MBlock& blk = f.blocks[b];
      const Loc loc = blk.branch_loc;
      const bool t_out = (blk.exit == MBlock::Exit::Jump || blk.exit == MBlock::Exit::Branch) && blk.taken == x;
      const bool f_out = (blk.exit == MBlock::Exit::Fall || blk.exit == MBlock::Exit::Branch) && blk.fall == x;
      if (blk.exit == MBlock::Exit::Sync && blk.taken == x)
        fail(file, loc, "a loop exit through a reconvergence point is not supported yet");
      if ((blk.exit != MBlock::Exit::Branch && (t_out || f_out)) || (blk.exit == MBlock::Exit::Branch && t_out && f_out)) {
        blk.insts.push_back(ctrl("BRK", -1, loc));
        blk.exit = MBlock::Exit::Break;
        blk.taken = x;
      } else if (t_out || f_out) {  // lanes whose branch leaves the loop break; the others go on
        const bool brk_when_true = t_out != blk.cond_neg;
        blk.insts.push_back(build_inst(brk_when_true ? "@%p0 BRK" : "@!%p0 BRK", std::vector<uint32_t>{}, std::vector<uint32_t>{blk.cond}, loc));
        blk.side_exits.push_back(x);
        if (t_out) {
          blk.exit = MBlock::Exit::Fall;
        } else {
          blk.exit = MBlock::Exit::Jump;
        }
      }
    }
    // The preheader: PBK, then into the header. Every entry from outside the loop comes through it.
    MBlock pre;
    pre.label = fmt::format("$pbk{}", header);
    pre.exit = MBlock::Exit::Jump;
    pre.taken = header;
    pre.loop_done = true;
    pre.insts.push_back(ctrl("PBK +0", x, hb.branch_loc));
    const int pre_at = append_block(f, std::move(pre));
    for (size_t b = 0; b < n; ++b) {
      if (body[b]) continue;
      MBlock& blk = f.blocks[b];
      if (blk.taken == header && blk.exit != MBlock::Exit::Fall) blk.taken = pre_at;
      if (blk.fall == header && (blk.exit == MBlock::Exit::Fall || blk.exit == MBlock::Exit::Branch)) blk.fall = pre_at;
    }
  }
}

void regions(MFunction& f, const std::string& file) {
  struct Region {
    int branch;
    int join;
    size_t size;
  };
  const auto pdom = dominators(f, true);
  const size_t n = f.blocks.size();
  std::vector<Region> rs;
  for (size_t b = 0; b < n; ++b) {
    const MBlock& blk = f.blocks[b];
    if (blk.exit != MBlock::Exit::Branch || blk.uniform) continue;
    const int p = immediate(pdom, static_cast<int>(b));
    if (p < 0 || p == static_cast<int>(n)) continue;  // the paths only meet when the threads exit
    const Set nodes = reach(f, static_cast<int>(b), p);
    rs.push_back({static_cast<int>(b), p, static_cast<size_t>(std::count(nodes.begin(), nodes.end(), true))});
  }
  std::stable_sort(rs.begin(), rs.end(), [](const Region& a, const Region& b) { return a.size < b.size; });
  for (const Region& r : rs) {  // inner regions first
    const int p = r.join;
    const Set nodes = reach(f, r.branch, p);
    f.blocks.reserve(f.blocks.size() + 1);  // get_stub() appends; references below stay valid
    int stub = -1;
    auto get_stub = [&] {
      if (stub < 0) {
        MBlock s;
        s.label = fmt::format("$sync{}", r.branch);
        s.insts.push_back(ctrl("SYNC", -1, f.blocks[static_cast<size_t>(r.branch)].branch_loc));
        s.exit = MBlock::Exit::Sync;
        s.taken = p;
        stub = append_block(f, std::move(s));
      }
      return stub;
    };
    for (size_t b = 0; b < nodes.size(); ++b) {
      if (!nodes[b]) continue;
      MBlock& blk = f.blocks[b];
      const Loc loc = blk.branch_loc;
      if ((blk.exit == MBlock::Exit::Fall && blk.fall == p) || (blk.exit == MBlock::Exit::Jump && blk.taken == p)) {
        blk.insts.push_back(ctrl("SYNC", -1, loc));  // this path ends here
        blk.exit = MBlock::Exit::Sync;
        blk.taken = p;
        blk.fall = -1;
        continue;
      }
      // Every other way into the join from inside the region goes through the stub: conditional
      // edges, inner regions' path ends, loop exits (BRK and the PBK that names the exit), and
      // inner SSY targets.
      if (blk.exit == MBlock::Exit::Branch) {
        if (blk.taken == p) blk.taken = get_stub();
        if (blk.fall == p) blk.fall = get_stub();
      } else if ((blk.exit == MBlock::Exit::Sync || blk.exit == MBlock::Exit::Break) && blk.taken == p && static_cast<int>(b) != stub) {
        blk.taken = get_stub();
      }
      for (int& x : blk.side_exits)
        if (x == p) x = get_stub();
      for (auto& m : blk.insts) {
        const std::string_view mn = m.info ? m.info->mnemonic : "";
        if (m.target == p && (mn == "SSY" || mn == "PBK")) m.target = get_stub();
      }
    }
    MBlock& bb = f.blocks[static_cast<size_t>(r.branch)];
    bb.insts.push_back(ctrl("SSY +0", p, bb.branch_loc));
  }
  (void)file;
}

}  // namespace

void prune_unreachable(MFunction& f) {
  const size_t n = f.blocks.size();
  Set live(n, false);
  std::vector<int> work{0};
  while (!work.empty()) {
    const int b = work.back();
    work.pop_back();
    if (b < 0 || live[static_cast<size_t>(b)]) continue;
    live[static_cast<size_t>(b)] = true;
    for (int s : successors(f, b)) work.push_back(s);
    for (const auto& m : f.blocks[static_cast<size_t>(b)].insts)
      if (m.target >= 0) work.push_back(m.target);
  }
  std::vector<int> index(n, -1);
  std::vector<MBlock> kept;
  for (size_t b = 0; b < n; ++b) {
    if (!live[b]) continue;
    index[b] = static_cast<int>(kept.size());
    kept.push_back(std::move(f.blocks[b]));
  }
  auto remap = [&](int& i) {
    if (i >= 0) i = index[static_cast<size_t>(i)];
  };
  for (auto& b : kept) {
    remap(b.taken);
    remap(b.fall);
    for (auto& m : b.insts) remap(m.target);
  }
  f.blocks = std::move(kept);
}

void reconverge(MFunction& f, const std::string& file) {
  prune_unreachable(f);
  loops(f, file);
  regions(f, file);
}

}  // namespace tsm::ptx
