#!/usr/bin/env python3
"""Generates the SFU's quadratic-interpolation coefficient tables from isa/sfu.toml.

One source for the golden model and the RTL: writes
  DIR/tsm/sfu_tables_gen.hpp   C++ constexpr tables and the datapath's format constants,
  DIR/rtl/sfu/<table>.hex      $readmemh files, one 64-bit coefficient word per segment,
  DIR/rtl/tsm_sfu_pkg.sv       the same format constants for the RTL, and the table of each function,
  DIR/docs/sfu-tables.md       formats, table sizes and the fitted tables' measured errors.
All arithmetic is exact (integers, fractions) or deterministic decimal arithmetic at 50 digits,
never host floating point, so the output is byte-identical on every machine. A file is
rewritten only when its text changes. Problems in the input are reported as
"gen_sfu.py: error: ..." lines and the exit code is 1.

Usage: gen_sfu.py --toml isa/sfu.toml --out-dir DIR [--isa isa/isa.toml]
The MUFU function list is read from the ISA table (enum mufu), never typed here.
"""

import argparse
import decimal
import sys
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

DEFAULT_ISA_TABLE = Path(__file__).with_name("isa.toml")
SOURCE_NAME = "isa/sfu.toml"
GENERATOR_NAME = "isa/gen_sfu.py"
MANTISSA_BITS = 23  # binary32 fraction field
SCORE_GUARD_BITS = 20  # extra fraction bits of the exact function values the fit compares against
ULP_FRAC = 23  # y in [1, 2) for rcp, rsq and ex2: one ulp of the result is 2^-23 of y
ECP5_MODES = ((1024, 18, "DP16KD 1024x18, true dual port"), (512, 36, "PDPW16KD 512x36, one read port"))

decimal.setcontext(decimal.Context(prec=50, rounding=decimal.ROUND_HALF_EVEN))


class SfuError(Exception):
    """A problem in the input, already worded for the user."""


# ---------------------------------------------------------------------------------------------
# Deterministic elementary functions (decimal, 50 digits)
# ---------------------------------------------------------------------------------------------

def compute_pi() -> Decimal:
    """pi by the series of the Python decimal documentation's recipe (exact to the context)."""
    decimal.getcontext().prec += 2
    three = Decimal(3)
    lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    decimal.getcontext().prec -= 2
    return +s


PI = compute_pi()
LN2 = Decimal(2).ln()


def sin(z: Decimal) -> Decimal:
    """Taylor series; the tables only need 0 <= z <= pi/2, where it converges fast."""
    term, total, k = z, z, 1
    z2 = z * z
    while abs(term) > Decimal(10) ** -60:
        term = -term * z2 / ((2 * k) * (2 * k + 1))
        total += term
        k += 1
    return +total


# ---------------------------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Format:
    bits: int  # including the sign
    frac: int

    def fits(self, value: int) -> bool:
        return -(1 << (self.bits - 1)) <= value < (1 << (self.bits - 1))


@dataclass(frozen=True)
class Params:
    index_bits: int
    u_bits: int
    square_bits: int
    c0: Format
    c1: Format
    c2: Format
    samples: int
    c1_search: int
    c2_search: int
    inv_two_pi_bits: int
    sin_bypass_exp: int
    ex2_saturate_exp: int

    @property
    def segments(self) -> int:
        return 1 << self.index_bits

    @property
    def square_shift(self) -> int:
        return 2 * self.u_bits - self.square_bits

    @property
    def c1_shift(self) -> int:
        return self.c1.frac + self.u_bits - self.c0.frac

    @property
    def c2_shift(self) -> int:
        return self.c2.frac + self.square_bits - self.c0.frac

    @property
    def word_bits(self) -> int:
        return self.c0.bits + self.c1.bits + self.c2.bits

    @property
    def turn_bits(self) -> int:
        return 2 + self.index_bits + self.u_bits  # quadrant, then the sin table's index and u

    @property
    def ex2_frac_bits(self) -> int:
        return self.index_bits + self.u_bits


