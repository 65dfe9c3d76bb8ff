#!/usr/bin/env python3
"""Generate the C++ ISA tables, the SystemVerilog decode package and docs/isa.md from isa/isa.toml.

The table is the single source of truth; this script checks it (field ranges, overlapping
fields within an instruction, overlapping encodings between instructions, enum sizes, suffix
ambiguity) and refuses to generate anything from a table that fails a check.

usage: gen_isa.py --toml isa/isa.toml --out-dir DIR
writes DIR/tsm/isa_gen.hpp, DIR/rtl/tsm_isa_pkg.sv, DIR/docs/isa.md
"""
import argparse
import pathlib
import sys
import tomllib

WORD_BITS = 64
UNITS = ["SP", "SFU", "DP", "MEM", "CTRL", "SYNC"]
# Timing facts of an instruction the commit port shows (isa.toml's header): optional, false by default.
TIMING_FLAGS = ["writes_after_retire", "faults_after_retire"]
FIELD_KINDS = ["opcode", "reg", "pred", "flag", "enum", "uimm", "simm", "bsel", "label"]
OPERAND_KINDS = ["reg", "pred", "b", "imm32", "mem", "cmem", "label", "uimm", "sreg"]
IMM_KINDS = ["none", "s20", "f32", "f64"]
# Bits of operand B (bsel + the union of rb / cbank:coff / imm20).
B_FIELDS = ["bsel", "rb", "coff", "cbank", "imm20"]


class TableError(Exception):
    pass


def bits_of(field):
    return ((1 << field["width"]) - 1) << field["lsb"]


def load(path):
    with open(path, "rb") as f:
        t = tomllib.load(f)
    enums = t["enums"]
    fields = t["fields"]
    insns = t["insn"]

    for name, e in enums.items():
        if "regs" in e and len(e["regs"]) != len(e["values"]):
            raise TableError(f"enum {name}: 'regs' has {len(e['regs'])} entries for {len(e['values'])} values")
        if "docs" in e and len(e["docs"]) != len(e["values"]):
            raise TableError(f"enum {name}: 'docs' has {len(e['docs'])} entries for {len(e['values'])} values")
        if len(set(e["values"])) != len(e["values"]):
            raise TableError(f"enum {name}: duplicate values")

    for name, f in fields.items():
        if f["kind"] not in FIELD_KINDS:
            raise TableError(f"field {name}: unknown kind '{f['kind']}'")
        if f["lsb"] < 0 or f["width"] < 1 or f["lsb"] + f["width"] > WORD_BITS:
            raise TableError(f"field {name}: bits {f['lsb'] + f['width'] - 1}:{f['lsb']} outside the {WORD_BITS}-bit word")
        if "enum" in f:
            e = enums.get(f["enum"])
            if e is None:
                raise TableError(f"field {name}: unknown enum '{f['enum']}'")
            if len(e["values"]) > (1 << f["width"]):
                raise TableError(f"field {name}: {len(e['values'])} values of enum {f['enum']} do not fit in {f['width']} bits")
            if "default" in f and f["default"] not in e["values"]:
                raise TableError(f"field {name}: default '{f['default']}' is not a value of enum {f['enum']}")
        elif f["kind"] in ("enum", "bsel"):
            raise TableError(f"field {name}: kind {f['kind']} needs an 'enum'")
    if fields["op"]["lsb"] != 0:
        raise TableError("field op must start at bit 0")

    seen_mn = {}
    for ins in insns:
        mn = ins["mnemonic"]
        if mn in seen_mn:
            raise TableError(f"{mn}: mnemonic defined twice")
        seen_mn[mn] = ins
        if ins["unit"] not in UNITS:
            raise TableError(f"{mn}: unknown unit '{ins['unit']}'")
        for flag in TIMING_FLAGS:
            if not isinstance(ins.setdefault(flag, False), bool):
                raise TableError(f"{mn}: {flag} must be true or false")
        if not 0 <= ins["opcode"] < (1 << fields["op"]["width"]):
            raise TableError(f"{mn}: opcode {ins['opcode']:#x} does not fit the op field")
        ins["used"] = used_fields(ins, fields, enums)
        check_no_overlap(ins, fields)
        check_suffixes(ins, fields, enums)
        free = 0
        for fname in ins["used"]:
            free |= bits_of(fields[fname])
        word_mask = (1 << WORD_BITS) - 1
        ins["mask"] = word_mask & ~free | bits_of(fields["op"])
        ins["match"] = ins["opcode"]
    check_encodings(insns)
    return t


