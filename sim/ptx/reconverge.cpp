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

// The iterative dominance equations over `total` nodes: dom(root) = {root}; dom(b) = {b} and the
// intersection of dom(e) over b's edges `in[b]` (predecessors for dominators, successors for
// post-dominators); a node with no edges has the empty set, a `skip`ped one keeps the full set.
// Sets are 64-bit words while solving; `backwards` visits the nodes from the last (faster for
// post-dominators).
std::vector<Set> solve_dominance(size_t total, size_t root, const std::vector<std::vector<int>>& in, const std::vector<bool>& skip,
                                 bool backwards) {
  const size_t words = (total + 63) / 64;
  std::vector<std::vector<uint64_t>> dom(total, std::vector<uint64_t>(words, ~uint64_t{0}));
  dom[root].assign(words, 0);
  dom[root][root / 64] |= uint64_t{1} << (root % 64);
  std::vector<uint64_t> nd(words);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < total; ++i) {
      const size_t b = backwards ? total - 1 - i : i;
      if (b == root || skip[b]) continue;
      nd.assign(words, in[b].empty() ? 0 : ~uint64_t{0});
      for (int e : in[b])
        for (size_t w = 0; w < words; ++w) nd[w] &= dom[static_cast<size_t>(e)][w];
      nd[b / 64] |= uint64_t{1} << (b % 64);
      if (nd != dom[b]) {
        dom[b] = nd;
        changed = true;
      }
    }
  }
  std::vector<Set> out(total, Set(total, false));
  for (size_t b = 0; b < total; ++b)
    for (size_t k = 0; k < total; ++k) out[b][k] = (dom[b][k / 64] >> (k % 64)) & 1u;
  return out;
}

