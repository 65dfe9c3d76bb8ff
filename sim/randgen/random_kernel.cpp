// The constrained-random kernel generator (random_kernel.hpp states the rules that keep every
// kernel legal and deterministic).
//
// Register map of every kernel:
//   R0 global thread index, R1 linear thread index in the block, R2:R3 address of the thread's own
//   64-byte region of `out` (R3 = 0), R4 address of `in`, R5 byte offset of the thread's shared
//   slot (16 x tid); R6..R11 temporaries (written before read within one statement); R12.. the
//   value pool (the registers random instructions read and write); after the pool, six loop
//   registers (counter and trip count of three loop levels), written only by their loops.
// Predicates P0..P6 are all random state; a construct computes its own predicate right before use.
#include "randgen/random_kernel.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "isa/assembler.hpp"
#include "randgen/rng.hpp"
#include "runtime/runtime.hpp"

namespace tsm::randgen {

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names{"fp",     "convert", "mufu",  "wide",   "predication", "branch", "loop",
                                              "call",   "exit",    "global", "generic", "local",      "shared", "ldc",
                                              "atomic", "satomic", "vote",  "shfl",   "bred",  "wideload", "f16", "membar", "dp"};
  return names;
}

uint32_t parse_features(std::string_view list) {
  uint32_t mask = 0;
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t end = std::min(list.find(',', begin), list.size());
    const std::string_view item = list.substr(begin, end - begin);
    if (!item.empty()) {
      const auto& names = feature_names();
      const auto it = std::find(names.begin(), names.end(), item);
      if (it == names.end()) {
        std::string known;
        for (const auto& n : names) known += (known.empty() ? "" : " ") + n;
        throw std::invalid_argument(fmt::format("unknown feature '{}' (features: {})", item, known));
      }
      mask |= 1u << static_cast<unsigned>(it - names.begin());
    }
    begin = end + 1;
  }
  return mask;
}

