// One lane of SHFL (shfl.sync's up, down, bfly and idx modes) as a pure function: the golden model
// executes SHFL through it and the RTL warp ops' testbench (tests/rtl/warp_ops_test.cpp) holds
// rtl/sm/tsm_warp_ops.sv to it, so the two share one statement of the rule.
#pragma once

#include <cstdint>

#include "isa/isa.hpp"

namespace tsm::golden {

struct ShflLane {
  unsigned source;  ///< the lane whose A this lane reads (itself when out of range)
  bool in_range;    ///< the predicate SHFL writes
};

/// Lane `lane`'s source for `mode` with its operand B (lane, offset or XOR mask; bits 4:0) and its
/// operand C (clamp in bits 4:0, segment mask in bits 12:8), as PTX's shfl.sync defines them.
inline ShflLane shfl_lane(isa::gen::Shfl mode, unsigned lane, uint32_t b, uint32_t c) {
  const int bval = static_cast<int>(b & 31), l = static_cast<int>(lane);
  const int clamp = static_cast<int>(c & 31), segmask = static_cast<int>(c >> 8 & 31);
  const int max_lane = (l & segmask) | (clamp & ~segmask);
  const int min_lane = l & segmask;
  int j = 0;
  bool ok = false;
  switch (mode) {
    case isa::gen::Shfl::UP: j = l - bval; ok = j >= max_lane; break;
    case isa::gen::Shfl::DOWN: j = l + bval; ok = j <= max_lane; break;
    case isa::gen::Shfl::BFLY: j = l ^ bval; ok = j <= max_lane; break;
    case isa::gen::Shfl::IDX: j = min_lane | (bval & ~segmask); ok = j <= max_lane; break;
  }
  if (!ok) j = l;
  return {static_cast<unsigned>(j), ok};
}

}  // namespace tsm::golden
