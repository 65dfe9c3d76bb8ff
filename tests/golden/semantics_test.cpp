// Instruction semantics at their edges, each checked against values worked out by hand or by an
// independent C++ formulation, on kernels run through the runtime on the golden model.
#include <bit>
#include <climits>

#include "kernel_harness.hpp"

namespace {

using tsm::Dim3;
using tsm::KernelArgs;
using tsm::test::KernelHarness;

// Kernel with `out` (u64): R0 = thread index, R4:R5 = &out[4*i]; `body` fills R12..R15, which are
// stored as out[4i .. 4i+3].
std::string quad_kernel(const std::string& body, const std::string& extra = "") {
  return ".kernel k\n.param out u64\n" + extra + R"(
    S2R R0, SR_CTAID_X
    S2R R1, SR_NTID_X
    S2R R2, SR_TID_X
    IMAD.U32 R0, R0, R1, R2
    IMAD.WIDE.U32 R2, R0, 16, RZ
    IADD.CC R4, R2, c[0][out], P6
    IADD.X R5, R3, c[0][out+4], P6
)" + body + R"(
    STG.E.128 [R4], R12
    EXIT
)";
}

std::vector<uint32_t> run_quad(KernelHarness& h, const std::string& body, uint32_t threads, const std::string& extra = "") {
  const auto out = h.words(size_t{threads} * 4, 0xDEADBEEF);
  h.launch(quad_kernel(body, extra), Dim3{1, 1, 1}, Dim3{threads, 1, 1}, KernelArgs().ptr(out));
  return h.read(out, size_t{threads} * 4);
}

TEST(Semantics, ShiftsClampAtThirtyTwo) {
  KernelHarness h;
  const auto r = run_quad(h, R"(
    MOV32I R6, 0x80000001
    SHL R12, R6, R0                 // amount = thread index 0..63
    SHR.U32 R13, R6, R0
    SHR.S32 R14, R6, R0
    MOV32I R7, 0x12345678
    SHF.L R15, R6, R0, R7           // high word of (R7:R6 << n), amount clamped to 32
)", 64);
  for (uint32_t n = 0; n < 64; ++n) {
    const uint32_t x = 0x80000001u;
    const uint64_t pair = uint64_t{0x12345678} << 32 | x;
    EXPECT_EQ(r[4 * n + 0], n >= 32 ? 0u : x << n) << n;
    EXPECT_EQ(r[4 * n + 1], n >= 32 ? 0u : x >> n) << n;
    EXPECT_EQ(r[4 * n + 2], n >= 32 ? 0xFFFFFFFFu : static_cast<uint32_t>(static_cast<int32_t>(x) >> n)) << n;
    EXPECT_EQ(r[4 * n + 3], static_cast<uint32_t>((pair << std::min(n, 32u)) >> 32)) << n;
  }
}

TEST(Semantics, CarryChainsAndSaturation) {
  KernelHarness h;
  const auto r = run_quad(h, R"(
    MOV32I R6, 0xFFFFFFF0
    IADD.CC R12, R6, R0, P1         // low word of 0x1_FFFFFFF0 + i as a 64-bit add
    IADD.X R13, RZ, 1, P1           // high word: 1 + carry
    MOV32I R7, 0x7FFFFFF0
    IADD.SAT R14, R7, R0            // saturating signed add
    IADD.CC R15, R0, -R6, P2        // i - 0xFFFFFFF0: borrow chain
    IADD.X R15, R15, RZ, P2         // + carry (no borrow) of the subtraction
)", 32);
  for (uint32_t i = 0; i < 32; ++i) {
    const uint64_t sum = 0xFFFFFFF0ull + i;
    EXPECT_EQ(r[4 * i + 0], static_cast<uint32_t>(sum));
    EXPECT_EQ(r[4 * i + 1], 1u + static_cast<uint32_t>(sum >> 32));
    EXPECT_EQ(r[4 * i + 2], static_cast<uint32_t>(std::min<int64_t>(int64_t{0x7FFFFFF0} + i, INT_MAX)));
    const uint64_t diff = uint64_t{i} + static_cast<uint32_t>(~0xFFFFFFF0u) + 1;  // i - 0xFFFFFFF0 with carry out
    EXPECT_EQ(r[4 * i + 3], static_cast<uint32_t>(diff) + static_cast<uint32_t>(diff >> 32));
  }
}