namespace {

// Interesting 32-bit words: float specials and boundaries, f16 values in the low half, integer edges.
const std::vector<uint32_t> kSpecial32{
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3F000000, 0x40000000, 0x7F800000, 0xFF800000, 0x7FC00000,
    0xFFC00000, 0x7FFFFFFF, 0x7F800001, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x00400000, 0x7F7FFFFF,
    0xFF7FFFFF, 0x3F7FFFFF, 0x3F800001, 0x4B000000, 0x4B800000, 0x4B800001, 0x4EFFFFFF, 0x4F000000, 0xCF000000,
    0xCF000001, 0x4F7FFFFF, 0x4F800000, 0x5F000000, 0xDF000000, 0x5F7FFFFF, 0x40200000, 0xC0200000, 0x3FC00000,
    0x4AFFFFFF, 0x477FE000, 0x477FEFFF, 0x477FF000, 0x38800000, 0x387FFFFF, 0x33800000, 0x33000000, 0x33000001,
    0x40490FDB, 0x40C90FDB, 0x461C4000, 0x7149F2CA, 0x43000000, 0x42FFFFFF, 0xC2FC0000, 0xC3150000, 0xC3160000,
    0x00003C00, 0x00007C00, 0x00007E00, 0x00000001, 0x00007BFF, 0x0000FBFF, 0x00008000, 0x00003555, 0x3C007C00,
    0x00000000, 0x00000001, 0xFFFFFFFF, 0x0000FFFF, 0x00008000, 0x0000007F, 0x00000080, 0x000000FF, 0x00010000,
    0x7FFFFFFE, 0x80000000, 0x0000001F, 0x00000020, 0x00000021, 0xFFFFFFE0};

// Float immediates (binary32 with the low 12 bits zero, as the 20-bit B field holds them).
const std::vector<uint32_t> kFloatImm{0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3F000000, 0x40000000,
                                      0x40400000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F7FF000, 0x00800000,
                                      0x00400000, 0x00001000, 0x477FE000, 0x4B800000, 0x4F000000, 0xCF000000,
                                      0x4F800000, 0x5F000000, 0xDF000000, 0x3F7FF000, 0x3F801000, 0x42C80000,
                                      0xC2C80000, 0x3DCCC000, 0x40490000, 0x43000000, 0xC2FC0000, 0x3E800000};

const std::vector<uint32_t> kMufuArgs[6] = {
    // RCP
    {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001, 0x00400000, 0x7F7FFFFF, 0x3F800000,
     0x40000000, 0xC0800000, 0x3F800001, 0x00800000, 0x7E800000, 0x7E7FFFFF, 0xFE800001},
    // RSQ
    {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001, 0x00400000, 0x7F7FFFFF, 0x3F800000,
     0x40800000, 0xBF800000, 0x3F7FFFFF, 0x00800000, 0x40000000},
    // SIN
    {0x00000000, 0x80000000, 0x40490FDB, 0x40C90FDB, 0x461C4000, 0x7149F2CA, 0xC2C90000, 0x7F800000, 0x7FC00000,
     0x3A000000, 0x00000001, 0x3FC90FDB, 0x4B000001, 0xCB7FFFFF},
    // COS
    {0x00000000, 0x80000000, 0x40490FDB, 0x40C90FDB, 0x461C4000, 0x7149F2CA, 0xC2C90000, 0xFF800000, 0x7FC00000,
     0x3A000000, 0x3FC90FDB, 0x4B000001, 0x00800000},
    // EX2
    {0x43000000, 0x42FFFFFF, 0xC2FC0000, 0xC3150000, 0xC3160000, 0x3F000000, 0x80000000, 0x7F800000, 0xFF800000,
     0x7FC00000, 0x2EDBE6FF, 0xBF800000, 0x41200000, 0xC2FE0000, 0x00000001},
    // LG2
    {0x00000000, 0xBF800000, 0x3F800000, 0x40000000, 0x00000001, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000,
     0x3F7FFFFF, 0x3F800001, 0x80000000, 0x00400000, 0x3F000000}};

const char* const kRnd[] = {".RN", ".RZ", ".RM", ".RP"};
const char* const kIcmp[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
const char* const kFcmp[] = {"EQ", "NE", "LT", "LE", "GT", "GE", "EQU", "NEU", "LTU", "LEU", "GTU", "GEU", "NUM", "NAN"};
const char* const kBop[] = {"", ".AND", ".OR", ".XOR"};
const char* const kItype[] = {"U8", "S8", "U16", "S16", "U32", "S32", "U64", "S64"};
const char* const kMufu[] = {"RCP", "RSQ", "SIN", "COS", "EX2", "LG2"};
const char* const kMsz[] = {".U8", ".S8", ".U16", ".S16", "", ".64", ".128"};  // "" = 32
const unsigned kMszBytes[] = {1, 1, 2, 2, 4, 8, 16};
const char* const kPrmt[] = {"", ".F4E", ".B4E", ".RC8", ".ECL", ".ECR", ".RC16"};
const std::vector<std::string> kSafeSregs{"SR_TID_X",    "SR_TID_Y",    "SR_TID_Z",        "SR_NTID_X",
                                          "SR_NTID_Y",   "SR_NTID_Z",   "SR_CTAID_X",      "SR_CTAID_Y",
                                          "SR_NCTAID_X", "SR_NCTAID_Y", "SR_LANEID",       "SR_LANEMASK_EQ",
                                          "SR_LANEMASK_LT", "SR_LANEMASK_LE", "SR_LANEMASK_GT", "SR_LANEMASK_GE"};

// Layout constants.
constexpr uint32_t kOutStride = 64;     // bytes of `out` per thread: 16 checksum + 48 scratch
constexpr uint32_t kInBytes = 2048;     // `in`, a power of two
constexpr uint32_t kLocalBytes = 64;    // .local per thread
constexpr uint32_t kCntWords = 16;      // `cnt`: 10 32-bit counters, then 3 64-bit ones at bytes 40, 48, 56
constexpr uint32_t kShCnt32 = 6;        // shared counters: 6 32-bit, one 64-bit at +24
constexpr uint32_t kLoopRegs = 6;       // 3 levels x (counter, trip count)
constexpr unsigned kMaxLoopLevels = 3;
constexpr unsigned kMaxMult = 16;       // bound on the product of enclosing trip counts

// The operation a shared counter (global or shared memory) accepts: one commutative kind each.
enum class CtrOp { Add, AddF, MinU, MinS, MaxU, MaxS, MinF, MaxF, Inc, Dec, And, Or, Xor, Exch, Cas };
struct Counter {
  CtrOp op = CtrOp::Add;
  bool wide = false;
  uint64_t init = 0;
  uint64_t a = 0, b = 0;  // INC/DEC bound, EXCH value, CAS compare (a) and new value (b)
  // 32-bit ADD, AND, OR, XOR counters whose old values threads read, through bits every operation on
  // the counter leaves alone: its low 4 bits (ADD of multiples of 16) or low half (AND, OR, XOR).
  // Then no operation on the counter may touch those bits, or the old values depend on the order.
  bool observed = false;
};

struct Ctx {
  unsigned depth = 0;      // worst-case reconvergence-stack entries in use
  bool uniform = true;     // every live thread of the block is active here
  bool in_func = false;
  bool can_break = false;  // inside a PBK loop of this function: BRK is legal
  unsigned loops = 0;      // loop levels in use (the next loop takes this level)
  unsigned mult = 1;       // product of enclosing loop trip counts (dynamic size bound)
  unsigned nest = 0;       // structural nesting, for the statistics
};

struct Func {
  std::string name;
  unsigned depth = 0;      // worst-case stack entries the body pushes, beyond the call's RET entry
  unsigned loop_base = 0;  // loop level its loops start at: callable where ctx.loops <= loop_base
  unsigned mult = 1;       // dynamic multiplier inside (its loops)
  std::vector<std::string> lines;
};

std::string R(unsigned r) { return r == 255 ? "RZ" : fmt::format("R{}", r); }
std::string Pn(unsigned p) { return p == 7 ? "PT" : fmt::format("P{}", p); }

class Gen {
 public:
  Gen(uint64_t seed, const RandomOptions& o, const config::SmConfig& cfg)
      : cfg_(cfg), o_(o), rng_(seed), lay_(seed ^ 0x5EED1A7A0FF5E7ull) {
    k_.seed = seed;
    k_.config = cfg.name;
  }

  RandomKernel run();

 private:
  bool has(Feature f) const { return o_.has(f); }
  // Access size (index into kMsz) of a load from global memory.
  unsigned gload_sz() { return rng_.below(has(Feature::WideLoad) ? 7 : 5); }

  // ---- emission ----
  void emit(const std::string& line) {
    out_->push_back("    " + line);
    ++st_.instructions;
  }
  void label(const std::string& name) { out_->push_back(name + ":"); }
  std::string new_label() { return fmt::format("L{}", labels_++); }
  void note_depth(unsigned d) { cur_depth_max_ = std::max(cur_depth_max_, d); }
  void note_nest(unsigned n) { cur_nest_max_ = std::max(cur_nest_max_, n); }

  // ---- registers and operands ----
  unsigned rd() { return pool_lo_ + rng_.below(pool_n_); }
  unsigned rd2() { return pool_lo_ + 2 * rng_.below(pool_n_ / 2); }
  unsigned rd4() { return pool_lo_ + 4 * rng_.below(pool_n_ / 4); }
  unsigned rs() {
    const unsigned r = rng_.below(100);
    if (r < 72) return rd();
    if (r < 82) return loop_lo_ + rng_.below(kLoopRegs);
    if (r < 90) return rng_.below(2);
    if (r < 94) return 255;
    static const unsigned fixed[] = {2, 4, 5};
    return fixed[rng_.below(3)];
  }
  unsigned rs2() {
    const unsigned r = rng_.below(100);
    if (r < 85) return rd2();
    if (r < 95) return loop_lo_ + 2 * rng_.below(kLoopRegs / 2);
    return 2;
  }
  unsigned pred() { return rng_.below(7); }
  std::string ps() { return fmt::format("{}{}", rng_.pct(30) ? "!" : "", rng_.pct(10) ? "PT" : Pn(pred())); }
  std::string guard() {
    if (!has(Feature::Predication) || !rng_.pct(15)) return "";
    return fmt::format("@{}{} ", rng_.pct(40) ? "!" : "", Pn(pred()));
  }
  std::string imm_int() {
    const unsigned r = rng_.below(100);
    if (r < 40) return fmt::format("{}", rng_.range(-64, 64));
    if (r < 70) {
      static const std::vector<int> edges{0, 1, -1, 2, 31, 32, 33, 0x7FFFF, -0x80000, 0xFF, 0xFFFF, 0x8000, 0x10000, 16, 24, 63, -32};
      return fmt::format("{}", rng_.pick(edges));
    }
    return fmt::format("{}", rng_.range(-0x80000, 0x7FFFF));
  }
  std::string cconst() {
    if (!has(Feature::Ldc)) return imm_int();
    return rng_.pct(60) ? fmt::format("c[0][tab+{}]", 4 * rng_.below(16)) : fmt::format("c[2][ctab+{}]", 4 * rng_.below(16));
  }
  std::string b_int() {
    const unsigned r = rng_.below(100);
    if (r < 55) return R(rs());
    if (r < 82) return imm_int();
    return cconst();
  }
  std::string fimm() { return fmt::format("0f{:08X}", rng_.pct(80) ? rng_.pick(kFloatImm) : rng_.u32() & 0xFFFFF000u); }
  // A float B operand; `dec` allows -x and |x| on registers and constants.
  std::string b_f32(bool neg, bool abs) {
    const unsigned r = rng_.below(100);
    if (r < 25) return fimm();
    std::string x = r < 80 ? R(rs()) : cconst();
    if (x[0] != 'R' && x[0] != 'c') return x;  // an integer immediate stands in when constants are off
    return fdec(x, neg, abs);
  }
  std::string fdec(std::string x, bool neg, bool abs) {
    if (abs && rng_.pct(20)) x = "|" + x + "|";
    if (neg && rng_.pct(25)) x = "-" + x;
    return x;
  }
  std::string rnd() { return rng_.pct(40) ? "" : kRnd[rng_.below(4)]; }
  std::string ftz() { return rng_.pct(30) ? ".FTZ" : ""; }
  std::string sat() { return rng_.pct(15) ? ".SAT" : ""; }
  std::string sgn() { return rng_.pct(50) ? ".U32" : ".S32"; }
  std::string bsh() { return rng_.pct(60) ? fmt::format("{}", rng_.range(0, 40)) : R(rs()); }
  std::string bbf() {
    return rng_.pct(70) ? fmt::format("{}", (rng_.range(0, 36) << 8) | rng_.range(0, 36)) : R(rs());
  }

  // ---- straight-line instructions ----
  void alu_op();
  void alu_int();
  void alu_fp();
  void alu_cvt();
  void alu_dp();
  void alu_mufu();
  void setp();  // a predicate from data

  // ---- statements ----
  void block(const Ctx& c, int budget);
  int statement(const Ctx& c, int budget);
  void st_alu();
  int st_if(const Ctx& c, int budget);
  int st_loop(const Ctx& c, int budget);
  int st_dowhile(const Ctx& c, int budget);
  int st_call(const Ctx& c);
  int st_exit(const Ctx& c);
  void st_break(const Ctx& c);
  void st_ret(const Ctx& c);
  void st_gload();
  void st_gstore();
  void st_generic();
  void st_local();
  void st_ldc();
  void st_atomic();
  void st_private_atomic();
  void st_exchange(const Ctx& c);
  void st_shared_read();
  void st_shared_atomic(const Ctx& c);
  void st_vote();
  void st_shfl();
  void st_bred();

  void cond(unsigned p, bool block_uniform);
  void checksum(const std::string& g, bool with_preds);
  void global_addr_pair(const std::string& param, uint32_t offset);  // R6:R7 = param + offset
  uint32_t data_word(Rng& r);
  uint32_t data_word() { return data_word(rng_); }
  void make_counters();
  void emit_counter_atomic(const Counter& ctr, bool shared, uint32_t addr_off);
  void prologue();
  std::vector<std::string> make_flush();

  const config::SmConfig& cfg_;
  RandomOptions o_;
  Rng rng_;  // the code
  Rng lay_;  // launch shape, counters and buffer contents: independent of the code and of the options,
             // so that an edited kernel (--kernel-file) runs with the same launch and data
  RandomKernel k_;
  RandomStats st_;
  unsigned T_ = 0;                  // threads per block
  unsigned P2_ = 0;                 // exchange slots (a power of two >= T_)
  unsigned pool_lo_ = 12, pool_n_ = 8, loop_lo_ = 20;
  unsigned limit_ = 16;             // reconvergence-stack entries
  uint32_t xbytes_ = 0;             // exchange region bytes; shared counters follow
  bool shared_ = false;
  unsigned exits_left_ = 0;
  unsigned labels_ = 0;
  unsigned cur_depth_max_ = 0, cur_nest_max_ = 0;
  std::vector<std::string>* out_ = nullptr;
  std::vector<Func> funcs_;
  std::vector<Counter> gcnt_, scnt_;
  bool flush_used_ = false;
};

uint32_t Gen::data_word(Rng& r) {
  switch (r.below(10)) {
    case 0: case 1: case 2: return r.u32();
    case 3: case 4: case 5: return r.pick(kSpecial32);
    case 6: case 7: {
      const float f = static_cast<float>(static_cast<int>(r.below(2000001)) - 1000000) / 1000.0f;
      return std::bit_cast<uint32_t>(f);
    }
    case 8: return static_cast<uint32_t>(r.range(-20, 20));
    default: return (r.u32() & 0x807FFFFFu) | static_cast<uint32_t>(r.range(97, 157)) << 23;
  }
}

// ---- straight-line instructions -------------------------------------------------------------------

void Gen::alu_op() {
  unsigned w_int = 55, w_fp = has(Feature::Fp) ? 25 : 0, w_cvt = has(Feature::Convert) ? 12 : 0,
           w_mufu = has(Feature::Mufu) ? 7 : 0, w_dp = has(Feature::Dp) && cfg_.dp_units > 0 ? 14 : 0;
  unsigned r = rng_.below(w_int + w_fp + w_cvt + w_mufu + w_dp);
  if (r < w_int) return alu_int();
  r -= w_int;
  if (r < w_dp) return alu_dp();
  r -= w_dp;
  if (r < w_fp) return alu_fp();
  r -= w_fp;
  if (r < w_cvt) return alu_cvt();
  alu_mufu();
}

void Gen::alu_int() {
  const std::string g = guard();
  switch (rng_.below(21)) {
    case 0: {
      const std::string b = b_int();
      emit(fmt::format("{}IADD{} {}, {}, {}{}", g, sat(), R(rd()), R(rs()), b[0] != '-' && rng_.pct(30) ? "-" : "", b));
      break;
    }
    case 1: {  // a carry chain of two or three words
      const unsigned pc = pred();
      const bool sub = rng_.pct(40);
      const std::string n = sub ? "-" : "";
      emit(fmt::format("{}IADD.CC {}, {}, {}{}, {}", g, R(rd()), R(rs()), n, R(rs()), Pn(pc)));
      const bool third = rng_.pct(30);
      emit(fmt::format("{}IADD.X{} {}, {}, {}{}, {}", g, third ? ".CC" : "", R(rd()), R(rs()), n, R(rs()), Pn(pc)));
      if (third) emit(fmt::format("{}IADD.X{} {}, {}, {}{}, {}", g, sat(), R(rd()), R(rs()), n, b_int(), Pn(pc)));
      break;
    }
    case 2:
    case 3: {
      const bool mad = rng_.pct(50);
      const unsigned w = rng_.below(has(Feature::Wide) ? 4 : 3);  // 0 default, LO, HI, WIDE
      const char* part = w == 0 ? "" : w == 1 ? ".LO" : w == 2 ? ".HI" : ".WIDE";
      const unsigned d = w == 3 ? rd2() : rd();
      if (!mad) emit(fmt::format("{}IMUL{}{} {}, {}, {}", g, part, sgn(), R(d), R(rs()), b_int()));
      else emit(fmt::format("{}IMAD{}{} {}, {}, {}, {}", g, part, sgn(), R(d), R(rs()), b_int(), R(w == 3 ? rs2() : rs())));
      break;
    }
    case 4: emit(fmt::format("{}SHL {}, {}, {}", g, R(rd()), R(rs()), bsh())); break;
    case 5: emit(fmt::format("{}SHR{} {}, {}, {}", g, sgn(), R(rd()), R(rs()), bsh())); break;
    case 6:
      emit(fmt::format("{}SHF.{}{} {}, {}, {}, {}", g, rng_.pct(50) ? "L" : "R", rng_.pct(50) ? ".CLAMP" : ".WRAP", R(rd()),
                       R(rs()), bsh(), R(rs())));
      break;
    case 7: {
      static const char* ops[] = {"AND", "OR", "XOR", "PASS_B"};
      std::string b = b_int();
      if ((b[0] == 'R' || b[0] == 'c') && rng_.pct(25)) b = "~" + b;
      emit(fmt::format("{}LOP.{} {}, {}{}, {}", g, ops[rng_.below(4)], R(rd()), rng_.pct(25) ? "~" : "", R(rs()), b));
      break;
    }
    case 8: emit(fmt::format("{}LOP3 {}, {}, {}, {}, {:#x}", g, R(rd()), R(rs()), R(rs()), R(rs()), rng_.below(256))); break;
    case 9: emit(fmt::format("{}IMNMX.{}{} {}, {}, {}", g, rng_.pct(50) ? "MIN" : "MAX", sgn(), R(rd()), R(rs()), b_int())); break;
    case 10:
      emit(fmt::format("{}ISETP.{}{}{} {}, {}, {}, {}, {}", g, kIcmp[rng_.below(6)], sgn(), kBop[rng_.below(4)], Pn(pred()),
                       rng_.pct(40) ? "PT" : Pn(pred()), R(rs()), b_int(), ps()));
      break;
    case 11: emit(fmt::format("{}PLOP{} {}, {}, {}", g, kBop[rng_.below(4)], Pn(pred()), ps(), ps())); break;
    case 12: emit(fmt::format("{}SEL {}, {}, {}, {}", g, R(rd()), R(rs()), b_int(), ps())); break;
    case 13: {
      static const char* ops[] = {"POPC", "CLZ", "BREV"};
      emit(fmt::format("{}{} {}, {}", g, ops[rng_.below(3)], R(rd()), R(rs())));
      break;
    }
    case 14: emit(fmt::format("{}BFE{} {}, {}, {}", g, sgn(), R(rd()), R(rs()), bbf())); break;
    case 15: emit(fmt::format("{}BFI {}, {}, {}, {}", g, R(rd()), R(rs()), bbf(), R(rs()))); break;
    case 16: {
      const std::string sel = rng_.pct(60) ? fmt::format("{:#x}", rng_.below(0x10000)) : R(rs());
      emit(fmt::format("{}PRMT{} {}, {}, {}, {}", g, kPrmt[rng_.below(7)], R(rd()), R(rs()), sel, R(rs())));
      break;
    }
    case 17: emit(fmt::format("{}MOV {}, {}", g, R(rd()), b_int())); break;
    case 18:
      emit(fmt::format("{}MOV32I {}, {:#010x}", g, R(rd()), rng_.pct(60) ? rng_.pick(kSpecial32) : rng_.u32()));
      break;
    case 19: emit(fmt::format("{}S2R {}, {}", g, R(rd()), rng_.pick(kSafeSregs))); break;
    default: {  // a predicate from data, then maybe a guarded use
      setp();
      break;
    }
  }
}

void Gen::setp() {
  const std::string g = guard();
  if (has(Feature::Fp) && rng_.pct(40)) {
    emit(fmt::format("{}FSETP.{}{}{} {}, {}, {}, {}, {}", g, kFcmp[rng_.below(14)], ftz(), kBop[rng_.below(4)], Pn(pred()),
                     rng_.pct(40) ? "PT" : Pn(pred()), fdec(R(rs()), false, true), b_f32(false, true), ps()));
  } else {
    emit(fmt::format("{}ISETP.{}{}{} {}, {}, {}, {}, {}", g, kIcmp[rng_.below(6)], sgn(), kBop[rng_.below(4)], Pn(pred()),
                     rng_.pct(40) ? "PT" : Pn(pred()), R(rs()), b_int(), ps()));
  }
}

void Gen::alu_fp() {
  const std::string g = guard();
  switch (rng_.below(5)) {
    case 0:
      emit(fmt::format("{}FADD{}{}{} {}, {}, {}", g, rnd(), ftz(), sat(), R(rd()), fdec(R(rs()), true, true), b_f32(true, true)));
      break;
    case 1:
      emit(fmt::format("{}FMUL{}{}{} {}, {}{}, {}", g, rnd(), ftz(), sat(), R(rd()), rng_.pct(25) ? "-" : "", R(rs()),
                       b_f32(false, false)));
      break;
    case 2:
      emit(fmt::format("{}FFMA{}{}{} {}, {}{}, {}, {}{}", g, rnd(), ftz(), sat(), R(rd()), rng_.pct(25) ? "-" : "", R(rs()),
                       b_f32(false, false), rng_.pct(25) ? "-" : "", R(rs())));
      break;
    case 3:
      emit(fmt::format("{}FMNMX.{}{}{} {}, {}, {}", g, rng_.pct(50) ? "MIN" : "MAX", ftz(), rng_.pct(20) ? ".NAN" : "", R(rd()),
                       fdec(R(rs()), true, true), b_f32(true, true)));
      break;
    default: setp(); break;
  }
}

void Gen::alu_cvt() {
  const std::string g = guard();
  switch (rng_.below(3)) {
    case 0: {
      static const char* fmts[][2] = {{"F32", "F32"}, {"F16", "F32"}, {"F32", "F16"}, {"F16", "F16"}};
      const auto& f = fmts[has(Feature::F16) ? rng_.below(4) : 0];
      emit(fmt::format("{}F2F.{}.{}{}{}{}{} {}, {}", g, f[0], f[1], rng_.pct(40) ? ".RINT" : "", rnd(), ftz(), sat(), R(rd()),
                       fdec(R(rs()), true, true)));
      break;
    }
    case 1: {
      unsigned it = rng_.below(has(Feature::Wide) ? 8 : 6);
      const bool wide = it >= 6;
      emit(fmt::format("{}F2I.{}.{}{}{} {}, {}", g, kItype[it], has(Feature::F16) && rng_.pct(25) ? "F16" : "F32", kRnd[rng_.below(4)], ftz(),
                       R(wide ? rd2() : rd()), R(rs())));
      break;
    }
    default: {
      unsigned it = rng_.below(has(Feature::Wide) ? 8 : 6);
      const bool wide = it >= 6;
      emit(fmt::format("{}I2F.{}.{}{} {}, {}", g, has(Feature::F16) && rng_.pct(25) ? "F16" : "F32", kItype[it], rnd(), R(rd()), R(wide ? rs2() : rs())));
      break;
    }
  }
}

// binary64 on the DP unit: register pairs, 8-byte constants, or an immediate's top 20 bits.
void Gen::alu_dp() {
  const std::string g = guard();
  static const uint32_t tops[] = {0x3FF00, 0xBFF00, 0x7FF00, 0xFFF00, 0x7FF80, 0x00000, 0x80000, 0x00001,
                                  0x7FEFF, 0x43300, 0x41E00, 0x3FE00, 0x40000, 0xC3E00, 0x3CA00};
  const auto b64 = [&](bool neg, bool abs) {
    const unsigned r = rng_.below(100);
    if (r < 20) return fmt::format("0d{:05X}00000000000", rng_.pct(80) ? rng_.pick(std::vector<uint32_t>(std::begin(tops), std::end(tops)))
                                                                      : rng_.u32() & 0xFFFFFu);
    std::string x = R(rs2());
    if (r >= 82 && has(Feature::Ldc))
      x = rng_.pct(60) ? fmt::format("c[0][tab+{}]", 8 * rng_.below(8)) : fmt::format("c[2][ctab+{}]", 8 * rng_.below(8));
    return fdec(x, neg, abs);
  };
  const auto minus = [&] { return rng_.pct(25) ? "-" : ""; };
  switch (rng_.below(8)) {
    case 0: emit(fmt::format("{}DADD{} {}, {}, {}", g, rnd(), R(rd2()), fdec(R(rs2()), true, true), b64(true, true))); break;
    case 1: emit(fmt::format("{}DMUL{} {}, {}{}, {}", g, rnd(), R(rd2()), minus(), R(rs2()), b64(false, false))); break;
    case 2:
      emit(fmt::format("{}DFMA{} {}, {}{}, {}, {}{}", g, rnd(), R(rd2()), minus(), R(rs2()), b64(false, false), minus(), R(rs2())));
      break;
    case 3: emit(fmt::format("{}DMNMX.{} {}, {}, {}", g, rng_.pct(50) ? "MIN" : "MAX", R(rd2()), R(rs2()), b64(false, false))); break;
    case 4:
      emit(fmt::format("{}DSETP.{}{} {}, {}, {}, {}, {}", g, kFcmp[rng_.below(14)], kBop[rng_.below(4)], Pn(pred()),
                       rng_.pct(40) ? "PT" : Pn(pred()), fdec(R(rs2()), false, true), b64(false, true), ps()));
      break;
    case 5: {
      // Destination, source: at least one of them binary64.
      static const char* fmts[][2] = {{"F64", "F32"}, {"F32", "F64"}, {"F64", "F64"}, {"F64", "F16"}, {"F16", "F64"}};
      const auto& f = fmts[rng_.below(has(Feature::F16) ? 5 : 3)];
      const std::string dst = std::string(f[0]) == "F64" ? R(rd2()) : R(rd());
      const std::string src = std::string(f[1]) == "F64" ? R(rs2()) : R(rs());
      emit(fmt::format("{}F2F.{}.{}{}{}{}{} {}, {}", g, f[0], f[1], rng_.pct(40) ? ".RINT" : "", rnd(), ftz(), sat(), dst,
                       fdec(src, true, true)));
      break;
    }
    case 6: {
      const unsigned it = rng_.below(has(Feature::Wide) ? 8 : 6);
      emit(fmt::format("{}F2I.{}.F64{}{} {}, {}", g, kItype[it], kRnd[rng_.below(4)], ftz(), R(it >= 6 ? rd2() : rd()), R(rs2())));
      break;
    }
    default: {
      const unsigned it = rng_.below(has(Feature::Wide) ? 8 : 6);
      emit(fmt::format("{}I2F.F64.{}{} {}, {}", g, kItype[it], rnd(), R(rd2()), R(it >= 6 ? rs2() : rs())));
      break;
    }
  }
}

void Gen::alu_mufu() {
  const unsigned fn = rng_.below(6);
  const unsigned d = rd();
  if (rng_.pct(45)) {
    emit(fmt::format("MOV32I {}, {:#010x}", R(d), rng_.pick(kMufuArgs[fn])));
    emit(fmt::format("{}MUFU.{}{} {}, {}", guard(), kMufu[fn], ftz(), R(d), R(d)));
  } else {
    emit(fmt::format("{}MUFU.{}{} {}, {}", guard(), kMufu[fn], ftz(), R(d), R(rs())));
  }
}

// Predicate `p` from data: thread-dependent, or block-uniform when asked.
void Gen::cond(unsigned p, bool block_uniform) {
  const std::string P = Pn(p);
  if (block_uniform) {
    switch (rng_.below(3)) {
      case 0:
        emit("S2R R6, SR_CTAID_X");
        emit(fmt::format("LOP.AND R6, R6, {}", rng_.range(1, 3)));
        emit(fmt::format("ISETP.{}.U32 {}, PT, R6, RZ", rng_.pct(50) ? "EQ" : "NE", P));
        break;
      case 1: emit(fmt::format("ISETP.{}.U32 {}, PT, RZ, c[0][tab+{}]", rng_.pct(50) ? "LT" : "GE", P, 4 * rng_.below(16))); break;
      default: emit(fmt::format("ISETP.LT.U32 {}, PT, RZ, {}", P, rng_.range(0, 1))); break;
    }
    return;
  }
  switch (rng_.below(7)) {
    case 0:
    case 1:
      emit(fmt::format("LOP.AND R6, {}, {}", R(rd()), 1u << rng_.below(8)));
      emit(fmt::format("ISETP.{}.U32 {}, PT, R6, RZ", rng_.pct(50) ? "EQ" : "NE", P));
      break;
    case 2: emit(fmt::format("ISETP.{}{} {}, PT, {}, {}", kIcmp[rng_.below(6)], sgn(), P, R(rd()), R(rs()))); break;
    case 3:
      if (has(Feature::Fp)) {
        emit(fmt::format("FSETP.{} {}, PT, {}, {}", kFcmp[rng_.below(14)], P, R(rd()), R(rs())));
        break;
      }
      [[fallthrough]];
    case 4: emit(fmt::format("ISETP.LT.U32 {}, PT, R1, {}", P, rng_.range(1, static_cast<int>(T_)))); break;
    case 5:
      emit("S2R R6, SR_LANEID");
      emit(fmt::format("LOP.AND R6, R6, {}", 1u << rng_.below(5)));
      emit(fmt::format("ISETP.NE.U32 {}, PT, R6, RZ", P));
      break;
    default: emit(fmt::format("PLOP{} {}, {}, {}", kBop[rng_.below(4)], P, ps(), ps())); break;
  }
}

// ---- statements ---------------------------------------------------------------------------------

void Gen::block(const Ctx& c, int budget) {
  note_depth(c.depth);
  note_nest(c.nest);
  while (budget > 0) budget -= std::max(1, statement(c, budget));
}

void Gen::st_alu() {
  const int n = rng_.range(1, 6);
  for (int i = 0; i < n; ++i) alu_op();
}

int Gen::statement(const Ctx& c, int budget) {
  const unsigned before = st_.instructions;
  struct Choice {
    unsigned weight;
    int kind;
  };
  std::vector<Choice> ch;
  const bool room_if = c.depth + 2 <= limit_ && budget >= 6;
  ch.push_back({34, 0});
  if (has(Feature::Branch) && room_if) ch.push_back({11, 1});
  if (has(Feature::Loop) && c.depth + 1 <= limit_ && c.loops < kMaxLoopLevels && c.mult * 2 <= kMaxMult && budget >= 8)
    ch.push_back({6, 2});
  if (has(Feature::Loop) && c.depth + 3 <= limit_ && c.loops < kMaxLoopLevels && c.mult * 3 <= kMaxMult && budget >= 8)
    ch.push_back({3, 3});
  if (has(Feature::Call) && !funcs_.empty()) ch.push_back({5, 4});
  if (has(Feature::Exit) && exits_left_ > 0) ch.push_back({2, 5});
  if (c.can_break) ch.push_back({3, 6});
  if (c.in_func) ch.push_back({2, 7});
  if (has(Feature::Global)) ch.push_back({7, 8}), ch.push_back({5, 9});
  if (has(Feature::Generic)) ch.push_back({3, 10});
  if (has(Feature::Local)) ch.push_back({3, 11});
  if (has(Feature::Ldc)) ch.push_back({3, 12});
  if (has(Feature::Atomic)) ch.push_back({4, 13}), ch.push_back({3, 14});
  if (shared_ && c.uniform) ch.push_back({5, 15});
  if (shared_) ch.push_back({3, 16});
  if (shared_ && has(Feature::SharedAtomic) && c.uniform) ch.push_back({3, 17});
  if (has(Feature::Vote)) ch.push_back({3, 18});
  if (has(Feature::Shfl) && c.uniform) ch.push_back({3, 19});
  if (has(Feature::Bred) && c.uniform) ch.push_back({2, 20});
  ch.push_back({1, 21});
  unsigned total = 0;
  for (const auto& x : ch) total += x.weight;
  unsigned r = rng_.below(total);
  int kind = 0;
  for (const auto& x : ch) {
    if (r < x.weight) {
      kind = x.kind;
      break;
    }
    r -= x.weight;
  }
  switch (kind) {
    case 0: st_alu(); break;
    case 1: return st_if(c, budget);
    case 2: return st_loop(c, budget);
    case 3: return st_dowhile(c, budget);
    case 4: return st_call(c);
    case 5: return st_exit(c);
    case 6: st_break(c); break;
    case 7: st_ret(c); break;
    case 8: st_gload(); break;
    case 9: st_gstore(); break;
    case 10: st_generic(); break;
    case 11: st_local(); break;
    case 12: st_ldc(); break;
    case 13: st_atomic(); break;
    case 14: st_private_atomic(); break;
    case 15: st_exchange(c); break;
    case 16: st_shared_read(); break;
    case 17: st_shared_atomic(c); break;
    case 18: st_vote(); break;
    case 19: st_shfl(); break;
    case 20: st_bred(); break;
    default:
      if (has(Feature::Membar) && rng_.pct(50)) emit(fmt::format("MEMBAR.{}", rng_.pick(std::vector<std::string>{"CTA", "GL", "SYS"})));
      else emit("NOP");
      break;
  }
  return static_cast<int>(st_.instructions - before);
}

// if/else through SSY/SYNC; the condition is thread-dependent (divergent) or block-uniform.
int Gen::st_if(const Ctx& c, int budget) {
  const unsigned before = st_.instructions;
  ++st_.ifs;
  const bool block_uniform = rng_.pct(15);
  const unsigned p = pred();
  cond(p, block_uniform);
  const std::string join = new_label(), other = new_label();
  Ctx in = c;
  in.depth = c.depth + 2;
  in.nest = c.nest + 1;
  in.uniform = c.uniform && block_uniform;
  const int inner = std::max(2, std::min(budget - 6, rng_.range(3, std::max(4, budget / 2))));
  const bool has_else = rng_.pct(65);
  emit(fmt::format("SSY {}", join));
  emit(fmt::format("@{}{} BRA {}", rng_.pct(50) ? "!" : "", Pn(p), other));
  block(in, has_else ? inner / 2 + 1 : inner);
  emit("SYNC");
  label(other);
  if (has_else) block(in, inner / 2 + 1);
  emit("SYNC");
  label(join);
  return static_cast<int>(st_.instructions - before);
}

// A PBK/BRK loop: uniform trip count (1..4, or per block) or per thread (from data).
int Gen::st_loop(const Ctx& c, int budget) {
  const unsigned before = st_.instructions;
  ++st_.loops;
  const unsigned lvl = c.loops;
  const unsigned lc = loop_lo_ + 2 * lvl, lt = lc + 1;
  const bool uniform_trip = rng_.pct(45);
  const unsigned max_trip = std::min(4u, kMaxMult / c.mult);
  if (uniform_trip) {
    if (rng_.pct(70)) {
      emit(fmt::format("MOV {}, {}", R(lt), rng_.range(1, static_cast<int>(max_trip))));
    } else {  // uniform within the block, different between blocks
      emit(fmt::format("S2R {}, SR_CTAID_X", R(lt)));
      emit(fmt::format("LOP.AND {}, {}, 1", R(lt), R(lt)));
      emit(fmt::format("IADD {}, {}, 1", R(lt), R(lt)));
    }
  } else {
    emit(fmt::format("LOP.AND {}, {}, {}", R(lt), R(rd()), max_trip >= 4 ? 3 : 1));
    if (rng_.pct(60)) emit(fmt::format("IADD {}, {}, 1", R(lt), R(lt)));  // else a trip count of 0 is possible
  }
  const bool down = rng_.pct(35);
  emit(down ? fmt::format("MOV {}, {}", R(lc), R(lt)) : fmt::format("MOV {}, RZ", R(lc)));
  const std::string head = new_label(), end = new_label();
  const unsigned p = pred();
  emit(fmt::format("PBK {}", end));
  label(head);
  if (down) emit(fmt::format("ISETP.EQ.U32 {}, PT, {}, RZ", Pn(p), R(lc)));
  else emit(fmt::format("ISETP.GE.U32 {}, PT, {}, {}", Pn(p), R(lc), R(lt)));
  emit(fmt::format("@{} BRK", Pn(p)));
  Ctx in = c;
  in.depth = c.depth + 1;
  in.loops = lvl + 1;
  in.mult = c.mult * max_trip;
  in.nest = c.nest + 1;
  in.uniform = c.uniform && uniform_trip;
  in.can_break = !in.uniform;  // a data-dependent break would split a uniform loop's warps
  block(in, std::max(2, std::min(budget - 8, rng_.range(3, std::max(4, budget / 2)))));
  emit(fmt::format("IADD {}, {}, {}", R(lc), R(lc), down ? -1 : 1));
  emit(fmt::format("BRA {}", head));
  label(end);
  return static_cast<int>(st_.instructions - before);
}

// A loop whose back edge is a divergent branch under an SSY: every iteration in which some threads
// leave pushes one entry, so the stack holds up to trip-1 of them.
int Gen::st_dowhile(const Ctx& c, int budget) {
  const unsigned before = st_.instructions;
  ++st_.loops;
  const unsigned lvl = c.loops;
  const unsigned lc = loop_lo_ + 2 * lvl, lt = lc + 1;
  emit(fmt::format("LOP.AND {}, {}, 1", R(lt), R(rd())));
  emit(fmt::format("IADD {}, {}, {}", R(lt), R(lt), rng_.range(1, 2)));  // 1..3 trips
  emit(fmt::format("MOV {}, RZ", R(lc)));
  const std::string head = new_label(), after = new_label();
  emit(fmt::format("SSY {}", after));
  label(head);
  Ctx in = c;
  in.depth = c.depth + 3;
  in.loops = lvl + 1;
  in.mult = c.mult * 3;
  in.nest = c.nest + 1;
  in.uniform = false;
  in.can_break = false;  // a BRK would target an outer loop across the pending entries; kept simple
  block(in, std::max(2, std::min(budget - 8, rng_.range(3, std::max(4, budget / 2)))));
  const unsigned p = pred();
  emit(fmt::format("IADD {}, {}, 1", R(lc), R(lc)));
  emit(fmt::format("ISETP.LT.U32 {}, PT, {}, {}", Pn(p), R(lc), R(lt)));
  emit(fmt::format("@{} BRA {}", Pn(p), head));
  emit("SYNC");
  label(after);
  return static_cast<int>(st_.instructions - before);
}

int Gen::st_call(const Ctx& c) {
  std::vector<const Func*> ok;
  for (const auto& f : funcs_)
    if (c.loops <= f.loop_base && c.depth + 1 + f.depth <= limit_ && c.mult * f.mult <= kMaxMult * 2) ok.push_back(&f);
  if (ok.empty()) {
    alu_op();
    return 1;
  }
  const Func& f = *rng_.pick(ok);
  ++st_.calls;
  note_depth(c.depth + 1 + f.depth);
  note_nest(c.nest + 1);
  emit(fmt::format("CAL {}", f.name));
  return 1;
}

// Some threads leave: by data, the block's tail, one warp, upper lanes or a whole block. They first
// store their checksum (through the flush subroutine or guarded inline code), or do not.
int Gen::st_exit(const Ctx& c) {
  const unsigned before = st_.instructions;
  --exits_left_;
  ++st_.exits;
  const unsigned p = pred();
  const std::string P = Pn(p);
  switch (rng_.below(5)) {
    case 0:
    case 1:
      emit(fmt::format("LOP.AND R6, {}, 7", R(rd())));
      emit(fmt::format("ISETP.EQ.U32 {}, PT, R6, RZ", P));
      break;
    case 2: emit(fmt::format("ISETP.GE.U32 {}, PT, R1, {}", P, T_ - static_cast<unsigned>(rng_.range(1, std::max(1u, T_ / 4))))); break;
    case 3:
      emit("SHR.U32 R6, R1, 5");
      emit(fmt::format("ISETP.EQ.U32 {}, PT, R6, {}", P, rng_.below((T_ + 31) / 32)));
      break;
    default:
      if (rng_.pct(30)) {
        emit("S2R R6, SR_CTAID_X");
        emit(fmt::format("ISETP.EQ.U32 {}, PT, R6, {}", P, rng_.below(k_.grid.x)));
      } else {
        emit("S2R R6, SR_LANEID");
        emit(fmt::format("ISETP.GT.U32 {}, PT, R6, {}", P, rng_.range(20, 30)));
      }
      break;
  }
  const unsigned how = rng_.below(3);
  if (how == 0 && has(Feature::Call) && c.depth + 3 <= limit_) {
    flush_used_ = true;
    note_depth(c.depth + 3);
    const std::string stay = new_label(), join = new_label();
    emit(fmt::format("SSY {}", join));
    emit(fmt::format("@!{} BRA {}", P, stay));
    emit("CAL rk_flush");
    emit("EXIT");
    label(stay);
    emit("SYNC");
    label(join);
  } else if (how == 1) {
    checksum("@" + P + " ", false);
    emit(fmt::format("@{} EXIT", P));
  } else {
    emit(fmt::format("@{} EXIT", P));
  }
  return static_cast<int>(st_.instructions - before);
}

void Gen::st_break(const Ctx&) {
  const unsigned p = pred();
  emit(fmt::format("LOP.AND R6, {}, {}", R(rd()), 1u << rng_.below(6)));
  emit(fmt::format("ISETP.NE.U32 {}, PT, R6, RZ", Pn(p)));
  emit(fmt::format("@{} BRK", Pn(p)));
}

void Gen::st_ret(const Ctx&) {
  const unsigned p = pred();
  emit(fmt::format("LOP.AND R6, {}, {}", R(rd()), 1u << rng_.below(6)));
  emit(fmt::format("ISETP.NE.U32 {}, PT, R6, RZ", Pn(p)));
  emit(fmt::format("@{} RET", Pn(p)));
}

// R6:R7 = the 64-bit parameter `param` + offset (a register offset in R6 when offset is ~0u).
void Gen::global_addr_pair(const std::string& param, uint32_t offset) {
  if (offset == ~0u) emit(fmt::format("IADD.CC R6, R6, c[0][{}], P6", param));
  else emit(fmt::format("IADD.CC R6, RZ, c[0][{}], P6", param)), emit(fmt::format("IADD R6, R6, {}", offset));
  emit(fmt::format("IADD.X R7, RZ, c[0][{}+4], P6", param));
}

// Loads from the read-only input at per-thread, shared or data-dependent addresses.
void Gen::st_gload() {
  const unsigned n = rng_.range(1, 3);
  for (unsigned i = 0; i < n; ++i) {
    const unsigned sz = gload_sz();
    const unsigned bytes = kMszBytes[sz];
    switch (rng_.below(5)) {
      case 0: emit(fmt::format("LOP.AND R6, {}, {}", R(rs()), (kInBytes / 2 - 1) & ~(bytes - 1))); break;  // data
      case 1: emit(fmt::format("IMUL.U32 R6, R1, {}", bytes)), emit(fmt::format("LOP.AND R6, R6, {}", (kInBytes / 2 - 1) & ~(bytes - 1))); break;
      case 2: emit(fmt::format("SHR.U32 R6, R0, {}", rng_.range(1, 4))), emit(fmt::format("IMUL.U32 R6, R6, {}", bytes)),
              emit(fmt::format("LOP.AND R6, R6, {}", (kInBytes / 2 - 1) & ~(bytes - 1))); break;  // lanes share addresses
      case 3: emit(fmt::format("MOV R6, {}", rng_.below(kInBytes / 2 / bytes) * bytes)); break;                 // one address
      default: emit(fmt::format("IMUL.U32 R6, R1, {}", bytes * rng_.range(2, 9))), emit(fmt::format("LOP.AND R6, R6, {}", (kInBytes / 2 - 1) & ~(bytes - 1))); break;
    }
    const uint32_t off = rng_.below(kInBytes / 2 / bytes) * bytes;  // the immediate offset keeps it in bounds
    const unsigned d = bytes == 16 ? rd4() : bytes == 8 ? rd2() : rd();
    const std::string g = guard();
    if (rng_.pct(50)) {
      emit("IADD R6, R6, R4");
      emit(fmt::format("{}LDG{} {}, [R6+{}]", g, kMsz[sz], R(d), off));
    } else {
      global_addr_pair("in", ~0u);
      emit(fmt::format("{}LDG{}.E {}, [R6+{}]", g, kMsz[sz], R(d), off));
    }
  }
}

// Stores to the thread's own scratch (bytes 16..63 of its region) and loads back from its region.
void Gen::st_gstore() {
  const unsigned n = rng_.range(1, 3);
  for (unsigned i = 0; i < n; ++i) {
    const bool load = rng_.pct(40);
    const unsigned sz = load ? gload_sz() : rng_.below(7);
    const unsigned bytes = kMszBytes[sz];
    const uint32_t lo = load ? 0 : 16;
    const uint32_t off = lo + rng_.below((kOutStride - lo) / bytes) * bytes;
    const bool e = rng_.pct(50);
    const std::string g = guard();
    if (load) {
      const unsigned d = bytes == 16 ? rd4() : bytes == 8 ? rd2() : rd();
      emit(fmt::format("{}LDG{}{} {}, [R2+{}]", g, kMsz[sz], e ? ".E" : "", R(d), off));
    } else {
      const unsigned s = bytes == 16 ? rd4() : bytes == 8 ? rs2() : rs();
      emit(fmt::format("{}STG{}{} [R2+{}], {}", g, kMsz[sz], e ? ".E" : "", off, R(s)));
    }
  }
}

// Generic LD/ST through the global address of the own region, the local window, or (loads only)
// the shared window.
void Gen::st_generic() {
  const unsigned where = rng_.below(shared_ ? 3 : 2);
  const bool load = rng_.pct(50);
  const unsigned sz = where == 0 && load ? gload_sz() : rng_.below(7);
  const unsigned bytes = kMszBytes[sz];
  const unsigned d = bytes == 16 ? rd4() : bytes == 8 ? rd2() : rd();
  const unsigned s = bytes == 16 ? rd4() : bytes == 8 ? rs2() : rs();
  const std::string g = guard();
  if (where == 0) {
    const uint32_t lo = load ? 0 : 16;
    const uint32_t off = lo + rng_.below((kOutStride - lo) / bytes) * bytes;
    const bool e = rng_.pct(50);
    if (load) emit(fmt::format("{}LD{}{} {}, [R2+{}]", g, kMsz[sz], e ? ".E" : "", R(d), off));
    else emit(fmt::format("{}ST{}{} [R2+{}], {}", g, kMsz[sz], e ? ".E" : "", off, R(s)));
  } else if (where == 1) {
    emit(fmt::format("LOP.AND R6, {}, {}", R(rs()), (kLocalBytes - 1) & ~(bytes - 1)));
    emit("IADD R6, R6, c[0][0xc]");
    if (load) emit(fmt::format("{}LD{} {}, [R6]", g, kMsz[sz], R(d)));
    else emit(fmt::format("{}ST{} [R6], {}", g, kMsz[sz], R(s)));
  } else {
    emit(fmt::format("LOP.AND R6, {}, {}", R(rs()), (xbytes_ - 1) & ~(bytes - 1)));
    emit("IADD R6, R6, c[0][0x8]");
    emit(fmt::format("{}LD{} {}, [R6]", g, kMsz[sz], R(d)));
  }
}

void Gen::st_local() {
  const unsigned n = rng_.range(1, 3);
  for (unsigned i = 0; i < n; ++i) {
    const unsigned sz = rng_.below(7);
    const unsigned bytes = kMszBytes[sz];
    std::string addr;
    if (rng_.pct(50)) {
      addr = fmt::format("[{}]", rng_.below(kLocalBytes / bytes) * bytes);
    } else {
      emit(fmt::format("LOP.AND R6, {}, {}", R(rs()), (kLocalBytes / 2 - 1) & ~(bytes - 1)));
      addr = fmt::format("[R6+{}]", rng_.below(kLocalBytes / 2 / bytes) * bytes);
    }
    const std::string g = guard();
    if (rng_.pct(50)) emit(fmt::format("{}STL{} {}, {}", g, kMsz[sz], addr, R(bytes == 16 ? rd4() : bytes == 8 ? rs2() : rs())));
    else emit(fmt::format("{}LDL{} {}, {}", g, kMsz[sz], R(bytes == 16 ? rd4() : bytes == 8 ? rd2() : rd()), addr));
  }
}

// LDC with a register index: the `tab` parameter in c[0], launch information, `ctab` in c[2].
void Gen::st_ldc() {
  const unsigned sz = rng_.below(7);
  const unsigned bytes = kMszBytes[sz];
  const unsigned d = bytes == 16 ? rd4() : bytes == 8 ? rd2() : rd();
  const std::string g = guard();
  switch (rng_.below(3)) {
    case 0:
      if (bytes == 16) {  // tab starts at c[0][0x38]: its 16-byte-aligned words are at tab+8 and tab+24
        emit(fmt::format("LOP.AND R6, {}, 16", R(rs())));
        emit(fmt::format("{}LDC.128 {}, c[0][R6+tab+8]", g, R(d)));
      } else {
        emit(fmt::format("LOP.AND R6, {}, {}", R(rs()), 63 & ~(bytes - 1)));
        emit(fmt::format("{}LDC{} {}, c[0][R6+tab]", g, kMsz[sz], R(d)));
      }
      break;
    case 1:
      emit(fmt::format("LOP.AND R6, {}, {}", R(rs()), 63 & ~(bytes - 1)));
      emit(fmt::format("{}LDC{} {}, c[2][R6+ctab]", g, kMsz[sz], R(d)));
      break;
    default:  // dynamic shared bytes, local bytes per thread
      emit(fmt::format("LOP.AND R6, {}, 4", R(rs())));
      emit(fmt::format("{}LDC {}, c[0][R6+0x10]", g, R(rd())));
      break;
  }
}

void Gen::make_counters() {
  unsigned made = 0;
  const auto one = [&](bool wide) {
    Counter c;
    c.wide = wide;
    c.observed = !wide && made++ % 2 == 0;
    static const std::vector<CtrOp> ops32{CtrOp::Add, CtrOp::Add, CtrOp::AddF, CtrOp::MinU, CtrOp::MinS, CtrOp::MaxU, CtrOp::MaxS,
                                          CtrOp::MinF, CtrOp::MaxF, CtrOp::Inc, CtrOp::Dec, CtrOp::And, CtrOp::Or, CtrOp::Xor,
                                          CtrOp::Exch, CtrOp::Cas};
    static const std::vector<CtrOp> ops64{CtrOp::Add, CtrOp::MinU, CtrOp::MinS, CtrOp::MaxU, CtrOp::MaxS,
                                          CtrOp::And, CtrOp::Or, CtrOp::Xor, CtrOp::Exch, CtrOp::Cas};
    c.op = lay_.pick(wide ? ops64 : ops32);
    c.init = wide ? (uint64_t{data_word(lay_)} << 32 | data_word(lay_)) : data_word(lay_);
    switch (c.op) {
      case CtrOp::AddF: c.init = std::bit_cast<uint32_t>(static_cast<float>(lay_.range(-100, 100))); break;
      case CtrOp::MinF:
      case CtrOp::MaxF:
        if ((c.init & 0x7F800000u) == 0x7F800000u && (c.init & 0x7FFFFFu)) c.init = 0x3F800000u;  // start from a number
        break;
      case CtrOp::Inc:
      case CtrOp::Dec:
        c.a = static_cast<uint64_t>(lay_.range(1, 1000));
        c.init = lay_.below(static_cast<uint32_t>(c.a) + 1);
        break;
      case CtrOp::Exch: c.a = wide ? (uint64_t{data_word(lay_)} << 32 | data_word(lay_)) : data_word(lay_); break;
      case CtrOp::Cas:
        c.a = wide ? (uint64_t{data_word(lay_)} << 32 | data_word(lay_)) : data_word(lay_);
        do c.b = wide ? (uint64_t{data_word(lay_)} << 32 | data_word(lay_)) : data_word(lay_);
        while (c.b == c.a);
        if (lay_.pct(70)) c.init = c.a;
        break;
      default: break;
    }
    return c;
  };
  for (unsigned i = 0; i < 10; ++i) gcnt_.push_back(one(false));
  for (unsigned i = 0; i < 3; ++i) gcnt_.push_back(one(true));
  for (unsigned i = 0; i < kShCnt32; ++i) scnt_.push_back(one(false));
  scnt_.push_back(one(true));
}

// An atomic on a shared counter whose address is in R6 (R6:R7 for .E): the counter's one operation,
// the old value discarded or used only through bits no other thread changes.
void Gen::emit_counter_atomic(const Counter& ctr, bool shared, uint32_t) {
  const std::string g = guard();
  const std::string mn = shared ? "ATOMS" : "ATOM";
  const std::string e = (!shared && rng_.pct(50)) ? ".E" : "";
  const std::string wt = ctr.wide ? (rng_.pct(50) ? ".U64" : ".S64") : "";
  const auto set64 = [&](unsigned r, uint64_t v) {
    emit(fmt::format("MOV32I {}, {:#010x}", R(r), static_cast<uint32_t>(v)));
    if (ctr.wide) emit(fmt::format("MOV32I {}, {:#010x}", R(r + 1), static_cast<uint32_t>(v >> 32)));
  };
  switch (ctr.op) {
    case CtrOp::Add:
      if (ctr.observed) {  // old & 15 does not depend on the order: every addend is a multiple of 16
        emit(fmt::format("SHL R8, {}, 4", R(rs())));
        if (rng_.pct(50)) {
          emit(fmt::format("{}{}.ADD.{}{} R9, [R6], R8", g, mn, rng_.pct(50) ? "U32" : "S32", e));
          emit(fmt::format("{}LOP.AND {}, R9, 15", g, R(rd())));
        } else {
          emit(fmt::format("{}{}.ADD.{}{} RZ, [R6], R8", g, mn, rng_.pct(50) ? "U32" : "S32", e));
        }
      } else {
        emit(fmt::format("{}{}.ADD{}{} RZ, [R6], {}", g, mn, ctr.wide ? wt : (rng_.pct(50) ? ".U32" : ".S32"), e,
                         ctr.wide ? R(rs2()) : b_int()));
      }
      break;
    case CtrOp::AddF:  // small integers: every sum is exact in any order
      emit(fmt::format("BFE.S32 R8, {}, {:#x}", R(rs()), 0x400 | rng_.below(28)));
      emit("I2F.F32.S32 R8, R8");
      emit(fmt::format("{}{}.ADD.F32{} RZ, [R6], R8", g, mn, e));
      break;
    case CtrOp::MinU:
    case CtrOp::MinS:
    case CtrOp::MaxU:
    case CtrOp::MaxS: {
      const bool mn_ = ctr.op == CtrOp::MinU || ctr.op == CtrOp::MinS;
      const bool s = ctr.op == CtrOp::MinS || ctr.op == CtrOp::MaxS;
      const std::string t = ctr.wide ? (s ? ".S64" : ".U64") : (s ? ".S32" : ".U32");
      emit(fmt::format("{}{}.{}{}{} RZ, [R6], {}", g, mn, mn_ ? "MIN" : "MAX", t, e, ctr.wide ? R(rs2()) : b_int()));
      break;
    }
    case CtrOp::MinF:
    case CtrOp::MaxF:
      emit(fmt::format("{}{}.{}.F32{} RZ, [R6], {}", g, mn, ctr.op == CtrOp::MinF ? "MIN" : "MAX", e, R(rs())));
      break;
    case CtrOp::Inc:
    case CtrOp::Dec:
      emit(fmt::format("{}{}.{}.U32{} RZ, [R6], {}", g, mn, ctr.op == CtrOp::Inc ? "INC" : "DEC", e, ctr.a));
      break;
    case CtrOp::And:
    case CtrOp::Or:
    case CtrOp::Xor: {
      const char* op = ctr.op == CtrOp::And ? "AND" : ctr.op == CtrOp::Or ? "OR" : "XOR";
      const std::string t = ctr.wide ? wt : (rng_.pct(50) ? ".U32" : ".S32");
      if (ctr.observed) {  // the low half of the old value is the initial one in any order
        emit(ctr.op == CtrOp::And ? fmt::format("LOP.OR R8, {}, 0xffff", R(rs())) : fmt::format("LOP.AND R8, {}, -65536", R(rs())));
        if (rng_.pct(50)) {
          emit(fmt::format("{}{}.{}{}{} R9, [R6], R8", g, mn, op, t, e));
          emit(fmt::format("{}LOP.AND {}, R9, 0xffff", g, R(rd())));
        } else {
          emit(fmt::format("{}{}.{}{}{} RZ, [R6], R8", g, mn, op, t, e));
        }
      } else {
        emit(fmt::format("{}{}.{}{}{} RZ, [R6], {}", g, mn, op, t, e, ctr.wide ? R(rs2()) : b_int()));
      }
      break;
    }
    case CtrOp::Exch:  // every thread swaps in the same value; the old values are discarded
      set64(8, ctr.a);
      emit(fmt::format("{}{}.EXCH{}{} {}, [R6], R8", g, mn, ctr.wide ? wt : ".U32", e, rng_.pct(50) ? "RZ" : "R10"));
      break;
    case CtrOp::Cas:  // the same compare and new value everywhere: the first one wins, the rest compare unequal
      set64(8, ctr.a);
      set64(10, ctr.b);
      emit(fmt::format("{}{}{}{} RZ, [R6], R8, R10", g, shared ? "ATOMSCAS" : "ATOMCAS", ctr.wide ? wt : ".U32", e));
      break;
  }
}

// Atomics on the shared global counters (any control flow: nobody reads them during the kernel).
void Gen::st_atomic() {
  ++st_.atomics;
  const unsigned i = rng_.below(has(Feature::Wide) ? static_cast<uint32_t>(gcnt_.size()) : 10u);
  const uint32_t off = i < 10 ? 4 * i : 40 + 8 * (i - 10);
  global_addr_pair("cnt", off);
  emit_counter_atomic(gcnt_[i], false, off);
}

// Atomics on the thread's own scratch: every operation and type, the old value fully used.
void Gen::st_private_atomic() {
  ++st_.atomics;
  const bool wide = has(Feature::Wide) && rng_.pct(25);
  const uint32_t off = 16 + (wide ? 8 * rng_.below(6) : 4 * rng_.below(12));
  const bool e = rng_.pct(50);
  if (e) emit(fmt::format("IADD.CC R6, R2, {}, P6", off)), emit("IADD.X R7, R3, RZ, P6");
  else emit(fmt::format("IADD R6, R2, {}", off));
  const std::string E = e ? ".E" : "";
  const std::string g = guard();
  const unsigned d = wide ? rd2() : rd();
  if (rng_.pct(25)) {
    std::string cmp;
    if (rng_.pct(50)) {
      if (wide && !has(Feature::WideLoad)) {
        emit(fmt::format("LDG{} R8, [R2+{}]", E, off));
        emit(fmt::format("LDG{} R9, [R2+{}]", E, off + 4));
      } else {
        emit(fmt::format("LDG{}{} R8, [R2+{}]", wide ? ".64" : "", E, off));
      }
      cmp = "R8";
    } else {
      cmp = wide ? R(rs2()) : b_int();
    }
    static const char* t32[] = {".U32", ".S32", ".F32"};
    emit(fmt::format("{}ATOMCAS{}{} {}, [R6], {}, {}", g, wide ? (rng_.pct(50) ? ".U64" : ".S64") : t32[rng_.below(3)], E, R(d), cmp,
                     R(wide ? rs2() : rs())));
    return;
  }
  static const char* aops[] = {"ADD", "MIN", "MAX", "INC", "DEC", "EXCH", "AND", "OR", "XOR"};
  static const char* t32[] = {".U32", ".S32", ".F32"};
  emit(fmt::format("{}ATOM.{}{}{} {}, [R6], {}", g, aops[rng_.below(9)], wide ? (rng_.pct(50) ? ".U64" : ".S64") : t32[rng_.below(3)],
                   E, R(d), wide ? R(rs2()) : b_int()));
}

// An exchange phase: barrier, each thread writes its own slot, barrier, reads of other slots
// (conflict-free, conflicting, broadcast or data-dependent addresses).
void Gen::st_exchange(const Ctx&) {
  st_.barriers += 2;
  emit(fmt::format("BAR.SYNC {}", rng_.below(16)));
  const unsigned nw = rng_.range(1, 2);
  for (unsigned i = 0; i < nw; ++i) {
    const unsigned sz = rng_.below(7);
    const unsigned bytes = kMszBytes[sz];
    const unsigned s = bytes == 16 ? rd4() : bytes == 8 ? rs2() : rs();
    emit(fmt::format("{}STS{} [R5+{}], {}", guard(), kMsz[sz], rng_.below(16 / bytes) * bytes, R(s)));
  }
  emit(fmt::format("BAR.SYNC {}", rng_.below(16)));
  const unsigned nr = rng_.range(1, 3);
  for (unsigned i = 0; i < nr; ++i) st_shared_read();
}

void Gen::st_shared_read() {
  const unsigned sz = rng_.below(7);
  const unsigned bytes = kMszBytes[sz];
  const uint32_t mask = (xbytes_ - 1) & ~(bytes - 1);
  switch (rng_.below(6)) {
    case 0: emit(fmt::format("MOV R6, {}", rng_.below(xbytes_ / bytes) * bytes)); break;  // broadcast
    case 1: emit(fmt::format("IMUL.U32 R6, R1, {}", bytes)), emit(fmt::format("IADD R6, R6, {}", rng_.below(64) * bytes)),
            emit(fmt::format("LOP.AND R6, R6, {}", mask)); break;                          // consecutive words
    case 2: emit(fmt::format("IMUL.U32 R6, R1, {}", 4 * rng_.range(2, 17))),              // strided: bank conflicts
            emit(fmt::format("LOP.AND R6, R6, {}", mask)); break;
    case 3: emit(fmt::format("LOP.XOR R6, R1, {}", rng_.below(P2_))), emit("SHL R6, R6, 4"),
            emit(fmt::format("IADD R6, R6, {}", rng_.below(16 / bytes) * bytes)), emit(fmt::format("LOP.AND R6, R6, {}", mask)); break;
    case 4: emit(fmt::format("SHR.U32 R6, R1, {}", rng_.range(1, 3))), emit(fmt::format("IMUL.U32 R6, R6, {}", bytes)),
            emit(fmt::format("LOP.AND R6, R6, {}", mask)); break;                          // groups of lanes share a word
    default: emit(fmt::format("LOP.AND R6, {}, {}", R(rs()), mask)); break;               // data-dependent
  }
  emit(fmt::format("{}LDS{} {}, [R6]", guard(), kMsz[sz], R(bytes == 16 ? rd4() : bytes == 8 ? rd2() : rd())));
}

// Shared counters: barrier, atomics (ATOMS or ATOM through the shared window), barrier, reads.
void Gen::st_shared_atomic(const Ctx&) {
  ++st_.atomics;
  st_.barriers += 2;
  emit(fmt::format("BAR.SYNC {}", rng_.below(16)));
  const unsigned n = rng_.range(1, 3);
  std::vector<unsigned> used;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned c = rng_.below(has(Feature::Wide) ? static_cast<uint32_t>(scnt_.size()) : kShCnt32);
    used.push_back(c);
    const uint32_t addr = xbytes_ + (c < kShCnt32 ? 4 * c : 24);
    emit(fmt::format("MOV R6, {}", addr));
    const bool generic = has(Feature::Generic) && rng_.pct(25);
    if (generic) {
      emit("IADD R6, R6, c[0][0x8]");
      emit("MOV R7, RZ");
    }
    // ATOM through the shared window is ATOM on a generic address: emit_counter_atomic's global
    // form, without .E (R7 = 0 makes .E legal too).
    emit_counter_atomic(scnt_[c], !generic, addr);
  }
  emit(fmt::format("BAR.SYNC {}", rng_.below(16)));
  for (unsigned c : used) {
    const bool wide = scnt_[c].wide;
    emit(fmt::format("LDS{} {}, [{}]", wide ? ".64" : "", R(wide ? rd2() : rd()), xbytes_ + (c < kShCnt32 ? 4 * c : 24)));
  }
}

void Gen::st_vote() {
  ++st_.votes;
  static const char* modes[] = {"ALL", "ANY", "UNI"};
  std::string members;
  switch (rng_.below(4)) {
    case 0: members = "-1"; break;
    case 1: members = fmt::format("{:#x}", rng_.below(0x80000)); break;
    case 2: emit(fmt::format("MOV32I R7, {:#010x}", rng_.u32() | rng_.u32())); members = "R7"; break;
    default: members = has(Feature::Ldc) ? fmt::format("c[0][tab+{}]", 4 * rng_.below(16)) : "-1"; break;
  }
  emit(fmt::format("{}VOTE.{} {}, {}, {}, {}", guard(), modes[rng_.below(3)], rng_.pct(80) ? R(rd()) : "RZ", Pn(pred()), ps(), members));
}

// A shuffle where every live thread is active. Sources never lie beyond the block's last thread:
// for blocks of whole warps any clamp and segment mask is safe; otherwise the clamp is the warp's
// last existing lane, and segmented forms run only in segments that exist entirely.
void Gen::st_shfl() {
  ++st_.shfls;
  static const char* modes[] = {"IDX", "UP", "DOWN", "BFLY"};
  const unsigned mode = rng_.below(4);
  const std::string b = rng_.pct(60) ? fmt::format("{}", rng_.below(32)) : R(rs());
  const unsigned d = rd(), a = rs();
  const std::string pd = rng_.pct(50) ? "PT" : Pn(pred());
  std::string g;
  if (T_ % 32 == 0) {
    if (rng_.pct(40)) {
      emit(fmt::format("LOP.AND R7, {}, 0x1f1f", R(rs())));
    } else {
      const unsigned w = 1u << rng_.below(6);  // segment width 1..32
      emit(fmt::format("MOV R7, {:#x}", ((32 - w) << 8) | (mode == 1 ? 0 : w - 1)));
    }
  } else {
    const unsigned w = 1u << rng_.below(6);
    if (mode == 1) {
      emit(fmt::format("MOV R7, {:#x}", (32 - w) << 8));  // UP reads lower lanes only
    } else {
      // R8 = last existing lane of this warp = min(31, T - 1 - warp base)
      emit("LOP.AND R8, R1, -32");
      emit(fmt::format("MOV R9, {}", T_ - 1));
      emit("IADD R8, R9, -R8");
      emit("IMNMX.MIN.U32 R8, R8, 31");
      if (w == 32) {
        emit("MOV R7, R8");
      } else {
        emit(fmt::format("MOV R7, {:#x}", ((32 - w) << 8) | (w - 1)));
        const unsigned p = pred();
        emit("S2R R9, SR_LANEID");
        emit(fmt::format("LOP.OR R9, R9, {}", w - 1));
        emit(fmt::format("ISETP.LE.U32 {}, PT, R9, R8", Pn(p)));
        g = fmt::format("@{} ", Pn(p));
      }
    }
  }
  emit(fmt::format("{}SHFL.{} {}, {}, {}, {}, R7", g, modes[mode], R(d), pd, R(a), b));
}

void Gen::st_bred() {
  ++st_.barriers;
  static const char* ops[] = {"POPC", "AND", "OR"};
  emit(fmt::format("BRED.{} {}, {}, {}", ops[rng_.below(3)], R(rd()), rng_.below(16), ps()));
}

// R8 = multiply-add hash of the pool and loop registers, R9 = xor mix, R10 = the thread index,
// R11 = the predicates; stored as 128 bits at the start of the thread's region.
void Gen::checksum(const std::string& g, bool with_preds) {
  emit(fmt::format("{}MOV32I R8, 0x811c9dc5", g));
  emit(fmt::format("{}MOV R9, RZ", g));
  for (unsigned r = pool_lo_; r < loop_lo_ + kLoopRegs; ++r) {
    emit(fmt::format("{}IMAD.U32 R8, R8, 0x9e37, {}", g, R(r)));
    emit(fmt::format("{}LOP3 R9, R9, {}, R8, 0x96", g, R(r)));
  }
  emit(fmt::format("{}MOV R10, R0", g));
  emit(fmt::format("{}MOV R11, RZ", g));
  if (with_preds)
    for (unsigned p = 0; p < 7; ++p) emit(fmt::format("@P{} LOP.OR R11, R11, {}", p, 1u << p));
  emit(fmt::format("{}STG.128{} [R2], R8", g, rng_.pct(50) ? ".E" : ""));
}

std::vector<std::string> Gen::make_flush() {
  std::vector<std::string> lines;
  out_ = &lines;
  out_->push_back(".func rk_flush");
  checksum("", true);
  emit("RET");
  return lines;
}

void Gen::prologue() {
  const Dim3 b = k_.block, gr = k_.grid;
  emit("S2R R1, SR_TID_X");
  if (b.y > 1 || b.z > 1) {
    emit("S2R R6, SR_TID_Y");
    if (b.z > 1) {
      emit("S2R R8, SR_TID_Z");
      emit("S2R R9, SR_NTID_Y");
      emit("IMAD.U32 R6, R8, R9, R6");
    }
    emit("S2R R7, SR_NTID_X");
    emit("IMAD.U32 R1, R6, R7, R1");
  }
  emit("S2R R6, SR_CTAID_X");
  if (gr.y > 1) {
    emit("S2R R7, SR_CTAID_Y");
    emit("S2R R8, SR_NCTAID_X");
    emit("IMAD.U32 R6, R7, R8, R6");
  }
  emit(fmt::format("IMAD.U32 R0, R6, {}, R1", T_));
  emit(fmt::format("IMAD.WIDE.U32 R2, R0, {}, RZ", kOutStride));
  emit("IADD.CC R2, R2, c[0][out], P6");
  emit("IADD.X R3, R3, c[0][out+4], P6");
  emit("MOV R4, c[0][in]");
  emit("SHL R5, R1, 4");
  // Every pool quad from the input (a different stretch per quad), loop registers from the index.
  for (unsigned q = 0; q < pool_n_ / 4; ++q) {
    emit(fmt::format("IMUL.U32 R6, R0, {}", 16 * (2 * q + 1)));
    emit(fmt::format("IADD R6, R6, {}", 112 * q));
    emit(fmt::format("LOP.AND R6, R6, {}", kInBytes - 16));
    emit(fmt::format("IADD R6, R6, R4"));
    if (has(Feature::WideLoad)) {
      emit(fmt::format("LDG.128 {}, [R6]", R(pool_lo_ + 4 * q)));
    } else {
      for (unsigned w = 0; w < 4; ++w) emit(fmt::format("LDG {}, [R6+{}]", R(pool_lo_ + 4 * q + w), 4 * w));
    }
  }
  for (unsigned i = 0; i < kLoopRegs; ++i) emit(fmt::format("IADD {}, R0, {}", R(loop_lo_ + i), rng_.range(-100, 100)));
  // Predicates P0..P6 from the thread index and the data.
  for (unsigned p = 0; p < 7; ++p) {
    emit(fmt::format("LOP.AND R6, R0, {}", 1u << rng_.below(6)));
    emit(fmt::format("ISETP.NE.U32 P{}, PT, R6, RZ", p));
  }
  // Local memory: all 64 bytes.
  for (unsigned i = 0; i < kLocalBytes / 16; ++i) emit(fmt::format("STL.128 [{}], {}", 16 * i, R(rd4())));
  if (shared_) {
    emit(fmt::format("STS.128 [R5], {}", R(rd4())));
    if (P2_ > T_) {
      emit(fmt::format("ISETP.LT.U32 P6, PT, R1, {}", P2_ - T_));
      emit(fmt::format("@P6 STS.128 [R5+{}], {}", T_ * 16, R(rd4())));
    }
    // The shared counters: every thread writes the same initial values.
    for (unsigned c = 0; c < scnt_.size(); ++c) {
      const uint32_t addr = xbytes_ + (c < kShCnt32 ? 4 * c : 24);
      emit(fmt::format("MOV32I R8, {:#010x}", static_cast<uint32_t>(scnt_[c].init)));
      if (scnt_[c].wide) {
        emit(fmt::format("MOV32I R9, {:#010x}", static_cast<uint32_t>(scnt_[c].init >> 32)));
        emit(fmt::format("STS.64 [{}], R8", addr));
      } else {
        emit(fmt::format("STS [{}], R8", addr));
      }
    }
    emit("BAR.SYNC 0");
    ++st_.barriers;
  }
}

RandomKernel Gen::run() {
  limit_ = cfg_.stack_depth;
  // ---- launch shape ----
  const unsigned tmax = std::min(256u, cfg_.max_threads_per_block);
  T_ = lay_.pct(40) ? 32 * lay_.range(1, static_cast<int>(tmax / 32)) : static_cast<unsigned>(lay_.range(32, static_cast<int>(tmax)));
  Dim3 blk{T_, 1, 1};
  const unsigned shape = lay_.below(10);
  if (shape >= 7) {  // 2D or 3D when T_ factors
    std::vector<Dim3> shapes;
    for (unsigned y = 2; y <= 16; ++y) {
      if (T_ % y) continue;
      if (T_ / y <= cfg_.max_block_x && y <= cfg_.max_block_y) shapes.push_back({T_ / y, y, 1});
      for (unsigned z = 2; z <= 4; ++z)
        if ((T_ / y) % z == 0 && shape == 9 && T_ / y / z <= cfg_.max_block_x && z <= cfg_.max_block_z)
          shapes.push_back({T_ / y / z, y, z});
    }
    if (!shapes.empty()) blk = lay_.pick(shapes);
  }
  k_.block = blk;
  const unsigned nblocks = static_cast<unsigned>(lay_.range(1, 8));
  k_.grid = {nblocks, 1, 1};
  if (lay_.pct(25)) {
    std::vector<Dim3> grids;
    for (unsigned y = 2; y <= nblocks; ++y)
      if (nblocks % y == 0) grids.push_back({nblocks / y, y, 1});
    if (!grids.empty()) k_.grid = lay_.pick(grids);
  }
  P2_ = std::bit_ceil(T_);
  xbytes_ = P2_ * 16;
  shared_ = has(Feature::Shared);
  k_.shared_bytes = shared_ ? xbytes_ + 32 : 0;

  // ---- registers: R0..R11 fixed and temporaries, the pool, six loop registers ----
  const unsigned maxr = std::min(96u, max_regs_for_block(cfg_, blk));
  if (maxr < 12 + 8 + kLoopRegs) throw std::invalid_argument(fmt::format("block {} leaves too few registers", to_string(blk)));
  const unsigned pool_max = (maxr - 12 - kLoopRegs) / 4 * 4;
  pool_n_ = 4 * static_cast<unsigned>(rng_.range(2, static_cast<int>(std::min(pool_max, 32u) / 4)));
  loop_lo_ = pool_lo_ + pool_n_;
  const unsigned used = loop_lo_ + kLoopRegs;
  k_.regs = std::min(maxr, used + (rng_.pct(30) ? static_cast<unsigned>(rng_.range(0, 8)) : 0));

  make_counters();
  exits_left_ = has(Feature::Exit) ? static_cast<unsigned>(rng_.range(0, 3)) : 0;

  // ---- functions, last first (a function calls only later ones) ----
  const unsigned nfuncs = has(Feature::Call) ? static_cast<unsigned>(rng_.range(0, 3)) : 0;
  std::vector<Func> made;
  for (unsigned i = nfuncs; i-- > 0;) {
    Func f;
    f.name = fmt::format("f{}", i);
    f.loop_base = rng_.below(kMaxLoopLevels + 1);
    f.lines.push_back(".func " + f.name);
    out_ = &f.lines;
    cur_depth_max_ = 0;
    Ctx c;
    c.uniform = false;
    c.in_func = true;
    c.loops = f.loop_base;
    c.mult = 2;
    c.depth = 0;
    block(c, rng_.range(4, 24));
    emit("RET");
    f.depth = cur_depth_max_;
    f.mult = 2;
    funcs_.push_back(f);
    ++st_.functions;
  }
  st_.max_stack = 0;

  // ---- the kernel ----
  std::vector<std::string> body;
  out_ = &body;
  prologue();
  body.push_back("// ---- body");
  cur_depth_max_ = 0;
  cur_nest_max_ = 0;
  Ctx top;
  block(top, rng_.range(static_cast<int>(o_.min_size), static_cast<int>(o_.max_size)));
  body.push_back("// ---- epilogue");
  checksum("", true);
  emit("EXIT");
  st_.max_stack = cur_depth_max_;
  st_.max_nesting = cur_nest_max_;
  std::vector<std::string> flush;
  if (flush_used_) flush = make_flush();

  // ---- buffers and parameters ----
  RandomBuffer in{"in", {}}, out{"out", {}}, cnt{"cnt", {}};
  const uint32_t threads = static_cast<uint32_t>(k_.grid.count() * blk.count());
  for (uint32_t i = 0; i < kInBytes / 4; ++i) {
    const uint32_t w = data_word(lay_);
    for (unsigned b = 0; b < 4; ++b) in.init.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }
  for (uint32_t i = 0; i < threads * kOutStride / 4; ++i) {
    const uint32_t w = lay_.pct(50) ? 0 : data_word(lay_);
    for (unsigned b = 0; b < 4; ++b) out.init.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }
  cnt.init.assign(kCntWords * 4, 0);
  for (unsigned i = 0; i < gcnt_.size(); ++i) {
    const uint32_t off = i < 10 ? 4 * i : 40 + 8 * (i - 10);
    for (unsigned b = 0; b < (gcnt_[i].wide ? 8u : 4u); ++b) cnt.init[off + b] = static_cast<uint8_t>(gcnt_[i].init >> (8 * b));
  }
  k_.buffers = {in, out, cnt};
  for (unsigned i = 0; i < 16; ++i) {
    const uint32_t w = data_word(lay_);
    for (unsigned b = 0; b < 4; ++b) k_.table.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }

  // ---- text ----
  std::string src = fmt::format(
      "// random kernel: seed {} config {} grid {} block {} regs {} shared {}\n// reproduce: ./tsm random --seed {} --count 1 "
      "--config {}\n.version 1\n",
      k_.seed, cfg_.name, to_string(k_.grid), to_string(blk), k_.regs, k_.shared_bytes, k_.seed, cfg_.name);
  src += ".const ctab u32[16] =";
  for (unsigned i = 0; i < 16; ++i) src += fmt::format("{} {:#x}", i ? "," : "", data_word());
  src += fmt::format("\n.kernel {}\n.regs {}\n", k_.kernel_name, k_.regs);
  if (k_.shared_bytes) src += fmt::format(".shared {}\n", k_.shared_bytes);
  src += fmt::format(".local {}\n.param in u64\n.param out u64\n.param cnt u64\n.param tab bytes 64 8\n", kLocalBytes);
  for (const auto& l : body) src += l + "\n";
  for (auto it = funcs_.rbegin(); it != funcs_.rend(); ++it)
    for (const auto& l : it->lines) src += l + "\n";
  for (const auto& l : flush) src += l + "\n";
  k_.source = std::move(src);
  k_.stats = st_;
  k_.description = fmt::format(
      "grid {} block {} regs {} pool {}: {} insns, nesting {}, stack {}, {} ifs, {} loops, {} calls of {} funcs, {} exits, "
      "{} barriers, {} atomics, {} votes, {} shfls",
      to_string(k_.grid), to_string(blk), k_.regs, pool_n_, st_.instructions, st_.max_nesting, st_.max_stack, st_.ifs, st_.loops,
      st_.calls, st_.functions, st_.exits, st_.barriers, st_.atomics, st_.votes, st_.shfls);
  return k_;
}

}  // namespace

