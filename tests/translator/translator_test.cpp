// CUDA kernels compiled by each available front end, translated, run on the golden model for
// several launch shapes and compared with C++ references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <bit>
#include <climits>
#include <random>
#include <sstream>
#include <algorithm>

#include <fmt/format.h>

#include "ptx/compile.hpp"
#include "runtime/runtime.hpp"

namespace {

using tsm::Dim3;
using tsm::KernelArgs;
using tsm::Runtime;
using tsm::compiler::Frontend;

struct Case {
  Frontend frontend;
  uint32_t block;
  uint32_t predicates = 7;  // fewer: the allocator keeps predicates in general registers
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return fmt::format("{}_block{}{}", tsm::compiler::to_string(info.param.frontend), info.param.block,
                     info.param.predicates < 7 ? fmt::format("_predicates{}", info.param.predicates) : "");
}

class Compiled : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (GetParam().frontend == Frontend::Nvcc && !tsm::compiler::find_nvcc()) GTEST_SKIP() << "nvcc is not installed";
    if (GetParam().frontend == Frontend::Clang && !tsm::compiler::find_clang()) GTEST_SKIP() << "clang++ is not installed";
  }
  // Compile tests/translator/cuda/NAME.cu with this case's front end and load it.
  // By default, compiled with the register budget this case's block size allows (--maxrregcount).
  Runtime::ModuleId load(const std::string& name, uint32_t max_registers = 0, uint32_t* spilled = nullptr) {
    if (max_registers == 0) max_registers = tsm::max_regs_for_block(rt_.config(), Dim3{block(), 1, 1});
    return load_into(rt_, name, "g80", max_registers, spilled);
  }
  Runtime::ModuleId load_into(Runtime& rt, const std::string& name, const std::string& config, uint32_t max_registers = 128,
                              uint32_t* spilled = nullptr) {
    tsm::ptx::CompileOptions o;
    o.frontend = GetParam().frontend;
    o.max_registers = max_registers;
    o.config = config;
    o.max_predicates = max_predicates_;
    auto c = tsm::ptx::compile_file(std::string(TSM_TRANSLATOR_CUDA_DIR) + "/" + name + ".cu", o);
    if (spilled) *spilled = c.stats.at(0).spilled;
    return rt.load_module(std::move(c.module));
  }
  template <typename T>
  tsm::DevicePtr upload(const std::vector<T>& v) {
    const tsm::DevicePtr p = rt_.malloc(static_cast<uint32_t>(std::max<size_t>(1, v.size()) * sizeof(T)));
    if (!v.empty()) rt_.memcpy_to_device(p, std::span(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)));
    return p;
  }
  template <typename T>
  std::vector<T> download(tsm::DevicePtr p, size_t n) {
    std::vector<T> v(n);
    rt_.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(v.data()), n * sizeof(T)), p);
    return v;
  }
  uint32_t block() const { return GetParam().block; }
  Dim3 grid_for(uint32_t n) const { return Dim3{(n + block() - 1) / block(), 1, 1}; }

  Runtime rt_{*tsm::config::find_config("g80"), tsm::make_golden_backend()};
  std::mt19937 rng_{12345};
  uint32_t max_predicates_ = GetParam().predicates;
};

TEST_P(Compiled, Saxpy) {
  const auto mod = load("saxpy");
  const uint32_t n = 1000 + block() / 3;  // not a multiple of the block
  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(rng_() % 2000) * 0.37f;
    y[i] = static_cast<float>(rng_() % 100) * -1.25f;
  }
  const auto dx = upload(x), dy = upload(y);
  rt_.launch(mod, "saxpy", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).f32(1.75f).ptr(dx).ptr(dy));
  const auto out = download<float>(dy, n);
  for (uint32_t i = 0; i < n; ++i) {
    const float want = std::fma(1.75f, x[i], y[i]);
    ASSERT_EQ(std::memcmp(&out[i], &want, 4), 0) << i << ": " << out[i] << " != " << want;
  }
}

TEST_P(Compiled, VecaddGridStride) {
  const auto mod = load("vecadd");
  const uint32_t n = 3001;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i) * 0.5f;
    b[i] = static_cast<float>(n - i);
  }
  const auto da = upload(a), db = upload(b), dc = upload(std::vector<float>(n, -1.0f));
  rt_.launch(mod, "vecadd", Dim3{3, 1, 1}, Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(da).ptr(db).ptr(dc));
  const auto c = download<float>(dc, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_P(Compiled, ReduceWithBarriersAndAtomics) {
  if (block() & (block() - 1)) GTEST_SKIP() << "the tree needs a power-of-two block";
  const auto mod = load("reduce");
  const uint32_t n = 5000;
  std::vector<int32_t> in(n);
  int64_t want = 0;
  for (auto& v : in) {
    v = static_cast<int32_t>(rng_() % 2001) - 1000;
    want += v;
  }
  const auto din = upload(in), dtotal = upload(std::vector<int32_t>{0});
  rt_.launch(mod, "reduce", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(din).ptr(dtotal).i32(static_cast<int32_t>(n)));
  EXPECT_EQ(download<int32_t>(dtotal, 1)[0], want);
}

TEST_P(Compiled, DivergeNestedBreakEarlyReturn) {
  const auto mod = load("diverge");
  const uint32_t n = 2000;
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = rng_() % 4096;
  const uint32_t fill = 0xDEADBEEF;
  const auto din = upload(in), da = upload(std::vector<uint32_t>(n, fill)), db = upload(std::vector<uint32_t>(n, fill));
  rt_.launch(mod, "diverge", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(din).ptr(da).ptr(db));
  const auto a = download<uint32_t>(da, n), b = download<uint32_t>(db, n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t x = in[i];
    uint32_t wa = fill, wb = fill, acc;
    bool returned = false;
    if (x & 1) {
      if (x & 2) {
        acc = 3 * x;
        wa = acc;
      } else if ((x & 12) == 12) {
        returned = true;
        acc = 0;
      } else {
        acc = x + 7;
        wa = acc ^ 1;
      }
    } else {
      acc = x >> 1;
      wa = acc + 100;
    }
    if (!returned) {
      for (uint32_t k = 0; k < (x & 15); ++k) {
        acc += k * x;
        if (acc > 1000) break;
      }
      wb = acc;
    }
    ASSERT_EQ(a[i], wa) << "a[" << i << "], x = " << x;
    ASSERT_EQ(b[i], wb) << "b[" << i << "], x = " << x;
  }
}

TEST_P(Compiled, WarpShuffleAndBallot) {
  if (block() % 32) GTEST_SKIP() << "whole warps only";
  const auto mod = load("warpreduce");
  const uint32_t n = 4 * block();
  std::vector<int32_t> in(n);
  for (auto& v : in) v = static_cast<int32_t>(rng_() % 1000);
  const auto din = upload(in), ds = upload(std::vector<int32_t>(n / 32)), db = upload(std::vector<uint32_t>(n / 32));
  rt_.launch(mod, "warpreduce", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(din).ptr(ds).ptr(db));
  const auto sums = download<int32_t>(ds, n / 32);
  const auto ballots = download<uint32_t>(db, n / 32);
  for (uint32_t w = 0; w < n / 32; ++w) {
    int32_t s = 0;
    uint32_t odd = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      s += in[w * 32 + l];
      odd |= static_cast<uint32_t>(in[w * 32 + l] & 1) << l;
    }
    EXPECT_EQ(sums[w], s) << w;
    EXPECT_EQ(ballots[w], odd) << w;
  }
}

