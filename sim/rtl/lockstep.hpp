// Lockstep (SPEC §4.2): rebuilds each warp instruction the RTL retired from its commit-port events
// (docs/gpu-interfaces.md §3), steps the golden model through the same instruction in the RTL's
// order, pushing what only the RTL knows (block placement, the clock, atomic old values), and
// compares everything: PC, masks, exit, register and predicate writes lane by lane, global stores
// byte by byte, and at the end every allocated byte of memory. The first difference throws
// LockstepMismatch with a report: what differs, where, the instruction, the differing lanes, the
// warp's recent history and the clock cycle.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "golden/fault.hpp"
#include "golden/memory.hpp"
#include "golden/model.hpp"
#include "isa/isa.hpp"
#include "rtl/gpu_pins.hpp"
#include "rtl/memory_model.hpp"

namespace tsm::rtl {

/// The RTL and the golden model disagree; what() is the full report.
class LockstepMismatch : public BackendError {
 public:
  using BackendError::BackendError;
};

/// The first fault as the GPU's FAULT_* registers report it.
struct RtlFault {
  golden::FaultKind kind = golden::FaultKind::OutOfBounds;
  uint32_t sm = 0;
  uint32_t warp = 0;  // warp slot
  uint32_t pc = 0;
  uint32_t addr = 0;
  std::optional<uint32_t> lane;  // none when it is not one thread's fault
};

struct LockstepOptions {
  /// Device memory the golden model keeps privately ({start, bytes}: the local-memory region, which
  /// the golden model holds per block): left out of the end-of-run comparison, and STORE events
  /// into it are not compared.
  std::vector<std::pair<uint32_t, uint32_t>> private_regions;
  /// Commits per warp kept for the report.
  unsigned history = 32;
};

class Lockstep {
 public:
  /// Copies every allocation of `memory` as it is now into the golden model's own memory and
  /// begins the launch. `spec` (its module and config) must outlive the Lockstep; spec.config's
  /// num_sms and sp_lanes must be the GPU's.
  Lockstep(const MemoryModel& memory, const golden::LaunchSpec& spec, LockstepOptions options = {});
  ~Lockstep();
  Lockstep(const Lockstep&) = delete;
  Lockstep& operator=(const Lockstep&) = delete;

  /// One commit-port event, seen in clock `cycle`. Throws LockstepMismatch.
  void on_event(const CommitEvent& event, uint64_t cycle);

  /// The GPU reports it finished: every retired instruction complete, the golden model finished,
  /// and memory equal. Throws LockstepMismatch.
  void finish(uint64_t cycle);

  /// The GPU stopped with `fault`. If the golden model already faulted on a global access the
  /// RTL retired (the RTL learns of those from the memory's err, after the RETIRE), that fault
  /// must be the one; otherwise steps the golden model through the faulting warp's next
  /// instruction. Rethrows the golden model's Fault when it faults the same way, else throws
  /// LockstepMismatch.
  /// `rtl_message` says what the GPU reported, without the kind (it becomes the Fault's message
  /// when the golden model cannot say better).
  [[noreturn]] void confirm_fault(const RtlFault& fault, const std::string& rtl_message, uint64_t cycle);

  golden::LaunchStats stats() const { return golden_->stats(); }
  /// Warp instructions retired so far.
  uint64_t retired() const { return retired_; }

 private:
  using RegLane = std::pair<uint8_t, uint32_t>;  // (register or predicate, lane)
  struct Record {  // one warp instruction being rebuilt from its events
    uint64_t seq = 0;
    bool retired = false;  // stepped in the golden model
    uint32_t pc = 0;
    uint64_t insn = 0;
    std::map<RegLane, uint32_t> regs;      // REG values not yet matched with the golden model's
    std::map<RegLane, uint32_t> expected;  // golden values the RTL has not written yet
    std::map<RegLane, bool> preds;
    std::map<uint32_t, uint8_t> stores;    // byte address -> value, from STORE events
    bool awaits_release = false;           // a BRED whose reduction comes when its barrier opens
    bool late_writes = false;              // a load: register writes may follow the RETIRE
    bool complete() const { return retired && expected.empty() && regs.empty() && !awaits_release; }
  };
  struct History {
    uint64_t seq;
    uint32_t pc;
    uint64_t insn;
  };
  struct WarpState {
    bool resident = false;
    bool faulted = false;                     // the golden model faulted here: its events are ignored
    uint32_t block = 0;
    uint64_t next_seq = 0;                    // the next RETIRE's sequence number
    std::map<uint64_t, Record> records;
    std::deque<CommitEvent> held;             // RETIREs the golden model cannot take yet (warp at a barrier)
    std::optional<uint64_t> bred_seq;         // the BRED waiting for its barrier
    std::deque<History> history;
  };
  struct Where {  // what a report is about; Where{} is no particular instruction
    uint32_t sm = ~0u;
    uint32_t warp = 0;
    uint64_t seq = 0;
    uint32_t pc = 0;
    uint64_t insn = 0;
  };

