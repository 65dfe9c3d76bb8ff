// Kernels and host programs shared by the harness tests.
#pragma once

#include <random>
#include <vector>

#include "runtime/runtime.hpp"

namespace tsm::rtltest {

/// Loads, stores (a line and a byte), divergence, local and shared memory, a barrier, BRED,
/// 32- and 64-bit global atomics and the clock, over 7 blocks of 80 threads (three warps, the
/// last half full) on the `small` configuration's 2 SMs: blocks are placed while others run.
inline const char* kMixKernel = R"(
.kernel k
.shared 512
.local 8
.param in u64
.param out u64
.param cells u64
    S2R R0, SR_CTAID_X
    S2R R1, SR_NTID_X
    S2R R2, SR_TID_X
    IMAD.U32 R0, R0, R1, R2         // i
    IMAD.WIDE.U32 R2, R0, 4, RZ
    IADD.CC R4, R2, c[0][in], P6
    IADD.X R5, R3, c[0][in+4], P6
    LDG.E R6, [R4]                  // x = in[i]
    S2R R20, SR_CLOCK               // only the RTL knows the clock
    S2R R21, SR_CLOCK_HI
    ISETP.LT.U32 P0, PT, R6, 100
    SSY done
@P0 BRA small
    IADD R7, R6, 0x100
    SYNC
small:
    IMUL.U32 R7, R6, 3
    SYNC
done:
    STL [RZ+4], R7
    LDL R8, [RZ+4]
    S2R R9, SR_TID_X
    SHL R10, R9, 2
    STS [R10], R8
    BAR.SYNC 0
    LDS R11, [RZ]                   // thread 0's value
    BRED.POPC R12, 0, P0
    MOV R14, c[0][cells]
    MOV R15, c[0][cells+4]
    ATOM.ADD.U32.E R13, [R14], 1    // a ticket
    IADD.CC R16, R14, 8, P6
    IADD.X R17, R15, RZ, P6
    MOV R18, R0
    MOV R19, RZ
    ATOM.ADD.U64.E R22, [R16], R18
    IMAD.WIDE.U32 R2, R0, 16, RZ
    IADD.CC R16, R2, c[0][out], P6
    IADD.X R17, R3, c[0][out+4], P6
    MOV R24, R8
    MOV R25, R11
    MOV R26, R12
    MOV R27, R13
    STG.E.128 [R16], R24
    STG.E.U8 [R16+1], R9
    EXIT
)";

inline constexpr Dim3 kMixGrid{7, 1, 1}, kMixBlock{80, 1, 1};

struct MixBuffers {
  KernelArgs args;
  DevicePtr in = 0, out = 0, cells = 0;
};

/// The mix kernel's buffers: `in` random below 200, `out` 16 bytes a thread (0xEE), `cells` zero.
inline MixBuffers mix_kernel_args(Runtime& rt) {
  const uint32_t n = kMixGrid.x * kMixBlock.x;
  std::vector<uint32_t> in(n);
  std::mt19937 rng(7);
  for (auto& v : in) v = rng() % 200;
  MixBuffers b;
  b.in = rt.malloc(n * 4);
  b.out = rt.malloc(n * 16);
  b.cells = rt.malloc(16);
  rt.memcpy_to_device(b.in, std::span(reinterpret_cast<const uint8_t*>(in.data()), n * 4));
  rt.memset(b.out, 0xEE, n * 16);
  rt.memset(b.cells, 0, 16);
  b.args = KernelArgs().ptr(b.in).ptr(b.out).ptr(b.cells);
  return b;
}

/// Thread 5 loads from address 0: an out-of-bounds fault at the LDG (PC 6).
inline const char* kFaultKernel = R"(
.kernel k
.param out u64
    S2R R0, SR_TID_X
    ISETP.EQ.U32 P0, PT, R0, 5
    MOV R4, c[0][out]
    MOV R5, c[0][out+4]
@P0 MOV R4, RZ
@P0 MOV R5, RZ
    LDG.E R6, [R4]                  // thread 5 reads address 0
    STG.E [R4], R6
    EXIT
)";

}  // namespace tsm::rtltest
