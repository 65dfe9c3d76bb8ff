// The random PTX kernels (sim/randgen/random_ptx): deterministic per seed, translated by our
// translator at the configuration's register budget and at a small one that spills, run on the
// golden model with the result the generator's reference evaluation predicts; and the check fails
// when the PTX is changed.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ptx/translate.hpp"
#include "randgen/random_ptx.hpp"
#include "runtime/runtime.hpp"
#include "tsm/config_gen.hpp"

namespace {

namespace rg = tsm::randgen;

const tsm::config::SmConfig& config_named(const std::string& name) {
  const auto* cfg = tsm::config::find_config(name);
  if (!cfg) throw std::runtime_error("no configuration " + name);
  return *cfg;
}

struct Translated {
  tsm::Module module;
  uint32_t spilled = 0;
};

Translated translate(const std::string& ptx, const std::string& config, uint32_t budget) {
  tsm::ptx::TranslateOptions o;
  o.config = config;
  o.max_registers = budget;
  auto r = tsm::ptx::translate(tsm::ptx::parse(ptx, "random.ptx"), o);
  return {std::move(r.module), r.stats.at(0).spilled};
}

// The golden model's buffers after running `ptx` with the launch of `k`, compared with the reference.
std::string golden_vs_reference(const rg::PtxKernel& k, const std::string& ptx, uint32_t budget, uint32_t* spilled = nullptr) {
  Translated t = translate(ptx, k.config, budget);
  if (spilled) *spilled = t.spilled;
  tsm::Runtime rt(config_named(k.config), tsm::make_golden_backend());
  const rg::RandomRun run = rg::run_ptx_kernel(rt, k, std::move(t.module));
  return rg::compare_buffers(k.buffers, k.expected, run.buffers, rg::kPtxOutStride, "the reference", "golden");
}

TEST(RandomPtx, SameSeedSameKernel) {
  for (uint64_t seed : {1u, 7u, 123456u}) {
    const rg::PtxKernel a = rg::generate_ptx(seed), b = rg::generate_ptx(seed);
    EXPECT_EQ(a.ptx, b.ptx);
    EXPECT_EQ(tsm::to_string(a.grid), tsm::to_string(b.grid));
    EXPECT_EQ(tsm::to_string(a.block), tsm::to_string(b.block));
    EXPECT_EQ(a.uni, b.uni);
    ASSERT_EQ(a.buffers.size(), b.buffers.size());
    for (size_t i = 0; i < a.buffers.size(); ++i) EXPECT_EQ(a.buffers[i].init, b.buffers[i].init);
    EXPECT_EQ(a.expected, b.expected);
  }
  EXPECT_NE(rg::generate_ptx(1).ptx, rg::generate_ptx(2).ptx);
  rg::PtxOptions bad;
  bad.config = "no-such-config";
  EXPECT_THROW(rg::generate_ptx(1, bad), std::invalid_argument);
}

// Every kernel translates at both budgets and the golden model computes what the reference
// evaluation says; over the seeds every construct appears.
void check_seeds(const std::string& config, uint64_t first, unsigned count) {
  const auto& cfg = config_named(config);
  rg::PtxOptions o;
  o.config = config;
  rg::PtxStats total;
  unsigned spilling = 0, deep = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " on " + config);
    const rg::PtxKernel k = rg::generate_ptx(seed, o);
    EXPECT_LE(k.block.count(), cfg.max_threads_per_block);
    std::string problem;
    ASSERT_NO_THROW(problem = golden_vs_reference(k, k.ptx, cfg.max_regs_per_thread)) << k.ptx;
    EXPECT_EQ(problem, "") << k.ptx;
    uint32_t spilled = 0;
    ASSERT_NO_THROW(problem = golden_vs_reference(k, k.ptx, rg::kPtxSpillBudget, &spilled)) << k.ptx;
    EXPECT_EQ(problem, "") << "--maxrregcount " << rg::kPtxSpillBudget << "\n" << k.ptx;
    spilling += spilled > 0;
    deep += k.stats.max_nesting >= 3;
    total.ifs += k.stats.ifs;
    total.loops += k.stats.loops;
    total.breaks += k.stats.breaks;
    total.returns += k.stats.returns;
    total.barriers += k.stats.barriers;
    total.atomics += k.stats.atomics;
    total.votes += k.stats.votes;
    total.shfls += k.stats.shfls;
  }
  for (const auto& [what, n] : std::map<std::string, unsigned>{{"if", total.ifs},
                                                                {"loop", total.loops},
                                                                {"break", total.breaks},
                                                                {"return", total.returns},
                                                                {"barrier", total.barriers},
                                                                {"atomic", total.atomics},
                                                                {"vote", total.votes},
                                                                {"shfl", total.shfls},
                                                                {"spilling kernel", spilling},
                                                                {"kernel nested 3 deep", deep}})
    EXPECT_GT(n, 0u) << "no " << what << " in " << count << " seeds on " << config;
}

TEST(RandomPtx, SmallKernelsMatchTheReference) { check_seeds("small", 1, 50); }
TEST(RandomPtx, G80KernelsMatchTheReference) { check_seeds("g80", 1001, 50); }
TEST(RandomPtx, Gt200KernelsMatchTheReference) { check_seeds("gt200", 2001, 50); }

// A change to one instruction of the PTX (what a translator bug would do) is reported: every
// thread's first pool word is flipped before it is written back.
TEST(RandomPtx, AChangedKernelIsReported) {
  for (uint64_t seed : {3u, 4u, 5u}) {
    const rg::PtxKernel k = rg::generate_ptx(seed);
    std::string ptx = k.ptx;
    const std::string marker = "    // flush\n";
    size_t changed = 0;
    for (size_t at = ptx.find(marker); at != std::string::npos; at = ptx.find(marker, at + 1)) {
      ptx.insert(at + marker.size(), "    xor.b32 %r0, %r0, 1;\n");
      ++changed;
    }
    ASSERT_GT(changed, 0u);
    const std::string problem = golden_vs_reference(k, ptx, config_named("small").max_regs_per_thread);
    EXPECT_NE(problem.find("buffer 'out' differs"), std::string::npos) << problem;
    EXPECT_NE(problem.find("(thread "), std::string::npos) << problem;
    EXPECT_EQ(golden_vs_reference(k, k.ptx, config_named("small").max_regs_per_thread), "");
  }
}

}  // namespace