// Dominators (forward) or post-dominators (reverse, with a virtual exit at index n).
// `dead_ends` (post only): blocks whose paths do not count, as if they never ended; their sets stay
// full, and so does that of every block whose paths all run into them.
std::vector<Set> dominators(const MFunction& f, bool post, const Set* dead_ends = nullptr) {
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
  std::vector<bool> skip(total, false);
  if (dead_ends)
    for (size_t b = 0; b < n; ++b) skip[b] = (*dead_ends)[b];
  return solve_dominance(total, post ? n : 0, post ? succs : preds, skip, post);
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

// Give a loop with several exit targets a single one: each exit edge records which target it
// meant in a register and goes to a landing block after the loop, which dispatches on it (so the
// loop's PBK/BRK have one exit, and the dispatch is an ordinary divergent branch after it).
void single_exit(MFunction& f, const Set& body, std::set<int>& exits, int header, const std::string& file) {
  const std::vector<int> targets(exits.begin(), exits.end());
  const size_t n = body.size();
  // Inner loops are done already and leave into this loop's body; nothing may leave it otherwise.
  for (size_t b = 0; b < n; ++b) {
    if (!body[b]) continue;
    const MBlock& blk = f.blocks[b];
    bool escapes = (blk.exit == MBlock::Exit::Break || blk.exit == MBlock::Exit::Sync) && !body[static_cast<size_t>(blk.taken)];
    for (int x : blk.side_exits) escapes |= !body[static_cast<size_t>(x)];
    if (escapes) fail(file, blk.branch_loc, "internal error: a loop is left through an already placed BRK or SYNC");
  }
  const uint32_t sel = f.new_vreg(1);
  const Loc loc = f.blocks[static_cast<size_t>(header)].branch_loc;
  auto index = [&](int x) { return static_cast<uint32_t>(std::find(targets.begin(), targets.end(), x) - targets.begin()); };
  auto set_sel = [&](MBlock& blk, int x, const char* guard) {
    const std::vector<uint32_t> regs{sel};
    const std::vector<uint32_t> preds = *guard ? std::vector<uint32_t>{blk.cond} : std::vector<uint32_t>{};
    blk.insts.push_back(build_inst(fmt::format("{}MOV32I %0, {:#x}", guard, index(x)), regs, preds, blk.branch_loc));
  };
  // The dispatch: one block per target but the last, testing `sel`; the last target is the fallback.
  std::vector<int> dispatch;
  for (size_t i = 0; i + 1 < targets.size(); ++i) {
    MBlock d;
    d.label = fmt::format("$exit{}_{}", header, i);
    const uint32_t p = f.new_vreg(1, true);
    d.insts.push_back(build_inst(fmt::format("ISETP.EQ.U32.AND %p0, PT, %0, {:#x}, PT", i), std::vector<uint32_t>{sel},
                                 std::vector<uint32_t>{p}, loc));
    d.exit = MBlock::Exit::Branch;
    d.cond = p;
    d.taken = targets[i];
    d.branch_loc = loc;
    dispatch.push_back(append_block(f, std::move(d)));
  }
  for (size_t i = 0; i < dispatch.size(); ++i)
    f.blocks[static_cast<size_t>(dispatch[i])].fall =
        i + 1 < dispatch.size() ? dispatch[i + 1] : targets.back();
  const int land = dispatch.front();
  for (size_t b = 0; b < n; ++b) {
    if (!body[b]) continue;
    MBlock& blk = f.blocks[b];
    const bool t_out = (blk.exit == MBlock::Exit::Jump || blk.exit == MBlock::Exit::Branch) && !body[static_cast<size_t>(blk.taken)];
    const bool f_out = (blk.exit == MBlock::Exit::Fall || blk.exit == MBlock::Exit::Branch) && blk.fall >= 0 &&
                       !body[static_cast<size_t>(blk.fall)];
    const char* when_taken = blk.cond_neg ? "@!%p0 " : "@%p0 ";
    const char* when_not = blk.cond_neg ? "@%p0 " : "@!%p0 ";
    if (blk.exit == MBlock::Exit::Branch) {
      if (t_out) set_sel(blk, blk.taken, when_taken);
      if (f_out) set_sel(blk, blk.fall, when_not);
      if (t_out && f_out) {
        blk.exit = MBlock::Exit::Jump;
        blk.taken = land;
        blk.fall = -1;
      } else if (t_out) {
        blk.taken = land;
      } else if (f_out) {
        blk.fall = land;
      }
    } else if (t_out) {
      set_sel(blk, blk.taken, "");
      blk.taken = land;
    } else if (f_out) {
      set_sel(blk, blk.fall, "");
      blk.fall = land;
    }
  }
  exits = {land};
}

// The natural loop of `header`: the header plus every block reaching a back edge's source
// without passing the header.
Set natural_loop(const MFunction& f, const std::vector<Set>& dom, int header) {
  const size_t n = f.blocks.size();
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
  return body;
}

void loops(MFunction& f, const std::string& file) {
  // One loop per round, innermost first (the smallest natural loop not yet done): an inner loop
  // that is left towards several places gets its landing block inside the enclosing loop first,
  // which then leaves the enclosing loop by an ordinary exit edge. The CFG changes under us.
  for (;;) {
    const auto dom = dominators(f, false);
    const size_t n = f.blocks.size();
    int header = -1, latch = -1;
    Set body;
    size_t best = SIZE_MAX;
    for (size_t u = 0; u < n; ++u)
      for (int h : successors(f, static_cast<int>(u)))
        if (dom[u][static_cast<size_t>(h)] && !f.blocks[static_cast<size_t>(h)].loop_done) {
          Set candidate = natural_loop(f, dom, h);
          const size_t size = static_cast<size_t>(std::count(candidate.begin(), candidate.end(), true));
          if (size < best) {
            best = size;
            header = h;
            latch = static_cast<int>(u);
            body = std::move(candidate);
          }
        }
    if (header < 0) return;
    MBlock& hb = f.blocks[static_cast<size_t>(header)];
    hb.loop_done = true;
    (void)latch;
    std::set<int> exits;
    const Loc header_loc = hb.branch_loc;
    for (size_t b = 0; b < n; ++b)
      if (body[b])
        for (int s : successors(f, static_cast<int>(b)))
          if (!body[static_cast<size_t>(s)]) exits.insert(s);
    if (exits.empty()) continue;  // left only by exiting threads: nothing to wait for
    if (exits.size() > 1) single_exit(f, body, exits, header, file);
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
    pre.insts.push_back(ctrl("PBK +0", x, header_loc));
    const int pre_at = append_block(f, std::move(pre));
    for (size_t b = 0; b < n; ++b) {
      if (body[b]) continue;
      MBlock& blk = f.blocks[b];
      if (blk.taken == header && blk.exit != MBlock::Exit::Fall) blk.taken = pre_at;
      if (blk.fall == header && (blk.exit == MBlock::Exit::Fall || blk.exit == MBlock::Exit::Branch)) blk.fall = pre_at;
    }
  }
}

// The loop bodies of the CFG as it is now, one per header.
std::vector<std::pair<int, Set>> loops_now(const MFunction& f) {
  const auto dom = dominators(f, false);
  std::set<int> headers;
  for (size_t u = 0; u < f.blocks.size(); ++u)
    for (int h : successors(f, static_cast<int>(u)))
      if (dom[u][static_cast<size_t>(h)]) headers.insert(h);
  std::vector<std::pair<int, Set>> loops;
  for (int h : headers) loops.emplace_back(h, natural_loop(f, dom, h));
  return loops;
}

std::vector<Set> loop_bodies(const MFunction& f) {
  std::vector<Set> bodies;
  for (auto& [header, body] : loops_now(f)) bodies.push_back(std::move(body));
  return bodies;
}

// Where the paths from branch `b` inside a loop meet before they go round again, if anywhere:
// post-dominance over the loop's blocks alone, where an edge back to the header ends a path (a
// virtual sink) and a path that leaves the loop does not count (its lanes wait at the loop's
// PBK, cleared by BRK from every entry above it). -1 when they meet only at the next iteration.
int join_in_loop(const MFunction& f, int header, const Set& body, int b) {
  const size_t n = f.blocks.size();
  const size_t sink = n;
  std::vector<std::vector<int>> succs(n + 1);
  for (size_t x = 0; x < n; ++x) {
    if (!body[x]) continue;
    for (int s : successors(f, static_cast<int>(x))) {
      if (s == header) succs[x].push_back(static_cast<int>(sink));
      else if (body[static_cast<size_t>(s)]) succs[x].push_back(s);
    }
  }
  std::vector<bool> skip(n + 1, false);  // outside the loop, or only leaving it: a dead end
  for (size_t x = 0; x < n; ++x) skip[x] = !body[x] || succs[x].empty();
  const std::vector<Set> dom = solve_dominance(n + 1, sink, succs, skip, true);
  const Set& mine = dom[static_cast<size_t>(b)];
  if (std::all_of(mine.begin(), mine.end(), [](bool y) { return y; })) return -1;
  const int q = immediate(dom, b);
  return q < 0 || q == static_cast<int>(sink) ? -1 : q;
}

// A divergent branch's reconvergence region: the blocks on its paths to its join (the immediate
// post-dominator). `shared`: nested in a larger region with the same join, so it gets no SSY of
// its own (its paths end at the outer region's SYNCs).
struct Region {
  int branch;
  int join;
  Set nodes;  // reach(branch, join)
  bool shared = false;
};

// Where threads leave early. `ends`: blocks that run without a conditional branch into EXIT and
// hold nothing that needs the warp together (a barrier, a vote, a shuffle); `exit_side`: an end
// that is one side of a divergent branch whose other side goes on (an early `return`).
struct Exits {
  Set ends, exit_side;
};

Exits early_exits(const MFunction& f, const Set& joins) {
  const size_t n = f.blocks.size();
  auto warp_wide = [](const MInst& m) {
    const std::string_view mn = m.info ? m.info->mnemonic : "";
    return mn == "BAR" || mn == "BRED" || mn == "VOTE" || mn == "SHFL";
  };
  Exits x{Set(n, false), Set(n, false)};
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < n; ++b) {
      if (x.ends[b]) continue;
      const MBlock& blk = f.blocks[b];
      bool e = blk.exit == MBlock::Exit::Stop;
      if ((blk.exit == MBlock::Exit::Fall || blk.exit == MBlock::Exit::Jump) && blk.side_exits.empty()) {
        const int s = blk.exit == MBlock::Exit::Fall ? blk.fall : blk.taken;
        e = s >= 0 && x.ends[static_cast<size_t>(s)];
      }
      if (e && !joins[b] && std::none_of(blk.insts.begin(), blk.insts.end(), warp_wide)) {
        x.ends[b] = true;
        changed = true;
      }
    }
  }
  for (size_t b = 0; b < n; ++b) {
    const MBlock& blk = f.blocks[b];
    if (blk.exit != MBlock::Exit::Branch || blk.uniform || blk.taken == blk.fall) continue;
    const bool t = x.ends[static_cast<size_t>(blk.taken)], e = x.ends[static_cast<size_t>(blk.fall)];
    if (t != e) x.exit_side[static_cast<size_t>(t ? blk.taken : blk.fall)] = true;
  }
  return x;
}

