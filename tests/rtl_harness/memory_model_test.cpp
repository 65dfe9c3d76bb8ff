// The memory model behind the GPU's memory port: timing (latency, channel occupancy, response
// order), semantics (perform at acceptance, byte masks, bounds) and every atomic, by hand and
// against the golden model running the same atomics as kernels.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>
#include <random>

#include "isa/assembler.hpp"
#include "isa/isa.hpp"
#include "rtl/memory_model.hpp"
#include "runtime/runtime.hpp"

namespace {

using namespace tsm;
using rtl::MemoryModel;
using rtl::MemRequest;
namespace g = isa::gen;

constexpr uint32_t kBase = 0x1000;

MemRequest read_line(uint32_t addr, uint32_t id = 0, uint16_t mask = 0) {
  MemRequest r;
  r.id = id;
  r.kind = rtl::kMemRead;
  r.addr = addr;
  r.mask = mask;
  return r;
}

MemRequest write_line(uint32_t addr, uint16_t mask, std::array<uint32_t, 4> data, uint32_t id = 0) {
  MemRequest r;
  r.id = id;
  r.kind = rtl::kMemWrite;
  r.addr = addr;
  r.mask = mask;
  r.data = data;
  return r;
}

MemRequest atomic(uint32_t addr, g::Aop aop, g::Atype type, uint64_t b, uint64_t swap = 0, bool cas = false, uint32_t id = 0) {
  MemRequest r;
  r.id = id;
  r.kind = rtl::kMemAtomic;
  r.addr = addr;
  r.atom = rtl::atom_bits(cas, static_cast<unsigned>(type), static_cast<unsigned>(aop));
  r.data = {static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), static_cast<uint32_t>(swap), static_cast<uint32_t>(swap >> 32)};
  return r;
}

uint32_t f2u(float f) { return std::bit_cast<uint32_t>(f); }

// Accept at `cycle` and wait for the response; returns it and the cycle it was offered.
std::pair<rtl::MemResponse, uint64_t> transact(MemoryModel& m, const MemRequest& r, uint64_t& cycle) {
  while (!m.ready(cycle)) ++cycle;
  m.accept(r, cycle);
  for (;; ++cycle) {
    if (auto resp = m.response(cycle)) {
      m.pop();
      return {*resp, cycle};
    }
  }
}

TEST(MemoryModel, ResponseComesExactlyLatencyClocksAfterAcceptance) {
  for (uint32_t latency : {1u, 2u, 20u, 400u}) {
    MemoryModel m(latency, 16);
    m.map(kBase, 64);
    m.accept(read_line(kBase, 7), 100);
    for (uint64_t c = 100; c < 100 + latency; ++c) EXPECT_FALSE(m.response(c)) << "latency " << latency << " clock " << c;
    const auto r = m.response(100 + latency);
    ASSERT_TRUE(r) << latency;
    EXPECT_EQ(r->id, 7u);
    EXPECT_FALSE(r->write);
    EXPECT_FALSE(r->err);
    // Offered until popped.
    EXPECT_TRUE(m.response(100 + latency + 5));
    m.pop();
    EXPECT_FALSE(m.response(100 + latency + 5));
    EXPECT_EQ(m.outstanding(), 0u);
  }
}

TEST(MemoryModel, ChannelOccupancyFollowsBytesPerClock) {
  // A line occupies ceil(16 / b) clocks, an atomic ceil(8 / b).
  const std::pair<uint32_t, std::pair<uint32_t, uint32_t>> cases[] = {
      {1, {16, 8}}, {2, {8, 4}}, {4, {4, 2}}, {8, {2, 1}}, {16, {1, 1}}, {32, {1, 1}}, {128, {1, 1}}};
  for (const auto& [bpc, busy] : cases) {
    MemoryModel m(10, bpc);
    m.map(kBase, 64);
    ASSERT_TRUE(m.ready(50));
    m.accept(read_line(kBase), 50);
    for (uint64_t c = 50; c < 50 + busy.first; ++c) EXPECT_FALSE(m.ready(c)) << bpc << " B/clk, clock " << c;
    EXPECT_TRUE(m.ready(50 + busy.first)) << bpc;
    m.accept(atomic(kBase, g::Aop::ADD, g::Atype::U32, 1), 50 + busy.first);
    for (uint64_t c = 50 + busy.first; c < 50 + busy.first + busy.second; ++c) EXPECT_FALSE(m.ready(c)) << bpc;
    EXPECT_TRUE(m.ready(50 + busy.first + busy.second)) << bpc;
    EXPECT_THROW(m.accept(read_line(kBase), 50 + busy.first + busy.second - 1), std::logic_error) << bpc;
  }
}

