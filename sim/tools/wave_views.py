"""TeslaSM's waveform views (docs/waveforms.md): the documented debug signals, the GTKWave translate
filters generated from the ISA table and the RTL's enums, and the .gtkw view generated for the
scopes a trace holds.

The filters come from the single sources of truth: opcodes from isa/isa.toml, unit names from the
ISA generator's unit order (the same order tsm_isa_pkg's UNIT_* constants take), warp and engine
states from the enums dbg_wstate_e and estate_e in rtl/sm/tsm_sm.sv, the states of the units the engine
waits on (the load/store unit, the warp-op pipe, the row pipe) from their enums (UNIT_STATES).
"""
import os
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "isa"))
import gen_isa  # noqa: E402  (UNITS: the unit order of the ISA package)
import wave  # noqa: E402  (GTKWave save files, filters, rendering)

# The documented debug signals of each SM (docs/waveforms.md §2): name, display, filter, meaning.
# Display: "bin" one-bit waves, "hex", "dec", or "filter" with the named translate filter.
SM_GROUPS = [
    ("issue", [
        ("dbg_issue", "bin", None, "an instruction issues this clock"),
        ("dbg_warp", "dec", None, "the engine's current warp slot"),
        ("dbg_pc", "dec", None, "its PC (instruction index)"),
        ("dbg_opcode", "filter", "opcodes", "its opcode, shown as the mnemonic"),
        ("dbg_unit", "filter", "units", "its unit: SP, SFU, DP, MEM, CTRL, SYNC"),
        ("dbg_active", "hex", None, "the warp's active lanes"),
        ("dbg_exec", "hex", None, "lanes whose guard holds (at issue)"),
        ("dbg_engine", "filter", "engine_states", "the issue engine's state"),
        ("dbg_lsu", "filter", "lsu_states", "the load/store unit's state (the engine waits in LSU)"),
        ("dbg_warp_op", "filter", "warp_op_states", "the warp-op pipe's state (the engine waits in WARP_OP)"),
        ("dbg_rows", "filter", "row_states", "the row pipe's state (the engine waits in ROWS)"),
    ]),
    ("stalls", [
        ("dbg_stall_sb", "bin", None, "no warp issues: one waits on the scoreboard"),
        ("dbg_stall_bar", "bin", None, "no warp issues: one waits at a barrier"),
        ("dbg_stall_fetch", "bin", None, "the engine waits for an instruction or constant fetch"),
        ("dbg_bar_arrive", "bin", None, "the current warp arrives at a barrier"),
        ("dbg_bar_id", "dec", None, "... barrier number"),
        ("dbg_bar_count", "dec", None, "... warps arrived, this one included"),
        ("dbg_bar_release", "bin", None, "that arrival completes the barrier: its warps are released"),
    ]),
    ("memory", [
        ("dbg_mem_inflight", "dec", None, "memory requests sent and not answered"),
        ("dbg_load_slots", "dec", None, "load and atomic slots in use"),
        ("dbg_bank_conflict", "bin", None, "a shared-memory access takes another step for a bank conflict"),
    ]),
]
# Per warp slot w, in scope g_dbg_warp[w] of the SM.
WARP_SIGNALS = [
    ("state", "filter", "warp_states", "the warp's state"),
    ("depth", "dec", None, "reconvergence-stack entries"),
    ("pc", "dec", None, "its PC"),
    ("active", "hex", None, "its active lanes"),
]
FILTERS = ("opcodes", "units", "warp_states", "engine_states", "lsu_states", "warp_op_states", "row_states")
# The states of the units the engine waits on: filter name, the unit's file beside tsm_sm.sv, its enum.
UNIT_STATES = [("lsu_states", "tsm_lsu.sv", "lsu_state_e"), ("warp_op_states", "tsm_warp_ops_pipe.sv", "warp_op_state_e"),
               ("row_states", "tsm_row_pipe.sv", "row_state_e")]


def sv_enum(text, type_name):
    """The names of a `typedef enum logic [..] { A, B, ... } type_name;` in order of value."""
    text = re.sub(r"//[^\n]*", "", text)
    m = re.search(r"typedef\s+enum\s+logic\s*\[[^\]]*\]\s*\{([^}]*)\}\s*" + re.escape(type_name) + r"\s*;", text)
    if not m:
        raise SystemExit(f"wave: no enum {type_name} in the RTL")
    names = [n.strip() for n in m.group(1).split(",") if n.strip()]
    if any("=" in n for n in names):
        raise SystemExit(f"wave: enum {type_name} assigns values explicitly; the filter generator expects 0, 1, 2, ...")
    return names


def sv_width(text, pattern):
    """The width of the first `logic [N:0] ... NAME` declaration matching `pattern` (a regex)."""
    m = re.search(r"logic\s*\[(\d+):0\][^;]*?" + pattern, text)
    if not m:
        raise SystemExit(f"wave: no declaration matching {pattern} in the RTL")
    return int(m.group(1)) + 1


