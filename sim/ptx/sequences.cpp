// The sequence library: each PTX operation without a native instruction, written once as native
// assembly with placeholders. Why each algorithm is exact, and what it costs, is in
// docs/lowering-sequences.md; tests/sequences runs every body on the golden model.
#include "ptx/sequences.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace tsm::ptx {
namespace {

using Kind = Placeholder::Kind;

Placeholder reg(const char* name) { return {name, Kind::Reg}; }
Placeholder pair(const char* name) { return {name, Kind::Pair}; }
Placeholder pred(const char* name) { return {name, Kind::Pred}; }

/// Every occurrence of `from` in `s` replaced by `to`.
std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// A body template with "$FTZ" where the .ftz variant adds the modifier.
std::string with_ftz(std::string_view body, bool ftz) { return replace_all(std::string(body), "$FTZ", ftz ? ".FTZ" : ""); }

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The placeholder names a body uses ("%t3", "%w0" ...), without ".lo"/".hi" and labels.
std::set<std::string> names_in(std::string_view body) {
  std::set<std::string> names;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '%') continue;
    size_t j = i + 1;
    while (j < body.size() && is_ident_char(body[j])) ++j;
    const std::string name(body.substr(i, j - i));
    if (name.size() > 1 && name[1] != 'L') names.insert(name);
    i = j - 1;
  }
  return names;
}

/// A sequence whose temps are every placeholder of the body that is not an input or output: "%tN"
/// registers, "%wN" pairs, "%pN" predicates.
Sequence make(std::string name, std::vector<Placeholder> in, std::vector<Placeholder> out, std::string body) {
  std::set<std::string> known;
  for (const auto& p : in) known.insert(p.name);
  for (const auto& p : out) known.insert(p.name);
  std::vector<Placeholder> temps;
  for (const auto& n : names_in(body)) {
    if (known.count(n)) continue;
    const Kind k = n[1] == 't' ? Kind::Reg : n[1] == 'w' ? Kind::Pair : n[1] == 'p' ? Kind::Pred
                 : throw std::logic_error("sequence " + name + ": unknown placeholder " + n);
    temps.push_back({n, k});
  }
  // Natural order: %t2 before %t10.
  std::sort(temps.begin(), temps.end(), [](const Placeholder& x, const Placeholder& y) {
    return std::make_pair(x.name.substr(0, 2), std::stoi(x.name.substr(2))) <
           std::make_pair(y.name.substr(0, 2), std::stoi(y.name.substr(2)));
  });
  return {std::move(name), std::move(in), std::move(out), std::move(temps), std::move(body)};
}

// ---- binary32 division, reciprocal, square root ------------------------------------------------

// Constants (raw binary32 bits, usable as FP immediates since their low 12 bits are zero):
// 0f00800000 = 2^-126, 0f01000000 = 2^-125, 0f0D800000 = 2^-100, 0f7E800000 = 2^126,
// 0f4B800000 = 2^24, 0f4F800000 = 2^32, 0f5F800000 = 2^64, 0f2F800000 = 2^-32.

/// The general case of a / b for any operands (zeros, infinities, NaN, subnormals, results that
/// overflow or underflow): leaves the quotient in %d. `a` and `b` name the operands, written $A and
/// $B in the template (rcp passes a temp holding 1.0 as `a`). Uses %t0..%t7 and %p0..%p2; reads a
/// and b before it writes %d.
std::string div_slow_path(std::string_view a, std::string_view b, bool ftz) {
  std::string s = R"(
    // special operands: a or b is 0, inf or NaN; the quotient is then a*b or a*(1/b)
    FSETP.EQ$FTZ.AND %p0, PT, |$B|, 0, PT
    FSETP.GEU$FTZ.OR %p0, PT, |$B|, inf, %p0            // p0: b is 0, inf or NaN
    FSETP.EQ$FTZ.OR %p1, PT, |$A|, 0, %p0
    FSETP.GEU$FTZ.OR %p1, PT, |$A|, inf, %p1            // p1: a or b is 0, inf or NaN
    MOV %t4, $B
@%p0 MUFU.RCP$FTZ %t4, $B                               // exact for b = 0, inf, NaN
    FMUL$FTZ %t4, $A, %t4
    // normalize: ma = |a|, mb = |b| with exponent 0, in [1, 2); D = exponent(a) - exponent(b)
    MOV %t7, 127
)";
  if (!ftz) {
    s += R"(
    FSETP.LT.AND %p0, PT, |$A|, 0f00800000, PT          // subnormal a: scale by 2^24 first
    MOV %t0, $A
@%p0 FMUL %t0, $A, 0f4B800000
    BFE.U32 %t5, %t0, 0x817
@%p0 IADD %t5, %t5, -24
    BFI %t0, %t7, 0x917, %t0
    FSETP.LT.AND %p0, PT, |$B|, 0f00800000, PT
    MOV %t1, $B
@%p0 FMUL %t1, $B, 0f4B800000
    BFE.U32 %t6, %t1, 0x817
@%p0 IADD %t6, %t6, -24
    BFI %t1, %t7, 0x917, %t1
)";
  } else {  // subnormal operands were flushed to zero above: a and b are normal here
    s += R"(
    BFE.U32 %t5, $A, 0x817
    BFI %t0, %t7, 0x917, $A
    BFE.U32 %t6, $B, 0x817
    BFI %t1, %t7, 0x917, $B
)";
  }
  s += R"(
    IADD %t5, %t5, -%t6
    FSETP.LT.AND %p0, PT, %t0, %t1, PT
@%p0 FADD %t0, %t0, %t0                                // ma < mb: Q = ma/mb into [1, 2)
@%p0 IADD %t5, %t5, -1
    // qn = RN(Q) as in the fast path, then the exact residual tells where Q lies
    MUFU.RCP %t2, %t1
    MOV32I %t7, 0x3F800000
    FFMA %t3, -%t1, %t2, %t7
    FFMA %t2, %t2, %t3, %t2
    FMUL %t3, %t0, %t2
    FFMA %t6, -%t1, %t3, %t0
    FFMA %t3, %t2, %t6, %t3
    FFMA %t6, -%t1, %t3, %t0
    FFMA %t3, %t2, %t6, %t3                              // qn in [1, 2]
    FFMA %t6, -%t1, %t3, %t0                             // ma - mb*qn, exact
    // normal result: qn * 2^D by exponent arithmetic; overflow: inf
    BFE.U32 %t0, %t3, 0x817
    IADD %t0, %t0, %t5                                   // biased exponent of the result
    SHL %t1, %t5, 23
    IADD %t1, %t3, %t1
    ISETP.GT.S32.AND %p0, PT, %t0, 254, PT
@%p0 MOV32I %t1, 0x7F800000
    ISETP.LT.S32.AND %p2, PT, %t0, 1, PT                 // p2: the result is below 2^-126
)";
  if (!ftz) {
    s += R"(
    // subnormal result: N = RN(Q * 2^(D+149)) ulps of 2^-149, from qz = RZ(Q) and the sticky bit
    FSETP.LT.AND %p0, PT, %t6, 0, PT
@%p0 IADD %t3, %t3, -1                                 // qz: qn one ulp down if Q < qn
    FSETP.NE.AND %p0, PT, %t6, 0, PT                     // p0: inexact, qz < Q < qz + ulp
    IADD %t0, %t5, 277
    SHL %t0, %t0, 23                                     // 2^(D+150) (+0 for D = -277)
@!%p0 FMUL %t2, %t3, %t0
@!%p0 FMUL %t2, %t2, 0.5
@!%p0 F2I.U32.F32.RN %t2, %t2                          // exact: ties to even
@%p0 FFMA.RZ %t2, %t3, %t0, %t7
@%p0 F2I.U32.F32.RZ %t2, %t2
@%p0 SHR.U32 %t2, %t2, 1                               // inexact: floor(Q*2^(D+149) + 1/2)
@%p2 MOV %t1, %t2
)";
  } else {
    s += R"(
@%p2 MOV %t1, RZ                                       // .ftz: flushed (tiny after rounding)
)";
  }
  s += R"(
    LOP.XOR %t0, $A, $B
    BFI %t1, %t1, 0x1F00, %t0                            // sign of a*b
    SEL %d, %t4, %t1, %p1
)";
  s = replace_all(std::move(s), "$A", a);
  s = replace_all(std::move(s), "$B", b);
  return with_ftz(s, ftz);
}