TEST_P(Compiled, ConstantMemoryWrittenByTheHost) {
  const auto mod = load("constmem");
  const float c[4] = {1.0f, -0.5f, 0.25f, 2.0f};
  rt_.write_symbol(mod, "coeffs", std::span(reinterpret_cast<const uint8_t*>(c), 16));
  const uint32_t n = 300;
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.125f - 10.0f;
  const auto dx = upload(x), dy = upload(std::vector<float>(n));
  rt_.launch(mod, "poly", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(dx).ptr(dy));
  const auto y = download<float>(dy, n);
  for (uint32_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float want = std::fma(std::fma(std::fma(c[3], v, c[2]), v, c[1]), v, c[0]);
    ASSERT_EQ(std::memcmp(&y[i], &want, 4), 0) << i;
  }
}

TEST_P(Compiled, SixtyFourBitIntegers) {
  const auto mod = load("int64");
  const uint32_t n = 257;
  std::vector<int64_t> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<int64_t>((uint64_t{rng_()} << 32) | rng_());
    b[i] = static_cast<int64_t>((uint64_t{rng_()} << 32) | rng_());
  }
  const auto da = upload(a), db = upload(b), dout = upload(std::vector<int64_t>(4 * n));
  rt_.launch(mod, "int64ops", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(da).ptr(db).ptr(dout));
  const auto out = download<int64_t>(dout, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t x = static_cast<uint64_t>(a[i]), y = static_cast<uint64_t>(b[i]);
    EXPECT_EQ(static_cast<uint64_t>(out[4 * i + 0]), x + y) << i;
    EXPECT_EQ(static_cast<uint64_t>(out[4 * i + 1]), x * y) << i;
    EXPECT_EQ(static_cast<uint64_t>(out[4 * i + 2]), (x << 3) ^ static_cast<uint64_t>(b[i] >> 5)) << i;
    EXPECT_EQ(out[4 * i + 3], static_cast<int64_t>(static_cast<int32_t>(x & 0xffff)) * 3 + static_cast<uint32_t>(y >> 40)) << i;
  }
}

TEST_P(Compiled, DivisionSquareRootAndSixtyFourBitHelpers) {
  const auto mod = load("divide");
  const uint32_t n = 500;
  std::vector<float> a(n), b(n);
  std::vector<int32_t> p(n), q(n);
  std::vector<int64_t> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t ab = rng_(), bb = rng_();
    std::memcpy(&a[i], &ab, 4);
    std::memcpy(&b[i], &bb, 4);
    if (i < 8) {  // some exact and special cases
      const float sa[8] = {1.0f, 0.0f, -3.0f, 1e-40f, 3.0e38f, 7.0f, -0.0f, 1.0f};
      const float sb[8] = {3.0f, 0.0f, 0.0f, 3.0f, 0.5f, 7.0f, 2.0f, 1e-40f};
      a[i] = sa[i];
      b[i] = sb[i];
    }
    p[i] = static_cast<int32_t>(rng_());
    q[i] = i % 17 == 0 ? 0 : static_cast<int32_t>(rng_() % 2001) - 1000;
    if (i == 1) p[i] = INT32_MIN, q[i] = -1;
    x[i] = static_cast<int64_t>((uint64_t{rng_()} << 32) | rng_());
    y[i] = i % 13 == 0 ? 0 : static_cast<int64_t>((uint64_t{rng_() % 4} << 32) | rng_()) * ((i & 1) ? -1 : 1);
  }
  const auto da = upload(a), db = upload(b), dp = upload(p), dq = upload(q), dx = upload(x), dy = upload(y);
  const auto df = upload(std::vector<float>(2 * n)), di = upload(std::vector<int32_t>(2 * n)), dl = upload(std::vector<int64_t>(3 * n));
  rt_.launch(mod, "divide", grid_for(n), Dim3{block(), 1, 1},
             KernelArgs().i32(static_cast<int32_t>(n)).ptr(da).ptr(db).ptr(dp).ptr(dq).ptr(dx).ptr(dy).ptr(df).ptr(di).ptr(dl));
  const auto f = download<float>(df, 2 * n);
  const auto i32 = download<int32_t>(di, 2 * n);
  const auto i64 = download<int64_t>(dl, 3 * n);
  auto same = [](float g, float w) {  // bit-exact, any NaN as the canonical NaN
    uint32_t gb, wb;
    std::memcpy(&gb, &g, 4);
    std::memcpy(&wb, &w, 4);
    return std::isnan(w) ? gb == 0x7FFFFFFFu : gb == wb;
  };
  auto div32 = [](int32_t u, int32_t v) { return v == 0 ? -1 : (u == INT32_MIN && v == -1) ? u : u / v; };
  auto rem32u = [](uint32_t u, uint32_t v) { return v == 0 ? 0xFFFFFFFFu : u % v; };
  auto div64 = [](int64_t u, int64_t v) { return v == 0 ? -1 : (u == INT64_MIN && v == -1) ? u : u / v; };
  auto rem64 = [](int64_t u, int64_t v) { return v == 0 ? -1 : (u == INT64_MIN && v == -1) ? 0 : u % v; };
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same(f[2 * i], a[i] / b[i])) << i << ": " << a[i] << " / " << b[i] << " gave " << f[2 * i];
    ASSERT_TRUE(same(f[2 * i + 1], std::sqrt(std::fabs(a[i])))) << i << ": sqrt " << a[i];
    ASSERT_EQ(i32[2 * i], div32(p[i], q[i])) << i;
    ASSERT_EQ(static_cast<uint32_t>(i32[2 * i + 1]), rem32u(static_cast<uint32_t>(p[i]), static_cast<uint32_t>(q[i]))) << i;
    ASSERT_EQ(i64[3 * i], div64(x[i], y[i])) << i;
    ASSERT_EQ(i64[3 * i + 1], rem64(x[i], y[i])) << i;
    ASSERT_EQ(i64[3 * i + 2], (x[i] < y[i] ? 1000 : 0) + std::popcount(static_cast<uint64_t>(x[i]))) << i;
  }
}