std::vector<Region> divergent_regions(const MFunction& f, Exits* exits = nullptr);

// A divergent branch with one side that exits early needs no SSY when that side is the one taken:
// its lanes run first and EXIT, which pops the entry the branch pushed, and the others go on with
// the stack as it was. Makes the exiting side the taken one.
void exits_first(MFunction& f) {
  Exits x;
  divergent_regions(f, &x);
  for (auto& blk : f.blocks)
    if (blk.exit == MBlock::Exit::Branch && !blk.uniform && x.ends[static_cast<size_t>(blk.fall)] && !x.ends[static_cast<size_t>(blk.taken)]) {
      std::swap(blk.taken, blk.fall);
      blk.cond_neg = !blk.cond_neg;
    }
}

// The divergent branches that get a reconvergence region, smallest region first: a branch that is
// not bra.uni, whose paths meet before the threads exit, and inside every loop that contains it (a
// branch inside a loop whose paths only meet outside it needs no SSY: its lanes that leave wait at
// the loop's PBK, the others go round again, and an SSY there would be pushed on every iteration).
//
// The join is the immediate post-dominator, unless that is where the threads exit (the virtual
// exit, a block that is only EXIT) or an end (straight-line code into EXIT). An early `return`
// does that to every branch around it: the kernel's final `ret` becomes their join, every region
// nests in the next, and a few unrolled iterations of a loop of switches overflow the stack.
// Lanes that EXIT leave every stack entry, so they need not reach a join: the join is then where
// the paths meet that do not take an early exit (post-dominance with the exit sides as dead
// ends), and the region holds only the blocks on paths to it. Where there is no such place, a
// join in an end stays the join (the paths meet there before the kernel's last stores), and a
// branch whose paths meet only at EXIT needs no SSY. A branch with one exiting side needs none
// either (exits_first).
std::vector<Region> divergent_regions(const MFunction& f, Exits* exits) {
  const size_t n = f.blocks.size();
  Set joins(n, false);
  for (;;) {
    const Exits x = early_exits(f, joins);
    auto exit_only = [&](int b) {
      return b == static_cast<int>(n) || (f.blocks[static_cast<size_t>(b)].exit == MBlock::Exit::Stop && f.blocks[static_cast<size_t>(b)].insts.size() == 1);
    };
    const auto pdom = dominators(f, true);
    const auto pdom_live = dominators(f, true, &x.exit_side);
    const auto loops = loops_now(f);
    std::vector<Region> rs;
    for (size_t b = 0; b < n; ++b) {
      const MBlock& blk = f.blocks[b];
      if (blk.exit != MBlock::Exit::Branch || blk.uniform) continue;
      if (x.ends[static_cast<size_t>(blk.taken)] != x.ends[static_cast<size_t>(blk.fall)]) continue;  // one side exits
      int p = immediate(pdom, static_cast<int>(b));
      if (p < 0) continue;
      if (exit_only(p) || x.ends[static_cast<size_t>(p)]) {
        const Set& live = pdom_live[b];
        const bool none = std::all_of(live.begin(), live.end(), [](bool y) { return y; });  // every path exits early
        const int q = none ? -1 : immediate(pdom_live, static_cast<int>(b));
        if (q >= 0 && !exit_only(q) && !x.exit_side[static_cast<size_t>(q)]) p = q;
        else if (exit_only(p)) continue;
      }
      // A join outside a loop that holds the branch: the lanes that leave the loop wait at its PBK
      // (BRK clears them from every entry above it), so the others reconverge where their paths
      // meet inside the innermost such loop, before going round again (an if/else whose arms both
      // test a `break`). Where they meet only at the next iteration, no SSY: one pushed there would
      // be pushed again on every iteration.
      const Set* within = nullptr;
      const auto outside = [&](const std::pair<int, Set>& l) { return l.second[b] && !l.second[static_cast<size_t>(p)]; };
      if (std::any_of(loops.begin(), loops.end(), outside)) {
        const std::pair<int, Set>* inner = nullptr;
        auto size = [](const Set& x) { return std::count(x.begin(), x.end(), true); };
        for (const auto& l : loops)
          if (l.second[b] && (!inner || size(l.second) < size(inner->second))) inner = &l;
        p = join_in_loop(f, inner->first, inner->second, static_cast<int>(b));
        if (p < 0) continue;
        within = &inner->second;
      }
      // The blocks on paths from the branch to the join (not those of paths that exit instead).
      Set nodes = reach(f, static_cast<int>(b), p, within);
      Set to_join(n, false);
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t k = 0; k < n; ++k) {
          if (!nodes[k] || to_join[k]) continue;
          for (int s : successors(f, static_cast<int>(k)))
            if (s == p || to_join[static_cast<size_t>(s)]) {
              to_join[k] = true;
              changed = true;
              break;
            }
        }
      }
      to_join[b] = true;
      rs.push_back({static_cast<int>(b), p, to_join});
    }
    // A join in an end gets SYNCs on the paths into it, so lanes there no longer just exit: it and
    // the code leading straight into it are not ends. Settle again with fewer ends.
    bool settled = true;
    for (const Region& r : rs)
      if (x.ends[static_cast<size_t>(r.join)]) {
        joins[static_cast<size_t>(r.join)] = true;
        settled = false;
      }
    if (!settled) continue;
    if (exits) *exits = x;
    auto size = [](const Region& r) { return std::count(r.nodes.begin(), r.nodes.end(), true); };
    std::stable_sort(rs.begin(), rs.end(), [&](const Region& a, const Region& b) { return size(a) < size(b); });
    // A region nested in a larger one with the same join needs no SSY of its own: its paths end at
    // the outer region's SYNCs, each popping the entry its divergent branch pushed, and the last
    // pops the outer SSY. (An unrolled loop with an early exit per iteration would otherwise nest
    // one SSY per iteration and overflow the stack.) Lanes that leave a loop inside the region (BRK)
    // are cleared from every entry above the loop's, the shared ones included, and come back to
    // the region's paths at the loop's exit.
    for (size_t i = 0; i < rs.size(); ++i) {
      for (size_t j = i + 1; j < rs.size() && !rs[i].shared; ++j)
        if (rs[j].join == rs[i].join && rs[j].branch != rs[i].branch && rs[j].nodes[static_cast<size_t>(rs[i].branch)])
          rs[i].shared = true;
    }
    return rs;
  }
}