def operand_fields(op, fields):
    k = op["k"]
    if k not in OPERAND_KINDS:
        raise TableError(f"unknown operand kind '{k}'")
    if k == "b":
        names = list(B_FIELDS)
    elif k == "mem":
        names = [op["f"]] + ([] if op.get("nooff") else ["moff"])
    elif k == "cmem":
        names = [op["f"], "cbank", "coff"]
    else:
        names = [op["f"]]
    for deco in ("neg", "abs", "inv", "n"):
        if deco in op:
            names.append(op[deco])
    return names


def used_fields(ins, fields, enums):
    mn = ins["mnemonic"]
    names = ["op", "pg", "pgn"]
    for op in ins["operands"]:
        try:
            names += operand_fields(op, fields)
        except TableError as e:
            raise TableError(f"{mn}: {e}")
        if op["k"] == "b" and op.get("imm", "none") not in IMM_KINDS:
            raise TableError(f"{mn}: unknown immediate kind '{op['imm']}'")
        w = op.get("w", 1)
        if isinstance(w, str):
            if w not in ins["mods"]:
                raise TableError(f"{mn}: operand width field '{w}' is not one of the modifiers")
            wf = fields[w]
            if wf["kind"] == "enum" and "regs" not in enums[wf["enum"]]:
                raise TableError(f"{mn}: width field '{w}' has an enum without 'regs'")
        elif w not in (1, 2, 4):
            raise TableError(f"{mn}: operand width {w} must be 1, 2 or 4")
    names += ins["mods"]
    for n in names:
        if n not in fields:
            raise TableError(f"{mn}: unknown field '{n}'")
    if len(set(names)) != len(names):
        raise TableError(f"{mn}: a field is used twice: {sorted(names)}")
    return names


def check_no_overlap(ins, fields):
    """Fields of one instruction must not share bits (the union members of B excepted)."""
    taken = {}
    for n in ins["used"]:
        if n in B_FIELDS[1:]:
            continue
        bits = bits_of(fields[n])
        for other, obits in taken.items():
            if bits & obits:
                raise TableError(f"{ins['mnemonic']}: fields '{n}' and '{other}' overlap")
        taken[n] = bits
    if "bsel" in ins["used"]:
        region = 0
        for n in B_FIELDS[1:]:
            region |= bits_of(fields[n])
        for other, obits in taken.items():
            if region & obits:
                raise TableError(f"{ins['mnemonic']}: field '{other}' overlaps operand B")


def suffix_tokens(fname, fields, enums):
    f = fields[fname]
    if f["kind"] == "flag":
        return [f.get("suffix", fname.upper())]
    return list(enums[f["enum"]]["values"])


def check_suffixes(ins, fields, enums):
    """Every suffix must name one field, except repeated fields of one enum (positional, as F2F)."""
    owner = {}
    for m in ins["mods"]:
        f = fields[m]
        if f["kind"] not in ("flag", "enum"):
            raise TableError(f"{ins['mnemonic']}: modifier '{m}' must be a flag or an enum field")
        for tok in suffix_tokens(m, fields, enums):
            prev = owner.get(tok)
            if prev is not None and fields[prev].get("enum") != f.get("enum"):
                raise TableError(f"{ins['mnemonic']}: suffix .{tok} is ambiguous between '{prev}' and '{m}'")
            owner.setdefault(tok, m)


def check_encodings(insns):
    for i, a in enumerate(insns):
        for b in insns[i + 1:]:
            common = a["mask"] & b["mask"]
            if (a["match"] ^ b["match"]) & common == 0:
                raise TableError(f"encodings of {a['mnemonic']} and {b['mnemonic']} overlap")


# ------------------------------------------------------------------------------------------------
# C++
# Enum values that collide with C/C++ macros get a trailing underscore in C++.
CPP_MACROS = {"NAN", "INFINITY", "EOF", "NULL", "TRUE", "FALSE", "DOMAIN", "OVERFLOW", "UNDERFLOW"}


def cpp_ident(s):
    if s[0].isdigit():
        return "B" + s
    return s + "_" if s in CPP_MACROS else s