TEST_P(Compiled, DeviceFunctionCallsAreInlined) {
  const auto mod = load("calls");
  const uint32_t n = 301;
  std::vector<int32_t> in(n);
  for (auto& v : in) v = static_cast<int32_t>(rng_() % 100000) - 50000;
  const auto din = upload(in), dout = upload(std::vector<int32_t>(3 * n, 0x5A5A5A5A)), dwide = upload(std::vector<int64_t>(n));
  rt_.launch(mod, "calls", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(din).ptr(dout).ptr(dwide));
  const auto out = download<int32_t>(dout, 3 * n);
  const auto wide = download<int64_t>(dwide, n);
  struct Item {
    int weight;
    float scale;
    char bias;
    short tag;
  };
  auto score = [](int x, Item it) { return x * it.weight + static_cast<int>(it.scale * 4.0f) + it.bias - it.tag; };
  for (uint32_t i = 0; i < n; ++i) {
    const int x = in[i];
    const Item it{x & 7, 1.25f * static_cast<float>(x & 3), static_cast<char>(x & 0x7F), static_cast<short>(x >> 4)};
    int r = score(x, it);
    if (x & 1) r += score(x, it) + score(x + 1, it);
    r += static_cast<int>(static_cast<float>(x) * 0.5f);
    ASSERT_EQ(out[3 * i], r) << i;
    ASSERT_EQ(out[3 * i + 1], x % 3 == 0 ? x : 0x5A5A5A5A) << i;
    ASSERT_EQ(out[3 * i + 2], x % 3 == 0 ? 0x5A5A5A5A : -x) << i;
    ASSERT_EQ(wide[i], static_cast<int64_t>(x) * (0x100000001LL * (i + 1)) + 1) << i;
  }
}

TEST_P(Compiled, PrintfRecordsEveryArgumentKind) {
  const auto mod = load("printf");
  const uint32_t n = 77;
  std::vector<float> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * 0.37f - 5.0f;
  const auto r = rt_.launch(mod, "print", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(v)));
  std::vector<std::string> want;
  for (uint32_t i = 0; i < n; ++i) {
    char line[256];
    std::snprintf(line, sizeof line, "[%d] u=%u x=%#x ll=%lld c=%c f=%.3f s=%s w=%*d|", static_cast<int>(i), 4000000000u + i,
                  0xABC0 + i, -1234567890123LL * (i + 1), static_cast<char>('a' + i % 26), static_cast<double>(v[i]),
                  (i & 1) ? "odd" : "even", 4, static_cast<int>(i));
    want.push_back(line);
    if (i % 4 == 0) want.push_back(fmt::format("{} is a multiple of 4", i));
  }
  std::vector<std::string> got;
  std::stringstream ss(r.printf_output);
  for (std::string l; std::getline(ss, l);) got.push_back(l);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());  // threads reserve records in scheduling order
  EXPECT_EQ(got, want);
}

TEST_P(Compiled, FailedAssertPrintsCudasMessageAndFaults) {
  const auto mod = load("assert");
  const uint32_t n = 150;
  std::vector<int32_t> in(n, 1);
  in[37] = -1;
  in[140] = -5;
  try {
    rt_.launch(mod, "check", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(in)));
    FAIL() << "the launch should fail";
  } catch (const tsm::RuntimeError& e) {
    EXPECT_EQ(e.code, tsm::ErrorCode::Assert);
    // The first failing thread stops the launch; its message is there in CUDA's wording.
    const std::string tid = fmt::format("block: [{},0,0], thread: [{},0,0]", 37 / block(), 37 % block());
    EXPECT_NE(e.printf_output.find("assert.cu:4: void check(int, const int *): " + tid + " Assertion `in[i] >= 0` failed."),
              std::string::npos)
        << e.printf_output;
  }
}

// A tight --maxrregcount spills values to local memory; the kernels compute the same results.
TEST_P(Compiled, SpilledKernelsComputeTheSameResults) {
  const uint32_t n = 1000;
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = rng_() % 4096;
  std::vector<int32_t> calls_in(n);
  for (auto& v : calls_in) v = static_cast<int32_t>(rng_() % 100000) - 50000;
  auto run_all = [&](uint32_t budget, uint32_t& spilled) {
    std::vector<uint32_t> out;
    uint32_t s = 0;
    const auto dmod = load("diverge", budget, &s);
    spilled += s;
    const auto din = upload(in), da = upload(std::vector<uint32_t>(n, 7)), db = upload(std::vector<uint32_t>(n, 7));
    rt_.launch(dmod, "diverge", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(din).ptr(da).ptr(db));
    for (auto p : {da, db})
      for (uint32_t v : download<uint32_t>(p, n)) out.push_back(v);
    const auto cmod = load("calls", budget, &s);
    spilled += s;
    const auto cin = upload(calls_in), cout = upload(std::vector<int32_t>(3 * n, 5)), cwide = upload(std::vector<int64_t>(n));
    rt_.launch(cmod, "calls", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(cin).ptr(cout).ptr(cwide));
    for (int32_t v : download<int32_t>(cout, 3 * n)) out.push_back(static_cast<uint32_t>(v));
    for (int64_t v : download<int64_t>(cwide, n)) out.push_back(static_cast<uint32_t>(v)), out.push_back(static_cast<uint32_t>(v >> 32));
    return out;
  };
  uint32_t none = 0, some = 0, many = 0;
  const auto want = run_all(128, none);
  EXPECT_EQ(none, 0u);
  EXPECT_EQ(run_all(12, some), want);
  EXPECT_EQ(run_all(8, many), want);
  EXPECT_GT(some, 0u);
  EXPECT_GT(many, some);
}

TEST_P(Compiled, LoopWithSeveralExitTargets) {
  const auto mod = load("multiexit");
  const uint32_t n = 333, m = 40;
  std::vector<int32_t> data(m), keys(n);
  int32_t v = 0;
  for (auto& d : data) d = v += 1 + static_cast<int32_t>(rng_() % 5);
  for (auto& k : keys) k = static_cast<int32_t>(rng_() % (v + 10)) - 5;
  const auto dout = upload(std::vector<int32_t>(n, 99));
  rt_.launch(mod, "search", grid_for(n), Dim3{block(), 1, 1},
             KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(keys)).ptr(upload(data)).i32(static_cast<int32_t>(m)).ptr(dout));
  const auto out = download<int32_t>(dout, n);
  for (uint32_t i = 0; i < n; ++i) {
    int32_t want = -1;
    for (uint32_t j = 0; j < m; ++j) {
      if (data[j] == keys[i]) { want = static_cast<int32_t>(j); break; }
      if (data[j] > keys[i]) { want = -2 - static_cast<int32_t>(j); break; }
    }
    ASSERT_EQ(out[i], want) << i << " key " << keys[i];
  }
}