Sequence div_rn(bool ftz) {
  std::string body = R"(
    SSY %L1
    MUFU.RCP %t0, %b
    MOV32I %t1, 0x3F800000
    FFMA %t1, -%b, %t0, %t1
    FFMA %t0, %t0, %t1, %t0                              // y = RN(1/b)
    FMUL %t2, %a, %t0                                    // q0
    FFMA %t3, -%b, %t2, %a
    FFMA %t2, %t0, %t3, %t2                              // q1, within one ulp
    FFMA %t3, -%b, %t2, %a                               // a - b*q1, exact
    FSETP.GE.AND %p0, PT, |%b|, 0f00800000, PT
    FSETP.LT.AND %p0, PT, |%b|, 0f7E800000, %p0          // 2^-126 <= |b| < 2^126
    FSETP.GE.AND %p0, PT, |%a|, 0f0D800000, %p0          // |a| >= 2^-100
    FSETP.GE.AND %p0, PT, |%t2|, 0f01000000, %p0
    FSETP.LT.AND %p0, PT, |%t2|, 0f7E800000, %p0         // 2^-125 <= |q1| < 2^126
@!%p0 BRA %L0
    FFMA %d, %t0, %t3, %t2                               // RN(a/b)
    SYNC
%L0:)";
  body += div_slow_path("%a", "%b", ftz);
  body += R"(
    SYNC
%L1:
)";
  return make(ftz ? "div.rn.ftz.f32" : "div.rn.f32", {reg("%a"), reg("%b")}, {reg("%d")}, body);
}

Sequence rcp_rn(bool ftz) {
  std::string body = R"(
    SSY %L1
    MUFU.RCP %t0, %a
    MOV32I %t1, 0x3F800000
    FFMA %t1, -%a, %t0, %t1
    FSETP.GE.AND %p0, PT, |%a|, 0f00800000, PT
    FSETP.LT.AND %p0, PT, |%a|, 0f7E800000, %p0          // 2^-126 <= |a| < 2^126
@!%p0 BRA %L0
    FFMA %d, %t0, %t1, %t0                               // RN(1/a)
    SYNC
%L0:
    MOV32I %t8, 0x3F800000)";
  body += div_slow_path("%t8", "%a", ftz);
  body += R"(
    SYNC
%L1:
)";
  return make(ftz ? "rcp.rn.ftz.f32" : "rcp.rn.f32", {reg("%a")}, {reg("%d")}, body);
}

/// sqrt.rn (and sqrt.approx, which it satisfies): branch-free.
Sequence sqrt_rn(const char* name, bool ftz) {
  const std::string body = with_ftz(R"(
    FSETP.LT$FTZ.AND %p0, PT, |%a|, 0f0D800000, PT      // |a| < 2^-100 (zeros, subnormals)
@%p0 FMUL$FTZ %t0, %a, 0f5F800000                       // scaled by 2^64
@!%p0 MOV %t0, %a
    FSETP.EQ$FTZ.AND %p1, PT, %a, 0, PT
    FSETP.EQ.OR %p1, PT, %a, inf, %p1                   // p1: a is +-0 or +inf: the result is a
    MUFU.RSQ %t1, %t0
    FMUL %t2, %t0, %t1                                   // s = x*rsqrt(x)
    FMUL %t3, %t1, 0.5                                   // h = rsqrt(x)/2
    FFMA %t1, -%t2, %t2, %t0                             // x - s*s
    FFMA %d, %t1, %t3, %t2                               // RN(sqrt(x))
@%p0 FMUL %d, %d, 0f2F800000                            // undo the scaling: 2^-32, exact
@%p1 MOV %d, %t0
)",
                                    ftz);
  return make(name, {reg("%a")}, {reg("%d")}, body);
}

Sequence div_approx(bool ftz) {
  // PTX: a * (1/b), 2 ulp for |b| in [2^-126, 2^126]; for |b| in (2^126, 2^128) the result is 0
  // (NaN for infinite a), which the flushing reciprocal gives. Without .ftz a subnormal divisor is
  // scaled into range first, both operands by 2^24, as ptxas does for sm_90.
  std::string body;
  if (!ftz) {
    body = R"(
    FSETP.LT.AND %p0, PT, |%b|, 0f00800000, PT
    MOV %t0, %a
    MOV %t1, %b
@%p0 FMUL %t0, %a, 0f4B800000
@%p0 FMUL %t1, %b, 0f4B800000
    MUFU.RCP.FTZ %t1, %t1
    FMUL %d, %t0, %t1
)";
  } else {
    body = R"(
    MUFU.RCP.FTZ %t0, %b
    FMUL.FTZ %d, %a, %t0
)";
  }
  return make(ftz ? "div.approx.ftz.f32" : "div.approx.f32", {reg("%a"), reg("%b")}, {reg("%d")}, body);
}

Sequence div_full(bool ftz) {
  std::string body = R"(
    FSETP.GT.AND %p0, PT, |%b|, 0f7E800000, PT          // |b| > 2^126: scale both by 1/4
    MOV %t0, %a
    MOV %t1, %b
@%p0 FMUL %t0, %a, 0.25
@%p0 FMUL %t1, %b, 0.25
)";
  if (!ftz) {
    body += R"(
    FSETP.LT.AND %p1, PT, |%b|, 0f00800000, PT          // subnormal b: scale both by 2^24
@%p1 FMUL %t0, %a, 0f4B800000
@%p1 FMUL %t1, %b, 0f4B800000
)";
  }
  body += with_ftz(R"(
    MUFU.RCP$FTZ %t1, %t1
    FMUL$FTZ %d, %t0, %t1
)",
                   ftz);
  return make(ftz ? "div.full.ftz.f32" : "div.full.f32", {reg("%a"), reg("%b")}, {reg("%d")}, body);
}

Sequence mufu(const char* name, const char* func, bool ftz) {
  return make(name, {reg("%a")}, {reg("%d")}, std::string("\n    MUFU.") + func + (ftz ? ".FTZ" : "") + " %d, %a\n");
}

// ---- integer division ----------------------------------------------------------------------

/// Unsigned 32-bit n / d ($N, $D in the template) for d != 0: quotient in %t2, remainder in %t3.
/// A reciprocal estimate y0 <= 2^32/d from the SFU, one integer Newton step, q = hi(n*y1), then
/// at most two corrections.
std::string udiv32_core(std::string_view n, std::string_view d, bool need_q, bool need_r) {
  std::string s = R"(
    I2F.F32.U32.RP %t0, $D
    MUFU.RCP %t0, %t0
    FMUL %t0, %t0, 0f4F800000
    IADD %t0, %t0, -2                                    // two ulps down: below 2^32/d
    F2I.U32.F32.RZ %t0, %t0                              // y0 <= 2^32/d, relative error < 2^-21
    IADD %t1, RZ, -$D
    IMUL.LO.U32 %t2, %t1, %t0                            // 2^32 - d*y0
    IMAD.HI.U32 %t0, %t0, %t2, %t0                       // y1 = y0 + hi(y0*(2^32 - d*y0)) <= 2^32/d
    IMUL.HI.U32 %t2, $N, %t0                              // q in [n/d - 2, n/d]
    IMAD.LO.U32 %t3, %t2, %t1, $N                         // r = n - q*d
    ISETP.GE.U32.AND %p0, PT, %t3, $D, PT
@%p0 IADD %t2, %t2, 1
@%p0 IADD %t3, %t3, %t1
    ISETP.GE.U32.AND %p0, PT, %t3, $D, PT
)";
  if (need_q) s += "@%p0 IADD %t2, %t2, 1\n";
  if (need_r) s += "@%p0 IADD %t3, %t3, %t1\n";
  s = replace_all(std::move(s), "$N", n);
  return replace_all(std::move(s), "$D", d);
}

