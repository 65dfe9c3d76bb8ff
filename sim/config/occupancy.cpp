// Launch-shape checks and the compute-1.x occupancy rule (see occupancy.hpp, docs/configurations.md).
#include "config/occupancy.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

namespace tsm {
namespace {

using config::kWarpSize;
using config::SmConfig;

std::uint64_t round_up(std::uint64_t value, std::uint64_t unit) { return (value + unit - 1) / unit * unit; }

std::string join(const std::vector<OccupancyLimit>& limits) {
  std::string text;
  for (std::size_t i = 0; i < limits.size(); ++i) {
    if (i > 0) text += i + 1 == limits.size() ? " and " : ", ";
    text += to_string(limits[i]);
  }
  return text;
}

// Throws unless every dimension of `dim` lies in 1..`limit` (`what` is "block" or "grid").
void check_dims(std::string_view what, Dim3 dim, Dim3 limit, const SmConfig& config) {
  if (dim.x == 0 || dim.y == 0 || dim.z == 0) {
    throw LaunchConfigError(
        fmt::format("{} {} has a zero dimension; every dimension must be at least 1", what, to_string(dim)));
  }
  const std::array<std::tuple<char, std::uint32_t, std::uint32_t>, 3> axes{{
      {'x', dim.x, limit.x},
      {'y', dim.y, limit.y},
      {'z', dim.z, limit.z},
  }};
  for (const auto& [axis, value, max] : axes) {
    if (value > max) {
      throw LaunchConfigError(fmt::format("{} {} has {} dimension {}, above max_{}_{} {} of config {}", what,
                                          to_string(dim), axis, value, what, axis, max, config.name));
    }
  }
}

}  // namespace

std::string to_string(Dim3 dim) { return fmt::format("{}x{}x{}", dim.x, dim.y, dim.z); }

const char* to_string(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::Threads: return "threads";
    case OccupancyLimit::Warps: return "warps";
    case OccupancyLimit::Blocks: return "blocks";
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::SharedMemory: return "shared memory";
  }
  return "?";
}

std::uint32_t max_regs_for_block(const SmConfig& config, Dim3 block) {
  for (std::uint32_t regs = config.max_regs_per_thread; regs > 0; --regs) {
    try {
      (void)compute_occupancy(config, block, {regs, 0});
      return regs;
    } catch (const LaunchConfigError&) {
    }
  }
  return 0;
}

