// Golden model state, block placement, scheduling, reconvergence stack and barriers. The
// per-instruction semantics live in execute.cpp.
#include "golden/model.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "golden/state.hpp"
#include "isa/isa.hpp"

namespace tsm::golden {

GoldenModel::GoldenModel(DeviceMemory& memory) : memory_(memory) {}
GoldenModel::~GoldenModel() = default;

void GoldenModel::begin(const LaunchSpec& spec) {
  if (!spec.module || !spec.kernel || !spec.config) throw std::invalid_argument("LaunchSpec needs a module, a kernel and a config");
  check_grid(*spec.config, spec.grid);
  const Occupancy occ = compute_occupancy(*spec.config, spec.block,
                                          {spec.kernel->regs, spec.kernel->shared_bytes + spec.dynamic_shared});
  state_ = std::make_unique<State>(spec, occ, memory_);
}

const LaunchStats& GoldenModel::stats() const { return state_->stats; }
bool GoldenModel::finished() const { return state_->blocks_done == state_->total_blocks; }
void GoldenModel::report_deadlock(uint32_t sm) { state_->report_deadlock(sm); }

void GoldenModel::place_block(uint32_t sm, uint32_t linear_block) { state_->place_block(sm, linear_block); }

bool GoldenModel::ready(uint32_t sm, uint32_t slot) const {
  const auto& w = state_->sms.at(sm).warps.at(slot);
  return w.resident && !w.exited && !w.waiting;
}

Commit GoldenModel::step(uint32_t sm, uint32_t slot, const StepInputs& inputs) {
  State& s = *state_;
  if (sm >= s.sms.size() || slot >= s.sms[sm].warps.size() || !ready(sm, slot))
    throw std::logic_error(fmt::format("step: warp slot {} of SM {} cannot issue", slot, sm));
  return s.execute(sm, slot, inputs);
}

LaunchStats GoldenModel::run() {
  State& s = *state_;
  // Initial placement: blocks in linear order, round-robin over the SMs, up to the occupancy.
  for (uint32_t round = 0; round < s.occ.blocks_per_sm; ++round)
    for (uint32_t sm = 0; sm < s.sms.size() && s.next_block < s.total_blocks; ++sm) s.place_block(sm, s.next_block);
  while (!finished()) {
    ++s.stats.rounds;
    for (uint32_t sm = 0; sm < s.sms.size(); ++sm) {
      Sm& m = s.sms[sm];
      ++m.clock;
      if (m.resident_blocks == 0) continue;
      const uint32_t n = static_cast<uint32_t>(m.warps.size());
      bool issued = false;
      for (uint32_t k = 1; k <= n && !issued; ++k) {  // loose round-robin after the last issuer
        const uint32_t slot = (m.last_issued + k) % n;
        if (!ready(sm, slot)) continue;
        m.last_issued = slot;
        s.execute(sm, slot, {});
        issued = true;
      }
      if (!issued) s.report_deadlock(sm);
      // Blocks that finished free their slots for the next blocks in linear order.
      while (m.resident_blocks < s.occ.blocks_per_sm && s.next_block < s.total_blocks) s.place_block(sm, s.next_block);
    }
    if (s.stats.warp_instructions > s.spec.instruction_budget) s.report_runaway();
  }
  return s.stats;
}

// ---- State ----------------------------------------------------------------------------------------

State::State(const LaunchSpec& sp, const Occupancy& o, DeviceMemory& mem) : spec(sp), occ(o), memory(mem) {
  const auto& cfg = *spec.config;
  nregs = spec.kernel->regs;
  total_blocks = spec.grid.count();
  threads_per_block = static_cast<uint32_t>(spec.block.count());
  warps_per_block = (threads_per_block + kWarpSize - 1) / kWarpSize;
  shared_bytes = spec.kernel->shared_bytes + spec.dynamic_shared;
  stats.blocks = static_cast<uint32_t>(total_blocks);
  stats.blocks_per_sm = occ.blocks_per_sm;
  sms.resize(cfg.num_sms);
  for (auto& m : sms) {
    m.warps.resize(cfg.max_warps);
    m.blocks.resize(cfg.max_blocks);
    m.last_issued = cfg.max_warps - 1;
  }
  // Decode the code once; invalid words fault only if a warp reaches them.
  decoded.reserve(spec.module->text.size());
  for (uint64_t w : spec.module->text) decoded.push_back(isa::decode(w).insn);
}

Dim3 State::block_index(uint64_t linear) const {
  const auto& g = spec.grid;
  return Dim3{static_cast<uint32_t>(linear % g.x), static_cast<uint32_t>(linear / g.x % g.y),
              static_cast<uint32_t>(linear / (uint64_t{g.x} * g.y))};
}

Dim3 State::thread_index(uint32_t linear) const {
  const auto& b = spec.block;
  return Dim3{linear % b.x, linear / b.x % b.y, linear / (b.x * b.y)};
}

void State::place_block(uint32_t sm_id, uint64_t linear) {
  Sm& m = sms.at(sm_id);
  if (linear >= total_blocks) throw std::logic_error(fmt::format("place_block: block {} does not exist", linear));
  if (linear != next_block)
    throw std::logic_error(fmt::format("place_block: blocks are placed in linear order (next is {}, got {})", next_block, linear));
  auto bit = std::find_if(m.blocks.begin(), m.blocks.end(), [](const Block& b) { return !b.resident; });
  if (bit == m.blocks.end() || m.resident_blocks >= occ.blocks_per_sm)
    throw std::logic_error(fmt::format("place_block: SM {} already holds {} blocks", sm_id, m.resident_blocks));
  Block& b = *bit;
  b = Block{};
  b.resident = true;
  b.linear = linear;
  b.ctaid = block_index(linear);
  b.shared.assign(shared_bytes, 0);
  b.local.assign(size_t{threads_per_block} * spec.kernel->local_bytes, 0);
  b.warps_unfinished = warps_per_block;
  const uint32_t block_slot = static_cast<uint32_t>(bit - m.blocks.begin());
  for (uint32_t w = 0; w < warps_per_block; ++w) {
    auto wit = std::find_if(m.warps.begin(), m.warps.end(), [](const Warp& x) { return !x.resident; });
    Warp& warp = *wit;
    warp = Warp{};
    warp.resident = true;
    warp.block_slot = block_slot;
    warp.warp_in_block = w;
    warp.pc = spec.kernel->entry;
    const uint32_t threads = std::min(kWarpSize, threads_per_block - w * kWarpSize);
    warp.live = warp.active = threads == 32 ? ~0u : (1u << threads) - 1;
    warp.regs.assign(size_t{kWarpSize} * nregs, 0);
    b.warp_slots.push_back(static_cast<uint32_t>(wit - m.warps.begin()));
  }
  ++m.resident_blocks;
  ++next_block;
}

void State::warp_finished(uint32_t sm_id, Warp& w, Commit* commit) {
  Sm& m = sms[sm_id];
  Block& b = m.blocks[w.block_slot];
  w.exited = true;
  w.resident = false;
  if (--b.warps_unfinished == 0) {
    b.resident = false;
    --m.resident_blocks;
    ++blocks_done;
    return;
  }
  // Barriers count the warps with live threads: one fewer may complete a barrier now.
  for (uint32_t id = 0; id < b.bars.size(); ++id) try_release(sm_id, b, id, commit);
}

uint32_t State::expected_warps(const Block& b, const Barrier& bar) const {
  if (bar.thread_count) return (bar.thread_count + kWarpSize - 1) / kWarpSize;
  return b.warps_unfinished;
}

void State::try_release(uint32_t sm_id, Block& b, uint32_t id, Commit* commit) {
  Barrier& bar = b.bars[id];
  if (bar.arrived == 0 || bar.arrived < expected_warps(b, bar)) return;
  Sm& m = sms[sm_id];
  for (uint32_t slot : b.warp_slots) {
    Warp& w = m.warps[slot];
    if (!w.waiting || w.barrier != id) continue;
    w.waiting = false;
    Commit::Release rel;
    rel.warp_slot = slot;
    if (w.reduction_rd) {
      Commit::RegWrite rw;
      rw.reg = *w.reduction_rd;
      rw.lanes = w.reduction_lanes;
      const uint32_t v = bar.redop == isa::gen::Redop::POPC ? bar.popc
                         : bar.redop == isa::gen::Redop::AND ? (bar.all ? 1u : 0u)
                                                             : (bar.any ? 1u : 0u);
      for (unsigned lane = 0; lane < kWarpSize; ++lane) {
        if (!(rw.lanes >> lane & 1)) continue;
        rw.values[lane][0] = v;
        if (rw.reg != isa::kRZ) w.regs[lane * nregs + rw.reg] = v;
      }
      rel.reduction = rw;
      w.reduction_rd.reset();
    }
    if (commit) commit->released.push_back(rel);
  }
  bar = Barrier{};
}

void State::report_deadlock(uint32_t sm_id) {
  const Sm& m = sms[sm_id];
  for (const Block& b : m.blocks) {
    if (!b.resident) continue;
    for (uint32_t id = 0; id < b.bars.size(); ++id) {
      const Barrier& bar = b.bars[id];
      if (bar.arrived == 0) continue;
      FaultSite site = block_site(b);
      throw Fault(FaultKind::BarrierDeadlock,
                  fmt::format("barrier {} waits for {} warps but only {} of the block's {} unfinished warps arrived, and "
                              "no other warp can run",
                              id, expected_warps(b, bar), bar.arrived, b.warps_unfinished),
                  site);
    }
  }
  throw Fault(FaultKind::BarrierDeadlock, fmt::format("no warp of SM {} can issue", sm_id), kernel_site());
}

void State::report_runaway() {
  throw Fault(FaultKind::RunawayKernel,
              fmt::format("the kernel executed more than {} warp instructions without finishing (raise the budget if "
                          "this is intended; otherwise look for a loop whose exit condition never holds)",
                          spec.instruction_budget),
              kernel_site());
}

FaultSite State::kernel_site() const {
  FaultSite site;
  site.kernel = spec.kernel->name;
  return site;
}

FaultSite State::block_site(const Block& b) const {
  FaultSite site = kernel_site();
  site.block_x = b.ctaid.x;
  site.block_y = b.ctaid.y;
  site.block_z = b.ctaid.z;
  return site;
}

// ---- reconvergence stack --------------------------------------------------------------------------

void State::push(Warp& w, StackKind kind, uint32_t mask, uint32_t pc, const Ctx& c) {
  if (w.stack.size() >= spec.config->stack_depth)
    fault(c, FaultKind::StackOverflow,
          fmt::format("the warp's reconvergence stack is full ({} entries, stack_depth of config {}); nesting of "
                      "divergent branches, loops and calls is too deep",
                      spec.config->stack_depth, spec.config->name));
  w.stack.push_back({kind, mask, pc});
}

void State::pop_until_active(Warp& w) {
  while (w.active == 0 && !w.stack.empty()) {
    const StackEntry e = w.stack.back();
    w.stack.pop_back();
    w.active = e.mask & w.live;
    w.pc = e.pc;
  }
}

void State::leave(Warp& w, uint32_t lanes, StackKind kind, const Ctx& c) {
  // The lanes leave every entry above the topmost entry of `kind`; that entry keeps them so that
  // they come back when it is popped.
  auto it = std::find_if(w.stack.rbegin(), w.stack.rend(), [&](const StackEntry& e) { return e.kind == kind; });
  if (it == w.stack.rend())
    fault(c, FaultKind::StackUnderflow,
          fmt::format("{} without a matching {} on the reconvergence stack", kind == StackKind::Brk ? "BRK" : "RET",
                      kind == StackKind::Brk ? "PBK" : "CAL"));
  for (auto e = w.stack.rbegin(); e != it; ++e) e->mask &= ~lanes;
  w.active &= ~lanes;
}

}  // namespace tsm::golden