TEST(MemoryModel, BackToBackRequestsAtFullBandwidthAnswerInOrder) {
  MemoryModel m(5, 4);  // a line every 4 clocks
  m.map(kBase, 256);
  uint64_t cycle = 0;
  std::vector<std::pair<uint32_t, uint64_t>> seen;
  uint32_t next_id = 0;
  for (; cycle < 200; ++cycle) {
    if (next_id < 10 && m.ready(cycle)) m.accept(read_line(kBase + 16 * next_id, next_id), cycle), ++next_id;
    if (auto r = m.response(cycle)) {
      seen.emplace_back(r->id, cycle);
      m.pop();
    }
  }
  ASSERT_EQ(seen.size(), 10u);
  for (uint32_t i = 0; i < 10; ++i) {
    EXPECT_EQ(seen[i].first, i);
    EXPECT_EQ(seen[i].second, 4 * i + 5);  // accepted at 4i, answered 5 later
  }
  EXPECT_EQ(m.counters().requests, 10u);
  EXPECT_EQ(m.counters().reads, 10u);
  EXPECT_EQ(m.counters().bytes, 160u);
}

TEST(MemoryModel, SimultaneouslyDueResponsesComeInAcceptanceOrder) {
  MemoryModel m(3, 16);
  m.map(kBase, 256);
  m.accept(read_line(kBase, 1), 0);
  m.accept(write_line(kBase, 1, {0, 0, 0, 0}, 2), 1);
  m.accept(read_line(kBase, 3), 2);
  std::vector<uint32_t> ids;
  while (auto r = m.response(100)) {  // all due long ago: oldest first
    ids.push_back(r->id);
    m.pop();
  }
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 2, 3}));
}

TEST(MemoryModel, PerformsAtAcceptanceSoAStoreThenLoadReadsTheStore) {
  MemoryModel m(50, 16);
  m.map(kBase, 64);
  m.accept(write_line(kBase, 0x00F0, {0, 0xCAFEF00D, 0, 0}, 1), 0);
  m.accept(read_line(kBase, 2), 1);  // accepted before the write's response: still sees it
  m.accept(write_line(kBase, 0x00F0, {0, 0x12345678, 0, 0}, 3), 2);
  std::vector<rtl::MemResponse> rs;
  for (uint64_t c = 0; c < 100; ++c)
    if (auto r = m.response(c)) rs.push_back(*r), m.pop();
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_TRUE(rs[0].write);
  EXPECT_EQ(rs[1].id, 2u);
  EXPECT_EQ(rs[1].data[1], 0xCAFEF00Du);  // the later write did not leak into the earlier read
  EXPECT_TRUE(rs[2].write);
  std::array<uint8_t, 4> b{};
  m.read(kBase + 4, b);
  EXPECT_EQ(b, (std::array<uint8_t, 4>{0x78, 0x56, 0x34, 0x12}));
}

