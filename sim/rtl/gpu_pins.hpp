// The GPU top level (rtl/gpu/tsm_gpu.sv) as the harness sees it: its ports, one clock at a time,
// behind an abstract interface, so that the driver, the memory model and lockstep are independent
// of any Verilated model. The contract is docs/gpu-interfaces.md; VerilatedGpu (verilated_gpu.hpp)
// binds a Verilator model to it, tests bind fakes.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "runtime/backend_error.hpp"

namespace tsm::rtl {

/// The GPU broke the port protocol of docs/gpu-interfaces.md (an undefined request kind, a
/// response handshake without a response, an MMIO read that never answers, a hang): an RTL bug,
/// reported with what was seen and when.
class PortError : public BackendError {
 public:
  using BackendError::BackendError;
};

/// Memory request kinds (`mem_req_kind_o`).
enum MemKind : uint8_t { kMemRead = 0, kMemWrite = 1, kMemAtomic = 2 };

/// `mem_req_atom_o`: bit 7 CAS, bits [6:4] the atomic type (isa::gen::Atype), [3:0] the operation
/// (isa::gen::Aop).
inline constexpr uint8_t kAtomCasBit = 0x80;
inline constexpr uint8_t atom_bits(bool cas, unsigned atype, unsigned aop) {
  return static_cast<uint8_t>((cas ? kAtomCasBit : 0) | (atype & 7) << 4 | (aop & 15));
}

/// One request on the memory port.
struct MemRequest {
  uint32_t id = 0;
  uint8_t kind = kMemRead;  // MemKind
  uint32_t addr = 0;        // read/write: 16-byte-aligned line; atomic: the operand's byte address
  uint16_t mask = 0;        // byte enables (bit i = byte i of the line)
  std::array<uint32_t, 4> data{};  // write: the line (byte i in bits [8i+7:8i]); atomic: B in [63:0], swap in [127:64]
  uint8_t atom = 0;         // atomic: see atom_bits()
};

/// One response on the memory port.
struct MemResponse {
  uint32_t id = 0;
  std::array<uint32_t, 4> data{};  // read: the line; atomic: the old value in [63:0]
  bool write = false;              // a write's acknowledgement
  bool err = false;                // the request touched bytes outside every allocation and did nothing
};

/// Commit-port event kinds (`cm_kind_o`). kRegRetire and kPredRetire are a REG or PRED event after
/// which its instruction retires: the RETIRE fields (pc, active, exec, exit) are valid too.
enum CommitKind : uint8_t { kRetire = 0, kReg = 1, kPred = 2, kStore = 3, kPlace = 4, kRegRetire = 5, kPredRetire = 6 };

/// Upper bound of SpLanes the commit port's data field can carry here.
inline constexpr unsigned kMaxSpLanes = 8;

/// One commit-port event of one SM (docs/gpu-interfaces.md §3). Fields that do not apply to the
/// kind are zero.
struct CommitEvent {
  uint32_t sm = 0;
  uint8_t kind = kRetire;  // CommitKind
  uint32_t warp = 0;       // warp slot
  uint32_t seq = 0;        // the instruction's per-warp sequence number
  uint32_t pc = 0;         // RETIRE
  uint32_t active = 0;     // RETIRE: active lanes at issue
  uint32_t exec = 0;       // RETIRE: active lanes whose guard held
  bool exit = false;       // RETIRE: the warp has no live threads left
  uint8_t reg = 0;         // REG: register; PRED: predicate
  uint32_t group = 0;      // REG/PRED: lanes group*SpLanes ... group*SpLanes+SpLanes-1
  uint32_t lanes = 0;      // REG/PRED: lanes of the group written (bit l = lane group*SpLanes+l)
  std::array<uint32_t, kMaxSpLanes> data{};  // REG: lane l's value; PRED: bit 0; PLACE: data[0] = linear block
  uint32_t addr = 0;       // STORE: line address
  uint16_t mask = 0;       // STORE: byte enables
  std::array<uint32_t, 4> wdata{};  // STORE: the line
};

/// The debug port's issue event of one SM (docs/waveforms.md §2): an instruction of warp slot
/// `warp` with per-warp sequence number `seq` issues this clock.
struct IssueEvent {
  uint32_t warp = 0;
  uint32_t seq = 0;
};

/// The debug port's stall reasons (`dbg_stall_o`), one bit each.
enum StallBit : unsigned { kStallScoreboard = 1, kStallBarrier = 2, kStallFetch = 4 };

/// $clog2(n) with a floor of 1, the way the RTL sizes an index that must have at least one bit.
constexpr unsigned index_bits(unsigned n) {
  unsigned bits = 0;
  while ((1u << bits) < n) ++bits;
  return std::max(bits, 1u);
}

/// The widths a GPU top's per-SM commit slices have; the template cannot know the configuration.
struct GpuGeometry {
  unsigned warp_id_bits;  // cm_warp_o per SM: WarpIdWidth
  unsigned group_bits;    // cm_group_o per SM: $clog2(32/SpLanes), at least 1
  unsigned sp_lanes;      // cm_lanes_o per SM; cm_data_o is SpLanes*32
  unsigned num_sms;       // the model's NumSms