def cpp_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def gen_cpp(t):
    enums, fields, insns = t["enums"], t["fields"], t["insn"]
    field_names = list(fields)
    enum_names = list(enums)
    o = []
    w = o.append
    w("// Generated by isa/gen_isa.py from isa/isa.toml. Do not edit.")
    w("#pragma once")
    w("#include <array>")
    w("#include <cstdint>")
    w("")
    w("namespace tsm::isa::gen {")
    w("")
    w(f"inline constexpr unsigned kIsaVersion = {t['isa']['version']};")
    w(f"inline constexpr unsigned kWordBits = {WORD_BITS};")
    for name, c in t["constants"].items():
        w(f"inline constexpr uint32_t k{name.title().replace('_', '')} = {c['value']:#x};  // {c['doc']}")
    w("")
    w("enum class Unit : uint8_t { " + ", ".join(UNITS) + " };")
    w("inline constexpr const char* kUnitNames[] = {" + ", ".join(cpp_str(u) for u in UNITS) + "};")
    w("enum class FieldKind : uint8_t { " + ", ".join(k.title() for k in FIELD_KINDS) + " };")
    w("enum class OperandKind : uint8_t { " + ", ".join(k.title() for k in OPERAND_KINDS) + " };")
    w("enum class ImmKind : uint8_t { " + ", ".join(k.title() for k in IMM_KINDS) + " };")
    w("")
    w("enum class EnumId : uint8_t { " + ", ".join(enum_names) + ", None };")
    for name, e in enums.items():
        w(f"// {e['doc']}")
        w(f"enum class {name.title()} : uint8_t {{ " + ", ".join(cpp_ident(v) for v in e["values"]) + " };")
    w("")
    max_values = max(len(e["values"]) for e in enums.values())
    w("struct EnumInfo {")
    w("  const char* name;")
    w("  const char* doc;")
    w("  uint8_t count;")
    w(f"  std::array<const char*, {max_values}> values;")
    w(f"  std::array<uint8_t, {max_values}> regs;  // registers per value (1 where the enum has no widths)")
    w("};")
    w("inline constexpr std::array<EnumInfo, %d> kEnums = {{" % len(enums))
    for name, e in enums.items():
        vals = ", ".join(cpp_str(v) for v in e["values"])
        regs = ", ".join(str(r) for r in e.get("regs", [1] * len(e["values"])))
        w(f"    {{{cpp_str(name)}, {cpp_str(e['doc'])}, {len(e['values'])}, {{{vals}}}, {{{regs}}}}},")
    w("}};")
    w("")
    w("enum class Field : uint8_t { " + ", ".join(field_names) + ", None };")
    w("struct FieldInfo {")
    w("  const char* name;")
    w("  uint8_t lsb;")
    w("  uint8_t width;")
    w("  FieldKind kind;")
    w("  EnumId enum_id;")
    w("  int8_t default_value;  // enum value omitted in assembly, -1 if always written")
    w("  const char* suffix;    // flags: the assembly suffix")
    w("  const char* doc;")
    w("};")
    w("inline constexpr std::array<FieldInfo, %d> kFields = {{" % len(fields))
    for name, f in fields.items():
        eid = f"EnumId::{f['enum']}" if "enum" in f else "EnumId::None"
        dflt = enums[f["enum"]]["values"].index(f["default"]) if "default" in f else -1
        suffix = cpp_str(f.get("suffix", name.upper())) if f["kind"] == "flag" else "nullptr"
        w(f"    {{{cpp_str(name)}, {f['lsb']}, {f['width']}, FieldKind::{f['kind'].title()}, {eid}, {dflt}, {suffix}, {cpp_str(f['doc'])}}},")
    w("}};")
    w("")
    w("struct OperandInfo {")
    w("  OperandKind kind;")
    w("  Field field;        // the register / predicate / immediate field (B: Field::None)")
    w("  bool dst;           // written by the instruction")
    w("  ImmKind imm;        // B: meaning of a 20-bit immediate")
    w("  uint8_t width;      // registers: 1, 2 or 4 (when width_field is None)")
    w("  Field width_field;  // enum whose regs[] gives the width, or a flag (set: 2 registers)")
    w("  Field neg, abs, inv, pneg;  // decoration flags: -x, |x|, ~x, !P")
    w("  bool optional;      // trailing operand that may be omitted when it holds its default (PT / 0)")
    w("  bool no_offset;     // memory operand without an offset field")
    w("};")
    w("")
    max_ops = max(len(i["operands"]) for i in insns)
    max_mods = max(len(i["mods"]) for i in insns)
    w("struct InsnInfo {")
    w("  const char* mnemonic;")
    w("  uint8_t opcode;")
    w("  Unit unit;")
    w("  const char* cls;")
    w("  uint64_t mask;   // bits that must equal match (opcode and must-be-zero bits)")
    w("  uint64_t match;")
    w("  uint8_t num_operands;")
    w(f"  std::array<OperandInfo, {max_ops}> operands;")
    w("  uint8_t num_mods;")
    w(f"  std::array<Field, {max_mods}> mods;  // dot suffixes in assembly order")
    w("  const char* summary;")
    w("  const char* semantics;")
    w("  bool writes_after_retire;  // its register results may follow its RETIRE on the commit port")
    w("  bool faults_after_retire;  // a global access: its fault may follow its RETIRE")
    w("};")
    w("")
    w("enum class Op : uint8_t { " + ", ".join(f"{i['mnemonic']} = {i['opcode']:#04x}" for i in insns) + " };")
    w(f"inline constexpr std::array<InsnInfo, {len(insns)}> kInsns = {{{{")
    for ins in insns:
        ops = []
        for op in ins["operands"]:
            k = op["k"]
            fld = "Field::None" if k == "b" else f"Field::{op['f']}"
            wv = op.get("w", 1)
            wfield = f"Field::{wv}" if isinstance(wv, str) else "Field::None"
            wconst = wv if isinstance(wv, int) else 1
            deco = ", ".join(f"Field::{op[d]}" if d in op else "Field::None" for d in ("neg", "abs", "inv", "n"))
            ops.append(f"OperandInfo{{OperandKind::{k.title()}, {fld}, {str(op.get('role') == 'dst').lower()}, "
                       f"ImmKind::{op.get('imm', 'none').title()}, {wconst}, {wfield}, {deco}, "
                       f"{str(bool(op.get('optional'))).lower()}, {str(bool(op.get('nooff'))).lower()}}}")
        mods = ", ".join(f"Field::{m}" for m in ins["mods"])
        w(f"    InsnInfo{{{cpp_str(ins['mnemonic'])}, {ins['opcode']:#04x}, Unit::{ins['unit']}, {cpp_str(ins['class'])}, "
          f"{ins['mask']:#018x}ull, {ins['match']:#018x}ull, {len(ops)}, {{{{{', '.join(ops)}}}}}, "
          f"{len(ins['mods'])}, {{{{{mods}}}}}, {cpp_str(ins['summary'])}, {cpp_str(ins['sem'].strip())}, "
          f"{str(ins['writes_after_retire']).lower()}, {str(ins['faults_after_retire']).lower()}}},")
    w("}};")
    w("")
    w("/// Index into kInsns for every opcode value, -1 where the opcode is undefined.")
    table = [-1] * 256
    for idx, ins in enumerate(insns):
        table[ins["opcode"]] = idx
    w("inline constexpr std::array<int16_t, 256> kOpcodeIndex = {{" + ", ".join(map(str, table)) + "}};")
    w("")
    w("}  // namespace tsm::isa::gen")
    return "\n".join(o) + "\n"


