// Runs every PTX instruction form of the reference-vector suite on an NVIDIA GPU and writes the
// inputs with the GPU's results as gzip-compressed records (format: docs/reference-vectors.md).
//
// Each form is one inline-PTX statement, so the GPU executes exactly the instruction named (with
// its rounding mode and modifiers) and nothing the compiler chose. Inputs are generated on the host
// from a fixed seed: special values, hand-made hard cases and random bit patterns. Usage:
//   refvec OUTDIR     (writes OUTDIR/*.bin.gz and OUTDIR/MANIFEST.json)

// Plain stdio rather than fmt: the binary must run on a machine that has nothing but the NVIDIA
// driver, so it links only what can be linked statically (cudart, zlib).
#include <cuda_runtime.h>
#include <zlib.h>

#include "../gpu_record_writer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace refvec {

// ---------------------------------------------------------------------------------------------
// Device side: one kernel template, instantiated once per instruction form (each form is a
// distinct device lambda). Every value travels as 64 raw bits; the lambda narrows it.

template <int N, class Op>
__global__ void apply(Op op, const uint64_t* in, uint64_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t* x = in + size_t(i) * 3;
  if constexpr (N == 1) {
    out[i] = op(x[0]);
  } else if constexpr (N == 2) {
    out[i] = op(x[0], x[1]);
  } else {
    out[i] = op(x[0], x[1], x[2]);
  }
}

using Launch = std::function<void(const uint64_t* in, uint64_t* out, int n)>;

template <int N, class Op>
Launch launcher(Op op) {
  return [op](const uint64_t* in, uint64_t* out, int n) {
    apply<N><<<(n + 127) / 128, 128>>>(op, in, out, n);
  };
}

struct Form {
  std::string ptx;                 // the instruction without operands, e.g. "add.rz.ftz.f32"
  std::vector<uint8_t> in_widths;  // bytes of each input register
  uint8_t out_width;               // bytes of the result register (1 for a predicate, as 0/1)
  Launch launch;
};

// Register classes of the inline-PTX operands: C++ type, asm constraint, conversion from and to
// the raw bits, record width in bytes. H holds f16, F f32, R 32-bit integers, D f64 and L 64-bit
// integers (also the 8/16/32-bit integers of cvt, which PTX lets live in wider registers: the
// value is truncated to the type on input and sign/zero-extended to 64 bits on output).
#define RV_H_T unsigned short
#define RV_H_C "h"
#define RV_H_IN(x) static_cast<unsigned short>(x)
#define RV_H_OUT(r) static_cast<uint64_t>(r)
#define RV_H_W 2
#define RV_F_T float
#define RV_F_C "f"
#define RV_F_IN(x) __uint_as_float(static_cast<uint32_t>(x))
#define RV_F_OUT(r) static_cast<uint64_t>(__float_as_uint(r))
#define RV_F_W 4
#define RV_R_T unsigned
#define RV_R_C "r"
#define RV_R_IN(x) static_cast<unsigned>(x)
#define RV_R_OUT(r) static_cast<uint64_t>(r)
#define RV_R_W 4
#define RV_D_T double
#define RV_D_C "d"
#define RV_D_IN(x) __longlong_as_double(static_cast<long long>(x))
#define RV_D_OUT(r) static_cast<uint64_t>(__double_as_longlong(r))
#define RV_D_W 8
#define RV_L_T unsigned long long
#define RV_L_C "l"
#define RV_L_IN(x) static_cast<unsigned long long>(x)
#define RV_L_OUT(r) static_cast<uint64_t>(r)
#define RV_L_W 8

#define RV_UNARY(name, D, A)                                                                  \
  forms.push_back({name, {RV_##A##_W}, RV_##D##_W, launcher<1>([] __device__(uint64_t a) { \
                     RV_##D##_T r;                                                         \
                     asm(name " %0, %1;" : "=" RV_##D##_C(r) : RV_##A##_C(RV_##A##_IN(a)));  \
                     return RV_##D##_OUT(r);                                               \
                   })});
