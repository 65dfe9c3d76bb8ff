// The error a backend raises when it cannot verify or run a launch for a reason that is not a
// kernel fault (those are golden::Fault): a lockstep mismatch between the RTL and the golden
// model, a GPU that breaks its port protocol or hangs. The message is the backend's full report.
#pragma once

#include <stdexcept>

namespace tsm {

class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tsm
