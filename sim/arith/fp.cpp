// PTX floating-point operations and conversions on top of the soft-float core.
#include "arith/fp.hpp"

#include <initializer_list>

#include "arith/softfloat.hpp"

namespace tsm::fp {
namespace {

using soft::Format;
using soft::Kind;
using soft::Term;
using soft::Unpacked;
using soft::Wide;
using soft::kBinary16;
using soft::kBinary32;
using soft::kBinary64;

static_assert(kBinary16.canonical_nan() == kCanonicalNaN16 && kBinary32.canonical_nan() == kCanonicalNaN32 &&
              kBinary64.default_nan() == kDefaultNaN64);

Format format_of(Ftype t) {
  switch (t) {
    case Ftype::F16: return kBinary16;
    case Ftype::F32: return kBinary32;
    case Ftype::F64: return kBinary64;
  }
  return kBinary32;
}

/// The unit that executes an operation decides its NaN results (see fp.hpp).
enum class Unit { SP, DP };

/// The NaN result of an operation in format f: the SP unit's canonical NaN, or the DP unit's
/// first NaN among `by_priority`, quieted, or its default NaN when no operand is a NaN.
uint64_t nan_result(Format f, Unit unit, std::initializer_list<uint64_t> by_priority) {
  if (unit == Unit::SP) return f.canonical_nan();
  for (uint64_t x : by_priority) {
    if (soft::is_nan(f, x)) return x | f.quiet_bit();
  }
  return f.default_nan();
}

// ---- Arithmetic, generic over the format ----

uint64_t add(Format f, Unit unit, uint64_t a, uint64_t b, Rnd rnd, bool ftz) {
  const Unpacked x = soft::unpack(f, a);
  const Unpacked y = soft::unpack(f, b);
  if (x.kind == Kind::NaN || y.kind == Kind::NaN) return nan_result(f, unit, {b, a});
  if (x.kind == Kind::Inf && y.kind == Kind::Inf && x.term.negative != y.term.negative) {
    return nan_result(f, unit, {});
  }
  if (x.kind == Kind::Inf) return soft::signed_inf(f, x.term.negative);
  if (y.kind == Kind::Inf) return soft::signed_inf(f, y.term.negative);
  return soft::round_sum(f, x.term, y.term, rnd, ftz);
}

/// The exact product of two unpacked operands that are not NaN, or the kind of special value it is.
struct Product {
  Kind kind;
  Term term;
};

Product multiply(const Unpacked& x, const Unpacked& y) {
  const bool negative = x.term.negative != y.term.negative;
  const bool has_inf = x.kind == Kind::Inf || y.kind == Kind::Inf;
  const bool has_zero = x.kind == Kind::Zero || y.kind == Kind::Zero;
  if (has_inf) return {has_zero ? Kind::NaN : Kind::Inf, {negative, 0, 0}};
  if (has_zero) return {Kind::Zero, {negative, 0, 0}};
  return {Kind::Finite, {negative, x.term.sig * y.term.sig, x.term.exp + y.term.exp}};
}

uint64_t mul(Format f, Unit unit, uint64_t a, uint64_t b, Rnd rnd, bool ftz) {
  const Unpacked x = soft::unpack(f, a);
  const Unpacked y = soft::unpack(f, b);
  if (x.kind == Kind::NaN || y.kind == Kind::NaN) return nan_result(f, unit, {b, a});
  const Product p = multiply(x, y);
  if (p.kind == Kind::NaN) return nan_result(f, unit, {});
  if (p.kind == Kind::Inf) return soft::signed_inf(f, p.term.negative);
  return soft::round_term(f, p.term, rnd, ftz);
}

uint64_t fma(Format f, Unit unit, uint64_t a, uint64_t b, uint64_t c, Rnd rnd, bool ftz) {
  const Unpacked x = soft::unpack(f, a);
  const Unpacked y = soft::unpack(f, b);
  const Unpacked z = soft::unpack(f, c);
  // A NaN operand wins over an invalid inf * 0 or inf - inf.
  if (x.kind == Kind::NaN || y.kind == Kind::NaN || z.kind == Kind::NaN) return nan_result(f, unit, {b, c, a});
  const Product p = multiply(x, y);
  if (p.kind == Kind::NaN) return nan_result(f, unit, {});
  if (p.kind == Kind::Inf && z.kind == Kind::Inf && p.term.negative != z.term.negative) {
    return nan_result(f, unit, {});
  }
  if (p.kind == Kind::Inf) return soft::signed_inf(f, p.term.negative);
  if (z.kind == Kind::Inf) return soft::signed_inf(f, z.term.negative);
  return soft::round_sum(f, p.term, z.term, rnd, ftz);
}

/// Orders non-NaN bit patterns as min/max need them: numerically, with -0 below +0.
int64_t total_order_key(Format f, uint64_t bits) {
  const auto magnitude = static_cast<int64_t>(bits & ~f.sign_mask());
  return (bits & f.sign_mask()) != 0 ? -magnitude - 1 : magnitude;
}

/// Orders non-NaN bit patterns numerically: -0 equals +0.
int64_t numeric_key(Format f, uint64_t bits) {
  const auto magnitude = static_cast<int64_t>(bits & ~f.sign_mask());
  return (bits & f.sign_mask()) != 0 ? -magnitude : magnitude;
}

uint64_t min_or_max(Format f, Unit unit, uint64_t a, uint64_t b, bool nan, bool want_max) {
  const bool a_nan = soft::is_nan(f, a);
  const bool b_nan = soft::is_nan(f, b);
  if (a_nan || b_nan) {
    if (nan || (a_nan && b_nan)) return nan_result(f, unit, {b, a});
    return a_nan ? b : a;
  }
  const bool a_below = total_order_key(f, a) < total_order_key(f, b);
  return a_below != want_max ? a : b;
}

bool compare(Format f, Fcmp op, uint64_t a, uint64_t b) {
  const bool unordered = soft::is_nan(f, a) || soft::is_nan(f, b);
  const int64_t x = unordered ? 0 : numeric_key(f, a);
  const int64_t y = unordered ? 0 : numeric_key(f, b);
  switch (op) {
    case Fcmp::EQ: return !unordered && x == y;
    case Fcmp::NE: return !unordered && x != y;
    case Fcmp::LT: return !unordered && x < y;
    case Fcmp::LE: return !unordered && x <= y;
    case Fcmp::GT: return !unordered && x > y;
    case Fcmp::GE: return !unordered && x >= y;
    case Fcmp::EQU: return unordered || x == y;
    case Fcmp::NEU: return unordered || x != y;
    case Fcmp::LTU: return unordered || x < y;
    case Fcmp::LEU: return unordered || x <= y;
    case Fcmp::GTU: return unordered || x > y;
    case Fcmp::GEU: return unordered || x >= y;
    case Fcmp::NUM: return !unordered;
    case Fcmp::NAN_: return unordered;
  }
  return false;
}

// ---- binary32 modifiers ----

uint32_t f32_in(uint32_t bits, bool ftz) {
  return static_cast<uint32_t>(ftz ? soft::flush_subnormal_input(kBinary32, bits) : bits);
}

uint32_t f32_out(uint64_t bits, bool sat) {
  return static_cast<uint32_t>(sat ? soft::saturate(kBinary32, bits) : bits);
}

// ---- Conversions ----

struct IntType {
  int bits;
  bool is_signed;
};

IntType int_type_of(Itype t) {
  switch (t) {
    case Itype::U8: return {8, false};
    case Itype::S8: return {8, true};
    case Itype::U16: return {16, false};
    case Itype::S16: return {16, true};
    case Itype::U32: return {32, false};
    case Itype::S32: return {32, true};
    case Itype::U64: return {64, false};
    case Itype::S64: return {64, true};
  }
  return {32, true};
}

__extension__ typedef __int128 WideSigned;

/// `value` as the API returns integers: its low `type.bits` bits, sign- or zero-extended.
uint64_t extend(WideSigned value, IntType type) {
  const int unused_bits = 64 - type.bits;
  const uint64_t aligned = static_cast<uint64_t>(value) << unused_bits;
  return type.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(aligned) >> unused_bits) : aligned >> unused_bits;
}

/// The integral term's value clamped to the integer type.
uint64_t saturate_to_int(const Term& integral, IntType type) {
  // Anything of 2^65 or more saturates every type, so larger exponents need not be shifted.
  const Wide magnitude = integral.exp < 65 ? integral.sig << integral.exp : Wide{1} << 65;
  const auto value = integral.negative ? -static_cast<WideSigned>(magnitude) : static_cast<WideSigned>(magnitude);
  const WideSigned max = type.is_signed ? (WideSigned{1} << (type.bits - 1)) - 1 : (WideSigned{1} << type.bits) - 1;
  const WideSigned min = type.is_signed ? -(WideSigned{1} << (type.bits - 1)) : 0;
  return extend(value < min ? min : value > max ? max : value, type);
}

/// A NaN source of f2f in format `to` (see fp.hpp): only the DP unit converts payloads.
uint64_t converted_nan(Format from, Format to, uint64_t bits, Unit unit) {
  return unit == Unit::DP ? soft::convert_nan(from, to, bits) : to.canonical_nan();
}

}  // namespace