@dataclass
class TableSpec:
    name: str
    doc: str
    pin_zero: bool


# Per table: how many significand bits feed u (the rest of u's bits are always 0), and whether
# the argument was truncated below u (then the function is fitted at the middle of each u step).
# These follow from the argument preparation in the C++ model and docs/sfu.md.
def table_shape(name: str, p: Params) -> tuple[int, bool]:
    return {
        "rcp": (MANTISSA_BITS - p.index_bits, False),
        "rsq": (MANTISSA_BITS - (p.index_bits - 1), False),
        "sin": (p.u_bits, True),
        "ex2": (p.u_bits, True),
        "lg2": (MANTISSA_BITS - p.index_bits, False),
    }[name]


def table_function(name: str, p: Params, index: int, u: Decimal) -> Decimal:
    """The exact value the table approximates in segment `index` at position u in [0, 1)."""
    m = p.index_bits
    if name == "rcp":
        return 2 / (1 + (index + u) / (1 << m))
    if name == "rsq":
        odd, j = index >> (m - 1), index & ((1 << (m - 1)) - 1)
        x = (1 + (j + u) / (1 << (m - 1))) * (1 + odd)
        return 2 / x.sqrt()
    if name == "sin":
        return sin(PI / 2 * (index + u) / (1 << m))
    if name == "ex2":
        return ((index + u) / (1 << m) * LN2).exp()
    if name == "lg2":
        upper = 1 if index >= 3 << (m - 2) else 0  # M >= 1.5: exponent + 1, table log2(M) - 1
        return (1 + (index + u) / (1 << m)).ln() / LN2 - upper
    raise AssertionError(name)


TABLE_NAMES = ("rcp", "rsq", "sin", "ex2", "lg2")


def require_int(table: dict, key: str, where: str, lo: int, hi: int, why: str, errors: list) -> int:
    value = table.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        errors.append(f"{where}.{key}: missing or not an integer")
        return lo
    if not lo <= value <= hi:
        errors.append(f"{where}.{key} = {value} is out of range {lo}..{hi} ({why})")
    return value


def load_format(table: dict, key: str, errors: list) -> Format:
    item = table.get(key)
    if not isinstance(item, dict):
        errors.append(f"interpolator.{key}: expected {{ bits = N, frac = N }}")
        return Format(2, 0)
    bits = require_int(item, "bits", f"interpolator.{key}", 2, 18 if key != "c0" else 48,
                       "C1 and C2 are multiplier operands: at most 18 bits" if key != "c0" else "adder width",
                       errors)
    frac = require_int(item, "frac", f"interpolator.{key}", 0, 60, "fraction bits", errors)
    return Format(bits, frac)


