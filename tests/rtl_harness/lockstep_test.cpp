// Lockstep against a replayed golden run: the event stream an RTL would send for a kernel with
// loads, stores, divergence, local and shared memory, barriers, BRED, atomics and the clock
// passes; each corruption of it (a register value, a PC, a store byte, the order, load data, a
// BRED result, memory) is caught with a report naming the instruction and the differing lane.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <bit>
#include <cstdlib>
#include <iostream>
#include <functional>
#include <random>
#include <regex>

#include "isa/assembler.hpp"
#include "replay.hpp"
#include "scenarios.hpp"
#include "rtl/lockstep.hpp"

namespace {

using namespace tsm;
using namespace tsm::rtltest;
using rtl::Lockstep;
using rtl::LockstepMismatch;
using rtl::MemoryModel;

// gtest without gmock (Debian's libgtest-dev does not bring libgmock-dev).
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the report does not contain '" << part << "':\n" << text;
}
::testing::AssertionResult Matches(const std::string& text, const std::string& pattern) {
  if (std::regex_search(text, std::regex(pattern))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the report does not match '" << pattern << "':\n" << text;
}

constexpr const char* kConfig = "small";  // 2 SMs of 4 SP lanes, 8 warp slots

/// A recorded launch and everything needed to replay it.
struct Scenario {
  std::unique_ptr<Runtime> rt;
  RecordingBackend* backend = nullptr;
  Recording rec;
  RecordingBackend::Snapshot before;
  std::vector<Item> items;

  std::unique_ptr<MemoryModel> fresh_memory() const {
    auto m = std::make_unique<MemoryModel>(1, 16);
    for (const auto& [start, bytes] : before) {
      m->map(start, static_cast<uint32_t>(bytes.size()));
      m->write(start, bytes);
    }
    return m;
  }
  uint64_t insn_at(uint32_t pc) const { return rec.spec.module->text.at(pc); }
};

Scenario record_kernel(const std::string& source, Dim3 grid, Dim3 block, const std::function<KernelArgs(Runtime&)>& args) {
  Scenario s;
  auto backend = std::make_unique<RecordingBackend>();
  s.backend = backend.get();
  s.rt = std::make_unique<Runtime>(*config::find_config(kConfig), std::move(backend));
  const auto id = s.rt->load_module(assemble(source, "lockstep.tsa"));
  const KernelArgs a = args(*s.rt);
  s.rt->launch(id, "k", grid, block, a);
  s.rec = s.backend->recordings.back();
  s.before = s.backend->snapshots.back();
  s.items = to_items(s.rec, config::find_config(kConfig)->sp_lanes);
  return s;
}

Scenario main_scenario() {
  return record_kernel(kMixKernel, kMixGrid, kMixBlock, [](Runtime& rt) { return mix_kernel_args(rt).args; });
}

void apply_write(MemoryModel& m, const rtl::MemRequest& w) {
  std::array<uint8_t, 16> line{};
  std::memcpy(line.data(), w.data.data(), 16);
  for (unsigned i = 0; i < 16; ++i)
    if (w.mask >> i & 1) m.write(w.addr + i, std::span<const uint8_t>(&line[i], 1));
}

/// Feed the items to a fresh Lockstep (memory writes go to the RTL's memory as they come) and
/// finish. Throws LockstepMismatch.
uint64_t replay(const Scenario& s, const std::vector<Item>& items, bool finish = true) {
  auto mem = s.fresh_memory();
  Lockstep ls(*mem, s.rec.spec);
  uint64_t cycle = 0;
  for (const Item& it : items) {
    if (it.event) ls.on_event(*it.event, cycle);
    if (it.write) apply_write(*mem, *it.write);
    ++cycle;
  }
  if (finish) ls.finish(cycle);
  return ls.retired();
}

std::string mismatch(const Scenario& s, const std::vector<Item>& items) {
  try {
    replay(s, items);
  } catch (const LockstepMismatch& e) {
    if (std::getenv("TSM_SHOW_REPORTS")) std::cerr << e.what() << "\n\n";  // to read what a user gets
    return e.what();
  }
  ADD_FAILURE() << "no mismatch was reported";
  return "";
}

/// The PC of the instruction an event belongs to (from its RETIRE).
uint32_t pc_of(const std::vector<Item>& items, const rtl::CommitEvent& e) {
  for (const Item& it : items)
    if (it.event && it.event->kind == rtl::kRetire && it.event->sm == e.sm && it.event->warp == e.warp && it.event->seq == e.seq)
      return it.event->pc;
  throw std::runtime_error("no RETIRE for the event");
}

size_t find_item(const std::vector<Item>& items, const std::function<bool(const rtl::CommitEvent&)>& pred, size_t from = 0) {
  for (size_t i = from; i < items.size(); ++i)
    if (items[i].event && pred(*items[i].event)) return i;
  throw std::runtime_error("no such event");
}

g::Op op_at(const Scenario& s, uint32_t pc) { return *opcode(s.insn_at(pc)); }

// A row of the lane table for `lane`: right-aligned lane number, then the expected value.
std::string lane_row(unsigned lane) { return fmt::format("\n    {:>4}  ", lane); }

TEST(Lockstep, ReplayOfAGoldenRunMatches) {
  const Scenario s = main_scenario();
  ASSERT_FALSE(s.rec.fault);
  // The stream really has the interesting parts.
  size_t places = 0, late_regs = 0, stores = 0;
  for (size_t i = 0; i < s.items.size(); ++i) {
    if (!s.items[i].event) continue;
    const auto& e = *s.items[i].event;
    places += e.kind == rtl::kPlace;
    stores += e.kind == rtl::kStore;
    if (e.kind == rtl::kReg) {
      const auto op = op_at(s, pc_of(s.items, e));
      late_regs += op == g::Op::LDG || op == g::Op::LDL || op == g::Op::BRED;
    }
  }
  EXPECT_EQ(places, kMixGrid.x);
  EXPECT_GT(late_regs, 0u);
  EXPECT_GT(stores, 0u);
  uint64_t retired = 0;
  ASSERT_NO_THROW(retired = replay(s, s.items));
  size_t commits = 0;
  for (const auto& st : s.rec.steps) commits += std::holds_alternative<golden::Commit>(st);
  EXPECT_EQ(retired, commits);
}

TEST(Lockstep, RetiresHeldAtABarrierAreTakenWhenItOpens) {
  // The RTL reports a released warp's next instruction before the RETIRE of the barrier
  // instruction that opened the barrier; lockstep holds it until the golden model can take it.
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  bool moved = false;
  for (size_t p = 0; p < items.size() && !moved; ++p) {
    if (!items[p].event || items[p].event->kind != rtl::kRetire || op_at(s, items[p].event->pc) != g::Op::BAR) continue;
    const auto opener = *items[p].event;
    // The opener's commit released other warps: find one of their next RETIREs before the
    // opener's own next RETIRE.
    for (size_t q = p + 1; q < items.size(); ++q) {
      if (!items[q].event || items[q].event->kind != rtl::kRetire || items[q].event->sm != opener.sm) continue;
      if (items[q].event->warp == opener.warp) break;
      if (op_at(s, items[q].event->pc) == g::Op::BAR) continue;  // a warp still arriving
      const Item moved_item = items[p];
      items.erase(items.begin() + static_cast<long>(p));
      items.insert(items.begin() + static_cast<long>(q), moved_item);
      moved = true;
      break;
    }
  }
  ASSERT_TRUE(moved);
  EXPECT_NO_THROW(replay(s, items));
}

TEST(Lockstep, ACorruptedRegisterValueIsReportedWithItsLaneAndInstruction) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  // Lane 5 = group 1, lane 1 of the group (4 SP lanes), of the first IMAD's result.
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) {
    return e.kind == rtl::kReg && e.group == 1 && (e.lanes & 2) && op_at(s, pc_of(items, e)) == g::Op::IMAD;
  });
  const auto& e = *items[i].event;
  const uint32_t pc = pc_of(items, e);
  const uint32_t good = e.data[1];
  items[i].event->data[1] ^= 0x40;
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "register writes differ: R" + std::to_string(e.reg) + " (1 of 32 lanes)"));
  EXPECT_TRUE(Contains(m, isa::disassemble(s.insn_at(pc), pc)));
  EXPECT_TRUE(Contains(m, lane_row(5) + fmt::format("{:#010x}  {:#010x}", good, good ^ 0x40)));
  EXPECT_TRUE(Contains(m, fmt::format("SM {}, warp slot {}, seq {}, PC {}", e.sm, e.warp, e.seq, pc)));
  EXPECT_TRUE(Contains(m, "last "));  // the warp's history
  EXPECT_TRUE(Contains(m, "S2R R0, SR_CTAID_X"));
  EXPECT_TRUE(Contains(m, "lockstep mismatch at cycle "));
}

