// The warp timeline (docs/waveforms.md §4): every instruction the RTL retires, as a slice from its
// issue to its retirement on the track of its SM and warp slot, with counters of active lanes and
// stall reasons, written in the Chrome trace event format (Perfetto and chrome://tracing open it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "rtl/gpu_pins.hpp"

namespace tsm::rtl {

class Timeline {
 public:
  /// A launch of `kernel` starts at clock `cycle`; `text` is its code (names the slices).
  void begin_launch(const std::string& kernel, const std::vector<uint64_t>& text, uint64_t cycle);
  /// The debug port: SM `sm` issues (warp, seq) at `cycle`.
  void issue(unsigned sm, const IssueEvent& e, uint64_t cycle);
  /// SM `sm`'s stall reasons (StallBit) at `cycle`; recorded when they change.
  void stalls(unsigned sm, unsigned bits, uint64_t cycle);
  /// A RETIRE event (commit port or retire channel) at `cycle`.
  void retire(const CommitEvent& e, uint64_t cycle);

  /// Instructions retired so far (slices).
  uint64_t instructions() const { return instructions_; }
  /// Write the JSON document to `path`; instructions issued and not retired end at `end_cycle`,
  /// marked as such. Throws std::runtime_error when the file cannot be written.
  void write(const std::string& path, uint64_t end_cycle) const;

 private:
  struct Slice {
    unsigned sm, warp;
    uint32_t seq, pc, active, exec;
    uint64_t issue, retire;
    unsigned launch;
    bool retired;
  };
  struct Launch {
    std::string kernel;
    std::vector<uint64_t> text;
    uint64_t start;
  };
  std::vector<Launch> launches_;
  std::map<std::tuple<unsigned, unsigned, uint32_t>, uint64_t> in_flight_;  // (sm, warp, seq) -> issue clock
  std::vector<Slice> slices_;
  std::vector<std::tuple<unsigned, uint64_t, unsigned>> stall_samples_;     // (sm, clock, bits)
  std::vector<unsigned> last_stalls_;
  uint64_t instructions_ = 0;
};

}  // namespace tsm::rtl