// Makes every reconvergence region single-entry. A region is the blocks on the paths from a
// divergent branch to its join; its paths end in SYNC, which pops the entry the branch's SSY (or
// an enclosing one) pushed. A block of the region that is also reached from outside it — clang
// lets a switch's `default` arm be both the end of one compare chain and the fall-through of
// another — would run that SYNC for lanes that never passed the branch, popping an entry that is
// not theirs (the lanes jump to the outer join and skip the code in between). Such a block, with
// everything of the region it leads to, is copied for the outside predecessors (node splitting),
// and the regions are found again, until none has a side entry. Back edges into a loop header are
// not side entries (the loop's own PBK/BRK govern those lanes).
void split_side_entries(MFunction& f, const std::string& file) {
  size_t budget = 0;
  for (const auto& b : f.blocks) budget += b.insts.size() + 1;
  budget = std::max<size_t>(4 * budget, 4096);  // copies allowed, in instructions
  size_t copied = 0;
  for (;;) {
    const size_t n = f.blocks.size();
    const auto dom = dominators(f, false);
    std::vector<std::vector<int>> preds(n);
    for (size_t b = 0; b < n; ++b)
      for (int s : successors(f, static_cast<int>(b))) preds[static_cast<size_t>(s)].push_back(static_cast<int>(b));
    // Smallest first: an inner region's side entry is mended before the outer one looks at it. A
    // shared region may be entered from anywhere in the region that holds its SSY (every path
    // there ends at one SYNC whichever of its branches it passed); entries from outside that
    // region are side entries of the outer region too.
    bool split = false;
    const std::vector<Region> rs = divergent_regions(f);
    // Lanes from q that enter a region with join p end at one of its SYNCs into p. That is right
    // when q lies in a region with the same join (one SYNC per path of that region, whichever
    // entry it pops: every entry pushed there leads to a path or a SYNC stub ending at p, and the
    // outermost SSY is popped last); from anywhere else the lanes pop an entry that is not theirs.
    auto same_join = [&](int q, int join) {
      return std::any_of(rs.begin(), rs.end(), [&](const Region& o) { return o.join == join && o.nodes[static_cast<size_t>(q)]; });
    };
    for (const Region& r : rs) {
      if (r.shared) continue;
      const int branch = r.branch, join = r.join;
      const Set& nodes = r.nodes;
      for (size_t x = 0; x < n && !split; ++x) {
        if (!nodes[x] || static_cast<int>(x) == branch) continue;
        std::vector<int> outside;
        for (int q : preds[x])
          if (!nodes[static_cast<size_t>(q)] && !dom[static_cast<size_t>(q)][x] && !same_join(q, join)) outside.push_back(q);
        if (outside.empty()) continue;
        // Copy x and the blocks of the region it reaches; the outside predecessors go to the copy.
        const Set part = reach(f, static_cast<int>(x), join, &nodes);
        std::vector<int> copy(n, -1);
        for (size_t b = 0; b < n; ++b) {
          if (!part[b]) continue;
          MBlock c = f.blocks[b];
          c.label += "$split";
          copied += c.insts.size() + 1;
          copy[b] = append_block(f, std::move(c));
        }
        if (copied > budget)
          fail(file, f.blocks[static_cast<size_t>(branch)].branch_loc,
               "the control flow needs too many blocks copied to give every divergent branch a single-entry reconvergence region "
               "(irreducible or heavily shared code)");
        auto map = [&](int& t) {
          if (t >= 0 && static_cast<size_t>(t) < n && copy[static_cast<size_t>(t)] >= 0) t = copy[static_cast<size_t>(t)];
        };
        for (size_t b = n; b < f.blocks.size(); ++b) {
          MBlock& c = f.blocks[b];
          map(c.taken);
          map(c.fall);
          for (int& s : c.side_exits) map(s);
          for (auto& m : c.insts) map(m.target);
        }
        for (int q : outside) {
          MBlock& qb = f.blocks[static_cast<size_t>(q)];
          const int to = copy[x];
          if (qb.taken == static_cast<int>(x) && qb.exit != MBlock::Exit::Fall) qb.taken = to;
          if (qb.fall == static_cast<int>(x) && (qb.exit == MBlock::Exit::Fall || qb.exit == MBlock::Exit::Branch)) qb.fall = to;
          for (int& s : qb.side_exits)
            if (s == static_cast<int>(x)) s = to;
          for (auto& m : qb.insts)
            if (m.target == static_cast<int>(x)) m.target = to;
        }
        // A loop outside the region that is left into x: its lanes continue where its PBK says.
        for (size_t b = 0; b < n; ++b)
          if (!nodes[b])
            for (auto& m : f.blocks[b].insts)
              if (m.target == static_cast<int>(x) && m.info && std::string_view(m.info->mnemonic) == "PBK") m.target = copy[x];
        split = true;
      }
      if (split) break;
    }
    if (!split) return;
  }
}

void regions(MFunction& f, const std::string& file) {
  const std::vector<Region> rs = divergent_regions(f);
  for (size_t ri = 0; ri < rs.size(); ++ri) {  // inner regions first
    const Region& r = rs[ri];
    if (r.shared) continue;
    const int p = r.join;
    // The region's blocks again: inner regions' SYNC stubs were added since (and only paths the
    // region holds: not those that leave a loop, or exit, on the way).
    Set inside = r.nodes;
    inside.resize(f.blocks.size(), true);
    const Set nodes = reach(f, r.branch, p, &inside);
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

std::vector<int> loop_depths(const MFunction& f) {
  std::vector<int> depth(f.blocks.size(), 0);
  for (const Set& body : loop_bodies(f))
    for (size_t b = 0; b < body.size(); ++b) depth[b] += body[b] ? 1 : 0;
  return depth;
}

void reconverge(MFunction& f, const std::string& file) {
  prune_unreachable(f);
  loops(f, file);
  exits_first(f);
  split_side_entries(f, file);
  regions(f, file);
}

}  // namespace tsm::ptx