#define RV_BINARY(name, D, A, B)                                                              \
  forms.push_back({name, {RV_##A##_W, RV_##B##_W}, RV_##D##_W,                              \
                   launcher<2>([] __device__(uint64_t a, uint64_t b) {                      \
                     RV_##D##_T r;                                                         \
                     asm(name " %0, %1, %2;"                                               \
                         : "=" RV_##D##_C(r)                                               \
                         : RV_##A##_C(RV_##A##_IN(a)), RV_##B##_C(RV_##B##_IN(b)));        \
                     return RV_##D##_OUT(r);                                               \
                   })});
#define RV_TERNARY(name, D, A, B, C)                                                          \
  forms.push_back({name, {RV_##A##_W, RV_##B##_W, RV_##C##_W}, RV_##D##_W,                  \
                   launcher<3>([] __device__(uint64_t a, uint64_t b, uint64_t c) {          \
                     RV_##D##_T r;                                                         \
                     asm(name " %0, %1, %2, %3;"                                           \
                         : "=" RV_##D##_C(r)                                               \
                         : RV_##A##_C(RV_##A##_IN(a)), RV_##B##_C(RV_##B##_IN(b)),         \
                           RV_##C##_C(RV_##C##_IN(c)));                                    \
                     return RV_##D##_OUT(r);                                               \
                   })});
// setp writes a predicate; selp turns it into the 0/1 the record holds.
#define RV_SETP(name)                                                                       \
  forms.push_back({name, {4, 4}, 1, launcher<2>([] __device__(uint64_t a, uint64_t b) {    \
                     unsigned r;                                                           \
                     asm("{ .reg .pred p; " name " p, %1, %2; selp.u32 %0, 1, 0, p; }"     \
                         : "=r"(r)                                                         \
                         : "f"(RV_F_IN(a)), "f"(RV_F_IN(b)));                              \
                     return static_cast<uint64_t>(r);                                      \
                   })});

// Expansion helpers: M(name, ...) once per rounding mode / modifier set / integer type. The name
// is built by string-literal concatenation, so it is also the literal the asm statement uses.
#define RV_EACH_RND(M, op, tail, ...) \
  M(op ".rn" tail, __VA_ARGS__) M(op ".rz" tail, __VA_ARGS__) M(op ".rm" tail, __VA_ARGS__) M(op ".rp" tail, __VA_ARGS__)
#define RV_EACH_IRND(M, op, tail, ...)                                                    \
  M(op ".rni" tail, __VA_ARGS__) M(op ".rzi" tail, __VA_ARGS__) M(op ".rmi" tail, __VA_ARGS__) \
  M(op ".rpi" tail, __VA_ARGS__)
#define RV_FTZ_SAT(R, M, op, ty, ...) \
  R(M, op, ty, __VA_ARGS__) R(M, op, ".ftz" ty, __VA_ARGS__) R(M, op, ".sat" ty, __VA_ARGS__) R(M, op, ".ftz.sat" ty, __VA_ARGS__)
#define RV_SAT(R, M, op, ty, ...) R(M, op, ty, __VA_ARGS__) R(M, op, ".sat" ty, __VA_ARGS__)
#define RV_PLAIN(M, op, tail, ...) M(op tail, __VA_ARGS__)
#define RV_TO_EACH_INT(M, op, src, A)                                                              \
  M(op ".u8" src, L, A) M(op ".s8" src, L, A) M(op ".u16" src, L, A) M(op ".s16" src, L, A)        \
  M(op ".u32" src, L, A) M(op ".s32" src, L, A) M(op ".u64" src, L, A) M(op ".s64" src, L, A)
#define RV_FROM_EACH_INT(M, op, dst, D)                                                            \
  M(op dst ".u8", D, L) M(op dst ".s8", D, L) M(op dst ".u16", D, L) M(op dst ".s16", D, L)        \
  M(op dst ".u32", D, L) M(op dst ".s32", D, L) M(op dst ".u64", D, L) M(op dst ".s64", D, L)
#define RV_F2I(irnd)                                                \
  RV_TO_EACH_INT(RV_UNARY, "cvt" irnd, ".f16", H)                   \
  RV_TO_EACH_INT(RV_UNARY, "cvt" irnd, ".f32", F)                   \
  RV_TO_EACH_INT(RV_UNARY, "cvt" irnd ".ftz", ".f32", F)            \
  RV_TO_EACH_INT(RV_UNARY, "cvt" irnd, ".f64", D)
#define RV_I2F(frnd)                                                \
  RV_FROM_EACH_INT(RV_UNARY, "cvt" frnd, ".f16", H)                 \
  RV_FROM_EACH_INT(RV_UNARY, "cvt" frnd, ".f32", F)                 \
  RV_FROM_EACH_INT(RV_UNARY, "cvt" frnd, ".f64", D)

// Every form, in the order the files list them. Modifier combinations follow what ptxas accepts:
// .ftz only where an operand is f32, integer rounding for float->int and same-size float->float,
// float rounding required when a float->float conversion narrows and refused when it widens.
std::vector<Form> all_forms() {
  std::vector<Form> forms;
  RV_FTZ_SAT(RV_EACH_RND, RV_BINARY, "add", ".f32", F, F, F)
  RV_FTZ_SAT(RV_EACH_RND, RV_BINARY, "sub", ".f32", F, F, F)
  RV_FTZ_SAT(RV_EACH_RND, RV_BINARY, "mul", ".f32", F, F, F)
  RV_FTZ_SAT(RV_EACH_RND, RV_TERNARY, "fma", ".f32", F, F, F, F)
  RV_BINARY("min.f32", F, F, F) RV_BINARY("min.ftz.f32", F, F, F)
  RV_BINARY("min.NaN.f32", F, F, F) RV_BINARY("min.ftz.NaN.f32", F, F, F)
  RV_BINARY("max.f32", F, F, F) RV_BINARY("max.ftz.f32", F, F, F)
  RV_BINARY("max.NaN.f32", F, F, F) RV_BINARY("max.ftz.NaN.f32", F, F, F)
  RV_SETP("setp.eq.f32") RV_SETP("setp.ne.f32") RV_SETP("setp.lt.f32") RV_SETP("setp.le.f32")
  RV_SETP("setp.gt.f32") RV_SETP("setp.ge.f32") RV_SETP("setp.equ.f32") RV_SETP("setp.neu.f32")
  RV_SETP("setp.ltu.f32") RV_SETP("setp.leu.f32") RV_SETP("setp.gtu.f32") RV_SETP("setp.geu.f32")
  RV_SETP("setp.num.f32") RV_SETP("setp.nan.f32")
  RV_SETP("setp.eq.ftz.f32") RV_SETP("setp.ne.ftz.f32") RV_SETP("setp.lt.ftz.f32")
  RV_SETP("setp.le.ftz.f32") RV_SETP("setp.gt.ftz.f32") RV_SETP("setp.ge.ftz.f32")
  RV_SETP("setp.equ.ftz.f32") RV_SETP("setp.neu.ftz.f32") RV_SETP("setp.ltu.ftz.f32")
  RV_SETP("setp.leu.ftz.f32") RV_SETP("setp.gtu.ftz.f32") RV_SETP("setp.geu.ftz.f32")
  RV_SETP("setp.num.ftz.f32") RV_SETP("setp.nan.ftz.f32")
  RV_EACH_RND(RV_BINARY, "add", ".f64", D, D, D)
  RV_EACH_RND(RV_BINARY, "mul", ".f64", D, D, D)
  RV_EACH_RND(RV_TERNARY, "fma", ".f64", D, D, D, D)
  RV_F2I(".rni") RV_F2I(".rzi") RV_F2I(".rmi") RV_F2I(".rpi")
  RV_I2F(".rn") RV_I2F(".rz") RV_I2F(".rm") RV_I2F(".rp")
  // Narrowing float->float.
  RV_FTZ_SAT(RV_EACH_RND, RV_UNARY, "cvt", ".f16.f32", H, F)
  RV_SAT(RV_EACH_RND, RV_UNARY, "cvt", ".f16.f64", H, D)
  RV_FTZ_SAT(RV_EACH_RND, RV_UNARY, "cvt", ".f32.f64", F, D)
  // Widening float->float (exact: no rounding modifier).
  RV_FTZ_SAT(RV_PLAIN, RV_UNARY, "cvt", ".f32.f16", F, H)
  RV_SAT(RV_PLAIN, RV_UNARY, "cvt", ".f64.f16", D, H)
  RV_FTZ_SAT(RV_PLAIN, RV_UNARY, "cvt", ".f64.f32", D, F)
  // Same size: rounding to an integral value, or only flushing / saturating.
  RV_SAT(RV_EACH_IRND, RV_UNARY, "cvt", ".f16.f16", H, H)
  RV_FTZ_SAT(RV_EACH_IRND, RV_UNARY, "cvt", ".f32.f32", F, F)
  RV_SAT(RV_EACH_IRND, RV_UNARY, "cvt", ".f64.f64", D, D)
  RV_UNARY("cvt.sat.f16.f16", H, H)
  RV_UNARY("cvt.ftz.f32.f32", F, F) RV_UNARY("cvt.sat.f32.f32", F, F) RV_UNARY("cvt.ftz.sat.f32.f32", F, F)
  RV_UNARY("cvt.sat.f64.f64", D, D)
  RV_BINARY("mul.hi.u32", R, R, R) RV_BINARY("mul.hi.s32", R, R, R)
  RV_BINARY("mul.wide.u32", L, R, R) RV_BINARY("mul.wide.s32", L, R, R)
  RV_BINARY("div.u32", R, R, R) RV_BINARY("div.s32", R, R, R)
  RV_BINARY("rem.u32", R, R, R) RV_BINARY("rem.s32", R, R, R)
  RV_BINARY("div.u64", L, L, L) RV_BINARY("div.s64", L, L, L)
  RV_BINARY("rem.u64", L, L, L) RV_BINARY("rem.s64", L, L, L)
  RV_UNARY("rcp.approx.f32", F, F) RV_UNARY("rcp.approx.ftz.f32", F, F)
  RV_UNARY("rsqrt.approx.f32", F, F) RV_UNARY("rsqrt.approx.ftz.f32", F, F)
  RV_UNARY("sin.approx.f32", F, F) RV_UNARY("sin.approx.ftz.f32", F, F)
  RV_UNARY("cos.approx.f32", F, F) RV_UNARY("cos.approx.ftz.f32", F, F)
  RV_UNARY("ex2.approx.f32", F, F) RV_UNARY("ex2.approx.ftz.f32", F, F)
  RV_UNARY("lg2.approx.f32", F, F) RV_UNARY("lg2.approx.ftz.f32", F, F)
  return forms;
}

// ---------------------------------------------------------------------------------------------
// Host side: input generation. The host FPU only builds inputs; it never decides a result.

// splitmix64: tiny, and the same stream on every compiler and library (std distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
  int range(int lo, int hi) {
    if (lo > hi) throw std::logic_error("empty range in an input generator");
    return lo + static_cast<int>(below(static_cast<uint64_t>(hi - lo + 1)));
  }
  bool coin() { return next() & 1; }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }

 private:
  uint64_t s_;
};

// An IEEE binary format, handled at the bit level so f16 needs no host type.
struct Format {
  int exp_bits, man_bits;
  int bits() const { return 1 + exp_bits + man_bits; }
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  int emin() const { return 1 - bias(); }
  int emax() const { return bias(); }
  uint64_t man_mask() const { return (uint64_t{1} << man_bits) - 1; }
  uint64_t all_ones_exp() const { return (uint64_t{1} << exp_bits) - 1; }
  uint64_t sign_bit() const { return uint64_t{1} << (bits() - 1); }
  uint64_t make(bool neg, uint64_t biased_exp, uint64_t man) const {
    return (neg ? sign_bit() : 0) | (biased_exp << man_bits) | (man & man_mask());
  }
  uint64_t inf(bool neg) const { return make(neg, all_ones_exp(), 0); }
  uint64_t max_finite(bool neg) const { return make(neg, all_ones_exp() - 1, man_mask()); }
  uint64_t pow2(int e, bool neg = false) const {  // exact 2^e, flushed to 0 / inf outside the range
    if (e > emax()) return inf(neg);
    if (e >= emin()) return make(neg, static_cast<uint64_t>(e + bias()), 0);
    const int shift = e - (emin() - man_bits);
    return shift < 0 ? make(neg, 0, 0) : make(neg, 0, uint64_t{1} << shift);
  }
  int exponent(uint64_t b) const {  // unbiased exponent of a finite nonzero value
    const auto e = static_cast<int>((b >> man_bits) & all_ones_exp());
    if (e != 0) return e - bias();
    return emin() - man_bits + std::bit_width(b & man_mask()) - 1;
  }
  // Nearest value toward zero (exact whenever v is representable, which is how it is used).
  uint64_t from_double(double v) const {
    const bool neg = std::signbit(v);
    if (std::isnan(v)) return make(neg, all_ones_exp(), uint64_t{1} << (man_bits - 1));
    v = std::fabs(v);
    if (std::isinf(v)) return inf(neg);
    if (v == 0) return make(neg, 0, 0);
    const int e = std::ilogb(v);
    if (e > emax()) return inf(neg);
    if (e >= emin()) {
      const double frac = std::ldexp(v, -e) - 1.0;
      return make(neg, static_cast<uint64_t>(e + bias()), static_cast<uint64_t>(std::ldexp(frac, man_bits)));
    }
    return make(neg, 0, static_cast<uint64_t>(std::ldexp(v, man_bits - emin())));
  }
  double to_double(uint64_t b) const {
    const bool neg = (b & sign_bit()) != 0;
    const uint64_t e = (b >> man_bits) & all_ones_exp(), m = b & man_mask();
    double v;
    if (e == all_ones_exp()) {
      v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    } else if (e == 0) {
      v = std::ldexp(static_cast<double>(m), emin() - man_bits);
    } else {
      v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -man_bits), static_cast<int>(e) - bias());
    }
    return neg ? -v : v;
  }
  // A random finite value with unbiased exponent in [lo, hi], clamped to the format (below emin:
  // a subnormal).
  uint64_t random(Rng& r, int lo, int hi) const {
    lo = std::clamp(lo, emin() - man_bits, emax());
    hi = std::clamp(hi, lo, emax());
    const int e = r.range(lo, hi);
    const bool neg = r.coin();
    if (e >= emin()) return make(neg, static_cast<uint64_t>(e + bias()), r.next());
    const int top = e - (emin() - man_bits);  // bit index of the leading one
    return make(neg, 0, (uint64_t{1} << top) | (r.next() & ((uint64_t{1} << top) - 1)));
  }
  uint64_t random_any(Rng& r) const { return random(r, emin() - man_bits, emax()); }
  uint64_t random_bits(Rng& r) const { return r.next() & (bits() == 64 ? ~uint64_t{0} : (uint64_t{1} << bits()) - 1); }
  // The neighbour k units in the last place away from zero (negative k: toward zero), staying finite.
  uint64_t step(uint64_t b, int64_t k) const {
    const uint64_t mag = b & ~sign_bit(), sign = b & sign_bit();
    const auto next = static_cast<int64_t>(mag) + k;
    const auto top = static_cast<int64_t>(max_finite(false));
    return sign | static_cast<uint64_t>(std::clamp<int64_t>(next, 0, top));
  }
  uint64_t neg(uint64_t b) const { return b ^ sign_bit(); }
};

