#!/usr/bin/env python3
"""Runs `./tsm fpga synth --config CONFIG` (Yosys synth_ecp5 of the GPU top, one SM) and checks its
report: every register-file slice and shared-memory bank is a DP16KD block RAM, the design uses
LUTs, flip-flops and multipliers, and the JSON and Markdown reports agree.

Usage: check_fpga_synth.py TSM_SCRIPT BUILD_DIR CONFIG
"""
import json
import subprocess
import sys
from pathlib import Path


def fail(msg):
    print(f"check_fpga_synth: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    tsm, build, config = sys.argv[1:4]
    p = subprocess.run([tsm, "fpga", "synth", "--config", config], text=True, capture_output=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        fail(f"./tsm fpga synth --config {config} exited with {p.returncode}")
    d = Path(build) / "fpga" / config
    r = json.loads((d / "utilization.json").read_text())
    u = r["utilization"]
    for k in ("LUT4", "FF", "MULT18X18D", "DP16KD"):
        if u[k]["used"] <= 0:
            fail(f"no {k} used: {u}")
    mems = r["memories"]
    rf = [m for m in mems if ".u_rf." in m]
    banks = [m for m in mems if ".g_bank[" in m]
    if not rf or not banks:
        fail(f"the register file or the shared-memory banks are missing from the memory report: {sorted(mems)}")
    for m in rf + banks:
        if not mems[m].startswith("DP16KD"):
            fail(f"{m} was mapped to {mems[m]}, not block RAM")
    if f"| {u['DP16KD']['used']:,} |" not in (d / "utilization.md").read_text():
        fail("utilization.md does not show the DP16KD count of utilization.json")
    print(f"check_fpga_synth: {config}: {len(rf)} register-file slices and {len(banks)} shared-memory banks in block RAM; "
          f"{u['LUT4']['used']} LUT4, {u['FF']['used']} FF, {u['MULT18X18D']['used']} MULT18, {u['DP16KD']['used']} DP16KD")


if __name__ == "__main__":
    main()
