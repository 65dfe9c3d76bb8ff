// The random PTX kernel generator and its reference evaluator (random_ptx.hpp states the rules that
// keep every kernel deterministic).
//
// Generation builds the AST and prints the PTX in one pass: each statement appends its lines to the
// text and a node to the tree. A node of straight-line code carries a function that applies the
// statement to one thread's state (registers, predicates, loop counters, memory); a block-wide node
// (barrier exchange, vote, shuffle, shared-counter write-back) one that applies it to every thread
// of a block at once. The evaluator runs the tree per block with explicit active masks, the way the
// PTX memory model defines the program, not the way the translator lowers it.
//
// Registers of every kernel: %r0..%r{N-1} the value pool (random instructions read and write them,
// flushed to the thread's region at the end and before every early return); %p0..%p2 the predicate
// pool; %pt the predicate a construct computes right before its branch; %t0..%t3 and %rda
// temporaries written before they are read within one statement; %lc/%lt the counter and trip
// count of each loop level; %ltid, %lbid, %gtid, %ntot, %lane, %uni, %shme fixed in the prologue.
#include "randgen/random_ptx.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <cstring>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "arith/fp.hpp"
#include "randgen/rng.hpp"
#include "runtime/runtime.hpp"
#include "sfu/sfu.hpp"