TEST(Semantics, MultiplyHighAndWide) {
  KernelHarness h;
  const auto r = run_quad(h, R"(
    MOV32I R6, 0x80000000           // INT_MIN
    IADD R7, RZ, -R0                // -i
    IMUL.HI.S32 R12, R6, R7         // high word of INT_MIN * -i
    IMUL.HI.U32 R13, R6, R7
    IMUL.WIDE.S32 R14, R6, R7       // R14:R15 = INT_MIN * -i
)", 32);
  for (uint32_t i = 0; i < 32; ++i) {
    const int64_t s = int64_t{INT_MIN} * -static_cast<int64_t>(i);
    const uint64_t u = uint64_t{0x80000000u} * static_cast<uint32_t>(-static_cast<int32_t>(i));
    EXPECT_EQ(r[4 * i + 0], static_cast<uint32_t>(static_cast<uint64_t>(s) >> 32));
    EXPECT_EQ(r[4 * i + 1], static_cast<uint32_t>(u >> 32));
    EXPECT_EQ(r[4 * i + 2], static_cast<uint32_t>(s));
    EXPECT_EQ(r[4 * i + 3], static_cast<uint32_t>(static_cast<uint64_t>(s) >> 32));
  }
}

TEST(Semantics, BitFieldsPermutesAndCounts) {
  KernelHarness h;
  const auto r = run_quad(h, R"(
    MOV32I R6, 0xF0A5C381
    SHL R7, R0, 8                   // len = i, pos = 0 ... then pos = 4
    IADD R7, R7, 4
    BFE.S32 R12, R6, R7             // sign-extended field of length i at bit 4
    BFI R13, R0, R7, RZ             // insert i's low bits at 4
    PRMT R14, R6, 0x3210, R0        // identity selector: bytes of R6
    LOP3 R15, R6, R0, R6, 0xE8      // majority(a, b, c)
)", 40);
  auto bfe_ref = [](uint32_t a, uint32_t pos, uint32_t len) {
    if (len == 0) return 0u;
    uint32_t d = 0;
    const uint32_t sbit = a >> std::min(pos + len - 1, 31u) & 1;
    for (uint32_t b = 0; b < 32; ++b) d |= ((b < len && pos + b <= 31) ? (a >> (pos + b) & 1) : sbit) << b;
    return d;
  };
  for (uint32_t i = 0; i < 40; ++i) {
    const uint32_t a = 0xF0A5C381u;
    EXPECT_EQ(r[4 * i + 0], bfe_ref(a, 4, i)) << i;
    const uint32_t mask = i >= 28 ? 0xFFFFFFF0u : ((1u << i) - 1) << 4;
    EXPECT_EQ(r[4 * i + 1], (i << 4) & mask) << i;
    EXPECT_EQ(r[4 * i + 2], a);
    EXPECT_EQ(r[4 * i + 3], (a & i) | (a & a) | (i & a)) << i;
  }
}

TEST(Semantics, CountsAndBitReverse) {
  KernelHarness h;
  const auto r = run_quad(h, R"(
    SHL R6, R0, 27                  // i << 27 (0 for i = 0)
    POPC R12, R6
    CLZ R13, R6
    BREV R14, R6
    IMNMX.MIN.S32 R15, R6, 0x10
)", 32);
  for (uint32_t i = 0; i < 32; ++i) {
    const uint32_t x = i << 27;
    EXPECT_EQ(r[4 * i + 0], static_cast<uint32_t>(std::popcount(x)));
    EXPECT_EQ(r[4 * i + 1], static_cast<uint32_t>(std::countl_zero(x)));
    uint32_t rev = 0;
    for (int b = 0; b < 32; ++b) rev |= (x >> b & 1) << (31 - b);
    EXPECT_EQ(r[4 * i + 2], rev);
    EXPECT_EQ(r[4 * i + 3], static_cast<uint32_t>(std::min(static_cast<int32_t>(x), 16)));
  }
}

