#!/usr/bin/env python3
"""Checks the SP throughput goal of SPEC §5 (docs/sm-rtl.md §2.0, §4): a multiply-add-bound kernel
with WARPS resident warps keeps the SP lanes busy in at least MIN_PERCENT of the cycles. The kernel
is the suite's madloop (eight independent FFMA chains a thread, a loop of ITERS rounds), launched
as one block of 32 * WARPS threads on the RTL with lockstep; the counters are deterministic, so the
share is a property of the microarchitecture, not of the host.

Usage: check_sp_busy.py TSM_TOOL MADLOOP.cu CONFIG FRONTEND WARPS ITERS MIN_PERCENT
"""
import os
import struct
import sys
import tempfile

from rtl_launch import counters, launch


def main():
    tool, source, config, frontend = sys.argv[1:5]
    warps, iters, minimum = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
    n = 32 * warps
    with tempfile.TemporaryDirectory() as tmp:
        x = os.path.join(tmp, "x.bin")
        with open(x, "wb") as f:
            f.write(struct.pack(f"<{n}f", *(0.25 + 0.001 * i for i in range(n))))
        # madloop(n, iters, m, c, x, y): |m| < 1 keeps the chains finite over any number of rounds.
        p = launch("check_sp_busy", tool, source, "madloop", 1, n, config, frontend,
                   [f"u32:{n}", f"u32:{iters}", "f32:0.75", "f32:0.5", f"buf:{x}", f"zeros:{4 * n}"])
    c = counters("check_sp_busy", p.stdout)
    cycles, ipc, sp = c["cycles"], c["ipc"], c["sp"]
    if sp < minimum:
        sys.exit(f"check_sp_busy: {warps} warps of madloop ({iters} rounds) on {config}: SP busy {sp} % in "
                 f"{cycles} cycles (IPC {ipc}), below the {minimum} % goal")
    print(f"check_sp_busy: {warps} warps of madloop ({iters} rounds) on {config}: SP busy {sp} % in {cycles} cycles "
          f"(IPC {ipc}), at least {minimum} %")


if __name__ == "__main__":
    main()
