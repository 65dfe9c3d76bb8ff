// Lockstep of the RTL's commit port against the golden model.
#include "rtl/lockstep.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tsm::rtl {

namespace g = isa::gen;

namespace {

constexpr unsigned kWarpSize = golden::kWarpSize;
constexpr size_t kMaxHeld = 4096;  // RETIREs held back for one warp before we call it a bug

std::optional<g::Op> opcode_of(uint64_t insn) {
  const isa::Decoded d = isa::decode(insn);
  if (!d) return std::nullopt;
  return static_cast<g::Op>(d.insn->opcode);
}

/// Global accesses, whose bounds only the memory knows: the RTL retires them before its error
/// (isa.toml's faults_after_retire).
bool bounded_at_memory(g::Op op) { return isa::find_opcode(static_cast<uint8_t>(op))->faults_after_retire; }

/// Instructions whose register writes follow the RETIRE (docs/gpu-interfaces.md §3, "Ordering";
/// isa.toml's writes_after_retire): loads, BRED, and MUFU, whose rows the SFU sequencer runs after
/// the engine retired it.
bool writes_after_retire(g::Op op) { return isa::find_opcode(static_cast<uint8_t>(op))->writes_after_retire; }

std::string hex32(uint32_t v) { return fmt::format("{:#010x}", v); }

/// A "lane  expected  RTL" table, one row per differing lane.
struct Row {
  std::string lane, expected, actual;
};
std::string table(const std::string& title, const std::vector<Row>& rows, std::string_view expected = "expected",
                  std::string_view actual = "RTL") {
  size_t w1 = 4, w2 = expected.size();
  for (const Row& r : rows) {
    w1 = std::max(w1, r.lane.size());
    w2 = std::max(w2, r.expected.size());
  }
  std::string s = fmt::format("  {}\n    {:>{}}  {:<{}}  {}", title, "lane", w1, expected, w2, actual);
  for (const Row& r : rows) s += fmt::format("\n    {:>{}}  {:<{}}  {}", r.lane, w1, r.expected, w2, r.actual);
  return s;
}

std::string reg_name(uint8_t r) { return r == isa::kRZ ? "RZ" : fmt::format("R{}", r); }

}  // namespace

// ---- setup ------------------------------------------------------------------------------------------

Lockstep::Lockstep(const MemoryModel& memory, const golden::LaunchSpec& spec, LockstepOptions options)
    : memory_(memory), spec_(spec), options_(std::move(options)) {
  if (!spec_.module || !spec_.kernel || !spec_.config) throw std::invalid_argument("Lockstep: the LaunchSpec needs a module, a kernel and a config");
  sp_lanes_ = spec_.config->sp_lanes;
  if (sp_lanes_ == 0 || sp_lanes_ > kMaxSpLanes || kWarpSize % sp_lanes_)
    throw std::invalid_argument(fmt::format("Lockstep: {} SP lanes cannot be carried by the commit port (at most {})", sp_lanes_, kMaxSpLanes));
  // The golden model's own copy of device memory as the launch starts. Untouched bytes read as zero
  // in a fresh DeviceMemory, so only chunks holding data are copied.
  std::vector<uint8_t> chunk(4096);
  for (const auto& [start, size] : memory_.allocations()) {
    golden_memory_.map(start, size);
    initial_memory_.map(start, size);
    for (uint64_t a = start; a < uint64_t{start} + size; a += chunk.size()) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), uint64_t{start} + size - a));
      const std::span<uint8_t> part(chunk.data(), n);
      memory_.read(static_cast<uint32_t>(a), part);
      if (std::any_of(part.begin(), part.end(), [](uint8_t b) { return b != 0; })) {
        golden_memory_.write(static_cast<uint32_t>(a), part);
        initial_memory_.write(static_cast<uint32_t>(a), part);
      }
    }
  }
  golden_ = std::make_unique<golden::GoldenModel>(golden_memory_);
  golden_->begin(spec_);
  warps_per_block_ = static_cast<uint32_t>((spec_.block.count() + kWarpSize - 1) / kWarpSize);
  ops_.reserve(spec_.module->text.size());
  for (uint64_t word : spec_.module->text) ops_.push_back(opcode_of(word));
  warps_.assign(spec_.config->num_sms, std::vector<WarpState>(spec_.config->max_warps));
  waiting_.resize(spec_.config->num_sms);
}

Lockstep::~Lockstep() = default;

// ---- reports ----------------------------------------------------------------------------------------

Lockstep::Where Lockstep::where_of(const CommitEvent& e) const {
  const auto& text = spec_.module->text;
  return Where{e.sm, e.warp, e.seq, e.pc, e.pc < text.size() ? text[e.pc] : 0};
}