Sequence divrem32(bool rem, bool is_signed) {
  std::string body;
  if (is_signed) {
    body += R"(
    IADD %t4, RZ, -%a
    IMNMX.MAX.S32 %t4, %a, %t4                           // |a| (INT_MIN: 2^31 as unsigned)
    IADD %t5, RZ, -%b
    IMNMX.MAX.S32 %t5, %b, %t5                           // |b|)";
    body += udiv32_core("%t4", "%t5", !rem, rem);
    body += rem ? R"(
    ISETP.LT.S32.AND %p0, PT, %a, 0, PT                  // the remainder has the dividend's sign
@%p0 IADD %t3, RZ, -%t3
)"
                : R"(
    LOP.XOR %t4, %a, %b
    ISETP.LT.S32.AND %p0, PT, %t4, 0, PT
@%p0 IADD %t2, RZ, -%t2
)";
  } else {
    body += udiv32_core("%a", "%b", !rem, rem);
  }
  body += rem ? R"(
    ISETP.EQ.U32.AND %p0, PT, %b, 0, PT
    SEL %d, %t3, -1, !%p0                                // remainder by 0: all ones
)"
              : R"(
    ISETP.EQ.U32.AND %p0, PT, %b, 0, PT
    SEL %d, %t2, -1, !%p0                                // x / 0 = all ones
)";
  const std::string name = std::string(rem ? "rem" : "div") + (is_signed ? ".s32" : ".u32");
  return make(name, {reg("%a"), reg("%b")}, {reg("%d")}, body);
}

/// Unsigned 64-bit n / d ($N, $D: pairs) for d != 0: quotient in %w1, remainder in %w3. Each
/// step adds q' = floor(float(r) * y) <= r/d with y < 1/d (relative error < 2^-20.5 in all), so
/// r/d drops from < 2^64 to < 2^43.5 + 1, 2^23 + 2, 6.7, 1.00001; one correction finishes.
std::string udiv64_core(std::string_view n, std::string_view d, bool need_q, bool need_r) {
  std::string s = R"(
    I2F.F32.U64.RP %t0, $D
    MUFU.RCP %t0, %t0
    IADD %t0, %t0, -2                                    // y < 1/d
    I2F.F32.U64.RZ %t1, $N
    FMUL.RZ %t1, %t1, %t0
    F2I.U64.F32.RZ %w1, %t1                              // q = floor(n*y)
    IMUL.WIDE.U32 %w2, %w1.lo, $D.lo
    IMAD.LO.U32 %w2.hi, %w1.lo, $D.hi, %w2.hi
    IMAD.LO.U32 %w2.hi, %w1.hi, $D.lo, %w2.hi             // q*d mod 2^64 (= q*d <= n)
    IADD.CC %w3.lo, $N.lo, -%w2.lo, %p0
    IADD.X %w3.hi, $N.hi, -%w2.hi, %p0                    // r = n - q*d
)";
  for (int step = 0; step < 3; ++step) {
    s += R"(
    I2F.F32.U64.RZ %t1, %w3
    FMUL.RZ %t1, %t1, %t0
    F2I.U64.F32.RZ %w0, %t1                              // q' = floor(r*y)
    IMUL.WIDE.U32 %w2, %w0.lo, $D.lo
    IMAD.LO.U32 %w2.hi, %w0.lo, $D.hi, %w2.hi
    IMAD.LO.U32 %w2.hi, %w0.hi, $D.lo, %w2.hi
    IADD.CC %w3.lo, %w3.lo, -%w2.lo, %p0
    IADD.X %w3.hi, %w3.hi, -%w2.hi, %p0                  // r -= q'*D
    IADD.CC %w1.lo, %w1.lo, %w0.lo, %p0
    IADD.X %w1.hi, %w1.hi, %w0.hi, %p0                   // q += q'
)";
  }
  s += R"(
    IADD.CC RZ, %w3.lo, -$D.lo, %p0
    IADD.X.CC RZ, %w3.hi, -$D.hi, %p0                     // p0: r >= d (r < 2d here)
)";
  if (need_q) s += "@%p0 IADD.CC %w1.lo, %w1.lo, 1, %p1\n@%p0 IADD.X %w1.hi, %w1.hi, RZ, %p1\n";
  if (need_r) s += "@%p0 IADD.CC %w3.lo, %w3.lo, -$D.lo, %p1\n@%p0 IADD.X %w3.hi, %w3.hi, -$D.hi, %p1\n";
  s = replace_all(std::move(s), "$N", n);
  return replace_all(std::move(s), "$D", d);
}

Sequence divrem64(bool rem, bool is_signed) {
  std::string body;
  if (is_signed) {
    body += R"(
    ISETP.LT.S32.AND %p2, PT, %a.hi, 0, PT
    IADD.CC %w4.lo, RZ, -%a.lo, %p0
    IADD.X %w4.hi, RZ, -%a.hi, %p0
    SEL %w4.lo, %w4.lo, %a.lo, %p2
    SEL %w4.hi, %w4.hi, %a.hi, %p2                       // |a|
    ISETP.LT.S32.AND %p3, PT, %b.hi, 0, PT
    IADD.CC %w5.lo, RZ, -%b.lo, %p0
    IADD.X %w5.hi, RZ, -%b.hi, %p0
    SEL %w5.lo, %w5.lo, %b.lo, %p3
    SEL %w5.hi, %w5.hi, %b.hi, %p3                       // |b|)";
    body += udiv64_core("%w4", "%w5", !rem, rem);
    body += rem ? R"(
@%p2 IADD.CC %w3.lo, RZ, -%w3.lo, %p0                  // the remainder has the dividend's sign
@%p2 IADD.X %w3.hi, RZ, -%w3.hi, %p0
)"
                : R"(
    PLOP.XOR %p2, %p2, %p3
@%p2 IADD.CC %w1.lo, RZ, -%w1.lo, %p0
@%p2 IADD.X %w1.hi, RZ, -%w1.hi, %p0
)";
  } else {
    body += udiv64_core("%a", "%b", !rem, rem);
  }
  const char* r = rem ? "%w3" : "%w1";
  body += std::string(R"(
    ISETP.EQ.U32.AND %p1, PT, %b.lo, 0, PT
    ISETP.EQ.U32.AND %p1, PT, %b.hi, 0, %p1
    SEL %d.lo, $R.lo, -1, !%p1                            // division by zero: all ones
    SEL %d.hi, $R.hi, -1, !%p1
)");
  body = replace_all(std::move(body), "$R", r);
  const std::string name = std::string(rem ? "rem" : "div") + (is_signed ? ".s64" : ".u64");
  return make(name, {pair("%a"), pair("%b")}, {pair("%d")}, body);
}

// ---- 64-bit helpers --------------------------------------------------------------------------

Sequence mul_lo64(const char* name) {
  return make(name, {pair("%a"), pair("%b")}, {pair("%d")}, R"(
    IMUL.LO.U32 %t0, %a.lo, %b.hi
    IMAD.LO.U32 %t0, %a.hi, %b.lo, %t0                   // cross products, low words
    IMUL.WIDE.U32 %d, %a.lo, %b.lo
    IADD %d.hi, %d.hi, %t0
)");
}