# ------------------------------------------------------------------------------------------------
# SystemVerilog
def sv_const(width, value):
    return f"{width}'h{value:X}"


def sv_name(s):
    return s.upper().replace(".", "_")


def field_slice(f):
    hi = f["lsb"] + f["width"] - 1
    return f"[{hi}:{f['lsb']}]" if f["width"] > 1 else f"[{f['lsb']}]"


def sv_low_bits_zero(f, nbits):
    """SystemVerilog condition: the low nbits of field f are zero."""
    lo = f["lsb"]
    return f"(insn[{lo + nbits - 1}:{lo}] == {nbits}'d0)" if nbits > 1 else f"(insn[{lo}] == 1'b0)"


def sv_reg_aligned(f, width):
    """A register tuple of `width` registers: RZ, or aligned with every register below RZ."""
    rz = (1 << f["width"]) - 1
    return (f"(insn{field_slice(f)} == {f['width']}'d{rz} || ({sv_low_bits_zero(f, width.bit_length() - 1)} && "
            f"insn{field_slice(f)} <= {f['width']}'d{rz - width}))")


def width_cases(op, fields, enums):
    """(condition under which the operand has this width, width) for widths above 1."""
    w = op.get("w", 1)
    if isinstance(w, int):
        return [("1'b1", w)] if w > 1 else []
    wf = fields[w]
    if wf["kind"] == "flag":
        return [(f"(insn[{wf['lsb']}] == 1'b1)", 2)]
    regs = enums[wf["enum"]]["regs"]
    return [(f"(insn{field_slice(wf)} == {wf['width']}'d{v})", r) for v, r in enumerate(regs) if r > 1]


def implies(when, cond):
    return cond if when == "1'b1" else f"(!{when} || {cond})"


