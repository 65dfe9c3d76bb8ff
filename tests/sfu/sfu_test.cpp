// SFU golden model tests: special values, PTX .approx error bounds (sampled quick / exhaustive full), tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "sfu/sfu.hpp"
#include "tsm/sfu_tables_gen.hpp"

namespace tsm::sfu {
namespace {

constexpr uint32_t kNan = 0x7FFF'FFFFu;
constexpr uint32_t kInf = 0x7F80'0000u;
constexpr uint32_t kNegInf = 0xFF80'0000u;
constexpr uint32_t kNegZero = 0x8000'0000u;
constexpr uint32_t kOne = 0x3F80'0000u;
constexpr uint32_t kSign = 0x8000'0000u;
constexpr uint32_t kMaxFinite = 0x7F7F'FFFFu;
constexpr uint32_t kTwoPi = 0x40C9'0FDBu;  // 6.2831855f, the float nearest 2pi (above it)

uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
float value(uint32_t b) { return std::bit_cast<float>(b); }

// The PTX .approx bounds (SPEC section 2).
const double kRcpUlps = 1.0;
const double kRsqRelative = std::exp2(-22.9);
const double kSinCosAbsolute = std::exp2(-20.5);
const double kLg2Absolute = std::exp2(-22.0);
const double kEx2Ulps = 2.0;

// |r - ref| in units of the last place of ref as a binary32 (subnormal spacing below 2^-126).
// An infinite result counts as 2^128, the first value past the largest float.
double ulp_error(uint32_t r, double ref) {
  const double top = std::ldexp(1.0, 128);
  const float rf = value(r);
  if (std::isnan(rf)) return std::numeric_limits<double>::infinity();
  const double rd = std::isinf(rf) ? std::copysign(top, rf) : rf;
  const double rc = std::clamp(ref, -top, top);
  const int exp = rc == 0 ? -126 : std::clamp(std::ilogb(rc), -126, 127);
  return std::fabs(rd - rc) / std::ldexp(1.0, exp - 23);
}

double abs_error(uint32_t r, double ref) {
  const float rf = value(r);
  return std::isfinite(rf) ? std::fabs(rf - ref) : std::numeric_limits<double>::infinity();
}

// The error measure of one function: returns the error of result r for input x in the bound's units.
struct Metric {
  Mufu func;
  bool ftz;
  const char* unit;
  double bound;
  std::function<double(float x, uint32_t r)> error;
};

Metric rcp_metric() {
  return {Mufu::RCP, false, "ulp", kRcpUlps, [](float x, uint32_t r) { return ulp_error(r, 1.0 / x); }};
}
Metric rsq_metric() {
  return {Mufu::RSQ, false, "relative", kRsqRelative, [](float x, uint32_t r) {
            const double ref = 1.0 / std::sqrt(static_cast<double>(x));
            return abs_error(r, ref) / ref;
          }};
}
Metric ex2_metric() {
  return {Mufu::EX2, false, "ulp", kEx2Ulps, [](float x, uint32_t r) { return ulp_error(r, std::exp2(double{x})); }};
}
// Absolute on (0.5, 2), where |log2 x| < 1; relative where |log2 x| >= 1.
Metric lg2_metric() {
  return {Mufu::LG2, false, "absolute (relative past |lg2| = 1)", kLg2Absolute, [](float x, uint32_t r) {
            const double ref = std::log2(double{x});
            return abs_error(r, ref) / std::max(1.0, std::fabs(ref));
          }};
}
Metric sin_metric() {
  return {Mufu::SIN, false, "absolute", kSinCosAbsolute,
          [](float x, uint32_t r) { return abs_error(r, std::sin(double{x})); }};
}
Metric cos_metric() {
  return {Mufu::COS, false, "absolute", kSinCosAbsolute,
          [](float x, uint32_t r) { return abs_error(r, std::cos(double{x})); }};
}

// Inputs first..last (bit patterns, inclusive) every `stride`-th.
struct Range {
  uint32_t first;
  uint32_t last;
  uint32_t stride = 1;
};

// Both signs of a range of non-negative bit patterns.
std::vector<Range> both_signs(Range r) { return {r, {r.first | kSign, r.last | kSign, r.stride}}; }

// All inputs with binary32 exponent field `field` (field 0: the subnormals, not zero).
Range binade(uint32_t field) { return {std::max(field << 23, 1u), (field << 23) | 0x7F'FFFFu}; }

struct Worst {
  double error = 0;
  uint32_t input = 0;
  uint32_t result = 0;
  uint64_t count = 0;
};

// Evaluates the metric over the ranges on every core; returns the largest error.
Worst sweep(const Metric& m, const std::vector<Range>& ranges) {
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  Worst worst;
  std::mutex lock;
  {
    std::vector<std::jthread> threads;
    for (unsigned w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        Worst local;
        for (const Range& r : ranges) {
          const uint64_t n = (uint64_t{r.last} - r.first) / r.stride + 1;
          for (uint64_t k = w; k < n; k += workers) {
            const auto x = static_cast<uint32_t>(r.first + k * r.stride);
            const uint32_t result = evaluate(m.func, x, m.ftz);
            const double e = m.error(value(x), result);
            ++local.count;
            if (e > local.error) local = {e, x, result, local.count};
          }
        }
        const std::scoped_lock guard(lock);
        worst.count += local.count;
        if (local.error > worst.error) {
          worst = {local.error, local.input, local.result, worst.count};
        }
      });
    }
  }
  return worst;
}

// Sweeps, prints the maximum error (docs/sfu.md quotes these lines) and checks the bound.
void expect_within_bound(const char* what, const Metric& m, const std::vector<Range>& ranges) {
  const Worst w = sweep(m, ranges);
  const double e = w.error;
  fmt::print("[sfu] {}: max error {:.4g} {} = 2^{:.2f} (bound {:.4g} = 2^{:.2f}) at x = {:#010x} ({:.9g}) -> "
             "{:#010x} ({:.9g}), {} inputs\n",
             what, e, m.unit, std::log2(e), m.bound, std::log2(m.bound), w.input, value(w.input), w.result,
             value(w.result), w.count);
  std::fflush(stdout);
  EXPECT_LE(e, m.bound) << what << " at x = " << fmt::format("{:#010x}", w.input);
}

// ---------------------------------------------------------------------------------------------
// Special values and exact cases
// ---------------------------------------------------------------------------------------------

struct Case {
  Mufu func;
  uint32_t x;
  bool ftz;
  uint32_t expected;
};

TEST(Special, Values) {
  const uint32_t snan = 0x7F80'0001u;
  const uint32_t neg_nan = 0xFFC0'0000u;
  const uint32_t sub = 0x0000'0001u;  // smallest subnormal
  const Case cases[] = {
      // RCP
      {Mufu::RCP, 0, false, kInf}, {Mufu::RCP, kNegZero, false, kNegInf}, {Mufu::RCP, kInf, false, 0},
      {Mufu::RCP, kNegInf, false, kNegZero}, {Mufu::RCP, snan, false, kNan}, {Mufu::RCP, neg_nan, false, kNan},
      {Mufu::RCP, kOne, false, kOne}, {Mufu::RCP, bits(-4.0f), false, bits(-0.25f)},
      {Mufu::RCP, 0x0040'0000u, false, 0x7F00'0000u},  // 1/2^-127 = 2^127
      {Mufu::RCP, 0x0040'0000u, true, kInf},           // ftz: the subnormal input is 0
      {Mufu::RCP, sub, false, kInf},                   // 2^149 overflows
      {Mufu::RCP, 0x7F00'0000u, false, 0x0040'0000u},  // 1/2^127 = 2^-127, a subnormal result
      {Mufu::RCP, 0x7F00'0000u, true, 0},              // ... flushed with ftz
      {Mufu::RCP, 0xFF00'0000u, true, kNegZero},
      // RSQ
      {Mufu::RSQ, 0, false, kInf}, {Mufu::RSQ, kNegZero, false, kNegInf}, {Mufu::RSQ, kInf, false, 0},
      {Mufu::RSQ, kNegInf, false, kNan}, {Mufu::RSQ, bits(-1.0f), false, kNan}, {Mufu::RSQ, sub | kSign, false, kNan},
      {Mufu::RSQ, snan, false, kNan}, {Mufu::RSQ, kOne, false, kOne}, {Mufu::RSQ, bits(4.0f), false, bits(0.5f)},
      {Mufu::RSQ, bits(0.25f), false, bits(2.0f)}, {Mufu::RSQ, 0x0040'0000u, true, kInf},
      {Mufu::RSQ, sub | kSign, true, kNegInf},  // ftz: -subnormal is -0
      // EX2
      {Mufu::EX2, 0, false, kOne}, {Mufu::EX2, kNegZero, false, kOne}, {Mufu::EX2, kInf, false, kInf},
      {Mufu::EX2, kNegInf, false, 0}, {Mufu::EX2, neg_nan, false, kNan}, {Mufu::EX2, bits(128.0f), false, kInf},
      {Mufu::EX2, bits(300.0f), false, kInf}, {Mufu::EX2, bits(-300.0f), false, 0},
      {Mufu::EX2, bits(-160.0f), false, 0}, {Mufu::EX2, bits(-149.0f), false, sub},
      {Mufu::EX2, bits(-149.0f), true, 0}, {Mufu::EX2, bits(-126.0f), true, 0x0080'0000u},
      {Mufu::EX2, sub, false, kOne}, {Mufu::EX2, sub | kSign, false, kOne}, {Mufu::EX2, sub, true, kOne},
      // LG2
      {Mufu::LG2, 0, false, kNegInf}, {Mufu::LG2, kNegZero, false, kNegInf}, {Mufu::LG2, kInf, false, kInf},
      {Mufu::LG2, kNegInf, false, kNan}, {Mufu::LG2, bits(-1.0f), false, kNan}, {Mufu::LG2, snan, false, kNan},
      {Mufu::LG2, kOne, false, 0}, {Mufu::LG2, sub, false, bits(-149.0f)}, {Mufu::LG2, sub, true, kNegInf},
      {Mufu::LG2, sub | kSign, false, kNan}, {Mufu::LG2, sub | kSign, true, kNegInf},
      // SIN, COS
      {Mufu::SIN, 0, false, 0}, {Mufu::SIN, kNegZero, false, kNegZero}, {Mufu::COS, 0, false, kOne},
      {Mufu::COS, kNegZero, false, kOne}, {Mufu::SIN, kInf, false, kNan}, {Mufu::SIN, kNegInf, false, kNan},
      {Mufu::COS, kInf, false, kNan}, {Mufu::COS, kNegInf, false, kNan}, {Mufu::SIN, snan, false, kNan},
      {Mufu::COS, neg_nan, false, kNan}, {Mufu::SIN, sub | kSign, false, sub | kSign},
      {Mufu::SIN, sub | kSign, true, kNegZero}, {Mufu::COS, sub, false, kOne}, {Mufu::COS, sub, true, kOne},
      {Mufu::SIN, bits(1e-5f), false, bits(1e-5f)},  // below the bypass threshold sin(x) = x
  };
  for (const Case& c : cases) {
    EXPECT_EQ(evaluate(c.func, c.x, c.ftz), c.expected)
        << fmt::format("MUFU {} of {:#010x} ({:g}) ftz {}", static_cast<int>(c.func), c.x, value(c.x), c.ftz);
  }
}

TEST(Special, EveryNanIsCanonical) {
  for (const Mufu f : {Mufu::RCP, Mufu::RSQ, Mufu::SIN, Mufu::COS, Mufu::EX2, Mufu::LG2}) {
    for (uint32_t payload = 1; payload < 0x80'0000u; payload += 0x1F3Fu) {
      for (const uint32_t sign : {0u, kSign}) {
        EXPECT_EQ(evaluate(f, sign | kInf | payload, false), kNan);
        EXPECT_EQ(evaluate(f, sign | kInf | payload, true), kNan);
      }
    }
  }
}

// Exact where the function is exact: powers of two for RCP, RSQ (even powers), EX2 (integers), LG2.
TEST(Special, ExactPowersOfTwo) {
  for (int k = -149; k <= 127; ++k) {
    const auto p = bits(std::ldexp(1.0f, k));
    EXPECT_EQ(evaluate(Mufu::LG2, p, false), bits(static_cast<float>(k))) << "lg2(2^" << k << ")";
    EXPECT_EQ(evaluate(Mufu::EX2, bits(static_cast<float>(k)), false), p) << "ex2(" << k << ")";
    if (k >= -126) {
      EXPECT_EQ(evaluate(Mufu::RCP, p, false), bits(std::ldexp(1.0f, -k))) << "rcp(2^" << k << ")";
    }
    if (k % 2 == 0) {
      EXPECT_EQ(evaluate(Mufu::RSQ, p, false), bits(std::ldexp(1.0f, -k / 2))) << "rsq(2^" << k << ")";
    }
  }
}

// The signs are handled outside the datapath, so the results are exactly (anti)symmetric.
TEST(Special, Symmetry) {
  for (uint32_t x = 1; x < kInf; x += 0x3F1u) {
    EXPECT_EQ(evaluate(Mufu::SIN, x | kSign, false), evaluate(Mufu::SIN, x, false) ^ kSign);
    EXPECT_EQ(evaluate(Mufu::COS, x | kSign, false), evaluate(Mufu::COS, x, false));
    EXPECT_EQ(evaluate(Mufu::RCP, x | kSign, false), evaluate(Mufu::RCP, x, false) ^ kSign);
  }
}

// ftz changes a result only where the input or the result is subnormal.
TEST(Special, FtzOnlyTouchesSubnormals) {
  for (const Mufu f : {Mufu::RCP, Mufu::RSQ, Mufu::SIN, Mufu::COS, Mufu::EX2, Mufu::LG2}) {
    for (uint32_t x = 0; x < 0xFFFF'0000u; x += 0x1'0001u) {
      const uint32_t plain = evaluate(f, x, false);
      const uint32_t flushed = evaluate(f, x, true);
      const bool sub_in = (x & kInf) == 0 && (x & 0x7F'FFFFu) != 0;
      const bool sub_out = (plain & kInf) == 0 && (plain & 0x7F'FFFFu) != 0;
      if (sub_in) continue;
      const std::string where = fmt::format("MUFU {} of {:#010x}", static_cast<int>(f), x);
      EXPECT_EQ(flushed, sub_out ? plain & kSign : plain) << where;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Accuracy (quick): every input of the bound's domain where it is cheap, a dense sample elsewhere
// ---------------------------------------------------------------------------------------------

TEST(Accuracy, Rcp) {
  std::vector<Range> ranges;
  for (const uint32_t field : {0u, 1u, 2u, 126u, 127u, 128u, 252u, 253u, 254u}) ranges.push_back(binade(field));
  ranges.push_back(binade(127u | 0x100u));  // [-2, -1)
  expect_within_bound("rcp, 9 binades and the subnormals", rcp_metric(), ranges);
}

TEST(Accuracy, Rsq) {
  std::vector<Range> ranges;
  for (const uint32_t field : {0u, 1u, 2u, 126u, 127u, 128u, 129u, 253u, 254u}) ranges.push_back(binade(field));
  expect_within_bound("rsq, 8 binades and the subnormals", rsq_metric(), ranges);
}

TEST(Accuracy, Lg2) {
  expect_within_bound("lg2, every x in (0.5, 2)", lg2_metric(), {{bits(0.5f) + 1, bits(2.0f) - 1}});
  expect_within_bound("lg2, every 31st positive float", lg2_metric(), {{1, kMaxFinite, 31}});
}

TEST(Accuracy, Ex2) {
  expect_within_bound("ex2, every x in [1, 2) and (-2, -1]", ex2_metric(), both_signs(binade(127)));
  expect_within_bound("ex2, every 61st x with |x| < 256", ex2_metric(), both_signs({0, bits(256.0f) - 1, 61}));
}

TEST(Accuracy, SinCos) {
  const auto ranges = both_signs({0, kTwoPi, 31});
  expect_within_bound("sin, every 31st x in [-2pi, 2pi]", sin_metric(), ranges);
  expect_within_bound("cos, every 31st x in [-2pi, 2pi]", cos_metric(), ranges);
}

// Outside [-2pi, 2pi] PTX specifies nothing; the error grows with |x| because 1/2pi has
// kInvTwoPiBits bits. Each band pins the documented growth, below 2^-29 * |x| (docs/sfu.md).
TEST(Accuracy, SinCosOutsideTwoPi) {
  uint32_t first = kTwoPi + 1;
  for (const int limit_exp : {8, 12, 16}) {
    const auto limit = bits(std::ldexp(1.0f, limit_exp));
    for (Metric m : {sin_metric(), cos_metric()}) {
      m.bound = std::ldexp(1.0, limit_exp - 29);
      const std::string what = fmt::format("{}, every 101st x with |x| in ({:.7g}, 2^{})",
                                           m.func == Mufu::SIN ? "sin" : "cos", value(first), limit_exp);
      expect_within_bound(what.c_str(), m, both_signs({first, limit - 1, 101}));
    }
    first = limit;
  }
}

// ---------------------------------------------------------------------------------------------
// Exhaustive (full): every binary32 input of each bound's domain
// ---------------------------------------------------------------------------------------------

TEST(Exhaustive, Rcp) { expect_within_bound("rcp, every positive finite x", rcp_metric(), {{1, kMaxFinite}}); }

TEST(Exhaustive, Rsq) { expect_within_bound("rsq, every positive finite x", rsq_metric(), {{1, kMaxFinite}}); }

TEST(Exhaustive, Lg2) { expect_within_bound("lg2, every positive finite x", lg2_metric(), {{1, kMaxFinite}}); }

TEST(Exhaustive, Ex2) {
  expect_within_bound("ex2, every x with |x| < 256", ex2_metric(), both_signs({0, bits(256.0f) - 1}));
}

TEST(Exhaustive, Sin) { expect_within_bound("sin, every x in [-2pi, 2pi]", sin_metric(), both_signs({0, kTwoPi})); }

TEST(Exhaustive, Cos) { expect_within_bound("cos, every x in [-2pi, 2pi]", cos_metric(), both_signs({0, kTwoPi})); }

// ---------------------------------------------------------------------------------------------
// Tables: the RTL's ROM images hold the golden model's coefficients; the generator reproduces them
// ---------------------------------------------------------------------------------------------

uint64_t pack_word(const gen::Coefficients& c) {
  const auto field = [](int32_t v, int width) { return static_cast<uint64_t>(v) & ((uint64_t{1} << width) - 1); };
  return (field(c.c2, gen::kC2Bits) << (gen::kC1Bits + gen::kC0Bits)) | (field(c.c1, gen::kC1Bits) << gen::kC0Bits) |
         field(c.c0, gen::kC0Bits);
}

std::vector<uint64_t> read_hex(const std::filesystem::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<uint64_t> words;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("//")) continue;
    words.push_back(std::stoull(line, nullptr, 16));
  }
  return words;
}

TEST(Tables, HexImagesMatchTheModel) {
  static_assert(gen::kWordBits <= 64);
  for (unsigned t = 0; t < gen::kNumTables; ++t) {
    const auto words = read_hex(std::filesystem::path(TSM_SFU_HEX_DIR) / fmt::format("{}.hex", gen::kTableNames[t]));
    ASSERT_EQ(words.size(), gen::kSegments) << gen::kTableNames[t];
    for (unsigned i = 0; i < gen::kSegments; ++i) {
      EXPECT_EQ(words[i], pack_word(gen::kTables[t][i])) << gen::kTableNames[t] << " segment " << i;
    }
  }
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh directory under the test temp dir, removed again at the end of the test.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(std::string_view name)
      : path(std::filesystem::path(testing::TempDir()) / fmt::format("{}_{}", name, ::getpid())) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

int run_generator(const std::filesystem::path& toml, const std::filesystem::path& out, const std::string& log) {
  const std::string command = fmt::format("'{}' '{}' --toml '{}' --out-dir '{}' 2>'{}'", TSM_PYTHON, TSM_SFU_GENERATOR,
                                          toml.string(), out.string(), log);
  return std::system(command.c_str());
}

TEST(Tables, GeneratorIsReproducible) {
  const ScratchDir scratch("sfu_regen");
  const auto out = scratch.path / "out";
  ASSERT_EQ(run_generator(TSM_SFU_TOML, out, (scratch.path / "log.txt").string()), 0);
  std::vector<std::filesystem::path> files = {"tsm/sfu_tables_gen.hpp", "docs/sfu-tables.md"};
  for (const auto name : gen::kTableNames) files.push_back(fmt::format("rtl/sfu/{}.hex", name));
  for (const auto& file : files) {
    EXPECT_EQ(slurp(out / file), slurp(std::filesystem::path(TSM_GEN_DIR) / file)) << file;
  }
}

TEST(Tables, GeneratorRejectsBadParameters) {
  const ScratchDir scratch("sfu_bad");
  const auto& dir = scratch.path;
  const std::string source = slurp(TSM_SFU_TOML);
  struct Mutation {
    std::string from, to, message;
  };
  const Mutation mutations[] = {
      {"c1 = { bits = 18,", "c1 = { bits = 19,", "interpolator.c1.bits = 19 is out of range 2..18"},
      {"u_bits = 17", "u_bits = 18", "interpolator.u_bits = 18 is out of range 1..17"},
      {"COS = \"sin\"\n", "", "the ISA's MUFU.COS has no table"},
      {"c1 = { bits = 18, frac = 24 }", "c1 = { bits = 18, frac = 26 }", "no coefficient candidate fits"},
  };
  for (const Mutation& m : mutations) {
    std::string text = source;
    const auto at = text.find(m.from);
    ASSERT_NE(at, std::string::npos) << m.from;
    text.replace(at, m.from.size(), m.to);
    const auto toml = dir / "bad.toml";
    std::ofstream(toml) << text;
    const std::string log = (dir / "log.txt").string();
    EXPECT_NE(run_generator(toml, dir / "out", log), 0) << m.to;
    EXPECT_NE(slurp(log).find(m.message), std::string::npos) << "expected '" << m.message << "', got: " << slurp(log);
  }
}

}  // namespace
}  // namespace tsm::sfu