Sequence mul_hi64(bool is_signed) {
  // The 128-bit product's columns: S1 = a0*b1 + hi(a0*b0), S2 = a1*b0 + lo(S1),
  // high = a1*b1 + hi(S1) + hi(S2). Signed: subtract b if a < 0 and a if b < 0 (mod 2^64).
  std::string body = R"(
    IMUL.HI.U32 %w0.lo, %a.lo, %b.lo
    MOV %w0.hi, RZ
    IMAD.WIDE.U32 %w1, %a.lo, %b.hi, %w0                 // S1
    MOV %w0.lo, %w1.lo
    IMAD.WIDE.U32 %w0, %a.hi, %b.lo, %w0                 // S2
    MOV %w1.lo, %w1.hi
    MOV %w1.hi, RZ
    IMAD.WIDE.U32 %w1, %a.hi, %b.hi, %w1                 // a1*b1 + hi(S1)
)";
  if (!is_signed) {
    body += R"(
    IADD.CC %d.lo, %w1.lo, %w0.hi, %p0
    IADD.X %d.hi, %w1.hi, RZ, %p0
)";
  } else {
    body += R"(
    IADD.CC %w1.lo, %w1.lo, %w0.hi, %p0
    IADD.X %w1.hi, %w1.hi, RZ, %p0                       // unsigned high part
    ISETP.LT.S32.AND %p1, PT, %a.hi, 0, PT
@%p1 IADD.CC %w1.lo, %w1.lo, -%b.lo, %p0
@%p1 IADD.X %w1.hi, %w1.hi, -%b.hi, %p0
    ISETP.LT.S32.AND %p1, PT, %b.hi, 0, PT
@%p1 IADD.CC %w1.lo, %w1.lo, -%a.lo, %p0
@%p1 IADD.X %w1.hi, %w1.hi, -%a.hi, %p0
    MOV %d.lo, %w1.lo
    MOV %d.hi, %w1.hi
)";
  }
  return make(is_signed ? "mul.hi.s64" : "mul.hi.u64", {pair("%a"), pair("%b")}, {pair("%d")}, body);
}

/// shl.b64 / shr.u64 / shr.s64 by a 32-bit amount; amounts of 64 and more clamp to 64.
Sequence shift64(const char* name, char kind) {
  std::string body;
  if (kind == 'l') {
    body = R"(
    IADD %t0, %b, -32
    SHL %t0, %a.lo, %t0                                  // high word for 32 <= n (0 from 64 on)
    SHF.L %t1, %a.lo, %b, %a.hi                          // high word for n < 32
    ISETP.LT.U32.AND %p0, PT, %b, 32, PT
    SHL %d.lo, %a.lo, %b
    SEL %d.hi, %t1, %t0, %p0
)";
  } else {
    body = R"(
    IADD %t0, %b, -32
    SHR$T %t0, %a.hi, %t0                                // low word for 32 <= n
    SHF.R %t1, %a.lo, %b, %a.hi                          // low word for n < 32
    ISETP.LT.U32.AND %p0, PT, %b, 32, PT
    SHR$T %d.hi, %a.hi, %b
    SEL %d.lo, %t1, %t0, %p0
)";
    body = replace_all(std::move(body), "$T", kind == 's' ? ".S32" : ".U32");
  }
  return make(name, {pair("%a"), reg("%b")}, {pair("%d")}, body);
}

Sequence minmax64(const char* name, bool is_max, bool is_signed) {
  std::string body = is_signed ? R"(
    ISETP.LT.U32.AND %p0, PT, %a.lo, %b.lo, PT
    ISETP.EQ.U32.AND %p0, PT, %a.hi, %b.hi, %p0
    ISETP.LT.S32.OR %p0, PT, %a.hi, %b.hi, %p0           // p0: a < b
)"
                               : R"(
    IADD.CC RZ, %b.lo, -%a.lo, %p0
    IADD.X.CC RZ, %b.hi, -%a.hi, %p0                     // p0: b >= a (carry out of b - a)
)";
  // Signed: p0 = a < b; unsigned: p0 = a <= b. Either way p0 ? a : b is the minimum.
  body += is_max ? R"(
    SEL %d.lo, %b.lo, %a.lo, %p0
    SEL %d.hi, %b.hi, %a.hi, %p0
)"
                 : R"(
    SEL %d.lo, %a.lo, %b.lo, %p0
    SEL %d.hi, %a.hi, %b.hi, %p0
)";
  return make(name, {pair("%a"), pair("%b")}, {pair("%d")}, body);
}

/// setp.<cmp>.<type> of 64-bit operands into one predicate.
Sequence setp64(const std::string& name, const std::string& cmp, bool is_signed) {
  std::string body;
  if (cmp == "eq" || cmp == "ne") {
    const std::string c = cmp == "eq" ? "EQ" : "NE";
    const std::string bop = cmp == "eq" ? "AND" : "OR";
    body = "\n    ISETP." + c + ".U32.AND %d, PT, %a.lo, %b.lo, PT\n    ISETP." + c + ".U32." + bop +
           " %d, PT, %a.hi, %b.hi, %d\n";
  } else if (!is_signed && (cmp == "ge" || cmp == "le")) {
    // a >= b is the carry out of a - b; a <= b that of b - a.
    const char* x = cmp == "ge" ? "%a" : "%b";
    const char* y = cmp == "ge" ? "%b" : "%a";
    body = std::string("\n    IADD.CC RZ, ") + x + ".lo, -" + y + ".lo, %d\n    IADD.X.CC RZ, " + x + ".hi, -" + y +
           ".hi, %d\n";
  } else {
    // (hi strictly) or (hi equal and lo unsigned): lt/le/gt/ge on the low word, strict on the high.
    std::string c = cmp;
    for (auto& ch : c) ch = static_cast<char>(std::toupper(ch));
    const std::string strict = (cmp == "lt" || cmp == "le") ? "LT" : "GT";
    body = "\n    ISETP." + c + ".U32.AND %d, PT, %a.lo, %b.lo, PT\n    ISETP.EQ.U32.AND %d, PT, %a.hi, %b.hi, %d\n" +
           "    ISETP." + strict + (is_signed ? ".S32" : ".U32") + ".OR %d, PT, %a.hi, %b.hi, %d\n";
  }
  return make(name, {pair("%a"), pair("%b")}, {pred("%d")}, body);
}

Sequence bfind(const char* name, int bits, bool is_signed, bool shiftamt) {
  std::string body;
  std::string x = "%a";
  if (bits == 32) {
    if (is_signed) {  // the most significant bit that differs from the sign bit
      body += "\n    SHR.S32 %t0, %a, 31\n    LOP.XOR %t0, %a, %t0\n";
      x = "%t0";
    }
    body += shiftamt ? "\n    ISETP.EQ.U32.AND %p0, PT, $X, 0, PT\n    CLZ %d, $X\n@%p0 MOV %d, -1\n"
                     : "\n    CLZ %t1, $X\n    IADD %d, RZ, -%t1\n    IADD %d, %d, 31                         // 31 - clz; -1 for 0\n";
  } else {
    if (is_signed) {
      body += "\n    SHR.S32 %t2, %a.hi, 31\n    LOP.XOR %w0.lo, %a.lo, %t2\n    LOP.XOR %w0.hi, %a.hi, %t2\n";
      x = "%w0";
    }
    body += R"(
    ISETP.EQ.U32.AND %p0, PT, $X.hi, 0, PT
    CLZ %t0, $X.hi
    CLZ %t1, $X.lo
@%p0 IADD %t0, %t1, 32                                   // 64-bit leading zeros
)";
    body += shiftamt ? "    ISETP.EQ.U32.AND %p0, PT, %t0, 64, PT\n    SEL %d, %t0, -1, !%p0\n"
                     : "    IADD %d, RZ, -%t0\n    IADD %d, %d, 63                              // 63 - clz; -1 for 0\n";
  }
  body = replace_all(std::move(body), "$X", x);
  return make(name, {bits == 32 ? reg("%a") : pair("%a")}, {reg("%d")}, body);
}