std::string Lockstep::history_of(uint32_t sm, uint32_t warp) const {
  const WarpState& w = warps_[sm][warp];
  if (w.history.empty()) return "  no earlier commits of this warp";
  std::string s = fmt::format("  last {} commits of warp slot {} (oldest first):", w.history.size(), warp);
  for (const History& h : w.history) s += fmt::format("\n    seq {:<6} PC {:<5} {}", h.seq, h.pc, isa::disassemble(h.insn, h.pc));
  return s;
}

void Lockstep::fail(const std::string& what, const Where& where, const std::string& details, uint64_t cycle) const {
  std::string m = fmt::format("lockstep mismatch at cycle {}: {}", cycle, what);
  const bool located = where.sm < warps_.size() && where.warp < warps_[where.sm].size();
  if (located)
    m += fmt::format("\n  kernel {}, SM {}, warp slot {}, seq {}, PC {}: {}", spec_.kernel->name, where.sm, where.warp, where.seq,
                     where.pc, isa::disassemble(where.insn, where.pc));
  if (!details.empty()) m += "\n" + details;
  if (located) m += "\n" + history_of(where.sm, where.warp);
  throw LockstepMismatch(m);
}

// ---- events -----------------------------------------------------------------------------------------

void Lockstep::on_event(const CommitEvent& e, uint64_t cycle) {
  if (e.sm >= warps_.size())
    fail(fmt::format("a commit event of SM {}, but the launch runs on {} SMs", e.sm, warps_.size()), Where{}, "", cycle);
  if (e.kind != kPlace && e.warp >= warps_[e.sm].size())
    fail(fmt::format("a commit event of warp slot {} of SM {}, which has {} warp slots", e.warp, e.sm, warps_[e.sm].size()),
         Where{}, "", cycle);
  // Blocks are placed in linear order; an SM whose PLACE is early waits, its later events too.
  auto& queue = waiting_[e.sm];
  if (!queue.empty() || (e.kind == kPlace && e.data[0] != next_block_)) {
    queue.emplace_back(e, cycle);
    return;
  }
  process(e, cycle);
  if (e.kind != kPlace) return;
  for (bool progress = true; progress;) {  // a PLACE may let other SMs go on
    progress = false;
    for (auto& q : waiting_) {
      while (!q.empty() && (q.front().first.kind != kPlace || q.front().first.data[0] == next_block_)) {
        const auto [w, at] = q.front();
        q.pop_front();
        process(w, at);
        progress = true;
      }
    }
  }
}

void Lockstep::process(const CommitEvent& e, uint64_t cycle) {
  if (e.kind != kPlace && warps_[e.sm][e.warp].faulted) return;  // the golden model cannot follow this warp
  switch (e.kind) {
    case kPlace: on_place(e, cycle); break;
    case kReg: on_reg(e, cycle); break;
    case kPred: on_pred(e, cycle); break;
    case kStore: on_store(e, cycle); break;
    case kRetire: on_retire(e, cycle); break;
    case kRegRetire:
    case kPredRetire: {
      CommitEvent part = e;
      part.kind = e.kind == kRegRetire ? kReg : kPred;
      if (part.kind == kReg) on_reg(part, cycle);
      else on_pred(part, cycle);
      if (warps_[e.sm][e.warp].faulted) break;
      part.kind = kRetire;
      on_retire(part, cycle);
      break;
    }
    default: fail(fmt::format("commit event kind {} is undefined (0 RETIRE .. 6 PRED+RETIRE)", e.kind), where_of(e), "", cycle);
  }
}

void Lockstep::on_place(const CommitEvent& e, uint64_t cycle) {
  const uint32_t linear = e.data[0];
  try {
    golden_->place_block(e.sm, linear);
  } catch (const std::exception& x) {
    fail(fmt::format("the RTL placed block {} on SM {}, which the golden model refuses: {}", linear, e.sm, x.what()), Where{}, "",
         cycle);
  }
  ++next_block_;
  // The golden model's rule: the block's warps take the lowest free warp slots.
  auto& sm = warps_[e.sm];
  uint32_t placed = 0;
  for (uint32_t slot = 0; slot < sm.size() && placed < warps_per_block_; ++slot) {
    WarpState& w = sm[slot];
    if (w.resident) continue;
    for (const auto& [seq, r] : w.records)
      fail(fmt::format("block {} was placed into warp slot {} while instruction seq {} of its previous warp is incomplete", linear, slot,
                       seq),
           Where{e.sm, slot, seq, r.pc, r.insn}, "", cycle);
    w = WarpState{};
    w.resident = true;
    w.block = linear;
    ++placed;
  }
}

Lockstep::Record* Lockstep::record_for(WarpState& w, const CommitEvent& e, uint64_t cycle, const char* what) {
  if (auto it = w.records.find(e.seq); it != w.records.end()) return &it->second;
  if (e.seq < w.next_seq)
    fail(fmt::format("{} for seq {}, an instruction that already retired and completed", what, e.seq), where_of(e), "", cycle);
  if (!w.resident) fail(fmt::format("{} for warp slot {}, which holds no warp", what, e.warp), where_of(e), "", cycle);
  Record& r = w.records[e.seq];
  r.seq = e.seq;
  return &r;
}