TEST(Lockstep, AWrongPcIsReported) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) { return e.kind == rtl::kRetire && e.pc > 6; });
  const uint32_t pc = items[i].event->pc;
  items[i].event->pc += 1;
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, fmt::format("PC differs: the golden model's next instruction of this warp is PC {}, the RTL retired PC {}", pc, pc + 1)));
  EXPECT_TRUE(Contains(m, isa::disassemble(s.insn_at(pc), pc)));
}

TEST(Lockstep, AMissingStoreByteIsReportedWithItsLane) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) { return e.kind == rtl::kStore && e.mask == 0xFFFF; });
  auto& e = *items[i].event;
  const uint32_t pc = pc_of(items, e);
  e.mask &= ~(1u << 6);  // byte 6 of the line: lane (addr+6)/16's word 1
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, fmt::format("global stores differ (first at byte {:#010x}", e.addr + 6)));
  EXPECT_TRUE(Contains(m, isa::disassemble(s.insn_at(pc), pc)));
  // The lane that stored the byte: out[i] is 16 bytes at out + 16 i; lanes of the warp in order.
  EXPECT_TRUE(Contains(m, "no store"));
  EXPECT_TRUE(Matches(m, fmt::format(" +[0-9]+  \\[{:#010x}\\] = 0x[0-9a-f]+  no store", e.addr + 6)));
}