def alignment_conditions(ins, fields, enums):
    """The C++ decoder's register-tuple and constant-offset alignment rules, as SystemVerilog."""
    conds = []
    bsel = fields["bsel"]
    for op in ins["operands"]:
        if op["k"] in ("reg", "mem"):
            for when, width in width_cases(op, fields, enums):
                conds.append(implies(when, sv_reg_aligned(fields[op['f']], width)))
        elif op["k"] == "b":
            is_reg = f"(insn{field_slice(bsel)} == {bsel['width']}'d0)"
            is_const = f"(insn{field_slice(bsel)} == {bsel['width']}'d1)"
            conds.append(implies(is_const, sv_low_bits_zero(fields["coff"], 2)))
            for when, width in width_cases(op, fields, enums):
                both = lambda kind: kind if when == "1'b1" else f"({kind} && {when})"
                conds.append(implies(both(is_reg), sv_reg_aligned(fields["rb"], width)))
                conds.append(implies(both(is_const), sv_low_bits_zero(fields["coff"], (4 * width).bit_length() - 1)))
    return conds


def sv_width_expr(op, fields, enums):
    """SystemVerilog expression for the registers (1, 2 or 4) an operand occupies."""
    cases = width_cases(op, fields, enums)
    expr = "3'd1"
    for when, width in reversed(cases):
        expr = f"3'd{width}" if when == "1'b1" else f"({when} ? 3'd{width} : {expr})"
    return expr


def gen_width_function(w, insns, fields, enums, operand_name, doc):
    w(f"  /// Registers (1, 2 or 4) occupied by {doc}")
    w(f"  function automatic logic [2:0] {operand_name}_regs(input logic [{WORD_BITS - 1}:0] insn);")
    w("    unique case (insn[7:0])")
    for ins in insns:
        for op in ins["operands"]:
            if op["f"] == operand_name and op["k"] in ("reg", "mem", "cmem", "b"):
                expr = sv_width_expr(op, fields, enums)
                if expr != "3'd1":
                    w(f"      OP_{ins['mnemonic']}: {operand_name}_regs = {expr};")
    w(f"      default: {operand_name}_regs = 3'd1;")
    w("    endcase")
    w("  endfunction")