void Lockstep::on_reg(const CommitEvent& e, uint64_t cycle) {
  WarpState& w = warps_[e.sm][e.warp];
  Record& r = *record_for(w, e, cycle, "a register write");
  if (e.group >= kWarpSize / sp_lanes_)
    fail(fmt::format("a register write to lane group {}, but there are {} groups of {} lanes", e.group, kWarpSize / sp_lanes_, sp_lanes_),
         where_of(e), "", cycle);
  if (e.reg == isa::kRZ) return;  // writes to RZ are discarded
  for (unsigned l = 0; l < sp_lanes_; ++l) {
    if (!(e.lanes >> l & 1)) continue;
    const uint32_t lane = e.group * sp_lanes_ + l;
    const auto [it, fresh] = r.regs.emplace(RegLane{e.reg, lane}, e.data[l]);
    if (!fresh)
      fail(fmt::format("{} of lane {} written twice by one instruction ({} then {})", reg_name(e.reg), lane, hex32(it->second),
                       hex32(e.data[l])),
           r.retired ? Where{e.sm, e.warp, r.seq, r.pc, r.insn} : where_of(e), "", cycle);
  }
  if (r.retired) {
    match_registers(r, Where{e.sm, e.warp, r.seq, r.pc, r.insn}, cycle, false);
    settle(w, r.seq);
  }
}

void Lockstep::on_pred(const CommitEvent& e, uint64_t cycle) {
  WarpState& w = warps_[e.sm][e.warp];
  Record& r = *record_for(w, e, cycle, "a predicate write");
  if (r.retired) fail(fmt::format("a write of P{} after the instruction retired", e.reg), Where{e.sm, e.warp, r.seq, r.pc, r.insn}, "", cycle);
  if (e.group >= kWarpSize / sp_lanes_)
    fail(fmt::format("a predicate write to lane group {}, but there are {} groups", e.group, kWarpSize / sp_lanes_), where_of(e), "", cycle);
  if (e.reg == isa::kPT) return;
  for (unsigned l = 0; l < sp_lanes_; ++l)
    if (e.lanes >> l & 1) r.preds[RegLane{e.reg, e.group * sp_lanes_ + l}] = (e.data[l] & 1) != 0;
}

void Lockstep::on_store(const CommitEvent& e, uint64_t cycle) {
  WarpState& w = warps_[e.sm][e.warp];
  Record& r = *record_for(w, e, cycle, "a global store");
  if (r.retired) fail("a global store after the instruction retired", Where{e.sm, e.warp, r.seq, r.pc, r.insn}, "", cycle);
  if (e.addr % 16) fail(fmt::format("a store event with line address {:#010x}, which is not 16-byte aligned", e.addr), where_of(e), "", cycle);
  std::array<uint8_t, 16> line{};
  std::memcpy(line.data(), e.wdata.data(), 16);
  for (unsigned i = 0; i < 16; ++i)
    if ((e.mask >> i & 1) && !is_private(e.addr + i)) r.stores[e.addr + i] = line[i];
}

void Lockstep::on_retire(const CommitEvent& e, uint64_t cycle) {
  WarpState& w = warps_[e.sm][e.warp];
  if (!w.resident && w.records.find(e.seq) == w.records.end())
    fail(fmt::format("the RTL retired an instruction of warp slot {}, which holds no warp (no block placed there, or its warp exited)",
                     e.warp),
         where_of(e), "", cycle);
  if (e.seq != w.next_seq)
    fail(fmt::format("retired out of order: the warp's next instruction is seq {}, the RTL retired seq {}", w.next_seq, e.seq), where_of(e),
         "", cycle);
  (void)record_for(w, e, cycle, "a RETIRE");
  ++w.next_seq;
  if (!w.held.empty() || !golden_->ready(e.sm, e.warp)) {
    // The golden model still holds the warp at a barrier: the warp that opens it has not retired
    // its barrier instruction yet. Take this one when the barrier opens.
    if (w.held.size() >= kMaxHeld)
      fail(fmt::format("the RTL retired {} instructions of a warp the golden model holds at a barrier", w.held.size()), where_of(e), "",
           cycle);
    w.held.push_back(e);
    return;
  }
  retire(e, cycle);
}

void Lockstep::release_held(uint32_t sm, uint32_t slot, uint64_t cycle) {
  WarpState& w = warps_[sm][slot];
  while (!w.held.empty() && golden_->ready(sm, slot)) {
    const CommitEvent e = w.held.front();
    w.held.pop_front();
    retire(e, cycle);
  }
}