constexpr Format kF16{5, 10}, kF32{8, 23}, kF64{11, 52};

const Format& format_of(const std::string& t) {
  if (t == "f16") return kF16;
  if (t == "f32") return kF32;
  if (t == "f64") return kF64;
  throw std::invalid_argument("not a float type: " + t);
}

using Case = std::array<uint64_t, 3>;
using Cases = std::vector<Case>;

std::vector<uint64_t> both_signs(const Format& f, std::vector<uint64_t> v) {
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(f.neg(v[i]));
  return v;
}

// NaNs: quiet with the default and with an odd payload, signalling with payloads, both signs.
std::vector<uint64_t> nans(const Format& f) {
  const uint64_t quiet = uint64_t{1} << (f.man_bits - 1), e = f.all_ones_exp();
  return both_signs(f, {f.make(false, e, quiet), f.make(false, e, quiet | 0x2A5), f.make(false, e, 1),
                        f.make(false, e, (quiet >> 1) | 0x155)});
}

// The values every floating-point family starts from.
std::vector<uint64_t> specials(const Format& f) {
  const uint64_t one = f.pow2(0);
  std::vector<uint64_t> v = both_signs(
      f, {0, 1, f.man_mask() >> 1, f.man_mask(), f.pow2(f.emin()), f.step(f.pow2(f.emin()), 1),
          f.max_finite(false), f.step(f.max_finite(false), -1), f.inf(false), one, f.step(one, 1),
          f.step(one, -1), f.pow2(1), f.pow2(-1), f.from_double(1.5), f.from_double(2.5), f.from_double(3.5),
          f.pow2(f.man_bits), f.step(f.pow2(f.man_bits), -1), f.pow2(f.man_bits + 1),
          f.step(f.pow2(f.man_bits + 1), 1), f.step(f.pow2(f.man_bits + 1), -1), f.pow2(f.emax() / 2)});
  for (uint64_t n : nans(f)) v.push_back(n);
  return v;
}