// ---- saturating integer conversion -----------------------------------------------------------

struct IntType {
  const char* name;
  int bits;
  bool is_signed;
  long long lo() const { return is_signed ? -static_cast<long long>((1ull << (bits - 1)) - 1) - 1 : 0; }
  unsigned long long hi() const {
    return is_signed ? (1ull << (bits - 1)) - 1 : bits == 64 ? ~0ull : (1ull << bits) - 1;
  }
  /// Every value of `src` is one of this type's.
  bool holds(const IntType& src) const {
    const bool lo_ok = src.lo() >= lo();
    const bool hi_ok = src.hi() <= hi();
    return lo_ok && hi_ok;
  }
};

constexpr IntType kIntTypes[] = {{"u8", 8, false},   {"s8", 8, true},   {"u16", 16, false}, {"s16", 16, true},
                                 {"u32", 32, false}, {"s32", 32, true}, {"u64", 64, false}, {"s64", 64, true}};

/// An integer immediate when it fits the 20-bit signed field, else "" (the caller uses MOV32I).
std::string imm(long long v) { return (v >= -(1 << 19) && v < (1 << 19)) ? std::to_string(v) : ""; }

std::string hex32(long long v) {
  static const char* digits = "0123456789ABCDEF";
  std::string h = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) h += digits[(static_cast<unsigned long long>(v) >> shift) & 0xF];
  return h;
}

/// Rewrites the last instruction's destination `from` to `to` (so a chain ends in the output).
std::string retarget_last(std::string body, const std::string& from, const std::string& to) {
  const size_t line = body.rfind('\n', body.size() - 2);
  const size_t at = body.find(" " + from + ",", line);
  if (at == std::string::npos) throw std::logic_error("retarget_last: no " + from + " in the last line");
  body.replace(at + 1, from.size(), to);
  return body;
}

/// cvt.sat.<dst>.<src>: the source value (the low bits of %a that its type names, or the pair)
/// clamped to the destination's range; a destination narrower than 32 bits comes back sign- or
/// zero-extended to 32 bits, as PTX extends a narrow type into a wider register.
Sequence cvt_sat(const IntType& dst, const IntType& src) {
  const std::string name = std::string("cvt.sat.") + dst.name + "." + src.name;
  const long long dlo = dst.lo(), slo = src.lo();
  const unsigned long long dhi = dst.hi(), shi = src.hi();
  const bool clamp_lo = slo < dlo, clamp_hi = shi > dhi;
  std::string body;
  if (src.bits <= 32) {
    // A chain of at most three steps on 32-bit values; the last one writes the result.
    std::string v = "%a";
    if (src.bits < 32) {  // the source type's low bits, extended by its signedness
      body += std::string("\n    BFE.") + (src.is_signed ? "S32" : "U32") + " %t0, %a, " + std::to_string(src.bits << 8);
      v = "%t0";
    }
    if (clamp_lo) {  // only signed sources go below a destination's minimum, which fits s32
      body += "\n    IMNMX.MAX.S32 %t1, " + v + ", " + std::to_string(dlo);
      v = "%t1";
    }
    if (clamp_hi) {
      // A 32-bit source exceeds only maxima below 2^31, which compare the same as s32 and u32.
      if (dhi > 0x7FFFFFFF) throw std::logic_error(name + ": unexpected clamp");
      std::string h = imm(static_cast<long long>(dhi));
      if (h.empty()) {
        body = "\n    MOV32I %t2, " + hex32(static_cast<long long>(dhi)) + body;
        h = "%t2";
      }
      body += std::string("\n    IMNMX.MIN.") + (src.is_signed ? "S32" : "U32") + " %t1, " + v + ", " + h;
      v = "%t1";
    }
    const std::string out = dst.bits == 64 ? "%d.lo" : "%d";
    if (v == "%a") body += "\n    MOV " + out + ", %a";
    body += "\n";
    if (v != "%a") body = retarget_last(body, v, out);
    if (dst.bits == 64)  // widen: sign-extend a signed value that may be negative
      body += dst.is_signed && src.is_signed ? "    SHR.S32 %d.hi, %d.lo, 31\n" : "    MOV %d.hi, RZ\n";
    return make(name, {reg("%a")}, {dst.bits == 64 ? pair("%d") : reg("%d")}, body);
  }
  // 64-bit source.
  if (dst.bits == 64) {
    if (dst.is_signed == src.is_signed) {
      body = "\n    MOV %d.lo, %a.lo\n    MOV %d.hi, %a.hi\n";
    } else if (dst.is_signed) {  // u64 -> s64: 2^63 and above clamp to 2^63 - 1
      body = R"(
    ISETP.LT.S32.AND %p0, PT, %a.hi, 0, PT
    MOV32I %t0, 0x7FFFFFFF
    SEL %d.lo, %a.lo, -1, !%p0
    SEL %d.hi, %a.hi, %t0, !%p0
)";
    } else {  // s64 -> u64: negatives clamp to 0
      body = R"(
    ISETP.LT.S32.AND %p0, PT, %a.hi, 0, PT
    SEL %d.lo, %a.lo, RZ, !%p0
    SEL %d.hi, %a.hi, RZ, !%p0
)";
    }
    return make(name, {pair("%a")}, {pair("%d")}, body);
  }
  if (dst.bits == 32 && dst.is_signed && src.is_signed) {  // s64 -> s32: fits iff hi is lo's sign
    body = R"(
    SHR.S32 %t0, %a.lo, 31
    ISETP.NE.U32.AND %p0, PT, %a.hi, %t0, PT             // p0: outside the s32 range
    MOV32I %t1, 0x7FFFFFFF
    SHR.S32 %t0, %a.hi, 31
    IADD %t1, %t1, -%t0                                  // INT_MAX, or INT_MIN for negatives
    SEL %d, %t1, %a.lo, %p0
)";
    return make(name, {pair("%a")}, {reg("%d")}, body);
  }
  // 64-bit source, destination of at most 32 bits: p0 = above the maximum, p1 = below the minimum.
  // (Immediates are sign-extended 20-bit fields: 0xFFFFFFFF is written -1.)
  std::string h = imm(static_cast<int32_t>(static_cast<uint32_t>(dhi)));
  if (h.empty()) {
    body += "\n    MOV32I %t0, " + hex32(static_cast<long long>(dhi));
    h = "%t0";
  }
  if (dhi == 0xFFFFFFFFull) {  // u32: anything with a non-zero (signed: positive) high word
    body += src.is_signed ? "\n    ISETP.GT.S32.AND %p0, PT, %a.hi, 0, PT" : "\n    ISETP.NE.U32.AND %p0, PT, %a.hi, 0, PT";
  } else {
    body += "\n    ISETP.GT.U32.AND %p0, PT, %a.lo, " + h + ", PT";
    body += "\n    ISETP.EQ.U32.AND %p0, PT, %a.hi, 0, %p0";
    body += src.is_signed ? "\n    ISETP.GT.S32.OR %p0, PT, %a.hi, 0, %p0" : "\n    ISETP.NE.U32.OR %p0, PT, %a.hi, 0, %p0";
  }
  body += "\n    SEL %t1, %a.lo, " + h + ", !%p0\n";
  if (src.is_signed) {
    if (dlo == 0) {
      body += "\n    ISETP.LT.S32.AND %p1, PT, %a.hi, 0, PT";
      body += "\n    SEL %t1, %t1, RZ, !%p1\n";
    } else {  // below: high word < -1, or -1 with the low word (unsigned) under dlo mod 2^32
      std::string l = imm(dlo);
      if (l.empty()) {
        body += "\n    MOV32I %t2, " + hex32(dlo);
        l = "%t2";
      }
      body += "\n    ISETP.LT.U32.AND %p1, PT, %a.lo, " + l + ", PT";
      body += "\n    ISETP.EQ.U32.AND %p1, PT, %a.hi, -1, %p1";
      body += "\n    ISETP.LT.S32.OR %p1, PT, %a.hi, -1, %p1";
      body += "\n    SEL %t1, %t1, " + l + ", !%p1\n";
    }
  }
  body = retarget_last(body, "%t1", "%d");
  return make(name, {pair("%a")}, {reg("%d")}, body);
}