// Switch arms that share blocks between compare chains, early returns among them (the sw7 kernel:
// clang's PTX used to leave the `default` lanes' results unwritten).
TEST_P(Compiled, SwitchesWithSharedArmsAndEarlyReturns) {
  const auto mod = load("switches");
  const uint32_t n = 515;
  std::vector<int32_t> in(n);
  for (auto& x : in) x = static_cast<int32_t>(rng_());
  for (uint32_t i = 0; i < 20; ++i) in[i] = static_cast<int32_t>(i) - 10;  // small values of both signs
  const int32_t marker = 0x7eadbeef;
  {
    const auto dout = upload(std::vector<int32_t>(n, marker));
    rt_.launch(mod, "sw7", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(upload(in)).ptr(dout).i32(static_cast<int32_t>(n)));
    const auto out = download<int32_t>(dout, n);
    uint32_t defaults = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const int32_t v = in[i];
      int32_t r = 0;
      bool store = true;
      switch (((v % 7) + 7) % 7) {
        case 0: r = 10; break;
        case 1: r = 11; break;
        case 2: r = 12; break;
        case 3: r = 13; break;
        case 4: r = static_cast<int32_t>(0u - static_cast<uint32_t>(v)); break;
        case 5: store = false; break;
        default:
          ++defaults;
          for (int k = 0; k < 3; ++k)
            if (!((v >> k) & 1)) r += 1 << k;
      }
      const int32_t want = store ? static_cast<int32_t>(static_cast<uint32_t>(r) + i) : marker;
      ASSERT_EQ(out[i], want) << "sw7, thread " << i << ", v " << v;
    }
    EXPECT_GT(defaults, 20u);
  }
  {
    std::vector<uint32_t> uin(in.begin(), in.end());
    const auto dout = upload(std::vector<uint32_t>(n, 1u));
    rt_.launch(mod, "fallthrough", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(upload(uin)).ptr(dout).i32(static_cast<int32_t>(n)));
    const auto out = download<uint32_t>(dout, n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t v = uin[i];
      uint32_t r = v, want;
      switch (v % 11u) {
        case 1: r ^= 0x55u; r += 3u; want = r; break;
        case 2: r += 3u; want = r; break;
        case 4: want = (v & 0x100u) ? 1u : r * 5u - 7u; break;
        case 6: want = r - 7u; break;
        case 8: want = 0xdeadu; break;
        case 9:
        case 10: want = ~r; break;
        default: want = (r << 3) | (r >> 29); break;
      }
      ASSERT_EQ(out[i], want) << "fallthrough, thread " << i << ", v " << v;
    }
  }
  {
    const int32_t m = 9;
    const auto dout = upload(std::vector<int32_t>(n, marker));
    rt_.launch(mod, "loopswitch", grid_for(n), Dim3{block(), 1, 1},
               KernelArgs().ptr(upload(in)).ptr(dout).i32(static_cast<int32_t>(n)).i32(m));
    const auto out = download<int32_t>(dout, n);
    for (uint32_t i = 0; i < n; ++i) {
      int32_t acc = 0, want = 0;
      bool returned = false;
      for (int32_t k = 0; k < m && !returned; ++k) {
        const int32_t v = in[(i + static_cast<uint32_t>(k)) % n];
        const int c = (v & 7) == 0 ? 1 : (v & 7) == 3 ? (v > 0 ? 2 : 3) : (v & 7) == 5 ? 4 : 0;
        if (c == 1) continue;
        if (c == 2) acc = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(v));
        else if (c == 3) {
          acc -= 3;
          if (acc < -20) { want = -1; returned = true; break; }
        } else if (c == 4) k = m;
        else acc ^= k;
        acc += 1;
      }
      if (!returned) want = acc;
      ASSERT_EQ(out[i], want) << "loopswitch, thread " << i;
    }
  }
}

// f32 <-> 64-bit integer conversions on g80 (no DP unit): exact rounding to nearest, truncation.
TEST_P(Compiled, ConversionsBetweenFloatAnd64BitIntegers) {
  const auto mod = load("convert64");
  const uint32_t n = 300;
  std::vector<int64_t> s(n);
  std::vector<uint64_t> u(n);
  std::vector<float> f(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t r = (static_cast<uint64_t>(rng_()) << 32) | rng_();
    s[i] = static_cast<int64_t>(r >> (i % 40));  // magnitudes from 2^24 to 2^63, both signs
    u[i] = r >> (i % 13);
    f[i] = std::ldexp(static_cast<float>(static_cast<int32_t>(rng_())), -static_cast<int>(i % 40));  // |f| < 2^31
  }
  s[0] = 0, s[1] = -1, s[2] = INT64_MIN, s[3] = INT64_MAX, u[0] = 0, u[1] = UINT64_MAX, u[2] = (1ull << 53) + 1;
  const auto dfs = upload(std::vector<float>(n)), dfu = upload(std::vector<float>(n));
  const auto dis = upload(std::vector<int64_t>(n));
  const auto diu = upload(std::vector<uint64_t>(n));
  rt_.launch(mod, "convert64", grid_for(n), Dim3{block(), 1, 1},
             KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(s)).ptr(upload(u)).ptr(upload(f)).ptr(dfs).ptr(dfu).ptr(dis).ptr(diu));
  const auto fs = download<float>(dfs, n), fu = download<float>(dfu, n);
  const auto is = download<int64_t>(dis, n);
  const auto iu = download<uint64_t>(diu, n);
  // Toward zero: the nearest float, stepped toward zero where it is farther from zero than the value.
  auto rz = [](long double x) {
    float r = static_cast<float>(x);
    if (std::fabs(static_cast<long double>(r)) > std::fabs(x)) r = std::nextafter(r, 0.0f);
    return r;
  };
  const auto zs = upload(std::vector<float>(n)), zu = upload(std::vector<float>(n)), z32 = upload(std::vector<float>(n));
  rt_.launch(mod, "convert64_rz", grid_for(n), Dim3{block(), 1, 1},
             KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(s)).ptr(upload(u)).ptr(zs).ptr(zu).ptr(z32));
  const auto rzs = download<float>(zs, n), rzu = download<float>(zu, n), rz32 = download<float>(z32, n);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(rzs[i], rz(static_cast<long double>(s[i]))) << "__ll2float_rz " << i << " " << s[i];
    ASSERT_EQ(rzu[i], rz(static_cast<long double>(u[i]))) << "__ull2float_rz " << i << " " << u[i];
    const float a = rz(static_cast<long double>(static_cast<int32_t>(s[i] >> 20))), b = rz(static_cast<long double>(static_cast<uint32_t>(u[i])));
    ASSERT_EQ(rz32[i], a + b) << "__int2float_rz + __uint2float_rz " << i;
  }
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(fs[i], static_cast<float>(s[i])) << i << " " << s[i];
    ASSERT_EQ(fu[i], static_cast<float>(u[i])) << i << " " << u[i];
    ASSERT_EQ(is[i], static_cast<int64_t>(f[i])) << i << " " << f[i];
    ASSERT_EQ(iu[i], static_cast<uint64_t>(std::fabs(f[i]))) << i << " " << f[i];
  }
}