/// What only the RTL knows, from the events of the instruction received so far: the clock an
/// S2R read, the old values of a global atomic.
golden::StepInputs Lockstep::step_inputs(const CommitEvent& e, const Record& r, uint32_t& pushed) const {
  golden::StepInputs inputs;
  pushed = 0;
  const auto& text = spec_.module->text;
  const uint64_t rtl_insn = e.pc < text.size() ? text[e.pc] : 0;
  const std::optional<g::Op> rtl_op = op_at(e.pc);
  const auto rd = static_cast<uint8_t>(isa::get(rtl_insn, isa::Field::rd));
  if (rtl_op == g::Op::S2R) {
    const auto sreg = static_cast<g::Sreg>(isa::get(rtl_insn, isa::Field::sreg));
    if (sreg == g::Sreg::CLOCK || sreg == g::Sreg::CLOCK_HI) {
      const auto it = std::find_if(r.regs.begin(), r.regs.end(), [&](const auto& kv) { return kv.first.first == rd; });
      if (it != r.regs.end()) inputs.clock = sreg == g::Sreg::CLOCK ? uint64_t{it->second} : uint64_t{it->second} << 32;
    }
  }
  if (rtl_op == g::Op::ATOM || rtl_op == g::Op::ATOMCAS) {
    // Global atomics' old values, in the order memory performed them (the golden model uses them
    // for global lanes only, so generic lanes that resolve to shared memory are unaffected).
    const auto type = static_cast<g::Atype>(isa::get(rtl_insn, isa::Field::atype));
    const bool wide = type == g::Atype::U64 || type == g::Atype::S64;
    std::array<std::array<uint32_t, 4>, kWarpSize> results{};
    bool any = false;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      if (auto lo = r.regs.find(RegLane{rd, lane}); lo != r.regs.end()) {
        results[lane][0] = lo->second;
        pushed |= 1u << lane;
        any = true;
      }
      if (auto hi = r.regs.find(RegLane{static_cast<uint8_t>(rd + 1), lane}); wide && hi != r.regs.end()) results[lane][1] = hi->second;
    }
    if (any) inputs.memory_results = results;
  }
  return inputs;
}

void Lockstep::retire(const CommitEvent& e, uint64_t cycle) {
  WarpState& w = warps_[e.sm][e.warp];
  Record& r = w.records.at(e.seq);
  const auto& text = spec_.module->text;
  const uint64_t rtl_insn = e.pc < text.size() ? text[e.pc] : 0;
  golden::Commit c;
  uint32_t pushed = 0;
  const golden::StepInputs inputs = step_inputs(e, r, pushed);
  try {
    c = golden_->step(e.sm, e.warp, inputs);
  } catch (const golden::Fault& f) {
    const std::optional<g::Op> op = op_at(e.pc);
    if (f.kind == golden::FaultKind::OutOfBounds && op && bounded_at_memory(*op)) {
      // The RTL finds out from the memory's err, after this RETIRE: it must report this fault (or
      // another warp's, pending too).
      pending_faults_.push_back(PendingFault{f, where_of(e), cycle});
      w.faulted = true;
      w.held.clear();
      return;
    }
    fail(fmt::format("the golden model faulted on an instruction the RTL retired:\n  {}", f.what()), where_of(e), "", cycle);
  } catch (const std::logic_error& x) {
    fail(fmt::format("the golden model cannot step this warp: {}", x.what()), where_of(e), "", cycle);
  }
  ++retired_;
  r.retired = true;
  r.pc = c.pc;
  r.insn = c.insn;
  w.history.push_back(History{c.seq, c.pc, c.insn});
  while (w.history.size() > options_.history) w.history.pop_front();
  const Where where{e.sm, e.warp, e.seq, c.pc, c.insn};

  // Control: PC, masks, exit.
  if (c.pc != e.pc)
    fail(fmt::format("PC differs: the golden model's next instruction of this warp is PC {}, the RTL retired PC {} ({})", c.pc, e.pc,
                     isa::disassemble(rtl_insn, e.pc)),
         where, "", cycle);
  const auto mask_diff = [&](const char* name, uint32_t expected, uint32_t actual) {
    if (expected == actual) return;
    std::vector<Row> rows;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if ((expected ^ actual) >> l & 1) rows.push_back({std::to_string(l), (expected >> l & 1) ? "in" : "out", (actual >> l & 1) ? "in" : "out"});
    fail(fmt::format("{} mask differs: golden {}, RTL {}", name, hex32(expected), hex32(actual)), where, table(name, rows), cycle);
  };
  mask_diff("active", c.active, e.active);
  mask_diff("executed", c.executed, e.exec);
  if (c.warp_exited != e.exit)
    fail(c.warp_exited ? "the golden model's warp has no live threads left after this instruction; the RTL's exit flag is clear"
                       : "the RTL's exit flag says the warp has no live threads left; the golden model's warp lives on",
         where, "", cycle);

  compare_predicates(c, r, where, cycle);
  compare_stores(c, r, where, cycle);
  note_stores(c, inputs, pushed);

  // Registers. Loads' data and BRED results may follow the RETIRE.
  const std::optional<g::Op> op = op_at(c.pc);
  r.late_writes = op && writes_after_retire(*op);
  for (const auto& rw : c.regs)
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (rw.lanes >> l & 1)
        for (unsigned i = 0; i < rw.count; ++i)
          if (rw.reg + i != isa::kRZ) r.expected[RegLane{static_cast<uint8_t>(rw.reg + i), l}] = rw.values[l][i];
  if (op == g::Op::BRED && c.executed != 0) {
    r.awaits_release = true;
    w.bred_seq = e.seq;
  }
  // A barrier this instruction opened hands BRED results to the warps it releases.
  for (const auto& rel : c.released) {
    WarpState& t = warps_[e.sm][rel.warp_slot];
    if (!t.bred_seq) continue;
    Record& tr = t.records.at(*t.bred_seq);
    tr.awaits_release = false;
    t.bred_seq.reset();
    if (rel.reduction)
      for (unsigned l = 0; l < kWarpSize; ++l)
        if ((rel.reduction->lanes >> l & 1) && rel.reduction->reg != isa::kRZ) tr.expected[RegLane{rel.reduction->reg, l}] = rel.reduction->values[l][0];
    if (&tr != &r) {
      match_registers(tr, Where{e.sm, rel.warp_slot, tr.seq, tr.pc, tr.insn}, cycle, false);
      settle(t, tr.seq);
    }
  }
  match_registers(r, where, cycle, true);

  if (c.warp_exited) w.resident = false;
  const uint64_t seq = e.seq;
  settle(w, seq);
  for (const auto& rel : c.released) release_held(e.sm, rel.warp_slot, cycle);
}

