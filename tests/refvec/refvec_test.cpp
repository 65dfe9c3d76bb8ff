// Checks the golden model's arithmetic against reference vectors recorded on a real NVIDIA GPU.
//
// The GPU is the referee (docs/reference-vectors.md): IEEE and integer operations must match its
// bits exactly; the SFU's .approx functions must meet the PTX error bounds of SPEC §2 against a
// long-double host reference, and their distance to the GPU's own outputs is reported.

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "arith/fp.hpp"
#include "refvec_data.hpp"
#include "golden/int_ops.hpp"
#include "sfu/sfu.hpp"

namespace {

namespace gen = tsm::isa::gen;
using gen::Fcmp;
using gen::Ftype;
using gen::Itype;
using gen::Mufu;
using gen::Rnd;

using tsm::refvec::all_blocks;
using tsm::refvec::Block;
using tsm::refvec::Insn;
using tsm::refvec::kDataDir;
using tsm::refvec::parse;

Ftype ftype(const std::string& t) {
  if (t == "f16") return Ftype::F16;
  if (t == "f32") return Ftype::F32;
  if (t == "f64") return Ftype::F64;
  throw std::runtime_error("not a float type: " + t);
}

Itype itype(const std::string& t) {
  static const std::map<std::string, Itype> m = {{"u8", Itype::U8},   {"s8", Itype::S8},   {"u16", Itype::U16},
                                                 {"s16", Itype::S16}, {"u32", Itype::U32}, {"s32", Itype::S32},
                                                 {"u64", Itype::U64}, {"s64", Itype::S64}};
  return m.at(t);
}

bool is_float(const std::string& t) { return t[0] == 'f'; }

// Types of the inputs and of the result, for describing a case.
std::string in_type(const Insn& in) { return in.type(); }
std::string out_type(const Insn& in) {
  if (in.op == "setp") return "pred";
  if (in.op == "cvt") return in.types[0];
  if (in.part == "wide") return in.type()[0] + std::string("64");
  return in.type();
}

// ---------------------------------------------------------------------------------------------
// Describing values in reports.

double decode_float(uint64_t bits, const std::string& type) {
  if (type == "f64") return std::bit_cast<double>(bits);
  if (type == "f32") return std::bit_cast<float>(static_cast<uint32_t>(bits));
  const int e = static_cast<int>((bits >> 10) & 0x1F);
  const double m = static_cast<double>(bits & 0x3FF);
  const double mag = e == 0x1F ? (m != 0 ? NAN : INFINITY) : e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (bits & 0x8000) ? -mag : mag;
}

int type_bits(const std::string& t) { return t == "pred" ? 1 : std::stoi(t.substr(1)); }

std::string describe(uint64_t bits, const std::string& type) {
  const int n = type_bits(type);
  const uint64_t mask = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  if (type == "pred") return fmt::format("{}", bits);
  if (!is_float(type)) {
    const uint64_t v = bits & mask;
    if (type[0] == 'u') return fmt::format("{:#x} ({})", bits, v);
    const int64_t s = n == 64 ? static_cast<int64_t>(v) : static_cast<int64_t>(v << (64 - n)) >> (64 - n);
    return fmt::format("{:#x} ({})", bits, s);
  }
  const int man = type == "f16" ? 10 : type == "f32" ? 23 : 52;
  const uint64_t exp_mask = (mask >> 1) & ~((uint64_t{1} << man) - 1);
  const uint64_t frac = bits & ((uint64_t{1} << man) - 1);
  const uint64_t e = bits & exp_mask;
  std::string what;
  if (e == exp_mask && frac != 0) what = frac >> (man - 1) ? "qNaN" : "sNaN";
  else what = fmt::format("{:.9g}{}", decode_float(bits, type), e == 0 && frac != 0 ? " subnormal" : "");
  return fmt::format("{:#0{}x} ({})", bits & mask, n / 4 + 2, what);
}

// ---------------------------------------------------------------------------------------------
// The golden model's result for one case of a bit-exact family.

uint64_t golden(const Insn& in, const Block& b, size_t i) {
  namespace fp = tsm::fp;
  namespace g = tsm::golden;
  const uint64_t a = b.in(i, 0);
  const auto u32 = [&](size_t k) { return static_cast<uint32_t>(b.in(i, k)); };
  const std::string& t = in.type();
  if (in.op == "cvt") {
    const std::string &dst = in.types[0], &src = in.types[1];
    if (is_float(src) && !is_float(dst)) return fp::f2i(a, ftype(src), itype(dst), in.rnd, in.ftz);
    if (!is_float(src)) return fp::i2f(a, itype(src), ftype(dst), in.rnd);
    return fp::f2f(a, ftype(src), ftype(dst), in.rnd, in.rint, in.ftz, in.sat);
  }
  if (t == "f32") {
    if (in.op == "add") return fp::add_f32(u32(0), u32(1), in.rnd, in.ftz, in.sat);
    if (in.op == "sub") return fp::add_f32(u32(0), u32(1) ^ 0x80000000u, in.rnd, in.ftz, in.sat);
    if (in.op == "mul") return fp::mul_f32(u32(0), u32(1), in.rnd, in.ftz, in.sat);
    if (in.op == "fma") return fp::fma_f32(u32(0), u32(1), u32(2), in.rnd, in.ftz, in.sat);
    if (in.op == "min") return fp::min_f32(u32(0), u32(1), in.ftz, in.nan);
    if (in.op == "max") return fp::max_f32(u32(0), u32(1), in.ftz, in.nan);
    if (in.op == "setp") return fp::cmp_f32(*in.cmp, u32(0), u32(1), in.ftz) ? 1 : 0;
  }
  if (t == "f64") {
    if (in.op == "add") return fp::add_f64(a, b.in(i, 1), in.rnd);
    if (in.op == "mul") return fp::mul_f64(a, b.in(i, 1), in.rnd);
    if (in.op == "fma") return fp::fma_f64(a, b.in(i, 1), b.in(i, 2), in.rnd);
  }
  static const std::map<std::string, std::function<uint64_t(uint64_t, uint64_t)>> ints = {
      {"mul.hi.u32", [](uint64_t x, uint64_t y) { return g::mul_hi_u32(uint32_t(x), uint32_t(y)); }},
      {"mul.hi.s32", [](uint64_t x, uint64_t y) { return g::mul_hi_s32(uint32_t(x), uint32_t(y)); }},
      {"mul.wide.u32", [](uint64_t x, uint64_t y) { return g::mul_wide_u32(uint32_t(x), uint32_t(y)); }},
      {"mul.wide.s32", [](uint64_t x, uint64_t y) { return g::mul_wide_s32(uint32_t(x), uint32_t(y)); }},
      {"div.u32", [](uint64_t x, uint64_t y) { return g::div_u32(uint32_t(x), uint32_t(y)); }},
      {"div.s32", [](uint64_t x, uint64_t y) { return g::div_s32(uint32_t(x), uint32_t(y)); }},
      {"rem.u32", [](uint64_t x, uint64_t y) { return g::rem_u32(uint32_t(x), uint32_t(y)); }},
      {"rem.s32", [](uint64_t x, uint64_t y) { return g::rem_s32(uint32_t(x), uint32_t(y)); }},
      {"div.u64", [](uint64_t x, uint64_t y) { return g::div_u64(x, y); }},
      {"div.s64", [](uint64_t x, uint64_t y) { return g::div_s64(x, y); }},
      {"rem.u64", [](uint64_t x, uint64_t y) { return g::rem_u64(x, y); }},
      {"rem.s64", [](uint64_t x, uint64_t y) { return g::rem_s64(x, y); }}};
  return ints.at(b.ptx)(a, b.in(i, 1));
}

uint64_t width_mask(int bytes) { return bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1; }

// Runs every block the filter selects through the golden model and expects the GPU's bits. Prints
// one line per operation (the forms of one op and type together) and the first mismatches of
// every form that has any.
void check_exact(const std::function<bool(const Insn&)>& select) {
  struct Summary {
    size_t forms = 0, cases = 0, mismatches = 0;
  };
  std::map<std::string, Summary> per_op;
  size_t blocks = 0;
  for (const Block& b : all_blocks()) {
    const Insn in = parse(b.ptx);
    if (in.approx || !select(in)) continue;
    ++blocks;
    const uint64_t mask = width_mask(b.out_width);
    size_t bad = 0;
    std::string examples;
    for (size_t i = 0; i < b.count; ++i) {
      const uint64_t want = b.outputs[i], got = golden(in, b, i) & mask;
      if (got == want) continue;
      if (++bad > 4) continue;
      std::string inputs;
      for (size_t k = 0; k < b.in_widths.size(); ++k)
        inputs += fmt::format("{}{}", k ? ", " : "", describe(b.in(i, k), in_type(in)));
      examples += fmt::format("\n    {} {}\n      gpu    {}\n      golden {}", b.ptx, inputs,
                              describe(want, out_type(in)), describe(got, out_type(in)));
    }
    std::string op = in.op + (in.part.empty() ? "" : "." + in.part);
    for (const std::string& t : in.types) op += "." + t;
    Summary& s = per_op[op];
    ++s.forms, s.cases += b.count, s.mismatches += bad;
    EXPECT_EQ(bad, 0u) << b.ptx << " (" << b.file << "): " << bad << " of " << b.count
                       << " cases differ from the GPU; the first:" << examples;
  }
  ASSERT_GT(blocks, 0u) << "no reference vectors of this family";
  for (const auto& [op, s] : per_op)
    fmt::print("{:<14} {:3} forms {:7} cases {:6} mismatches\n", op, s.forms, s.cases, s.mismatches);
}

// ---------------------------------------------------------------------------------------------
// SFU: the PTX .approx bounds against a long-double reference (64-bit significand on x86-64,
// 113 on AArch64: either is far finer than the bounds).

enum class Measure { Ulp, Relative, Absolute };

struct SfuSpec {
  Mufu func;
  Measure measure;
  long double bound;
  std::function<bool(float)> in_domain;  // where PTX states the bound
  std::function<long double(long double)> reference;
};

const std::map<std::string, SfuSpec>& sfu_specs() {
  static const long double two_pi = 2 * 3.14159265358979323846264338327950288L;
  static const std::map<std::string, SfuSpec> specs = {
      {"rcp", {Mufu::RCP, Measure::Ulp, 1.0L, [](float) { return true; }, [](long double x) { return 1 / x; }}},
      {"rsqrt", {Mufu::RSQ, Measure::Relative, std::exp2(-22.9L), [](float) { return true; },
                 [](long double x) { return 1 / std::sqrt(x); }}},
      {"sin", {Mufu::SIN, Measure::Absolute, std::exp2(-20.5L), [](float x) { return std::fabs(x) <= two_pi; },
               [](long double x) { return std::sin(x); }}},
      {"cos", {Mufu::COS, Measure::Absolute, std::exp2(-20.5L), [](float x) { return std::fabs(x) <= two_pi; },
               [](long double x) { return std::cos(x); }}},
      {"ex2", {Mufu::EX2, Measure::Ulp, 2.0L, [](float) { return true; }, [](long double x) { return std::exp2(x); }}},
      {"lg2", {Mufu::LG2, Measure::Absolute, std::exp2(-22.0L), [](float x) { return x > 0.5f && x < 2.0f; },
               [](long double x) { return std::log2(x); }}}};
  return specs;
}

constexpr uint32_t kSign = 0x80000000u, kMinNormal = 0x00800000u;

bool is_nan(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }
bool is_inf(uint32_t x) { return (x & 0x7FFFFFFFu) == 0x7F800000u; }
bool is_subnormal(uint32_t x) { return (x & 0x7F800000u) == 0 && (x & 0x007FFFFFu) != 0; }

// Inputs whose result PTX defines exactly (its special-value tables): NaN, ±inf, ±0 (a flushed
// subnormal counts as 0), and negative inputs of rsqrt and lg2.
bool exactly_defined(const std::string& fn, uint32_t x) {
  const bool zero = (x & 0x7FFFFFFFu) == 0;
  return is_nan(x) || is_inf(x) || zero || ((fn == "rsqrt" || fn == "lg2") && (x & kSign));
}

// A result as a number; infinity counts as 2^128, one ulp above the largest float, so that
// overflow boundaries measure in ulps like everything else.
long double value(uint32_t y) {
  if (is_inf(y)) return (y & kSign) ? -0x1p128L : 0x1p128L;
  return std::bit_cast<float>(y);
}

// Error of result y against the reference, in the spec's measure. With .ftz, a reference below
// the smallest normal may come back as zero or as the smallest normal (both count as exact).
long double sfu_error(const SfuSpec& s, uint32_t y, long double ref, bool ftz) {
  if (is_nan(y)) return INFINITY;
  ref = std::clamp(ref, -0x1p128L, 0x1p128L);
  const uint32_t mag = y & 0x7FFFFFFFu;
  if (ftz && std::fabs(ref) < 0x1p-126L && (mag == 0 || mag == kMinNormal) && std::signbit(ref) == bool(y & kSign))
    return 0;
  const long double diff = std::fabs(value(y) - ref);
  switch (s.measure) {
    case Measure::Ulp: {
      const int e = std::max(std::ilogb(ref == 0 ? 0x1p-149L : ref), -126);
      return diff / std::ldexp(1.0L, e - 23);
    }
    case Measure::Relative:
      return diff / std::fabs(ref);
    case Measure::Absolute:
      return diff;
  }
  return INFINITY;
}

std::string measure_text(const SfuSpec& s, long double e) {
  switch (s.measure) {
    case Measure::Ulp:
      return fmt::format("{:.3f} ulp", static_cast<double>(e));
    case Measure::Relative:
      return e == 0 ? "0 rel" : fmt::format("2^{:.2f} rel", static_cast<double>(std::log2(e)));
    case Measure::Absolute:
      return e == 0 ? "0 abs" : fmt::format("2^{:.2f} abs", static_cast<double>(std::log2(e)));
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// Tests.

TEST(RefVec, DataMatchesManifest) {
  std::ifstream f(kDataDir / "MANIFEST.json");
  ASSERT_TRUE(f) << "missing " << (kDataDir / "MANIFEST.json").string();
  const nlohmann::json m = nlohmann::json::parse(f);
  fmt::print("reference vectors from {} (compute {}), driver '{}', nvcc {}, {}\n", m.at("gpu").get<std::string>(),
             m.at("compute_capability").get<std::string>(), m.at("nvidia_driver").get<std::string>(),
             m.at("nvcc_version").get<std::string>(), m.at("date_utc").get<std::string>());
  std::map<std::string, size_t> read;
  size_t total = 0;
  for (const Block& b : all_blocks()) {
    EXPECT_FALSE(read.contains(b.ptx)) << b.ptx << " appears twice";
    EXPECT_NO_THROW(parse(b.ptx)) << b.ptx;
    read[b.ptx] = b.count;
    total += b.count;
  }
  const auto& listed = m.at("cases_per_form");
  EXPECT_EQ(listed.size(), read.size()) << "forms in MANIFEST.json vs in the data files";
  for (const auto& [ptx, count] : listed.items()) {
    ASSERT_TRUE(read.contains(ptx)) << ptx << " is in MANIFEST.json but in no data file";
    EXPECT_EQ(read.at(ptx), count.get<size_t>()) << ptx;
  }
  EXPECT_EQ(total, m.at("total_cases").get<size_t>());
  EXPECT_GE(total, 100000u);
  fmt::print("{} forms, {} cases\n", read.size(), total);
}

TEST(RefVec, F32AddSubMul) {
  check_exact([](const Insn& in) { return in.type() == "f32" && (in.op == "add" || in.op == "sub" || in.op == "mul"); });
}

TEST(RefVec, F32Fma) {
  check_exact([](const Insn& in) { return in.type() == "f32" && in.op == "fma"; });
}

TEST(RefVec, F32MinMax) {
  check_exact([](const Insn& in) { return in.op == "min" || in.op == "max"; });
}

TEST(RefVec, F32Setp) {
  check_exact([](const Insn& in) { return in.op == "setp"; });
}

TEST(RefVec, F64AddMulFma) {
  check_exact([](const Insn& in) { return in.op != "cvt" && in.type() == "f64"; });
}

TEST(RefVec, CvtFloatToInt) {
  check_exact([](const Insn& in) { return in.op == "cvt" && !is_float(in.types[0]) && is_float(in.types[1]); });
}

TEST(RefVec, CvtIntToFloat) {
  check_exact([](const Insn& in) { return in.op == "cvt" && !is_float(in.types[1]); });
}

TEST(RefVec, CvtFloatToFloat) {
  check_exact([](const Insn& in) { return in.op == "cvt" && is_float(in.types[0]) && is_float(in.types[1]); });
}

TEST(RefVec, IntMulHiWideDivRem) {
  check_exact([](const Insn& in) { return !is_float(in.type()) && in.op != "cvt"; });
}

// The golden SFU must meet the PTX bounds where PTX states them and give exactly the GPU's result
// where PTX defines the result (special values). The GPU's own error and the golden model's
// distance to the GPU are reported, not asserted: the algorithms differ by design (SPEC §2).
TEST(RefVec, SfuApprox) {
  struct Stats {
    size_t cases = 0, violations = 0;
    long double worst = 0;
    void add(long double err, long double bound) {
      ++cases;
      worst = std::max(worst, err);
      violations += err > bound;
    }
  };
  size_t blocks = 0;
  for (const Block& b : all_blocks()) {
    const Insn in = parse(b.ptx);
    if (!in.approx) continue;
    ++blocks;
    const SfuSpec& s = sfu_specs().at(in.op);
    size_t special = 0, special_bad = 0, same = 0;
    Stats golden_in, gpu_in, golden_out, gpu_out, to_gpu;
    std::string examples;
    const auto example = [&](uint32_t x, uint32_t gpu, uint32_t got, const std::string& why) {
      if (examples.size() < 2000)
        examples += fmt::format("\n    {} x={}: gpu {}, golden {} ({})", b.ptx, describe(x, "f32"),
                                describe(gpu, "f32"), describe(got, "f32"), why);
    };
    for (size_t i = 0; i < b.count; ++i) {
      const auto x = static_cast<uint32_t>(b.in(i, 0)), gpu = static_cast<uint32_t>(b.outputs[i]);
      const uint32_t got = tsm::sfu::evaluate(s.func, x, in.ftz);
      const uint32_t xf = in.ftz && is_subnormal(x) ? x & kSign : x;
      if (exactly_defined(in.op, xf)) {
        ++special;
        if (got != gpu) ++special_bad, example(x, gpu, got, "special value");
        continue;
      }
      const long double ref = s.reference(std::bit_cast<float>(xf));
      const long double err = sfu_error(s, got, ref, in.ftz);
      if (s.in_domain(std::bit_cast<float>(xf))) {
        golden_in.add(err, s.bound);
        gpu_in.add(sfu_error(s, gpu, ref, in.ftz), s.bound);
        // Distance to the GPU in the bound's own measure, the GPU's result taken as the reference.
        to_gpu.add(is_nan(gpu) ? INFINITY : sfu_error(s, got, value(gpu), in.ftz), s.bound);
        same += got == gpu;
        if (err > s.bound) example(x, gpu, got, "error " + measure_text(s, err) + " past the bound");
      } else {
        golden_out.add(err, s.bound);
        gpu_out.add(sfu_error(s, gpu, ref, in.ftz), s.bound);
      }
    }
    fmt::print("{:<20} {:5} cases; {:3} special values, {} differ from the GPU\n", b.ptx, b.count, special, special_bad);
    fmt::print("{:<20} in the PTX domain ({:5} cases): golden max {}, GPU max {} (bound {}; GPU past it {} times)\n", "",
               golden_in.cases, measure_text(s, golden_in.worst), measure_text(s, gpu_in.worst), measure_text(s, s.bound),
               gpu_in.violations);
    fmt::print("{:<20} golden vs GPU there: {:.1f}% bit-identical, max distance {}\n", "",
               golden_in.cases ? 100.0 * static_cast<double>(same) / static_cast<double>(golden_in.cases) : 100.0,
               measure_text(s, to_gpu.worst));
    if (golden_out.cases)
      fmt::print("{:<20} outside it ({:5} cases, reported only): golden max {}, GPU max {}\n", "", golden_out.cases,
                 measure_text(s, golden_out.worst), measure_text(s, gpu_out.worst));
    EXPECT_EQ(special_bad + golden_in.violations, 0u)
        << b.ptx << ": " << special_bad << " special values differ from the GPU, " << golden_in.violations
        << " results past the PTX bound; the first:" << examples;
  }
  ASSERT_GT(blocks, 0u) << "no .approx reference vectors";
}

}  // namespace