def gen_sv(t):
    enums, fields, insns = t["enums"], t["fields"], t["insn"]
    o = []
    w = o.append
    w("// Generated by isa/gen_isa.py from isa/isa.toml. Do not edit.")
    w("// TeslaSM ISA decode package: opcodes, field extractors, enum values, per-opcode unit and")
    w("// register-usage flags, and the validity check shared with the C++ decoder.")
    w("package tsm_isa_pkg;")
    w("")
    w(f"  /// ISA version of isa/isa.toml")
    w(f"  localparam int unsigned ISA_VERSION = {t['isa']['version']};")
    w(f"  /// Instruction word width")
    w(f"  localparam int unsigned INSN_BITS = {WORD_BITS};")
    for name, c in t["constants"].items():
        w(f"  /// {c['doc']}")
        w(f"  localparam logic [31:0] {name} = 32'h{c['value']:08X};")
    w("")
    w("  // Units")
    ubits = max(1, (len(UNITS) - 1).bit_length())
    for i, u in enumerate(UNITS):
        w(f"  localparam logic [{ubits - 1}:0] UNIT_{u} = {ubits}'d{i};")
    w("")
    w("  // Opcodes")
    for ins in insns:
        w(f"  localparam logic [7:0] OP_{ins['mnemonic']} = 8'h{ins['opcode']:02X};  // {ins['summary']}")
    w("")
    for name, e in enums.items():
        width = max(1, (len(e["values"]) - 1).bit_length())
        w(f"  // enum {name}: {e['doc']}")
        for i, v in enumerate(e["values"]):
            w(f"  localparam logic [{width - 1}:0] {sv_name(name)}_{sv_name(v)} = {width}'d{i};")
    w("")
    w("  // Field extractors")
    for name, f in fields.items():
        w(f"  /// {f['doc']}")
        w(f"  function automatic logic [{f['width'] - 1}:0] f_{name}(input logic [{WORD_BITS - 1}:0] insn);")
        w(f"    f_{name} = insn{field_slice(f)};")
        w("  endfunction")
    w("")

    def op_case(fname, width, value_of, doc, default):
        w(f"  /// {doc}")
        w(f"  function automatic logic [{width - 1}:0] {fname}(input logic [7:0] op);")
        w("    unique case (op)")
        groups = {}
        for ins in insns:
            groups.setdefault(value_of(ins), []).append(f"OP_{ins['mnemonic']}")
        for val, ops in groups.items():
            if val != default:
                w(f"      {', '.join(ops)}: {fname} = {val};")
        w(f"      default: {fname} = {default};")
        w("    endcase")
        w("  endfunction")

    op_case("op_unit", ubits, lambda i: f"UNIT_{i['unit']}", "execution unit of an opcode", f"UNIT_CTRL")

    def reads(ins, name):
        return any(op["f"] == name and op.get("role") != "dst" and op["k"] in ("reg", "mem", "cmem") for op in ins["operands"])

    def flag(fn, doc, pred):
        op_case(fn, 1, lambda i: "1'b1" if pred(i) else "1'b0", doc, "1'b0")

    flag("op_reads_ra", "reads register A (or the address register)", lambda i: reads(i, "ra"))
    flag("op_has_b", "has operand B (bsel selects register, constant or immediate)", lambda i: any(op["k"] == "b" for op in i["operands"]))
    flag("op_reads_rb", "reads register field rb directly (not through bsel)", lambda i: reads(i, "rb"))
    flag("op_reads_rc", "reads register C", lambda i: reads(i, "rc"))
    flag("op_reads_rd", "reads the rd field as a source (store data)", lambda i: reads(i, "rd"))
    flag("op_writes_rd", "writes register rd", lambda i: any(op["f"] == "rd" and op.get("role") == "dst" for op in i["operands"]))
    flag("op_writes_pd", "writes predicates pd/pq or pd2",
         lambda i: any(op["k"] == "pred" and op.get("role") == "dst" for op in i["operands"]))
    flag("op_writes_pq", "writes the second predicate destination pq",
         lambda i: any(op["f"] == "pq" and op.get("role") == "dst" for op in i["operands"]))
    flag("op_reads_ps", "reads predicate ps", lambda i: any(op["f"] == "ps" for op in i["operands"]))
    flag("op_uses_pcc", "reads/writes the carry predicate pcc", lambda i: any(op["f"] == "pcc" for op in i["operands"]))
    flag("op_writes_after_retire", "its register results may follow its RETIRE on the commit port (isa.toml)",
         lambda i: i["writes_after_retire"])
    flag("op_faults_after_retire", "a global access: its fault may follow its RETIRE (isa.toml)",
         lambda i: i["faults_after_retire"])
    flag("op_mem_offset", "its memory operand [Ra+off] has the moff offset field",
         lambda i: any(op["k"] == "mem" and not op.get("nooff") for op in i["operands"]))

    def b_imm(ins):
        kinds = [op.get("imm", "none") for op in ins["operands"] if op["k"] == "b"]
        return kinds[0] if kinds else "none"

    op_case("op_b_imm", 2, lambda i: f"2'd{IMM_KINDS.index(b_imm(i))}",
            "meaning of operand B's 20-bit immediate: 0 none, 1 sign-extended integer, 2 top bits of a binary32, "
            "3 top bits of a binary64", "2'd0")
    # Operand decorations: {abs, neg} flags that apply to source A, B and C of each instruction.
    for opnd in ("ra", "b", "rc"):
        fname = f"dec_{opnd}"
        w(f"  /// {{|x|, -x}} flags the instruction applies to operand {opnd} (bit 1 abs, bit 0 neg)")
        w(f"  function automatic logic [1:0] {fname}(input logic [{WORD_BITS - 1}:0] insn);")
        w("    unique case (insn[7:0])")
        for ins in insns:
            for op in ins["operands"]:
                if op["f"] != opnd or not (op.get("neg") or op.get("abs")):
                    continue
                a = f"insn{field_slice(fields[op['abs']])}" if op.get("abs") else "1'b0"
                n = f"insn{field_slice(fields[op['neg']])}" if op.get("neg") else "1'b0"
                w(f"      OP_{ins['mnemonic']}: {fname} = {{{a}, {n}}};")
        w(f"      default: {fname} = 2'b00;")
        w("    endcase")
        w("  endfunction")
    w("")
    for operand_name, doc in (("rd", "rd (destination, or store data)"), ("ra", "ra (source A or address)"),
                              ("b", "operand B"), ("rc", "rc (source C)")):
        gen_width_function(w, insns, fields, enums, operand_name, doc)
    w("")
    w("  /// The word is a defined instruction: known opcode, must-be-zero bits zero, enum fields in range,")
    w("  /// register pairs/quads aligned and constant-bank offsets aligned to the operand size.")
    w(f"  function automatic logic insn_valid(input logic [{WORD_BITS - 1}:0] insn);")
    w("    unique case (insn[7:0])")
    for ins in insns:
        conds = [f"((insn & 64'h{ins['mask']:016X}) == 64'h{ins['match']:016X})"]
        for fname in ins["used"]:
            f = fields[fname]
            if "enum" in f:
                n = len(enums[f["enum"]]["values"])
                if n < (1 << f["width"]):
                    conds.append(f"(insn{field_slice(f)} <= {f['width']}'d{n - 1})")
        conds += alignment_conditions(ins, fields, enums)
        w(f"      OP_{ins['mnemonic']}: insn_valid = " + " && ".join(conds) + ";")
    w("      default: insn_valid = 1'b0;")
    w("    endcase")
    w("  endfunction")
    w("")
    w("endpackage")
    return "\n".join(o) + "\n"


