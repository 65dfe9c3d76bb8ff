// What the RTL backend records besides running (docs/waveforms.md): an FST waveform of a window of
// clocks and a warp timeline in the Chrome trace event format. Plain data, so that the firmware
// host options can carry it without the harness.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace tsm::rtl {

struct TraceOptions {
  std::string fst;                                     // FST waveform file; empty: none
  uint64_t from = 0;                                   // first clock traced (the backend's clock count)
  uint64_t to = std::numeric_limits<uint64_t>::max();  // last clock traced
  unsigned depth = 0;                                  // levels of hierarchy traced; 0: all
  std::string timeline;                                // Chrome trace JSON; empty: none
};

}  // namespace tsm::rtl
