// The runtime's CUDA-like surface: symbols, structs by value, several kernels per module,
// allocation bookkeeping and copies.
#include <algorithm>

#include "kernel_harness.hpp"

namespace {

using tsm::Dim3;
using tsm::ErrorCode;
using tsm::KernelArgs;
using tsm::test::KernelHarness;

TEST(Runtime, SymbolsStructsAndSeveralKernels) {
  KernelHarness h;
  // Kernel 1: out[i] = i * scale[1] + s.a + s.c (scale written from the host), kernel 2 bumps a global.
  const char* src = R"(
.const scale u32[2] = 3, 5
.global counter u32[1] = 100

.kernel scale_by_const
.param out u64
.param s bytes 12 4
    S2R R0, SR_TID_X
    MOV R6, c[0][s]
    IADD R6, R6, c[0][s+8]
    IMAD.U32 R10, R0, c[2][scale+4], R6
    IMAD.WIDE.U32 R2, R0, 4, RZ
    IADD.CC R4, R2, c[0][out], P6
    IADD.X R5, R3, c[0][out+4], P6
    STG.E [R4], R10
    EXIT

.kernel bump
    MOV R2, c[1][counter]
    MOV R3, c[1][counter+4]
    ATOM.ADD.U32.E RZ, [R2], 1
    EXIT
)";
  auto& rt = h.rt();
  const auto mod = rt.load_module(tsm::assemble(src, "m.tsa"));
  const uint32_t new_scale[2] = {7, 11};
  rt.write_symbol(mod, "scale", std::span(reinterpret_cast<const uint8_t*>(new_scale), 8));
  const uint32_t s[3] = {1000, 0xDEAD, 20};
  const auto out = h.words(32);
  rt.launch(mod, "scale_by_const", Dim3{1, 1, 1}, Dim3{32, 1, 1},
            KernelArgs().ptr(out).bytes(std::span(reinterpret_cast<const uint8_t*>(s), 12)));
  const auto r = h.read(out, 32);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(r[i], i * 11 + 1020) << i;

  rt.launch(mod, "bump", Dim3{3, 1, 1}, Dim3{64, 1, 1}, KernelArgs());
  uint32_t counter = 0;
  rt.read_symbol(mod, "counter", std::span(reinterpret_cast<uint8_t*>(&counter), 4));
  EXPECT_EQ(counter, 100u + 3 * 64);
  uint32_t back[2] = {};
  rt.read_symbol(mod, "scale", std::span(reinterpret_cast<uint8_t*>(back), 8));
  EXPECT_EQ(back[1], 11u);

  try {
    rt.write_symbol(mod, "nope", std::span(reinterpret_cast<const uint8_t*>(s), 4));
    ADD_FAILURE() << "unknown symbol accepted";
  } catch (const tsm::RuntimeError& e) {
    EXPECT_EQ(e.code, ErrorCode::InvalidSymbol);
  }
  try {
    rt.launch(mod, "missing", Dim3{1, 1, 1}, Dim3{1, 1, 1}, KernelArgs());
    ADD_FAILURE() << "unknown kernel accepted";
  } catch (const tsm::RuntimeError& e) {
    EXPECT_EQ(e.code, ErrorCode::InvalidDeviceFunction);
  }
}

TEST(Runtime, AllocationsAreDisjointAlignedAndChecked) {
  KernelHarness h;
  auto& rt = h.rt();
  const auto a = rt.malloc(100), b = rt.malloc(1), c = rt.malloc(5000);
  EXPECT_EQ(a % tsm::kAllocAlignment, 0u);
  EXPECT_GE(b, a + 100);
  EXPECT_GE(c, b + 1);
  rt.free(b);
  const auto d = rt.malloc(16);  // first fit reuses the hole
  EXPECT_EQ(d, b);
  std::vector<uint8_t> big(200);
  try {
    rt.memcpy_to_device(a, big);
    ADD_FAILURE() << "a copy past the end of an allocation was accepted";
  } catch (const tsm::RuntimeError& e) {
    EXPECT_EQ(e.code, ErrorCode::InvalidValue);
  }
  rt.memset(c, 0xAB, 5000);
  std::vector<uint8_t> back(5000);
  rt.memcpy_to_host(back, c);
  EXPECT_EQ(std::count(back.begin(), back.end(), 0xAB), 5000);
}

}  // namespace