# ------------------------------------------------------------------------------------------------
# Markdown
def operand_syntax(op, fields):
    k = op["k"]
    base = {
        "reg": {"rd": "Rd", "ra": "Ra", "rb": "Rb", "rc": "Rc"}.get(op["f"], op["f"]),
        "pred": "P" + op["f"][1:] if op["f"].startswith("p") else op["f"],
        "b": "B",
        "imm32": "imm32",
        "mem": "[Ra]" if op.get("nooff") else "[Ra+off]",
        "cmem": "c[bank][Ra+off]",
        "label": "target",
        "uimm": op["f"],
        "sreg": "SR_name",
    }[k]
    if k == "pred":
        base = {"pd": "Pd", "pq": "Pq", "ps": "Ps", "pa": "Pa", "pcc": "Pcc", "pd2": "Pd"}.get(op["f"], base)
    if "n" in op:
        base = "[!]" + base
    if "neg" in op:
        base = "[-]" + base
    if "inv" in op:
        base = "[~]" + base
    if "abs" in op:
        base = base.replace("R", "[|]R", 1).replace("B", "[|]B", 1) + "[|]"
    w = op.get("w", 1)
    if isinstance(w, int) and w > 1:
        base += f" (pair)" if w == 2 else " (quad)"
    if op.get("optional"):
        base = "[" + base + "]"
    return base


def mod_syntax(m, fields, enums):
    f = fields[m]
    if f["kind"] == "flag":
        return f"[.{f.get('suffix', m.upper())}]"
    vals = "|".join(enums[f["enum"]]["values"])
    return f"[.{vals}]" if "default" in f else f".{{{vals}}}"


def encoding_row(ins, fields):
    """Bit ranges of the instruction from 63 down to 0, as markdown cells."""
    owners = [None] * WORD_BITS
    for n in ins["used"]:
        if n in B_FIELDS[1:]:
            continue
        f = fields[n]
        for b in range(f["lsb"], f["lsb"] + f["width"]):
            owners[b] = n
    if "bsel" in ins["used"]:
        for n in B_FIELDS[1:]:
            f = fields[n]
            for b in range(f["lsb"], f["lsb"] + f["width"]):
                owners[b] = "B"
    cells = []
    b = WORD_BITS - 1
    while b >= 0:
        o = owners[b]
        lo = b
        while lo - 1 >= 0 and owners[lo - 1] == o:
            lo -= 1
        label = "0" if o is None else (f"{ins['opcode']:#04x}" if o == "op" else o)
        cells.append(f"{b}:{lo} {label}" if b != lo else f"{b} {label}")
        b = lo - 1
    return " · ".join(cells)