  /// The geometry of a top built from a configuration with `max_warps` warp slots.
  static constexpr GpuGeometry of(unsigned num_sms, unsigned sp_lanes, unsigned max_warps) {
    return {index_bits(max_warps), index_bits(32 / sp_lanes), sp_lanes, num_sms};
  }
};

/// The GPU top's ports, clock by clock. Per cycle the caller sets the inputs, calls eval() (the
/// clock is low; combinational outputs settle), reads the outputs, then tick() (the rising edge).
class GpuPins {
 public:
  virtual ~GpuPins() = default;

  virtual unsigned num_sms() const = 0;
  virtual unsigned sp_lanes() const = 0;

  /// Hold reset for a few clocks with every input idle; leaves the clock low, out of reset.
  virtual void reset() = 0;

  // ---- inputs --------------------------------------------------------------------------------------
  virtual void set_mmio(bool valid, bool write, uint32_t addr, uint32_t wdata) = 0;
  virtual void set_mem_req_ready(bool ready) = 0;
  virtual void set_mem_resp(bool valid, const MemResponse& response) = 0;

  /// Settle the combinational outputs for the inputs just set.
  virtual void eval() = 0;

  // ---- outputs -------------------------------------------------------------------------------------
  virtual bool mmio_rvalid() const = 0;
  virtual uint32_t mmio_rdata() const = 0;
  virtual bool mem_req_valid() const = 0;
  virtual MemRequest mem_req() const = 0;
  virtual bool mem_resp_ready() const = 0;
  /// SM `sm`'s commit event this cycle, if any.
  virtual std::optional<CommitEvent> commit(unsigned sm) const = 0;
  /// The retire channel's event of SM `sm` this clock (a RETIRE), which follows commit(sm)'s.
  virtual std::optional<CommitEvent> commit_retire(unsigned sm) const = 0;

  /// The rising clock edge: registers take the values settled by eval().
  virtual void tick() = 0;

  // ---- debug port and waveforms (docs/waveforms.md); models without them keep these defaults ----
  /// SM `sm`'s issue event this clock, if any (after eval()).
  virtual std::optional<IssueEvent> issue(unsigned /*sm*/) const { return std::nullopt; }
  /// SM `sm`'s stall reasons this clock (StallBit), after eval().
  virtual unsigned stalls(unsigned /*sm*/) const { return 0; }
  /// Whether this model was built with the FST writer.
  virtual bool can_trace() const { return false; }
  /// Start an FST trace into `path` of the signals at most `depth` levels below TOP (0: all; 1: the
  /// top's ports, 4: the SMs' own signals, 5: also per-warp debug signals). Nothing is written
  /// until trace_clock(). Throws std::runtime_error when the model cannot trace.
  virtual void trace_open(const std::string& /*path*/, unsigned /*depth*/) {
    throw std::runtime_error("this GPU model was built without the FST writer");
  }
  /// The next tick() writes the clock into the trace as clock number `cycle` (time 10*cycle ns with
  /// the clock low, 10*cycle+5 ns after its rising edge).
  virtual void trace_clock(uint64_t /*cycle*/) {}
  /// Write out what the trace holds so far (before an error ends the run).
  virtual void trace_flush() {}
  /// Finish the trace file.
  virtual void trace_close() {}
};

}  // namespace tsm::rtl
