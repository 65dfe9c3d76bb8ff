// Every fault the golden model raises, and every launch the runtime refuses, gives the error code
// and the facts a user needs: what, which space and address, kernel, block, thread, PC, instruction.
#include "kernel_harness.hpp"

namespace {

using tsm::Dim3;
using tsm::ErrorCode;
using tsm::KernelArgs;
using tsm::test::KernelHarness;
using tsm::test::store_kernel;

void expect_contains(const std::string& msg, std::initializer_list<const char*> parts) {
  for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in:\n" << msg;
}

TEST(Faults, GlobalOutOfBoundsNamesAddressThreadAndInstruction) {
  KernelHarness h;
  const auto out = h.words(64);
  // Thread 37 writes one element past the end of the 64-word buffer... times 16.
  const std::string body = R"(
    ISETP.EQ.U32 P0, PT, R0, 37
@P0 IADD.CC R4, R4, 0x1000, P6
@P0 IADD.X R5, R5, RZ, P6
    MOV R10, R0
)";
  const std::string msg = h.launch_error(store_kernel(body), Dim3{2, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(out), ErrorCode::IllegalAddress);
  expect_contains(msg, {"cudaErrorIllegalAddress", "out-of-bounds access", "global address 0x", "outside every allocation",
                        "kernel k", "block (1,0,0)", "thread (5,0,0)", "STG.E [R4], R10"});
}

TEST(Faults, MisalignedAccess) {
  KernelHarness h;
  const auto out = h.words(64);
  const std::string msg = h.launch_error(store_kernel("    IADD.CC R4, R4, 2, P6\n    IADD.X R5, R5, RZ, P6\n    MOV R10, R0"),
                                         Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(out), ErrorCode::MisalignedAddress);
  expect_contains(msg, {"misaligned access", "not aligned to the 4-byte access", "thread (0,0,0)"});
}

TEST(Faults, UpperAddressWordMustBeZero) {
  KernelHarness h;
  const auto out = h.words(64);
  const std::string msg = h.launch_error(store_kernel("    MOV R5, 1\n    MOV R10, R0"), Dim3{1, 1, 1}, Dim3{32, 1, 1},
                                         KernelArgs().ptr(out), ErrorCode::IllegalAddress);
  expect_contains(msg, {"address out of range", "non-zero upper word"});
}

TEST(Faults, SharedAndLocalBounds) {
  KernelHarness h;
  std::string msg = h.launch_error(".kernel k\n.shared 64\n    MOV R1, 64\n    LDS R2, [R1]\n    EXIT\n", Dim3{1, 1, 1},
                                   Dim3{32, 1, 1}, KernelArgs(), ErrorCode::IllegalAddress);
  expect_contains(msg, {"shared address 0x40", "beyond the block's 64 bytes of shared memory"});
  msg = h.launch_error(".kernel k\n.local 16\n    STL [RZ+16], RZ\n    EXIT\n", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(),
                       ErrorCode::IllegalAddress);
  expect_contains(msg, {"local address 0x10", "16 bytes of local memory"});
}

TEST(Memory, GenericAddressesReachSharedAndLocal) {
  KernelHarness h;
  const auto out = h.words(32);
  // Store through the generic shared window, read back with LDS; then the same with local memory.
  const std::string body = R"(
    SHL R6, R0, 2
    IADD R7, R6, c[0][0x8]                    // generic address of shared[4*i]
    IMUL.U32 R8, R0, 3
    ST [R7], R8
    LDS R9, [R6]
    IADD R11, RZ, c[0][0xc]                   // generic address of local[0]
    ST [R11], R9
    LDL R10, [RZ]
)";
  h.launch(".kernel k\n.shared 128\n.local 4\n" + store_kernel(body).substr(std::string(".kernel k\n").size()), Dim3{1, 1, 1},
           Dim3{32, 1, 1}, KernelArgs().ptr(out));
  const auto r = h.read(out, 32);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(r[i], 3 * i);
}

TEST(Faults, RegisterBeyondTheKernelsCount) {
  KernelHarness h;
  const std::string msg = h.launch_error(".kernel k\n.regs 4\n    MOV R10, RZ\n    EXIT\n", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(),
                                         ErrorCode::IllegalInstruction);
  expect_contains(msg, {"R10 is beyond the 4 registers per thread", "PC 0"});
}