// A smaller set for all-pairs crosses: 28 values, 784 pairs.
std::vector<uint64_t> core(const Format& f) {
  const uint64_t one = f.pow2(0), quiet = uint64_t{1} << (f.man_bits - 1), e = f.all_ones_exp();
  std::vector<uint64_t> v = both_signs(
      f, {0, 1, f.man_mask(), f.pow2(f.emin()), f.max_finite(false), f.inf(false), one, f.step(one, 1),
          f.step(one, -1), f.from_double(1.5), f.pow2(f.man_bits + 1), f.from_double(3.0)});
  for (uint64_t n : {f.make(false, e, quiet | 0x2A5), f.make(true, e, quiet | 0x13), f.make(false, e, 5),
                     f.make(true, e, (quiet >> 1) | 3)})
    v.push_back(n);
  return v;
}

Cases cross2(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  Cases c;
  for (uint64_t x : a)
    for (uint64_t y : b) c.push_back({x, y, 0});
  return c;
}

// A significand with exactly k bits (leading and trailing one) scaled to exponent e.
uint64_t short_significand(const Format& f, Rng& r, int k, int e, bool neg) {
  uint64_t sig = k == 1 ? 1 : (uint64_t{1} << (k - 1)) | 1 | (r.next() & ((uint64_t{1} << (k - 1)) - 1));
  const double v = std::ldexp(static_cast<double>(sig), e - (k - 1));
  return f.from_double(neg ? -v : v);
}

// add/sub: rounding of the aligned sum, halfway cases, cancellation, subnormal and overflowing sums.
Cases add_inputs(const Format& f, Rng& r, int n) {
  Cases c = cross2(core(f), core(f));
  const std::vector<uint64_t> sp = specials(f);
  for (int i = 0; i < n; ++i) {
    uint64_t a = 0, b = 0;
    switch (i % 8) {
      case 0: {  // b = k/8 of a's ulp: below, at and above the halfway point
        a = f.random(r, f.emin() + f.man_bits + 4, f.emax() - 1);
        const int k = r.range(1, 15);
        const double v = std::ldexp(static_cast<double>(k), f.exponent(a) - f.man_bits - 3);
        b = f.from_double(r.coin() ? -v : v);
        break;
      }
      case 1: {  // around 2^(p): the first binade where whole numbers are spaced by 2
        a = f.step(f.pow2(f.man_bits + 1, r.coin()), r.range(-3, 3));
        static constexpr double kSmall[] = {0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5};
        const double v = kSmall[r.below(8)];
        b = f.from_double(r.coin() ? -v : v);
        break;
      }
      case 2:  // cancellation: b within a few ulps of -a
        a = f.random(r, f.emin() - 2, f.emax());
        b = f.neg(f.step(a, r.range(-3, 3)));
        break;
      case 3:  // tiny operands: subnormal sums and the flush-to-zero boundary
        a = f.random(r, f.emin() - f.man_bits, f.emin() + 1);
        b = f.random(r, f.emin() - f.man_bits, f.emin() + 1);
        break;
      case 4:  // near the top: overflow in each rounding mode
        a = f.random(r, f.emax() - 1, f.emax());
        b = f.random(r, f.emax() - f.man_bits - 2, f.emax());
        b = (b & ~f.sign_bit()) | (a & f.sign_bit());
        if (r.below(4) == 0) b = f.pow2(f.emax() - f.man_bits - r.range(0, 2), (a & f.sign_bit()) != 0);
        break;
      case 5: {  // exponents close enough that both operands contribute
        a = f.random_any(r);
        const int e = f.exponent(a) + r.range(-f.man_bits - 3, f.man_bits + 3);
        b = f.random(r, e, e);
        break;
      }
      case 6:
        a = f.random_bits(r);
        b = f.random_bits(r);
        break;
      default:  // a special value against a random one
        a = sp[r.below(sp.size())];
        b = f.random_any(r);
        break;
    }
    c.push_back({a, b, 0});
  }
  return c;
}