/// Predicates are all written before the RETIRE.
void Lockstep::compare_predicates(const golden::Commit& c, const Record& r, const Where& where, uint64_t cycle) const {
  std::map<RegLane, bool> expected;
  for (const auto& p : c.preds)
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (p.lanes >> l & 1) expected[RegLane{p.pred, l}] = (p.values >> l & 1) != 0;
  if (expected == r.preds) return;
  const auto show = [](const std::map<RegLane, bool>& m, const RegLane& k) -> std::string {
    const auto it = m.find(k);
    return it == m.end() ? "(no write)" : it->second ? "1" : "0";
  };
  std::set<RegLane> keys;
  for (const auto& kv : expected) keys.insert(kv.first);
  for (const auto& kv : r.preds) keys.insert(kv.first);
  std::map<uint8_t, std::vector<Row>> rows;
  for (const RegLane& k : keys) {
    const std::string x = show(expected, k), a = show(r.preds, k);
    if (x != a) rows[k.first].push_back({std::to_string(k.second), x, a});
  }
  std::string details, names;
  for (const auto& [p, rs] : rows) {
    details += (details.empty() ? "" : "\n") + table(fmt::format("P{}", p), rs);
    names += fmt::format("{}P{} ({} of 32 lanes)", names.empty() ? "" : ", ", p, rs.size());
  }
  fail("predicate writes differ: " + names, where, details, cycle);
}

/// The bytes the golden model stored against the union of the STORE events' bytes.
void Lockstep::compare_stores(const golden::Commit& c, const Record& r, const Where& where, uint64_t cycle) const {
  std::map<uint32_t, uint8_t> expected;
  std::map<uint32_t, uint32_t> lane_of;
  for (const auto& s : c.stores) {
    if (s.atomic) continue;  // atomics are performed at the memory, not sent as STORE events
    std::array<uint8_t, 16> bytes{};
    std::memcpy(bytes.data(), s.data.data(), 16);
    for (unsigned i = 0; i < s.bytes; ++i) {
      if (is_private(s.addr + i)) continue;
      expected[s.addr + i] = bytes[i];
      lane_of[s.addr + i] = s.lane;
    }
  }
  if (expected == r.stores) return;
  // One row per differing byte, named by the golden lane that stored it ("-": only the RTL did).
  std::set<uint32_t> addresses;
  for (const auto& kv : expected) addresses.insert(kv.first);
  for (const auto& kv : r.stores) addresses.insert(kv.first);
  std::vector<Row> rows;
  size_t differing = 0;
  uint32_t first = 0;
  for (const uint32_t a : addresses) {
    const auto x = expected.find(a);
    const auto y = r.stores.find(a);
    if (x != expected.end() && y != r.stores.end() && x->second == y->second) continue;
    if (differing++ == 0) first = a;
    if (rows.size() >= 64) continue;
    rows.push_back({x != expected.end() ? std::to_string(lane_of[a]) : "-",
                    x != expected.end() ? fmt::format("[{:#010x}] = {:#04x}", a, x->second) : fmt::format("[{:#010x}] no store", a),
                    y != r.stores.end() ? fmt::format("{:#04x}", y->second) : "no store"});
  }
  fail(fmt::format("global stores differ (first at byte {:#010x}; {} differing bytes; the STORE events wrote {} bytes, the golden "
                   "model {})",
                   first, differing, r.stores.size(), expected.size()),
       where, table("stored bytes", rows), cycle);
}

