#!/usr/bin/env python3
"""Checks that the SFU works beside the SP lanes (docs/sm-rtl.md §2.0): a kernel of MUFU.RSQ chains
with an FFMA after each MUFU, 8 warps in one block, runs on the RTL with lockstep, and the GPU's
counter of clocks in which the SP lanes take a row while the SFU sequencer works (COUNTER[11])
shows that most SP rows ran beside SFU work. An engine that runs one instruction at a time counts 0.

Usage: check_sfu_overlap.py TSM_TOOL KERNEL.cu CONFIG FRONTEND
"""
import re
import subprocess
import sys


def main():
    tool, source, config, frontend = sys.argv[1:5]
    args = [tool, "launch", source, "--kernel", "rsq_chain", "--grid", "1", "--block", "256", "--backend", "rtl",
            "--config", config, "--frontend", frontend, "--arg", "zeros:1024", "--arg", "i32:16"]
    p = subprocess.run(args, text=True, capture_output=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        sys.exit(f"check_sfu_overlap: {' '.join(args)} exited with {p.returncode}")
    m = re.search(r"SP busy ([0-9.]+) %, SFU busy ([0-9.]+) % \(([0-9.]+) % both\)", p.stdout)
    if not m:
        sys.exit("check_sfu_overlap: no counters line")
    sp, sfu, both = (float(g) for g in m.groups())
    if not (sp > 0 and sfu > 0 and both >= 0.5 * sp):
        sys.exit(f"check_sfu_overlap: SP busy {sp} %, SFU busy {sfu} %, both {both} %: "
                 "fewer than half of the SP rows ran beside SFU work")
    print(f"check_sfu_overlap: SP busy {sp} %, SFU busy {sfu} %; {both} % of the clocks had both at work "
          f"({100 * both / sp:.0f} % of the SP rows)")


if __name__ == "__main__":
    main()
