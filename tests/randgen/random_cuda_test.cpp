// The random CUDA C kernels (sim/randgen/random_cuda) and the oracle that checks them
// (sim/randgen/cuda_oracle): the same seed gives the same kernel; between them the kernels have
// every shape the generator promises; they compile with both front ends and on the host, where
// UBSan finds no undefined behaviour, also after any reduction step; and a kernel that differs on
// the device is reported and cut down to the difference.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "compiler/frontend.hpp"
#include "randgen/cuda_oracle.hpp"
#include "randgen/random_cuda.hpp"

namespace {

namespace rg = tsm::randgen;
using tsm::compiler::Frontend;

std::vector<rg::CudaKernel> kernels(uint64_t first, unsigned count, const rg::CudaOptions& options = {}) {
  std::vector<rg::CudaKernel> ks;
  for (uint64_t s = first; s < first + count; ++s) ks.push_back(rg::generate_cuda(s, options));
  return ks;
}

std::vector<Frontend> installed_frontends() {
  std::vector<Frontend> fes{Frontend::Clang};
  if (tsm::compiler::find_nvcc()) fes.push_back(Frontend::Nvcc);
  return fes;
}

/// The features the runs that must pass leave out (tests/randgen/CMakeLists.txt says why).
constexpr const char* kKnownBugs = "sad,directed-div-sqrt-rcp";

TEST(RandomCuda, SameSeedSameKernel) {
  for (uint64_t seed : {1u, 7u, 123456u}) {
    const rg::CudaKernel a = rg::generate_cuda(seed), b = rg::generate_cuda(seed);
    EXPECT_EQ(a.source(), b.source());
    EXPECT_EQ(a.name, "k" + std::to_string(seed));
    EXPECT_EQ(tsm::to_string(a.grid), tsm::to_string(b.grid));
    EXPECT_EQ(tsm::to_string(a.block), tsm::to_string(b.block));
    EXPECT_EQ(a.in, b.in);
    EXPECT_EQ(a.out_init, b.out_init);
    EXPECT_EQ(a.pa, b.pa);
    EXPECT_EQ(a.pl, b.pl);
    EXPECT_EQ(a.out_init.size(), size_t{rg::kCudaOutWords} * a.grid.count() * a.block.count());
  }
  EXPECT_NE(rg::generate_cuda(1).source(), rg::generate_cuda(2).source());
  rg::CudaOptions bad;
  bad.config = "no-such-config";
  EXPECT_THROW(rg::generate_cuda(1, bad), std::invalid_argument);
}

// Over 300 seeds every promised shape appears, and kernels stay moderate in size.
TEST(RandomCuda, KernelsHaveEveryShape) {
  rg::CudaStats total;
  unsigned max_statements = 0;
  std::string all;
  for (const auto& k : kernels(1, 300)) {
    const auto& s = k.stats;
    max_statements = std::max(max_statements, s.statements);
    EXPECT_LE(k.block.count(), 256u);
    EXPECT_LE(k.grid.count(), 3u);
    for (auto [sum, x] : {std::pair{&total.switches, s.switches}, {&total.fallthroughs, s.fallthroughs}, {&total.defaults, s.defaults},
                          {&total.returns_in_switch, s.returns_in_switch}, {&total.returns_in_loop, s.returns_in_loop},
                          {&total.breaks, s.breaks}, {&total.continues, s.continues}, {&total.nested_loops, s.nested_loops},
                          {&total.barrier_loops, s.barrier_loops}, {&total.exchanges, s.exchanges}, {&total.noinline, s.noinline},
                          {&total.forceinline, s.forceinline}, {&total.function_returns, s.function_returns}, {&total.calls, s.calls},
                          {&total.short_circuits, s.short_circuits}, {&total.ternaries, s.ternaries}, {&total.float_ops, s.float_ops},
                          {&total.int64_ops, s.int64_ops}, {&total.array_stores, s.array_stores}, {&total.uniform_ifs, s.uniform_ifs}})
      *sum += x;
    all += k.source();
  }
  EXPECT_GT(total.switches, 0u);
  EXPECT_GT(total.fallthroughs, 0u);
  EXPECT_GT(total.defaults, 0u);
  EXPECT_GT(total.returns_in_switch, 0u);
  EXPECT_GT(total.returns_in_loop, 0u);
  EXPECT_GT(total.breaks, 0u);
  EXPECT_GT(total.continues, 0u);
  EXPECT_GT(total.nested_loops, 0u);
  EXPECT_GT(total.barrier_loops, 0u);
  EXPECT_GT(total.exchanges, 0u);
  EXPECT_GT(total.noinline, 0u);
  EXPECT_GT(total.forceinline, 0u);
  EXPECT_GT(total.function_returns, 0u);
  EXPECT_GT(total.calls, 0u);
  EXPECT_GT(total.short_circuits, 0u);
  EXPECT_GT(total.ternaries, 0u);
  EXPECT_GT(total.float_ops, 0u);
  EXPECT_GT(total.int64_ops, 0u);
  EXPECT_GT(total.array_stores, 0u);
  EXPECT_GT(total.uniform_ifs, 0u);
  EXPECT_LE(max_statements, 200u);
  for (const char* text : {"__fadd_rn(", "__fmaf_rn(", "__fmul_rz(", "__fdiv_rn(", "__fsqrt_rn(", "__int2float_rn(", "__float2int_rz(",
                           "__float2ll_rd(", "__syncthreads();", "__shared__ unsigned long long", "__noinline__", "__forceinline__",
                           "switch (", "default:", "do {", "} while (", "while (", "for (int k", "continue;", "break;", "return;",
                           "bump_u32(&", " ? ", "mul_s64(", "shr_u64(", "div_s32(", "mod_u64(", "blockIdx.x", "warp", "sum_u32("})
    EXPECT_NE(all.find(text), std::string::npos) << text;
}

TEST(RandomCuda, ExcludedFeaturesAreLeftOut) {
  rg::CudaOptions o;
  o.excluded = rg::parse_cuda_features("sad,float-from-i64,directed-div-sqrt-rcp,rz-conversions,switch,exchange,call");
  std::string all;
  for (const auto& k : kernels(1, 200, o)) {
    all += k.source();
    EXPECT_EQ(k.stats.switches + k.stats.exchanges + k.stats.functions, 0u);
  }
  for (const char* text : {"__sad(", "__usad(", "__ll2float", "__ull2float", "__fdiv_rz", "__fsqrt_ru", "__frcp_rd", "__int2float_rz",
                           "__float2int_rz", "__float2ull_rz", "switch (", "__syncthreads", "__device__ __noinline__"})
    EXPECT_EQ(all.find(text), std::string::npos) << text;
  EXPECT_NE(all.find("__fdiv_rn"), std::string::npos);
  EXPECT_THROW(rg::parse_cuda_features("sad,no-such-feature"), std::invalid_argument);
  EXPECT_EQ(rg::cuda_feature_names().size(), static_cast<size_t>(rg::CudaFeature::Count));
}

// Every kernel compiles and runs on the host with UBSan (no signed overflow, no bad shift, no
// division by zero, no out-of-bounds index: the kernels are well defined, so any two correct
// compilers agree) and compiles with every installed front end.
TEST(RandomCuda, KernelsAreWellDefinedAndCompileEverywhere) {
  rg::CudaOracleOptions o;
  o.host_flags = {"-fsanitize=undefined", "-fno-sanitize-recover=all"};
  rg::CudaOracle oracle(o);
  const auto ks = kernels(1, 30);
  const auto cases = rg::cuda_cases(ks);
  const auto host = oracle.host(cases);
  for (size_t i = 0; i < ks.size(); ++i) {
    EXPECT_EQ(host[i].problem, "") << ks[i].source();
    EXPECT_EQ(host[i].out.size(), 4 * ks[i].out_init.size());
  }
  for (Frontend fe : installed_frontends()) {
    const auto device = oracle.device(cases, fe, host);
    for (size_t i = 0; i < ks.size(); ++i) EXPECT_EQ(device[i].kind.rfind("front end", 0), std::string::npos) << device[i].problem;
  }
  if (!tsm::compiler::find_nvcc()) GTEST_SKIP() << "nvcc is not installed: checked with clang and the host only";
}

// Reduction steps keep a kernel well defined: random steps and combinations of them, applied to
// kernels, still compile and run on the host under UBSan.
TEST(RandomCuda, ReductionStepsKeepKernelsWellDefined) {
  rg::CudaOracleOptions o;
  o.host_flags = {"-fsanitize=undefined", "-fno-sanitize-recover=all"};
  rg::CudaOracle oracle(o);
  std::mt19937 pick(7);
  std::vector<rg::CudaKernel> variants;
  for (const auto& k : kernels(50, 8)) {
    const auto edits = k.edits();
    ASSERT_FALSE(edits.empty());
    for (int v = 0; v < 6; ++v) {
      std::vector<rg::CudaEdit> chosen;
      for (int e = 0; e < 1 + v * 3; ++e) chosen.push_back(edits[pick() % edits.size()]);
      variants.push_back(k.with_edits(chosen));
      EXPECT_LE(variants.back().statement_count(), k.statement_count());
    }
  }
  std::vector<rg::CudaCase> cases;
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string entry = variants[i].name + "_v" + std::to_string(i);
    cases.push_back(rg::CudaCase{&variants[i], variants[i].source(entry), entry, ""});
  }
  const auto host = oracle.host(cases);
  for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(host[i].problem, "") << cases[i].source;
}