// Per-thread sorts: an insertion sort over a 16-int local array (nvcc unrolls it), bitonic
// networks over 16 and 32 values with the direction a parameter; compiled within the budget of
// this block size (so spilling where it must), and with the predicate budget of this case.
TEST_P(Compiled, PerThreadSortNetworks) {
  const auto mod = load("sorts");
  const uint32_t n = 150;
  std::vector<int32_t> in(32 * n);
  for (auto& x : in) x = static_cast<int32_t>(rng_() % 2001) - 1000;
  const auto din = upload(in);
  for (const char* kernel : {"insertion16", "bitonic16"}) {
    const auto dout = upload(std::vector<int32_t>(16 * n));
    rt_.launch(mod, kernel, grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(din).ptr(dout).i32(static_cast<int32_t>(n)));
    const auto out = download<int32_t>(dout, 16 * n);
    for (uint32_t i = 0; i < n; ++i) {
      std::vector<int32_t> want(in.begin() + 16 * i, in.begin() + 16 * (i + 1));
      std::sort(want.begin(), want.end());
      ASSERT_EQ(std::vector<int32_t>(out.begin() + 16 * i, out.begin() + 16 * (i + 1)), want) << kernel << " thread " << i;
    }
  }
  for (int32_t dir : {0, 1}) {
    const auto dout = upload(std::vector<int32_t>(32 * n));
    rt_.launch(mod, "bitonic32", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(din).ptr(dout).i32(static_cast<int32_t>(n)).i32(dir));
    const auto out = download<int32_t>(dout, 32 * n);
    for (uint32_t i = 0; i < n; ++i) {
      std::vector<int32_t> want(in.begin() + 32 * i, in.begin() + 32 * (i + 1));
      std::sort(want.begin(), want.end());
      if (dir) std::reverse(want.begin(), want.end());
      ASSERT_EQ(std::vector<int32_t>(out.begin() + 32 * i, out.begin() + 32 * (i + 1)), want) << "bitonic32 dir " << dir << " thread " << i;
    }
  }
}

// sad.s32 / sad.u32 (__sad, __usad): c + |a - b|, the difference signed or unsigned; the halving adds.
TEST_P(Compiled, SumOfAbsoluteDifference) {
  const auto mod = load("sad");
  const uint32_t n = 200;
  std::vector<int32_t> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<int32_t>(rng_());
    b[i] = i % 3 ? static_cast<int32_t>(rng_()) : a[i] ^ static_cast<int32_t>(rng_() & 0xff);
  }
  a[0] = INT32_MIN, b[0] = INT32_MAX, a[1] = -1, b[1] = 1;
  const auto dout = upload(std::vector<uint32_t>(2 * n));
  rt_.launch(mod, "k", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(upload(a)).ptr(upload(b)).ptr(dout).i32(static_cast<int32_t>(n)));
  const auto out = download<uint32_t>(dout, 2 * n);
  for (uint32_t i = 0; i < n; ++i) {
    const int64_t sd = static_cast<int64_t>(a[i]) - b[i];
    const uint32_t ua = static_cast<uint32_t>(a[i]), ub = static_cast<uint32_t>(b[i]);
    ASSERT_EQ(out[2 * i], i + static_cast<uint32_t>(sd < 0 ? -sd : sd)) << i;
    ASSERT_EQ(out[2 * i + 1], 7u + (ua < ub ? ub - ua : ua - ub)) << i;
  }
  const auto dh = upload(std::vector<int32_t>(5 * n));
  rt_.launch(mod, "halving", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(upload(a)).ptr(upload(b)).ptr(dh).i32(static_cast<int32_t>(n)));
  const auto h = download<int32_t>(dh, 5 * n);
  for (uint32_t i = 0; i < n; ++i) {
    const int64_t x = a[i], y = b[i];
    const uint64_t ux = static_cast<uint32_t>(a[i]), uy = static_cast<uint32_t>(b[i]);
    ASSERT_EQ(h[5 * i], static_cast<int32_t>((-2 + static_cast<int64_t>(static_cast<int32_t>(0u - static_cast<uint32_t>(a[i])))) >> 1)) << i;
    ASSERT_EQ(h[5 * i + 1], static_cast<int32_t>((x + y) >> 1)) << i;
    ASSERT_EQ(h[5 * i + 2], static_cast<int32_t>((x + y + 1) >> 1)) << i;
    ASSERT_EQ(static_cast<uint32_t>(h[5 * i + 3]), static_cast<uint32_t>((ux + uy) >> 1)) << i;
    ASSERT_EQ(static_cast<uint32_t>(h[5 * i + 4]), static_cast<uint32_t>((ux + uy + 1) >> 1)) << i;
  }
}

// 16-bit arithmetic whose result depends on the register's upper bits (narrow16.cu).
TEST_P(Compiled, SixteenBitArithmeticOnUncleanRegisters) {
  const auto mod = load("narrow16");
  const uint32_t n = 700;
  std::vector<uint32_t> in(n);
  for (auto& x : in) x = rng_();
  const auto dout = upload(std::vector<uint32_t>(3 * n));
  rt_.launch(mod, "narrow16", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(upload(in)).ptr(dout).i32(static_cast<int32_t>(n)));
  const auto out = download<uint32_t>(dout, 3 * n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t v = in[i];
    uint32_t r = v;
    if (((static_cast<int32_t>(v) % 5) + 5) % 5 == 1 && (std::popcount(v ^ i) % 5) != 4) r = 0;
    const uint16_t h = static_cast<uint16_t>(v >> 7), l = static_cast<uint16_t>(v);
    const uint16_t dh = static_cast<uint16_t>(h - l);
    ASSERT_EQ(out[3 * i], r) << i;
    ASSERT_EQ(out[3 * i + 1], dh / 7u + (static_cast<int16_t>(dh) < 0 ? 1u : 0u)) << i;
    ASSERT_EQ(out[3 * i + 2], static_cast<uint32_t>(std::popcount(v) % 3) * 100u + static_cast<uint32_t>(std::countl_zero(v | 1u) / 5)) << i;
  }
}

TEST_P(Compiled, UnrolledLoopWithAnEarlyExitPerIteration) {
  const auto mod = load("unrolled");
  const uint32_t n = 500;
  std::vector<uint32_t> in(n);
  for (auto& x : in) x = rng_();
  const auto dout = upload(std::vector<uint32_t>(n));
  rt_.launch(mod, "unrolled", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(in)).ptr(dout));
  const auto out = download<uint32_t>(dout, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t acc = in[i];
    for (uint32_t k = 0; k < (in[i] & 15); ++k) acc = acc * 3 + k;
    ASSERT_EQ(out[i], acc) << i;
  }
}

