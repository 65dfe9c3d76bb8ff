// Runs small assembly kernels through the runtime, for the semantics tests: on the golden model, or
// (built with TSM_TEST_BACKEND_RTL, as rtl_directed_test) on the Verilated RTL in lockstep with it.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "isa/assembler.hpp"
#include "runtime/runtime.hpp"
#ifdef TSM_TEST_BACKEND_RTL
#include "rtl_model/models.hpp"
#endif

namespace tsm::test {

/// Does this test binary's backend exist for `config`? (./tsm test builds the RTL models of small, g80
/// and tiny; gt200's is built by ./tsm test --full or on first use.)
inline bool have_backend(const char* config) {
#ifdef TSM_TEST_BACKEND_RTL
  return rtl::rtl_model_built(config);
#else
  (void)config;
  return true;
#endif
}

inline std::unique_ptr<Backend> test_backend(const char* config) {
#ifdef TSM_TEST_BACKEND_RTL
  return rtl::make_rtl_backend(*config::find_config(config));
#else
  (void)config;
  return make_golden_backend();
#endif
}

class KernelHarness {
 public:
  explicit KernelHarness(const char* config = "g80") : rt_(*config::find_config(config), test_backend(config)) {}

  Runtime& rt() { return rt_; }

  /// A device buffer of `count` 32-bit words, filled with `fill`.
  DevicePtr words(size_t count, uint32_t fill = 0) {
    const std::vector<uint32_t> v(count, fill);
    return upload(v);
  }
  DevicePtr upload(const std::vector<uint32_t>& v) {
    const DevicePtr p = rt_.malloc(static_cast<uint32_t>(v.size() * 4));
    rt_.memcpy_to_device(p, std::span(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4));
    return p;
  }
  std::vector<uint32_t> read(DevicePtr p, size_t count) {
    std::vector<uint32_t> v(count);
    rt_.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(v.data()), count * 4), p);
    return v;
  }
  /// Assemble, load and launch; the kernel is the module's first.
  LaunchResult launch(const std::string& source, Dim3 grid, Dim3 block, const KernelArgs& args, uint32_t dyn_shared = 0) {
    const auto id = rt_.load_module(assemble(source, "test.tsa"));
    return rt_.launch(id, rt_.module(id).kernels.at(0).name, grid, block, args, dyn_shared);
  }
  /// Launch expecting a runtime error; returns its message.
  std::string launch_error(const std::string& source, Dim3 grid, Dim3 block, const KernelArgs& args, ErrorCode expected) {
    try {
      launch(source, grid, block, args);
    } catch (const RuntimeError& e) {
      EXPECT_EQ(e.code, expected) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "the launch succeeded";
    return "";
  }

 private:
  Runtime rt_;
};

/// The preamble most test kernels start with: R0 = global thread index, R2:R3 = 4 * R0.
inline const char* kIndexPreamble = R"(
    S2R R0, SR_CTAID_X
    S2R R1, SR_NTID_X
    S2R R2, SR_TID_X
    IMAD.U32 R0, R0, R1, R2
    IMAD.WIDE.U32 R2, R0, 4, RZ
)";

/// `.kernel k` with one u64 parameter `out`, the index preamble, then `body`, then
/// `out[i] = R<result>` and EXIT. R4:R5 holds the address of out[i].
inline std::string store_kernel(const std::string& body, int result_reg = 10, const std::string& extra_params = "") {
  return ".kernel k\n.param out u64\n" + extra_params + kIndexPreamble +
         "    IADD.CC R4, R2, c[0][out], P6\n    IADD.X R5, R3, c[0][out+4], P6\n" + body +
         "\n    STG.E [R4], R" + std::to_string(result_reg) + "\n    EXIT\n";
}

inline uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace tsm::test
