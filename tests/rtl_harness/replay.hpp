// Test-only stand-ins for the RTL: a recorder that drives the golden model through its lockstep
// interface (placement and stepping chosen here, as an RTL would), a converter that turns the
// recorded commits into the commit-port event stream docs/gpu-interfaces.md §3 specifies (REG
// events per group of SpLanes lanes, loads' data after their RETIRE, BRED results after the
// barrier opens) plus the memory writes an RTL would send, and a Backend that records a launch.
#pragma once

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>
#include <variant>
#include <vector>

#include "golden/model.hpp"
#include "isa/isa.hpp"
#include "rtl/gpu_pins.hpp"
#include "runtime/runtime.hpp"

namespace tsm::rtltest {

namespace g = isa::gen;
using rtl::CommitEvent;
using rtl::MemRequest;

struct Place {
  uint32_t sm;
  uint32_t block;
};
using Step = std::variant<Place, golden::Commit>;

struct Recording {
  golden::LaunchSpec spec;
  std::vector<Step> steps;
  std::optional<golden::Fault> fault;  // the golden model faulted here (steps end before it)
  uint32_t fault_sm = 0, fault_warp = 0;
};

/// Runs a launch through place_block/step on `memory`: blocks in linear order, round-robin over
/// the SMs up to the occupancy, one instruction per SM per round, warps round-robin.
inline Recording record(golden::DeviceMemory& memory, const golden::LaunchSpec& spec) {
  Recording rec;
  rec.spec = spec;
  golden::GoldenModel gm(memory);
  gm.begin(spec);
  const auto& cfg = *spec.config;
  const Occupancy occ = compute_occupancy(cfg, spec.block, {spec.kernel->regs, spec.kernel->shared_bytes + spec.dynamic_shared});
  const uint64_t total = spec.grid.count();
  const uint32_t wpb = static_cast<uint32_t>((spec.block.count() + 31) / 32);
  uint32_t next = 0;
  std::vector<std::vector<int64_t>> slot_block(cfg.num_sms, std::vector<int64_t>(cfg.max_warps, -1));
  std::vector<std::map<int64_t, uint32_t>> live_warps(cfg.num_sms);  // block -> warps not exited
  std::vector<uint32_t> last(cfg.num_sms, cfg.max_warps - 1);
  const auto place = [&](uint32_t sm) {
    gm.place_block(sm, next);
    rec.steps.emplace_back(Place{sm, next});
    uint32_t n = 0;
    for (uint32_t s = 0; s < cfg.max_warps && n < wpb; ++s)
      if (slot_block[sm][s] < 0) slot_block[sm][s] = next, ++n;
    live_warps[sm][next] = wpb;
    ++next;
  };
  for (uint32_t round = 0; round < occ.blocks_per_sm; ++round)
    for (uint32_t sm = 0; sm < cfg.num_sms && next < total; ++sm) place(sm);
  while (!gm.finished()) {
    bool progress = false;
    for (uint32_t sm = 0; sm < cfg.num_sms; ++sm) {
      for (uint32_t k = 1; k <= cfg.max_warps; ++k) {
        const uint32_t slot = (last[sm] + k) % cfg.max_warps;
        if (!gm.ready(sm, slot)) continue;
        last[sm] = slot;
        golden::Commit c;
        try {
          c = gm.step(sm, slot);
        } catch (const golden::Fault& f) {
          rec.fault = f;
          rec.fault_sm = sm;
          rec.fault_warp = slot;
          return rec;
        }
        if (c.warp_exited) {
          const int64_t b = slot_block[sm][slot];
          slot_block[sm][slot] = -1;
          if (--live_warps[sm][b] == 0) live_warps[sm].erase(b);
        }
        rec.steps.emplace_back(std::move(c));
        progress = true;
        break;
      }
      while (live_warps[sm].size() < occ.blocks_per_sm && next < total) place(sm);
    }
    if (!progress) throw std::runtime_error("recorder: no warp can issue (barrier deadlock?)");
  }
  return rec;
}

/// One thing an RTL does: a commit event, or a memory write it sends.
struct Item {
  std::optional<CommitEvent> event;
  std::optional<MemRequest> write;
};

struct ConvertOptions {
  unsigned late_delay = 3;      // steps after its RETIRE that a load's data arrives
  bool fake_clock = true;       // S2R SR_CLOCK reads 0x1000 + seq: lockstep must push it
};

inline std::optional<g::Op> opcode(uint64_t insn) {
  const auto d = isa::decode(insn);
  return d ? std::optional<g::Op>(static_cast<g::Op>(d.insn->opcode)) : std::nullopt;
}

inline std::vector<CommitEvent> reg_events(uint32_t sm, uint32_t warp, uint64_t seq, const golden::Commit::RegWrite& rw,
                                           unsigned sp_lanes) {
  std::vector<CommitEvent> out;
  for (unsigned i = 0; i < rw.count; ++i)
    for (uint32_t grp = 0; grp < 32 / sp_lanes; ++grp) {
      CommitEvent e;
      e.sm = sm;
      e.kind = rtl::kReg;
      e.warp = warp;
      e.seq = static_cast<uint32_t>(seq);
      e.reg = static_cast<uint8_t>(rw.reg + i);
      e.group = grp;
      for (unsigned l = 0; l < sp_lanes; ++l) {
        const unsigned lane = grp * sp_lanes + l;
        if (!(rw.lanes >> lane & 1)) continue;
        e.lanes |= 1u << l;
        e.data[l] = rw.values[lane][i];
      }
      if (e.lanes) out.push_back(e);
    }
  return out;
}

inline std::vector<Item> to_items(const Recording& rec, unsigned sp_lanes, const ConvertOptions& opt = {}) {
  std::vector<Item> out;
  std::deque<std::pair<size_t, std::vector<CommitEvent>>> late;  // (due step, events)
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> bred_seq;
  const auto emit = [&](const CommitEvent& e) { out.push_back(Item{e, std::nullopt}); };
  const auto flush = [&](size_t upto) {
    while (!late.empty() && late.front().first <= upto) {
      for (const auto& e : late.front().second) emit(e);
      late.pop_front();
    }
  };
  for (size_t i = 0; i < rec.steps.size(); ++i) {
    flush(i);
    if (const auto* p = std::get_if<Place>(&rec.steps[i])) {
      flush(SIZE_MAX);  // a slot is reused only once its previous warp's writes are done
      CommitEvent e;
      e.sm = p->sm;
      e.kind = rtl::kPlace;
      e.data[0] = p->block;
      emit(e);
      continue;
    }
    const auto& c = std::get<golden::Commit>(rec.steps[i]);
    const auto op = opcode(c.insn);
    std::vector<CommitEvent> regs, preds, stores;
    for (const auto& rw : c.regs) {
      auto ev = reg_events(c.sm, c.warp_slot, c.seq, rw, sp_lanes);
      if (opt.fake_clock && op == g::Op::S2R) {
        const auto sr = static_cast<g::Sreg>(isa::get(c.insn, isa::Field::sreg));
        if (sr == g::Sreg::CLOCK || sr == g::Sreg::CLOCK_HI)
          for (auto& e : ev)
            for (auto& d : e.data) d = sr == g::Sreg::CLOCK ? 0x1000 + static_cast<uint32_t>(c.seq) : 7;
      }
      regs.insert(regs.end(), ev.begin(), ev.end());
    }
    for (const auto& pw : c.preds)
      for (uint32_t grp = 0; grp < 32 / sp_lanes; ++grp) {
        CommitEvent e;
        e.sm = c.sm;
        e.kind = rtl::kPred;
        e.warp = c.warp_slot;
        e.seq = static_cast<uint32_t>(c.seq);
        e.reg = pw.pred;
        e.group = grp;
        for (unsigned l = 0; l < sp_lanes; ++l) {
          const unsigned lane = grp * sp_lanes + l;
          if (!(pw.lanes >> lane & 1)) continue;
          e.lanes |= 1u << l;
          e.data[l] = pw.values >> lane & 1;
        }
        if (e.lanes) preds.push_back(e);
      }
    // Global stores coalesced into lines (a later lane's byte wins, as in the golden model).
    std::map<uint32_t, std::pair<uint16_t, std::array<uint8_t, 16>>> lines;
    std::vector<MemRequest> atomic_writes;
    for (const auto& s : c.stores) {
      std::array<uint8_t, 16> bytes{};
      std::memcpy(bytes.data(), s.data.data(), 16);
      if (s.atomic) {  // performed at the memory by the RTL; here written back as a line write
        MemRequest w;
        w.kind = rtl::kMemWrite;
        w.addr = s.addr & ~15u;
        std::array<uint8_t, 16> line{};
        for (unsigned b = 0; b < s.bytes; ++b) {
          line[(s.addr + b) % 16] = bytes[b];
          w.mask |= static_cast<uint16_t>(1u << ((s.addr + b) % 16));
        }
        std::memcpy(w.data.data(), line.data(), 16);
        atomic_writes.push_back(w);
        continue;
      }
      for (unsigned b = 0; b < s.bytes; ++b) {
        auto& [mask, line] = lines[(s.addr + b) & ~15u];
        mask |= static_cast<uint16_t>(1u << ((s.addr + b) % 16));
        line[(s.addr + b) % 16] = bytes[b];
      }
    }
    for (const auto& [addr, ml] : lines) {
      CommitEvent e;
      e.sm = c.sm;
      e.kind = rtl::kStore;
      e.warp = c.warp_slot;
      e.seq = static_cast<uint32_t>(c.seq);
      e.addr = addr;
      e.mask = ml.first;
      std::memcpy(e.wdata.data(), ml.second.data(), 16);
      stores.push_back(e);
    }
    CommitEvent retire;
    retire.sm = c.sm;
    retire.kind = rtl::kRetire;
    retire.warp = c.warp_slot;
    retire.seq = static_cast<uint32_t>(c.seq);
    retire.pc = c.pc;
    retire.active = c.active;
    retire.exec = c.executed;
    retire.exit = c.warp_exited;

    const bool load = op == g::Op::LDG || op == g::Op::LD || op == g::Op::LDL || op == g::Op::LDC;
    if (op == g::Op::BRED) bred_seq[{c.sm, c.warp_slot}] = c.seq;
    if (!load && op != g::Op::BRED)
      for (const auto& e : regs) emit(e);
    for (const auto& e : preds) emit(e);
    for (const auto& e : stores) {
      emit(e);
      MemRequest w;
      w.kind = rtl::kMemWrite;
      w.addr = e.addr;
      w.mask = e.mask;
      w.data = e.wdata;
      out.push_back(Item{std::nullopt, w});
    }
    for (const auto& w : atomic_writes) out.push_back(Item{std::nullopt, w});
    emit(retire);
    if (load && !regs.empty()) late.emplace_back(i + opt.late_delay, regs);
    for (const auto& rel : c.released)
      if (rel.reduction) {
        const auto ev = reg_events(c.sm, rel.warp_slot, bred_seq.at({c.sm, rel.warp_slot}), *rel.reduction, sp_lanes);
        for (const auto& e : ev) emit(e);
      }
  }
  flush(SIZE_MAX);
  return out;
}

/// A Backend that records launches with record() over its own golden memory, keeping a snapshot
/// of device memory as each launch began.
class RecordingBackend : public Backend {
 public:
  std::string name() const override { return "recording"; }
  void map(DevicePtr addr, uint32_t bytes) override {
    memory_.map(addr, bytes);
    allocations_[addr] = bytes;
  }
  void unmap(DevicePtr addr) override {
    memory_.unmap(addr);
    allocations_.erase(addr);
  }
  void write(DevicePtr addr, std::span<const uint8_t> bytes) override { memory_.write(addr, bytes); }
  void read(DevicePtr addr, std::span<uint8_t> bytes) override { memory_.read(addr, bytes); }
  golden::LaunchStats launch(const golden::LaunchSpec& spec) override {
    Snapshot snap;
    for (const auto& [start, size] : allocations_) {
      std::vector<uint8_t> bytes(size);
      memory_.read(start, bytes);
      snap.emplace_back(start, std::move(bytes));
    }
    snapshots.push_back(std::move(snap));
    recordings.push_back(record(memory_, spec));
    uint64_t n = 0, t = 0;
    for (const auto& s : recordings.back().steps)
      if (const auto* c = std::get_if<golden::Commit>(&s)) ++n, t += static_cast<uint64_t>(__builtin_popcount(c->executed));
    golden::LaunchStats st;
    st.warp_instructions = n;
    st.thread_instructions = t;
    return st;
  }
  using Snapshot = std::vector<std::pair<uint32_t, std::vector<uint8_t>>>;
  std::vector<Recording> recordings;
  std::vector<Snapshot> snapshots;  // device memory before each launch

 private:
  golden::DeviceMemory memory_;
  std::map<uint32_t, uint32_t> allocations_;
};

}  // namespace tsm::rtltest