// Early returns among unrolled loops of switches: the reconvergence stack must not overflow.
TEST_P(Compiled, EarlyReturnsAmongUnrolledSwitches) {
  const auto mod = load("exits");
  const uint32_t n = 777;
  std::vector<int32_t> in(n);
  for (auto& x : in) x = static_cast<int32_t>(rng_() % 4000) - 2000;
  for (uint32_t pb = 0; pb < 4; ++pb) {
    const auto dout = upload(std::vector<uint32_t>(8 * n));
    rt_.launch(mod, "exits", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(upload(in)).ptr(dout).i32(static_cast<int32_t>(n)).u32(pb));
    const auto out = download<uint32_t>(dout, 8 * n);
    for (uint32_t i = 0; i < n; ++i) {
      std::vector<uint32_t> o(8, 0);
      [&] {
        int32_t a = in[i], b = in[(i * 7 + 3) % n];
        int64_t l = in[(i * 5 + 1) % n];
        for (int k = 0;; ++k) {
          if (k >= 3) break;
          if (a != 0 && k > (b >> (i & 31)) && -k < a) {
            switch (((a % 6) + 6) % 6) {
              case 1: l = 0; [[fallthrough]];
              case 0:
              case 5:
                if ((static_cast<uint32_t>(b) >> (k + 3)) & 1u) break;
                o[7] = 1u + static_cast<uint32_t>(k);
                return;
              case 2: o[6] = 2u; return;
            }
          }
          a = static_cast<int32_t>(static_cast<uint32_t>(a) * 3u + static_cast<uint32_t>(k));
          if (l == 2) break;
        }
        for (int k = 0; k < static_cast<int>(i % 5); ++k) {
          switch (pb % 4u) {
            case 1: o[1] += 1u; break;
            case 3:
              if (a & 1) return;
              o[2] += static_cast<uint32_t>(a);
              break;
          }
          if (((a >> k) & 3) == 3) {
            o[3] = static_cast<uint32_t>(k);
            return;
          }
        }
        o[0] = static_cast<uint32_t>(a) + static_cast<uint32_t>(l);
      }();
      for (uint32_t w = 0; w < 8; ++w) ASSERT_EQ(out[8 * i + w], o[w]) << "pb " << pb << ", thread " << i << ", word " << w;
    }
  }
}

// Long-lived operands of 64-bit division sequences under a 32-register budget.
TEST_P(Compiled, SequenceOperandsSpilledBetweenSequences) {
  uint32_t spilled = 0;
  const auto mod = load("pinned", 32, &spilled);
  const uint32_t n = 300;
  std::vector<int64_t> in(n);
  for (auto& x : in) x = static_cast<int64_t>((uint64_t{rng_()} << 32) | rng_());
  const auto dout = upload(std::vector<int64_t>(n));
  rt_.launch(mod, "pinned", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(upload(in)).ptr(dout).i32(static_cast<int32_t>(n)));
  const auto out = download<int64_t>(dout, n);
  for (uint32_t i = 0; i < n; ++i) {
    int64_t v[12];
    for (uint32_t k = 0; k < 12; ++k) v[k] = in[(i + 37 * k) % n];
    auto mul = [](int64_t x, int64_t y) { return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)); };
    auto add = [](int64_t x, int64_t y) { return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y)); };
    int64_t d = mul(v[0] | 1, (v[1] & 0xff) + 3), acc = 0;
    for (uint32_t k = 0; k < 12; ++k) {
      const int64_t q = (d | 1) == -1 ? -v[k] : v[k] / (d | 1);  // INT64_MIN / -1 wraps on the GPU's sequence
      const int64_t r = v[(k + 5) % 12] % ((v[k] & 0xfff) + 7);
      acc = add(add(mul(acc, 31), q), r);
      d = add(mul(d, 5), q ^ r);
    }
    for (uint32_t k = 0; k < 12; ++k) acc = add(acc, mul(v[k], k + 1));
    ASSERT_EQ(out[i], acc) << i;
  }
  EXPECT_GT(spilled, 0u) << "the kernel no longer needs more than 32 registers: it does not test spilling around sequences";
}

// Doubles from and into 32-bit halves (nvcc: mov.b64 with a vector operand).
TEST_P(Compiled, DoublesFromAndIntoHalves) {
  const auto mod = load("pack");
  const uint32_t n = 321;
  std::vector<uint32_t> in(n);
  std::vector<double> din(n);
  for (auto& x : in) x = rng_();
  for (auto& d : din) d = std::bit_cast<double>((uint64_t{rng_()} << 32) | rng_());
  const auto dd = upload(std::vector<double>(n)), dh = upload(std::vector<int32_t>(2 * n));
  rt_.launch(mod, "pack", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().ptr(upload(in)).ptr(upload(din)).ptr(dd).ptr(dh).i32(static_cast<int32_t>(n)));
  const auto doubles = download<uint64_t>(dd, n);
  const auto halves = download<int32_t>(dh, 2 * n);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(doubles[i], (uint64_t{in[(i + 1) % n]} << 32) | in[i]) << i;
    const uint64_t bits = std::bit_cast<uint64_t>(din[i]);
    ASSERT_EQ(halves[2 * i], static_cast<int32_t>(static_cast<uint32_t>(bits >> 32) + 1u)) << i;
    ASSERT_EQ(halves[2 * i + 1], static_cast<int32_t>(static_cast<uint32_t>(bits) ^ in[i])) << i;
  }
}

// mov with a vector operand, as PTX writes it by hand or nvcc for f16 pairs: 16-bit halves of a
// 32-bit value and 32-bit halves of a 64-bit one, `_` skipping a half.
TEST(HandWrittenPtx, MovWithVectorOperandsPacksAndUnpacksHalves) {
  const char* text = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry halves(.param .u64 pin, .param .u64 pout)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  mov.b32 {%h1, %h2}, %r2;
  mov.b32 %r3, {%h2, %h1};
  mov.b64 %rd5, {%r3, %r2};
  mov.b64 {%r4, _}, %rd5;
  mov.b64 {_, %r5}, %rd5;
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd2, %rd6;
  st.global.u64 [%rd7], %rd5;
  add.u32 %r6, %r4, 1;
  st.global.u32 [%rd7+8], %r6;
  add.u32 %r7, %r5, 2;
  st.global.u32 [%rd7+12], %r7;
  ret;
}
)";
  Runtime rt{*tsm::config::find_config("g80"), tsm::make_golden_backend()};
  const auto mod = rt.load_module(tsm::ptx::translate(tsm::ptx::parse(text, "halves.ptx"), tsm::ptx::TranslateOptions{}).module);
  const uint32_t n = 64;
  std::vector<uint32_t> in(n);
  std::mt19937 rng(7);
  for (auto& x : in) x = rng();
  const tsm::DevicePtr din = rt.malloc(4 * n), dout = rt.malloc(16 * n);
  rt.memcpy_to_device(din, std::span(reinterpret_cast<const uint8_t*>(in.data()), 4 * n));
  rt.launch(mod, "halves", Dim3{1, 1, 1}, Dim3{n, 1, 1}, KernelArgs().ptr(din).ptr(dout));
  std::vector<uint32_t> out(4 * n);
  rt.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(out.data()), 16 * n), dout);
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t x = in[t], swapped = (x << 16) | (x >> 16);
    ASSERT_EQ(out[4 * t], swapped) << t;      // the 64-bit value's low word
    ASSERT_EQ(out[4 * t + 1], x) << t;        // its high word
    ASSERT_EQ(out[4 * t + 2], swapped + 1) << t;
    ASSERT_EQ(out[4 * t + 3], x + 2) << t;
  }
}

