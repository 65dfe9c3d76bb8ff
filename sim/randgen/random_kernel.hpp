// Seeded constrained-random native-ISA kernels for differential testing (golden model vs RTL).
//
// generate(seed, options) returns assembly text, a launch shape and parameter buffers, all a pure
// function of the seed and the options. Every kernel is legal on its configuration (registers,
// shared memory, reconvergence-stack depth, in-bounds aligned addresses) and deterministic: its
// final memory is the same whatever order warps, blocks, SMs and the memory perform their work in,
// so the end-of-run memory of two backends can be compared byte for byte. How determinism is kept:
//
//   - global memory: loads from the read-only input buffer (any lane, shared addresses included);
//     stores, loads and atomics of any kind only in the thread's own 64-byte region of `out`;
//     atomics on the shared counters of `cnt` use one commutative operation per counter (INC/DEC
//     with one bound, EXCH/CAS with one value), and their old values are used only through bits the
//     other threads cannot change (ADD of multiples of 16, OR/XOR of high halves, AND keeping low
//     halves);
//   - shared memory: each thread owns a 16-byte slot of the exchange region, written only between
//     the two barriers of an exchange phase and read anywhere else; shared counters the same way
//     (atomics between two barriers, reads elsewhere); everything is initialized before the first
//     barrier;
//   - local memory is initialized in the prologue; every register and predicate is written before
//     it is read; no SR_CLOCK, SR_SMID or SR_WARPID;
//   - barriers, shuffles and BRED only where every live thread of the block is active.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/occupancy.hpp"
#include "golden/model.hpp"
#include "isa/module.hpp"

namespace tsm {
class Runtime;
}

namespace tsm::randgen {

/// Features of the generator that can be switched off (`--exclude a,b`), e.g. to keep a suite useful
/// while a bug in one of them is open.
enum class Feature : unsigned {
  Fp,            // FADD FMUL FFMA FMNMX FSETP
  Convert,       // F2F F2I I2F
  Mufu,          // MUFU
  Wide,          // 64-bit results and sources: IMUL/IMAD.WIDE, F2I/I2F 64-bit, 64-bit atomics
  Predication,   // @P guards on ordinary instructions
  Branch,        // if/else through SSY/SYNC
  Loop,          // PBK/BRK loops and SSY back-branch loops
  Call,          // CAL/RET subroutines
  Exit,          // early EXIT of some threads
  Global,        // LDG/STG
  Generic,       // LD/ST (global, shared and local windows)
  Local,         // LDL/STL
  Shared,        // LDS/STS exchange phases with barriers
  Ldc,           // LDC with a register index, constant operands
  Atomic,        // ATOM/ATOMCAS on global memory
  SharedAtomic,  // ATOMS/ATOMSCAS
  Vote,          // VOTE
  Shfl,          // SHFL
  Bred,          // BRED
  WideLoad,      // 64- and 128-bit loads from global memory (LDG, LD): scattered lanes need up to 128 line requests
  F16,           // binary16 sources and results of F2F, F2I, I2F
  Membar,        // MEMBAR
  Dp,            // DADD DMUL DFMA DMNMX DSETP and F2F/F2I/I2F with binary64 (configurations with a DP unit)
  Count
};

/// Names of the features, indexed by Feature ("fp", "convert", ...).
const std::vector<std::string>& feature_names();
/// "a,b,c" -> bit mask of Features; throws std::invalid_argument naming an unknown feature.
uint32_t parse_features(std::string_view list);

struct RandomOptions {
  std::string config = "small";  // configuration the kernel is sized for (registers, shared, stack)
  uint32_t excluded = 0;         // bit (1 << Feature) per feature left out
  unsigned min_size = 60;        // static instructions of the kernel body, excluding prologue/epilogue
  unsigned max_size = 200;
  bool has(Feature f) const { return !(excluded >> static_cast<unsigned>(f) & 1); }
};

struct RandomBuffer {
  std::string name;           // the kernel's u64 parameter
  std::vector<uint8_t> init;  // contents before the launch (the size is the allocation's)
};

/// What the generator put into a kernel, for descriptions and tests.
struct RandomStats {
  unsigned instructions = 0;  // static instructions
  unsigned max_nesting = 0;   // deepest nesting of if/loop/call constructs
  unsigned max_stack = 0;     // worst-case reconvergence-stack entries
  unsigned ifs = 0, loops = 0, calls = 0, functions = 0, exits = 0, barriers = 0, atomics = 0, shfls = 0, votes = 0;
};

struct RandomKernel {
  uint64_t seed = 0;
  std::string config;
  std::string kernel_name = "rk";
  std::string source;                 // assembly text (docs/assembly.md)
  Dim3 grid, block;
  std::vector<RandomBuffer> buffers;  // the kernel's u64 pointer parameters, in order
  std::vector<uint8_t> table;         // the by-value parameter after them (`tab`, 64 bytes)
  uint32_t regs = 0;
  uint32_t shared_bytes = 0;
  RandomStats stats;
  std::string description;  // one line
};

/// The kernel of `seed`. Throws std::invalid_argument for an unknown configuration.
RandomKernel generate(uint64_t seed, const RandomOptions& options = {});

struct RandomRun {
  golden::LaunchStats stats;
  std::vector<std::vector<uint8_t>> buffers;  // every buffer's contents after the launch
};

/// Load `module`, allocate and fill `buffers` (with unmapped holes between them), launch `kernel_name`
/// with the buffers' addresses and then `values` (one parameter each) as its parameters, read every
/// buffer back and free the buffers again. Throws what the runtime throws.
RandomRun run_module(Runtime& rt, Module module, const std::string& kernel_name, Dim3 grid, Dim3 block,
                     const std::vector<RandomBuffer>& buffers, const std::vector<std::vector<uint8_t>>& values);

/// Assemble `kernel` (or `source_override` when not empty, with the kernel's launch and buffers),
/// load it, allocate and fill its buffers, launch and read every buffer back. The buffers are freed
/// again. Throws what assembling and the runtime throw (AsmError, RuntimeError, BackendError).
RandomRun run_kernel(Runtime& rt, const RandomKernel& kernel, std::string_view source_override = {});

}  // namespace tsm::randgen