void Lockstep::note_stores(const golden::Commit& c, const golden::StepInputs& inputs, uint32_t pushed) {
  for (const auto& s : c.stores) {
    if (!s.atomic) {
      for (uint32_t a = s.addr; a < s.addr + s.bytes; ++a) {
        auto& page = plain_stored_[a >> 12];
        if (page.empty()) page.resize(4096);
        page[a & 4095] = true;
      }
      continue;
    }
    AtomicChain& chain = atomic_chains_[{s.addr, s.bytes}];
    if (!(pushed >> s.lane & 1) || !inputs.memory_results) {
      chain.usable = false;
      continue;
    }
    const auto& old = (*inputs.memory_results)[s.lane];
    const bool wide = s.bytes == 8;
    chain.steps.push_back(AtomicStep{old[0] | (wide ? uint64_t{old[1]} << 32 : 0), s.step, c.sm, c.warp_slot, s.lane, c.seq, c.pc});
  }
}

void Lockstep::check_atomic_orders(uint64_t cycle) {
  const auto plainly_stored = [&](uint32_t addr, unsigned bytes) {
    for (uint32_t a = addr; a < addr + bytes; ++a)
      if (auto it = plain_stored_.find(a >> 12); it != plain_stored_.end() && it->second[a & 4095]) return true;
    return false;
  };
  // Atomics of another width on overlapping bytes (a 32-bit one on half of a 64-bit word) leave
  // each chain's order unrecoverable alone in the same way.
  const auto overlapped = [&](uint32_t addr, unsigned bytes) {
    for (auto it = atomic_chains_.lower_bound({addr >= 7 ? addr - 7 : 0, 0}); it != atomic_chains_.end() && it->first.first < addr + bytes;
         ++it) {
      const auto [a, n] = it->first;
      if ((a != addr || n != bytes) && a + n > addr) return true;
    }
    return false;
  };
  for (const auto& [key, chain] : atomic_chains_) {
    const auto [addr, bytes] = key;
    // With plain stores to the word, or old values the golden model chose, the memory's order is
    // not recoverable: the word is compared as the golden model left it.
    if (!chain.usable || plainly_stored(addr, bytes) || overlapped(addr, bytes)) continue;
    const uint64_t initial = initial_memory_.load(addr, bytes);
    const uint64_t final_value = memory_.device().load(addr, bytes);
    // An order exists iff the steps form a trail from `initial` to `final_value` (a directed
    // Euler trail over values): balanced degrees and every step reachable from the start.
    std::map<uint64_t, int64_t> balance;  // out - in
    std::map<uint64_t, std::vector<uint64_t>> next;
    for (const AtomicStep& st : chain.steps) {
      ++balance[st.old_value];
      --balance[st.new_value];
      next[st.old_value].push_back(st.new_value);
    }
    bool ok = true;
    for (const auto& [value, b] : balance) {
      const int64_t want = initial == final_value ? 0 : value == initial ? 1 : value == final_value ? -1 : 0;
      ok = ok && b == want;
    }
    if (initial != final_value) ok = ok && balance.count(initial) && balance.count(final_value);
    if (ok) {  // every step reachable from the initial value
      std::set<uint64_t> seen{initial};
      std::vector<uint64_t> todo{initial};
      size_t reached = 0;
      while (!todo.empty()) {
        const uint64_t v = todo.back();
        todo.pop_back();
        const auto it = next.find(v);
        if (it == next.end()) continue;
        reached += it->second.size();
        for (uint64_t n : it->second)
          if (seen.insert(n).second) todo.push_back(n);
      }
      ok = reached == chain.steps.size();
    }
    if (!ok) {
      std::vector<Row> rows;
      for (const AtomicStep& st : chain.steps) {
        if (rows.size() >= 64) break;
        rows.push_back({std::to_string(st.lane), fmt::format("{:#x} -> {:#x}", st.old_value, st.new_value),
                        fmt::format("SM {} warp slot {} seq {} PC {}: {}", st.sm, st.warp, st.seq, st.pc,
                                    isa::disassemble(spec_.module->text.at(st.pc), st.pc))});
      }
      fail(fmt::format("the global atomics on {:#010x} ({} bytes) fit no order of execution: no order of their {} steps (old -> new, "
                       "old values as the RTL returned them) leads from the initial value {:#x} to the final value {:#x} in memory",
                       addr, bytes, chain.steps.size(), initial, final_value),
           Where{}, table("the steps", rows, "old -> new", "instruction"), cycle);
    }
    golden_memory_.store(addr, bytes, final_value);  // the memory's order is the one that happened
  }
}