def gen_md(t):
    enums, fields, insns = t["enums"], t["fields"], t["insn"]
    o = []
    w = o.append
    w("# TeslaSM instruction set reference")
    w("")
    w("Generated by `isa/gen_isa.py` from `isa/isa.toml` — edit the table, not this page (`./tsm docs` "
      "refreshes it). The reasons behind the encoding are in [isa-decisions.md](isa-decisions.md).")
    w("")
    w(f"ISA version {t['isa']['version']}; every instruction is one {WORD_BITS}-bit little-endian word; "
      f"{len(insns)} instructions.")
    w("")
    w("## Assembly syntax")
    w("")
    w("```")
    w("[@[!]Pg] MNEMONIC[.SUFFIX...] operand, operand, ...   // comment")
    w("```")
    w("")
    w("- Registers `R0`…`R254`, `RZ` (R255, reads zero); predicates `P0`…`P6`, `PT`. Pairs and quads "
      "are named by their first (aligned) register.")
    w("- Operand B is a register, a constant-bank word `c[bank][offset]`, or an immediate: an integer "
      "(`-5`, `0x7f`, sign-extended from 20 bits) or, for floating-point instructions, a float "
      "(`1.5`, `-2`, `inf`, or raw bits `0f3FC00000`) whose low 12 bits (binary32) are zero.")
    w("- Decorations: `-x` negate, `|x|` absolute value, `~x` bitwise invert, `!P` negated predicate.")
    w("- Memory operands `[Ra+off]` with a signed 24-bit byte offset; branch targets are labels or a "
      "signed word offset from the branch (`+3`, `-2`).")
    w("- Suffixes in `[...]` may be omitted (flags off, or the enum default); `{A|B}` must be written. "
      "Suffixes of different fields may be written in any order; two fields of one enum (F2F's formats) "
      "are written destination first.")
    w("")
    w("## Constants")
    w("")
    w("| name | value | meaning |")
    w("|---|---|---|")
    for name, c in t["constants"].items():
        w(f"| `{name}` | `{c['value']:#x}` | {c['doc']} |")
    w("")
    w("## Fields")
    w("")
    w("| field | bits | kind | meaning |")
    w("|---|---|---|---|")
    for name, f in fields.items():
        hi = f["lsb"] + f["width"] - 1
        kind = f["kind"] + (f" ({f['enum']})" if "enum" in f else "")
        w(f"| `{name}` | {hi}:{f['lsb']} | {kind} | {f['doc']} |")
    w("")
    w("## Enumerations")
    w("")
    for name, e in enums.items():
        vals = []
        for i, v in enumerate(e["values"]):
            extra = []
            if "docs" in e:
                extra.append(e["docs"][i])
            if "regs" in e and e["regs"][i] > 1:
                extra.append(f"{e['regs'][i]} registers")
            vals.append(f"`{v}`={i}" + (f" ({'; '.join(extra)})" if extra else ""))
        w(f"- **{name}** — {e['doc']}: " + ", ".join(vals))
    w("")
    w("## Opcode map")
    w("")
    w("| opcode | mnemonic | unit | summary |")
    w("|---|---|---|---|")
    for ins in sorted(insns, key=lambda i: i["opcode"]):
        w(f"| `{ins['opcode']:#04x}` | [{ins['mnemonic']}](#{ins['mnemonic'].lower()}) | {ins['unit']} | {ins['summary']} |")
    w("")
    classes = []
    for ins in insns:
        if ins["class"] not in classes:
            classes.append(ins["class"])
    for cls in classes:
        w(f"## {cls[0].upper() + cls[1:]} instructions")
        w("")
        for ins in (i for i in insns if i["class"] == cls):
            w(f"### {ins['mnemonic']}")
            w("")
            w(f"{ins['summary'][0].upper() + ins['summary'][1:]}. Unit: {ins['unit']}. Opcode `{ins['opcode']:#04x}`.")
            w("")
            late = [text for flag, text in (("writes_after_retire", "its register results may follow its RETIRE event"),
                                            ("faults_after_retire", "its fault (a global address out of bounds) may follow its RETIRE event"))
                    if ins[flag]]
            if late:
                w(f"On the RTL's commit port ([gpu-interfaces.md](gpu-interfaces.md) §3): {'; '.join(late)}.")
                w("")
            mods = "".join(mod_syntax(m, fields, enums) for m in ins["mods"])
            ops = ", ".join(operand_syntax(op, fields) for op in ins["operands"])
            w("```")
            w(f"[@[!]Pg] {ins['mnemonic']}{mods} {ops}".rstrip())
            w("```")
            w("")
            w(f"Encoding (bit ranges, high to low): {encoding_row(ins, fields)}")
            w("")
            w("```")
            w(ins["sem"].strip())
            w("```")
            w("")
    return "\n".join(o).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--toml", required=True)
    ap.add_argument("--out-dir", required=True)
    args = ap.parse_args()
    try:
        t = load(args.toml)
    except TableError as e:
        print(f"{args.toml}: error: {e}", file=sys.stderr)
        return 1
    except (tomllib.TOMLDecodeError, KeyError) as e:
        print(f"{args.toml}: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    out = pathlib.Path(args.out_dir)
    outputs = {
        out / "tsm" / "isa_gen.hpp": gen_cpp(t),
        out / "rtl" / "tsm_isa_pkg.sv": gen_sv(t),
        out / "docs" / "isa.md": gen_md(t),
    }
    for path, text in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