TEST_P(Compiled, DynamicSharedMemory) {
  const auto mod = load("dynshared");
  const uint32_t n = 777;
  std::vector<float> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = static_cast<float>(i) * 1.5f;
  const auto dout = upload(std::vector<float>(n));
  rt_.launch(mod, "reverse", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(in)).ptr(dout),
             block() * 4);
  const auto out = download<float>(dout, n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t base = i / block() * block(), last = std::min(n - base, block()) - 1;
    ASSERT_EQ(out[i], in[base + last - (i - base)]) << i;
  }
}

TEST_P(Compiled, EveryAtomicFunction) {
  const auto mod = load("atomics");
  const uint32_t n = 1000;
  std::vector<int32_t> in(n);
  for (auto& x : in) x = static_cast<int32_t>(rng_() % 2001) - 1000;
  std::vector<int32_t> g(15, 0);
  g[2] = INT32_MAX, g[3] = INT32_MIN, g[4] = -1;
  const auto dg = upload(g), dgu = upload(std::vector<uint32_t>(5, 0)), dgf = upload(std::vector<float>(1, 0.0f));
  rt_.launch(mod, "atomics", grid_for(n), Dim3{block(), 1, 1},
             KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(in)).ptr(dg).ptr(dgu).ptr(dgf));
  const auto got = download<int32_t>(dg, 15);
  const auto gotu = download<uint32_t>(dgu, 5);
  std::vector<int32_t> w(15, 0);
  w[2] = INT32_MAX, w[3] = INT32_MIN, w[4] = -1;
  std::vector<uint32_t> wu(5, 0);
  float wf = 0.0f;
  // The device's atomics wrap around; int32_t arithmetic would overflow (undefined) instead.
  const auto add = [](int32_t& acc, int32_t v) { acc = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(v)); };
  const auto sub = [](int32_t& acc, int32_t v) { acc = static_cast<int32_t>(static_cast<uint32_t>(acc) - static_cast<uint32_t>(v)); };
  for (uint32_t b = 0; b * block() < n; ++b) {
    int32_t sh[7] = {0, 0, INT32_MAX, INT32_MIN, 0, -1, 0};
    uint32_t count = 0;
    for (uint32_t i = b * block(); i < std::min(n, (b + 1) * block()); ++i) {
      const int32_t v = in[i];
      add(w[0], v), sub(w[1], v), w[2] = std::min(w[2], v), w[3] = std::max(w[3], v);
      w[4] &= ~(1 << (i & 31)), w[5] |= 1 << (v & 31), w[6] ^= v, add(w[7], v);
      wf += static_cast<float>(v & 255);
      add(sh[0], v), sub(sh[1], v), sh[2] = std::min(sh[2], v), sh[3] = std::max(sh[3], v);
      sh[4] |= 1 << (v & 31), sh[5] &= ~(1 << (v & 31)), sh[6] ^= v;
      ++count;
    }
    for (int t = 0; t < 7; ++t) add(w[8 + t], sh[t]);
    wu[3] += count % 5;
    wu[4] += count;
  }
  wu[0] = n % 10, wu[1] = (7 - n % 7) % 7, wu[2] = 7;
  EXPECT_EQ(got, w);
  EXPECT_EQ(gotu, wu);
  EXPECT_EQ(download<float>(dgf, 1)[0], wf);
}

TEST_P(Compiled, BarrierReductions) {
  const auto mod = load("barrier_red");
  const uint32_t n = 1000;
  std::vector<int32_t> in(n);
  for (auto& x : in) x = static_cast<int32_t>(rng_() % 1000) - (rng_() % 8 == 0 ? 500 : 0);
  const uint32_t blocks = (n + block() - 1) / block();
  const auto dout = upload(std::vector<int32_t>(3 * blocks, 7));
  rt_.launch(mod, "votes", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(in)).ptr(dout));
  const auto out = download<int32_t>(dout, 3 * blocks);
  for (uint32_t b = 0; b < blocks; ++b) {
    int32_t count = 0, all = 1, any = 0;
    for (uint32_t t = 0; t < block(); ++t) {
      const uint32_t i = b * block() + t;
      const int32_t v = i < n ? in[i] : 0;
      count += v > 0, all &= v >= 0, any |= v > 900;
    }
    EXPECT_EQ(out[3 * b], count) << b;
    EXPECT_EQ(out[3 * b + 1] != 0, all != 0) << b;
    EXPECT_EQ(out[3 * b + 2] != 0, any != 0) << b;
  }
}

TEST_P(Compiled, VectorTypes) {
  const auto mod = load("vectors");
  const uint32_t n = 300;
  std::vector<float> a(4 * n);
  std::vector<int32_t> b(2 * n);
  for (auto& x : a) x = static_cast<float>(static_cast<int32_t>(rng_() % 20001) - 10000) / 64.0f;
  for (auto& x : b) x = static_cast<int32_t>(rng_() % 201) - 100;
  const auto dout = upload(std::vector<float>(4 * n));
  rt_.launch(mod, "vectors", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(a)).ptr(upload(b)).ptr(dout));
  const auto out = download<float>(dout, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    const float want[4] = {std::fma(a[4 * i], static_cast<float>(b[2 * i]), a[4 * i + 3]), a[4 * i + 1] - a[4 * i + 2],
                           static_cast<float>(b[2 * i] ^ b[2 * i + 1]), a[4 * i]};
    for (int k = 0; k < 4; ++k) ASSERT_EQ(std::memcmp(&out[4 * i + k], &want[k], 4), 0) << i << "." << k;
  }
}