// mul: products whose exact value needs one or two bits more than the format (halfway cases),
// products near overflow and in the subnormal range, including the round-to-min-normal boundary.
Cases mul_inputs(const Format& f, Rng& r, int n) {
  Cases c = cross2(core(f), core(f));
  const std::vector<uint64_t> sp = specials(f);
  const int p = f.man_bits + 1;
  for (int i = 0; i < n; ++i) {
    uint64_t a = 0, b = 0;
    switch (i % 8) {
      case 0: {
        const int k1 = r.range(2, p - 1), k2 = std::clamp(p + r.range(-1, 2) - k1, 1, p);
        a = short_significand(f, r, k1, r.range(-20, 20), r.coin());
        b = short_significand(f, r, k2, r.range(-20, 20), r.coin());
        break;
      }
      case 1:
      case 2: {  // product exponent at the top or the bottom of the range
        const int target = i % 8 == 1 ? r.range(f.emax() - 2, f.emax() + 1)
                                      : r.range(f.emin() - f.man_bits - 3, f.emin() + 1);
        const int ea = r.range(std::max(f.emin(), target - f.emax()), std::min(f.emax(), target - f.emin()));
        a = f.random(r, ea, ea);
        b = f.random(r, target - ea, target - ea);
        break;
      }
      case 3: {  // (1 - k ulp) * 2^emin and friends: tininess before or after rounding
        a = f.step(f.pow2(0, r.coin()), r.range(-3, 2));
        b = f.step(f.pow2(f.emin() + r.range(-1, 1), r.coin()), r.range(0, 2));
        break;
      }
      case 4: {  // halfway-prone significands landing in the subnormal range
        const int k1 = r.range(2, p - 1), k2 = std::clamp(p + r.range(-1, 2) - k1, 1, p);
        const int target = r.range(f.emin() - f.man_bits - 1, f.emin());
        const int ea = r.range(f.emin(), target - f.emin());
        a = short_significand(f, r, k1, ea, r.coin());
        b = short_significand(f, r, k2, target - ea, r.coin());
        break;
      }
      case 5:
        a = sp[r.below(sp.size())];
        b = f.random_any(r);
        break;
      case 6:
        a = f.random_bits(r);
        b = f.random_bits(r);
        break;
      default:
        a = f.random(r, -f.emax() / 2, f.emax() / 2);
        b = f.random(r, -f.emax() / 2, f.emax() / 2);
        break;
    }
    c.push_back({a, b, 0});
  }
  return c;
}

// fma: the exact product matters. c = -round(a*b) leaves only the product's rounding error; a
// tiny c decides ties; products past the overflow or underflow boundaries come back with c.
template <class T, class Bits>
Cases fma_inputs(const Format& f, Rng& r, int n) {
  const std::vector<uint64_t> small = {0, f.neg(0), f.pow2(0), f.from_double(-1.5), 1, f.max_finite(false),
                                       f.inf(true), f.make(false, f.all_ones_exp(), uint64_t{1} << (f.man_bits - 1) | 7),
                                       f.make(true, f.all_ones_exp(), 9)};
  Cases c;
  for (uint64_t x : small)
    for (uint64_t y : small)
      for (uint64_t z : small) c.push_back({x, y, z});
  const auto as_t = [](uint64_t b) { return std::bit_cast<T>(static_cast<Bits>(b)); };
  const auto bits = [](T v) { return static_cast<uint64_t>(std::bit_cast<Bits>(v)); };
  const int p = f.man_bits + 1;
  for (int i = 0; i < n; ++i) {
    uint64_t a = f.random(r, -40, 40), b = f.random(r, -40, 40), z = 0;
    const T prod = as_t(a) * as_t(b);  // host rounding: only to build an input near the product
    switch (i % 8) {
      case 0:
        z = f.neg(bits(prod));
        break;
      case 1:
        z = f.step(f.neg(bits(prod)), r.range(-2, 2));
        break;
      case 2: {
        const int e = f.exponent(bits(prod)) - f.man_bits - r.range(1, 40);
        z = f.random(r, e, e);
        break;
      }
      case 3: {
        const int k1 = r.range(2, p - 1), k2 = std::clamp(p + r.range(-1, 1) - k1, 1, p);
        a = short_significand(f, r, k1, r.range(-10, 10), r.coin());
        b = short_significand(f, r, k2, r.range(-10, 10), r.coin());
        const int e = f.exponent(a) + f.exponent(b) - f.man_bits - r.range(1, 60);
        z = r.below(4) ? f.random(r, e, e) : 0;
        break;
      }
      case 4: {
        const int target = r.range(f.emax() - 1, f.emax() + 2);
        const int ea = r.range(target - f.emax(), f.emax());
        a = f.random(r, ea, ea);
        b = f.random(r, target - ea, target - ea);
        z = r.coin() ? f.max_finite(r.coin()) : f.random(r, f.emax() - 3, f.emax());
        break;
      }
      case 5: {
        const int target = r.range(f.emin() - f.man_bits - 2, f.emin() + 2);
        const int ea = r.range(f.emin(), target - f.emin());
        a = f.random(r, ea, ea);
        b = f.random(r, target - ea, target - ea);
        z = f.random(r, f.emin() - f.man_bits, f.emin() + 3);
        break;
      }
      case 6: {
        a = f.random_any(r);
        b = f.random_any(r);
        const int e = std::clamp(f.exponent(a) + f.exponent(b), f.emin() - f.man_bits, f.emax()) + r.range(-30, 30);
        z = f.random(r, e, e);
        break;
      }
      default:
        a = f.random_bits(r);
        b = f.random_bits(r);
        z = f.random_bits(r);
        break;
    }
    c.push_back({a, b, z});
  }
  return c;
}

// min/max and setp: every pair of the core values, equal and opposite pairs, random pairs.
Cases compare_inputs(const Format& f, Rng& r, int n) {
  Cases c = cross2(core(f), core(f));
  for (int i = 0; i < n; ++i) {
    const uint64_t a = i % 3 == 2 ? f.random_bits(r) : f.random_any(r);
    uint64_t b = f.random_any(r);
    if (i % 3 == 0) b = r.coin() ? a : f.neg(a);
    if (i % 3 == 1) b = f.step(a, r.range(-1, 1)) ^ (r.below(4) == 0 ? f.sign_bit() : 0);
    c.push_back({a, b, 0});
  }
  return c;
}