TEST(Faults, DoublePrecisionNeedsADpUnit) {
  KernelHarness g80;
  const char* src = ".kernel k\n    DADD R2, R4, R6\n    EXIT\n";
  expect_contains(g80.launch_error(src, Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(), ErrorCode::IllegalInstruction),
                  {"DADD needs a DP unit", "configuration g80"});
  if (!tsm::test::have_backend("gt200")) GTEST_SKIP() << "this backend has no gt200 model";
  KernelHarness gt200("gt200");
  EXPECT_NO_THROW(gt200.launch(src, Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs()));
}

TEST(Faults, TrapRunawayAndFallingOffTheCode) {
  KernelHarness h;
  expect_contains(h.launch_error(".kernel k\n    S2R R0, SR_TID_X\n    ISETP.EQ.U32 P0, PT, R0, 7\n@P0 TRAP\n    EXIT\n",
                                 Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(), ErrorCode::Assert),
                  {"trap", "thread (7,0,0)", "@P0 TRAP"});
  h.rt().set_instruction_budget(10000);
  expect_contains(h.launch_error(".kernel k\nspin:\n    BRA spin\n", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(),
                                 ErrorCode::LaunchTimeout),
                  {"runaway kernel", "more than 10000 warp instructions"});
  expect_contains(h.launch_error(".kernel k\n    MOV R1, RZ\n", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(), ErrorCode::IllegalInstruction),
                  {"PC 1 is outside the code"});
}

TEST(Faults, StackOverflowAndUnderflow) {
  KernelHarness h;
  // Unbounded recursion overflows the 16-entry stack of g80.
  expect_contains(h.launch_error(".kernel k\n.func f\n    CAL f\n    EXIT\n", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(),
                                 ErrorCode::LaunchFailure),
                  {"reconvergence stack overflow", "16 entries", "CAL"});
  expect_contains(h.launch_error(".kernel k\n    SYNC\n    EXIT\n", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(), ErrorCode::LaunchFailure),
                  {"reconvergence stack underflow", "SYNC with an empty reconvergence stack"});
  expect_contains(h.launch_error(".kernel k\n    BRK\n    EXIT\n", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(), ErrorCode::LaunchFailure),
                  {"BRK without a matching PBK"});
}

TEST(Faults, DivergentBarrierAndDeadlock) {
  KernelHarness h;
  const std::string divergent = R"(
.kernel k
    S2R R0, SR_TID_X
    LOP.AND R1, R0, 1
    ISETP.NE.U32 P0, PT, R1, RZ
    SSY j
@P0 BRA odd
    SYNC
odd:
    BAR.SYNC 0                                // only the odd threads of each warp get here
    SYNC
j:
    EXIT
)";
  expect_contains(h.launch_error(divergent, Dim3{1, 1, 1}, Dim3{64, 1, 1}, KernelArgs(), ErrorCode::LaunchFailure),
                  {"divergent barrier", "barrier 0", "warp 0 reached it with 16 of its 32 live threads", "0 of 2 warps arrived"});
  expect_contains(h.launch_error(".kernel k\n    BAR.SYNC 3, 512\n    EXIT\n", Dim3{1, 1, 1}, Dim3{64, 1, 1}, KernelArgs(),
                                 ErrorCode::LaunchFailure),
                  {"barrier deadlock", "barrier 3 waits for 16 warps but only 2"});
}

TEST(Faults, LaunchValidation) {
  KernelHarness h;
  const char* src = ".kernel k\n.param n u32\n    EXIT\n";
  expect_contains(h.launch_error(src, Dim3{1, 1, 1}, Dim3{32, 32, 1}, KernelArgs().u32(1), ErrorCode::InvalidConfiguration),
                  {"1024 threads", "max_threads_per_block 512"});
  expect_contains(h.launch_error(src, Dim3{1, 1, 2}, Dim3{32, 1, 1}, KernelArgs().u32(1), ErrorCode::InvalidConfiguration),
                  {"max_grid_z"});
  expect_contains(h.launch_error(src, Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(), ErrorCode::InvalidValue),
                  {"takes 1 parameters, the launch passes 0"});
  expect_contains(h.launch_error(src, Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().u64(1), ErrorCode::InvalidValue),
                  {"is 4 bytes (u32), the launch passes 8"});
  expect_contains(h.launch_error(".kernel k\n.shared 20000\n    EXIT\n", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs(),
                                 ErrorCode::LaunchOutOfResources),
                  {"shared"});
  try {
    h.rt().free(0x1234);
    ADD_FAILURE() << "free of a bad pointer succeeded";
  } catch (const tsm::RuntimeError& e) {
    EXPECT_EQ(e.code, ErrorCode::InvalidDevicePointer);
  }
}

}  // namespace