uint32_t add_f32(uint32_t a, uint32_t b, Rnd rnd, bool ftz, bool sat) {
  return f32_out(add(kBinary32, Unit::SP, f32_in(a, ftz), f32_in(b, ftz), rnd, ftz), sat);
}

uint32_t mul_f32(uint32_t a, uint32_t b, Rnd rnd, bool ftz, bool sat) {
  return f32_out(mul(kBinary32, Unit::SP, f32_in(a, ftz), f32_in(b, ftz), rnd, ftz), sat);
}

uint32_t fma_f32(uint32_t a, uint32_t b, uint32_t c, Rnd rnd, bool ftz, bool sat) {
  return f32_out(fma(kBinary32, Unit::SP, f32_in(a, ftz), f32_in(b, ftz), f32_in(c, ftz), rnd, ftz), sat);
}

uint32_t min_f32(uint32_t a, uint32_t b, bool ftz, bool nan) {
  return static_cast<uint32_t>(min_or_max(kBinary32, Unit::SP, f32_in(a, ftz), f32_in(b, ftz), nan, false));
}

uint32_t max_f32(uint32_t a, uint32_t b, bool ftz, bool nan) {
  return static_cast<uint32_t>(min_or_max(kBinary32, Unit::SP, f32_in(a, ftz), f32_in(b, ftz), nan, true));
}