  void process(const CommitEvent& e, uint64_t cycle);
  void on_place(const CommitEvent& e, uint64_t cycle);
  void on_reg(const CommitEvent& e, uint64_t cycle);
  void on_pred(const CommitEvent& e, uint64_t cycle);
  void on_store(const CommitEvent& e, uint64_t cycle);
  void on_retire(const CommitEvent& e, uint64_t cycle);
  void retire(const CommitEvent& e, uint64_t cycle);
  void release_held(uint32_t sm, uint32_t slot, uint64_t cycle);
  /// `pushed`: the lanes whose atomic old value comes from the RTL.
  golden::StepInputs step_inputs(const CommitEvent& e, const Record& r, uint32_t& pushed) const;
  void note_stores(const golden::Commit& c, const golden::StepInputs& inputs, uint32_t pushed);
  void check_atomic_orders(uint64_t cycle);
  void compare_predicates(const golden::Commit& c, const Record& r, const Where& where, uint64_t cycle) const;
  void compare_stores(const golden::Commit& c, const Record& r, const Where& where, uint64_t cycle) const;
  void match_registers(Record& r, const Where& where, uint64_t cycle, bool at_retire);
  void settle(WarpState& w, uint64_t seq);
  Record* record_for(WarpState& w, const CommitEvent& e, uint64_t cycle, const char* what);
  bool is_private(uint32_t addr) const;
  void compare_memory(uint64_t cycle) const;

  [[noreturn]] void fail(const std::string& what, const Where& where, const std::string& table, uint64_t cycle) const;
  Where where_of(const CommitEvent& e) const;
  std::string history_of(uint32_t sm, uint32_t warp) const;

  const MemoryModel& memory_;
  golden::LaunchSpec spec_;
  LockstepOptions options_;
  golden::DeviceMemory golden_memory_;   // before golden_: the model refers to it
  golden::DeviceMemory initial_memory_;  // device memory as the launch began
  std::unique_ptr<golden::GoldenModel> golden_;
  std::optional<isa::gen::Op> op_at(uint32_t pc) const { return pc < ops_.size() ? ops_[pc] : std::nullopt; }

  unsigned sp_lanes_;
  uint32_t warps_per_block_;
  std::vector<std::optional<isa::gen::Op>> ops_;  // per PC, decoded once; empty where invalid
  std::vector<std::vector<WarpState>> warps_;  // [sm][slot]
  uint64_t retired_ = 0;
  uint32_t next_block_ = 0;  // the block the next PLACE must place (linear order)
  /// Per SM, events waiting for an earlier block's PLACE on another SM: the SMs' commit ports are
  /// independent, so the PLACE of block b+1 may come before that of block b.
  std::vector<std::deque<std::pair<CommitEvent, uint64_t>>> waiting_;
  /// Global out-of-bounds accesses the golden model faulted on when the RTL retired them: the RTL
  /// reports one of them when the memory's err comes back, and must. Other warps may retire such an
  /// access before the first err returns, so there may be several.
  struct PendingFault {
    golden::Fault fault;
    Where where;
    uint64_t cycle;
  };
  std::vector<PendingFault> pending_faults_;

  /// Global atomics on one address whose old values came from the RTL, as (old -> new) steps.
  /// The golden model applies them in RETIRE order, the memory performed them in its own order
  /// (SMs interleave): at the end they must chain from the initial value to the final one in
  /// some order, and the final value is the memory's.
  struct AtomicStep {
    uint64_t old_value, new_value;
    uint32_t sm, warp, lane;
    uint64_t seq;
    uint32_t pc;
  };
  struct AtomicChain {
    bool usable = true;  // false when some lane's old value was the golden model's own
    std::vector<AtomicStep> steps;
  };
  std::map<std::pair<uint32_t, unsigned>, AtomicChain> atomic_chains_;  // (address, bytes)
  std::map<uint32_t, std::vector<bool>> plain_stored_;  // per 4 KiB page, bytes written by plain global stores
};

}  // namespace tsm::rtl
