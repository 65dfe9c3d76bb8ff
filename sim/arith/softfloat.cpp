// Soft-float core: unpacking, the one round-and-pack routine, exact sums and rounding to integers.
#include "arith/softfloat.hpp"

#include <algorithm>
#include <bit>
#include <initializer_list>
#include <utility>

namespace tsm::fp::soft {
namespace {

constexpr int kWideBits = 128;

int bit_width(Wide x) {
  const auto high = static_cast<uint64_t>(x >> 64);
  return high != 0 ? 64 + std::bit_width(high) : std::bit_width(static_cast<uint64_t>(x));
}

/// x shifted right by `shift` bits, with the bit just below the kept ones (the round bit) and
/// whether any bit below that one was set (sticky).
struct Shifted {
  Wide kept;
  bool round_bit;
  bool sticky;
};

Shifted shift_right_for_rounding(Wide x, int shift) {
  if (shift <= 0) return {x << -shift, false, false};
  const Wide kept = shift < kWideBits ? x >> shift : 0;
  const int round_pos = shift - 1;
  const bool round_bit = round_pos < kWideBits && ((x >> round_pos) & 1) != 0;
  const Wide below_round = round_pos < kWideBits ? x & ((Wide{1} << round_pos) - 1) : x;
  return {kept, round_bit, below_round != 0};
}

/// x shifted right with every shifted-out bit ORed into the lowest bit ("jamming"), so the result
/// still tells rounding that the value was inexact.
Wide shift_right_jam(Wide x, int shift) {
  if (shift == 0) return x;
  if (shift >= kWideBits) return x != 0 ? 1 : 0;
  return (x >> shift) | ((x & ((Wide{1} << shift) - 1)) != 0 ? 1 : 0);
}

/// The one rounding decision every rounding here uses: whether to add one unit in the last kept
/// place.
bool rounds_up(Rnd rnd, bool negative, bool lsb, bool round_bit, bool sticky) {
  switch (rnd) {
    case Rnd::RN: return round_bit && (sticky || lsb);
    case Rnd::RZ: return false;
    case Rnd::RM: return negative && (round_bit || sticky);
    case Rnd::RP: return !negative && (round_bit || sticky);
  }
  return false;
}

/// An overflowing result is infinity when the mode rounds away from zero on its side, otherwise
/// the largest finite number.
uint64_t overflow_result(Format f, bool negative, Rnd rnd) {
  const bool to_inf = rnd == Rnd::RN || (rnd == Rnd::RP && !negative) || (rnd == Rnd::RM && negative);
  return signed_zero(f, negative) | (to_inf ? f.inf() : f.max_finite());
}

}  // namespace

Unpacked unpack(Format f, uint64_t bits) {
  const bool negative = (bits & f.sign_mask()) != 0;
  const int biased_exp = static_cast<int>((bits >> f.frac_bits) & uint64_t(f.max_biased_exp()));
  const uint64_t frac = bits & f.frac_mask();
  if (biased_exp == f.max_biased_exp()) return {frac != 0 ? Kind::NaN : Kind::Inf, {negative, 0, 0}};
  if (biased_exp == 0) {
    if (frac == 0) return {Kind::Zero, {negative, 0, 0}};
    return {Kind::Finite, {negative, frac, f.min_exp() - f.frac_bits}};
  }
  const uint64_t sig = frac | (uint64_t{1} << f.frac_bits);
  return {Kind::Finite, {negative, sig, biased_exp - f.bias() - f.frac_bits}};
}

uint64_t flush_subnormal_input(Format f, uint64_t bits) {
  return is_subnormal(f, bits) ? signed_zero(f, (bits & f.sign_mask()) != 0) : bits;
}

uint64_t saturate(Format f, uint64_t bits) {
  if (is_nan(f, bits) || (bits & f.sign_mask()) != 0) return 0;
  return std::min(bits, f.one());
}

uint64_t convert_nan(Format from, Format to, uint64_t bits) {
  const uint64_t payload = bits & from.frac_mask();
  const uint64_t moved = to.frac_bits >= from.frac_bits ? payload << (to.frac_bits - from.frac_bits)
                                                        : payload >> (from.frac_bits - to.frac_bits);
  return signed_zero(to, (bits & from.sign_mask()) != 0) | to.inf() | to.quiet_bit() | moved;
}

bool is_tiny_for_ftz(Format f, bool negative, Wide sig, int exp, Rnd rnd) {
  const int lead_exp = exp + bit_width(sig) - 1;
  if (lead_exp >= f.min_exp()) return false;
  if (lead_exp < f.min_exp() - 1) return true;
  // In the binade just below 2^min_exp the value is tiny unless rounding it to frac_bits + 1
  // significant bits carries up to 2^min_exp.
  const Shifted s = shift_right_for_rounding(sig, lead_exp - f.frac_bits - exp);
  const Wide rounded = s.kept + (rounds_up(rnd, negative, (s.kept & 1) != 0, s.round_bit, s.sticky) ? 1 : 0);
  return (rounded >> (f.frac_bits + 1)) == 0;
}

uint64_t round_pack(Format f, bool negative, Wide sig, int exp, Rnd rnd, bool ftz) {
  if (ftz && is_tiny_for_ftz(f, negative, sig, exp, rnd)) return signed_zero(f, negative);
  // Exponent of the leading bit, then the weight of the last bit the result keeps: frac_bits
  // below the leading bit, but never below the last bit of the subnormals.
  const int lead_exp = exp + bit_width(sig) - 1;
  const int quantum_exp = std::max(lead_exp - f.frac_bits, f.min_exp() - f.frac_bits);
  const Shifted s = shift_right_for_rounding(sig, quantum_exp - exp);
  const auto kept = static_cast<uint64_t>(s.kept);
  const uint64_t mant = kept + (rounds_up(rnd, negative, (kept & 1) != 0, s.round_bit, s.sticky) ? 1 : 0);
  // mant carries the implicit bit, so adding it to (biased exponent - 1) << frac_bits encodes
  // normals and subnormals alike (subnormals have quantum_exp + frac_bits + bias - 1 == 0), and
  // a carry out of the fraction (or out of the subnormals) moves into the exponent by itself.
  const int64_t biased_exp_minus_one = int64_t{quantum_exp} + f.frac_bits + f.bias() - 1;
  if (biased_exp_minus_one + int64_t(mant >> f.frac_bits) >= f.max_biased_exp()) {
    return overflow_result(f, negative, rnd);
  }
  return signed_zero(f, negative) | ((uint64_t(biased_exp_minus_one) << f.frac_bits) + mant);
}

uint64_t round_term(Format f, const Term& t, Rnd rnd, bool ftz) {
  return t.sig == 0 ? signed_zero(f, t.negative) : round_pack(f, t.negative, t.sig, t.exp, rnd, ftz);
}

uint64_t round_sum(Format f, Term x, Term y, Rnd rnd, bool ftz) {
  if (x.sig == 0 && y.sig == 0) {
    const bool negative = x.negative == y.negative ? x.negative : rnd == Rnd::RM;
    return signed_zero(f, negative);
  }
  if (x.sig == 0) return round_term(f, y, rnd, ftz);
  if (y.sig == 0) return round_term(f, x, rnd, ftz);

  // Put both leading bits at bit 125: the sum then fits (bit 127 stays free for the carry), and
  // when the exponents differ the smaller term loses bits only far below any rounding position,
  // which jamming them into its lowest bit accounts for exactly.
  constexpr int kLeadBit = kWideBits - 3;
  for (Term* t : {&x, &y}) {
    const int shift = kLeadBit + 1 - bit_width(t->sig);
    t->sig <<= shift;
    t->exp -= shift;
  }
  if (x.exp < y.exp || (x.exp == y.exp && x.sig < y.sig)) std::swap(x, y);
  y.sig = shift_right_jam(y.sig, x.exp - y.exp);
  if (x.negative == y.negative) return round_pack(f, x.negative, x.sig + y.sig, x.exp, rnd, ftz);
  const Wide difference = x.sig - y.sig;
  if (difference == 0) return signed_zero(f, rnd == Rnd::RM);
  return round_pack(f, x.negative, difference, x.exp, rnd, ftz);
}

Term round_to_integral(const Term& t, Rnd rnd) {
  if (t.exp >= 0) return t;
  const Shifted s = shift_right_for_rounding(t.sig, -t.exp);
  const bool up = rounds_up(rnd, t.negative, (s.kept & 1) != 0, s.round_bit, s.sticky);
  return {t.negative, s.kept + (up ? 1 : 0), 0};
}

}  // namespace tsm::fp::soft