TEST(Lockstep, AStoreByteWithAWrongValueIsReported) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) { return e.kind == rtl::kStore; });
  items[i].event->wdata[0] ^= 0x100;
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "global stores differ"));
}

TEST(Lockstep, AnOutOfOrderRetireIsReported) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  // Two consecutive RETIREs of one warp, swapped.
  const size_t a = find_item(items, [](const rtl::CommitEvent& e) { return e.kind == rtl::kRetire && e.seq == 3; });
  const auto first = *items[a].event;
  const size_t b = find_item(items, [&](const rtl::CommitEvent& e) {
    return e.kind == rtl::kRetire && e.sm == first.sm && e.warp == first.warp && e.seq == 4;
  });
  std::swap(items[a], items[b]);
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "retired out of order: the warp's next instruction is seq 3, the RTL retired seq 4"));
  EXPECT_TRUE(Contains(m, isa::disassemble(s.insn_at(items[a].event->pc), items[a].event->pc)));
}

TEST(Lockstep, CorruptedLoadDataAfterTheRetireIsReported) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) {
    return e.kind == rtl::kReg && e.group == 0 && (e.lanes & 1) && op_at(s, pc_of(items, e)) == g::Op::LDG;
  });
  const auto e = *items[i].event;
  ASSERT_GT(i, find_item(items, [&](const rtl::CommitEvent& r) {
              return r.kind == rtl::kRetire && r.sm == e.sm && r.warp == e.warp && r.seq == e.seq;
            }));  // the data follows the RETIRE
  items[i].event->data[0] += 1;
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "register writes differ: R6 (1 of 32 lanes)"));
  EXPECT_TRUE(Contains(m, "LDG.E R6, [R4]"));
  EXPECT_TRUE(Contains(m, lane_row(e.group * 4)));
}

