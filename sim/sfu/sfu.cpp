// SFU golden model: argument preparation, the shared quadratic interpolator and the final rounding,
// all in integer arithmetic exactly as the RTL computes them (docs/sfu.md is the specification).
#include "sfu/sfu.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

#include "tsm/sfu_tables_gen.hpp"

namespace tsm::sfu {
namespace {

namespace g = gen;

constexpr uint32_t kCanonicalNan = 0x7FFF'FFFFu;
constexpr uint32_t kInfBits = 0x7F80'0000u;
constexpr uint32_t kSignBit = 0x8000'0000u;
constexpr uint32_t kOneBits = 0x3F80'0000u;
constexpr int kFracBits = 23;      // binary32 fraction field
constexpr int kMinLsbExp = -149;   // weight of the last bit of a subnormal
constexpr int kIndexMask = (1 << g::kIndexBits) - 1;

// The argument layouts below (docs/sfu.md) put every significand bit under the index into u.
static_assert(g::kUBits >= kFracBits + 1 - g::kIndexBits, "rsq's u must hold the significand below its index");
static_assert(g::kInvTwoPiBits + kFracBits + 1 <= 64, "the 1/2pi product must fit 64 bits");
static_assert(g::kEx2FracBits + g::kEx2SaturateExp < 62, "ex2's fixed-point argument must fit 64 bits");

constexpr uint64_t low_bits(int n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }
// Shifts of a barrel shifter: bits shifted past the end are gone (C++ shifts of >= 64 are undefined).
constexpr uint64_t shift_right(uint64_t v, int n) { return n >= 64 ? 0 : v >> n; }
constexpr uint64_t shift_left(uint64_t v, int n) { return n >= 64 ? 0 : v << n; }

enum class Kind { Zero, Finite, Inf, Nan };

// A decoded input. Finite values are normalized: value = sig * 2^(exp - 23), sig in [2^23, 2^24),
// subnormals included (the RTL counts leading zeros first); with ftz a subnormal is Zero.
struct Operand {
  Kind kind;
  bool neg;
  int exp;
  uint32_t sig;
};

Operand decode(uint32_t x, bool ftz) {
  const bool neg = (x & kSignBit) != 0;
  const int field = static_cast<int>((x >> kFracBits) & 0xFF);
  const uint32_t frac = x & static_cast<uint32_t>(low_bits(kFracBits));
  if (field == 0xFF) return {frac != 0 ? Kind::Nan : Kind::Inf, neg, 0, 0};
  if (field != 0) return {Kind::Finite, neg, field - 127, frac | (1u << kFracBits)};
  if (frac == 0 || ftz) return {Kind::Zero, neg, 0, 0};
  const int shift = std::countl_zero(frac) - (31 - kFracBits);
  return {Kind::Finite, neg, -126 - shift, frac << shift};
}

// y = C0 + floor(C1*u / 2^k1) + floor(C2*sq / 2^k2), sq = floor(u*u / 2^k): the one interpolator
// every function runs on. y has kC0Frac fraction bits.
int64_t interpolate(Mufu func, uint32_t index, uint32_t u) {
  const auto& c = g::kTables[static_cast<size_t>(g::kTableOf[static_cast<size_t>(func)])][index];
  const auto sq = static_cast<int64_t>((uint64_t{u} * u) >> g::kSquareShift);
  return c.c0 + ((int64_t{c.c1} * u) >> g::kC1Shift) + ((int64_t{c.c2} * sq) >> g::kC2Shift);
}

// The final step shared by all functions: (-1)^neg * y * 2^scale rounded to binary32, to nearest
// with ties away from zero (only the first dropped bit is needed), with subnormal results,
// overflow to infinity, and ftz flushing subnormal results. A negative y flips the sign.
uint32_t round_pack(bool neg, int64_t y, int scale, bool ftz) {
  if (y < 0) {
    neg = !neg;
    y = -y;
  }
  const uint32_t sign = neg ? kSignBit : 0;
  const auto mag = static_cast<uint64_t>(y);
  if (mag == 0) return sign;
  const int top = 63 - std::countl_zero(mag);
  const int lsb = std::max(top + scale - kFracBits, kMinLsbExp);  // weight of the result's last bit
  const int drop = lsb - scale;
  const uint64_t sig = drop <= 0 ? mag << -drop : (shift_right(mag, drop - 1) + 1) >> 1;
  // The exponent field is lsb + 150 for normal results (sig has its leading one at bit 23) and 0
  // for subnormals (lsb = -149, sig < 2^23); adding sig carries a rounding overflow into it.
  const int64_t bits = (int64_t{lsb - kMinLsbExp} << kFracBits) + static_cast<int64_t>(sig);
  if (bits >= kInfBits) return sign | kInfBits;
  if (ftz && bits < (int64_t{1} << kFracBits)) return sign;
  return sign | static_cast<uint32_t>(bits);
}

// Significand bits under a kIndexBits index, left-aligned into u.
constexpr int kRcpLowBits = kFracBits - g::kIndexBits;

uint32_t rcp(Mufu func, const Operand& a, bool ftz) {
  const uint32_t sign = a.neg ? kSignBit : 0;
  switch (a.kind) {
    case Kind::Nan: return kCanonicalNan;
    case Kind::Inf: return sign;
    case Kind::Zero: return sign | kInfBits;
    case Kind::Finite: break;
  }
  const uint32_t index = (a.sig >> kRcpLowBits) & kIndexMask;
  const auto u = static_cast<uint32_t>((a.sig & low_bits(kRcpLowBits)) << (g::kUBits - kRcpLowBits));
  // y ~ 2/M, so 1/x = y * 2^(-exp-1).
  return round_pack(a.neg, interpolate(func, index, u), -a.exp - 1 - g::kC0Frac, ftz);
}

uint32_t rsq(Mufu func, const Operand& a, bool ftz) {
  if (a.kind == Kind::Nan || (a.neg && a.kind != Kind::Zero)) return kCanonicalNan;
  if (a.kind == Kind::Zero) return (a.neg ? kSignBit : 0) | kInfBits;
  if (a.kind == Kind::Inf) return 0;
  // The index is {exponent parity, top kIndexBits-1 fraction bits}: an odd exponent moves one
  // factor 2 into the significand (X = 2M in [2, 4)) so that the exponent halves exactly.
  constexpr int kLowBits = kFracBits - (g::kIndexBits - 1);
  const auto odd = static_cast<uint32_t>(a.exp & 1);
  const uint32_t index = (odd << (g::kIndexBits - 1)) | ((a.sig >> kLowBits) & (kIndexMask >> 1));
  const auto u = static_cast<uint32_t>((a.sig & low_bits(kLowBits)) << (g::kUBits - kLowBits));
  // y ~ 2/sqrt(X), x = X * 2^(exp-odd): 1/sqrt(x) = y * 2^(-(exp-odd)/2 - 1).
  const int half_exp = (a.exp - static_cast<int>(odd)) / 2;
  return round_pack(false, interpolate(func, index, u), -half_exp - 1 - g::kC0Frac, ftz);
}

uint32_t ex2(Mufu func, const Operand& a, bool ftz) {
  switch (a.kind) {
    case Kind::Nan: return kCanonicalNan;
    case Kind::Inf: return a.neg ? 0 : kInfBits;
    case Kind::Zero: return kOneBits;
    case Kind::Finite: break;
  }
  if (a.exp >= g::kEx2SaturateExp) return a.neg ? 0 : kInfBits;
  // x in fixed point with kEx2FracBits fraction bits, rounded toward minus infinity for either
  // sign (a negative x with dropped bits takes one more LSB), so the true fraction always lies in
  // [f, f + 1 LSB): the table is fitted to the middle of that step.
  const int shift = a.exp - kFracBits + g::kEx2FracBits;
  uint64_t magnitude = 0;
  bool sticky = false;
  if (shift >= 0) {
    magnitude = uint64_t{a.sig} << shift;
  } else {
    magnitude = shift_right(a.sig, -shift);
    sticky = (a.sig & low_bits(-shift)) != 0;
  }
  const int64_t fixed = a.neg ? -static_cast<int64_t>(magnitude + (sticky ? 1 : 0)) : static_cast<int64_t>(magnitude);
  const int64_t n = fixed >> g::kEx2FracBits;  // floor(x)
  const uint64_t f = static_cast<uint64_t>(fixed) & low_bits(g::kEx2FracBits);
  const auto index = static_cast<uint32_t>(f >> g::kUBits);
  const auto u = static_cast<uint32_t>(f & low_bits(g::kUBits));
  // y ~ 2^f: 2^x = y * 2^n.
  return round_pack(false, interpolate(func, index, u), static_cast<int>(n) - g::kC0Frac, ftz);
}

uint32_t lg2(Mufu func, const Operand& a, bool ftz) {
  if (a.kind == Kind::Nan || (a.neg && a.kind != Kind::Zero)) return kCanonicalNan;
  if (a.kind == Kind::Zero) return kSignBit | kInfBits;
  if (a.kind == Kind::Inf) return kInfBits;
  const uint32_t index = (a.sig >> kRcpLowBits) & kIndexMask;
  const auto u = static_cast<uint32_t>((a.sig & low_bits(kRcpLowBits)) << (g::kUBits - kRcpLowBits));
  // For M >= 1.5 the table holds log2(M) - 1 and the exponent takes the 1: x in [0.75, 1) then
  // needs no -1 + (almost 1) cancellation, and the result near x = 1 is the table value itself.
  const int upper = index >= (3u << (g::kIndexBits - 2)) ? 1 : 0;
  const int64_t r = (int64_t{a.exp + upper} << g::kC0Frac) + interpolate(func, index, u);
  return round_pack(false, r, -g::kC0Frac, ftz);
}

uint32_t sin_cos(Mufu func, uint32_t x, const Operand& a, bool ftz) {
  const bool is_sin = func == Mufu::SIN;
  switch (a.kind) {
    case Kind::Nan:
    case Kind::Inf: return kCanonicalNan;
    case Kind::Zero: return is_sin ? (a.neg ? kSignBit : 0) : kOneBits;
    case Kind::Finite: break;
  }
  if (is_sin && a.exp < g::kSinBypassExp) return x;
  // t = |x| / 2pi in turns, mod 1, floor to kTurnBits fraction bits: the exact product
  // sig * K weighs 2^(exp - 23 - kInvTwoPiFrac); a window of it is the turn. Past |x| = 2^53 or so
  // the window lies above the product and t = 0 (documented; PTX specifies only [-2pi, 2pi]).
  const uint64_t product = uint64_t{a.sig} * g::kInvTwoPi;
  const int shift = a.exp - kFracBits - g::kInvTwoPiFrac + g::kTurnBits;
  const uint64_t turn = (shift >= 0 ? shift_left(product, shift) : shift_right(product, -shift)) &
                        low_bits(g::kTurnBits);
  constexpr int kQuadrantShift = g::kTurnBits - 2;
  // cos(2pi t) = sin(2pi (t + 1/4)): COS is SIN one quadrant on.
  const auto quadrant = static_cast<uint32_t>((turn >> kQuadrantShift) + (is_sin ? 0 : 1)) & 3;
  uint64_t v = turn & low_bits(kQuadrantShift);
  // Odd quadrants run backwards: sin(pi/2 (1 - v)). The one's complement maps each truncation
  // step of v onto a step, so the tables' midpoint fit holds for both directions.
  if ((quadrant & 1) != 0) v = ~v & low_bits(kQuadrantShift);
  const auto index = static_cast<uint32_t>(v >> g::kUBits);
  const auto u = static_cast<uint32_t>(v & low_bits(g::kUBits));
  const bool neg = (quadrant >= 2) != (is_sin && a.neg);
  return round_pack(neg, interpolate(func, index, u), -g::kC0Frac, ftz);
}

}  // namespace

uint32_t evaluate(Mufu func, uint32_t x, bool ftz) {
  const Operand a = decode(x, ftz);
  switch (func) {
    case Mufu::RCP: return rcp(func, a, ftz);
    case Mufu::RSQ: return rsq(func, a, ftz);
    case Mufu::SIN:
    case Mufu::COS: return sin_cos(func, x, a, ftz);
    case Mufu::EX2: return ex2(func, a, ftz);
    case Mufu::LG2: return lg2(func, a, ftz);
  }
  throw std::invalid_argument(fmt::format("MUFU function {} does not exist", static_cast<int>(func)));
}

}  // namespace tsm::sfu
