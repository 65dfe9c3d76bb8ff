#!/usr/bin/env python3
"""Checks the SP throughput goal of SPEC §5 (docs/sm-rtl.md §2.0, §4): a multiply-add-bound kernel
with WARPS resident warps keeps the SP lanes busy in at least MIN_PERCENT of the cycles. The kernel
is the suite's madloop (eight independent FFMA chains a thread, a loop of ITERS rounds), launched
as one block of 32 * WARPS threads on the RTL with lockstep; the counters are deterministic, so the
share is a property of the microarchitecture, not of the host.

Usage: check_sp_busy.py TSM_TOOL MADLOOP.cu CONFIG FRONTEND WARPS ITERS MIN_PERCENT
"""
import os
import re
import struct
import subprocess
import sys
import tempfile


def main():
    tool, source, config, frontend = sys.argv[1:5]
    warps, iters, minimum = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
    n = 32 * warps
    with tempfile.TemporaryDirectory() as tmp:
        x = os.path.join(tmp, "x.bin")
        with open(x, "wb") as f:
            f.write(struct.pack(f"<{n}f", *(0.25 + 0.001 * i for i in range(n))))
        # madloop(n, iters, m, c, x, y): |m| < 1 keeps the chains finite over any number of rounds.
        args = [tool, "launch", source, "--kernel", "madloop", "--grid", "1", "--block", str(n), "--backend", "rtl",
                "--config", config, "--frontend", frontend, "--arg", f"u32:{n}", "--arg", f"u32:{iters}",
                "--arg", "f32:0.75", "--arg", "f32:0.5", "--arg", f"buf:{x}", "--arg", f"zeros:{4 * n}"]
        p = subprocess.run(args, text=True, capture_output=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        sys.exit(f"check_sp_busy: {' '.join(args)} exited with {p.returncode}")
    m = re.search(r"rtl (\d+) cycles, IPC ([0-9.]+) per SM .*SP busy ([0-9.]+) %", p.stdout)
    if not m:
        sys.exit("check_sp_busy: no counters line")
    cycles, ipc, sp = int(m.group(1)), float(m.group(2)), float(m.group(3))
    if sp < minimum:
        sys.exit(f"check_sp_busy: {warps} warps of madloop ({iters} rounds) on {config}: SP busy {sp} % in "
                 f"{cycles} cycles (IPC {ipc}), below the {minimum} % goal")
    print(f"check_sp_busy: {warps} warps of madloop ({iters} rounds) on {config}: SP busy {sp} % in {cycles} cycles "
          f"(IPC {ipc}), at least {minimum} %")


if __name__ == "__main__":
    main()