void Lockstep::match_registers(Record& r, const Where& where, uint64_t cycle, bool at_retire) {
  std::map<uint8_t, std::vector<Row>> diffs;
  for (auto it = r.expected.begin(); it != r.expected.end();) {
    const auto got = r.regs.find(it->first);
    if (got == r.regs.end()) {
      ++it;
      continue;
    }
    if (got->second != it->second) diffs[it->first.first].push_back({std::to_string(it->first.second), hex32(it->second), hex32(got->second)});
    r.regs.erase(got);
    it = r.expected.erase(it);
  }
  // Writes the golden model did not make (a BRED's result may still be on its way).
  if (!r.awaits_release)
    for (const auto& [k, v] : r.regs) diffs[k.first].push_back({std::to_string(k.second), "(no write)", hex32(v)});
  // Writes the RTL owes: only loads and BRED may deliver them after the RETIRE.
  if (at_retire && !r.late_writes)
    for (const auto& [k, v] : r.expected) diffs[k.first].push_back({std::to_string(k.second), hex32(v), "(no write)"});
  if (diffs.empty()) return;
  std::string details, names;
  for (auto& [reg, rows] : diffs) {
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return std::stoi(a.lane) < std::stoi(b.lane); });
    details += (details.empty() ? "" : "\n") + table(reg_name(reg), rows);
    names += fmt::format("{}{} ({} of 32 lanes)", names.empty() ? "" : ", ", reg_name(reg), rows.size());
  }
  fail("register writes differ: " + names, where, details, cycle);
}

void Lockstep::settle(WarpState& w, uint64_t seq) {
  const auto it = w.records.find(seq);
  if (it != w.records.end() && it->second.complete()) w.records.erase(it);
}

bool Lockstep::is_private(uint32_t addr) const {
  return std::any_of(options_.private_regions.begin(), options_.private_regions.end(),
                     [&](const auto& reg) { return addr - reg.first < reg.second; });
}

// ---- the end ----------------------------------------------------------------------------------------

void Lockstep::finish(uint64_t cycle) {
  for (uint32_t sm = 0; sm < waiting_.size(); ++sm)
    if (!waiting_[sm].empty()) {
      const CommitEvent& e = waiting_[sm].front().first;
      fail(fmt::format("the GPU finished, but SM {} placed block {} while block {} was never placed (blocks are placed in linear "
                       "order; {} events of SM {} wait behind it)",
                       sm, e.data[0], next_block_, waiting_[sm].size(), sm),
           Where{}, "", waiting_[sm].front().second);
    }
  if (!pending_faults_.empty())
    fail(fmt::format("the GPU finished without a fault, but the golden model faulted on this instruction when the RTL retired it "
                     "(at cycle {}):\n  {}",
                     pending_faults_.front().cycle, pending_faults_.front().fault.what()),
         pending_faults_.front().where, "", cycle);
  for (uint32_t sm = 0; sm < warps_.size(); ++sm) {
    for (uint32_t slot = 0; slot < warps_[sm].size(); ++slot) {
      const WarpState& w = warps_[sm][slot];
      if (!w.held.empty()) {
        const CommitEvent& e = w.held.front();
        fail(fmt::format("the GPU finished, but the RETIRE of seq {} is still held: the golden model keeps the warp at a barrier that "
                         "no other warp's instruction opened",
                         e.seq),
             where_of(e), "", cycle);
      }
      for (const auto& [seq, r] : w.records) {
        const Where where{sm, slot, seq, r.pc, r.insn};
        if (!r.retired) fail(fmt::format("the GPU finished, but instruction seq {} sent events and never retired", seq), where, "", cycle);
        if (r.awaits_release) fail("the GPU finished, but this BRED's barrier never opened in the golden model", where, "", cycle);
        std::map<uint8_t, std::vector<Row>> missing;
        for (const auto& [k, v] : r.expected) missing[k.first].push_back({std::to_string(k.second), hex32(v), "(no write)"});
        std::string details;
        for (const auto& [reg, rows] : missing) details += (details.empty() ? "" : "\n") + table(reg_name(reg), rows);
        if (!details.empty()) fail("the GPU finished without writing every register this instruction writes", where, details, cycle);
        fail("the GPU finished with this instruction incomplete", where, "", cycle);
      }
    }
  }
  if (!golden_->finished()) {
    std::string open;
    for (uint32_t sm = 0; sm < warps_.size(); ++sm)
      for (uint32_t slot = 0; slot < warps_[sm].size(); ++slot)
        if (warps_[sm][slot].resident)
          open += fmt::format("\n    SM {} warp slot {} (block {}, next seq {})", sm, slot, warps_[sm][slot].block, warps_[sm][slot].next_seq);
    fail(fmt::format("the GPU reports the launch done, but the golden model has not finished all {} blocks{}", spec_.grid.count(),
                     open.empty() ? " (some were never placed)" : "; warps still live:" + open),
         Where{}, "", cycle);
  }
  check_atomic_orders(cycle);
  compare_memory(cycle);
}