// A statement that changes a variable on the device only (#ifdef __CUDA_ARCH__) is reported with
// every front end, and the reducer cuts the kernel down to little more than that statement; the
// reduced kernel still fails, and passes once the statement is taken out.
TEST(RandomCuda, PlantedDifferenceIsFoundAndReduced) {
  rg::CudaOptions planted;
  planted.plant_difference = true;
  planted.excluded = rg::parse_cuda_features(kKnownBugs);
  const auto ks = kernels(400, 3, planted);
  rg::CudaOracle oracle({});
  const auto cases = rg::cuda_cases(ks);
  const auto host = oracle.host(cases);
  for (Frontend fe : installed_frontends()) {
    SCOPED_TRACE(tsm::compiler::to_string(fe));
    const auto device = oracle.device(cases, fe, host);
    for (size_t i = 0; i < ks.size(); ++i) {
      EXPECT_EQ(device[i].kind, "mismatch") << device[i].problem;
      EXPECT_NE(device[i].problem.find("differs from the host reference"), std::string::npos);
    }
    if (fe != Frontend::Clang) continue;  // one reduction is enough (and clang is the quicker)
    const rg::CudaReduction red = oracle.reduce(ks[0], fe, "mismatch");
    EXPECT_FALSE(red.stopped);
    EXPECT_EQ(red.kernel.statement_count(), 1u) << red.kernel.source();
    EXPECT_LT(red.kernel.statement_count(), ks[0].statement_count());
    const std::string reduced = red.kernel.source();
    EXPECT_NE(reduced.find("#ifdef __CUDA_ARCH__"), std::string::npos) << reduced;
    // The reduced kernel alone, and the same without the planted lines.
    std::string without = reduced;
    const size_t from = without.find("#ifdef __CUDA_ARCH__");
    without.erase(from, without.find("#endif", from) + 6 - from);
    std::vector<rg::CudaCase> again = {rg::CudaCase{&ks[0], "", ks[0].name, rg::cuda_translation_unit({reduced})}};
    EXPECT_EQ(oracle.device(again, fe, oracle.host(again))[0].kind, "mismatch");
    again[0].whole_file = rg::cuda_translation_unit({without});
    const auto fixed = oracle.device(again, fe, oracle.host(again));
    EXPECT_EQ(fixed[0].problem, "") << without;
  }
  if (!tsm::compiler::find_nvcc()) GTEST_SKIP() << "nvcc is not installed: checked with clang only";
}

}  // namespace