RandomKernel generate(uint64_t seed, const RandomOptions& options) {
  const config::SmConfig* cfg = config::find_config(options.config);
  if (!cfg) throw std::invalid_argument(fmt::format("unknown configuration '{}'", options.config));
  return Gen(seed, options, *cfg).run();
}

RandomRun run_module(Runtime& rt, Module module, const std::string& kernel_name, Dim3 grid, Dim3 block,
                     const std::vector<RandomBuffer>& buffers, const std::vector<std::vector<uint8_t>>& values) {
  const auto id = rt.load_module(std::move(module));
  std::vector<DevicePtr> ptrs;
  const auto release = [&] {
    for (DevicePtr p : ptrs) {
      try {
        rt.free(p);
      } catch (...) {
      }
    }
  };
  RandomRun run;
  try {
    // Unmapped 4 KiB holes between the buffers: an access beyond a buffer faults instead of
    // landing in its neighbour (which would hide a generator bug, or a reduction that broke an
    // address, behind a race).
    KernelArgs args;
    std::vector<DevicePtr> holes;
    for (const auto& b : buffers) {
      const DevicePtr p = rt.malloc(static_cast<uint32_t>(b.init.size()));
      ptrs.push_back(p);
      holes.push_back(rt.malloc(4096));
      rt.memcpy_to_device(p, b.init);
      args.ptr(p);
    }
    for (DevicePtr h : holes) rt.free(h);
    for (const auto& v : values) args.bytes(v);
    run.stats = rt.launch(id, kernel_name, grid, block, args).stats;
    for (size_t i = 0; i < buffers.size(); ++i) {
      std::vector<uint8_t> data(buffers[i].init.size());
      rt.memcpy_to_host(data, ptrs[i]);
      run.buffers.push_back(std::move(data));
    }
  } catch (...) {
    release();
    throw;
  }
  release();
  return run;
}

RandomRun run_kernel(Runtime& rt, const RandomKernel& kernel, std::string_view source_override) {
  const std::string_view src = source_override.empty() ? std::string_view(kernel.source) : source_override;
  return run_module(rt, assemble(src, fmt::format("random-{}.tsa", kernel.seed)), kernel.kernel_name, kernel.grid, kernel.block,
                    kernel.buffers, {kernel.table});
}

}  // namespace tsm::randgen