namespace tsm::randgen {

namespace {

using isa::gen::Fcmp;
using isa::gen::Ftype;
using isa::gen::Itype;
using isa::gen::Mufu;
using isa::gen::Rnd;

// Layout constants.
constexpr uint32_t kRegion = kPtxOutStride;
constexpr uint32_t kScratch = 96;        // byte offset of the region's scratch words (24..31)
constexpr uint32_t kMaxPool = 20;        // pool registers: words 0..19, predicates word 20
constexpr uint32_t kPreds = 3;
constexpr uint32_t kInBytes = 4096;      // `in`
constexpr uint32_t kGlobalCtrs = 8;      // `cnt`: 8 global counters, then 4 shared counters per block
constexpr uint32_t kSharedCtrs = 4;
constexpr uint32_t kLocalWords = 8;
constexpr unsigned kLoopLevels = 3;
constexpr unsigned kMaxTrip = 3;         // trip counts are 0..3
constexpr unsigned kMaxMult = 16;        // bound on the product of enclosing trip counts
constexpr unsigned kMaxNest = 4;

const std::vector<uint32_t> kIntImm{0,          1,          2,          0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 31, 32, 33,
                                    0xFFFFFFE0, 16,         255,        0xFFFF,     0x10000,    0x7FFF,     7,  3,  0x55555555};
const std::vector<uint32_t> kFloatImm{0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3F000000, 0x40000000, 0x7F800000,
                                      0xFF800000, 0x7FC00000, 0x7F7FFFFF, 0x00800000, 0x00000001, 0x807FFFFF, 0x4B000000,
                                      0x4F000000, 0xCF000000, 0x3F7FFFFF, 0x40490FDB, 0x42C80000, 0x33800000};

struct Thread {
  std::array<uint32_t, kMaxPool> r{};
  std::array<bool, kPreds> p{};
  std::array<uint32_t, kLoopLevels> lc{}, lt{};
  std::array<uint32_t, kLocalWords> local{};
  uint32_t ltid = 0, lbid = 0, gtid = 0, lane = 0;
  bool cond = false;
  bool returned = false;
};

struct Memory {
  std::vector<uint8_t> in, out, cnt;
  uint32_t uni = 0, ntot = 0, nregs = 0;
};

struct BlockState {
  std::vector<Thread> th;
  std::vector<uint32_t> sh;
  std::array<uint32_t, kSharedCtrs> shc{};
};

uint32_t load32(const std::vector<uint8_t>& m, size_t at) {
  uint32_t v;
  std::memcpy(&v, m.data() + at, 4);
  return v;
}
void store32(std::vector<uint8_t>& m, size_t at, uint32_t v) { std::memcpy(m.data() + at, &v, 4); }

struct Node;
using Body = std::vector<Node>;
using ThreadFn = std::function<void(Thread&, Memory&, BlockState&)>;
using BlockFn = std::function<void(BlockState&, Memory&)>;

struct Node {
  enum class Kind { Thread, Block, If, Loop, Break, Return } kind = Kind::Thread;
  ThreadFn fn;  // Thread: the statement; If, Break, Return: sets Thread::cond; Loop: sets lt, lc
  BlockFn block_fn;
  Body body, else_body;  // If: then and else; Loop: the body
  unsigned level = 0;    // Loop
  bool do_while = false;
};

void flush(const Thread& t, Memory& m) {
  const size_t base = size_t{t.gtid} * kRegion;
  for (unsigned i = 0; i < m.nregs; ++i) store32(m.out, base + 4 * i, t.r[i]);
  uint32_t pw = 0;
  for (unsigned p = 0; p < kPreds; ++p) pw |= uint32_t{t.p[p]} << p;
  store32(m.out, base + 4 * kMaxPool, pw);
}

// The reference: one block's threads through `body`, `act` holding the threads active on entry
// and, on return, those that reach the statement after it.
void exec(const Body& body, std::vector<uint8_t>& act, BlockState& b, Memory& m) {
  const size_t n = b.th.size();
  for (const Node& node : body) {
    if (std::find(act.begin(), act.end(), uint8_t{1}) == act.end()) return;  // a path no thread takes
    switch (node.kind) {
      case Node::Kind::Thread:
        for (size_t i = 0; i < n; ++i)
          if (act[i]) node.fn(b.th[i], m, b);
        break;
      case Node::Kind::Block:
        if (std::find(act.begin(), act.end(), uint8_t{0}) != act.end())
          throw std::logic_error("random PTX generator: a block-wide statement where not every thread is active");
        node.block_fn(b, m);
        break;
      case Node::Kind::If: {
        std::vector<uint8_t> then_act(n), else_act(n);
        for (size_t i = 0; i < n; ++i)
          if (act[i]) {
            node.fn(b.th[i], m, b);
            then_act[i] = b.th[i].cond;
            else_act[i] = !b.th[i].cond;
          }
        exec(node.body, then_act, b, m);
        exec(node.else_body, else_act, b, m);
        for (size_t i = 0; i < n; ++i) act[i] = then_act[i] || else_act[i];
        break;
      }
      case Node::Kind::Loop: {
        const unsigned l = node.level;
        for (size_t i = 0; i < n; ++i)
          if (act[i]) {
            node.fn(b.th[i], m, b);
            b.th[i].lc[l] = 0;
          }
        std::vector<uint8_t> cur = act;
        const auto test = [&] {
          for (size_t i = 0; i < n; ++i) cur[i] = cur[i] && b.th[i].lc[l] < b.th[i].lt[l];
        };
        for (unsigned iter = 0;; ++iter) {
          if (iter > 1000) throw std::logic_error("random PTX generator: a loop that does not end");
          if (!node.do_while) test();
          if (std::find(cur.begin(), cur.end(), uint8_t{1}) == cur.end()) break;
          exec(node.body, cur, b, m);
          for (size_t i = 0; i < n; ++i)
            if (cur[i]) ++b.th[i].lc[l];
          if (node.do_while) test();
        }
        // Threads that left the loop normally or by break continue after it.
        for (size_t i = 0; i < n; ++i) act[i] = act[i] && !b.th[i].returned;
        break;
      }
      case Node::Kind::Break:
      case Node::Kind::Return:
        for (size_t i = 0; i < n; ++i)
          if (act[i]) {
            Thread& t = b.th[i];
            node.fn(t, m, b);
            if (!t.cond) continue;
            act[i] = 0;
            if (node.kind == Node::Kind::Return) {
              flush(t, m);
              t.returned = true;
            }
          }
        break;
    }
  }
}

// An operand: a pool register, an immediate, or a fixed register.
struct Src {
  enum class K { Reg, Imm, Ltid, Lane, Ctr } k = K::Reg;
  uint32_t v = 0;
  uint32_t get(const Thread& t) const {
    switch (k) {
      case K::Reg: return t.r[v];
      case K::Imm: return v;
      case K::Ltid: return t.ltid;
      case K::Lane: return t.lane;
      case K::Ctr: return t.lc[v];
    }
    return 0;
  }
  std::string text(bool fl) const {
    switch (k) {
      case K::Reg: return fmt::format("%r{}", v);
      case K::Imm: return fl ? fmt::format("0f{:08X}", v) : fmt::format("0x{:08X}", v);
      case K::Ltid: return "%ltid";
      case K::Lane: return "%lane";
      case K::Ctr: return fmt::format("%lc{}", v);
    }
    return "";
  }
};

// A branch condition: a predicate (pool or %pt), possibly negated, and whether it is uniform.
struct Cond {
  std::string pred;
  bool neg = false;
  bool uniform = false;
  std::function<bool(const Thread&, const Memory&)> eval;
  std::string guard(bool negate) const { return fmt::format("@{}{}", neg != negate ? "!" : "", pred); }
};

struct Ctx {
  bool uniform = true;    // every thread of the block is active here
  bool collective = true; // phase A: barriers, votes, shuffles and shared atomics allowed, no return
  bool ret = false;       // phase B: early return allowed
  unsigned loops = 0;     // loop levels in use
  unsigned mult = 1;
  unsigned nest = 0;
  std::string brk;        // exit label of the innermost loop that may be left by break ("" for none)
};

// The commutative operation a counter accepts, and the bits of an old value that every order gives.
enum class Ctr { Add, Add16, OrHi, AndHi, XorHi, MinU, MaxU, MinS, MaxS, Inc, Dec };
struct CounterKind {
  Ctr op;
  const char* ptx;  // op.type
  uint32_t observe; // bits of the old value that the kernel may use
};
const CounterKind kCounters[] = {{Ctr::Add, "add.u32", 0},        {Ctr::Add16, "add.u32", 15},     {Ctr::OrHi, "or.b32", 0xFFFF},
                                 {Ctr::AndHi, "and.b32", 0xFFFF}, {Ctr::XorHi, "xor.b32", 0xFFFF}, {Ctr::MinU, "min.u32", 0},
                                 {Ctr::MaxU, "max.u32", 0},       {Ctr::MinS, "min.s32", 0},       {Ctr::MaxS, "max.s32", 0},
                                 {Ctr::Inc, "inc.u32", 0},        {Ctr::Dec, "dec.u32", 0}};

uint32_t apply_counter(Ctr op, uint32_t old, uint32_t v) {
  switch (op) {
    case Ctr::Add:
    case Ctr::Add16: return old + v;
    case Ctr::OrHi: return old | v;
    case Ctr::AndHi: return old & v;
    case Ctr::XorHi: return old ^ v;
    case Ctr::MinU: return std::min(old, v);
    case Ctr::MaxU: return std::max(old, v);
    case Ctr::MinS: return static_cast<uint32_t>(std::min(static_cast<int32_t>(old), static_cast<int32_t>(v)));
    case Ctr::MaxS: return static_cast<uint32_t>(std::max(static_cast<int32_t>(old), static_cast<int32_t>(v)));
    case Ctr::Inc: return old >= v ? 0 : old + 1;
    case Ctr::Dec: return (old == 0 || old > v) ? v : old - 1;
  }
  return old;
}

int32_t s32(uint32_t x) { return static_cast<int32_t>(x); }
uint32_t sat_s32(int64_t x) {
  return static_cast<uint32_t>(static_cast<int32_t>(std::clamp<int64_t>(x, INT32_MIN, INT32_MAX)));
}
uint32_t shift_amount(uint32_t b) { return std::min<uint32_t>(b, 32); }

// Correctly rounded binary32 division and square root through binary64 (53 >= 2 * 24 + 2, so the
// double rounding is innocuous); NaN results are the canonical NaN the GPU returns.
uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
float f32_of(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t canonical(float f) { return f != f ? fp::kCanonicalNaN32 : f32_bits(f); }
uint32_t div_rn(uint32_t a, uint32_t b) {
  return canonical(static_cast<float>(static_cast<double>(f32_of(a)) / static_cast<double>(f32_of(b))));
}
uint32_t sqrt_rn(uint32_t a) {
  const double x = static_cast<double>(f32_of(a));
  if (x == 0) return a;  // sqrt(-0) = -0
  return canonical(static_cast<float>(x < 0 ? std::numeric_limits<double>::quiet_NaN() : std::sqrt(x)));
}

const char* const kRndName[] = {"rn", "rz", "rm", "rp"};
const char* const kFcmpName[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
const char* const kMufuName[] = {"rcp", "rsqrt", "sin", "cos", "ex2", "lg2"};

class PtxGen {
 public:
  PtxGen(uint64_t seed, const config::SmConfig& cfg) : cfg_(cfg), rng_(seed), lay_(seed ^ 0x9E1DA7A5EEDull) {
    k_.seed = seed;
    k_.config = cfg.name;
  }
  PtxKernel run();

 private:
  // ---- emission ----
  void emit(const std::string& line) { lines_.push_back("    " + line + ";"); }
  void label(const std::string& l) { lines_.push_back(l + ":"); }
  std::string new_label() { return fmt::format("$L{}", labels_++); }
  void thread_node(ThreadFn fn) {
    Node n;
    n.fn = std::move(fn);
    cur_->push_back(std::move(n));
    ++k_.stats.statements;
  }
  void block_node(BlockFn fn) {
    Node n;
    n.kind = Node::Kind::Block;
    n.block_fn = std::move(fn);
    cur_->push_back(std::move(n));
    ++k_.stats.statements;
  }

  // ---- operands ----
  unsigned reg() { return rng_.below(npool_); }
  unsigned pred() { return rng_.below(kPreds); }
  Src src(const Ctx& c, bool fl) {
    const unsigned r = rng_.below(100);
    if (r < 78) return {Src::K::Reg, reg()};
    if (r < 92) return {Src::K::Imm, fl ? rng_.pick(kFloatImm) : (rng_.pct(70) ? rng_.pick(kIntImm) : rng_.u32())};
    if (r < 95) return {Src::K::Ltid, 0};
    if (r < 97 || c.loops == 0) return {Src::K::Lane, 0};
    return {Src::K::Ctr, rng_.below(c.loops)};
  }
  Src reg_src() { return {Src::K::Reg, reg()}; }
  // A guard for a one-line statement: "" or "@%pK " / "@!%pK ", and its test.
  struct Guard {
    std::string text;
    std::function<bool(const Thread&)> test;
  };
  Guard guard() {
    if (!rng_.pct(25)) return {"", [](const Thread&) { return true; }};
    const unsigned p = pred();
    const bool neg = rng_.pct(50);
    return {fmt::format("@{}%p{} ", neg ? "!" : "", p), [p, neg](const Thread& t) { return t.p[p] != neg; }};
  }

  // ---- statements ----
  void body(const Ctx& c, int budget);
  int statement(const Ctx& c, int budget);
  void st_int(const Ctx& ctx);
  void st_fp(const Ctx& ctx);
  void st_setp(const Ctx& ctx);
  void st_special(const Ctx&);  // div/rem, mul.wide, the correctly rounded f32 sequences
  void st_load(const Ctx&);
  void st_own(const Ctx&);
  void st_local(const Ctx&);
  void st_atomic(bool shared);
  void st_global_atomic(const Ctx&) { st_atomic(false); }
  void st_exchange();
  void st_vote();
  void st_shfl();
  int st_if(const Ctx& c, int budget);
  int st_loop(const Ctx& c, int budget);
  void st_break(const Ctx& c);
  void st_return(const Ctx& c);
  Cond cond(const Ctx& c, bool want_uniform);
  void flush_lines(const std::string& guard);
  void prologue();
  void setup_launch();

  const config::SmConfig& cfg_;
  Rng rng_;  // the code
  Rng lay_;  // launch shape and buffer contents
  PtxKernel k_;
  std::vector<std::string> lines_;
  Body root_;
  Body* cur_ = &root_;
  unsigned labels_ = 0;
  unsigned npool_ = 12;
  uint32_t nthreads_ = 0, nblocks_ = 0;
  bool full_warps_ = false, shared_ctrs_ = false;
  std::array<unsigned, kGlobalCtrs> gctr_{};   // index into kCounters
  std::array<bool, kGlobalCtrs> gred_{};       // an INC/DEC counter takes red, not atom
  std::array<unsigned, kSharedCtrs> sctr_{};
  std::array<uint32_t, kSharedCtrs> sctr_init_{};
};

void PtxGen::setup_launch() {
  const uint32_t max_threads = std::min<uint32_t>(cfg_.max_threads_per_block, 256);
  full_warps_ = lay_.pct(75);
  if (full_warps_) {
    nthreads_ = 32 * (1 + lay_.below(max_threads / 32));
  } else {
    nthreads_ = 1 + lay_.below(max_threads);
  }
  // One or two dimensions: y a divisor of the count.
  uint32_t by = 1;
  if (lay_.pct(40)) {
    for (uint32_t d : {4u, 2u, 8u, 3u})
      if (nthreads_ % d == 0 && nthreads_ / d <= cfg_.max_block_x && lay_.pct(60)) {
        by = d;
        break;
      }
  }
  k_.block = Dim3{nthreads_ / by, by, 1};
  nblocks_ = 1 + lay_.below(4);
  uint32_t gy = (nblocks_ % 2 == 0 && lay_.pct(40)) ? 2 : 1;
  k_.grid = Dim3{nblocks_ / gy, gy, 1};
  k_.uni = lay_.below(3);
  npool_ = 8 + rng_.below(kMaxPool - 8 + 1);
  shared_ctrs_ = rng_.pct(60);
  for (auto& g : gctr_) g = lay_.below(std::size(kCounters));
  for (auto& r : gred_) r = lay_.pct(30);
  for (unsigned i = 0; i < kSharedCtrs; ++i) {
    sctr_[i] = lay_.below(std::size(kCounters));
    sctr_init_[i] = kCounters[sctr_[i]].op == Ctr::Dec ? 0x40000000u : lay_.u32() & 0xFFFF;
  }

  // Buffers.
  RandomBuffer in{"in", std::vector<uint8_t>(kInBytes)};
  for (uint32_t i = 0; i < kInBytes; i += 4) {
    const unsigned r = lay_.below(100);
    const uint32_t w = r < 30 ? lay_.pick(kFloatImm) : r < 50 ? lay_.pick(kIntImm) : lay_.u32();
    store32(in.init, i, w);
  }
  RandomBuffer out{"out", std::vector<uint8_t>(size_t{kRegion} * nthreads_ * nblocks_)};
  for (auto& b : out.init) b = static_cast<uint8_t>(lay_.u32());
  RandomBuffer cnt{"cnt", std::vector<uint8_t>(4 * (kGlobalCtrs + kSharedCtrs * nblocks_))};
  for (uint32_t i = 0; i < cnt.init.size(); i += 4) store32(cnt.init, i, lay_.u32() & 0xFFFF);
  for (unsigned i = 0; i < kGlobalCtrs; ++i)
    if (kCounters[gctr_[i]].op == Ctr::Dec) store32(cnt.init, 4 * i, 0x40000000);
  k_.buffers = {std::move(in), std::move(out), std::move(cnt)};
}

Cond PtxGen::cond(const Ctx& c, bool want_uniform) {
  Cond k;
  if (want_uniform) {
    // Uniform across the launch (the parameter) or across the block (its index).
    k.uniform = true;
    k.pred = "%pt";
    const uint32_t imm = rng_.below(4);
    if (rng_.pct(50)) {
      emit(fmt::format("setp.lt.u32 %pt, %uni, {}", imm));
      k.eval = [imm](const Thread&, const Memory& m) { return m.uni < imm; };
    } else {
      emit(fmt::format("and.b32 %t3, %lbid, 1"));
      emit(fmt::format("setp.eq.u32 %pt, %t3, {}", imm & 1));
      k.eval = [imm](const Thread& t, const Memory&) { return (t.lbid & 1) == (imm & 1); };
    }
    k.neg = rng_.pct(30);
    return k;
  }
  if (rng_.pct(35)) {
    const unsigned p = pred();
    k.pred = fmt::format("%p{}", p);
    k.eval = [p](const Thread& t, const Memory&) { return t.p[p]; };
  } else {
    // A data-dependent comparison, often of a few low bits so that both paths are taken.
    k.pred = "%pt";
    const Src a = src(c, false);
    if (rng_.pct(50)) {
      const uint32_t bits = rng_.pct(50) ? 1 : 3;
      emit(fmt::format("and.b32 %t3, {}, {}", a.text(false), bits));
      const uint32_t v = rng_.below(bits + 1);
      emit(fmt::format("setp.ne.u32 %pt, %t3, {}", v));
      k.eval = [a, bits, v](const Thread& t, const Memory&) { return (a.get(t) & bits) != v; };
    } else {
      const Src b = src(c, false);
      emit(fmt::format("setp.lt.s32 %pt, {}, {}", a.text(false), b.text(false)));
      k.eval = [a, b](const Thread& t, const Memory&) { return s32(a.get(t)) < s32(b.get(t)); };
    }
  }
  k.neg = rng_.pct(30);
  return k;
}

void PtxGen::st_int(const Ctx& ctx) {
  const Guard guarded = guard();
  const std::string& g = guarded.text;
  const auto gt = guarded.test;
  const unsigned d = reg();
  const Src a = src(ctx, false), b = src(ctx, false), cc = src(ctx, false);
  using F2 = uint32_t (*)(uint32_t, uint32_t);
  struct Bin {
    const char* name;
    F2 f;
  };
  static const Bin bins[] = {
      {"add.s32", [](uint32_t x, uint32_t y) { return x + y; }},
      {"sub.s32", [](uint32_t x, uint32_t y) { return x - y; }},
      {"add.sat.s32", [](uint32_t x, uint32_t y) { return sat_s32(int64_t{s32(x)} + s32(y)); }},
      {"sub.sat.s32", [](uint32_t x, uint32_t y) { return sat_s32(int64_t{s32(x)} - s32(y)); }},
      {"mul.lo.s32", [](uint32_t x, uint32_t y) { return x * y; }},
      {"mul.lo.u32", [](uint32_t x, uint32_t y) { return x * y; }},
      {"mul.hi.s32", [](uint32_t x, uint32_t y) { return static_cast<uint32_t>((int64_t{s32(x)} * s32(y)) >> 32); }},
      {"mul.hi.u32", [](uint32_t x, uint32_t y) { return static_cast<uint32_t>((uint64_t{x} * y) >> 32); }},
      {"min.s32", [](uint32_t x, uint32_t y) { return static_cast<uint32_t>(std::min(s32(x), s32(y))); }},
      {"max.s32", [](uint32_t x, uint32_t y) { return static_cast<uint32_t>(std::max(s32(x), s32(y))); }},
      {"min.u32", [](uint32_t x, uint32_t y) { return std::min(x, y); }},
      {"max.u32", [](uint32_t x, uint32_t y) { return std::max(x, y); }},
      {"and.b32", [](uint32_t x, uint32_t y) { return x & y; }},
      {"or.b32", [](uint32_t x, uint32_t y) { return x | y; }},
      {"xor.b32", [](uint32_t x, uint32_t y) { return x ^ y; }},
      {"shl.b32", [](uint32_t x, uint32_t y) { return shift_amount(y) == 32 ? 0u : x << y; }},
      {"shr.u32", [](uint32_t x, uint32_t y) { return shift_amount(y) == 32 ? 0u : x >> y; }},
      {"shr.s32", [](uint32_t x, uint32_t y) { return static_cast<uint32_t>(s32(x) >> std::min<uint32_t>(y, 31)); }},
      {"copysign.f32", [](uint32_t x, uint32_t y) { return (y & 0x7FFFFFFFu) | (x & 0x80000000u); }},
  };
  using F1 = uint32_t (*)(uint32_t);
  struct Un {
    const char* name;
    F1 f;
  };
  static const Un uns[] = {
      {"abs.s32", [](uint32_t x) { return s32(x) < 0 ? 0u - x : x; }},
      {"neg.s32", [](uint32_t x) { return 0u - x; }},
      {"not.b32", [](uint32_t x) { return ~x; }},
      {"popc.b32", [](uint32_t x) { return static_cast<uint32_t>(std::popcount(x)); }},
      {"clz.b32", [](uint32_t x) { return static_cast<uint32_t>(std::countl_zero(x)); }},
      {"brev.b32", [](uint32_t x) {
         uint32_t r = 0;
         for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
         return r;
       }},
      {"mov.b32", [](uint32_t x) { return x; }},
  };
  using F3 = uint32_t (*)(uint32_t, uint32_t, uint32_t);
  struct Tri {
    const char* name;
    F3 f;
  };
  static const Tri tris[] = {
      {"mad.lo.s32", [](uint32_t x, uint32_t y, uint32_t z) { return x * y + z; }},
      {"mad.lo.u32", [](uint32_t x, uint32_t y, uint32_t z) { return x * y + z; }},
      {"mad.hi.s32", [](uint32_t x, uint32_t y, uint32_t z) { return static_cast<uint32_t>((int64_t{s32(x)} * s32(y)) >> 32) + z; }},
      {"mad.hi.u32", [](uint32_t x, uint32_t y, uint32_t z) { return static_cast<uint32_t>((uint64_t{x} * y) >> 32) + z; }},
  };
  const unsigned kind = rng_.below(100);
  ThreadFn fn;
  if (kind < 50) {
    const Bin& op = bins[rng_.below(std::size(bins))];
    // Shift counts: small, at and beyond the width.
    Src bb = b;
    if (std::string_view(op.name).substr(0, 2) == "sh" && bb.k == Src::K::Imm && rng_.pct(60))
      bb.v = rng_.pick(std::vector<uint32_t>{0, 1, 5, 31, 32, 33, 255, 0xFFFFFFFF});
    const bool fl = std::string_view(op.name).ends_with(".f32");
    emit(fmt::format("{}{} %r{}, {}, {}", g, op.name, d, a.text(fl), bb.text(fl)));
    fn = [gt, f = op.f, d, a, bb](Thread& t, Memory&, BlockState&) {
      if (gt(t)) t.r[d] = f(a.get(t), bb.get(t));
    };
  } else if (kind < 68) {
    const Un& op = uns[rng_.below(std::size(uns))];
    emit(fmt::format("{}{} %r{}, {}", g, op.name, d, a.text(false)));
    fn = [gt, f = op.f, d, a](Thread& t, Memory&, BlockState&) {
      if (gt(t)) t.r[d] = f(a.get(t));
    };
  } else if (kind < 80) {
    // Bit fields: positions and lengths at and beyond the register's width, from immediates or
    // registers (only their low 8 bits count).
    const auto field = [&] {
      return rng_.pct(60) ? Src{Src::K::Imm, rng_.pick(std::vector<uint32_t>{0, 1, 4, 8, 16, 24, 31, 32, 33, 255, 0x1F04})}
                          : src(ctx, false);
    };
    const Src pos = field(), len = field();
    const unsigned op = rng_.below(3);  // bfe.u32 bfe.s32 bfi.b32
    if (op < 2) {
      emit(fmt::format("{}bfe.{}32 %r{}, {}, {}, {}", g, op ? "s" : "u", d, a.text(false), pos.text(false), len.text(false)));
    } else {
      emit(fmt::format("{}bfi.b32 %r{}, {}, {}, {}, {}", g, d, a.text(false), b.text(false), pos.text(false), len.text(false)));
    }
    fn = [=](Thread& t, Memory&, BlockState&) {
      if (!gt(t)) return;
      const uint32_t x = a.get(t), p = pos.get(t) & 0xFF, n = len.get(t) & 0xFF;
      uint32_t r = op == 2 ? b.get(t) : 0;
      if (op == 2) {  // the PTX ISA's bfi
        for (uint32_t i = 0; i < n && p + i <= 31; ++i) r = (r & ~(1u << (p + i))) | (((x >> i) & 1u) << (p + i));
      } else {  // the PTX ISA's bfe
        const uint32_t sbit = (op == 0 || n == 0) ? 0 : (x >> std::min<uint32_t>(p + n - 1, 31)) & 1u;
        for (uint32_t i = 0; i <= 31; ++i) r |= ((i < n && p + i <= 31) ? (x >> (p + i)) & 1u : sbit) << i;
      }
      t.r[d] = r;
    };
  } else if (kind < 84) {
    // prmt in its default mode: four byte selectors, bit 3 of each replicating the byte's sign.
    const Src sel = rng_.pct(60) ? Src{Src::K::Imm, rng_.u32() & 0xFFFF} : src(ctx, false);
    emit(fmt::format("{}prmt.b32 %r{}, {}, {}, {}", g, d, a.text(false), b.text(false), sel.text(false)));
    fn = [=](Thread& t, Memory&, BlockState&) {
      if (!gt(t)) return;
      const uint64_t bytes = uint64_t{b.get(t)} << 32 | a.get(t);
      const uint32_t c = sel.get(t);
      uint32_t r = 0;
      for (unsigned i = 0; i < 4; ++i) {
        const uint32_t ctl = (c >> (4 * i)) & 0xF;
        uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (ctl & 7))) & 0xFF;
        if (ctl & 8) byte = (byte & 0x80) ? 0xFF : 0;
        r |= byte << (8 * i);
      }
      t.r[d] = r;
    };
  } else if (kind < 92) {
    const Tri& op = tris[rng_.below(std::size(tris))];
    emit(fmt::format("{}{} %r{}, {}, {}, {}", g, op.name, d, a.text(false), b.text(false), cc.text(false)));
    fn = [gt, f = op.f, d, a, b, cc](Thread& t, Memory&, BlockState&) {
      if (gt(t)) t.r[d] = f(a.get(t), b.get(t), cc.get(t));
    };
  } else {
    const unsigned p = pred();
    emit(fmt::format("{}selp.b32 %r{}, {}, {}, %p{}", g, d, a.text(false), b.text(false), p));
    fn = [gt, d, a, b, p](Thread& t, Memory&, BlockState&) {
      if (gt(t)) t.r[d] = t.p[p] ? a.get(t) : b.get(t);
    };
  }
  thread_node(std::move(fn));
}

void PtxGen::st_fp(const Ctx& ctx) {
  const Guard guarded = guard();
  const std::string& g = guarded.text;
  const auto gt = guarded.test;
  const unsigned d = reg();
  const Src a = src(ctx, true), b = src(ctx, true), c = src(ctx, true);
  const Rnd rnd = static_cast<Rnd>(rng_.below(4));
  const bool ftz = rng_.pct(30), sat = rng_.pct(10);
  const std::string mods = fmt::format(".{}{}{}", kRndName[static_cast<int>(rnd)], ftz ? ".ftz" : "", sat ? ".sat" : "");
  const unsigned kind = rng_.below(100);
  ThreadFn fn;
  if (kind < 40) {
    const unsigned op = rng_.below(3);  // add sub mul
    emit(fmt::format("{}{}{}.f32 %r{}, {}, {}", g, std::array{"add", "sub", "mul"}[op], mods, d, a.text(true), b.text(true)));
    fn = [=](Thread& t, Memory&, BlockState&) {
      if (!gt(t)) return;
      const uint32_t x = a.get(t), y = b.get(t);
      t.r[d] = op == 2 ? fp::mul_f32(x, y, rnd, ftz, sat) : fp::add_f32(x, op == 1 ? y ^ 0x80000000u : y, rnd, ftz, sat);
    };
  } else if (kind < 55) {
    emit(fmt::format("{}fma{}.f32 %r{}, {}, {}, {}", g, mods, d, a.text(true), b.text(true), c.text(true)));
    fn = [=](Thread& t, Memory&, BlockState&) {
      if (gt(t)) t.r[d] = fp::fma_f32(a.get(t), b.get(t), c.get(t), rnd, ftz, sat);
    };
  } else if (kind < 65) {
    const bool mx = rng_.pct(50), nan = rng_.pct(30);
    emit(fmt::format("{}{}{}{}.f32 %r{}, {}, {}", g, mx ? "max" : "min", ftz ? ".ftz" : "", nan ? ".NaN" : "", d, a.text(true),
                     b.text(true)));
    fn = [=](Thread& t, Memory&, BlockState&) {
      if (gt(t)) t.r[d] = mx ? fp::max_f32(a.get(t), b.get(t), ftz, nan) : fp::min_f32(a.get(t), b.get(t), ftz, nan);
    };
  } else if (kind < 85) {
    // Conversions: float -> integer, integer -> float, float -> integral float.
    const unsigned cv = rng_.below(3);
    const bool sgn = rng_.pct(50);
    const Src x = cv == 1 ? src(ctx, false) : a;
    if (cv == 0) {
      emit(fmt::format("{}cvt.{}i{}.{}.f32 %r{}, {}", g, kRndName[static_cast<int>(rnd)], ftz ? ".ftz" : "", sgn ? "s32" : "u32", d,
                       x.text(true)));
      fn = [=](Thread& t, Memory&, BlockState&) {
        if (gt(t)) t.r[d] = static_cast<uint32_t>(fp::f2i(x.get(t), Ftype::F32, sgn ? Itype::S32 : Itype::U32, rnd, ftz));
      };
    } else if (cv == 1) {
      emit(fmt::format("{}cvt.{}.f32.{} %r{}, {}", g, kRndName[static_cast<int>(rnd)], sgn ? "s32" : "u32", d, x.text(false)));
      fn = [=](Thread& t, Memory&, BlockState&) {
        if (gt(t)) t.r[d] = static_cast<uint32_t>(fp::i2f(x.get(t), sgn ? Itype::S32 : Itype::U32, Ftype::F32, rnd));
      };
    } else {
      emit(fmt::format("{}cvt.{}i{}.f32.f32 %r{}, {}", g, kRndName[static_cast<int>(rnd)], ftz ? ".ftz" : "", d, x.text(true)));
      fn = [=](Thread& t, Memory&, BlockState&) {
        if (gt(t)) t.r[d] = static_cast<uint32_t>(fp::f2f(x.get(t), Ftype::F32, Ftype::F32, rnd, true, ftz, false));
      };
    }
  } else {
    const Mufu m = static_cast<Mufu>(rng_.below(6));
    emit(fmt::format("{}{}.approx{}.f32 %r{}, {}", g, kMufuName[static_cast<int>(m)], ftz ? ".ftz" : "", d, a.text(true)));
    fn = [=](Thread& t, Memory&, BlockState&) {
      if (gt(t)) t.r[d] = sfu::evaluate(m, a.get(t), ftz);
    };
  }
  thread_node(std::move(fn));
}

void PtxGen::st_setp(const Ctx& ctx) {
  const Guard guarded = guard();
  const std::string& g = guarded.text;
  const auto gt = guarded.test;
  const unsigned d = pred();
  const unsigned kind = rng_.below(100);
  ThreadFn fn;
  if (kind < 70) {
    // setp with an optional combination with another predicate.
    const bool fl = rng_.pct(45);
    const Src a = src(ctx, fl), b = src(ctx, fl);
    const unsigned bop = rng_.pct(30) ? 1 + rng_.below(3) : 0;
    const unsigned q = pred();
    const bool qneg = rng_.pct(40);
    const std::string comb = bop ? fmt::format(".{}", std::array{"", "and", "or", "xor"}[bop]) : "";
    const std::string tail = bop ? fmt::format(", {}%p{}", qneg ? "!" : "", q) : "";
    std::function<bool(uint32_t, uint32_t)> cmp;
    std::string name;
    if (fl) {
      const Fcmp op = static_cast<Fcmp>(rng_.below(14));
      const bool ftz = rng_.pct(30);
      name = fmt::format("{}{}.f32", kFcmpName[static_cast<int>(op)], ftz ? ".ftz" : "");
      cmp = [op, ftz](uint32_t x, uint32_t y) { return fp::cmp_f32(op, x, y, ftz); };
    } else {
      const unsigned op = rng_.below(6);
      const bool sgn = rng_.pct(50);
      static const char* const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
      static const char* const unames[] = {"eq", "ne", "lo", "ls", "hi", "hs"};
      name = fmt::format("{}.{}", sgn || rng_.pct(50) ? names[op] : unames[op], sgn ? "s32" : "u32");
      cmp = [op, sgn](uint32_t x, uint32_t y) {
        const int64_t X = sgn ? int64_t{s32(x)} : int64_t{x}, Y = sgn ? int64_t{s32(y)} : int64_t{y};
        switch (op) {
          case 0: return X == Y;
          case 1: return X != Y;
          case 2: return X < Y;
          case 3: return X <= Y;
          case 4: return X > Y;
          default: return X >= Y;
        }
      };
    }
    emit(fmt::format("{}setp.{}{} %p{}, {}, {}{}", g, name, comb, d, a.text(fl), b.text(fl), tail));
    fn = [=](Thread& t, Memory&, BlockState&) {
      if (!gt(t)) return;
      const bool r = cmp(a.get(t), b.get(t));
      const bool qv = t.p[q] != qneg;
      t.p[d] = bop == 0 ? r : bop == 1 ? (r && qv) : bop == 2 ? (r || qv) : (r != qv);
    };
  } else {
    const unsigned op = rng_.below(4), x = pred(), y = pred();
    if (op == 3) {
      emit(fmt::format("{}not.pred %p{}, %p{}", g, d, x));
    } else {
      emit(fmt::format("{}{}.pred %p{}, %p{}, %p{}", g, std::array{"and", "or", "xor"}[op], d, x, y));
    }
    fn = [=](Thread& t, Memory&, BlockState&) {
      if (!gt(t)) return;
      const bool a = t.p[x], b = t.p[y];
      t.p[d] = op == 0 ? (a && b) : op == 1 ? (a || b) : op == 2 ? (a != b) : !a;
    };
  }
  thread_node(std::move(fn));
}

void PtxGen::st_special(const Ctx&) {
  const unsigned d = reg();
  const Src a = reg_src(), b = reg_src();
  const unsigned kind = rng_.below(100);
  ThreadFn fn;
  if (kind < 40) {
    // Integer division and remainder; the divisor is made non-zero and never -1.
    const bool sgn = rng_.pct(50), rem = rng_.pct(50);
    emit(fmt::format("or.b32 %t0, {}, 1", b.text(false)));
    emit("and.b32 %t0, %t0, 0xFFFF00FF");
    emit(fmt::format("{}.{} %r{}, {}, %t0", rem ? "rem" : "div", sgn ? "s32" : "u32", d, a.text(false)));
    fn = [=](Thread& t, Memory&, BlockState&) {
      const uint32_t x = a.get(t), y = (b.get(t) | 1u) & 0xFFFF00FFu;
      if (sgn) t.r[d] = static_cast<uint32_t>(rem ? s32(x) % s32(y) : s32(x) / s32(y));
      else t.r[d] = rem ? x % y : x / y;
    };
  } else if (kind < 65) {
    const bool sgn = rng_.pct(50);
    const unsigned hi = reg();
    emit(fmt::format("mul.wide.{} %rda, {}, {}", sgn ? "s32" : "u32", a.text(false), b.text(false)));
    emit(fmt::format("cvt.u32.u64 %r{}, %rda", d));
    emit("shr.u64 %rda, %rda, 32");
    emit(fmt::format("cvt.u32.u64 %r{}, %rda", hi));
    fn = [=](Thread& t, Memory&, BlockState&) {
      const uint64_t p = sgn ? static_cast<uint64_t>(int64_t{s32(a.get(t))} * s32(b.get(t))) : uint64_t{a.get(t)} * b.get(t);
      t.r[d] = static_cast<uint32_t>(p);
      t.r[hi] = static_cast<uint32_t>(p >> 32);
    };
  } else {
    const unsigned op = rng_.below(3);  // div.rn, sqrt.rn, rcp.rn
    if (op == 0) emit(fmt::format("div.rn.f32 %r{}, {}, {}", d, a.text(true), b.text(true)));
    else emit(fmt::format("{}.rn.f32 %r{}, {}", op == 1 ? "sqrt" : "rcp", d, a.text(true)));
    fn = [=](Thread& t, Memory&, BlockState&) {
      const uint32_t x = a.get(t);
      t.r[d] = op == 0 ? div_rn(x, b.get(t)) : op == 1 ? sqrt_rn(x) : div_rn(0x3F800000, x);
    };
  }
  thread_node(std::move(fn));
}

void PtxGen::st_load(const Ctx&) {
  const unsigned d = reg();
  const Src a = reg_src();
  const bool generic = rng_.pct(25);
  const std::string base = generic ? "%rdig" : "%rdi";
  const std::string space = generic ? "" : rng_.pct(20) ? ".global.nc" : ".global";
  const unsigned kind = rng_.below(100);
  if (kind < 55) {
    // 32-bit words, or vectors of two or four at their alignment.
    const unsigned n = kind < 35 ? 1 : kind < 45 ? 2 : 4;
    const uint32_t mask = (kInBytes / 2 - 1) & ~(4 * n - 1);  // within the first half; offsets reach the second
    const uint32_t off = 4 * n * rng_.below(kInBytes / 2 / (4 * n));
    std::array<unsigned, 4> ds{d, 0, 0, 0};
    for (unsigned i = 1; i < n; ++i)
      do ds[i] = reg();
      while (std::find(ds.begin(), ds.begin() + i, ds[i]) != ds.begin() + i);
    emit(fmt::format("and.b32 %t0, {}, {}", a.text(false), mask));
    emit("cvt.u64.u32 %rda, %t0");
    emit(fmt::format("add.s64 %rda, {}, %rda", base));
    if (n == 1) {
      emit(fmt::format("ld{}.u32 %r{}, [%rda+{}]", space, d, off));
    } else {
      std::string list;
      for (unsigned i = 0; i < n; ++i) list += fmt::format("{}%r{}", i ? ", " : "", ds[i]);
      emit(fmt::format("ld{}.v{}.u32 {{{}}}, [%rda+{}]", space, n, list, off));
    }
    thread_node([=](Thread& t, Memory& m, BlockState&) {
      const uint32_t at = (a.get(t) & mask) + off;
      for (unsigned i = 0; i < n; ++i) t.r[ds[i]] = load32(m.in, at + 4 * i);
    });
  } else {
    // 8- and 16-bit loads, sign- or zero-extended into the 32-bit register.
    const unsigned bytes = rng_.pct(50) ? 1 : 2;
    const bool sgn = rng_.pct(50);
    const uint32_t mask = (kInBytes - 1) & ~(bytes - 1);
    emit(fmt::format("and.b32 %t0, {}, {}", a.text(false), mask));
    emit("cvt.u64.u32 %rda, %t0");
    emit(fmt::format("add.s64 %rda, {}, %rda", base));
    emit(fmt::format("ld{}.{}{} %r{}, [%rda]", space, sgn ? "s" : "u", bytes * 8, d));
    thread_node([=](Thread& t, Memory& m, BlockState&) {
      const uint32_t at = a.get(t) & mask;
      uint32_t v = m.in[at] | (bytes == 2 ? uint32_t{m.in[at + 1]} << 8 : 0u);
      if (sgn) v = bytes == 1 ? static_cast<uint32_t>(static_cast<int8_t>(v)) : static_cast<uint32_t>(static_cast<int16_t>(v));
      t.r[d] = v;
    });
  }
}

void PtxGen::st_own(const Ctx&) {
  // Stores into, and loads from, the thread's own region: scratch words anywhere; the pool words
  // (which the flush overwrites) only by loads.
  const unsigned kind = rng_.below(100);
  const unsigned bytes = kind < 60 ? 4 : kind < 80 ? 2 : 1;
  const bool store = rng_.pct(55);
  const uint32_t lo = store ? kScratch : 0;
  const uint32_t off = (lo + rng_.below(kRegion - lo)) & ~(bytes - 1);
  const unsigned r = reg();
  const std::string type = bytes == 4 ? "b32" : fmt::format("{}{}", store || rng_.pct(50) ? "u" : "s", bytes * 8);
  const bool sgn = type[0] == 's';
  if (store && bytes == 4 && off % 8 == 0 && rng_.pct(30)) {
    const unsigned r2 = (r + 1) % npool_;
    emit(fmt::format("st.global.v2.b32 [%rdo+{}], {{%r{}, %r{}}}", off, r, r2));
    thread_node([=](Thread& t, Memory& m, BlockState&) {
      store32(m.out, size_t{t.gtid} * kRegion + off, t.r[r]);
      store32(m.out, size_t{t.gtid} * kRegion + off + 4, t.r[r2]);
    });
    return;
  }
  if (store) {
    emit(fmt::format("st.global.{} [%rdo+{}], %r{}", type, off, r));
    thread_node([=](Thread& t, Memory& m, BlockState&) {
      for (unsigned i = 0; i < bytes; ++i) m.out[size_t{t.gtid} * kRegion + off + i] = static_cast<uint8_t>(t.r[r] >> (8 * i));
    });
  } else {
    emit(fmt::format("ld.global.{} %r{}, [%rdo+{}]", type, r, off));
    thread_node([=](Thread& t, Memory& m, BlockState&) {
      uint32_t v = 0;
      for (unsigned i = 0; i < bytes; ++i) v |= uint32_t{m.out[size_t{t.gtid} * kRegion + off + i]} << (8 * i);
      if (sgn) v = bytes == 1 ? static_cast<uint32_t>(static_cast<int8_t>(v)) : static_cast<uint32_t>(static_cast<int16_t>(v));
      t.r[r] = v;
    });
  }
}

void PtxGen::st_local(const Ctx&) {
  const unsigned r = reg();
  const Src a = reg_src();
  const bool store = rng_.pct(50);
  if (rng_.pct(50)) {
    const uint32_t w = rng_.below(kLocalWords);
    emit(store ? fmt::format("st.local.u32 [loc+{}], %r{}", 4 * w, r) : fmt::format("ld.local.u32 %r{}, [loc+{}]", r, 4 * w));
    thread_node([=](Thread& t, Memory&, BlockState&) {
      if (store) t.local[w] = t.r[r];
      else t.r[r] = t.local[w];
    });
  } else {
    // A register index.
    emit(fmt::format("and.b32 %t0, {}, {}", a.text(false), 4 * (kLocalWords - 1)));
    emit("mov.u32 %t1, loc");
    emit("add.s32 %t0, %t0, %t1");
    emit(store ? fmt::format("st.local.u32 [%t0], %r{}", r) : fmt::format("ld.local.u32 %r{}, [%t0]", r));
    thread_node([=](Thread& t, Memory&, BlockState&) {
      const uint32_t w = (a.get(t) & (4 * (kLocalWords - 1))) / 4;
      if (store) t.local[w] = t.r[r];
      else t.r[r] = t.local[w];
    });
  }
}

void PtxGen::st_atomic(bool shared) {
  const unsigned i = rng_.below(shared ? kSharedCtrs : kGlobalCtrs);
  const CounterKind& ck = kCounters[shared ? sctr_[i] : gctr_[i]];
  const Src a = reg_src();
  // The operand: what the counter's rule allows.
  std::string operand = "%t1";
  std::function<uint32_t(const Thread&)> value;
  switch (ck.op) {
    case Ctr::Add16:
      emit(fmt::format("shl.b32 %t1, {}, 4", a.text(false)));
      value = [a](const Thread& t) { return a.get(t) << 4; };
      break;
    case Ctr::OrHi:
    case Ctr::XorHi:
      emit(fmt::format("and.b32 %t1, {}, 0xFFFF0000", a.text(false)));
      value = [a](const Thread& t) { return a.get(t) & 0xFFFF0000u; };
      break;
    case Ctr::AndHi:
      emit(fmt::format("or.b32 %t1, {}, 0xFFFF", a.text(false)));
      value = [a](const Thread& t) { return a.get(t) | 0xFFFFu; };
      break;
    case Ctr::Inc:
    case Ctr::Dec:
      emit("mov.u32 %t1, 0xFFFFFFFF");  // the bound: never reached
      value = [](const Thread&) { return 0xFFFFFFFFu; };
      break;
    default:
      operand = a.text(false);
      value = [a](const Thread& t) { return a.get(t); };
  }
  // A global INC or DEC counter takes either red or atom, never both. In lockstep the golden model
  // follows the memory's order of an order-dependent atomic through the old values the RTL
  // returns, and a red returns none (sim/golden/execute.cpp, Exec::atomic); the other counters'
  // operations end in the same memory in any order, and mix red and atom freely. (Before the
  // golden model combined order-free atomics with its own memory, 3 blocks of 256 threads on
  // `small` doing `atom.global.add.u32 %t0, [%rdc], 1; red.global.add.u32 [%rdc], 1;` lost 416
  // of 1536 increments in lockstep.)
  const bool order_free = ck.op != Ctr::Inc && ck.op != Ctr::Dec;
  const bool red = shared || order_free ? rng_.pct(30) : gred_[i];
  const unsigned d = reg();
  const std::string dst = red ? "" : "%t0, ";
  const std::string op = red ? "red" : "atom";
  if (shared) {
    emit(fmt::format("{}.shared.{} {}[shc+{}], {}", op, ck.ptx, dst, 4 * i, operand));
  } else {
    const bool generic = rng_.pct(30);
    emit(fmt::format("add.s64 %rda, {}, {}", generic ? "%rdcg" : "%rdc", 4 * i));
    emit(fmt::format("{}{}.{} {}[%rda], {}", op, generic ? "" : ".global", ck.ptx, dst, operand));
  }
  if (!red) emit(fmt::format("and.b32 %r{}, %t0, {}", d, ck.observe));
  const Ctr kind = ck.op;
  const uint32_t observe = ck.observe;
  thread_node([=](Thread& t, Memory& m, BlockState& b) {
    const uint32_t v = value(t);
    uint32_t old;
    if (shared) {
      old = b.shc[i];
      b.shc[i] = apply_counter(kind, old, v);
    } else {
      old = load32(m.cnt, 4 * i);
      store32(m.cnt, 4 * i, apply_counter(kind, old, v));
    }
    if (!red) t.r[d] = old & observe;
  });
  ++k_.stats.atomics;
}

void PtxGen::st_exchange() {
  // Each thread writes its slot, a barrier, each reads another thread's slot, a barrier.
  const unsigned s = reg(), d = reg();
  const uint32_t k = nthreads_ > 1 ? 1 + rng_.below(nthreads_ - 1) : 0;
  emit(fmt::format("st.shared.u32 [%shme], %r{}", s));
  emit("bar.sync 0");
  emit(fmt::format("add.s32 %t0, %ltid, {}", k));
  emit("rem.u32 %t0, %t0, %ntot");
  emit("shl.b32 %t0, %t0, 2");
  emit("mov.u32 %t1, sh");
  emit("add.s32 %t0, %t0, %t1");
  emit(fmt::format("ld.shared.u32 %r{}, [%t0]", d));
  emit("bar.sync 0");
  block_node([=](BlockState& b, Memory& m) {
    for (auto& t : b.th) b.sh[t.ltid] = t.r[s];
    for (auto& t : b.th) t.r[d] = b.sh[(t.ltid + k) % m.ntot];
  });
  k_.stats.barriers += 2;
}

void PtxGen::st_vote() {
  const unsigned q = pred();
  const bool qneg = rng_.pct(30);
  const unsigned mode = rng_.below(4);  // all any uni ballot
  const unsigned dp = pred(), dr = reg();
  if (mode == 3) {
    emit(fmt::format("vote.sync.ballot.b32 %r{}, {}%p{}, 0xFFFFFFFF", dr, qneg ? "!" : "", q));
  } else {
    emit(fmt::format("vote.sync.{}.pred %p{}, {}%p{}, 0xFFFFFFFF", std::array{"all", "any", "uni"}[mode], dp, qneg ? "!" : "", q));
  }
  block_node([=](BlockState& b, Memory&) {
    for (size_t w = 0; w < b.th.size(); w += 32) {
      uint32_t ballot = 0;
      for (unsigned l = 0; l < 32; ++l) ballot |= uint32_t{b.th[w + l].p[q] != qneg} << l;
      for (unsigned l = 0; l < 32; ++l) {
        Thread& t = b.th[w + l];
        if (mode == 3) t.r[dr] = ballot;
        else t.p[dp] = mode == 0 ? ballot == 0xFFFFFFFF : mode == 1 ? ballot != 0 : (ballot == 0 || ballot == 0xFFFFFFFF);
      }
    }
  });
  ++k_.stats.votes;
}

void PtxGen::st_shfl() {
  const unsigned mode = rng_.below(4);  // up down bfly idx
  const unsigned d = reg();
  const Src a = reg_src();
  const Src b = rng_.pct(50) ? Src{Src::K::Imm, rng_.below(32)} : reg_src();
  const uint32_t width = 32u >> rng_.below(4);
  const uint32_t c = ((32 - width) << 8) | (mode == 0 ? 0 : 0x1F);
  emit(fmt::format("shfl.sync.{}.b32 %r{}, {}, {}, {}, 0xFFFFFFFF", std::array{"up", "down", "bfly", "idx"}[mode], d, a.text(false),
                   b.text(false), c));
  block_node([=](BlockState& bs, Memory&) {
    for (size_t w = 0; w < bs.th.size(); w += 32) {
      std::array<uint32_t, 32> av{}, res{};
      for (unsigned l = 0; l < 32; ++l) av[l] = a.get(bs.th[w + l]);
      for (unsigned l = 0; l < 32; ++l) {
        const Thread& t = bs.th[w + l];
        // The PTX ISA's definition of shfl.
        const uint32_t bval = b.get(t) & 31, cval = c & 31, segmask = (c >> 8) & 31;
        const uint32_t max_lane = (l & segmask) | (cval & ~segmask), min_lane = l & segmask;
        int64_t j;
        bool pval;
        switch (mode) {
          case 0: j = int64_t{l} - bval; pval = j >= int64_t{max_lane}; break;
          case 1: j = int64_t{l} + bval; pval = j <= int64_t{max_lane}; break;
          case 2: j = l ^ bval; pval = j <= int64_t{max_lane}; break;
          default: j = min_lane | (bval & ~segmask); pval = j <= int64_t{max_lane}; break;
        }
        if (!pval) j = l;
        res[l] = av[static_cast<size_t>(j)];
      }
      for (unsigned l = 0; l < 32; ++l) bs.th[w + l].r[d] = res[l];
    }
  });
  ++k_.stats.shfls;
}

void PtxGen::flush_lines(const std::string& g) {
  lines_.push_back("    // flush");
  for (unsigned i = 0; i < npool_; ++i) emit(fmt::format("{}st.global.u32 [%rdo+{}], %r{}", g, 4 * i, i));
  emit(fmt::format("{}selp.u32 %t0, 1, 0, %p0", g));
  for (unsigned p = 1; p < kPreds; ++p) {
    emit(fmt::format("{}selp.u32 %t1, {}, 0, %p{}", g, 1u << p, p));
    emit(fmt::format("{}or.b32 %t0, %t0, %t1", g));
  }
  emit(fmt::format("{}st.global.u32 [%rdo+{}], %t0", g, 4 * kMaxPool));
}

int PtxGen::st_if(const Ctx& c, int budget) {
  const bool uni = c.uniform && rng_.pct(40);
  const Cond k = cond(c, uni);
  const bool has_else = rng_.pct(50);
  const std::string lelse = new_label(), lend = new_label();
  const std::string bra = k.uniform ? "bra.uni" : "bra";
  emit(fmt::format("{} {} {}", k.guard(true), bra, has_else ? lelse : lend));
  Node n;
  n.kind = Node::Kind::If;
  n.fn = [ev = k.eval, neg = k.neg](Thread& t, Memory& m, BlockState&) { t.cond = ev(t, m) != neg; };
  Ctx inner = c;
  inner.uniform = c.uniform && k.uniform;
  inner.nest = c.nest + 1;
  k_.stats.max_nesting = std::max(k_.stats.max_nesting, inner.nest);
  Body* saved = cur_;
  int used = 1;
  const int then_budget = has_else ? budget / 2 : budget;
  cur_ = &n.body;
  body(inner, then_budget);
  used += then_budget;
  if (has_else) {
    emit(fmt::format("bra.uni {}", lend));
    label(lelse);
    cur_ = &n.else_body;
    body(inner, budget - then_budget);
    used += budget - then_budget;
  }
  label(lend);
  cur_ = saved;
  cur_->push_back(std::move(n));
  ++k_.stats.ifs;
  return used;
}

int PtxGen::st_loop(const Ctx& c, int budget) {
  const unsigned level = c.loops;
  const unsigned max_trip = std::min<unsigned>(kMaxTrip, kMaxMult / c.mult);
  const bool uni = c.uniform && rng_.pct(50);
  const bool do_while = rng_.pct(35);
  Node n;
  n.kind = Node::Kind::Loop;
  n.level = level;
  n.do_while = do_while;
  const std::string lt = fmt::format("%lt{}", level), lc = fmt::format("%lc{}", level);
  if (uni) {
    const unsigned kind = rng_.below(3);
    const uint32_t imm = rng_.below(max_trip + 1);
    if (kind == 0) {
      emit(fmt::format("mov.u32 {}, {}", lt, imm));
      n.fn = [=](Thread& t, Memory&, BlockState&) { t.lt[level] = imm; };
    } else if (kind == 1) {
      const uint32_t base = max_trip >= 2 ? rng_.below(max_trip - 1) : 0;  // uni is 0..2
      emit(fmt::format("add.s32 {}, %uni, {}", lt, base));
      n.fn = [=](Thread& t, Memory& m, BlockState&) { t.lt[level] = std::min<uint32_t>(m.uni + base, max_trip); };
      if (base + 2 > max_trip) {
        emit(fmt::format("min.u32 {0}, {0}, {1}", lt, max_trip));
      }
    } else {
      emit(fmt::format("and.b32 {}, %lbid, {}", lt, max_trip >= 3 ? 3 : 1));
      n.fn = [=](Thread& t, Memory&, BlockState&) { t.lt[level] = t.lbid & (max_trip >= 3 ? 3u : 1u); };
    }
  } else {
    const Src a = src(c, false);
    if (rng_.pct(70)) {
      emit(fmt::format("and.b32 {}, {}, 3", lt, a.text(false)));
      emit(fmt::format("min.u32 {0}, {0}, {1}", lt, max_trip));
      n.fn = [=](Thread& t, Memory&, BlockState&) { t.lt[level] = std::min<uint32_t>(a.get(t) & 3, max_trip); };
    } else {
      emit(fmt::format("rem.u32 {}, {}, {}", lt, a.text(false), max_trip + 1));
      n.fn = [=](Thread& t, Memory&, BlockState&) { t.lt[level] = a.get(t) % (max_trip + 1); };
    }
  }
  emit(fmt::format("mov.u32 {}, 0", lc));
  const std::string head = new_label(), exit = new_label();
  const std::string bra = uni ? "bra.uni" : "bra";
  label(head);
  if (!do_while) {
    emit(fmt::format("setp.ge.u32 %pt, {}, {}", lc, lt));
    emit(fmt::format("@%pt {} {}", bra, exit));
  }
  Ctx inner = c;
  inner.loops = level + 1;
  inner.mult = c.mult * std::max(1u, max_trip);
  inner.uniform = c.uniform && uni;
  inner.brk = inner.uniform ? "" : exit;  // a break would make a uniform loop divergent
  inner.nest = c.nest + 1;
  k_.stats.max_nesting = std::max(k_.stats.max_nesting, inner.nest);
  Body* saved = cur_;
  cur_ = &n.body;
  body(inner, budget);
  cur_ = saved;
  emit(fmt::format("add.s32 {0}, {0}, 1", lc));
  if (do_while) {
    emit(fmt::format("setp.lt.u32 %pt, {}, {}", lc, lt));
    emit(fmt::format("@%pt {} {}", bra, head));
  } else {
    emit(fmt::format("bra.uni {}", head));
  }
  label(exit);
  cur_->push_back(std::move(n));
  ++k_.stats.loops;
  return budget + 2;
}

void PtxGen::st_break(const Ctx& c) {
  const Cond k = cond(c, false);
  emit(fmt::format("{} bra {}", k.guard(false), c.brk));
  Node n;
  n.kind = Node::Kind::Break;
  n.fn = [ev = k.eval, neg = k.neg](Thread& t, Memory& m, BlockState&) { t.cond = ev(t, m) != neg; };
  cur_->push_back(std::move(n));
  ++k_.stats.breaks;
}

void PtxGen::st_return(const Ctx& c) {
  const Cond k = cond(c, false);
  if (rng_.pct(50)) {
    const std::string skip = new_label();
    emit(fmt::format("{} bra {}", k.guard(true), skip));
    flush_lines("");
    emit("ret");
    label(skip);
  } else {
    // Every line guarded: the predicate must survive the flush, so use a copy in %pt.
    if (k.pred != "%pt") emit(fmt::format("mov.pred %pt, {}", k.pred));
    const std::string g = fmt::format("@{}%pt ", k.neg ? "!" : "");
    flush_lines(g);
    emit(g + "ret");
  }
  Node n;
  n.kind = Node::Kind::Return;
  n.fn = [ev = k.eval, neg = k.neg](Thread& t, Memory& m, BlockState&) { t.cond = ev(t, m) != neg; };
  cur_->push_back(std::move(n));
  ++k_.stats.returns;
}

int PtxGen::statement(const Ctx& c, int budget) {
  const unsigned r = rng_.below(100);
  const bool nest_ok = c.nest < kMaxNest && budget >= 4;
  if (r < 11 && nest_ok) return st_if(c, std::min(budget - 1, 4 + static_cast<int>(rng_.below(16))));
  if (r < 18 && nest_ok && c.loops < kLoopLevels && c.mult * 2 <= kMaxMult)
    return st_loop(c, std::min(budget - 2, 4 + static_cast<int>(rng_.below(12))));
  if (r < 22 && !c.brk.empty()) {
    st_break(c);
    return 1;
  }
  if (r < 24 && c.ret) {
    st_return(c);
    return 2;
  }
  if (c.uniform && c.collective) {
    if (r < 27) {
      st_exchange();
      return 2;
    }
    if (full_warps_ && r < 30) {
      st_vote();
      return 1;
    }
    if (full_warps_ && r < 33) {
      st_shfl();
      return 1;
    }
  }
  if (r < 37 && c.collective && shared_ctrs_) {
    st_atomic(true);
    return 1;
  }
  const std::pair<unsigned, void (PtxGen::*)(const Ctx&)> simple[] = {
      {42, &PtxGen::st_global_atomic}, {50, &PtxGen::st_load}, {57, &PtxGen::st_own}, {60, &PtxGen::st_local},
      {64, &PtxGen::st_special},       {73, &PtxGen::st_setp}, {85, &PtxGen::st_fp}};
  for (const auto& [below, f] : simple)
    if (r < below) {
      (this->*f)(c);
      return 1;
    }
  st_int(c);
  return 1;
}

void PtxGen::body(const Ctx& c, int budget) {
  while (budget > 0) budget -= statement(c, budget);
}

void PtxGen::prologue() {
  const uint32_t mt = k_.block.x * k_.block.y;
  lines_ = {"//", fmt::format("// random PTX kernel, seed {}, for {}: block {}x{}, grid {}x{}, uni {}", k_.seed, k_.config, k_.block.x,
                                k_.block.y, k_.grid.x, k_.grid.y, k_.uni),
            "//", ".version 7.0", ".target sm_75", ".address_size 64", "",
            fmt::format(".shared .align 4 .b32 sh[{}];", mt), fmt::format(".shared .align 4 .b32 shc[{}];", kSharedCtrs), "",
            ".visible .entry rk(.param .u64 in, .param .u64 out, .param .u64 cnt, .param .u32 uni)",
            fmt::format(".maxntid {}, {}, 1", k_.block.x, k_.block.y), "{",
            fmt::format("    .reg .b32 %r<{}>;", npool_), fmt::format("    .reg .pred %p<{}>;", kPreds), "    .reg .pred %pt;",
            "    .reg .b32 %t<4>;", fmt::format("    .reg .b32 %lc<{}>;", kLoopLevels), fmt::format("    .reg .b32 %lt<{}>;", kLoopLevels),
            "    .reg .b32 %ltid, %lbid, %gtid, %ntot, %lane, %uni, %shme;", "    .reg .b64 %rdi, %rdig, %rdo, %rdc, %rdcg, %rda;",
            fmt::format("    .local .align 4 .b32 loc[{}];", kLocalWords), ""};
  emit("ld.param.u64 %rdig, [in]");
  emit("cvta.to.global.u64 %rdi, %rdig");
  emit("ld.param.u64 %rdo, [out]");
  emit("cvta.to.global.u64 %rdo, %rdo");
  emit("ld.param.u64 %rdcg, [cnt]");
  emit("cvta.to.global.u64 %rdc, %rdcg");
  emit("ld.param.u32 %uni, [uni]");
  emit("mov.u32 %t0, %tid.y");
  emit("mov.u32 %t1, %ntid.x");
  emit("mov.u32 %t2, %tid.x");
  emit("mad.lo.s32 %ltid, %t0, %t1, %t2");
  emit("mov.u32 %t0, %ntid.y");
  emit("mul.lo.s32 %ntot, %t1, %t0");
  emit("mov.u32 %t0, %ctaid.y");
  emit("mov.u32 %t1, %nctaid.x");
  emit("mov.u32 %t2, %ctaid.x");
  emit("mad.lo.s32 %lbid, %t0, %t1, %t2");
  emit("mad.lo.s32 %gtid, %lbid, %ntot, %ltid");
  emit(fmt::format("mul.wide.u32 %rda, %gtid, {}", kRegion));
  emit("add.s64 %rdo, %rdo, %rda");
  emit("mov.u32 %t0, sh");
  emit("shl.b32 %t1, %ltid, 2");
  emit("add.s32 %shme, %t0, %t1");
  emit("mov.u32 %lane, %laneid");
  // The pool: from `in` at a per-thread index, an immediate, or the thread index.
  std::vector<std::function<void(Thread&, const Memory&)>> init;
  for (unsigned i = 0; i < npool_; ++i) {
    const unsigned kind = rng_.below(10);
    if (kind < 6) {
      const uint32_t mul = 1 + 2 * rng_.below(16), add = rng_.below(1024);
      emit(fmt::format("mad.lo.s32 %t0, %gtid, {}, {}", mul, add));
      emit("and.b32 %t0, %t0, 1023");
      emit("mul.wide.u32 %rda, %t0, 4");
      emit("add.s64 %rda, %rdi, %rda");
      emit(fmt::format("ld.global.u32 %r{}, [%rda]", i));
      init.push_back([=](Thread& t, const Memory& m) { t.r[i] = load32(m.in, 4 * ((t.gtid * mul + add) & 1023)); });
    } else if (kind < 8) {
      const uint32_t v = rng_.pct(50) ? rng_.pick(kFloatImm) : rng_.pick(kIntImm);
      emit(fmt::format("mov.b32 %r{}, 0x{:08X}", i, v));
      init.push_back([=](Thread& t, const Memory&) { t.r[i] = v; });
    } else {
      const uint32_t add = rng_.below(64);
      emit(fmt::format("add.s32 %r{}, %ltid, {}", i, add));
      init.push_back([=](Thread& t, const Memory&) { t.r[i] = t.ltid + add; });
    }
  }
  for (unsigned p = 0; p < kPreds; ++p) {
    const unsigned a = rng_.below(npool_), b = rng_.below(npool_);
    emit(fmt::format("setp.lt.u32 %p{}, %r{}, %r{}", p, a, b));
    init.push_back([=](Thread& t, const Memory&) { t.p[p] = t.r[a] < t.r[b]; });
  }
  for (unsigned w = 0; w < kLocalWords; ++w) {
    const unsigned r = rng_.below(npool_);
    emit(fmt::format("st.local.u32 [loc+{}], %r{}", 4 * w, r));
    init.push_back([=](Thread& t, const Memory&) { t.local[w] = t.r[r]; });
  }
  thread_node([init = std::move(init)](Thread& t, Memory& m, BlockState&) {
    for (const auto& f : init) f(t, m);
  });
  if (shared_ctrs_) {
    emit("setp.eq.u32 %pt, %ltid, 0");
    for (unsigned i = 0; i < kSharedCtrs; ++i) emit(fmt::format("@%pt st.shared.u32 [shc+{}], 0x{:08X}", 4 * i, sctr_init_[i]));
    emit("bar.sync 0");
    block_node([init = sctr_init_](BlockState& b, Memory&) { b.shc = init; });
  }
}

PtxKernel PtxGen::run() {
  setup_launch();
  prologue();
  const int size = 25 + static_cast<int>(rng_.below(50));
  // Phase A: barriers, votes, shuffles, shared atomics; no return.
  Ctx a;
  body(a, size / 2);
  if (shared_ctrs_) {
    // Shared counters back to `cnt`, after every thread's atomics.
    emit("bar.sync 0");
    emit("setp.eq.u32 %pt, %ltid, 0");
    emit(fmt::format("mul.wide.u32 %rda, %lbid, {}", 4 * kSharedCtrs));
    emit("add.s64 %rda, %rdc, %rda");
    for (unsigned i = 0; i < kSharedCtrs; ++i) {
      emit(fmt::format("@%pt ld.shared.u32 %t0, [shc+{}]", 4 * i));
      emit(fmt::format("@%pt st.global.u32 [%rda+{}], %t0", 4 * (kGlobalCtrs + i)));
    }
    block_node([](BlockState& b, Memory& m) {
      for (unsigned i = 0; i < kSharedCtrs; ++i) store32(m.cnt, 4 * (kGlobalCtrs + kSharedCtrs * b.th[0].lbid + i), b.shc[i]);
    });
  }
  // Phase B: early returns; nothing collective.
  Ctx b;
  b.collective = false;
  b.ret = true;
  b.uniform = false;
  body(b, size - size / 2);
  flush_lines("");
  emit("ret");
  lines_.push_back("}");
  for (const auto& l : lines_) k_.ptx += l + "\n";

  // ---- the reference: the AST per block ----
  Memory m;
  m.in = k_.buffers[0].init;
  m.out = k_.buffers[1].init;
  m.cnt = k_.buffers[2].init;
  m.uni = k_.uni;
  m.ntot = nthreads_;
  m.nregs = npool_;
  for (uint32_t blk = 0; blk < nblocks_; ++blk) {
    BlockState bs;
    bs.sh.assign(nthreads_, 0);
    bs.th.resize(nthreads_);
    for (uint32_t i = 0; i < nthreads_; ++i) {
      Thread& t = bs.th[i];
      t.ltid = i;
      t.lbid = blk;
      t.gtid = blk * nthreads_ + i;
      t.lane = i % 32;
    }
    std::vector<uint8_t> act(nthreads_, 1);
    exec(root_, act, bs, m);
    for (uint32_t i = 0; i < nthreads_; ++i)
      if (act[i]) flush(bs.th[i], m);
  }
  k_.expected = {m.in, m.out, m.cnt};
  k_.description = fmt::format("{} threads x {} blocks, {} statements, {} pool registers, {} ifs, {} loops, {} breaks, {} returns, "
                               "{} barriers, {} atomics, {} votes, {} shuffles, nesting {}",
                               nthreads_, nblocks_, k_.stats.statements, npool_, k_.stats.ifs, k_.stats.loops, k_.stats.breaks,
                               k_.stats.returns, k_.stats.barriers, k_.stats.atomics, k_.stats.votes, k_.stats.shfls,
                               k_.stats.max_nesting);
  return std::move(k_);
}

}  // namespace


PtxKernel generate_ptx(uint64_t seed, const PtxOptions& options) {
  const config::SmConfig* cfg = config::find_config(options.config);
  if (!cfg) throw std::invalid_argument(fmt::format("unknown configuration '{}'", options.config));
  return PtxGen(seed, *cfg).run();
}

std::string describe_launch(const PtxKernel& k) {
  std::string s = fmt::format("seed {}\nconfig {}\nkernel {}\ngrid {}\nblock {}\nparameters in out cnt uni={}\n", k.seed, k.config,
                              k.kernel_name, to_string(k.grid), to_string(k.block), k.uni);
  for (const auto& b : k.buffers) s += fmt::format("buffer {} {} bytes\n", b.name, b.init.size());
  s += fmt::format("out: {} bytes per thread (pool words, predicates at word {}, scratch from byte {})\n", kRegion, kMaxPool, kScratch);
  s += fmt::format("cnt: {} global counters, then {} shared counters per block\n", kGlobalCtrs, kSharedCtrs);
  s += "contents: " + k.description + "\n";
  return s;
}

RandomRun run_ptx_kernel(Runtime& rt, const PtxKernel& k, Module module) {
  std::vector<uint8_t> uni(4);
  std::memcpy(uni.data(), &k.uni, 4);
  return run_module(rt, std::move(module), k.kernel_name, k.grid, k.block, k.buffers, {uni});
}

std::string compare_buffers(const std::vector<RandomBuffer>& buffers, const std::vector<std::vector<uint8_t>>& want,
                            const std::vector<std::vector<uint8_t>>& got, uint32_t out_stride, const std::string& want_name,
                            const std::string& got_name) {
  for (size_t b = 0; b < buffers.size(); ++b) {
    const auto& x = want.at(b);
    const auto& y = got.at(b);
    size_t diffs = 0, first = x.size();
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] != y.at(i)) {
        if (first == x.size()) first = i;
        ++diffs;
      }
    if (diffs == 0) continue;
    const size_t w = first & ~size_t{3};
    const auto word = [&](const std::vector<uint8_t>& v) {
      uint32_t r = 0;
      for (size_t i = 0; i < 4 && w + i < v.size(); ++i) r |= uint32_t{v[w + i]} << (8 * i);
      return r;
    };
    std::string where = fmt::format("byte {}", first);
    if (buffers[b].name == "out")
      where += fmt::format(" (thread {}, byte {} of its region)", first / out_stride, first % out_stride);
    return fmt::format("buffer '{}' differs in {} bytes; first at {}: word {:#010x} on {}, {:#010x} on {}", buffers[b].name, diffs,
                       where, word(x), want_name, word(y), got_name);
  }
  return "";
}

}  // namespace tsm::randgen
