// Soft-float core of the golden model: IEEE-754 formats, unpacking, exact sums and the single
// round-and-pack routine that every operation of every format ends in.
//
// An operation unpacks its operands into integer significands and exponents, computes the exact
// result on integers (a sum is exact up to a sticky bit far below the rounding point), and hands
// it to round_pack(), which rounds once in the requested mode, handles subnormals, flush to zero
// and overflow, and encodes the bits. Special values (zero, infinity, NaN) are dealt with by the
// operation.
#pragma once

#include <cstdint>

#include "tsm/isa_gen.hpp"

namespace tsm::fp::soft {

using isa::gen::Rnd;

// 128 bits hold the exact product of two binary64 significands (106 bits) with room to add.
__extension__ typedef unsigned __int128 Wide;

/// An IEEE-754 binary interchange format, described by its field widths.
struct Format {
  int exp_bits;
  int frac_bits;

  constexpr int bias() const { return (1 << (exp_bits - 1)) - 1; }
  /// Exponent of the smallest normal number (2^min_exp).
  constexpr int min_exp() const { return 1 - bias(); }
  constexpr int max_biased_exp() const { return (1 << exp_bits) - 1; }
  /// All bits of an encoding (binary64: all 64, where a shift by the width would be undefined).
  constexpr uint64_t value_mask() const {
    const int width = exp_bits + frac_bits + 1;
    return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  }
  constexpr uint64_t sign_mask() const { return uint64_t{1} << (exp_bits + frac_bits); }
  constexpr uint64_t frac_mask() const { return (uint64_t{1} << frac_bits) - 1; }
  /// The top fraction bit, set in quiet NaNs.
  constexpr uint64_t quiet_bit() const { return uint64_t{1} << (frac_bits - 1); }
  constexpr uint64_t inf() const { return uint64_t(max_biased_exp()) << frac_bits; }
  constexpr uint64_t max_finite() const { return inf() - 1; }
  constexpr uint64_t one() const { return uint64_t(bias()) << frac_bits; }
  /// All exponent and fraction bits set, sign clear: 0x7FFF, 0x7FFFFFFF, ...
  constexpr uint64_t canonical_nan() const { return sign_mask() - 1; }
  /// Negative quiet NaN with an empty payload: 0xFFF8000000000000 for binary64.
  constexpr uint64_t default_nan() const { return sign_mask() | inf() | quiet_bit(); }
};

inline constexpr Format kBinary16{5, 10};
inline constexpr Format kBinary32{8, 23};
inline constexpr Format kBinary64{11, 52};

/// A finite value (-1)^negative * sig * 2^exp; sig == 0 is a zero of that sign.
struct Term {
  bool negative = false;
  Wide sig = 0;
  int exp = 0;
};

enum class Kind { Zero, Finite, Inf, NaN };

struct Unpacked {
  Kind kind;
  /// Valid for every kind but NaN; for Zero and Finite the value itself (sig == 0 for Zero).
  Term term;
};

Unpacked unpack(Format f, uint64_t bits);

inline bool is_nan(Format f, uint64_t bits) { return (bits & ~f.sign_mask()) > f.inf(); }
inline bool is_subnormal(Format f, uint64_t bits) {
  return (bits & f.inf()) == 0 && (bits & f.frac_mask()) != 0;
}
inline uint64_t signed_zero(Format f, bool negative) { return negative ? f.sign_mask() : 0; }
inline uint64_t signed_inf(Format f, bool negative) { return signed_zero(f, negative) | f.inf(); }

/// .ftz on an input: a subnormal becomes a zero of the same sign.
uint64_t flush_subnormal_input(Format f, uint64_t bits);
/// .sat: clamp to [+0.0, 1.0]; NaN and -0.0 become +0.0.
uint64_t saturate(Format f, uint64_t bits);

/// The NaN `bits` of format `from` as a quiet NaN of format `to`: same sign, quiet bit set, and
/// the payload's most significant bits kept (truncated when narrowing, zero-filled when widening).
uint64_t convert_nan(Format from, Format to, uint64_t bits);

/// Whether .ftz flushes the nonzero result (-1)^negative * sig * 2^exp to zero. NVIDIA GPUs flush
/// a result that is tiny in IEEE 754's "after rounding" sense: rounded to the format's precision
/// with an unbounded exponent range, it is still below the smallest normal number (measured,
/// docs/floating-point.md). This is the one place that decides it.
bool is_tiny_for_ftz(Format f, bool negative, Wide sig, int exp, Rnd rnd);

/// Rounds (-1)^negative * sig * 2^exp (sig != 0) to format f in mode rnd and encodes it,
/// subnormal and overflowing results included; with `ftz`, a tiny result (is_tiny_for_ftz) becomes
/// a zero of its sign. The lowest bit of sig may be a sticky bit (set when nonzero bits were shifted
/// out below it), as long as it lies below the rounding position.
uint64_t round_pack(Format f, bool negative, Wide sig, int exp, Rnd rnd, bool ftz);

/// Rounds the finite term to format f; a zero term gives the zero of its sign.
uint64_t round_term(Format f, const Term& t, Rnd rnd, bool ftz);

/// x + y rounded once to format f, with IEEE's sign rule for a zero sum: an exact zero from
/// operands of opposite signs is +0, or -0 when rounding toward -infinity.
uint64_t round_sum(Format f, Term x, Term y, Rnd rnd, bool ftz);

/// The integral value nearest to t in direction rnd (ties to even for RN); keeps t's sign.
Term round_to_integral(const Term& t, Rnd rnd);

}  // namespace tsm::fp::soft
