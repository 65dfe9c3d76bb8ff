// The load/store unit's address generation (rtl/sm/tsm_lsu_agen.sv), as Verilated RTL or as the
// Yosys netlist of it, against the golden model's address rules (sim/golden/execute.cpp
// Exec::address, resolve_generic, check_access and the atomics' local-window fault) restated in
// C++, and the SM's memory layout from docs/sm-rtl.md §2.9 (shared from the block's base, local
// interleaved by thread, constants from the bank's base). Opcodes come from the generated ISA
// header, fault kinds as 1 + golden::FaultKind. Random rows of every memory instruction whose
// addresses crowd the windows' edges, the spaces' ends and misaligned offsets, then the cases a
// user meets.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include <fmt/format.h>
#include <verilated.h>

#include "golden/fault.hpp"
#include "tsm/isa_gen.hpp"
#include TSM_MODEL_HEADER
#include "unit_driver.hpp"

namespace {

using tsm::golden::FaultKind;
using Op = tsm::isa::gen::Op;
namespace gen = tsm::isa::gen;

// The testbench's build: 8 lanes a row, 4 rows, 24 warps, local stride 2 SMs x 24 warps x 128 bytes.
constexpr unsigned kLanes = 8, kRows = 4, kWarps = 24;
constexpr uint32_t kLocalStride = 2 * kWarps * 32 * 4;
enum Space : unsigned { kGlobal = 0, kShared = 1, kLocal = 2 };  // tsm_lsu_pkg::Space*

unsigned fault_code(FaultKind k) { return 1 + static_cast<unsigned>(k); }

struct Row {
  Op op = Op::LDG;
  unsigned row = 0;
  uint32_t exec = 0xFF;  // the row's lanes
  bool first_pass = true;
  std::array<uint32_t, kLanes> low{}, high{}, store{};
  bool a_zero = false, d_zero = false;
  bool offset_used = true;
  uint32_t moff = 0;  // 24 bits
  uint32_t coff = 0;  // 16 bits
  bool wide = false;
  unsigned bytes = 4;
  uint32_t shared_base = 0, shared_bytes = 0, local_base = 0, local_bytes = 0, const_base = 0, sm = 0, warp = 0;
  uint64_t spaces = 0;
};

struct Out {
  bool fault = false;
  unsigned kind = 0, lane = 0;
  uint32_t fault_address = 0;
  uint64_t spaces = 0;
  std::array<uint32_t, kLanes> address{}, store{};
  uint32_t address_write = 0, store_write = 0;
  bool operator==(const Out&) const = default;
};

bool shared_only(Op op) { return op == Op::LDS || op == Op::STS || op == Op::ATOMS || op == Op::ATOMSCAS; }
bool generic(Op op) { return op == Op::LD || op == Op::ST || op == Op::ATOM || op == Op::ATOMCAS; }
bool atomic(Op op) { return op == Op::ATOM || op == Op::ATOMS || op == Op::ATOMCAS || op == Op::ATOMSCAS; }

/// The golden rules, lane by lane in lane order.
Out reference(const Row& r) {
  Out o;
  o.spaces = r.spaces;
  const int64_t offset = r.op == Op::LDC ? int64_t{r.coff}
                         : r.offset_used ? int64_t{static_cast<int32_t>(r.moff << 8) >> 8}
                                         : 0;
  for (unsigned l = 0; l < kLanes; ++l) {
    const unsigned lane = r.row * kLanes + l;
    std::optional<unsigned> kind;
    uint32_t address;
    uint64_t wide_address = 0;
    if (r.wide) {
      const uint64_t a = r.a_zero ? 0 : (uint64_t{r.high[l]} << 32 | r.low[l]);
      wide_address = a + static_cast<uint64_t>(offset);
      address = static_cast<uint32_t>(wide_address);
      if (wide_address >> 32) kind = fault_code(FaultKind::AddressRange);
    } else {
      address = (r.a_zero ? 0 : r.low[l]) + static_cast<uint32_t>(offset);
    }
    Space space = kGlobal;
    uint32_t relative = address;
    if (shared_only(r.op)) {
      space = kShared;
    } else if (r.op == Op::LDL || r.op == Op::STL) {
      space = kLocal;
    } else if (generic(r.op)) {
      if (address - gen::kSharedWindowBase < gen::kWindowBytes) {
        space = kShared;
        relative = address - gen::kSharedWindowBase;
      } else if (address - gen::kLocalWindowBase < gen::kWindowBytes) {
        space = kLocal;
        relative = address - gen::kLocalWindowBase;
      }
    }
    if (!kind && relative % r.bytes) kind = fault_code(FaultKind::Misaligned);
    if (!kind && space == kShared && uint64_t{relative} + r.bytes > r.shared_bytes) kind = fault_code(FaultKind::OutOfBounds);
    if (!kind && space == kLocal && (atomic(r.op) || uint64_t{relative} + r.bytes > r.local_bytes))
      kind = fault_code(FaultKind::OutOfBounds);
    if (!kind && r.op == Op::LDC && uint64_t{relative} + r.bytes > 0x10000) kind = fault_code(FaultKind::OutOfBounds);
    uint32_t effective = address;
    if (space == kShared) effective = r.shared_base + relative;
    if (space == kLocal)
      effective = r.local_base + (relative / 4) * kLocalStride + ((r.sm * kWarps + r.warp) * 32 + lane) * 4 + relative % 4;
    if (space == kGlobal && r.op == Op::LDC) effective = r.const_base + relative;
    const bool executes = r.exec >> l & 1;
    if (executes && r.first_pass) {
      if (kind && !o.fault) {
        o.fault = true;
        o.kind = *kind;
        o.lane = lane;
        o.fault_address = (r.wide && *kind == fault_code(FaultKind::AddressRange)) ? static_cast<uint32_t>(wide_address >> 32) : address;
      }
      o.spaces = (o.spaces & ~(uint64_t{3} << (2 * lane))) | (uint64_t{space} << (2 * lane));
      o.address_write |= 1u << l;
    }
    o.address[l] = effective;
    if (executes) o.store_write |= 1u << l;
    const uint32_t d = r.d_zero ? 0 : r.store[l];
    o.store[l] = r.bytes == 1 ? (d & 0xFF) * 0x01010101u : r.bytes == 2 ? (d & 0xFFFF) * 0x00010001u : d;
  }
  return o;
}

class LsuAgen : public ::testing::Test {
 protected:
  Out apply(const Row& r) {
    dut_->row_i = r.row;
    dut_->exec_i = r.exec;
    dut_->first_pass_i = r.first_pass;
    for (unsigned l = 0; l < kLanes; ++l) {
      dut_->address_low_i[l] = r.low[l];
      dut_->address_high_i[l] = r.high[l];
      dut_->store_i[l] = r.store[l];
    }
    dut_->address_zero_i = r.a_zero;
    dut_->store_zero_i = r.d_zero;
    dut_->opcode_i = static_cast<uint8_t>(r.op);
    dut_->memory_offset_used_i = r.offset_used;
    dut_->memory_offset_i = r.moff;
    dut_->const_offset_i = r.coff;
    dut_->wide_address_i = r.wide;
    dut_->shared_only_i = shared_only(r.op);
    dut_->atomic_i = atomic(r.op);
    dut_->access_bytes_i = r.bytes;
    dut_->shared_base_i = r.shared_base;
    dut_->shared_bytes_i = r.shared_bytes;
    dut_->local_base_i = r.local_base;
    dut_->local_bytes_i = r.local_bytes;
    dut_->const_base_i = r.const_base;
    dut_->sm_i = r.sm;
    dut_->warp_i = r.warp;
    dut_->spaces_i = r.spaces;
    dut_->eval();
    Out o;
    o.fault = dut_->fault_o;
    if (o.fault) {
      o.kind = dut_->fault_kind_o;
      o.lane = dut_->fault_lane_o;
      o.fault_address = dut_->fault_address_o;
    }
    o.spaces = dut_->spaces_o;
    for (unsigned l = 0; l < kLanes; ++l) {
      o.address[l] = dut_->address_o[l];
      o.store[l] = dut_->store_o[l];
    }
    o.address_write = dut_->address_write_o;
    o.store_write = dut_->store_write_o;
    return o;
  }

