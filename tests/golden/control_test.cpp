// Reconvergence stack, calls, barriers (with exited warps and reductions), atomics under
// contention and printf, on the golden model.
#include <algorithm>
#include <numeric>

#include "kernel_harness.hpp"

namespace {

using tsm::Dim3;
using tsm::KernelArgs;
using tsm::test::KernelHarness;
using tsm::test::store_kernel;

TEST(Reconvergence, ThreeNestedLevelsStoreOnEverySide) {
  KernelHarness h;
  // r = 100 + bit0*1 + bit1*10 + bit2*100 style path code, every side of three nested ifs.
  const std::string body = R"(
    MOV R10, RZ
    LOP.AND R6, R0, 1
    ISETP.NE.U32 P0, PT, R6, RZ
    SSY j1
@!P0 BRA a0
    IADD R10, R10, 1
    LOP.AND R6, R0, 2
    ISETP.NE.U32 P1, PT, R6, RZ
    SSY j2
@!P1 BRA b0
    IADD R10, R10, 10
    LOP.AND R6, R0, 4
    ISETP.NE.U32 P2, PT, R6, RZ
    SSY j3
@!P2 BRA c0
    IADD R10, R10, 100
    SYNC
c0:
    IADD R10, R10, 200
    SYNC
j3:
    SYNC
b0:
    IADD R10, R10, 20
    SYNC
j2:
    SYNC
a0:
    IADD R10, R10, 2
    SYNC
j1:
    IADD R10, R10, 1000                      // everyone, after reconvergence
)";
  const auto out = h.words(64);
  h.launch(store_kernel(body), Dim3{1, 1, 1}, Dim3{64, 1, 1}, KernelArgs().ptr(out));
  const auto r = h.read(out, 64);
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t want = 1000;
    if (i & 1) {
      want += 1;
      if (i & 2) want += 10 + ((i & 4) ? 100 : 200);
      else want += 20;
    } else {
      want += 2;
    }
    EXPECT_EQ(r[i], want) << i;
  }
}

TEST(Reconvergence, CallsWithEarlyReturnFromDivergentCode) {
  KernelHarness h;
  const std::string body = R"(
    MOV R10, RZ
    CAL f                                     // f adds 1, returns early for odd threads, else adds 10
    IADD R10, R10, 100                        // every thread is back here
    BRA done
.func f
    IADD R10, R10, 1
    LOP.AND R6, R0, 1
    ISETP.NE.U32 P0, PT, R6, RZ
@P0 RET
    IADD R10, R10, 10
    RET
done:
)";
  const auto out = h.words(40);
  h.launch(store_kernel(body), Dim3{1, 1, 1}, Dim3{40, 1, 1}, KernelArgs().ptr(out));
  const auto r = h.read(out, 40);
  for (uint32_t i = 0; i < 40; ++i) EXPECT_EQ(r[i], (i & 1) ? 101u : 111u) << i;
}

TEST(Reconvergence, BreakFromInsideANestedIf) {
  KernelHarness h;
  // for (k = 0; ; ++k) { if (k == i % 5) { if (i & 1) break; else { acc += 100; break; } } acc += 1; }
  const std::string body = R"(
    MOV R10, RZ
    MOV R11, RZ
    LOP.AND R12, R0, 3
    PBK out
loop:
    ISETP.EQ.U32 P0, PT, R11, R12
    SSY next
@!P0 BRA skip
    LOP.AND R6, R0, 1
    ISETP.NE.U32 P1, PT, R6, RZ
@P1 BRK                                       // break out of the if and the loop
    IADD R10, R10, 100
    BRK
skip:
    SYNC
next:
    IADD R10, R10, 1
    IADD R11, R11, 1
    BRA loop
out:
)";
  const auto out = h.words(32);
  h.launch(store_kernel(body), Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs().ptr(out));
  const auto r = h.read(out, 32);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(r[i], (i & 3) + ((i & 1) ? 0u : 100u)) << i;
}