std::vector<Sequence> build_all() {
  std::vector<Sequence> v;
  v.push_back(div_rn(false));
  v.push_back(div_rn(true));
  v.push_back(div_full(false));
  v.push_back(div_full(true));
  v.push_back(div_approx(false));
  v.push_back(div_approx(true));
  v.push_back(rcp_rn(false));
  v.push_back(rcp_rn(true));
  v.push_back(mufu("rcp.approx.f32", "RCP", false));
  v.push_back(mufu("rcp.approx.ftz.f32", "RCP", true));
  v.push_back(sqrt_rn("sqrt.rn.f32", false));
  v.push_back(sqrt_rn("sqrt.rn.ftz.f32", true));
  v.push_back(sqrt_rn("sqrt.approx.f32", false));
  v.push_back(sqrt_rn("sqrt.approx.ftz.f32", true));
  v.push_back(mufu("rsqrt.approx.f32", "RSQ", false));
  v.push_back(mufu("rsqrt.approx.ftz.f32", "RSQ", true));
  for (const bool is_signed : {false, true})
    for (const bool rem : {false, true}) v.push_back(divrem32(rem, is_signed));
  for (const bool is_signed : {false, true})
    for (const bool rem : {false, true}) v.push_back(divrem64(rem, is_signed));
  v.push_back(mul_lo64("mul.lo.u64"));
  v.push_back(mul_lo64("mul.lo.s64"));
  v.push_back(mul_hi64(false));
  v.push_back(mul_hi64(true));
  v.push_back(shift64("shl.b64", 'l'));
  v.push_back(shift64("shr.b64", 'u'));
  v.push_back(shift64("shr.u64", 'u'));
  v.push_back(shift64("shr.s64", 's'));
  v.push_back(minmax64("min.u64", false, false));
  v.push_back(minmax64("max.u64", true, false));
  v.push_back(minmax64("min.s64", false, true));
  v.push_back(minmax64("max.s64", true, true));
  for (const char* t : {"u64", "s64", "b64"}) {
    v.push_back(setp64(std::string("setp.eq.") + t, "eq", false));
    v.push_back(setp64(std::string("setp.ne.") + t, "ne", false));
  }
  for (const char* cmp : {"lt", "le", "gt", "ge"}) {
    v.push_back(setp64(std::string("setp.") + cmp + ".u64", cmp, false));
    v.push_back(setp64(std::string("setp.") + cmp + ".s64", cmp, true));
  }
  // PTX's unsigned spellings: lo, ls, hi, hs.
  v.push_back(setp64("setp.lo.u64", "lt", false));
  v.push_back(setp64("setp.ls.u64", "le", false));
  v.push_back(setp64("setp.hi.u64", "gt", false));
  v.push_back(setp64("setp.hs.u64", "ge", false));
  v.push_back(make("popc.b64", {pair("%a")}, {reg("%d")}, R"(
    POPC %t0, %a.lo
    POPC %d, %a.hi
    IADD %d, %d, %t0
)"));
  v.push_back(make("clz.b64", {pair("%a")}, {reg("%d")}, R"(
    ISETP.EQ.U32.AND %p0, PT, %a.hi, 0, PT
    CLZ %d, %a.hi
    CLZ %t0, %a.lo
@%p0 IADD %d, %t0, 32
)"));
  v.push_back(make("brev.b64", {pair("%a")}, {pair("%d")}, R"(
    BREV %t0, %a.lo
    BREV %d.lo, %a.hi
    MOV %d.hi, %t0
)"));
  // f32 -> f64 is exact: re-bias the exponent, normalize subnormals (CLZ), keep NaN payloads
  // (quieted) and infinities. Integer-only, so it runs on configurations without a DP unit
  // (printf promotes every float argument to double).
  for (const bool ftz : {false, true})
    v.push_back(make(ftz ? "cvt.ftz.f64.f32" : "cvt.f64.f32", {reg("%a")}, {pair("%d")}, std::string(R"(
    BFE.U32 %t0, %a, 0x1700
    BFE.U32 %t1, %a, 0x817
    SHR.U32 %t2, %a, 31
    SHL %t2, %t2, 31
    SHR.U32 %t4, %t0, 3
    SHL %t5, %t0, 29
    IADD %t3, %t1, 896
    SHL %t3, %t3, 20
    LOP.OR %t3, %t3, %t4
    ISETP.EQ.U32.AND %p0, PT, %t1, 255, PT
    MOV32I %t6, 0x7FF00000
@%p0 LOP.OR %t3, %t4, %t6
    ISETP.NE.U32.AND %p1, PT, %t0, RZ, %p0
    MOV32I %t6, 0x7FF80000
@%p1 LOP.OR %t3, %t4, %t6
    ISETP.EQ.U32.AND %p2, PT, %t1, RZ, PT
@%p2 MOV %t3, RZ
@%p2 MOV %t5, RZ
)") + (ftz ? "" : R"(    ISETP.NE.U32.AND %p3, PT, %t0, RZ, %p2
@%p3 CLZ %t7, %t0
@%p3 IADD %t8, %t7, 1
@%p3 SHL %t8, %t0, %t8
@%p3 SHR.U32 %t3, %t8, 12
@%p3 SHL %t5, %t8, 20
@%p3 IADD %t7, RZ, -%t7
@%p3 IADD %t7, %t7, 905
@%p3 SHL %t7, %t7, 20
@%p3 LOP.OR %t3, %t3, %t7
)") + R"(    LOP.OR %d.hi, %t3, %t2
    MOV %d.lo, %t5
)"));
  // Binary64 without a DP unit (configurations with dp_units = 0): the f64 operations nvcc's float
  // math library emits (sinf/cosf/tanf's argument reduction), round to nearest even, with the DP
  // unit's NaN rules (docs/floating-point.md). docs/lowering-sequences.md describes the algorithms.
  for (const bool is_signed : {true, false})
    v.push_back(make(is_signed ? "cvt.rn.f64.s64" : "cvt.rn.f64.u64", {pair("%a")}, {pair("%d")},
                     std::string(is_signed ? R"(
    SHR.S32 %t2, %a.hi, 31
    LOP.XOR %t0, %a.lo, %t2
    LOP.XOR %t1, %a.hi, %t2
    IADD.CC %t0, %t0, -%t2, %p0
    IADD.X %t1, %t1, -%t2, %p0
)" : R"(
    MOV %t0, %a.lo
    MOV %t1, %a.hi
    MOV %t2, RZ
)") + R"(    ISETP.EQ.U32.AND %p1, PT, %t1, RZ, PT
    CLZ %t3, %t1
    CLZ %t4, %t0
@%p1 IADD %t3, %t4, 32
    ISETP.GE.U32.AND %p2, PT, %t3, 32, PT
    IADD %t4, %t3, -32
@%p2 SHL %t1, %t0, %t4
@%p2 MOV %t0, RZ
@!%p2 SHF.L %t1, %t0, %t3, %t1
@!%p2 SHL %t0, %t0, %t3
    LOP.AND %t4, %t0, 0x7FF
    SHF.R %t0, %t0, 11, %t1
    SHR.U32 %t1, %t1, 11
    ISETP.EQ.U32.AND %p1, PT, %t4, 0x400, PT
    LOP.AND %t5, %t0, 1
    ISETP.NE.U32.AND %p1, PT, %t5, RZ, %p1
@%p1 MOV %t4, 0x401
    ISETP.GT.U32.AND %p2, PT, %t4, 0x400, PT
@%p2 IADD.CC %t0, %t0, 1, %p3
@%p2 IADD.X %t1, %t1, RZ, %p3
    IADD %t5, RZ, -%t3
    IADD %t5, %t5, 1085
    SHL %t5, %t5, 20
    IADD %t1, %t1, %t5
    SHL %t5, %t2, 31
    LOP.OR %t1, %t1, %t5
    ISETP.EQ.U32.AND %p0, PT, %t3, 64, PT
@%p0 MOV %t1, RZ
@%p0 MOV %t0, RZ
    MOV %d.lo, %t0
    MOV %d.hi, %t1
)"));
  v.push_back(make("cvt.rn.f32.f64", {pair("%a")}, {reg("%d")}, R"(
    SHR.U32 %t0, %a.hi, 31
    BFE.U32 %t1, %a.hi, 0xB14
    BFE.U32 %t3, %a.hi, 0x1400
    MOV %t2, %a.lo
    ISETP.EQ.U32.AND %p0, PT, %t1, 2047, PT
    SHF.R %t4, %t2, 29, %t3
    LOP.OR %t5, %t3, %t2
    ISETP.NE.U32.AND %p1, PT, %t5, RZ, %p0
    MOV %t6, 1
    BFI %t3, %t6, 0x114, %t3
    IADD %t5, %t1, -896
    MOV %t6, 28
    ISETP.LT.S32.AND %p2, PT, %t5, 1, PT
@%p2 IADD %t6, RZ, -%t5
@%p2 IADD %t6, %t6, 29
    IMNMX.MIN.U32 %t6, %t6, 63
    ISETP.GE.U32.AND %p3, PT, %t6, 32, PT
    IADD %t7, RZ, -%t6
    IADD %t7, %t7, 32
@!%p3 SHL %t7, %t2, %t7
@!%p3 SHF.R %t2, %t2, %t6, %t3
@%p3 IADD %t8, RZ, -%t6
@%p3 IADD %t8, %t8, 64
@%p3 SHL %t8, %t3, %t8
@%p3 LOP.OR %t7, %t2, %t8
@%p3 IADD %t8, %t6, -32
@%p3 SHR.U32 %t2, %t3, %t8
    LOP.AND %t8, %t2, 1
    SHR.U32 %t2, %t2, 1
    ISETP.NE.U32.AND %p3, PT, %t7, RZ, PT
    LOP.AND %t7, %t2, 1
@%p3 MOV %t7, 1
    ISETP.NE.U32.AND %p3, PT, %t8, RZ, PT
    ISETP.NE.U32.AND %p3, PT, %t7, RZ, %p3
@%p3 IADD %t2, %t2, 1
    IADD %t6, %t5, -1
@%p2 MOV %t6, RZ
    ISETP.GT.S32.AND %p3, PT, %t5, 254, PT
    SHL %t6, %t6, 23
    IADD %t2, %t2, %t6
    MOV32I %t6, 0x7F800000
@%p3 MOV %t2, %t6
@%p0 MOV %t2, %t6
    MOV32I %t6, 0x7FC00000
@%p1 LOP.OR %t2, %t4, %t6
    SHL %t0, %t0, 31
    LOP.OR %d, %t2, %t0
)"));
  {
    // Subnormal operand E, H:L (exponent 0): shift the fraction up until bit 52 is set and lower
    // the exponent to match; a normal one gets its implicit bit. (%p0..%p2 are scratch here.)
    auto normalize = [](const char* e, const char* h, const char* l) {
      return fmt::format(R"(
    ISETP.EQ.U32.AND %p0, PT, {0}, RZ, PT
    MOV %w0.lo, 1
@!%p0 BFI {1}, %w0.lo, 0x114, {1}
@%p0 CLZ %w0.lo, {1}
@%p0 CLZ %w0.hi, {2}
    ISETP.EQ.U32.AND %p1, PT, {1}, RZ, %p0
@%p1 IADD %w0.lo, %w0.hi, 32
@%p0 IADD %w0.lo, %w0.lo, -11
@%p0 IADD {0}, RZ, -%w0.lo
@%p0 IADD {0}, {0}, 1
    ISETP.GE.U32.AND %p1, PT, %w0.lo, 32, %p0
    ISETP.LT.U32.AND %p2, PT, %w0.lo, 32, %p0
@%p1 IADD %w0.hi, %w0.lo, -32
@%p1 SHL {1}, {2}, %w0.hi
@%p1 MOV {2}, RZ
@%p2 SHF.L {1}, {2}, %w0.lo, {1}
@%p2 SHL {2}, {2}, %w0.lo
)", e, h, l);
    };
    // Registers: exponent %t1, mantissas %t3:%t5 and %t4:%t6, product words in %w0/%w1, then the
    // rounding state (%t2 sticky, %t4 guard); %w0/%w1 double as scratch before and after the
    // product, so the whole body needs ten temporaries.
    std::string body = R"(
    BFE.U32 %t1, %a.hi, 0xB14
    BFE.U32 %t2, %b.hi, 0xB14
    BFE.U32 %t3, %a.hi, 0x1400
    BFE.U32 %t4, %b.hi, 0x1400
    MOV %t5, %a.lo
    MOV %t6, %b.lo
)" + normalize("%t1", "%t3", "%t5") + normalize("%t2", "%t4", "%t6") + R"(
    IADD %t1, %t1, %t2
    IADD %t1, %t1, -1023
    IMUL.WIDE.U32 %w0, %t5, %t6
    MOV %t2, %w0.lo
    MOV %w0.lo, %w0.hi
    MOV %w0.hi, RZ
    IMAD.WIDE.U32 %w1, %t3, %t6, %w0
    MOV %w0.lo, %w1.lo
    MOV %w0.hi, RZ
    IMAD.WIDE.U32 %w0, %t5, %t4, %w0
    IADD %w1.lo, %w1.hi, %w0.hi
    MOV %w1.hi, RZ
    IMAD.WIDE.U32 %w1, %t3, %t4, %w1
    SHR.U32 %t4, %w1.hi, 9
    IADD %t1, %t1, %t4
    SHF.R %t5, %w0.lo, 20, %w1.lo
    SHF.R %t6, %w1.lo, 20, %w1.hi
    BFE.U32 %t3, %w0.lo, 0x1400
    ISETP.NE.U32.AND %p0, PT, %t4, RZ, PT
@%p0 LOP.AND %t4, %t5, 1
@%p0 LOP.OR %t2, %t3, %t2
@%p0 SHF.R %t5, %t5, 1, %t6
@%p0 SHR.U32 %t6, %t6, 1
@!%p0 SHR.U32 %t4, %t3, 19
@!%p0 BFE.U32 %t3, %t3, 0x1300
@!%p0 LOP.OR %t2, %t3, %t2
    ISETP.LT.S32.AND %p0, PT, %t1, 1, PT
@%p0 SHF.L %t6, %t5, 1, %t6
@%p0 SHL %t5, %t5, 1
@%p0 LOP.OR %t5, %t5, %t4
@%p0 IADD %w0.lo, RZ, -%t1
@%p0 IADD %w0.lo, %w0.lo, 1
@%p0 IMNMX.MIN.U32 %w0.lo, %w0.lo, 54
    ISETP.LT.U32.AND %p1, PT, %w0.lo, 32, %p0
    ISETP.GE.U32.AND %p2, PT, %w0.lo, 32, %p0
@%p1 IADD %w0.hi, RZ, -%w0.lo
@%p1 IADD %w0.hi, %w0.hi, 32
@%p1 SHL %w0.hi, %t5, %w0.hi
@%p1 SHF.R %t5, %t5, %w0.lo, %t6
@%p1 SHR.U32 %t6, %t6, %w0.lo
@%p2 IADD %w0.hi, RZ, -%w0.lo
@%p2 IADD %w0.hi, %w0.hi, 64
@%p2 SHL %w0.hi, %t6, %w0.hi
@%p2 LOP.OR %w0.hi, %w0.hi, %t5
@%p2 IADD %w0.lo, %w0.lo, -32
@%p2 SHR.U32 %t5, %t6, %w0.lo
@%p2 MOV %t6, RZ
@%p0 LOP.OR %t2, %t2, %w0.hi
@%p0 LOP.AND %t4, %t5, 1
@%p0 SHF.R %t5, %t5, 1, %t6
@%p0 SHR.U32 %t6, %t6, 1
@%p0 MOV %t1, 1
    ISETP.NE.U32.AND %p1, PT, %t2, RZ, PT
    LOP.AND %w0.hi, %t5, 1
@%p1 MOV %w0.hi, 1
    ISETP.NE.U32.AND %p1, PT, %t4, RZ, PT
    ISETP.NE.U32.AND %p1, PT, %w0.hi, RZ, %p1
@%p1 IADD.CC %t5, %t5, 1, %p2
@%p1 IADD.X %t6, %t6, RZ, %p2
    ISETP.GT.S32.AND %p1, PT, %t1, 2046, PT
    IADD %w0.hi, %t1, -1
    SHL %w0.hi, %w0.hi, 20
    IADD %t6, %t6, %w0.hi
    MOV32I %w0.hi, 0x7FF00000
@%p1 MOV %t6, %w0.hi
@%p1 MOV %t5, RZ
    LOP.XOR %w1.hi, %a.hi, %b.hi
    SHR.U32 %w1.hi, %w1.hi, 31
    SHL %w1.hi, %w1.hi, 31
    LOP.OR %t6, %t6, %w1.hi
    BFE.U32 %t1, %a.hi, 0xB14
    BFE.U32 %t2, %b.hi, 0xB14
    BFE.U32 %t3, %a.hi, 0x1400
    LOP.OR %t3, %t3, %a.lo
    BFE.U32 %t4, %b.hi, 0x1400
    LOP.OR %t4, %t4, %b.lo
    ISETP.EQ.U32.AND %p0, PT, %t3, RZ, PT
    ISETP.EQ.U32.AND %p0, PT, %t1, RZ, %p0
    ISETP.EQ.U32.AND %p1, PT, %t4, RZ, PT
    ISETP.EQ.U32.AND %p1, PT, %t2, RZ, %p1
    MOV %w0.lo, RZ
@%p0 MOV %w0.lo, 1
@%p1 MOV %w0.lo, 1
    ISETP.NE.U32.AND %p2, PT, %w0.lo, RZ, PT
@%p2 MOV %t6, %w1.hi
@%p2 MOV %t5, RZ
    ISETP.EQ.U32.AND %p0, PT, %t3, RZ, PT
    ISETP.EQ.U32.AND %p0, PT, %t1, 2047, %p0
    ISETP.EQ.U32.AND %p1, PT, %t4, RZ, PT
    ISETP.EQ.U32.AND %p1, PT, %t2, 2047, %p1
    MOV %w1.lo, 2047
    SHL %w1.lo, %w1.lo, 20
    LOP.OR %w1.lo, %w1.lo, %w1.hi
@%p0 MOV %t6, %w1.lo
@%p0 MOV %t5, RZ
@%p1 MOV %t6, %w1.lo
@%p1 MOV %t5, RZ
    ISETP.NE.U32.AND %p2, PT, %w0.lo, RZ, %p0
@%p2 MOV32I %t6, 0xFFF80000
    ISETP.NE.U32.AND %p2, PT, %w0.lo, RZ, %p1
@%p2 MOV32I %t6, 0xFFF80000
    MOV32I %w1.lo, 0x80000
    ISETP.NE.U32.AND %p0, PT, %t3, RZ, PT
    ISETP.EQ.U32.AND %p0, PT, %t1, 2047, %p0
@%p0 LOP.OR %t6, %a.hi, %w1.lo
@%p0 MOV %t5, %a.lo
    ISETP.NE.U32.AND %p1, PT, %t4, RZ, PT
    ISETP.EQ.U32.AND %p1, PT, %t2, 2047, %p1
@%p1 LOP.OR %t6, %b.hi, %w1.lo
@%p1 MOV %t5, %b.lo
    MOV %d.lo, %t5
    MOV %d.hi, %t6
)";
    v.push_back(make("mul.rn.f64", {pair("%a"), pair("%b")}, {pair("%d")}, body));
  }
  v.push_back(bfind("bfind.u32", 32, false, false));
  v.push_back(bfind("bfind.s32", 32, true, false));
  v.push_back(bfind("bfind.shiftamt.u32", 32, false, true));
  v.push_back(bfind("bfind.shiftamt.s32", 32, true, true));
  v.push_back(bfind("bfind.u64", 64, false, false));
  v.push_back(bfind("bfind.s64", 64, true, false));
  v.push_back(bfind("bfind.shiftamt.u64", 64, false, true));
  v.push_back(bfind("bfind.shiftamt.s64", 64, true, true));
  // Only conversions that can clamp: ptxas rejects .sat where the source range fits the destination.
  for (const auto& dst : kIntTypes)
    for (const auto& src : kIntTypes)
      if (!dst.holds(src)) v.push_back(cvt_sat(dst, src));
  return v;
}

}  // namespace

const std::vector<Sequence>& sequences() {
  static const std::vector<Sequence> all = build_all();
  return all;
}

const Sequence* find_sequence(std::string_view name) {
  for (const auto& s : sequences())
    if (s.name == name) return &s;
  return nullptr;
}

std::string instantiate(const Sequence& seq, const Bindings& bindings, std::string_view label_prefix) {
  auto kind_of = [&](const std::string& n) -> const Placeholder* {
    for (const auto* list : {&seq.inputs, &seq.outputs, &seq.temps})
      for (const auto& p : *list)
        if (p.name == n) return &p;
    return nullptr;
  };
  std::string out;
  out.reserve(seq.body.size() + seq.body.size() / 4);
  const std::string_view body = seq.body;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '%') {
      out += body[i];
      continue;
    }
    size_t j = i + 1;
    while (j < body.size() && is_ident_char(body[j])) ++j;
    const std::string name(body.substr(i, j - i));
    if (name.size() > 2 && name[1] == 'L' && std::isdigit(static_cast<unsigned char>(name[2]))) {
      out += std::string(label_prefix) + name.substr(1);
      i = j - 1;
      continue;
    }
    const Placeholder* p = kind_of(name);
    if (!p) throw std::invalid_argument(seq.name + ": the body names unknown placeholder " + name);
    const auto b = bindings.find(name);
    if (b == bindings.end()) throw std::invalid_argument(seq.name + ": placeholder " + name + " is not bound");
    unsigned n = b->second;
    if (p->kind == Kind::Pair) {
      if (n % 2) throw std::invalid_argument(seq.name + ": pair " + name + " bound to odd register R" + std::to_string(n));
      if (body.substr(j, 3) == ".hi") {
        ++n;
        j += 3;
      } else if (body.substr(j, 3) == ".lo") {
        j += 3;
      }
    }
    out += (p->kind == Kind::Pred ? "P" : "R") + std::to_string(n);
    i = j - 1;
  }
  return out;
}

}  // namespace tsm::ptx