  static uint32_t near(std::mt19937& rng, uint32_t edge) { return edge + static_cast<uint32_t>(static_cast<int>(rng() % 64) - 32); }

  static Row random_row(std::mt19937& rng) {
    static constexpr Op kOps[] = {Op::LDG, Op::STG, Op::LDS, Op::STS, Op::LDL, Op::STL, Op::LD,
                                  Op::ST,  Op::LDC, Op::ATOM, Op::ATOMS, Op::ATOMCAS, Op::ATOMSCAS};
    static constexpr unsigned kBytes[] = {1, 2, 4, 4, 8, 16};
    Row r;
    r.op = kOps[rng() % std::size(kOps)];
    r.row = rng() % kRows;
    r.exec = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) & 0xFF : 0xFF;
    r.first_pass = rng() % 4 != 0;
    r.bytes = atomic(r.op) ? (rng() % 2 ? 4 : 8) : kBytes[rng() % std::size(kBytes)];
    r.wide = r.op != Op::LDC && rng() % 3 == 0;  // LDC reads a 32-bit address
    r.a_zero = rng() % 16 == 0;
    r.d_zero = rng() % 16 == 0;
    r.offset_used = rng() % 4 != 0;
    r.moff = rng() % 2 ? rng() % 64 : static_cast<uint32_t>(rng()) & 0xFF'FFFF;
    r.coff = rng() % 2 ? rng() % 64 : static_cast<uint32_t>(rng()) & 0xFFFF;
    r.shared_bytes = rng() % 4 == 0 ? 0 : rng() % 16384;
    r.local_bytes = rng() % 4 == 0 ? 0 : rng() % 1024;
    r.shared_base = (rng() % 4) * 4096;
    r.local_base = static_cast<uint32_t>(rng()) & ~0xFFu;
    r.const_base = static_cast<uint32_t>(rng()) & ~0xFFu;
    r.sm = rng() % 2;
    r.warp = rng() % kWarps;
    r.spaces = uint64_t{rng()} << 32 | rng();
    for (unsigned l = 0; l < kLanes; ++l) {
      switch (rng() % 6) {  // the windows' edges, the spaces' ends, anything
        case 0: r.low[l] = near(rng, gen::kSharedWindowBase); break;
        case 1: r.low[l] = near(rng, gen::kLocalWindowBase + (rng() % 2 ? r.local_bytes : 0)); break;
        case 2: r.low[l] = near(rng, rng() % 2 ? r.shared_bytes : r.local_bytes); break;
        case 3: r.low[l] = near(rng, 0x10000); break;
        case 4: r.low[l] = near(rng, 0); break;
        default: r.low[l] = static_cast<uint32_t>(rng()); break;
      }
      if (rng() % 2) r.low[l] &= ~(r.bytes - 1);  // mostly aligned
      r.high[l] = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) : rng() % 8 == 0 ? 0xFFFF'FFFFu : 0;
      r.store[l] = static_cast<uint32_t>(rng());
    }
    return r;
  }

  unsigned random_run(unsigned cases, uint32_t seed) {
    std::mt19937 rng(seed);
    unsigned bad = 0;
    for (unsigned n = 0; n < cases; ++n) {
      const Row r = random_row(rng);
      const Out want = reference(r);
      const Out got = apply(r);
      if (got == want) continue;
      ++bad;
      ADD_FAILURE() << fmt::format("case {}: opcode {:#04x} row {} {}-byte{}: got fault {} kind {} lane {} at {:#x}, want {} {} {} at {:#x}{}{}",
                                   n, static_cast<unsigned>(r.op), r.row, r.bytes, r.wide ? " wide" : "", got.fault, got.kind, got.lane,
                                   got.fault_address, want.fault, want.kind, want.lane, want.fault_address,
                                   got.address != want.address ? " (addresses differ)" : "",
                                   got.spaces != want.spaces ? " (spaces differ)" : "");
      if (bad > 10) return bad;
    }
    return bad;
  }

  tsm::rtltest::Unit<TSM_MODEL_CLASS> unit_;
  TSM_MODEL_CLASS* dut_ = unit_.dut.get();
};