TEST(Barriers, ExitedWarpsDoNotCount) {
  KernelHarness h;
  // if (tid >= 40) return; s[tid] = tid; __syncthreads(); out[tid] = s[39 - tid];
  const auto out = h.words(96, 0xFFFFFFFF);
  h.launch(R"(
.kernel k
.shared 256
.param out u64
    S2R R0, SR_TID_X
    ISETP.GE.U32 P0, PT, R0, 40
@P0 EXIT                                      // warp 2 entirely and part of warp 1 leave
    SHL R6, R0, 2
    STS [R6], R0
    BAR.SYNC 0
    IADD R7, RZ, -R0
    IADD R7, R7, 39
    SHL R7, R7, 2
    LDS R10, [R7]
    IMAD.WIDE.U32 R2, R0, 4, RZ
    IADD.CC R4, R2, c[0][out], P6
    IADD.X R5, R3, c[0][out+4], P6
    STG.E [R4], R10
    EXIT
)", Dim3{1, 1, 1}, Dim3{96, 1, 1}, KernelArgs().ptr(out));
  const auto r = h.read(out, 96);
  for (uint32_t i = 0; i < 96; ++i) EXPECT_EQ(r[i], i < 40 ? 39 - i : 0xFFFFFFFFu) << i;
}

TEST(Barriers, ReductionsCountAllAndAny) {
  KernelHarness h;
  const auto out = h.words(3 * 128);
  h.launch(R"(
.kernel k
.param out u64
    S2R R0, SR_TID_X
    LOP.AND R6, R0, 3
    ISETP.EQ.U32 P0, PT, R6, RZ               // every fourth thread
    BRED.POPC R10, 0, P0
    BRED.AND R11, 1, P0
    BRED.OR R12, 2, P0
    IMAD.WIDE.U32 R2, R0, 12, RZ
    IADD.CC R4, R2, c[0][out], P6
    IADD.X R5, R3, c[0][out+4], P6
    STG.E [R4], R10
    STG.E [R4+4], R11
    STG.E [R4+8], R12
    EXIT
)", Dim3{1, 1, 1}, Dim3{128, 1, 1}, KernelArgs().ptr(out));
  const auto r = h.read(out, 3 * 128);
  for (uint32_t i = 0; i < 128; ++i) {
    EXPECT_EQ(r[3 * i + 0], 32u);
    EXPECT_EQ(r[3 * i + 1], 0u);
    EXPECT_EQ(r[3 * i + 2], 1u);
  }
}

TEST(Atomics, ContendedAddGivesEveryThreadAUniqueTicket) {
  KernelHarness h;
  const auto counter = h.words(1), tickets = h.words(1024);
  h.launch(R"(
.kernel k
.param counter u64
.param tickets u64
    S2R R0, SR_CTAID_X
    S2R R1, SR_NTID_X
    S2R R2, SR_TID_X
    IMAD.U32 R0, R0, R1, R2
    MOV R6, c[0][counter]
    MOV R7, c[0][counter+4]
    ATOM.ADD.U32.E R10, [R6], 1
    IMAD.WIDE.U32 R2, R0, 4, RZ
    IADD.CC R4, R2, c[0][tickets], P6
    IADD.X R5, R3, c[0][tickets+4], P6
    STG.E [R4], R10
    EXIT
)", Dim3{4, 1, 1}, Dim3{256, 1, 1}, KernelArgs().ptr(counter).ptr(tickets));
  EXPECT_EQ(h.read(counter, 1)[0], 1024u);
  auto t = h.read(tickets, 1024);
  std::sort(t.begin(), t.end());
  for (uint32_t i = 0; i < 1024; ++i) ASSERT_EQ(t[i], i);
}

// Atomics that return the old value and reductions that do not, on one word from every block of
// both SMs: in lockstep the golden model takes the old values from the RTL, in the memory's order,
// and must still count every reduction.
TEST(Atomics, AtomicsAndReductionsOnOneWordFromTwoSms) {
  if (!tsm::test::have_backend("small")) GTEST_SKIP() << "no model of small";
  KernelHarness h("small");
  const auto counter = h.words(1), tickets = h.words(768);
  h.launch(R"(
.kernel k
.param counter u64
.param tickets u64
    S2R R0, SR_CTAID_X
    S2R R1, SR_NTID_X
    S2R R2, SR_TID_X
    IMAD.U32 R0, R0, R1, R2
    MOV R6, c[0][counter]
    MOV R7, c[0][counter+4]
    ATOM.ADD.U32.E R10, [R6], 1
    ATOM.ADD.U32.E RZ, [R6], 1
    IMAD.WIDE.U32 R2, R0, 4, RZ
    IADD.CC R4, R2, c[0][tickets], P6
    IADD.X R5, R3, c[0][tickets+4], P6
    STG.E [R4], R10
    EXIT
)", Dim3{3, 1, 1}, Dim3{256, 1, 1}, KernelArgs().ptr(counter).ptr(tickets));
  EXPECT_EQ(h.read(counter, 1)[0], 1536u);
  auto t = h.read(tickets, 768);
  std::sort(t.begin(), t.end());
  EXPECT_EQ(std::adjacent_find(t.begin(), t.end()), t.end()) << "two threads got the same old value";
  EXPECT_LT(t.back(), 1536u);
}