TEST_P(Compiled, GenericPointersToSharedAndGlobalMemory) {
  const auto mod = load("generic");
  const uint32_t n = 600;
  std::vector<float> in(n);
  for (auto& x : in) x = static_cast<float>(static_cast<int32_t>(rng_() % 2001) - 1000) / 8.0f;
  const auto dout = upload(std::vector<float>(2 * n, -1.0f));
  rt_.launch(mod, "generic", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(upload(in)).ptr(dout));
  const auto out = download<float>(dout, 2 * n);
  for (uint32_t i = 0; i + 2 < n; ++i) {
    const float want = in[i] + in[i + 1] + in[i + 2];
    ASSERT_EQ(out[2 * i], want) << i;
    ASSERT_EQ(out[2 * i + 1], want) << i;
  }
}

TEST_P(Compiled, StructurePassedByValue) {
  const auto mod = load("structparam");
  struct Params {
    char tag;
    short scale;
    float offset;
    double unused;
    int count;
    uint64_t data;
  };
  static_assert(sizeof(Params) == 32);
  const uint32_t n = 257;
  std::vector<int32_t> data(n);
  for (auto& x : data) x = static_cast<int32_t>(rng_() % 1000) - 500;
  const Params p{-7, 300, 12.75f, 0.0, static_cast<int>(n), upload(data)};
  const auto dout = upload(std::vector<int32_t>(n));
  rt_.launch(mod, "apply", grid_for(n), Dim3{block(), 1, 1},
             KernelArgs().bytes(std::span(reinterpret_cast<const uint8_t*>(&p), sizeof p)).ptr(dout));
  const auto out = download<int32_t>(dout, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], data[i] * 300 + 12 - 7) << i;
}

TEST_P(Compiled, DoublePrecisionOnTheDpUnit) {
  Runtime gt200{*tsm::config::find_config("gt200"), tsm::make_golden_backend()};
  const auto mod = load_into(gt200, "double", "gt200");
  const uint32_t n = 200;
  std::vector<double> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = std::ldexp(static_cast<double>(rng_()) + 0.5, static_cast<int>(rng_() % 200) - 100) * ((i & 1) ? -1 : 1);
    b[i] = i % 7 == 0 ? a[i] : std::ldexp(static_cast<double>(rng_()), static_cast<int>(rng_() % 200) - 100);
  }
  const auto d_out = tsm::DevicePtr{gt200.malloc(32 * n)}, d_cmp = gt200.malloc(4 * n);
  auto up = [&](const std::vector<double>& v) {
    const auto p = gt200.malloc(static_cast<uint32_t>(8 * v.size()));
    gt200.memcpy_to_device(p, std::span(reinterpret_cast<const uint8_t*>(v.data()), 8 * v.size()));
    return p;
  };
  gt200.launch(mod, "dp", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(static_cast<int32_t>(n)).ptr(up(a)).ptr(up(b)).ptr(d_out).ptr(d_cmp));
  std::vector<double> out(4 * n);
  std::vector<int32_t> cmp(n);
  gt200.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(out.data()), 32 * n), d_out);
  gt200.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(cmp.data()), 4 * n), d_cmp);
  for (uint32_t i = 0; i < n; ++i) {
    const double x = a[i], y = b[i];
    const double want[4] = {x + y, x * y, std::fma(x, y, -x), static_cast<double>(static_cast<float>(x))};
    for (int k = 0; k < 4; ++k) ASSERT_EQ(std::memcmp(&out[4 * i + k], &want[k], 8), 0) << i << "." << k;
    ASSERT_EQ(cmp[i], (x < y) + 2 * (x == y) + 4 * (x > 1e300)) << i;
  }
}

TEST_P(Compiled, GlobalsInitializedWithAddresses) {
  const auto mod = load("globals");
  const auto dout = upload(std::vector<int32_t>(4, -1));
  const auto r = rt_.launch(mod, "globals", Dim3{1, 1, 1}, Dim3{std::min(block(), 32u), 1, 1}, KernelArgs().ptr(dout));
  EXPECT_EQ(download<int32_t>(dout, 4), (std::vector<int32_t>{40, 10, 30, 20 + 't'}));
  EXPECT_EQ(r.printf_output, "name 0 = alpha\nname 1 = beta\n");
  uint64_t first = 0;
  rt_.read_symbol(mod, "picks", std::span(reinterpret_cast<uint8_t*>(&first), 8));
  EXPECT_EQ(first, rt_.symbol_address(mod, "values") + 4);  // thread 4 stored &values[1]
}

TEST_P(Compiled, EarlyReturnFromNestedLoops) {
  const auto mod = load("nested");
  const int n = 13, m = 11;
  std::vector<int32_t> grid(n * m);
  for (auto& v : grid) v = static_cast<int32_t>(rng_() % 400);
  for (int r = 0; r < n; r += 3) grid[r * m + static_cast<int>(rng_() % m)] = -1;  // rows that end early
  const uint32_t threads = grid_for(300).x * block();  // the kernel has no bounds check: whole blocks
  const auto dout = upload(std::vector<int32_t>(threads, 7));
  rt_.launch(mod, "find2d", grid_for(threads), Dim3{block(), 1, 1}, KernelArgs().i32(n).i32(m).ptr(upload(grid)).i32(50).ptr(dout));
  const auto out = download<int32_t>(dout, threads);
  for (uint32_t t = 0; t < threads; ++t) {
    int32_t want = -1;
    const int32_t k = 50 + static_cast<int32_t>(t);
    for (int i = 0; i < n && want < 0; ++i)
      for (int j = 0; j < m; ++j) {
        if (grid[i * m + j] == k) {
          want = i * 1000 + j;
          break;
        }
        if (grid[i * m + j] < 0) break;
      }
    ASSERT_EQ(out[t], want) << t;
  }
}

TEST_P(Compiled, BreakAfterWorkInsideAnIf) {
  const auto mod = load("nested");
  const int n = 500;
  std::vector<int32_t> in(n);
  for (auto& v : in) v = static_cast<int32_t>(rng_() % 1000) + 1;
  const auto dout = upload(std::vector<int32_t>(2 * n, -5));
  rt_.launch(mod, "break_with_work", grid_for(n), Dim3{block(), 1, 1}, KernelArgs().i32(n).ptr(upload(in)).ptr(dout));
  const auto out = download<int32_t>(dout, 2 * n);
  for (int t = 0; t < n; ++t) {
    int acc = 0, at = -5;
    for (int k = 0; k < 64; ++k) {
      const int v = in[(t + k) % n];
      if (v % 7 == 0) {
        acc = acc * 3 + v;
        at = k;
        break;
      }
      acc += v;
    }
    ASSERT_EQ(out[t], acc) << t;
    ASSERT_EQ(out[n + t], at) << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Compiled,
                         ::testing::Values(Case{Frontend::Nvcc, 32}, Case{Frontend::Nvcc, 100}, Case{Frontend::Nvcc, 256},
                                           Case{Frontend::Clang, 32}, Case{Frontend::Clang, 100}, Case{Frontend::Clang, 256},
                                           Case{Frontend::Nvcc, 64, 4}, Case{Frontend::Clang, 64, 4}),
                         case_name);

}  // namespace