TEST(Semantics, PredicateLogic) {
  KernelHarness h;
  const auto r = run_quad(h, R"(
    LOP.AND R6, R0, 1
    ISETP.NE.U32 P0, P1, R6, RZ               // P0 = odd, P1 = even
    ISETP.LT.U32.AND P2, PT, R0, 16, P0       // odd and i < 16
    ISETP.LT.U32.OR P3, PT, R0, 4, P0         // odd or i < 4
    PLOP.XOR P4, P2, !P3
    MOV R8, 1
    SEL R12, R8, RZ, P2
    SEL R13, R8, RZ, P3
    SEL R14, R8, RZ, P4
    SEL R15, R8, RZ, !P1
)", 32);
  for (uint32_t i = 0; i < 32; ++i) {
    const bool odd = i & 1, p2 = odd && i < 16, p3 = odd || i < 4;
    EXPECT_EQ(r[4 * i + 0], uint32_t{p2});
    EXPECT_EQ(r[4 * i + 1], uint32_t{p3});
    EXPECT_EQ(r[4 * i + 2], uint32_t{p2 != !p3});
    EXPECT_EQ(r[4 * i + 3], uint32_t{odd});
  }
}

TEST(Semantics, FloatToIntegerSaturatesAndMapsNaNToZero) {
  KernelHarness h;
  // Inputs by thread: NaN, 3e9, -3e9, -1.5, 2.5, 300, -5, 1e-45 (denormal), -0.0, inf
  const char* consts = ".const in u32[10] = 0x7FC00000, 0x4F32D05E, 0xCF32D05E, 0xBFC00000, 0x40200000, 0x43960000, 0xC0A00000, 0x00000001, 0x80000000, 0x7F800000\n";
  const auto r = run_quad(h, R"(
    SHL R6, R0, 2
    LDC R7, c[2][R6]
    F2I.S32.F32.RZ R12, R7
    F2I.S32.F32.RN R13, R7
    F2I.U8.F32.RM R14, R7
    F2I.U32.F32.RP R15, R7
)", 10, consts);
  const uint32_t want[10][4] = {
      {0, 0, 0, 0},                                            // NaN -> 0
      {0x7FFFFFFF, 0x7FFFFFFF, 255, 3000000000u},              // 3e9
      {0x80000000u, 0x80000000u, 0, 0},                        // -3e9
      {0xFFFFFFFFu, 0xFFFFFFFEu, 0, 0},                        // -1.5: rz -1, rn -2, rm -2 -> u8 0, rp -1 -> u32 0
      {2, 2, 2, 3},                                            // 2.5: ties to even
      {300, 300, 255, 300},                                    // 300
      {0xFFFFFFFBu, 0xFFFFFFFBu, 0, 0},                        // -5
      {0, 0, 0, 1},                                            // smallest subnormal: rp rounds up
      {0, 0, 0, 0},                                            // -0.0
      {0x7FFFFFFF, 0x7FFFFFFF, 255, 0xFFFFFFFFu},              // inf
  };
  for (int i = 0; i < 10; ++i)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(r[4 * i + k], want[i][k]) << "input " << i << " conversion " << k;
}

TEST(Semantics, VoteOverActiveLanes) {
  KernelHarness h;
  const auto r = run_quad(h, R"(
    LOP.AND R6, R0, 1
    ISETP.NE.U32 P0, PT, R6, RZ               // odd
    ISETP.LT.U32 P1, PT, R0, 20               // lanes 0..19 take part
    MOV32I R8, 0xFFFFFFFF
    MOV R12, RZ
    MOV R13, RZ
    MOV R14, RZ
@P1 VOTE.ANY R12, P2, P0, R8                  // ballot of odd among lanes 0..19
@P1 VOTE.ALL RZ, P3, P0, R8
@P1 VOTE.UNI RZ, P4, PT, R8
    SEL R13, R8, RZ, P3
    SEL R14, R8, RZ, P4
    SEL R15, R8, RZ, P2
)", 32);
  for (uint32_t i = 0; i < 32; ++i) {
    const bool in = i < 20;
    EXPECT_EQ(r[4 * i + 0], in ? 0x000AAAAAu : 0u) << i;  // odd lanes below 20
    EXPECT_EQ(r[4 * i + 1], 0u) << i;                     // not all odd; lanes >= 20 keep 0
    EXPECT_EQ(r[4 * i + 2], in ? 0xFFFFFFFFu : 0u) << i;  // PT is uniform
    EXPECT_EQ(r[4 * i + 3], in ? 0xFFFFFFFFu : 0u) << i;  // any odd: true
  }
}