struct IntType {
  int bits;
  bool is_signed;
  // The 64-bit register value of x converted to this type (truncated, then extended).
  uint64_t extend(uint64_t x) const {
    if (bits == 64) return x;
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    x &= mask;
    if (is_signed && (x >> (bits - 1)) != 0) x |= ~mask;
    return x;
  }
  double lo() const { return is_signed ? -std::ldexp(1.0, bits - 1) : 0.0; }
  double hi_plus_one() const { return std::ldexp(1.0, is_signed ? bits - 1 : bits); }
};

IntType int_type_of(const std::string& t) {
  const bool s = t[0] == 's';
  if (t[0] != 's' && t[0] != 'u') throw std::invalid_argument("not an integer type: " + t);
  return {std::stoi(t.substr(1)), s};
}

const std::vector<IntType> kIntTypes = {{8, false}, {8, true}, {16, false}, {16, true},
                                        {32, false}, {32, true}, {64, false}, {64, true}};

// float -> integer: the saturation boundaries of every integer type, ties between integers, NaN.
Cases f2i_inputs(const Format& f, const IntType& t, Rng& r, int n) {
  Cases c;
  for (uint64_t v : specials(f)) c.push_back({v, 0, 0});
  for (const IntType& u : kIntTypes) {
    for (double edge : {u.lo(), u.hi_plus_one()}) {
      for (double d : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
        const uint64_t b = f.from_double(edge + d);
        for (int k = -1; k <= 1; ++k) c.push_back({f.step(b, k), 0, 0});
      }
    }
  }
  for (int k = -6; k <= 6; ++k) c.push_back({f.from_double(k + 0.5), 0, 0});
  for (int i = 0; i < n; ++i) {
    uint64_t v = 0;
    switch (i % 4) {
      case 0: {  // a whole number in the type's range plus a quarter, a half or three quarters
        const double whole = std::floor(t.lo() + (t.hi_plus_one() - t.lo()) * r.unit());
        v = f.from_double(whole + 0.25 * r.range(0, 3));
        break;
      }
      case 1:
        v = f.random(r, -3, t.bits + 1);
        break;
      case 2:  // halfway between integers where the format still has a bit for the half
        v = f.from_double(std::floor(std::ldexp(r.unit(), r.range(1, f.man_bits - 1))) + 0.5) ^
            (r.coin() ? f.sign_bit() : 0);
        break;
      default:
        v = f.random_bits(r);
        break;
    }
    c.push_back({v, 0, 0});
  }
  return c;
}

// integer -> float: ties of the destination precision, its overflow (f16) and every boundary of
// the source type. 8-bit sources are exhaustive.
Cases i2f_inputs(const IntType& t, const Format& f, Rng& r, int n) {
  Cases c;
  if (t.bits == 8) {
    for (uint64_t x = 0; x < 256; ++x) c.push_back({t.extend(x), 0, 0});
    return c;
  }
  const uint64_t top = uint64_t{1} << (t.bits - 1);
  for (uint64_t x : {uint64_t{0}, uint64_t{1}, ~uint64_t{0}, top, top - 1, top + 1, top - 2, uint64_t{2}})
    c.push_back({t.extend(x), 0, 0});
  for (int k = 1; k < t.bits; ++k) {
    for (int64_t d : {-1, 0, 1}) c.push_back({t.extend((uint64_t{1} << k) + static_cast<uint64_t>(d)), 0, 0});
  }
  const int p = f.man_bits + 1;
  for (int k = p; k < t.bits; ++k) {  // 2^k + half an ulp, with the neighbouring patterns
    const uint64_t half = uint64_t{1} << (k - p);
    for (uint64_t x : {half, half - 1, half + 1, 3 * half}) c.push_back({t.extend((uint64_t{1} << k) | x), 0, 0});
  }
  for (int64_t x : {65504, 65505, 65519, 65520, 65521, 65535, -65504, -65519, -65520, -65536})
    c.push_back({t.extend(static_cast<uint64_t>(x)), 0, 0});
  for (int i = 0; i < n; ++i) {
    const int len = r.range(1, t.bits);
    uint64_t x = r.next() & (len == 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1);
    if (i % 3 == 0) {  // a tie (or one off) at a random position
      const int k = r.range(std::min(p, t.bits - 1), t.bits - 1);
      const uint64_t half = uint64_t{1} << (k - std::min(p, k)), lead = uint64_t{1} << k;
      x = (x & (lead - 1) & ~((half << 1) - 1)) | half | lead;
      x += static_cast<uint64_t>(r.range(-1, 1));
    }
    c.push_back({t.extend(r.coin() && t.is_signed ? ~x + 1 : x), 0, 0});
  }
  return c;
}

