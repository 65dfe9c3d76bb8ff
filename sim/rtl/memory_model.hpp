// The device memory behind the GPU top's memory port (docs/gpu-interfaces.md §2): performs each
// request when it accepts it, in acceptance order, and answers after a fixed latency; a channel
// of limited bytes per clock back-pressures requests. Allocations bound every access, as the
// golden model's do: a request touching a byte outside every allocation gets `err` (a read
// without a byte mask: a line with no allocated byte).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <span>
#include <vector>

#include "golden/memory.hpp"
#include "rtl/gpu_pins.hpp"

namespace tsm::rtl {

struct MemoryCounters {
  uint64_t requests = 0;
  uint64_t bytes = 0;  // bytes over the channel: 16 per line request, 8 per atomic
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t atomics = 0;
  uint64_t errors = 0;  // requests answered with err
};

/// The new value of an atomic at the memory: `atom` as on the port (bit 7 CAS, [6:4] Atype,
/// [3:0] Aop), `b` operand B, `swap` the CAS swap value, `global` for ATOM.ADD.F32's flush to zero.
/// 32-bit types use the low words only. The golden model's semantics (Exec::atomic).
uint64_t atomic_new_value(uint8_t atom, uint64_t old, uint64_t b, uint64_t swap, bool global = true);
/// Bytes an atomic of this `atom` touches: 8 for U64/S64, else 4.
unsigned atomic_bytes(uint8_t atom);

class MemoryModel {
 public:
  /// `latency`: clocks from acceptance to the response being offered (at least 1).
  /// `bytes_per_clock`: channel bandwidth; a line occupies it ceil(16/b) clocks, an atomic ceil(8/b).
  MemoryModel(uint32_t latency, uint32_t bytes_per_clock);

  uint32_t latency() const { return latency_; }
  uint32_t bytes_per_clock() const { return bytes_per_clock_; }

  // ---- host side: allocations and raw bytes (no timing) --------------------------------------------
  void map(uint32_t addr, uint32_t bytes);
  void unmap(uint32_t addr);
  void write(uint32_t addr, std::span<const uint8_t> bytes) { memory_.write(addr, bytes); }
  void read(uint32_t addr, std::span<uint8_t> bytes) const { memory_.read(addr, bytes); }
  /// Every allocation, start -> size.
  const std::map<uint32_t, uint32_t>& allocations() const { return allocations_; }
  const golden::DeviceMemory& device() const { return memory_; }

  // ---- the port, one clock at a time --------------------------------------------------------------
  /// Can a request be accepted in this clock? False while the channel is busy.
  bool ready(uint64_t cycle) const { return cycle >= busy_until_; }
  /// Perform the request now and schedule its response at cycle + latency. Throws
  /// std::logic_error when not ready (a harness bug, not a GPU bug).
  void accept(const MemRequest& request, uint64_t cycle);
  /// The oldest response due by `cycle` (due order; ties in acceptance order), if any.
  std::optional<MemResponse> response(uint64_t cycle) const;
  /// Remove the response response() offered (after its handshake).
  void pop();
  /// Requests accepted whose responses were not popped yet.
  size_t outstanding() const { return pending_.size(); }
  /// Forget every pending response (the GPU was reset and will not take them).
  void drop_outstanding() { pending_ = {}; }

  const MemoryCounters& counters() const { return counters_; }
  void reset_counters() { counters_ = {}; }

 private:
  struct Pending {
    uint64_t due;
    uint64_t order;  // acceptance order
    MemResponse response;
    bool operator>(const Pending& o) const { return due != o.due ? due > o.due : order > o.order; }
  };
  bool accessible(uint32_t addr, uint32_t bytes) const { return memory_.accessible(addr, bytes); }
  bool bytes_accessible(uint32_t line, uint16_t mask) const;
  bool line_touches_allocation(uint32_t line) const;
  MemResponse perform(const MemRequest& request);

  uint32_t latency_;
  uint32_t bytes_per_clock_;
  golden::DeviceMemory memory_;
  std::map<uint32_t, uint32_t> allocations_;
  uint64_t busy_until_ = 0;
  uint64_t accepted_ = 0;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  MemoryCounters counters_;
};

}  // namespace tsm::rtl