TEST(Lockstep, MissingLoadDataIsReportedAtTheEnd) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) { return e.kind == rtl::kReg && op_at(s, pc_of(items, e)) == g::Op::LDL; });
  items.erase(items.begin() + static_cast<long>(i));
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "the GPU finished without writing every register this instruction writes") || Contains(m, "is incomplete")) << m;
  EXPECT_TRUE(Contains(m, "LDL R8, [RZ+0x4]"));
}

TEST(Lockstep, AMissingRegisterWriteOfAnAluInstructionIsReportedAtItsRetire) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) { return e.kind == rtl::kReg && op_at(s, pc_of(items, e)) == g::Op::IMUL; });
  const auto e = *items[i].event;
  items.erase(items.begin() + static_cast<long>(i));
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "register writes differ: R7"));
  EXPECT_TRUE(Contains(m, "(no write)"));
  EXPECT_TRUE(Contains(m, lane_row(e.group * 4 + static_cast<unsigned>(std::countr_zero(e.lanes)))));
}

TEST(Lockstep, ACorruptedBarrierReductionIsReported) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) { return e.kind == rtl::kReg && op_at(s, pc_of(items, e)) == g::Op::BRED; });
  const size_t lane = static_cast<size_t>(std::countr_zero(items[i].event->lanes));
  items[i].event->data[lane] += 1;
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "register writes differ: R12"));
  EXPECT_TRUE(Contains(m, "BRED.POPC R12, 0, P0"));
}

TEST(Lockstep, AWrongExecutedMaskIsReportedLaneByLane) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [&](const rtl::CommitEvent& e) { return e.kind == rtl::kRetire && e.exec == 0xFFFFFFFF; });
  items[i].event->exec &= ~(1u << 17);
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "executed mask differs: golden 0xffffffff, RTL 0xfffdffff"));
  EXPECT_TRUE(Contains(m, lane_row(17) + "in        out"));
}

/// The 64-bit ATOM.ADD commits of the mix kernel (on the sum at cells+8), in RETIRE order.
std::vector<const golden::Commit*> sum_atomics(const Scenario& s) {
  std::vector<const golden::Commit*> out;
  for (const auto& st : s.rec.steps)
    if (const auto* c = std::get_if<golden::Commit>(&st); c && opcode(c->insn) == g::Op::ATOM && !c->stores.empty() && c->stores[0].bytes == 8)
      out.push_back(c);
  return out;
}

/// Replace the old values (R22:R23 events) the RTL reports for atomic commit `c`, the last of its
/// warp slot and sequence number (slots are reused by later blocks), by `olds[lane]`.
void set_olds(std::vector<Item>& items, const golden::Commit& c, const std::array<uint64_t, 32>& olds) {
  const auto same = [&](const Item& it, uint8_t kind) {
    return it.event && it.event->kind == kind && it.event->sm == c.sm && it.event->warp == c.warp_slot && it.event->seq == c.seq;
  };
  size_t retire = items.size();
  while (retire > 0 && !same(items[retire - 1], rtl::kRetire)) --retire;
  ASSERT_GT(retire, 0u);
  size_t first = retire - 1;
  while (first > 0 && !(items[first - 1].event && items[first - 1].event->kind == rtl::kRetire && items[first - 1].event->sm == c.sm &&
                        items[first - 1].event->warp == c.warp_slot))
    --first;
  for (size_t i = first; i + 1 < retire; ++i) {
    Item& it = items[i];
    if (!same(it, rtl::kReg)) continue;
    for (unsigned l = 0; l < 4; ++l)
      if (it.event->lanes >> l & 1) {
        const uint64_t v = olds[it.event->group * 4 + l];
        it.event->data[l] = static_cast<uint32_t>(it.event->reg == 22 ? v : v >> 32);
      }
  }
}

