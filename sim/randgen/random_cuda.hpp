// Seeded random CUDA C kernels, Csmith-style, for the differential oracle of compiled CUDA
// (tsm random --level cuda; docs/random-kernels.md).
//
// generate_cuda(seed) builds a kernel as a tree of statements and expressions and prints it as CUDA
// C: per-thread integer expressions (32- and 64-bit, signed and unsigned), float expressions made
// only of explicitly rounded intrinsics (__fadd_rn, __fmaf_rz, __fdiv_ru, __int2float_rd, ...),
// nested if/else, switch with break, fall-through, default and early return among its arms, for,
// while and do-while loops with break, continue and return from inside nested loops, local arrays
// with masked dynamic indices, __shared__ exchanges between __syncthreads() in block-uniform control
// flow, warp-uniform and divergent branches, __device__ functions (__noinline__, __forceinline__ or
// neither) with early returns, ternaries and short-circuit conditions with a side effect on the
// right. The oracle (cuda_oracle.hpp) compiles the same text for the device and, with
// cuda_host_shim.h, for the host, and compares the buffers.
//
// Every kernel is well defined C++ (so the two compilations must agree bit for bit):
//   - signed arithmetic wraps through unsigned helpers (add_s32, mul_s64, ...), shift counts are
//     masked, division and remainder are guarded against zero and INT_MIN / -1;
//   - floats only through explicitly rounded intrinsics, never `a * b + c` (which a compiler may
//     contract); a float is turned into bits only through fbits(), which makes every NaN the
//     canonical 0x7FFFFFFF, and into integers through the saturating __float2int_r? family;
//   - array indices are masked into range; `in` (1024 words: 512 integers, then 512 float bit
//     patterns) is read-only; each thread writes only its own kCudaOutWords words of `out`;
//   - shared memory: an exchange is `__syncthreads(); sh[tid] = e; __syncthreads(); v = f(sh[...]);`
//     generated only where the whole block is present (conditions on blockIdx and parameters,
//     loops with such trip counts and no break, continue or return inside), and never after a
//     return may have happened; so each slot is written by its owner between two barriers and read
//     only after the second;
//   - every loop has a counter and a trip limit of at most 4, so a kernel always ends.
// The kernel's signature is fixed: (const unsigned* in, unsigned* out, int pa, unsigned pb,
// float pf, long long pl); the parameters are uniform.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/occupancy.hpp"
#include "randgen/random_kernel.hpp"