TEST_F(LsuAgen, MatchesTheGoldenRules) { EXPECT_EQ(random_run(TSM_RANDOM_CASES, 1), 0u); }

Row plain(Op op, uint32_t base, unsigned stride) {
  Row r;
  r.op = op;
  r.row = 1;
  r.offset_used = false;
  r.shared_bytes = 1024;
  r.local_bytes = 64;
  r.shared_base = 8192;
  r.local_base = 0x10'0000;
  r.sm = 1;
  r.warp = 3;
  for (unsigned l = 0; l < kLanes; ++l) r.low[l] = base + l * stride;
  return r;
}

TEST_F(LsuAgen, GenericAddressesFindTheirSpace) {
  const Out shared = apply(plain(Op::LD, gen::kSharedWindowBase + 16, 4));
  EXPECT_FALSE(shared.fault);
  EXPECT_EQ(shared.address[0], 8192u + 16) << "shared: from the block's base";
  EXPECT_EQ(shared.spaces >> (2 * 8) & 3, unsigned{kShared}) << "lane 8 (row 1, lane 0) recorded as shared";
  const Out local = apply(plain(Op::LD, gen::kLocalWindowBase, 4));
  EXPECT_FALSE(local.fault);
  EXPECT_EQ(local.address[0], 0x10'0000u + ((1 * kWarps + 3) * 32 + 8) * 4) << "local word 0 of thread 8 of warp 3 on SM 1";
  EXPECT_EQ(local.address[1], 0x10'0000u + kLocalStride + ((1 * kWarps + 3) * 32 + 9) * 4) << "its next word is a stride away";
  EXPECT_EQ(apply(plain(Op::LD, 0x4000, 4)).address[2], 0x4008u) << "global as is";
}

TEST_F(LsuAgen, FaultsNameTheFirstFailingLane) {
  Row r = plain(Op::LDS, 1016, 4);  // lanes 0, 1 in bounds, lane 2 at 1024: beyond 1,024 bytes
  const Out o = apply(r);
  EXPECT_TRUE(o.fault);
  EXPECT_EQ(o.kind, fault_code(FaultKind::OutOfBounds));
  EXPECT_EQ(o.lane, 8u + 2);
  EXPECT_EQ(o.fault_address, 1024u);
  r.exec = 0b11;
  EXPECT_FALSE(apply(r).fault) << "a lane that does not execute cannot fault";
  r = plain(Op::LDG, 0x1000, 2);
  r.bytes = 4;
  EXPECT_EQ(apply(r).kind, fault_code(FaultKind::Misaligned)) << "lane 1 at 0x1002";
  EXPECT_EQ(apply(r).lane, 8u + 1);
  r = plain(Op::ATOM, gen::kLocalWindowBase, 4);
  EXPECT_EQ(apply(r).kind, fault_code(FaultKind::OutOfBounds)) << "an atomic on local memory";
  r = plain(Op::LDG, 0, 4);
  r.wide = true;
  r.high[3] = 1;
  const Out range = apply(r);
  EXPECT_EQ(range.kind, fault_code(FaultKind::AddressRange));
  EXPECT_EQ(range.fault_address, 1u) << "the upper word of the 64-bit address";
}

TEST_F(LsuAgen, StoreDataFillsItsWord) {
  Row r = plain(Op::STG, 0x1000, 1);
  r.bytes = 1;
  r.store[0] = 0x1234'56AB;
  EXPECT_EQ(apply(r).store[0], 0xABAB'ABABu);
  r.bytes = 2;
  r.low = {};
  EXPECT_EQ(apply(r).store[0], 0x56AB'56ABu);
  r.d_zero = true;
  EXPECT_EQ(apply(r).store[0], 0u) << "RZ stores zeros";
}

}  // namespace