TEST(Lockstep, AtomicsMayReachMemoryInAnotherOrderThanTheirRetires) {
  // The last two warps' 64-bit atomic adds on the sum retire A then B, but memory performed B's
  // lanes first: their old values say so. Every register agrees with the golden model (it takes
  // the old values from the RTL); the sum in memory is the memory's, not the last RETIRE's.
  const Scenario s = main_scenario();
  const auto atomics = sum_atomics(s);
  ASSERT_GE(atomics.size(), 2u);
  const golden::Commit& a = *atomics[atomics.size() - 2];
  const golden::Commit& b = *atomics.back();
  const auto operand = [](const golden::Commit& c, unsigned lane) {  // new - old of the lane
    for (const auto& st : c.stores)
      if (st.lane == lane) {
        for (const auto& rw : c.regs)
          if (rw.reg == 22) return (st.data[0] | uint64_t{st.data[1]} << 32) - (rw.values[lane][0] | uint64_t{rw.values[lane][1]} << 32);
      }
    return uint64_t{0};
  };
  uint64_t v = 0;
  for (const auto& rw : a.regs)
    if (rw.reg == 22) v = rw.values[std::countr_zero(rw.lanes)][0] | uint64_t{rw.values[std::countr_zero(rw.lanes)][1]} << 32;
  std::array<uint64_t, 32> olds_a{}, olds_b{};
  for (unsigned l = 0; l < 32; ++l)
    if (b.executed >> l & 1) olds_b[l] = v, v += operand(b, l);
  for (unsigned l = 0; l < 32; ++l)
    if (a.executed >> l & 1) olds_a[l] = v, v += operand(a, l);
  std::vector<Item> items = s.items;
  set_olds(items, a, olds_a);
  set_olds(items, b, olds_b);
  EXPECT_NO_THROW(replay(s, items));

  // An old value that fits no order is reported with the steps.
  olds_a[3] += 1;
  set_olds(items, a, olds_a);
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "the global atomics on"));
  EXPECT_TRUE(Contains(m, "fit no order of execution"));
  EXPECT_TRUE(Contains(m, "ATOM.ADD.U64.E R22, [R16], R18"));
}

TEST(Lockstep, EndOfRunMemoryIsCompared) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  // The RTL's last memory write differs from the store it reported.
  size_t i = items.size() - 1;
  while (!items[i].write) --i;
  auto& w = *items[i].write;
  const unsigned byte = static_cast<unsigned>(std::countr_zero(static_cast<unsigned>(w.mask)));
  std::array<uint8_t, 16> line{};
  std::memcpy(line.data(), w.data.data(), 16);
  const uint8_t good = line[byte];
  line[byte] ^= 0xFF;
  std::memcpy(w.data.data(), line.data(), 16);
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, fmt::format("end-of-run memory differs at {:#010x}: golden {:#04x}, RTL {:#04x} (1 differing bytes", w.addr + byte,
                                      good, good ^ 0xFF)));
  EXPECT_TRUE(Contains(m, fmt::format("line {:#010x}", w.addr)));
}

TEST(Lockstep, APlacementTheGoldenModelRefusesIsReported) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [](const rtl::CommitEvent& e) { return e.kind == rtl::kPlace && e.data[0] == 1; });
  items[i].event->data[0] = 2;  // blocks are placed in linear order: block 1 never is
  const std::string m = mismatch(s, items);
  EXPECT_TRUE(Contains(m, "placed block 2 while block 1 was never placed"));
}