TEST(MemoryModel, WritesOnlyTheMaskedBytes) {
  MemoryModel m(1, 16);
  m.map(kBase, 16);
  std::vector<uint8_t> init(16);
  for (unsigned i = 0; i < 16; ++i) init[i] = static_cast<uint8_t>(0xA0 + i);
  m.write(kBase, init);
  uint64_t cycle = 0;
  auto [resp, when] = transact(m, write_line(kBase, 0b1000'0001'0010'0100, {0x03020100, 0x07060504, 0x0B0A0908, 0x0F0E0D0C}), cycle);
  EXPECT_TRUE(resp.write);
  EXPECT_FALSE(resp.err);
  std::vector<uint8_t> now(16);
  m.read(kBase, now);
  for (unsigned i = 0; i < 16; ++i) {
    const bool written = i == 2 || i == 5 || i == 8 || i == 15;
    EXPECT_EQ(now[i], written ? i : 0xA0 + i) << "byte " << i;
  }
  // A read returns the line, byte i in bits [8i+7:8i].
  auto [rd, t] = transact(m, read_line(kBase), cycle);
  EXPECT_EQ(rd.data[0], 0xA302A1A0u);
  EXPECT_EQ(rd.data[3], 0x0FAEADACu);
}

TEST(MemoryModel, AccessesOutsideEveryAllocationGetErrAndDoNothing) {
  MemoryModel m(2, 16);
  m.map(kBase, 20);  // bytes kBase .. kBase+19: the second line is partly allocated
  uint64_t cycle = 0;
  EXPECT_TRUE(transact(m, read_line(0x0), cycle).first.err);
  EXPECT_FALSE(transact(m, read_line(kBase), cycle).first.err);
  // A read's mask names the bytes the lanes need; without a mask, a line that hangs over the end
  // of an allocation is fine and only a line with no allocated byte errs.
  EXPECT_FALSE(transact(m, read_line(kBase + 16, 0, 0x000F), cycle).first.err);
  EXPECT_TRUE(transact(m, read_line(kBase + 16, 0, 0x001F), cycle).first.err);
  EXPECT_FALSE(transact(m, read_line(kBase + 16), cycle).first.err);
  EXPECT_TRUE(transact(m, read_line(kBase + 32), cycle).first.err);
  EXPECT_TRUE(transact(m, read_line(kBase - 16), cycle).first.err);
  // A write touching one unallocated byte writes nothing at all.
  const auto w = transact(m, write_line(kBase + 16, 0x0030, {0, 0xFFFFFFFF, 0, 0}), cycle).first;
  EXPECT_TRUE(w.err);
  EXPECT_TRUE(w.write);
  std::array<uint8_t, 4> b{1, 1, 1, 1};
  m.read(kBase + 16, b);
  EXPECT_EQ(b, (std::array<uint8_t, 4>{0, 0, 0, 0}));
  EXPECT_FALSE(transact(m, write_line(kBase + 16, 0x000F, {0x01020304, 0, 0, 0}), cycle).first.err);
  // Atomics: their 4 or 8 bytes must be allocated.
  EXPECT_FALSE(transact(m, atomic(kBase + 16, g::Aop::ADD, g::Atype::U32, 1), cycle).first.err);
  EXPECT_TRUE(transact(m, atomic(kBase + 16, g::Aop::ADD, g::Atype::U64, 1), cycle).first.err);
  m.read(kBase + 16, b);
  EXPECT_EQ(b, (std::array<uint8_t, 4>{5, 3, 2, 1}));  // 0x01020304 + 1, and the 64-bit add did nothing
  EXPECT_EQ(m.counters().errors, 6u);
  // After unmap the bytes are gone for the port too.
  m.unmap(kBase);
  EXPECT_TRUE(transact(m, read_line(kBase), cycle).first.err);
}

TEST(MemoryModel, UndefinedRequestsAreProtocolErrors) {
  MemoryModel m(2, 16);
  m.map(kBase, 64);
  MemRequest r = read_line(kBase);
  r.kind = 3;
  EXPECT_THROW(m.accept(r, 0), rtl::PortError);
  EXPECT_THROW(m.accept(read_line(kBase + 4), 10), rtl::PortError);
  MemRequest a = atomic(kBase, g::Aop::ADD, g::Atype::U32, 1);
  a.atom = 0x0F;
  EXPECT_THROW(m.accept(a, 20), rtl::PortError);
}

// ---- atomics by hand ---------------------------------------------------------------------------------

struct AtomCase {
  g::Aop aop;
  g::Atype type;
  bool cas;
  uint64_t old, b, swap;
  uint64_t expected_new;
};

TEST(MemoryModel, EveryAtomicReturnsTheOldValueAndStoresTheHandComputedNewOne) {
  const uint64_t big = 0xFFFFFFFF00000001ull;
  const AtomCase cases[] = {
      {g::Aop::ADD, g::Atype::U32, false, 0xFFFFFFFF, 2, 0, 1},
      {g::Aop::ADD, g::Atype::S32, false, 5, 0xFFFFFFFF, 0, 4},
      {g::Aop::ADD, g::Atype::U64, false, 0xFFFFFFFF, 1, 0, 0x100000000ull},
      {g::Aop::ADD, g::Atype::S64, false, big, 0xFFFFFFFFFFFFFFFFull, 0, 0xFFFFFFFF00000000ull},
      {g::Aop::ADD, g::Atype::F32, false, f2u(1.5f), f2u(2.25f), 0, f2u(3.75f)},
      {g::Aop::ADD, g::Atype::F32, false, 0x10, 0x1, 0, 0},  // global f32 add flushes subnormals
      {g::Aop::ADD, g::Atype::F32, false, f2u(1.0f), 0x00000001, 0, f2u(1.0f)},
      {g::Aop::MIN, g::Atype::U32, false, 7, 0xFFFFFFFF, 0, 7},
      {g::Aop::MIN, g::Atype::S32, false, 7, 0xFFFFFFFF, 0, 0xFFFFFFFF},
      {g::Aop::MAX, g::Atype::U32, false, 7, 0xFFFFFFFF, 0, 0xFFFFFFFF},
      {g::Aop::MAX, g::Atype::S32, false, 7, 0xFFFFFFFF, 0, 7},
      {g::Aop::MIN, g::Atype::U64, false, big, 3, 0, 3},
      {g::Aop::MIN, g::Atype::S64, false, big, 3, 0, big},
      {g::Aop::MAX, g::Atype::S64, false, big, 3, 0, 3},
      {g::Aop::MAX, g::Atype::U64, false, big, 3, 0, big},
      {g::Aop::MIN, g::Atype::F32, false, f2u(-1.0f), f2u(2.0f), 0, f2u(-1.0f)},
      {g::Aop::MAX, g::Atype::F32, false, f2u(-1.0f), f2u(2.0f), 0, f2u(2.0f)},
      {g::Aop::MIN, g::Atype::F32, false, 0x7FC00000, f2u(2.0f), 0, f2u(2.0f)},  // one NaN: the other operand
      {g::Aop::MAX, g::Atype::F32, false, f2u(-0.0f), f2u(0.0f), 0, f2u(0.0f)},   // -0 < +0
      {g::Aop::INC, g::Atype::U32, false, 9, 9, 0, 0},
      {g::Aop::INC, g::Atype::U32, false, 3, 9, 0, 4},
      {g::Aop::INC, g::Atype::U32, false, 12, 9, 0, 0},
      {g::Aop::DEC, g::Atype::U32, false, 0, 9, 0, 9},
      {g::Aop::DEC, g::Atype::U32, false, 12, 9, 0, 9},
      {g::Aop::DEC, g::Atype::U32, false, 5, 9, 0, 4},
      {g::Aop::EXCH, g::Atype::U32, false, 5, 0xABCDEF01, 0, 0xABCDEF01},
      {g::Aop::EXCH, g::Atype::U64, false, 5, big, 0, big},
      {g::Aop::AND, g::Atype::U32, false, 0xF0F0, 0xFF00, 0, 0xF000},
      {g::Aop::OR, g::Atype::U32, false, 0xF0F0, 0xFF00, 0, 0xFFF0},
      {g::Aop::XOR, g::Atype::U32, false, 0xF0F0, 0xFF00, 0, 0x0FF0},
      {g::Aop::XOR, g::Atype::U64, false, big, 0xFFFFFFFFFFFFFFFFull, 0, ~big},
      {g::Aop::ADD, g::Atype::U32, true, 5, 5, 9, 9},   // CAS hit
      {g::Aop::ADD, g::Atype::U32, true, 5, 6, 9, 5},   // CAS miss
      {g::Aop::ADD, g::Atype::U64, true, big, big, 0x1234567890ull, 0x1234567890ull},
      {g::Aop::ADD, g::Atype::U64, true, big, big - 1, 1, big},
  };
  MemoryModel m(4, 8);
  m.map(kBase, 16);
  uint64_t cycle = 0;
  for (const AtomCase& c : cases) {
    const bool wide = c.type == g::Atype::U64 || c.type == g::Atype::S64;
    const unsigned bytes = wide ? 8 : 4;
    const uint32_t addr = kBase + 8;
    std::array<uint8_t, 8> init{};
    std::memcpy(init.data(), &c.old, bytes);
    m.write(addr, std::span(init.data(), bytes));
    const auto [resp, t] = transact(m, atomic(addr, c.aop, c.type, c.b, c.swap, c.cas), cycle);
    const std::string what = fmt::format("{} aop {} type {} old {:#x} b {:#x}", c.cas ? "CAS" : "ATOM", static_cast<int>(c.aop),
                                         static_cast<int>(c.type), c.old, c.b);
    EXPECT_FALSE(resp.err) << what;
    EXPECT_EQ(resp.data[0], static_cast<uint32_t>(c.old)) << what;
    EXPECT_EQ(resp.data[1], wide ? static_cast<uint32_t>(c.old >> 32) : 0u) << what;
    std::array<uint8_t, 8> now{};
    m.read(addr, std::span(now.data(), 8));
    uint64_t v = 0;
    std::memcpy(&v, now.data(), 8);
    EXPECT_EQ(v, wide ? c.expected_new : c.expected_new & 0xFFFFFFFF) << what;
    std::memset(now.data(), 0, 8);
    m.write(addr, std::span(now.data(), 8));
  }
  EXPECT_EQ(m.counters().atomics, std::size(cases));
}

// ---- atomics against the golden model ------------------------------------------------------------------

// Thread i performs `insn` on cells[i] (initialized to olds[i]) with operand B = bs[i] and swap
// value swaps[i], and stores the old value it got in outs[i]. The memory model must agree on both.
TEST(MemoryModel, AtomicsMatchTheGoldenModelForEveryOperationAndType) {
  struct Form {
    const char* text;
    g::Aop aop;
    g::Atype type;
    bool cas;
  };
  const Form forms[] = {
      {"ATOM.ADD.U32", g::Aop::ADD, g::Atype::U32, false},   {"ATOM.ADD.S32", g::Aop::ADD, g::Atype::S32, false},
      {"ATOM.ADD.F32", g::Aop::ADD, g::Atype::F32, false},   {"ATOM.ADD.U64", g::Aop::ADD, g::Atype::U64, false},
      {"ATOM.ADD.S64", g::Aop::ADD, g::Atype::S64, false},   {"ATOM.MIN.U32", g::Aop::MIN, g::Atype::U32, false},
      {"ATOM.MIN.S32", g::Aop::MIN, g::Atype::S32, false},   {"ATOM.MIN.F32", g::Aop::MIN, g::Atype::F32, false},
      {"ATOM.MIN.U64", g::Aop::MIN, g::Atype::U64, false},   {"ATOM.MIN.S64", g::Aop::MIN, g::Atype::S64, false},
      {"ATOM.MAX.U32", g::Aop::MAX, g::Atype::U32, false},   {"ATOM.MAX.S32", g::Aop::MAX, g::Atype::S32, false},
      {"ATOM.MAX.F32", g::Aop::MAX, g::Atype::F32, false},   {"ATOM.MAX.U64", g::Aop::MAX, g::Atype::U64, false},
      {"ATOM.MAX.S64", g::Aop::MAX, g::Atype::S64, false},   {"ATOM.INC.U32", g::Aop::INC, g::Atype::U32, false},
      {"ATOM.DEC.U32", g::Aop::DEC, g::Atype::U32, false},   {"ATOM.EXCH.U32", g::Aop::EXCH, g::Atype::U32, false},
      {"ATOM.EXCH.U64", g::Aop::EXCH, g::Atype::U64, false}, {"ATOM.AND.U32", g::Aop::AND, g::Atype::U32, false},
      {"ATOM.AND.U64", g::Aop::AND, g::Atype::U64, false},   {"ATOM.OR.U32", g::Aop::OR, g::Atype::U32, false},
      {"ATOM.OR.U64", g::Aop::OR, g::Atype::U64, false},     {"ATOM.XOR.U32", g::Aop::XOR, g::Atype::U32, false},
      {"ATOM.XOR.U64", g::Aop::XOR, g::Atype::U64, false},   {"ATOMCAS.U32", g::Aop::ADD, g::Atype::U32, true},
      {"ATOMCAS.U64", g::Aop::ADD, g::Atype::U64, true},
  };
  // Operand values: specials (zero, all ones, sign bits, subnormal and NaN floats, infinities)
  // and random words, with equal old/B pairs so that CAS hits and INC/DEC wrap.
  std::mt19937_64 rng(12345);
  const uint64_t specials[] = {0, 1, 2, 9, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x00000001, 0x007FFFFF, 0x00800000,
                               0x7F800000, 0xFF800000, 0x7FC00000, 0x80000000, 0x3F800000, 0xBF800000,
                               0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull, 0x100000000ull};
  constexpr uint32_t kThreads = 256;
  std::vector<uint64_t> olds(kThreads), bs(kThreads), swaps(kThreads);
  for (uint32_t i = 0; i < kThreads; ++i) {
    const auto pick = [&] { return rng() % 3 == 0 ? specials[rng() % std::size(specials)] : (rng() % 2 ? rng() : rng() & 0xFFFFFFFF); };
    olds[i] = pick();
    bs[i] = i % 5 == 0 ? olds[i] : pick();
    swaps[i] = pick();
  }
  for (const Form& f : forms) {
    const bool wide = f.type == g::Atype::U64 || f.type == g::Atype::S64;
    const unsigned bytes = wide ? 8 : 4;
    // The kernel: cells, bs, swaps, outs are arrays of 8-byte slots.
    const std::string op = std::string(f.text) + ".E R10, [R4], R12" + (f.cas ? ", R14" : "");
    const std::string src = std::string(R"(
.kernel k
.param cells u64
.param bs u64
.param swaps u64
.param outs u64
    S2R R0, SR_TID_X
    IMAD.WIDE.U32 R2, R0, 8, RZ
    IADD.CC R4, R2, c[0][bs], P6
    IADD.X R5, R3, c[0][bs+4], P6
    LDG.E.64 R12, [R4]
    IADD.CC R4, R2, c[0][swaps], P6
    IADD.X R5, R3, c[0][swaps+4], P6
    LDG.E.64 R14, [R4]
    IADD.CC R4, R2, c[0][cells], P6
    IADD.X R5, R3, c[0][cells+4], P6
    MOV R10, RZ
    MOV R11, RZ
    )") + op + R"(
    IADD.CC R4, R2, c[0][outs], P6
    IADD.X R5, R3, c[0][outs+4], P6
    STG.E.64 [R4], R10
    EXIT
)";
    Runtime rt(*config::find_config("small"), make_golden_backend());
    const auto upload = [&](const std::vector<uint64_t>& v) {
      std::vector<uint64_t> w(v);
      if (!wide)
        for (auto& x : w) x &= 0xFFFFFFFF;
      const DevicePtr p = rt.malloc(kThreads * 8);
      rt.memcpy_to_device(p, std::span(reinterpret_cast<const uint8_t*>(w.data()), w.size() * 8));
      return p;
    };
    const DevicePtr cells = upload(olds), bp = upload(bs), sp = upload(swaps), outs = upload(std::vector<uint64_t>(kThreads));
    const auto id = rt.load_module(assemble(src, "atomics.tsa"));
    rt.launch(id, "k", Dim3{1, 1, 1}, Dim3{kThreads, 1, 1}, KernelArgs().ptr(cells).ptr(bp).ptr(sp).ptr(outs));
    std::vector<uint64_t> golden_new(kThreads), golden_old(kThreads);
    rt.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(golden_new.data()), kThreads * 8), cells);
    rt.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(golden_old.data()), kThreads * 8), outs);

    MemoryModel m(3, 16);
    m.map(kBase, kThreads * 8);
    uint64_t cycle = 0;
    for (uint32_t i = 0; i < kThreads; ++i) {
      const uint64_t mask = wide ? ~0ull : 0xFFFFFFFFull;
      const uint32_t addr = kBase + 8 * i;
      std::array<uint8_t, 8> init{};
      const uint64_t o = olds[i] & mask;
      std::memcpy(init.data(), &o, 8);
      m.write(addr, init);
      const auto [resp, t] = transact(m, atomic(addr, f.aop, f.type, bs[i] & mask, swaps[i] & mask, f.cas), cycle);
      const uint64_t old = resp.data[0] | uint64_t{resp.data[1]} << 32;
      std::array<uint8_t, 8> now{};
      m.read(addr, now);
      uint64_t nv = 0;
      std::memcpy(&nv, now.data(), bytes);
      ASSERT_EQ(old, golden_old[i]) << f.text << " thread " << i << fmt::format(" old {:#x} b {:#x} swap {:#x}", olds[i], bs[i], swaps[i]);
      ASSERT_EQ(nv, golden_new[i] & mask) << f.text << " thread " << i
                                          << fmt::format(" old {:#x} b {:#x} swap {:#x}", olds[i], bs[i], swaps[i]);
    }
  }
}

}  // namespace