// float -> float. Narrowing: ties of the destination precision, its overflow and subnormal
// ranges. Same size: ties between integers. Widening: subnormal sources. .sat: around 0 and 1.
Cases f2f_inputs(const Format& s, const Format& d, Rng& r, int n) {
  Cases c;
  for (uint64_t v : specials(s)) c.push_back({v, 0, 0});
  for (double v : {0.25, 0.5, 0.75, 1.0 + 0x1p-20, 1e-30, -1e-30, -0.5})
    c.push_back({s.from_double(v), 0, 0});
  const bool narrowing = d.man_bits < s.man_bits, same = d.man_bits == s.man_bits;
  const int shift = s.man_bits - d.man_bits;
  if (narrowing) {
    for (bool neg : {false, true}) {
      const uint64_t top = s.from_double(d.to_double(d.max_finite(neg)));
      const uint64_t tie = s.from_double(d.to_double(d.max_finite(neg)) + (neg ? -1 : 1) * std::ldexp(1.0, d.emax() - d.man_bits - 1));
      for (int k = -1; k <= 1; ++k) c.push_back({s.step(top, k), 0, 0}), c.push_back({s.step(tie, k), 0, 0});
      const uint64_t min_sub = s.pow2(d.emin() - d.man_bits, neg), half_sub = s.pow2(d.emin() - d.man_bits - 1, neg);
      for (int k = -1; k <= 1; ++k) c.push_back({s.step(min_sub, k), 0, 0}), c.push_back({s.step(half_sub, k), 0, 0});
      const uint64_t min_norm = s.pow2(d.emin(), neg);
      for (int k = -2; k <= 2; ++k) c.push_back({s.step(min_norm, k * (int64_t{1} << (shift - 1))), 0, 0});
    }
  }
  for (int i = 0; i < n; ++i) {
    uint64_t v = 0;
    if (narrowing && i % 4 < 2) {  // below-precision bits 100..0, 100..01, 011..1, 0..01 or random
      const int e = i % 4 == 0 ? r.range(d.emin(), d.emax()) : r.range(d.emin() - d.man_bits - 2, d.emin() + 1);
      v = s.random(r, e, e);
      const uint64_t half = uint64_t{1} << (shift - 1);
      static constexpr int kPatterns = 5;
      const uint64_t low[kPatterns] = {half, half | 1, half - 1, 1, r.next() & ((half << 1) - 1)};
      if (e >= d.emin()) v = (v & ~((half << 1) - 1)) | low[r.below(kPatterns)];
    } else if (same && i % 4 < 2) {  // ties and near-ties between whole numbers
      const double whole = std::floor(std::ldexp(r.unit(), r.range(0, s.man_bits - 1)));
      v = s.step(s.from_double(whole + 0.5), r.range(-1, 1)) ^ (r.coin() ? s.sign_bit() : 0);
    } else if (i % 4 == 2) {
      v = s.random(r, std::max(d.emin(), s.emin()) - d.man_bits - 2, std::min(d.emax(), s.emax()) + 1);
    } else {
      v = s.random_bits(r);
    }
    c.push_back({v, 0, 0});
  }
  return c;
}

// Integer multiply/divide: the signed/unsigned boundaries, zero divisors, INT_MIN / -1, and
// random operands of random lengths (so quotients of every size occur).
Cases int_inputs(int bits, Rng& r, int n) {
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1, top = uint64_t{1} << (bits - 1);
  std::vector<uint64_t> sp = {0, 1, 2, 3, 7, top - 1, top, top + 1, mask, mask - 1, mask - 6, 0xFFFF, 0x10000, 0x12345678};
  for (uint64_t& x : sp) x &= mask;
  Cases c = cross2(sp, sp);
  for (int i = 0; i < n; ++i) {
    const int la = r.range(1, bits), lb = i % 5 == 0 ? r.range(1, 4) : r.range(1, la);
    uint64_t a = r.next() & (la == 64 ? ~uint64_t{0} : (uint64_t{1} << la) - 1);
    uint64_t b = (r.next() & (lb == 64 ? ~uint64_t{0} : (uint64_t{1} << lb) - 1)) | (uint64_t{1} << (lb - 1));
    if (r.coin()) a = (~a + 1) & mask;
    if (r.coin()) b = (~b + 1) & mask;
    if (i % 17 == 0) b = 0;
    c.push_back({a, b, 0});
  }
  return c;
}

// SFU functions: dense inside the PTX accuracy domains, the full range around them, specials.
Cases sfu_inputs(const std::string& fn, Rng& r, int n) {
  const Format& f = kF32;
  Cases c;
  for (uint64_t v : specials(f)) c.push_back({v, 0, 0});
  const auto add = [&](double v) { c.push_back({std::bit_cast<uint32_t>(static_cast<float>(v)), 0, 0}); };
  const auto uniform = [&](double lo, double hi) { add(lo + (hi - lo) * r.unit()); };
  constexpr double kPi = std::numbers::pi;
  for (int i = 0; i < n; ++i) {
    const int kind = i % 8;
    if (kind == 7) {
      c.push_back({f.random_any(r), 0, 0});
    } else if (fn == "rcp" || fn == "rsqrt") {
      if (kind < 4) uniform(1.0, fn == "rcp" ? 2.0 : 4.0);
      else if (kind < 6) c.push_back({f.random(r, f.emin() - f.man_bits, f.emax()) & ~f.sign_bit(), 0, 0});
      else c.push_back({f.random(r, fn == "rcp" ? 124 : -140, fn == "rcp" ? 127 : -120), 0, 0});
    } else if (fn == "sin" || fn == "cos") {
      if (kind < 5) uniform(-2 * kPi, 2 * kPi);
      else if (kind == 5) add(r.range(-4, 4) * kPi / 2 + std::ldexp(r.unit() - 0.5, -r.range(4, 30)));
      else uniform(-100 * kPi, 100 * kPi);
    } else if (fn == "ex2") {
      if (kind < 2) uniform(-1, 1);
      else if (kind < 4) uniform(-126, 128);
      else if (kind == 4) uniform(-152, -125);
      else if (kind == 5) add(r.range(-150, 128) + std::ldexp(r.unit() - 0.5, -r.range(8, 30)));
      else uniform(-0x1p-10, 0x1p-10);
    } else {  // lg2
      if (kind < 4) uniform(0.5, 2.0);
      else if (kind == 4) c.push_back({f.step(f.pow2(0), r.range(-2000, 2000)), 0, 0});
      else if (kind == 5) c.push_back({f.random(r, f.emin() - f.man_bits, f.emin() + 2) & ~f.sign_bit(), 0, 0});
      else c.push_back({f.random(r, f.emin(), f.emax()) & ~f.sign_bit(), 0, 0});
    }
  }
  return c;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, sep);) out.push_back(t);
  return out;
}

bool is_modifier(const std::string& t) {
  static const std::vector<std::string> mods = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "NaN",
                                                "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu",
                                                "geu", "num", "nan", "approx"};
  return std::find(mods.begin(), mods.end(), t) != mods.end();
}