namespace tsm::randgen {

/// Words of `out` each thread owns: 0..13 values the kernel stores, 14 untouched (but by
/// CudaOptions::plant_difference), 15 the checksum of all its variables.
inline constexpr uint32_t kCudaOutWords = 16;
/// Words of `in`: the first half integers, the second half float bit patterns.
inline constexpr uint32_t kCudaInWords = 1024;

/// Parts of the generator that can be left out (`--exclude a,b` at --level cuda): to keep a test
/// useful while a bug that one of them shows is open, or to find which part a failure needs.
enum class CudaFeature : unsigned {
  Sad,                 // __sad, __usad
  FloatFromI64,        // __ll2float_r?, __ull2float_r?
  DirectedDivSqrtRcp,  // __fdiv_, __fsqrt_, __frcp_ with rz, rd, ru
  RzConversions,       // __int2float_rz, __float2int_rz and the other int<->float conversions with _rz
  Float,               // every float intrinsic (float variables are still read and compared)
  Int64,               // 64-bit integer operations (64-bit variables are still read and compared)
  Switch,              // switch statements
  Loop,                // for, while and do-while loops
  Exchange,            // __shared__ exchanges with __syncthreads()
  Call,                // __device__ functions
  Count
};

/// Names of the features, indexed by CudaFeature ("sad", "float-from-i64", ...).
const std::vector<std::string>& cuda_feature_names();
/// "a,b,c" -> bit mask of CudaFeatures; throws std::invalid_argument naming an unknown feature.
uint32_t parse_cuda_features(std::string_view list);

struct CudaOptions {
  std::string config = "small";  ///< launch shapes fit this configuration
  uint32_t excluded = 0;         ///< bit (1 << CudaFeature) per feature left out
  bool has(CudaFeature f) const { return !(excluded >> static_cast<unsigned>(f) & 1); }
  /// A test of the oracle itself: the kernel's first statement, guarded by `#ifdef __CUDA_ARCH__`,
  /// changes a word of `out` on the device only, so the device and the host reference must differ.
  bool plant_difference = false;
};

/// What the generator put into a kernel, for descriptions and tests.
struct CudaStats {
  unsigned statements = 0, ifs = 0, uniform_ifs = 0, switches = 0, fallthroughs = 0, defaults = 0, loops = 0, nested_loops = 0;
  unsigned breaks = 0, continues = 0, returns = 0, returns_in_switch = 0, returns_in_loop = 0, exchanges = 0, barrier_loops = 0;
  unsigned functions = 0, noinline = 0, forceinline = 0, function_returns = 0, calls = 0;
  unsigned float_ops = 0, int64_ops = 0, array_stores = 0, short_circuits = 0, ternaries = 0, max_nesting = 0;
};

struct CudaProgram;  // the statement tree (random_cuda.cpp)

/// One reduction step on a kernel's tree: remove a statement or a switch case, replace an if by
/// one of its branches or a loop by one pass of its body, replace an expression by zero or by one
/// of its operands of the same type.
struct CudaEdit {
  enum class Kind : uint8_t { Remove, Then, Else, Unroll, Zero, Hoist } kind = Kind::Remove;
  uint32_t node = 0;    ///< the node's number in the tree (pre-order)
  uint32_t weight = 0;  ///< nodes it removes (larger edits are tried first)
  uint8_t operand = 0;  ///< Hoist: which operand replaces the expression
};

struct CudaKernel {
  uint64_t seed = 0;
  std::string config;
  std::string name;  ///< the entry: k<seed>
  Dim3 grid, block;
  int32_t pa = 0;
  uint32_t pb = 0;
  float pf = 0;
  int64_t pl = 0;
  std::vector<uint32_t> in;        ///< kCudaInWords words
  std::vector<uint32_t> out_init;  ///< `out` before the launch: kCudaOutWords words a thread
  std::shared_ptr<const CudaProgram> program;
  CudaStats stats;
  std::string description;  ///< one line

  /// The kernel's source (its device functions, then the entry) without the prelude, with the
  /// entry named `entry` (default: name) and its functions `entry`_fN.
  std::string source(const std::string& entry = "") const;
  /// Statements in the (possibly reduced) tree.
  unsigned statement_count() const;
  /// Every reduction step the tree allows now, largest first.
  std::vector<CudaEdit> edits() const;
  /// A copy with `edits` (numbers of this tree) applied together.
  CudaKernel with_edits(const std::vector<CudaEdit>& edits) const;
};

/// The kernel of `seed`. Throws std::invalid_argument for an unknown configuration.
CudaKernel generate_cuda(uint64_t seed, const CudaOptions& options = {});

/// The helpers every kernel uses (safe arithmetic, fbits, mix, ...): the first part of every
/// translation unit, device and host alike.
const std::string& cuda_prelude();

/// A whole .cu file: the prelude, then each source.
std::string cuda_translation_unit(const std::vector<std::string>& sources);

/// The launch as text (shape, parameters, buffer sizes), for --keep files.
std::string describe_cuda_launch(const CudaKernel& kernel);

/// The kernel's buffers as the randgen runner takes them: `in`, then `out`.
std::vector<RandomBuffer> cuda_buffers(const CudaKernel& kernel);
/// The scalar parameters after the buffers (pa, pb, pf, pl), one value each.
std::vector<std::vector<uint8_t>> cuda_scalar_arguments(const CudaKernel& kernel);

}  // namespace tsm::randgen
