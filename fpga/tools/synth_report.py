#!/usr/bin/env python3
"""Runs a Yosys synth_ecp5 script of the GPU top and reports what the design uses on an ECP5.

Usage: synth_report.py --yosys YOSYS --script SCRIPT.ys --config NAME --dir DIR

The script (written by fpga/CMakeLists.txt) leaves DIR/stat.json (`stat -json`) and its log in
DIR/synth.log. This writes DIR/utilization.json and DIR/utilization.md: the cells by ECP5
primitive, the share of an LFE5U-85F (the ULX3S's part), how each memory of the RTL was mapped
(block RAM, LUT RAM or flip-flops), and Yosys's run time and peak memory.
"""
import argparse
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

# LFE5U-85F resources, from Lattice's ECP5 and ECP5-5G Family Data Sheet (FPGA-DS-02012), table 1.1:
# 84K LUTs (41,820 slices of two LUT4s and two flip-flops), 208 sysMEM blocks (DP16KD, 18 Kbit
# each), 156 18x18 multipliers.
DEVICE = "LFE5U-85F"
CAPACITY = {"LUT4": 83640, "FF": 83640, "MULT18X18D": 156, "DP16KD": 208}

# ECP5 primitives in a synth_ecp5 netlist, grouped for the report.
GROUPS = [
    ("LUT4", "4-input LUTs"),
    ("CCU2C", "carry cells (two LUT4s each)"),
    ("PFUMX", "LUT5 muxes"),
    ("L6MUX21", "LUT6 muxes"),
    ("TRELLIS_FF", "flip-flops"),
    ("TRELLIS_DPR16X4", "LUT RAM (16x4)"),
    ("MULT18X18D", "18x18 multipliers"),
    ("ALU54B", "54-bit DSP ALUs"),
    ("DP16KD", "block RAM (18 Kbit)"),
]


def fail(msg):
    print(f"synth_report: {msg}", file=sys.stderr)
    sys.exit(1)


def top_cells(stat):
    """Cell counts by type of the design (the top module, hierarchy flattened)."""
    if "design" in stat and "num_cells_by_type" in stat["design"]:
        return stat["design"]["num_cells_by_type"]
    modules = stat.get("modules", {})
    for name, m in modules.items():
        if name.lstrip("\\") == "tsm_gpu":
            return m["num_cells_by_type"]
    fail(f"no tsm_gpu in the stat output (modules: {list(modules)})")


KINDS = {"$__ECP5_DP16KD_": "DP16KD block RAM", "$__ECP5_PDPW16KD_": "DP16KD block RAM (pseudo dual-port, 36 bits wide)",
         "$__TRELLIS_DPR16X4_": "LUT RAM"}


def memory_mapping(log_text):
    """How memory_libmap mapped each memory, from the synthesis log: {memory: mapping}."""
    out = {}
    for m in re.finditer(r"^mapping memory (\S+) via (\S+)", log_text, re.M):
        out[short_name(m.group(1))] = KINDS.get(m.group(2), m.group(2))
    for m in re.finditer(r"^using FF mapping for memory (\S+)", log_text, re.M):
        out[short_name(m.group(1))] = "logic (flip-flops, or LUTs for a ROM)"
    return out


def short_name(name):
    """tsm_gpu.g_sm[0].u_sm.u_rf.g_port[1].g_lane[3].mem -> u_sm.u_rf.g_port[1].g_lane[3].mem"""
    name = name.replace("$flatten\\", "")
    return name[name.index("u_sm."):] if "u_sm." in name else name.removeprefix("tsm_gpu.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--yosys", required=True)
    ap.add_argument("--script", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--dir", required=True, type=Path)
    a = ap.parse_args()
    log = a.dir / "synth.log"
    start = time.monotonic()
    p = subprocess.run([a.yosys, "-q", "-l", str(log), "-s", a.script])
    seconds = time.monotonic() - start
    peak_gb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e6  # ru_maxrss is in KiB on Linux
    if p.returncode != 0:
        fail(f"yosys exited with {p.returncode}; log: {log}")
    stat_text = (a.dir / "stat.json").read_text()
    stat = json.loads(stat_text[stat_text.index("{"):])
    cells = top_cells(stat)
    log_text = log.read_text(errors="replace")
    version = re.search(r"Yosys (\d+\.\d+\S*)", log_text)
    used = {k: int(cells.get(k, 0)) for k, _ in GROUPS}
    lut4_equiv = used["LUT4"] + 2 * used["CCU2C"]
    util = {
        "LUT4": lut4_equiv,
        "FF": used["TRELLIS_FF"],
        "MULT18X18D": used["MULT18X18D"],
        "DP16KD": used["DP16KD"],
    }
    mapping = memory_mapping(log_text)
    result = {
        "config": a.config,
        "sms": 1,
        "top": "tsm_gpu",
        "yosys": version.group(1) if version else "unknown",
        "flow": "synth_ecp5 by labels, without share (fpga/CMakeLists.txt)",
        "yosys_seconds": round(seconds, 1),
        "yosys_peak_gb": round(peak_gb, 2),
        "cells": used,
        "other_cells": {k: v for k, v in sorted(cells.items()) if k not in used},
        "device": DEVICE,
        "utilization": {k: {"used": v, "available": CAPACITY[k], "percent": round(100.0 * v / CAPACITY[k], 1)}
                        for k, v in util.items()},
        "memories": mapping,
    }
    (a.dir / "utilization.json").write_text(json.dumps(result, indent=2) + "\n")

    md = [f"## `{a.config}`: GPU top with one SM, Yosys {result['yosys']} `synth_ecp5`", "",
          f"Yosys ran {seconds / 60:.1f} minutes and peaked at {peak_gb:.1f} GB.", "",
          f"| resource | used | {DEVICE} | % |", "|---|---|---|---|"]
    names = {"LUT4": "LUT4 (logic; a carry cell counts as two)", "FF": "flip-flops",
             "MULT18X18D": "18x18 multipliers", "DP16KD": "DP16KD block RAMs"}
    for k, u in result["utilization"].items():
        md.append(f"| {names[k]} | {u['used']:,} | {u['available']:,} | {u['percent']} |")
    md += ["", "| cell | count | what |", "|---|---|---|"]
    for k, what in GROUPS:
        md.append(f"| `{k}` | {used[k]:,} | {what} |")
    if mapping:
        # One row per memory kind and mapping, e.g. the 24 register-file slices in one row.
        groups = {}
        for mem, how in sorted(mapping.items()):
            key = (re.sub(r"\[\d+\]", "[*]", mem), how)
            groups[key] = groups.get(key, 0) + 1
        md += ["", "| memory | instances | mapped to |", "|---|---|---|"]
        for (mem, how), n in groups.items():
            md.append(f"| `{mem}` | {n} | {how} |")
    (a.dir / "utilization.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