// Forms that differ only in rounding mode, .ftz, .sat, .NaN or comparison share one input set
// (seeded by this key), so the records show each modifier's effect on the same operands.
std::string input_key(const std::string& ptx) {
  std::string key;
  for (const std::string& t : split(ptx, '.'))
    if (!is_modifier(t)) key += (key.empty() ? "" : ".") + t;
  return key;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

constexpr uint64_t kSeed = 20240611;

Cases inputs_for(const std::string& ptx) {
  const std::string key = input_key(ptx);
  const std::vector<std::string> t = split(key, '.');
  Rng r(kSeed ^ fnv1a(key));
  const std::string& op = t[0];
  if (op == "add") return t[1] == "f32" ? add_inputs(kF32, r, 1700) : add_inputs(kF64, r, 900);
  if (op == "sub") return add_inputs(kF32, r, 500);
  if (op == "mul" && (t[1] == "f32" || t[1] == "f64")) return mul_inputs(format_of(t[1]), r, t[1] == "f32" ? 1700 : 900);
  if (op == "fma") return t[1] == "f32" ? fma_inputs<float, uint32_t>(kF32, r, 2000) : fma_inputs<double, uint64_t>(kF64, r, 1100);
  if (op == "min" || op == "max") return compare_inputs(kF32, r, 300);
  if (op == "setp") return compare_inputs(kF32, r, 150);
  if (op == "cvt") {
    const std::string &dst = t[1], &src = t[2];
    const bool src_float = src[0] == 'f', dst_float = dst[0] == 'f';
    if (src_float && !dst_float) return f2i_inputs(format_of(src), int_type_of(dst), r, 250);
    if (!src_float) return i2f_inputs(int_type_of(src), format_of(dst), r, 200);
    return f2f_inputs(format_of(src), format_of(dst), r, 300);
  }
  if (op == "mul" || op == "div" || op == "rem") {
    const int bits = std::stoi(t.back().substr(1));
    return int_inputs(bits, r, op == "mul" ? 800 : 1200);
  }
  if (op == "rcp" || op == "rsqrt" || op == "sin" || op == "cos" || op == "ex2" || op == "lg2")
    return sfu_inputs(op, r, 5000);
  throw std::invalid_argument("no inputs for " + ptx);
}

// Which data file holds a form: one per family, each well under 1.5 MB compressed.
std::string file_for(const std::string& ptx) {
  const std::vector<std::string> t = split(ptx, '.');
  const std::string& op = t[0];
  const std::string& type = t.back();
  if ((op == "add" || op == "sub") && type == "f32") return "f32_add";
  if (op == "mul" && type == "f32" && t[1] != "hi" && t[1] != "wide") return "f32_mul";
  if (op == "fma" && type == "f32") return "f32_fma";
  if (op == "min" || op == "max" || op == "setp") return "f32_compare";
  if (type == "f64" && op != "cvt") return "f64_arith";
  if (op == "cvt") {
    const std::string &dst = t[t.size() - 2], &src = t.back();
    if (src[0] == 'f' && dst[0] != 'f') return "cvt_f2i";
    if (src[0] != 'f') return "cvt_i2f";
    return "cvt_f2f";
  }
  if (op == "mul" || op == "div" || op == "rem") return "int";
  return "sfu";
}

// ---------------------------------------------------------------------------------------------
// Running and writing.


std::string driver_text() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  std::getline(f, line);
  line.erase(line.find_last_not_of(" \t") + 1);
  return line.empty() ? "unknown" : line;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

int run(const std::string& outdir) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  std::printf("GPU: %s (sm_%d%d), driver API %d, runtime %d\n", prop.name, prop.major, prop.minor, driver, runtime);

  const std::vector<Form> forms = all_forms();
  for (size_t i = 0; i < forms.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (forms[i].ptx == forms[j].ptx) throw std::logic_error("form listed twice: " + forms[i].ptx);
  std::map<std::string, std::unique_ptr<GzWriter>> writers;
  nlohmann::ordered_json per_form = nlohmann::ordered_json::object();
  std::map<std::string, uint64_t> per_file;
  uint64_t total = 0;
  uint64_t* d_in = nullptr;
  uint64_t* d_out = nullptr;
  size_t capacity = 0;
  for (const Form& form : forms) {
    const Cases cases = inputs_for(form.ptx);
    const int n = static_cast<int>(cases.size());
    if (cases.size() > capacity) {
      cudaFree(d_in);
      cudaFree(d_out);
      capacity = cases.size();
      check(cudaMalloc(&d_in, capacity * sizeof(Case)), "cudaMalloc");
      check(cudaMalloc(&d_out, capacity * sizeof(uint64_t)), "cudaMalloc");
    }
    check(cudaMemcpy(d_in, cases.data(), cases.size() * sizeof(Case), cudaMemcpyHostToDevice), "copy in");
    form.launch(d_in, d_out, n);
    check(cudaGetLastError(), form.ptx + ": launch");
    std::vector<uint64_t> out(cases.size());
    check(cudaMemcpy(out.data(), d_out, out.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost), form.ptx + ": run");

    const std::string file = file_for(form.ptx);
    auto& w = writers[file];
    if (!w) w = std::make_unique<GzWriter>(outdir + "/" + file + ".bin.gz");
    w->le(form.ptx.size(), 2);
    w->write(form.ptx.data(), form.ptx.size());
    w->le(form.in_widths.size(), 1);
    for (uint8_t iw : form.in_widths) w->le(iw, 1);
    w->le(form.out_width, 1);
    w->le(cases.size(), 4);
    for (size_t i = 0; i < cases.size(); ++i) {
      for (size_t k = 0; k < form.in_widths.size(); ++k) w->le(cases[i][k], form.in_widths[k]);
      w->le(out[i], form.out_width);
    }
    per_form[form.ptx] = cases.size();
    per_file[file] += cases.size();
    total += cases.size();
  }
  cudaFree(d_in);
  cudaFree(d_out);
  for (auto& [name, w] : writers) w->finish();

  nlohmann::ordered_json m;
  m["generator"] = "tests/refvec/refvec.cu";
  m["format"] = "TSMREFV1";
  m["seed"] = kSeed;
  m["date_utc"] = utc_now();
  m["gpu"] = prop.name;
  m["compute_capability"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  m["nvidia_driver"] = driver_text();
  m["cuda_driver_api_version"] = driver;
  m["cuda_runtime_version"] = runtime;
  m["nvcc_version"] = std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
                      std::to_string(__CUDACC_VER_BUILD__);
  m["total_cases"] = total;
  m["forms"] = forms.size();
  for (const auto& [file, count] : per_file) m["files"][file + ".bin.gz"] = count;
  m["cases_per_form"] = per_form;
  std::ofstream(outdir + "/MANIFEST.json") << m.dump(1) << "\n";
  std::printf("%zu forms, %llu cases in %zu files\n", forms.size(), static_cast<unsigned long long>(total), per_file.size());
  return 0;
}

}  // namespace refvec

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  try {
    return refvec::run(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