def load(path: Path, mufu_values: list[str]) -> tuple[Params, list[TableSpec], dict[str, str]]:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise SfuError(f"{path}: cannot read: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise SfuError(f"{path}: not valid TOML: {e}") from e
    errors: list[str] = []
    for key in data:
        if key not in ("interpolator", "fit", "tables", "functions", "range_reduction"):
            errors.append(f"unexpected top-level '{key}'")
    ip, fit, rr = (data.get(k, {}) for k in ("interpolator", "fit", "range_reduction"))
    index_bits = require_int(ip, "index_bits", "interpolator", 2, 10,
                             "rsq needs an exponent-parity bit; DP16KD holds at most 1024 words", errors)
    u_bits = require_int(ip, "u_bits", "interpolator", 1, 17,
                         "u is an unsigned operand of signed 18x18 multipliers", errors)
    params = Params(
        index_bits=index_bits,
        u_bits=u_bits,
        square_bits=require_int(ip, "square_bits", "interpolator", 1, 17,
                                "sq is an unsigned operand of a signed 18x18 multiplier", errors),
        c0=load_format(ip, "c0", errors),
        c1=load_format(ip, "c1", errors),
        c2=load_format(ip, "c2", errors),
        samples=require_int(fit, "samples", "fit", 4, 4096, "sample intervals per segment", errors),
        c1_search=require_int(fit, "c1_search", "fit", 0, 16, "candidates around the rounded C1", errors),
        c2_search=require_int(fit, "c2_search", "fit", 0, 16, "candidates around the rounded C2", errors),
        inv_two_pi_bits=require_int(rr, "inv_two_pi_bits", "range_reduction", 20, 40,
                                    "1/2pi constant width; the product must fit 64 bits", errors),
        sin_bypass_exp=require_int(rr, "sin_bypass_exp", "range_reduction", -24, -8,
                                   "sin(x) = x must stay within the bound", errors),
        ex2_saturate_exp=require_int(rr, "ex2_saturate_exp", "range_reduction", 8, 10,
                                     "2^x overflows at x = 128 and vanishes below x = -150", errors))
    if not errors:
        if params.u_bits < MANTISSA_BITS - (params.index_bits - 1):
            errors.append(f"interpolator: index_bits + u_bits = {params.index_bits + params.u_bits} must be at "
                          f"least {MANTISSA_BITS + 1} so that u holds every significand bit below the index "
                          "(rsq spends one index bit on the exponent parity)")
        if params.square_bits > 2 * params.u_bits:
            errors.append("interpolator.square_bits exceeds the exact square's 2*u_bits fraction bits")
        for key, shift in (("c1", params.c1_shift), ("c2", params.c2_shift)):
            if shift < 0:
                errors.append(f"interpolator.{key}.frac is too small: its product must have at least "
                              f"c0.frac = {params.c0.frac} fraction bits")
        if params.ex2_frac_bits + params.ex2_saturate_exp + 1 > 62 or params.turn_bits > 62:
            errors.append("interpolator: index_bits + u_bits too large for 64-bit fixed-point arguments")
    tables_in = data.get("tables", {})
    specs: list[TableSpec] = []
    for name in TABLE_NAMES:
        t = tables_in.get(name)
        if not isinstance(t, dict) or not isinstance(t.get("doc"), str):
            errors.append(f"tables.{name}: missing, or without doc = \"...\"")
            continue
        unknown = sorted(set(t) - {"doc", "pin_zero"})
        if unknown:
            errors.append(f"tables.{name}: unknown key(s) {', '.join(unknown)} (allowed: doc, pin_zero)")
        specs.append(TableSpec(name, t["doc"], bool(t.get("pin_zero", False))))
    for name in sorted(set(tables_in) - set(TABLE_NAMES)):
        errors.append(f"tables.{name}: unknown table (the generator knows {', '.join(TABLE_NAMES)})")
    functions = data.get("functions", {})
    for func in mufu_values:
        if func not in functions:
            errors.append(f"functions: the ISA's MUFU.{func} has no table (add {func} = \"<table>\")")
        elif functions[func] not in TABLE_NAMES:
            errors.append(f"functions.{func} = {functions[func]!r} is not a table ({', '.join(TABLE_NAMES)})")
    for func in functions:
        if func not in mufu_values:
            errors.append(f"functions.{func}: not a value of the ISA's mufu enum ({', '.join(mufu_values)})")
    if errors:
        raise SfuError("\n".join(f"{path}: {e}" for e in errors))
    return params, specs, {func: functions[func] for func in mufu_values}


# ---------------------------------------------------------------------------------------------
# Fitting
# ---------------------------------------------------------------------------------------------

@dataclass
class Segment:
    c0: int
    c1: int
    c2: int
    error: int  # max |exact - y| over the samples, in units of 2^-(c0.frac + SCORE_GUARD_BITS)


@dataclass
class Table:
    spec: TableSpec
    u_step: int  # u takes multiples of this only
    midpoint: bool
    segments: list[Segment]

    @property
    def max_error(self) -> int:
        return max(s.error for s in self.segments)


def truncated_products(p: Params, c1: int, c2: int, us: list[int]) -> list[int]:
    """floor(C1*u / 2^k1) + floor(C2*sq / 2^k2) for each u, exactly as the hardware truncates them."""
    return [((c1 * u) >> p.c1_shift) + ((c2 * ((u * u) >> p.square_shift)) >> p.c2_shift) for u in us]


def chebyshev_quadratic(g) -> tuple[Decimal, Decimal, Decimal]:
    """Quadratic interpolating g at the Chebyshev nodes of [0, 1]: near-minimax for smooth g."""
    half_root3 = Decimal(3).sqrt() / 2
    u0, u1, u2 = (1 - half_root3) / 2, Decimal("0.5"), (1 + half_root3) / 2
    y0, y1, y2 = g(u0), g(u1), g(u2)
    d01 = (y1 - y0) / (u1 - u0)
    d12 = (y2 - y1) / (u2 - u1)
    a2 = (d12 - d01) / (u2 - u0)
    a1 = d01 - a2 * (u0 + u1)
    a0 = y0 - d01 * u0 + a2 * u0 * u1
    return a0, a1, a2


def origin_quadratic(g) -> tuple[Decimal, Decimal, Decimal]:
    """a1*u + a2*u^2 through the origin: g(u)/u interpolated linearly at the degree-1 Chebyshev nodes."""
    half_root2 = Decimal(2).sqrt() / 2
    u1, u2 = (1 - half_root2) / 2, (1 + half_root2) / 2
    h1, h2 = g(u1) / u1, g(u2) / u2
    a2 = (h2 - h1) / (u2 - u1)
    return Decimal(0), h1 - a2 * u1, a2


def fit_segment(p: Params, spec: TableSpec, index: int, u_step: int, midpoint: bool) -> Segment:
    scale = Decimal(1 << (p.c0.frac + SCORE_GUARD_BITS))

    def g(u: Decimal) -> Decimal:
        return table_function(spec.name, p, index, u)

    # u's value, or the middle of its step when the argument was truncated below u.
    step = Decimal(1 << (p.u_bits + 1))
    last = (1 << p.u_bits) - u_step
    us = sorted({min(k * (1 << p.u_bits) // p.samples // u_step * u_step, last) for k in range(p.samples + 1)})
    exact = [int((g(Decimal(2 * u + (1 if midpoint else 0)) / step) * scale).to_integral_value()) for u in us]
    pinned = spec.pin_zero and not midpoint and g(Decimal(0)) == 0
    a0, a1, a2 = (origin_quadratic if pinned else chebyshev_quadratic)(g)
    best: Segment | None = None
    c2_round = int((a2 * (1 << p.c2.frac)).to_integral_value())
    for c2 in candidates(c2_round, p.c2_search):
        if not p.c2.fits(c2):
            continue
        # C2's rounding error d*u^2 is best absorbed by the line d*(u - 1/8) (the minimax line of u^2).
        a1_adjusted = a1 + a2 - Decimal(c2) / (1 << p.c2.frac)
        c1_round = int((a1_adjusted * (1 << p.c1.frac)).to_integral_value())
        for c1 in candidates(c1_round, p.c1_search):
            if not p.c1.fits(c1):
                continue
            residues = [e - (t << SCORE_GUARD_BITS) for e, t in zip(exact, truncated_products(p, c1, c2, us))]
            if pinned:
                c0 = 0
            else:
                c0 = (max(residues) + min(residues) + (1 << SCORE_GUARD_BITS)) >> (SCORE_GUARD_BITS + 1)
            if not p.c0.fits(c0):
                continue
            error = max(max(residues) - (c0 << SCORE_GUARD_BITS), (c0 << SCORE_GUARD_BITS) - min(residues))
            if best is None or error < best.error:
                best = Segment(c0, c1, c2, error)
    if best is None:
        raise SfuError(f"table {spec.name}, segment {index}: no coefficient candidate fits the formats "
                       f"(about C0 = {a0 * (1 << p.c0.frac):.0f}, C1 = {c1_round}, C2 = {c2_round}); "
                       "widen the interpolator")
    return best


def candidates(centre: int, radius: int) -> list[int]:
    """centre, centre-1, centre+1, ...: ties in the fit go to the value nearest the rounded one."""
    out = [centre]
    for d in range(1, radius + 1):
        out += [centre - d, centre + d]
    return out


def fit_table(p: Params, spec: TableSpec) -> Table:
    arg_bits, midpoint = table_shape(spec.name, p)
    u_step = 1 << (p.u_bits - arg_bits)
    return Table(spec, u_step, midpoint,
                 [fit_segment(p, spec, i, u_step, midpoint) for i in range(p.segments)])


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------

def inv_two_pi(p: Params) -> int:
    """K = round(2^(bits+2) / 2pi): 1/2pi in [1/8, 1/4), so K has exactly `bits` significant bits."""
    return int((Decimal(1 << (p.inv_two_pi_bits + 2)) / (2 * PI)).to_integral_value())


def word(p: Params, s: Segment) -> int:
    """{C2, C1, C0}, two's complement fields, C0 in the low bits."""
    def field(value: int, bits: int) -> int:
        return value & ((1 << bits) - 1)
    return ((field(s.c2, p.c2.bits) << (p.c1.bits + p.c0.bits))
            | (field(s.c1, p.c1.bits) << p.c0.bits) | field(s.c0, p.c0.bits))


def word_layout(p: Params) -> str:
    hi = p.word_bits - 1
    return (f"{{C2[{hi}:{hi - p.c2.bits + 1}], C1[{p.c0.bits + p.c1.bits - 1}:{p.c0.bits}], "
            f"C0[{p.c0.bits - 1}:0]}}")


def emit_hex(p: Params, table: Table) -> str:
    digits = (p.word_bits + 3) // 4
    lines = [f"// Generated by {GENERATOR_NAME} from {SOURCE_NAME}. Table {table.spec.name}: {table.spec.doc}.",
             f"// {p.segments} words of {p.word_bits} bits {word_layout(p)}, word i = segment i."]
    lines += [f"{word(p, s):0{digits}x}" for s in table.segments]
    return "\n".join(lines) + "\n"


def emit_header(p: Params, tables: list[Table], functions: dict[str, str]) -> str:
    k = inv_two_pi(p)
    enum = ", ".join(t.spec.name.upper() for t in tables)
    out = [f"// Generated by {GENERATOR_NAME} from {SOURCE_NAME}. Do not edit.",
           "#pragma once",
           "#include <array>",
           "#include <cstdint>",
           "#include <string_view>",
           "",
           "namespace tsm::sfu::gen {",
           "",
           "// The interpolator (docs/sfu.md): y = C0 + floor(C1*u / 2^kC1Shift) + floor(C2*sq / 2^kC2Shift),",
           "// sq = floor(u*u / 2^kSquareShift); y has kC0Frac fraction bits.",
           f"inline constexpr int kIndexBits = {p.index_bits};",
           f"inline constexpr unsigned kSegments = {p.segments};",
           f"inline constexpr int kUBits = {p.u_bits};  // unsigned fraction: position inside a segment",
           f"inline constexpr int kSquareBits = {p.square_bits};",
           f"inline constexpr int kSquareShift = {p.square_shift};",
           f"inline constexpr int kC0Bits = {p.c0.bits};",
           f"inline constexpr int kC0Frac = {p.c0.frac};",
           f"inline constexpr int kC1Bits = {p.c1.bits};",
           f"inline constexpr int kC1Frac = {p.c1.frac};",
           f"inline constexpr int kC2Bits = {p.c2.bits};",
           f"inline constexpr int kC2Frac = {p.c2.frac};",
           f"inline constexpr int kC1Shift = {p.c1_shift};",
           f"inline constexpr int kC2Shift = {p.c2_shift};",
           f"inline constexpr int kWordBits = {p.word_bits};  // one ROM word: {word_layout(p)}",
           "",
           "// Range reduction.",
           f"inline constexpr uint64_t kInvTwoPi = {k};  // round(2^{p.inv_two_pi_bits + 2} / 2pi)",
           f"inline constexpr int kInvTwoPiBits = {p.inv_two_pi_bits};",
           f"inline constexpr int kInvTwoPiFrac = {p.inv_two_pi_bits + 2};",
           f"inline constexpr int kTurnBits = {p.turn_bits};  // x/2pi mod 1: quadrant, sin index, u",
           f"inline constexpr int kSinBypassExp = {p.sin_bypass_exp};  // |x| < 2^this: sin(x) = x",
           f"inline constexpr int kEx2FracBits = {p.ex2_frac_bits};  // fraction of x: ex2 index, u",
           f"inline constexpr int kEx2SaturateExp = {p.ex2_saturate_exp};  // |x| >= 2^this: +inf or +0",
           "",
           f"enum class Table : uint8_t {{ {enum} }};",
           f"inline constexpr unsigned kNumTables = {len(tables)};",
           "// Also the names of the ROM images rtl/sfu/<name>.hex.",
           f"inline constexpr std::array<std::string_view, kNumTables> kTableNames{{"
           + ", ".join(f'"{t.spec.name}"' for t in tables) + "};",
           "",
           "// The table each MUFU function runs on, indexed by tsm::isa::gen::Mufu.",
           f"inline constexpr std::array<Table, {len(functions)}> kTableOf{{"
           + ", ".join(f"Table::{t.upper()}" for t in functions.values()) + "};",
           "",
           "struct Coefficients {",
           "  int32_t c0;",
           "  int32_t c1;",
           "  int32_t c2;",
           "};",
           "",
           "inline constexpr std::array<std::array<Coefficients, kSegments>, kNumTables> kTables{{"]
    for t in tables:
        out.append(f"    // {t.spec.name}: {t.spec.doc}")
        out.append("    {{")
        for row in range(0, len(t.segments), 4):
            out.append("        " + " ".join(f"{{{s.c0}, {s.c1}, {s.c2}}}," for s in t.segments[row:row + 4]))
        out.append("    }},")
    out += ["}};", "", "}  // namespace tsm::sfu::gen", ""]
    return "\n".join(out)


def to_decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


def fixed_text(value: Fraction, places: str) -> str:
    return f"{to_decimal(value).quantize(Decimal(places))}"


def log2_text(value: Fraction) -> str:
    """log2 of a positive exact value, two decimals."""
    return f"{(to_decimal(value).ln() / LN2).quantize(Decimal('0.01'))}"


def error_text(p: Params, table: Table) -> str:
    err = Fraction(table.max_error, 1 << (p.c0.frac + SCORE_GUARD_BITS))
    lsb = err * (1 << p.c0.frac)
    if table.spec.name in ("rcp", "rsq", "ex2"):
        ulps = err * (1 << ULP_FRAC)
        return f"{fixed_text(lsb, '0.01')} | {fixed_text(ulps, '0.001')} ulp of y (2^{log2_text(err)})"
    return f"{fixed_text(lsb, '0.01')} | 2^{log2_text(err)} absolute"


def blocks(p: Params, words: int) -> list[tuple[str, int]]:
    return [(name, -(-words // depth) * -(-p.word_bits // width)) for depth, width, name in ECP5_MODES]


def emit_docs(p: Params, tables: list[Table], functions: dict[str, str]) -> str:
    total_words = p.segments * len(tables)
    out = ["# SFU coefficient tables",
           "",
           f"Generated by `{GENERATOR_NAME}` from `{SOURCE_NAME}`; the algorithm is described in "
           "[sfu.md](sfu.md). Do not edit.",
           "",
           "## Formats",
           "",
           "| quantity | format | notes |",
           "|---|---|---|",
           f"| index | {p.index_bits} bits unsigned | {p.segments} segments per table |",
           f"| u | {p.u_bits} bits unsigned fraction | position inside the segment |",
           f"| sq | {p.square_bits} bits unsigned fraction | floor(u*u / 2^{p.square_shift}) |",
           f"| C0 | {p.c0.bits} bits signed, {p.c0.frac} fraction bits | also the format of y |",
           f"| C1 | {p.c1.bits} bits signed, {p.c1.frac} fraction bits | "
           f"C1*u truncated by {p.c1_shift} bits |",
           f"| C2 | {p.c2.bits} bits signed, {p.c2.frac} fraction bits | "
           f"C2*sq truncated by {p.c2_shift} bits |",
           f"| ROM word | {p.word_bits} bits | {word_layout(p)} |",
           f"| 1/2pi | K = {inv_two_pi(p)} ({p.inv_two_pi_bits} bits) | K / 2^{p.inv_two_pi_bits + 2} |",
           f"| sin/cos turn | {p.turn_bits} fraction bits | 2 quadrant + {p.index_bits} index + "
           f"{p.u_bits} u |",
           f"| ex2 fraction | {p.ex2_frac_bits} fraction bits | {p.index_bits} index + {p.u_bits} u; "
           f"abs(x) >= 2^{p.ex2_saturate_exp} saturates |",
           f"| sin bypass | abs(x) < 2^{p.sin_bypass_exp} | sin(x) = x |",
           "",
           "## Tables",
           "",
           "Error: the largest |exact - y| on the fit's sample points (every segment, "
           f"{p.samples + 1} points each), in units of 2^-{p.c0.frac} (y's LSB) and in the function's "
           "terms; it is y's error before the final rounding. End-to-end errors, measured exhaustively, "
           "are in [sfu.md](sfu.md).",
           "",
           "| table | function | used by | u step | C0 range | C1 range | C2 range | max error (LSB) | max error |",
           "|---|---|---|---|---|---|---|---|---|"]
    for t in tables:
        users = ", ".join(f for f, name in functions.items() if name == t.spec.name)
        ranges = [f"{min(v)}..{max(v)}" for v in (
            [s.c0 for s in t.segments], [s.c1 for s in t.segments], [s.c2 for s in t.segments])]
        step = f"{t.u_step}" + (", midpoint" if t.midpoint else "")
        out.append(f"| {t.spec.name} | {t.spec.doc} | {users} | {step} | {' | '.join(ranges)} | "
                   f"{error_text(p, t)} |")
    out += ["",
            "\"u step\": u only takes multiples of it (the significand has fewer bits than u); "
            "\"midpoint\": the argument was truncated below u, so the table fits the middle of each step.",
            "",
            "## Size",
            "",
            f"{len(tables)} tables x {p.segments} words x {p.word_bits} bits = "
            f"{total_words * p.word_bits} bits ({total_words * p.word_bits // 1024} kbit).",
            "",
            "| ECP5 mapping | blocks |",
            "|---|---|"]
    for name, n in blocks(p, p.segments):
        out.append(f"| one table, {name} | {n} per table, {n * len(tables)} for all |")
    for name, n in blocks(p, total_words):
        out.append(f"| all tables in one ROM ({total_words} words), {name} | {n} |")
    out.append("")
    return "\n".join(out)


def write_if_changed(path: Path, text: str):
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def read_mufu(isa_path: Path) -> list[str]:
    try:
        with open(isa_path, "rb") as f:
            values = tomllib.load(f)["enums"]["mufu"]["values"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as e:
        raise SfuError(f"cannot read enums.mufu from {isa_path}: {e}") from e
    return list(values)


def emit_sv_package(p: Params, tables: list[Table], functions: dict[str, str]) -> str:
    names = [t.spec.name for t in tables]
    out = [f"// Generated by {GENERATOR_NAME} from {SOURCE_NAME}. Do not edit.",
           "// The SFU datapath's formats (docs/sfu.md), as tsm/sfu_tables_gen.hpp states them for the golden",
           "// model; the coefficient ROMs are rtl/sfu/<table>.hex.",
           "package tsm_sfu_pkg;",
           f"  localparam int unsigned IndexBits = {p.index_bits};",
           f"  localparam int unsigned Segments = {p.segments};",
           f"  localparam int unsigned UBits = {p.u_bits};",
           f"  localparam int unsigned SquareShift = {p.square_shift};",
           f"  localparam int unsigned C0Bits = {p.c0.bits};",
           f"  localparam int unsigned C0Frac = {p.c0.frac};",
           f"  localparam int unsigned C1Bits = {p.c1.bits};",
           f"  localparam int unsigned C2Bits = {p.c2.bits};",
           f"  localparam int unsigned C1Shift = {p.c1_shift};",
           f"  localparam int unsigned C2Shift = {p.c2_shift};",
           f"  localparam int unsigned WordBits = {p.word_bits};  // {word_layout(p)}",
           f"  localparam logic [63:0] InvTwoPi = 64'd{inv_two_pi(p)};",
           f"  localparam int unsigned InvTwoPiBits = {p.inv_two_pi_bits};",
           f"  localparam int unsigned InvTwoPiFrac = {p.inv_two_pi_bits + 2};",
           f"  localparam int unsigned TurnBits = {p.turn_bits};",
           f"  localparam int SinBypassExp = {p.sin_bypass_exp};",
           f"  localparam int unsigned Ex2FracBits = {p.ex2_frac_bits};",
           f"  localparam int Ex2SaturateExp = {p.ex2_saturate_exp};",
           f"  localparam int unsigned NumTables = {len(tables)};"]
    for i, n in enumerate(names):
        out.append(f"  localparam logic [2:0] TABLE_{n.upper()} = 3'd{i};")
    out.append("  // The table each MUFU function (tsm_isa_pkg::MUFU_*) runs on.")
    out.append("  function automatic logic [2:0] table_of(input logic [2:0] mufu);")
    out.append("    unique case (mufu)")
    for i, (func, table) in enumerate(functions.items()):
        out.append(f"      3'd{i}: table_of = TABLE_{table.upper()};  // {func}")
    out.append("      default: table_of = 3'd0;")
    out.append("    endcase")
    out.append("  endfunction")
    out.append("endpackage")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toml", required=True, type=Path, metavar="FILE", help="isa/sfu.toml")
    parser.add_argument("--out-dir", required=True, type=Path, metavar="DIR",
                        help="where tsm/, rtl/sfu/ and docs/ are written")
    parser.add_argument("--isa", type=Path, default=DEFAULT_ISA_TABLE, metavar="FILE",
                        help="ISA table to read the MUFU functions from (default: isa.toml beside this script)")
    args = parser.parse_args()
    try:
        params, specs, functions = load(args.toml, read_mufu(args.isa))
        tables = [fit_table(params, spec) for spec in specs]
    except SfuError as e:
        for line in str(e).splitlines():
            print(f"gen_sfu.py: error: {line}", file=sys.stderr)
        return 1
    write_if_changed(args.out_dir / "tsm" / "sfu_tables_gen.hpp", emit_header(params, tables, functions))
    for t in tables:
        write_if_changed(args.out_dir / "rtl" / "sfu" / f"{t.spec.name}.hex", emit_hex(params, t))
    write_if_changed(args.out_dir / "rtl" / "tsm_sfu_pkg.sv", emit_sv_package(params, tables, functions))
    write_if_changed(args.out_dir / "docs" / "sfu-tables.md", emit_docs(params, tables, functions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
