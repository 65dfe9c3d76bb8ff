// The random kernel generator (sim/randgen): deterministic per seed, legal on its configuration,
// runs fault-free on the golden model, honours --exclude, and reaches every feature it offers.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "tsm/config_gen.hpp"
#include "isa/assembler.hpp"
#include "randgen/random_kernel.hpp"
#include "runtime/runtime.hpp"

namespace {

namespace rg = tsm::randgen;

const tsm::config::SmConfig& config_named(const std::string& name) {
  const auto* cfg = tsm::config::find_config(name);
  if (!cfg) throw std::runtime_error("no configuration " + name);
  return *cfg;
}

TEST(Randgen, SameSeedSameKernel) {
  for (uint64_t seed : {1u, 7u, 123456u}) {
    const rg::RandomKernel a = rg::generate(seed), b = rg::generate(seed);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.grid.x, b.grid.x);
    EXPECT_EQ(a.block.x * a.block.y * a.block.z, b.block.x * b.block.y * b.block.z);
    ASSERT_EQ(a.buffers.size(), b.buffers.size());
    for (size_t i = 0; i < a.buffers.size(); ++i) EXPECT_EQ(a.buffers[i].init, b.buffers[i].init);
    EXPECT_EQ(a.table, b.table);
  }
  EXPECT_NE(rg::generate(1).source, rg::generate(2).source);
}

TEST(Randgen, UnknownConfigurationAndFeatureAreRefused) {
  rg::RandomOptions o;
  o.config = "no-such-config";
  EXPECT_THROW(rg::generate(1, o), std::invalid_argument);
  try {
    rg::parse_features("vote,no-such-feature");
    FAIL() << "an unknown feature was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-feature"), std::string::npos) << e.what();
  }
  EXPECT_EQ(rg::parse_features(""), 0u);
  EXPECT_EQ(rg::parse_features("fp,vote"), (1u << unsigned(rg::Feature::Fp)) | (1u << unsigned(rg::Feature::Vote)));
}

// Every kernel fits its configuration and runs on the golden model without a fault; the body size
// honours the bounds; over many seeds every feature appears.
void check_seeds(const std::string& config, uint64_t first, unsigned count) {
  const auto& cfg = config_named(config);
  rg::RandomOptions o;
  o.config = config;
  std::map<std::string, unsigned> seen;
  const std::map<std::string, std::string> markers = {
      {"FFMA", "fp"},      {"F2F", "convert"},  {"MUFU", "mufu"},     {".WIDE", "wide"},   {"@P", "predication"},
      {"SSY", "branch"},   {"PBK", "loop"},     {"CAL ", "call"},     {"LDG", "global"},   {"LD.", "generic"},
      {"LDL", "local"},    {"BAR.SYNC", "shared"}, {"LDC", "ldc"},    {"ATOM.", "atomic"}, {"ATOMS", "satomic"},
      {"VOTE", "vote"},    {"SHFL", "shfl"},    {"BRED", "bred"},     {"LDG.128", "wideload"}, {".F16", "f16"},
      {"MEMBAR", "membar"}};
  for (uint64_t seed = first; seed < first + count; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " on " + config);
    const rg::RandomKernel k = rg::generate(seed, o);
    EXPECT_GE(k.stats.instructions, o.min_size);
    EXPECT_LE(k.stats.max_stack, cfg.stack_depth);
    EXPECT_LE(k.regs, cfg.max_regs_per_thread);
    EXPECT_LE(k.shared_bytes, cfg.shared_bytes);
    for (const auto& [m, feature] : markers)
      if (k.source.find(m) != std::string::npos) ++seen[feature];
    tsm::Runtime rt(cfg, tsm::make_golden_backend());
    rg::RandomRun r;
    ASSERT_NO_THROW(r = rg::run_kernel(rt, k)) << k.source;
    EXPECT_GT(r.stats.warp_instructions, 0u);
    ASSERT_EQ(r.buffers.size(), k.buffers.size());
  }
  for (const auto& [m, feature] : markers) EXPECT_GT(seen[feature], 0u) << "no kernel used feature " << feature << " (" << m << ")";
}

TEST(Randgen, SmallKernelsAreLegalAndRunOnTheGoldenModel) { check_seeds("small", 1, 300); }
TEST(Randgen, G80KernelsAreLegalAndRunOnTheGoldenModel) { check_seeds("g80", 5001, 150); }

// DP instructions only where the configuration has a DP unit, and there they run on the golden model.
TEST(Randgen, DoublePrecisionOnlyWithADpUnit) {
  const std::vector<std::string> dp = {"DADD", "DMUL", "DFMA", "DMNMX", "DSETP", ".F64"};
  const auto count_dp = [&](const std::string& src) {
    unsigned n = 0;
    for (const auto& m : dp)
      for (size_t at = src.find(m); at != std::string::npos; at = src.find(m, at + 1)) ++n;
    return n;
  };
  rg::RandomOptions small, gt200;
  small.config = "small";
  gt200.config = "gt200";
  unsigned with_dp = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    EXPECT_EQ(count_dp(rg::generate(seed, small).source), 0u) << "seed " << seed;
    const rg::RandomKernel k = rg::generate(seed, gt200);
    with_dp += count_dp(k.source) > 0;
    tsm::Runtime rt(config_named("gt200"), tsm::make_golden_backend());
    EXPECT_NO_THROW(rg::run_kernel(rt, k)) << "seed " << seed;
  }
  EXPECT_GE(with_dp, 50u);
  gt200.excluded = rg::parse_features("dp");
  for (uint64_t seed = 1; seed <= 20; ++seed) EXPECT_EQ(count_dp(rg::generate(seed, gt200).source), 0u) << "seed " << seed;
}

TEST(Randgen, ExcludedFeaturesAreLeftOut) {
  const std::map<std::string, std::vector<std::string>> excluded = {
      {"vote", {"VOTE"}}, {"shfl", {"SHFL"}}, {"bred", {"BRED"}}, {"atomic,satomic", {"ATOM"}},
      {"satomic", {"ATOMS"}}, {"mufu", {"MUFU"}}, {"f16", {".F16"}}, {"wideload", {"LDG.64", "LDG.128"}},
      {"call", {"CAL "}}, {"membar", {"MEMBAR"}}};
  for (const auto& [feature, mnemonics] : excluded) {
    rg::RandomOptions o;
    o.excluded = rg::parse_features(feature);
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      const std::string src = rg::generate(seed, o).source;
      for (const auto& m : mnemonics) EXPECT_EQ(src.find(m), std::string::npos) << feature << " excluded, seed " << seed << " has " << m;
    }
  }
}

}  // namespace