TEST(Atomics, CasIncExchAndShared) {
  KernelHarness h;
  const auto cells = h.words(4), out = h.words(64);
  h.launch(R"(
.kernel k
.shared 4
.param cells u64
.param out u64
    S2R R0, SR_TID_X
    MOV R6, c[0][cells]
    MOV R7, c[0][cells+4]
    IADD R8, R0, 1
    ATOMCAS.U32.E R10, [R6], RZ, R8           // only the first thread sees 0 and swaps in its id+1
    IADD.CC R12, R6, 4, P6
    IADD.X R13, R7, RZ, P6
    ATOM.INC.U32.E RZ, [R12], 9               // wraps at 10
    IADD.CC R14, R6, 8, P6
    IADD.X R15, R7, RZ, P6
    ATOM.EXCH.U32.E R11, [R14], R8
    ATOMS.ADD.U32 RZ, [RZ], R8                // shared sum of 1..64
    BAR.SYNC 0
    ISETP.NE.U32 P0, PT, R0, RZ
    LDS R16, [RZ]
    IADD.CC R12, R6, 12, P6
    IADD.X R13, R7, RZ, P6
@!P0 STG.E [R12], R16
    IMAD.WIDE.U32 R2, R0, 4, RZ
    IADD.CC R4, R2, c[0][out], P6
    IADD.X R5, R3, c[0][out+4], P6
    STG.E [R4], R10
    EXIT
)", Dim3{1, 1, 1}, Dim3{64, 1, 1}, KernelArgs().ptr(cells).ptr(out));
  const auto c = h.read(cells, 4);
  EXPECT_EQ(c[0], 1u);            // thread 0 won the CAS
  EXPECT_EQ(c[1], 64u % 10);      // 64 increments wrapping at 10
  EXPECT_GE(c[2], 1u);            // the last exchange's value
  EXPECT_EQ(c[3], 64u * 65 / 2);  // shared atomic sum
  const auto r = h.read(out, 64);
  EXPECT_EQ(r[0], 0u);
  for (uint32_t i = 1; i < 64; ++i) EXPECT_EQ(r[i], 1u) << i;  // everyone else saw thread 0's value
}

TEST(Printf, RecordsAreFormattedOnTheHost) {
  KernelHarness h;
  const auto r = h.launch(R"(
.global fmt u8[32] = "thread %d squared %#x, %s\n"
.global name u8[8] = "ok"
.kernel k
    S2R R0, SR_TID_X
    ISETP.GE.U32 P0, PT, R0, 3
@P0 EXIT
    MOV R6, c[0][0x0]                         // printf buffer (launch information)
    ATOM.ADD.U32 R7, [R6], 32                 // reserve a 32-byte record
    IADD R8, R6, R7
    MOV R9, 32
    STG [R8], R9                              // record size
    STG [R8+4], RZ
    MOV R10, c[1][fmt]
    STG [R8+8], R10                           // format string address (64-bit)
    STG [R8+12], RZ
    STG [R8+16], R0                           // %d
    IMUL.U32 R11, R0, R0
    STG [R8+20], R11                          // %#x
    MOV R12, c[1][name]
    STG [R8+24], R12                          // %s (64-bit address)
    STG [R8+28], RZ
    EXIT
)", Dim3{1, 1, 1}, Dim3{32, 1, 1}, KernelArgs());
  EXPECT_EQ(r.printf_output, "thread 0 squared 0, ok\nthread 1 squared 0x1, ok\nthread 2 squared 0x4, ok\n");
}

}  // namespace