def filter_tables(toml_path, sm_sv_path):
    """name -> ({value: label}, bits of the signal it is for) for every translate filter. The units' state
    enums (UNIT_STATES) are read from their files beside the SM's."""
    with open(toml_path, "rb") as f:
        table = tomllib.load(f)
    sm = re.sub(r"//[^\n]*", "", pathlib.Path(sm_sv_path).read_text())
    opcodes = {int(i["opcode"]): i["mnemonic"] for i in table["insn"]}
    op_bits = int(table["fields"]["op"]["width"])
    tables = {
        "opcodes": (opcodes, op_bits),
        "units": (dict(enumerate(gen_isa.UNITS)), sv_width(sm, r"\bdbg_unit\s*;")),
        "warp_states": ({v: n.removeprefix("WS_") for v, n in enumerate(sv_enum(sm, "dbg_wstate_e"))},
                        sv_width(sm, r"\bdbg_wstate_e\s*;")),
        "engine_states": ({v: n.removeprefix("E_") for v, n in enumerate(sv_enum(sm, "estate_e"))},
                          sv_width(sm, r"\bestate_e\s*;")),
    }
    for name, file, enum in UNIT_STATES:
        unit = re.sub(r"//[^\n]*", "", pathlib.Path(sm_sv_path).with_name(file).read_text())
        tables[name] = ({v: n.removeprefix("S_") for v, n in enumerate(sv_enum(unit, enum))},
                        sv_width(unit, r"\b" + enum + r"\s*;"))
    return tables


def write_filters(out_dir, toml_path=ROOT / "isa" / "isa.toml", sm_sv_path=ROOT / "rtl" / "sm" / "tsm_sm.sv"):
    """Write OUT_DIR/NAME.txt for every translate filter."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, (mapping, bits) in filter_tables(toml_path, sm_sv_path).items():
        wave.write_filter(out / f"{name}.txt", mapping, bits=bits)


def sm_scopes(signals):
    """The SM scopes of a trace ("TOP.tsm_gpu.g_sm[0].u_sm", ...), in SM order, and per SM its warp slots."""
    sms = {}
    for name in signals:
        m = re.match(r"(.*\.g_sm\[(\d+)\]\.u_sm)\.(?:g_dbg_warp\[(\d+)\]\.state|dbg_issue$)", re.sub(r"\[\d+:\d+\]$", "", name))
        if not m:
            continue
        entry = sms.setdefault(int(m.group(2)), (m.group(1), set()))
        if m.group(3) is not None:
            entry[1].add(int(m.group(3)))
    return [(scope, sorted(warps)) for _, (scope, warps) in sorted(sms.items())]


def parse_list(text):
    """ "0-3,8" -> {0, 1, 2, 3, 8}; None -> None."""
    if text is None:
        return None
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        try:
            out.update(range(int(lo), int(hi or lo) + 1))
        except ValueError:
            raise SystemExit(f"wave: '{text}' is not a list like 0-3,8")
    return out


GROUP_NAMES = [title for title, _ in SM_GROUPS] + ["warps"]


def make_view(fst, filters_dir, gtkw, warps=None, sms=None, clocks=None, open_warps=4, size=(1600, 900), groups_shown=None):
    """Write the .gtkw view of trace `fst`: per SM the debug signals in groups, then a group per
    warp slot (the first `open_warps` of them open), every encoded value through its filter.
    `warps`/`sms`: sets of slots/SMs to show (None: all); `clocks`: (first, last) clock to show;
    `groups_shown`: names of GROUP_NAMES to show (None: all)."""
    unknown = set(groups_shown or ()) - set(GROUP_NAMES)
    if unknown:
        raise SystemExit(f"wave: no group {', '.join(sorted(unknown))} (groups: {', '.join(GROUP_NAMES)})")
    signals = wave.fst_signals(fst)
    scopes = sm_scopes(signals)
    if not scopes:
        raise SystemExit(f"wave: {fst} holds no SM debug signals (traced with --trace-depth too small? 0 traces all)")
    flt = {name: os.path.abspath(os.path.join(filters_dir, f"{name}.txt")) for name in FILTERS}
    for path in flt.values():
        if not os.path.exists(path):
            raise SystemExit(f"wave: no translate filter {path} (./tsm build writes them)")
    groups = []
    top = [("TOP.clk_i", "bin", None, "clk")] if "TOP.clk_i" in signals else []
    for index, (scope, slots) in enumerate(scopes):
        sm = int(re.search(r"g_sm\[(\d+)\]", scope).group(1))
        if sms is not None and sm not in sms:
            continue
        for title, members in SM_GROUPS:
            if groups_shown is not None and title not in groups_shown:
                continue
            sig = [(f"{scope}.{name}", fmt if fmt != "filter" else "hex", flt[f] if f else None,
                    f"sm{sm}.{name.removeprefix('dbg_')}") for name, fmt, f, _ in members]
            groups.append(wave.Group(f"SM {sm} {title}", (top if not groups else []) + sig))
        shown = [w for w in slots if (warps is None or w in warps) and (groups_shown is None or "warps" in groups_shown)]
        for n, w in enumerate(shown):
            sig = [(f"{scope}.g_dbg_warp[{w}].{name}", fmt if fmt != "filter" else "hex", flt[f] if f else None,
                    f"sm{sm}.w{w}.{name}") for name, fmt, f, _ in WARP_SIGNALS]
            groups.append(wave.Group(f"SM {sm} warp {w}", sig, closed=n >= open_warps))
    if not groups:
        raise SystemExit("wave: --sms/--warps leave nothing to show")
    time_range = None
    if clocks is not None:
        # Within the dump: GTKWave shows a range that runs past its end from time 0 instead.
        head = wave.fst_header(fst)
        end = min(10 * clocks[1] + 9, head["end"])
        start = max(min(10 * clocks[0], end - 10), head["start"])
        time_range = (start, end)
    wave.write_gtkw(gtkw, fst, groups, time_range=time_range, size=size,
                    comment="TeslaSM debug signals (docs/waveforms.md); one clock is 1 ns")


