// Seeded constrained-random PTX kernels with an independent reference (tsm-tool random --level ptx).
//
// generate_ptx(seed, options) builds a small structured program (an AST of straight-line
// statements, if/else, bounded loops, break, early return, barrier exchanges, atomics, votes and
// shuffles), prints it as PTX for our translator, and evaluates the AST itself, block by block
// with explicit active masks, to get every buffer's expected contents after the launch. The
// translator's lowering, reconvergence, register allocation and spilling play no part in that
// evaluation, so a difference between it and the golden model running the translated kernel is a
// translator (or generator) bug that golden-vs-RTL lockstep cannot see. FP and SFU results come
// from the project's arithmetic libraries (sim/arith, sim/sfu): the reference checks the
// translator, not the arithmetic.
//
// Determinism (the final memory is a pure function of the seed and the launch shape):
//   - `in` is read-only; each thread stores and reloads only its own 128-byte region of `out`
//     (words 0..N-1 the value pool, N the predicates, 24..31 scratch written in the body);
//   - global counters in `cnt` take one commutative operation each (add, inc/dec with a bound
//     never reached, and/or/xor, min/max); an atomic's old value is used only through bits that no
//     other thread changes (ADD of multiples of 16: the low 4 bits; AND/OR/XOR of the high half:
//     the low half), or masked to zero;
//   - shared memory: each thread writes its own slot between the two barriers of an exchange
//     and reads any slot after the first; shared counters are initialized before a barrier and
//     written back after one, with atomics only in between;
//   - barriers, votes and shuffles only where every thread of the block is active (uniform
//     control flow, before any early return; votes and shuffles only in fully populated warps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "randgen/random_kernel.hpp"

namespace tsm {
struct Module;
}

namespace tsm::randgen {

/// Bytes of `out` each thread owns.
inline constexpr uint32_t kPtxOutStride = 128;

/// The small register budget every kernel is also translated with, so that the allocator spills
/// (the translator's widest sequences, rcp.rn and div.rn, need about 21).
inline constexpr uint32_t kPtxSpillBudget = 24;

struct PtxOptions {
  std::string config = "small";  // configuration the launch shape is sized for
};

/// What the generator put into a kernel, for descriptions and tests.
struct PtxStats {
  unsigned statements = 0;
  unsigned ifs = 0, loops = 0, breaks = 0, returns = 0, barriers = 0, atomics = 0, votes = 0, shfls = 0;
  unsigned max_nesting = 0;
};

struct PtxKernel {
  uint64_t seed = 0;
  std::string config;
  std::string kernel_name = "rk";
  std::string ptx;                               // the module text
  Dim3 grid, block;
  std::vector<RandomBuffer> buffers;             // in, out, cnt: the kernel's u64 parameters, in order
  uint32_t uni = 0;                              // the u32 parameter after them (uniform across the launch)
  std::vector<std::vector<uint8_t>> expected;    // every buffer after the launch, from the reference evaluator
  PtxStats stats;
  std::string description;                       // one line
};

/// The kernel of `seed`. Throws std::invalid_argument for an unknown configuration.
PtxKernel generate_ptx(uint64_t seed, const PtxOptions& options = {});

/// The launch as text (shape, parameters, buffer sizes), for --keep files.
std::string describe_launch(const PtxKernel& kernel);

/// Load `module` (the kernel's PTX, translated), allocate and fill the kernel's buffers, launch and
/// read every buffer back.
RandomRun run_ptx_kernel(Runtime& rt, const PtxKernel& kernel, Module module);

/// The first difference between `want` and `got` over the kernel's buffers ("" when equal), naming
/// the buffer, the thread and the word; `what` names the side `got` came from.
std::string compare_buffers(const std::vector<RandomBuffer>& buffers, const std::vector<std::vector<uint8_t>>& want,
                            const std::vector<std::vector<uint8_t>>& got, uint32_t out_stride, const std::string& want_name,
                            const std::string& got_name);

}  // namespace tsm::randgen
