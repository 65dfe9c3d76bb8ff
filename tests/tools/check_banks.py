#!/usr/bin/env python3
"""Checks the cost of shared-memory bank conflicts on the RTL (docs/sm-rtl.md §2.8, SPEC §5): the
kernel tests/rtl/banks/banks.cu reads ROUNDS words per thread at (lane * stride + r) mod 1024 and
runs three times, the same instructions each time, with one block of WARPS warps:

- stride 1 (16 banks per half-warp): no conflicts;
- stride 0 (one word for all lanes): a broadcast, no conflicts and exactly the cycles of stride 1;
- stride 16 (one bank for a half-warp): a 16-way conflict, 15 extra bank steps per half-warp
  access (16 steps where stride 1 takes one), and each extra step of a load costs its two clocks
  (the bank access and the data capture), so the run takes exactly 2 * conflicts more cycles.

Usage: check_banks.py TSM_TOOL BANKS.cu CONFIG FRONTEND WARPS ROUNDS
"""
import sys

from rtl_launch import counters, launch


def run(tool, source, config, frontend, warps, rounds, stride):
    p = launch("check_banks", tool, source, "banks", 1, 32 * warps, config, frontend,
               [f"zeros:{128 * warps}", f"i32:{stride}", f"i32:{rounds}"])
    c = counters("check_banks", p.stdout)
    return c["cycles"], c["conflicts"]


def main():
    tool, source, config, frontend = sys.argv[1:5]
    warps, rounds = int(sys.argv[5]), int(sys.argv[6])
    (c1, k1), (c0, k0), (c16, k16) = (run(tool, source, config, frontend, warps, rounds, s) for s in (1, 0, 16))
    accesses = rounds * warps * 2  # half-warp accesses of the loop
    errors = []
    if k1 != 0:
        errors.append(f"stride 1 counted {k1} bank conflicts, want 0")
    if k0 != 0 or c0 != c1:
        errors.append(f"the broadcast counted {k0} conflicts in {c0} cycles, want 0 in {c1} (stride 1's)")
    if k16 != 15 * accesses:
        errors.append(f"stride 16 counted {k16} conflicts, want 15 per half-warp access: {15 * accesses}")
    if c16 - c1 != 2 * k16:
        errors.append(f"stride 16 took {c16 - c1} cycles more than stride 1, want two per extra step: {2 * k16}")
    if errors:
        sys.exit("check_banks: " + "; ".join(errors))
    print(f"check_banks: {config}, {warps} warps x {rounds} rounds: stride 1 and the broadcast {c1} cycles, no conflicts; "
          f"stride 16 {c16} cycles, {k16} conflicts (16 steps per half-warp access instead of 1)")


if __name__ == "__main__":
    main()