void Lockstep::compare_memory(uint64_t cycle) const {
  std::vector<uint8_t> a(4096), b(4096);
  for (const auto& [start, size] : memory_.allocations()) {
    for (uint64_t at = start; at < uint64_t{start} + size; at += a.size()) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(a.size(), uint64_t{start} + size - at));
      memory_.read(static_cast<uint32_t>(at), std::span(a.data(), n));
      golden_memory_.read(static_cast<uint32_t>(at), std::span(b.data(), n));
      if (std::equal(a.begin(), a.begin() + static_cast<long>(n), b.begin())) continue;
      for (size_t i = 0; i < n; ++i) {
        const auto addr = static_cast<uint32_t>(at + i);
        if (a[i] == b[i] || is_private(addr)) continue;
        // Count the damage and show the 16-byte line around the first difference.
        uint64_t differing = 0;
        for (uint64_t x = at + i; x < uint64_t{start} + size; ++x) {
          uint8_t p = 0, q = 0;
          memory_.read(static_cast<uint32_t>(x), std::span(&p, 1));
          golden_memory_.read(static_cast<uint32_t>(x), std::span(&q, 1));
          differing += p != q && !is_private(static_cast<uint32_t>(x));
        }
        const uint32_t line = addr & ~15u;
        std::array<uint8_t, 16> rl{}, gl{};
        memory_.read(line, rl);
        golden_memory_.read(line, gl);
        fail(fmt::format("end-of-run memory differs at {:#010x}: golden {:#04x}, RTL {:#04x} ({} differing bytes from there to the end of "
                         "the allocation [{:#010x}, {:#010x}))",
                         addr, b[i], a[i], differing, start, uint64_t{start} + size),
             Where{},
             fmt::format("  line {:#010x}\n    golden {:02x}\n    RTL    {:02x}", line, fmt::join(gl, " "), fmt::join(rl, " ")), cycle);
      }
    }
  }
}

// ---- faults -----------------------------------------------------------------------------------------

void Lockstep::confirm_fault(const RtlFault& f, const std::string& rtl_message, uint64_t cycle) {
  const auto& text = spec_.module->text;
  const std::string reported = fmt::format("{} ({})", golden::to_string(f.kind), rtl_message);
  if (!pending_faults_.empty()) {
    // The RTL names the warp; a store's PC it no longer knows (0xFFFFFFFF).
    for (const PendingFault& p : pending_faults_)
      if (f.kind == p.fault.kind && f.sm == p.where.sm && f.warp == p.where.warp && (f.pc == p.where.pc || f.pc == 0xFFFFFFFFu))
        throw p.fault;
    const PendingFault& p = pending_faults_.front();
    fail(fmt::format("the RTL reports {}, but the golden model faulted earlier, on this instruction when the RTL retired it (at cycle "
                     "{}):\n  {}",
                     reported, p.cycle, p.fault.what()),
         p.where, "", cycle);
  }
  golden::FaultSite site;
  site.kernel = spec_.kernel->name;
  if (f.kind == golden::FaultKind::RunawayKernel) throw golden::Fault(f.kind, rtl_message, site);  // the GPU's watchdog
  if (f.sm >= warps_.size()) fail(fmt::format("the RTL reports a fault on SM {}, which does not exist: {}", f.sm, reported), Where{}, "", cycle);
  if (f.kind == golden::FaultKind::BarrierDeadlock) {
    // Not one instruction's fault: the golden model must agree that no warp of the SM can issue.
    for (uint32_t slot = 0; slot < warps_[f.sm].size(); ++slot)
      if (golden_->ready(f.sm, slot))
        fail(fmt::format("the RTL reports a barrier deadlock on SM {}, but the golden model can still issue warp slot {}: {}", f.sm, slot,
                         reported),
             Where{f.sm, slot, warps_[f.sm][slot].next_seq, 0, 0}, "", cycle);
    golden_->report_deadlock(f.sm);  // the golden model's report names the barrier and the counts
  }
  const Where where{f.sm, f.warp, f.warp < warps_[f.sm].size() ? warps_[f.sm][f.warp].next_seq : 0, f.pc, f.pc < text.size() ? text[f.pc] : 0};
  if (f.warp >= warps_[f.sm].size() || !golden_->ready(f.sm, f.warp))
    fail(fmt::format("the RTL reports {}, but the golden model cannot issue warp slot {} of SM {} (no warp there, exited, or at a barrier)",
                     reported, f.warp, f.sm),
         where, "", cycle);
  if (!warps_[f.sm][f.warp].held.empty())
    fail(fmt::format("the RTL reports {}, but earlier instructions of the warp are still held back at a barrier", reported), where, "", cycle);
  try {
    (void)golden_->step(f.sm, f.warp, {});
  } catch (const golden::Fault& gf) {
    if (gf.kind == f.kind && gf.site.pc == f.pc) throw;
    fail(fmt::format("the RTL reports {}, but the golden model faults differently:\n  {}", reported, gf.what()), where, "", cycle);
  }
  fail(fmt::format("the RTL reports {}, but the golden model executes the instruction without a fault", reported), where, "", cycle);
}

}  // namespace tsm::rtl