Occupancy compute_occupancy(const SmConfig& config, Dim3 block, KernelResources resources) {
  check_dims("block", block, {config.max_block_x, config.max_block_y, config.max_block_z}, config);
  if (block.count() > config.max_threads_per_block) {
    throw LaunchConfigError(fmt::format("block of {} threads ({}) exceeds max_threads_per_block {} of config {}",
                                        block.count(), to_string(block), config.max_threads_per_block,
                                        config.name));
  }
  if (resources.regs_per_thread > config.max_regs_per_thread) {
    throw LaunchConfigError(fmt::format("{} registers per thread exceed max_regs_per_thread {} of config {}",
                                        resources.regs_per_thread, config.max_regs_per_thread, config.name));
  }

  Occupancy occ;
  occ.threads_per_block = static_cast<std::uint32_t>(block.count());  // <= max_threads_per_block
  occ.warps_per_block = (occ.threads_per_block + kWarpSize - 1) / kWarpSize;
  // Registers are granted per block for a whole multiple of warp_alloc_granularity warps.
  const std::uint64_t allocated_warps = round_up(occ.warps_per_block, config.warp_alloc_granularity);
  const std::uint64_t regs_per_block =
      round_up(allocated_warps * kWarpSize * resources.regs_per_thread, config.reg_alloc_unit);
  const std::uint64_t shared_per_block = round_up(resources.shared_bytes, config.shared_alloc_unit);
  if (regs_per_block > config.registers) {
    throw LaunchConfigError(fmt::format(
        "block {} needs {} registers ({} warps allocated as {}, x 32 threads x {} registers, rounded up to {}), "
        "more than registers {} of config {}",
        to_string(block), regs_per_block, occ.warps_per_block, allocated_warps, resources.regs_per_thread,
        config.reg_alloc_unit, config.registers, config.name));
  }
  if (shared_per_block > config.shared_bytes) {
    throw LaunchConfigError(fmt::format(
        "block {} needs {} bytes of shared memory ({} rounded up to {}), more than shared_bytes {} of config {}",
        to_string(block), shared_per_block, resources.shared_bytes, config.shared_alloc_unit, config.shared_bytes,
        config.name));
  }
  occ.regs_per_block = static_cast<std::uint32_t>(regs_per_block);
  occ.shared_per_block = static_cast<std::uint32_t>(shared_per_block);

  auto& allowed = occ.allowed_by;
  allowed[static_cast<std::size_t>(OccupancyLimit::Threads)] = config.max_threads() / occ.threads_per_block;
  allowed[static_cast<std::size_t>(OccupancyLimit::Warps)] = config.max_warps / occ.warps_per_block;
  allowed[static_cast<std::size_t>(OccupancyLimit::Blocks)] = config.max_blocks;
  if (occ.regs_per_block > 0) {
    allowed[static_cast<std::size_t>(OccupancyLimit::Registers)] = config.registers / occ.regs_per_block;
  }
  if (occ.shared_per_block > 0) {
    allowed[static_cast<std::size_t>(OccupancyLimit::SharedMemory)] = config.shared_bytes / occ.shared_per_block;
  }
  occ.blocks_per_sm = config.max_blocks;
  for (const auto& bound : allowed) {
    if (bound) occ.blocks_per_sm = std::min(occ.blocks_per_sm, *bound);
  }
  for (std::size_t i = 0; i < kOccupancyLimitCount; ++i) {
    if (allowed[i] == occ.blocks_per_sm) occ.binding.push_back(static_cast<OccupancyLimit>(i));
  }
  occ.limit = occ.binding.front();
  occ.warps_per_sm = occ.blocks_per_sm * occ.warps_per_block;
  occ.threads_per_sm = occ.blocks_per_sm * occ.threads_per_block;

  // One line per limit, so a reader can redo the arithmetic.
  const auto line = [&](OccupancyLimit limit, const std::string& how) {
    const auto bound = occ.allowed(limit);
    const bool binds = bound == occ.blocks_per_sm;
    return fmt::format("  {:<14}{:>4}  {}{}\n", to_string(limit), bound ? fmt::to_string(*bound) : "-", how,
                       binds ? "  <- binds" : "");
  };
  occ.explanation = fmt::format(
      "{} block(s) of {} threads per SM: {} of {} warps ({}%), {} threads; limited by {}\n",
      occ.blocks_per_sm, occ.threads_per_block, occ.warps_per_sm, config.max_warps,
      occ.warps_per_sm * 100 / config.max_warps, occ.threads_per_sm, join(occ.binding));
  occ.explanation += line(OccupancyLimit::Threads,
                          fmt::format("{} threads per SM / {} per block", config.max_threads(), occ.threads_per_block));
  occ.explanation += line(OccupancyLimit::Warps,
                          fmt::format("{} warps per SM / {} per block", config.max_warps, occ.warps_per_block));
  occ.explanation += line(OccupancyLimit::Blocks, fmt::format("max_blocks {}", config.max_blocks));
  occ.explanation += line(
      OccupancyLimit::Registers,
      occ.regs_per_block == 0
          ? std::string("no registers used")
          : fmt::format("{} registers / {} per block ({} warps allocated as {}, x 32 threads x {} registers, "
                        "rounded up to {})",
                        config.registers, occ.regs_per_block, occ.warps_per_block, allocated_warps,
                        resources.regs_per_thread, config.reg_alloc_unit));
  occ.explanation += line(OccupancyLimit::SharedMemory,
                          occ.shared_per_block == 0
                              ? std::string("no shared memory used")
                              : fmt::format("{} bytes / {} per block ({} rounded up to {})", config.shared_bytes,
                                            occ.shared_per_block, resources.shared_bytes, config.shared_alloc_unit));
  return occ;
}

void check_grid(const SmConfig& config, Dim3 grid) {
  check_dims("grid", grid, {config.max_grid_x, config.max_grid_y, config.max_grid_z}, config);
}

}  // namespace tsm
