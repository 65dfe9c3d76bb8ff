// Launch-shape checks and exact occupancy (resident blocks per SM) for a named SM configuration.
//
// The rule is NVIDIA's occupancy calculator for compute capability 1.x; docs/configurations.md
// states it with worked examples, and isa/gen_config.py computes the same examples so that the
// tests can hold this implementation to the documentation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tsm/config_gen.hpp"

namespace tsm {

/// A block or grid shape.
struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;

  /// Threads of a block, or blocks of a grid (64-bit: 3 x 32-bit dimensions can overflow 32).
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
};

/// "XxYxZ", the way launch shapes are written in messages.
std::string to_string(Dim3 dim);

/// What one thread block of a kernel consumes, as the kernel binary's metadata states it.
struct KernelResources {
  std::uint32_t regs_per_thread = 0;
  /// Static plus dynamic shared memory per block, in bytes.
  std::uint32_t shared_bytes = 0;
};

/// The resources that can cap resident blocks; the order is the tie-break order.
enum class OccupancyLimit { Threads, Warps, Blocks, Registers, SharedMemory };
inline constexpr std::size_t kOccupancyLimitCount = 5;

const char* to_string(OccupancyLimit limit);

/// A launch the configuration cannot run; the message names the value and the limit.
class LaunchConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Occupancy {
  std::uint32_t blocks_per_sm = 0;
  std::uint32_t threads_per_block = 0;
  std::uint32_t warps_per_block = 0;
  std::uint32_t warps_per_sm = 0;    ///< blocks_per_sm x warps_per_block
  std::uint32_t threads_per_sm = 0;  ///< blocks_per_sm x threads_per_block
  /// Registers granted to one block (after warp granularity and allocation-unit rounding).
  std::uint32_t regs_per_block = 0;
  /// Shared bytes granted to one block (rounded up to the allocation unit).
  std::uint32_t shared_per_block = 0;
  /// The first binding limit in OccupancyLimit order.
  OccupancyLimit limit = OccupancyLimit::Threads;
  /// Every limit that allows exactly blocks_per_sm, in OccupancyLimit order.
  std::vector<OccupancyLimit> binding;
  /// Blocks each limit alone would allow, indexed by OccupancyLimit; empty where the kernel does
  /// not use the resource (no registers or no shared memory).
  std::array<std::optional<std::uint32_t>, kOccupancyLimitCount> allowed_by;
  /// Multi-line account: the result, then one line per limit with its arithmetic.
  std::string explanation;

  std::optional<std::uint32_t> allowed(OccupancyLimit l) const {
    return allowed_by[static_cast<std::size_t>(l)];
  }
};

/// Resident blocks per SM for blocks of shape `block` of a kernel using `resources`.
/// Throws LaunchConfigError for a zero or oversized block dimension, too many threads per block,
/// too many registers per thread, or a block that cannot fit even once (registers or shared).
Occupancy compute_occupancy(const config::SmConfig& config, Dim3 block, KernelResources resources);

/// The most registers per thread (at most max_regs_per_thread) with which one block of shape `block`
/// still fits the SM, as --maxrregcount for that launch shape; 0 if none does (the block itself is
/// illegal, or does not fit even with one register).
std::uint32_t max_regs_for_block(const config::SmConfig& config, Dim3 block);

/// Throws LaunchConfigError for a zero grid dimension or one above max_grid_x/y/z.
void check_grid(const config::SmConfig& config, Dim3 grid);

}  // namespace tsm