TEST(Semantics, ShuffleModesFollowPtx) {
  KernelHarness h;
  const auto r = run_quad(h, R"(
    IMUL.U32 R6, R0, 10                       // value = 10 * lane
    MOV R7, 0x1F                              // clamp 31, no segments
    SHFL.IDX R12, PT, R6, 5, R7               // broadcast lane 5
    SHFL.DOWN R13, P0, R6, 16, R7             // lanes 0..15 read lane + 16
    MOV R8, RZ
    SHFL.UP R14, P1, R6, 1, R8                // clamp 0 for .up: lane 0 keeps its own
    SHFL.BFLY R15, PT, R6, 1, R7              // swap neighbours
)", 32);
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(r[4 * i + 0], 50u);
    EXPECT_EQ(r[4 * i + 1], 10 * (i < 16 ? i + 16 : i)) << i;
    EXPECT_EQ(r[4 * i + 2], 10 * (i == 0 ? 0 : i - 1)) << i;
    EXPECT_EQ(r[4 * i + 3], 10 * (i ^ 1)) << i;
  }
}

TEST(Semantics, SpecialRegistersIn3D) {
  KernelHarness h;
  const auto out = h.words(96, 0);
  h.launch(R"(
.kernel k
.param out u64
    S2R R6, SR_TID_X
    S2R R7, SR_TID_Y
    S2R R20, SR_TID_Z
    S2R R10, SR_NTID_X
    S2R R14, SR_NTID_Y
    S2R R21, SR_NTID_Z
    IMAD.U32 R12, R20, R14, R7                // z * ny + y
    IMAD.U32 R12, R12, R10, R6                // thread in block
    S2R R8, SR_CTAID_X
    S2R R9, SR_CTAID_Y
    S2R R11, SR_NCTAID_X
    IMAD.U32 R13, R9, R11, R8                 // block in grid
    IMUL.U32 R15, R10, R14
    IMUL.U32 R15, R15, R21                    // threads per block
    IMAD.U32 R16, R13, R15, R12               // global linear index
    IMAD.WIDE.U32 R2, R16, 4, RZ
    IADD.CC R4, R2, c[0][out], P6
    IADD.X R5, R3, c[0][out+4], P6
    S2R R17, SR_LANEMASK_LT
    POPC R17, R17                             // lanes below this one
    S2R R18, SR_LANEID
    ISETP.EQ.U32 P0, PT, R17, R18
    SEL R19, R16, 0x7FFFF, P0
    STG.E [R4], R19
    EXIT
)", Dim3{2, 2, 1}, Dim3{3, 4, 2}, KernelArgs().ptr(out));
  const auto r = h.read(out, 96);
  for (uint32_t i = 0; i < 96; ++i) EXPECT_EQ(r[i], i);
}


