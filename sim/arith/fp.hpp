// The golden model's floating-point arithmetic (PTX add/mul/fma/min/max/setp/cvt), bit-exact to NVIDIA GPUs.
//
// Values are raw IEEE-754 bit patterns: binary16 in the low 16 bits, binary32 as uint32_t,
// binary64 as uint64_t. Everything is computed by the soft-float core in softfloat.hpp on
// integers, never by the host FPU, so the golden model is not circular with the host that tests
// it. docs/floating-point.md describes the semantics and lists the hardware behaviour assumed.
#pragma once

#include <cstdint>

#include "tsm/isa_gen.hpp"

namespace tsm::fp {

using isa::gen::Fcmp;
using isa::gen::Ftype;
using isa::gen::Itype;
using isa::gen::Rnd;

// NaN results (measured on NVIDIA hardware, docs/floating-point.md): operations on binary16 and
// binary32 alone return the canonical NaN of their result format and never propagate payloads;
// operations with a binary64 operand or result (the DP unit) return their NaN operand, quieted
// and converted, and the default NaN when an invalid operation (inf - inf, 0 * inf) creates one.
inline constexpr uint16_t kCanonicalNaN16 = 0x7FFF;
inline constexpr uint32_t kCanonicalNaN32 = 0x7FFFFFFF;
inline constexpr uint64_t kDefaultNaN64 = 0xFFF8000000000000;

// binary32. `ftz` flushes subnormal inputs, and results that are tiny after rounding, to zero of
// the same sign; `sat` clamps the result to [+0.0, 1.0] and turns NaN into +0.0.
uint32_t add_f32(uint32_t a, uint32_t b, Rnd rnd, bool ftz, bool sat);
uint32_t mul_f32(uint32_t a, uint32_t b, Rnd rnd, bool ftz, bool sat);
/// a * b + c with a single rounding.
uint32_t fma_f32(uint32_t a, uint32_t b, uint32_t c, Rnd rnd, bool ftz, bool sat);
/// PTX min/max.f32: one NaN input returns the other input, two give the canonical NaN; with
/// `nan` any NaN input gives the canonical NaN; -0.0 orders below +0.0.
uint32_t min_f32(uint32_t a, uint32_t b, bool ftz, bool nan);
uint32_t max_f32(uint32_t a, uint32_t b, bool ftz, bool nan);
/// PTX setp.cmp.f32.
bool cmp_f32(Fcmp op, uint32_t a, uint32_t b, bool ftz);

// binary64 (the DP unit): subnormals always supported. Of several NaN operands, add and mul
// return b, fma returns b, then c, then a (quieted).
uint64_t add_f64(uint64_t a, uint64_t b, Rnd rnd);
uint64_t mul_f64(uint64_t a, uint64_t b, Rnd rnd);
uint64_t fma_f64(uint64_t a, uint64_t b, uint64_t c, Rnd rnd);
/// One NaN input returns the other input; two return b, quieted. `nan` (beyond PTX, which has no
/// min.NaN.f64) returns the NaN operand, b first, quieted.
uint64_t min_f64(uint64_t a, uint64_t b, bool nan);
uint64_t max_f64(uint64_t a, uint64_t b, bool nan);
bool cmp_f64(Fcmp op, uint64_t a, uint64_t b);

// Conversions (PTX cvt). Source bits above the source format's width are ignored. Integer
// results are sign-extended (signed types) or zero-extended (unsigned types) to 64 bits; float
// results are zero-extended. `ftz` acts only on binary32 operands, as PTX defines it, and not at
// all on binary32 -> binary16 (measured).

/// cvt.rni/rzi/rmi/rpi[.ftz].dtype.sfmt: rounds to an integral value in mode `rnd`, then
/// saturates to the range of `dtype`. NaN converts to 0 when a binary16/binary32 value becomes an
/// integer of at most 32 bits, otherwise (binary64 source or 64-bit integer) to the integer with
/// only its top bit set: 0x80, 0x8000, 0x80000000 or 0x8000000000000000 (measured).
uint64_t f2i(uint64_t src, Ftype sfmt, Itype dtype, Rnd rnd, bool ftz);
/// cvt.rn/rz/rm/rp.dfmt.stype: the integer in the low bits of `src`, correctly rounded.
uint64_t i2f(uint64_t src, Itype stype, Ftype dfmt, Rnd rnd);
/// cvt between float formats, correctly rounded in mode `rnd`. With `rint` (cvt.rni/rzi/rmi/rpi,
/// which PTX allows between equal formats only) the value is first rounded to an integral value in
/// mode `rnd`. `sat` as for add_f32.
uint64_t f2f(uint64_t src, Ftype sfmt, Ftype dfmt, Rnd rnd, bool rint, bool ftz, bool sat);

}  // namespace tsm::fp