TEST(Lockstep, PlacementsMayArriveOutOfOrderAcrossSms) {
  // The SMs' commit ports are independent: SM 1's PLACE of block 1 (and the events of its warps)
  // may come before SM 0's PLACE of block 0.
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t a = find_item(items, [](const rtl::CommitEvent& e) { return e.kind == rtl::kPlace && e.data[0] == 0; });
  const size_t b = find_item(items, [](const rtl::CommitEvent& e) { return e.kind == rtl::kPlace && e.data[0] == 1; });
  ASSERT_NE(items[a].event->sm, items[b].event->sm);
  // SM 0's events from its PLACE of block 0 on go after SM 1's first 40 events.
  std::vector<Item> reordered(items.begin(), items.begin() + static_cast<long>(a)), later;
  size_t other = 0;
  size_t i = a;
  for (; i < items.size() && other < 40; ++i) {
    const bool sm0 = items[i].event ? items[i].event->sm == items[a].event->sm : !later.empty();
    if (sm0) later.push_back(items[i]);
    else reordered.push_back(items[i]), other += items[i].event.has_value();
  }
  reordered.insert(reordered.end(), later.begin(), later.end());
  reordered.insert(reordered.end(), items.begin() + static_cast<long>(i), items.end());
  ASSERT_EQ(reordered.size(), items.size());
  EXPECT_NO_THROW(replay(s, reordered));
}

TEST(Lockstep, EventsOfAnEmptyWarpSlotAreReported) {
  const Scenario s = main_scenario();
  std::vector<Item> items = s.items;
  const size_t i = find_item(items, [](const rtl::CommitEvent& e) { return e.kind == rtl::kRetire; });
  items[i].event->warp = 7;  // nothing placed there yet
  EXPECT_TRUE(Contains(mismatch(s, items), "holds no warp"));
}

// ---- faults ---------------------------------------------------------------------------------------------

Scenario faulting_scenario() {
  return record_kernel(kFaultKernel, Dim3{1, 1, 1}, Dim3{32, 1, 1}, [](Runtime& rt) { return KernelArgs().ptr(rt.malloc(4)); });
}

/// The scenario's items plus the RETIRE of the instruction the golden model faulted on: the RTL
/// retired it.
std::vector<Item> with_faulting_retire(const Scenario& s) {
  std::vector<Item> items = s.items;
  uint32_t seq = 0;
  for (const Item& it : items)
    if (it.event && it.event->kind == rtl::kRetire && it.event->warp == s.rec.fault_warp) seq = it.event->seq + 1;
  rtl::CommitEvent r;
  r.sm = s.rec.fault_sm;
  r.kind = rtl::kRetire;
  r.warp = s.rec.fault_warp;
  r.seq = seq;
  r.pc = *s.rec.fault->site.pc;
  r.active = r.exec = 0xFFFFFFFF;
  items.push_back(Item{r, std::nullopt});
  return items;
}

TEST(Lockstep, AGlobalAccessTheGoldenModelFaultsOnMustBeReportedByTheGpu) {
  // The RTL may retire an out-of-bounds global load: it learns of it from the memory's err. It
  // must then report the fault; finishing without one is a mismatch.
  const Scenario s = faulting_scenario();
  ASSERT_TRUE(s.rec.fault);
  const std::string m = mismatch(s, with_faulting_retire(s));
  EXPECT_TRUE(Contains(m, "the GPU finished without a fault, but the golden model faulted on this instruction when the RTL retired it"));
  EXPECT_TRUE(Contains(m, "out-of-bounds access: global address 0x00000000"));
  EXPECT_TRUE(Contains(m, "SM 0, warp slot 0, seq 6, PC 6: LDG.E R6, [R4]"));
}

