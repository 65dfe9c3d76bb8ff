#!/usr/bin/env python3
"""Checks that the SFU works beside the SP lanes (docs/sm-rtl.md §2.0): a kernel of MUFU.RSQ chains
with an FFMA after each MUFU, 8 warps in one block, runs on the RTL with lockstep, and the GPU's
counter of clocks in which the SP lanes take a row while the SFU sequencer works (COUNTER[11])
shows that most SP rows ran beside SFU work. An engine that runs one instruction at a time counts 0.

Usage: check_sfu_overlap.py TSM_TOOL KERNEL.cu CONFIG FRONTEND
"""
import sys

from rtl_launch import counters, launch


def main():
    tool, source, config, frontend = sys.argv[1:5]
    p = launch("check_sfu_overlap", tool, source, "rsq_chain", 1, 256, config, frontend, ["zeros:1024", "i32:16"])
    c = counters("check_sfu_overlap", p.stdout)
    sp, sfu, both = c["sp"], c["sfu"], c["both"]
    if not (sp > 0 and sfu > 0 and both >= 0.5 * sp):
        sys.exit(f"check_sfu_overlap: SP busy {sp} %, SFU busy {sfu} %, both {both} %: "
                 "fewer than half of the SP rows ran beside SFU work")
    print(f"check_sfu_overlap: SP busy {sp} %, SFU busy {sfu} %; {both} % of the clocks had both at work "
          f"({100 * both / sp:.0f} % of the SP rows)")


if __name__ == "__main__":
    main()
