// Occupancy and launch-shape checks against numbers worked out by hand from the compute-1.x rule.
#include "config/occupancy.hpp"

#include <bit>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tsm/config_gen.hpp"
#include "tsm/occupancy_examples_gen.hpp"

namespace tsm {

// Lets gtest print limits by name in failure messages.
void PrintTo(OccupancyLimit limit, std::ostream* os) { *os << to_string(limit); }

namespace {

using config::kG80;
using config::kGt200;
using config::kSmall;
using Limits = std::vector<OccupancyLimit>;
constexpr OccupancyLimit kThreads = OccupancyLimit::Threads;
constexpr OccupancyLimit kWarps = OccupancyLimit::Warps;
constexpr OccupancyLimit kBlocks = OccupancyLimit::Blocks;
constexpr OccupancyLimit kRegisters = OccupancyLimit::Registers;

// gtest without gmock (Debian's libgtest-dev does not bring libgmock-dev).
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

std::string refusal(const config::SmConfig& config, Dim3 block, KernelResources resources) {
  try {
    compute_occupancy(config, block, resources);
  } catch (const LaunchConfigError& e) {
    return e.what();
  }
  return "launch was not refused";
}

std::string grid_refusal(const config::SmConfig& config, Dim3 grid) {
  try {
    check_grid(config, grid);
  } catch (const LaunchConfigError& e) {
    return e.what();
  }
  return "grid was not refused";
}

// --- g80: 24 warps, 8 blocks, 8192 registers (unit 256), 16 KB shared (unit 512) ---

TEST(Occupancy, G80Block16x16At10RegsFills768Threads) {
  // 256 threads = 8 warps; registers 8 x 32 x 10 = 2560 (a multiple of 256).
  // threads 768/256 = 3, warps 24/8 = 3, blocks 8, registers 8192/2560 = 3.
  const Occupancy occ = compute_occupancy(kG80, {16, 16, 1}, {10, 0});
  EXPECT_EQ(occ.blocks_per_sm, 3u);
  EXPECT_EQ(occ.threads_per_sm, 768u);
  EXPECT_EQ(occ.warps_per_sm, 24u);
  EXPECT_EQ(occ.warps_per_block, 8u);
  EXPECT_EQ(occ.regs_per_block, 2560u);
  EXPECT_EQ(occ.limit, OccupancyLimit::Threads);
  EXPECT_EQ(occ.binding, (Limits{kThreads, kWarps, kRegisters}));
  EXPECT_EQ(occ.allowed(OccupancyLimit::Blocks), 8u);
  EXPECT_EQ(occ.allowed(OccupancyLimit::SharedMemory), std::nullopt);
  EXPECT_TRUE(Contains(occ.explanation, "limited by threads, warps and registers"));
  EXPECT_TRUE(Contains(occ.explanation, "8192 registers / 2560 per block"));
  EXPECT_TRUE(Contains(occ.explanation, "no shared memory used"));
}

TEST(Occupancy, G80Block16x16At8RegsIsLimitedByThreadsNotRegisters) {
  // Registers 8 x 32 x 8 = 2048: 8192/2048 = 4 blocks, so only threads and warps (3) bind.
  const Occupancy occ = compute_occupancy(kG80, {16, 16, 1}, {8, 0});
  EXPECT_EQ(occ.blocks_per_sm, 3u);
  EXPECT_EQ(occ.binding, (Limits{kThreads, kWarps}));
  EXPECT_EQ(occ.allowed(OccupancyLimit::Registers), 4u);
}

TEST(Occupancy, G80Block8x8HitsTheBlockLimit) {
  // 64 threads = 2 warps; registers 2 x 32 x 10 = 640, rounded up to 768.
  // threads 768/64 = 12, warps 24/2 = 12, blocks 8, registers 8192/768 = 10 -> 8 blocks, 512 threads.
  const Occupancy occ = compute_occupancy(kG80, {8, 8, 1}, {10, 0});
  EXPECT_EQ(occ.blocks_per_sm, 8u);
  EXPECT_EQ(occ.threads_per_sm, 512u);
  EXPECT_EQ(occ.regs_per_block, 768u);
  EXPECT_EQ(occ.limit, OccupancyLimit::Blocks);
  EXPECT_EQ(occ.binding, (Limits{kBlocks}));
  EXPECT_EQ(occ.allowed(OccupancyLimit::Registers), 10u);
  EXPECT_TRUE(Contains(occ.explanation, "limited by blocks"));
}

TEST(Occupancy, G80Block32x32IsRefused) {
  EXPECT_EQ(refusal(kG80, {32, 32, 1}, {10, 0}),
            "block of 1024 threads (32x32x1) exceeds max_threads_per_block 512 of config g80");
}

TEST(Occupancy, G80RegisterLimited) {
  // 16 registers: 8 x 32 x 16 = 4096 per block; 8192/4096 = 2 < 3 (threads, warps).
  const Occupancy occ = compute_occupancy(kG80, {16, 16, 1}, {16, 0});
  EXPECT_EQ(occ.blocks_per_sm, 2u);
  EXPECT_EQ(occ.limit, OccupancyLimit::Registers);
  EXPECT_EQ(occ.binding, (Limits{kRegisters}));
}

TEST(Occupancy, G80WarpAllocationGranularityCountsWarpPairs) {
  // 96 threads = 3 warps, counted as 4 for registers: 4 x 32 x 20 = 2560 -> 8192/2560 = 3 blocks.
  // Without the granularity it would be 3 x 32 x 20 = 1920 -> 2048 -> 4 blocks.
  const Occupancy occ = compute_occupancy(kG80, {96, 1, 1}, {20, 0});
  EXPECT_EQ(occ.regs_per_block, 2560u);
  EXPECT_EQ(occ.blocks_per_sm, 3u);
  EXPECT_EQ(occ.limit, OccupancyLimit::Registers);
}

TEST(Occupancy, G80PartialWarpTakesAWholeWarpSlot) {
  // 100 threads = 4 warps: threads 768/100 = 7 but warps 24/4 = 6, so warps bind alone.
  const Occupancy occ = compute_occupancy(kG80, {100, 1, 1}, {0, 0});
  EXPECT_EQ(occ.warps_per_block, 4u);
  EXPECT_EQ(occ.allowed(OccupancyLimit::Threads), 7u);
  EXPECT_EQ(occ.blocks_per_sm, 6u);
  EXPECT_EQ(occ.binding, (Limits{kWarps}));
  EXPECT_EQ(occ.allowed(OccupancyLimit::Registers), std::nullopt);  // no registers: no limit
}

TEST(Occupancy, G80SharedMemoryLimited) {
  // 6000 bytes round up to 6144: 16384/6144 = 2 blocks; registers 8 x 32 x 8 = 2048 allow 4.
  const Occupancy occ = compute_occupancy(kG80, {16, 16, 1}, {8, 6000});
  EXPECT_EQ(occ.shared_per_block, 6144u);
  EXPECT_EQ(occ.blocks_per_sm, 2u);
  EXPECT_EQ(occ.limit, OccupancyLimit::SharedMemory);
  EXPECT_TRUE(Contains(occ.explanation, "16384 bytes / 6144 per block (6000 rounded up to 512)"));
}

TEST(Occupancy, G80FullBlockAt16RegsFitsExactlyOnce) {
  // 512 threads = 16 warps x 32 x 16 = 8192 registers: exactly the register file.
  const Occupancy occ = compute_occupancy(kG80, {512, 1, 1}, {16, 0});
  EXPECT_EQ(occ.blocks_per_sm, 1u);
  EXPECT_EQ(occ.binding, (Limits{kThreads, kWarps, kRegisters}));
}

TEST(Occupancy, RefusesABlockThatCannotFitOnce) {
  // 512 threads at 17 registers: 16 x 32 x 17 = 8704 > 8192.
  const std::string message = refusal(kG80, {512, 1, 1}, {17, 0});
  EXPECT_TRUE(Contains(message, "needs 8704 registers"));
  EXPECT_TRUE(Contains(message, "more than registers 8192 of config g80"));
  // 17 KB of shared memory is more than the SM's 16 KB.
  EXPECT_EQ(refusal(kG80, {64, 1, 1}, {8, 17 * 1024}),
            "block 64x1x1 needs 17408 bytes of shared memory (17408 rounded up to 512), more than shared_bytes "
            "16384 of config g80");
}

TEST(Occupancy, RefusesTooManyRegistersPerThread) {
  EXPECT_EQ(refusal(kG80, {32, 1, 1}, {129, 0}),
            "129 registers per thread exceed max_regs_per_thread 128 of config g80");
  EXPECT_NO_THROW(compute_occupancy(kG80, {32, 1, 1}, {128, 0}));
}

TEST(Occupancy, RefusesZeroAndOversizedBlockDimensions) {
  EXPECT_EQ(refusal(kG80, {16, 0, 1}, {8, 0}), "block 16x0x1 has a zero dimension; every dimension must be at least 1");
  EXPECT_EQ(refusal(kG80, {1, 1, 65}, {8, 0}), "block 1x1x65 has z dimension 65, above max_block_z 64 of config g80");
  EXPECT_TRUE(Contains(refusal(kSmall, {512, 1, 1}, {8, 0}), "above max_block_x 256 of config small"));
}

TEST(Occupancy, ChecksGridDimensions) {
  EXPECT_NO_THROW(check_grid(kG80, {65535, 65535, 1}));
  EXPECT_EQ(grid_refusal(kG80, {4, 4, 2}), "grid 4x4x2 has z dimension 2, above max_grid_z 1 of config g80");
  EXPECT_EQ(grid_refusal(kG80, {0, 1, 1}), "grid 0x1x1 has a zero dimension; every dimension must be at least 1");
  EXPECT_TRUE(Contains(grid_refusal(kG80, {65536, 1, 1}), "above max_grid_x 65535"));
}

// --- gt200: 32 warps, 16384 registers (unit 512) ---

TEST(Occupancy, Gt200Block16x16At16RegsHoldsFourBlocks) {
  // 8 warps x 32 x 16 = 4096 registers; threads 1024/256 = 4, warps 32/8 = 4, registers 16384/4096 = 4.
  const Occupancy occ = compute_occupancy(kGt200, {16, 16, 1}, {16, 0});
  EXPECT_EQ(occ.blocks_per_sm, 4u);
  EXPECT_EQ(occ.threads_per_sm, 1024u);
  EXPECT_EQ(occ.binding, (Limits{kThreads, kWarps, kRegisters}));
}

TEST(Occupancy, Gt200With8KBSharedHoldsTwoBlocks) {
  // 8192 shared bytes per block: 16384/8192 = 2.
  const Occupancy occ = compute_occupancy(kGt200, {16, 16, 1}, {16, 8192});
  EXPECT_EQ(occ.blocks_per_sm, 2u);
  EXPECT_EQ(occ.limit, OccupancyLimit::SharedMemory);
}

TEST(Occupancy, Gt200RegisterAllocationUnitIs512) {
  // 16x8 = 4 warps x 32 x 17 = 2176, rounded up to 2560: 16384/2560 = 6 (7 without the unit).
  const Occupancy occ = compute_occupancy(kGt200, {16, 8, 1}, {17, 0});
  EXPECT_EQ(occ.regs_per_block, 2560u);
  EXPECT_EQ(occ.blocks_per_sm, 6u);
  EXPECT_EQ(occ.limit, OccupancyLimit::Registers);
  // The same launch on g80 (unit 256): 2176 -> 2304, 8192/2304 = 3.
  EXPECT_EQ(compute_occupancy(kG80, {16, 8, 1}, {17, 0}).regs_per_block, 2304u);
}

// --- small: 8 warps, 4 blocks, 8192 registers, 8 KB shared, 256 threads per block ---

TEST(Occupancy, SmallTwoWarpBlocks) {
  // 64 threads = 2 warps: threads 256/64 = 4, warps 8/2 = 4, blocks 4; registers 8192/1024 = 8.
  const Occupancy occ = compute_occupancy(kSmall, {8, 8, 1}, {16, 0});
  EXPECT_EQ(occ.blocks_per_sm, 4u);
  EXPECT_EQ(occ.binding, (Limits{kThreads, kWarps, kBlocks}));
}

TEST(Occupancy, SmallFullBlock) {
  // 256 threads at 32 registers take the whole register file; 33 registers do not fit.
  EXPECT_EQ(compute_occupancy(kSmall, {16, 16, 1}, {32, 2048}).blocks_per_sm, 1u);
  EXPECT_TRUE(Contains(refusal(kSmall, {16, 16, 1}, {33, 0}), "more than registers 8192 of config small"));
  EXPECT_TRUE(Contains(refusal(kSmall, {16, 32, 1}, {8, 0}), "exceeds max_threads_per_block 256"));
  EXPECT_TRUE(Contains(refusal(kSmall, {32, 1, 1}, {0, 9000}), "more than shared_bytes 8192"));
}

TEST(Occupancy, LimitNames) {
  EXPECT_STREQ(to_string(OccupancyLimit::SharedMemory), "shared memory");
  EXPECT_EQ(to_string(Dim3{2, 3, 4}), "2x3x4");
  EXPECT_EQ((Dim3{65535, 65535, 64}.count()), 65535ull * 65535ull * 64ull);
}

// --- The generator's worked examples (docs/configurations.md) agree with this calculator ---

TEST(OccupancyExamples, MatchTheGeneratedDocs) {
  ASSERT_FALSE(config::kOccupancyExamples.empty());
  for (const auto& example : config::kOccupancyExamples) {
    const config::SmConfig* config = config::find_config(example.config);
    ASSERT_NE(config, nullptr) << example.config;
    const Dim3 block{example.block_x, example.block_y, example.block_z};
    const KernelResources resources{example.regs_per_thread, example.shared_bytes};
    SCOPED_TRACE(fmt::format("{} block {} regs {} shared {}", example.config, to_string(block),
                             example.regs_per_thread, example.shared_bytes));
    if (!example.refused_by.empty()) {
      EXPECT_TRUE(Contains(refusal(*config, block, resources), std::string(example.refused_by)));
      continue;
    }
    const Occupancy occ = compute_occupancy(*config, block, resources);
    EXPECT_EQ(occ.blocks_per_sm, example.blocks_per_sm);
    EXPECT_EQ(occ.regs_per_block, example.regs_per_block);
    EXPECT_EQ(occ.shared_per_block, example.shared_per_block);
    std::uint32_t mask = 0;
    for (OccupancyLimit limit : occ.binding) mask |= 1u << static_cast<unsigned>(limit);
    EXPECT_EQ(mask, example.binding_mask);
  }
}

// --- Every configuration is self-consistent ---

TEST(ConfigInvariants, EveryConfigIsUsable) {
  std::set<std::string> names;
  for (const config::SmConfig& config : config::kAllConfigs) {
    SCOPED_TRACE(config.name);
    EXPECT_TRUE(names.insert(config.name).second) << "duplicate name";
    EXPECT_EQ(config::find_config(config.name), &config);
    EXPECT_TRUE(std::has_single_bit(config.sp_lanes) && config::kWarpSize % config.sp_lanes == 0);
    EXPECT_TRUE(std::has_single_bit(config.shared_banks));
    EXPECT_GE(config.max_threads(), config.max_threads_per_block);
    EXPECT_LE(config.max_blocks, config.max_warps);
    EXPECT_EQ(config.registers % config.reg_alloc_unit, 0u);
    EXPECT_EQ(config.shared_bytes % (4 * config.shared_banks), 0u);
    EXPECT_LE(config.max_regs_per_thread, 255u);
    EXPECT_GE(config.stack_depth, 2u);
    EXPECT_LE(config.stack_depth, 64u);
    // The tag spells the name, character i in bits [8i+7:8i].
    std::string tag;
    for (std::uint64_t t = config.config_tag; t != 0; t >>= 8) tag += static_cast<char>(t & 0xff);
    EXPECT_EQ(tag, config.name);
    // A largest block without resources, and a one-warp block at the register ceiling, both launch.
    EXPECT_GE(compute_occupancy(config, {config.max_threads_per_block, 1, 1}, {0, 0}).blocks_per_sm, 1u);
    EXPECT_GE(compute_occupancy(config, {32, 1, 1}, {config.max_regs_per_thread, config.shared_bytes}).blocks_per_sm,
              1u);
  }
  EXPECT_EQ(config::find_config("no_such_config"), nullptr);
  EXPECT_NE(config::find_config("g80"), nullptr);
  EXPECT_NE(config::find_config("gt200"), nullptr);
  EXPECT_NE(config::find_config("small"), nullptr);
}

TEST(ConfigInvariants, ParameterTableCoversEveryField) {
  // kParameters drives `tsm-tool configs NAME`; each entry must name a distinct field.
  std::set<std::string_view> names;
  for (const auto& parameter : config::kParameters) {
    EXPECT_TRUE(names.insert(parameter.name).second) << parameter.name;
    EXPECT_FALSE(parameter.doc.empty()) << parameter.name;
    EXPECT_FALSE(parameter.allowed.empty()) << parameter.name;
  }
  EXPECT_EQ(config::kG80.*config::kParameters.front().field, config::kG80.sp_lanes);
}

}  // namespace
}  // namespace tsm