TEST(Lockstep, AFaultTheRtlFindsOnlyAfterTheRetireIsConfirmed) {
  const Scenario s = faulting_scenario();
  const auto items = with_faulting_retire(s);
  for (const uint32_t pc : {6u, 0xFFFFFFFFu}) {  // a store's PC the RTL no longer knows
    auto mem = s.fresh_memory();
    Lockstep ls(*mem, s.rec.spec);
    uint64_t cycle = 0;
    for (const Item& it : items) ls.on_event(*it.event, cycle++);
    rtl::RtlFault f;
    f.kind = golden::FaultKind::OutOfBounds;
    f.sm = s.rec.fault_sm;
    f.warp = s.rec.fault_warp;
    f.pc = pc;
    try {
      ls.confirm_fault(f, "the RTL's account", cycle);
      FAIL() << "no exception";
    } catch (const golden::Fault& g) {
      EXPECT_EQ(std::string(g.what()), s.rec.fault->what());
    }
  }
  auto mem = s.fresh_memory();
  Lockstep ls(*mem, s.rec.spec);
  uint64_t cycle = 0;
  for (const Item& it : items) ls.on_event(*it.event, cycle++);
  rtl::RtlFault wrong;
  wrong.kind = golden::FaultKind::Trap;
  EXPECT_THROW(ls.confirm_fault(wrong, "a trap", cycle), LockstepMismatch);
}

TEST(Lockstep, AFaultTheRtlMustFindAtIssueIsAMismatchIfTheRtlRetiresIt) {
  // Alignment is checked at issue: retiring a misaligned load is wrong at once.
  const Scenario s = record_kernel(R"(
.kernel k
.param out u64
    S2R R0, SR_TID_X
    ISETP.EQ.U32 P0, PT, R0, 5
    MOV R4, c[0][out]
    MOV R5, c[0][out+4]
@P0 IADD R4, R4, 2
    LDG.E R6, [R4]                  // thread 5's address is not a multiple of 4
    EXIT
)",
                                   Dim3{1, 1, 1}, Dim3{32, 1, 1}, [](Runtime& rt) { return KernelArgs().ptr(rt.malloc(4)); });
  ASSERT_TRUE(s.rec.fault);
  ASSERT_EQ(s.rec.fault->kind, golden::FaultKind::Misaligned);
  const std::string m = mismatch(s, with_faulting_retire(s));
  EXPECT_TRUE(Contains(m, "the golden model faulted on an instruction the RTL retired"));
  EXPECT_TRUE(Contains(m, "misaligned access: global address"));
  EXPECT_TRUE(Contains(m, "LDG.E R6, [R4]"));
}

TEST(Lockstep, AFaultTheGoldenModelAgreesWithIsTheGoldenModelsFault) {
  const Scenario s = faulting_scenario();
  const auto run_to_fault = [&](golden::FaultKind kind, uint32_t pc) {
    auto mem = s.fresh_memory();
    Lockstep ls(*mem, s.rec.spec);
    uint64_t cycle = 0;
    for (const Item& it : s.items)
      if (it.event) ls.on_event(*it.event, cycle++);
    rtl::RtlFault f;
    f.kind = kind;
    f.sm = s.rec.fault_sm;
    f.warp = s.rec.fault_warp;
    f.pc = pc;
    f.lane = 5;
    ls.confirm_fault(f, "the RTL's account", cycle);
  };
  const uint32_t pc = *s.rec.fault->site.pc;
  try {
    run_to_fault(golden::FaultKind::OutOfBounds, pc);
    FAIL() << "no exception";
  } catch (const golden::Fault& f) {
    EXPECT_EQ(f.kind, golden::FaultKind::OutOfBounds);
    EXPECT_EQ(std::string(f.what()), s.rec.fault->what());  // the golden model's own report
  }
  try {
    run_to_fault(golden::FaultKind::Misaligned, pc);
    FAIL() << "no exception";
  } catch (const LockstepMismatch& m) {
    EXPECT_TRUE(Contains(m.what(), "the RTL reports misaligned access (the RTL's account), but the golden model faults differently"));
  }
  EXPECT_THROW(run_to_fault(golden::FaultKind::OutOfBounds, pc + 1), LockstepMismatch);
}

}  // namespace