bool cmp_f32(Fcmp op, uint32_t a, uint32_t b, bool ftz) {
  return compare(kBinary32, op, f32_in(a, ftz), f32_in(b, ftz));
}

uint64_t add_f64(uint64_t a, uint64_t b, Rnd rnd) { return add(kBinary64, Unit::DP, a, b, rnd, false); }
uint64_t mul_f64(uint64_t a, uint64_t b, Rnd rnd) { return mul(kBinary64, Unit::DP, a, b, rnd, false); }
uint64_t fma_f64(uint64_t a, uint64_t b, uint64_t c, Rnd rnd) {
  return fma(kBinary64, Unit::DP, a, b, c, rnd, false);
}
uint64_t min_f64(uint64_t a, uint64_t b, bool nan) { return min_or_max(kBinary64, Unit::DP, a, b, nan, false); }
uint64_t max_f64(uint64_t a, uint64_t b, bool nan) { return min_or_max(kBinary64, Unit::DP, a, b, nan, true); }
bool cmp_f64(Fcmp op, uint64_t a, uint64_t b) { return compare(kBinary64, op, a, b); }

uint64_t f2i(uint64_t src, Ftype sfmt, Itype dtype, Rnd rnd, bool ftz) {
  const Format f = format_of(sfmt);
  const IntType type = int_type_of(dtype);
  uint64_t bits = src & f.value_mask();
  if (ftz && sfmt == Ftype::F32) bits = soft::flush_subnormal_input(f, bits);
  const Unpacked x = soft::unpack(f, bits);
  if (x.kind == Kind::NaN) {
    // Measured: the SP unit's converter gives 0, the binary64 and 64-bit converters the
    // integer with only its top bit set.
    const bool sp_converter = sfmt != Ftype::F64 && type.bits <= 32;
    return sp_converter ? 0 : extend(WideSigned{1} << (type.bits - 1), type);
  }
  // Infinity saturates like any value too large for 64 bits.
  const Term value = x.kind == Kind::Inf ? Term{x.term.negative, 1, 65} : x.term;
  return saturate_to_int(soft::round_to_integral(value, rnd), type);
}

uint64_t i2f(uint64_t src, Itype stype, Ftype dfmt, Rnd rnd) {
  const IntType type = int_type_of(stype);
  const uint64_t extended = extend(static_cast<WideSigned>(src), type);
  const bool negative = type.is_signed && static_cast<int64_t>(extended) < 0;
  // Negating as unsigned gives the magnitude of every negative value, INT64_MIN included.
  const uint64_t magnitude = negative ? 0 - extended : extended;
  // An integer zero converts to +0 in every rounding mode.
  return soft::round_term(format_of(dfmt), {negative, magnitude, 0}, rnd, false);
}

uint64_t f2f(uint64_t src, Ftype sfmt, Ftype dfmt, Rnd rnd, bool rint, bool ftz, bool sat) {
  const Format from = format_of(sfmt);
  const Format to = format_of(dfmt);
  const Unit unit = sfmt == Ftype::F64 || dfmt == Ftype::F64 ? Unit::DP : Unit::SP;
  // cvt.ftz.f16.f32 flushes nothing (measured); elsewhere .ftz acts on binary32 inputs and results.
  const bool ftz_in = ftz && sfmt == Ftype::F32 && dfmt != Ftype::F16;
  const bool ftz_out = ftz && dfmt == Ftype::F32;
  uint64_t bits = src & from.value_mask();
  if (ftz_in) {
    bits = soft::flush_subnormal_input(from, bits);
    // With .ftz the DP unit receives binary32 NaNs already made canonical (measured).
    if (soft::is_nan(from, bits)) bits = from.canonical_nan();
  }
  const Unpacked x = soft::unpack(from, bits);
  uint64_t result = 0;
  switch (x.kind) {
    case Kind::NaN: result = converted_nan(from, to, bits, unit); break;
    case Kind::Inf: result = soft::signed_inf(to, x.term.negative); break;
    case Kind::Zero:
    case Kind::Finite: {
      const Term value = rint ? soft::round_to_integral(x.term, rnd) : x.term;
      result = soft::round_term(to, value, rnd, ftz_out);
      break;
    }
  }
  return sat ? soft::saturate(to, result) : result;
}

}  // namespace tsm::fp