// Outputs of PTX prmt.b32 in every mode on an NVIDIA H200 (CUDA 13.0, driver 580), for
// a = 0x83828180, b = 0x87868584 and selector i * 0x1111 (default mode) or i (other modes).
TEST(Semantics, PermuteModesMatchARealGpu) {
  static const uint32_t kGpu[16][7] = {
      {0x80808080, 0x83828180, 0x85868780, 0x80808080, 0x83828180, 0x80808080, 0x81808180},
      {0x81818181, 0x84838281, 0x86878081, 0x81818181, 0x83828181, 0x81818180, 0x83828382},
      {0x82828282, 0x85848382, 0x87808182, 0x82828282, 0x83828282, 0x82828180, 0x81808180},
      {0x83838383, 0x86858483, 0x80818283, 0x83838383, 0x83838383, 0x83828180, 0x83828382},
      {0x84848484, 0x83828180, 0x85868780, 0x80808080, 0x83828180, 0x80808080, 0x81808180},
      {0x85858585, 0x84838281, 0x86878081, 0x81818181, 0x83828181, 0x81818180, 0x83828382},
      {0x86868686, 0x85848382, 0x87808182, 0x82828282, 0x83828282, 0x82828180, 0x81808180},
      {0x87878787, 0x86858483, 0x80818283, 0x83838383, 0x83838383, 0x83828180, 0x83828382},
      {0xFFFFFFFF, 0x83828180, 0x85868780, 0x80808080, 0x83828180, 0x80808080, 0x81808180},
      {0xFFFFFFFF, 0x84838281, 0x86878081, 0x81818181, 0x83828181, 0x81818180, 0x83828382},
      {0xFFFFFFFF, 0x85848382, 0x87808182, 0x82828282, 0x83828282, 0x82828180, 0x81808180},
      {0xFFFFFFFF, 0x86858483, 0x80818283, 0x83838383, 0x83838383, 0x83828180, 0x83828382},
      {0xFFFFFFFF, 0x83828180, 0x85868780, 0x80808080, 0x83828180, 0x80808080, 0x81808180},
      {0xFFFFFFFF, 0x84838281, 0x86878081, 0x81818181, 0x83828181, 0x81818180, 0x83828382},
      {0xFFFFFFFF, 0x85848382, 0x87808182, 0x82828282, 0x83828282, 0x82828180, 0x81808180},
      {0xFFFFFFFF, 0x86858483, 0x80818283, 0x83838383, 0x83838383, 0x83828180, 0x83828382}};
  KernelHarness h;
  const auto out = h.words(16 * 8);
  h.launch(R"(
.kernel k
.param out u64
    S2R R0, SR_TID_X
    IMAD.WIDE.U32 R2, R0, 32, RZ
    IADD.CC R4, R2, c[0][out], P6
    IADD.X R5, R3, c[0][out+4], P6
    MOV32I R6, 0x83828180
    MOV32I R7, 0x87868584
    IMUL.U32 R8, R0, 0x1111
    PRMT R12, R6, R8, R7
    PRMT.F4E R13, R6, R0, R7
    PRMT.B4E R14, R6, R0, R7
    PRMT.RC8 R15, R6, R0, R7
    PRMT.ECL R16, R6, R0, R7
    PRMT.ECR R17, R6, R0, R7
    PRMT.RC16 R18, R6, R0, R7
    STG.E.128 [R4], R12
    STG.E.128 [R4+16], R16
    EXIT
)", Dim3{1, 1, 1}, Dim3{16, 1, 1}, KernelArgs().ptr(out));
  const auto r = h.read(out, 16 * 8);
  for (int i = 0; i < 16; ++i)
    for (int m = 0; m < 7; ++m) EXPECT_EQ(r[8 * i + m], kGpu[i][m]) << "selector " << i << " mode " << m;
}

// On the same GPU, atomicAdd on float flushes subnormals in global memory but not in shared
// memory: 0x10 + 0x1 (as subnormal floats) gave 0 in global memory and 0x11 in shared memory.
TEST(Semantics, FloatAtomicAddFlushesSubnormalsOnlyInGlobalMemory) {
  KernelHarness h;
  const auto cell = h.words(2, 0x10);
  h.launch(R"(
.kernel k
.shared 4
.param cell u64
    MOV R2, c[0][cell]
    MOV R3, c[0][cell+4]
    MOV R4, 0x10
    STS [RZ], R4
    MOV R5, 1
    ATOM.ADD.F32.E RZ, [R2], R5
    ATOMS.ADD.F32 RZ, [RZ], R5
    LDS R6, [RZ]
    STG.E [R2+4], R6
    EXIT
)", Dim3{1, 1, 1}, Dim3{1, 1, 1}, KernelArgs().ptr(cell));
  const auto r = h.read(cell, 2);
  EXPECT_EQ(r[0], 0u);
  EXPECT_EQ(r[1], 0x11u);
}

}  // namespace
