#!/usr/bin/env python3
"""Checks that the RTL keeps exactly as many blocks resident per SM as the occupancy calculation
allows (SPEC §5, docs/sm-rtl.md §4): it launches KERNEL with a grid of more blocks than fit, reads
the commit events (TSM_RTL_EVENTS: PLACE events, and RETIREs that end a warp), follows the warp
slots by the RTL's rule (a placed block's warps take the lowest free slots; a warp frees its slot
when it exits), and compares the most blocks resident at once on each SM with what
the launcher's occupancy calculation (`tsm-tool occupancy`) gives for the kernel's registers and
shared memory.

Usage: check_occupancy_rtl.py TSM_TOOL SOURCE.cu KERNEL CONFIG FRONTEND BLOCK SHARED_BYTES ARG...
(in each ARG, {threads} is the launch's thread count and {bytes} four bytes for each thread)
"""
import re
import sys

from rtl_launch import launch


def main():
    tool, source, kernel, config, frontend, block, shared = sys.argv[1:8]
    block = int(block)
    kargs = sys.argv[8:]
    warps = (block + 31) // 32

    def run(grid, events):
        # {threads}: the launch's threads; {bytes}: a 32-bit word for each (the grid grows with the
        # occupancy, so buffers indexed by thread grow with it).
        args = [a.replace("{threads}", str(grid * block)).replace("{bytes}", str(4 * grid * block)) for a in kargs]
        return launch("check_occupancy_rtl", tool, source, kernel, grid, block, config, frontend, args, lockstep=False,
                      events=events, echo=False)

    # The occupancy the launcher computed for the kernel's registers and shared memory (what
    # `tsm-tool occupancy` prints for them), from a first, one-block launch.
    first = run(1, False)
    m = re.search(r"\((\d+) resident per SM\)", first.stdout)
    if not m:
        sys.exit("check_occupancy_rtl: the launch did not say how many blocks are resident per SM")
    want = int(m.group(1))

    p = run(2 * want + 1, True)
    slots = {}      # (sm, warp slot) -> block
    live = {}       # (sm, block) -> warps not exited
    resident = {}   # sm -> blocks resident now
    most = {}
    ev = re.compile(r"^\[(\d+)\] sm(\d+) k(\d+) w(\d+) .* exit(\d) .* d([0-9a-f]{8}),")
    for line in p.stderr.splitlines():
        e = ev.match(line)
        if not e:
            continue
        sm, kind, warp, exit_ = int(e.group(2)), int(e.group(3)), int(e.group(4)), int(e.group(5))
        if kind == 4:  # PLACE: the block's warps take the lowest free slots
            blk = int(e.group(6), 16)
            free = [w for w in range(64) if (sm, w) not in slots]
            for w in free[:warps]:
                slots[(sm, w)] = blk
            live[(sm, blk)] = warps
            resident[sm] = resident.get(sm, 0) + 1
            most[sm] = max(most.get(sm, 0), resident[sm])
        elif kind == 0 and exit_:
            blk = slots.pop((sm, warp))
            live[(sm, blk)] -= 1
            if live[(sm, blk)] == 0:
                resident[sm] -= 1
    if not most:
        sys.exit("check_occupancy_rtl: no PLACE events")
    bad = {sm: n for sm, n in most.items() if n != want}
    if bad:
        sys.exit(f"check_occupancy_rtl: {kernel}, block {block}, {shared} bytes shared on {config}: "
                 f"the RTL kept at most {bad} blocks resident (SM: blocks), the occupancy calculation says {want}")
    print(f"check_occupancy_rtl: {kernel}, block {block}, {shared} bytes shared on {config}: at most "
          f"{want} blocks resident per SM on the RTL ({len(most)} SMs), as computed")


if __name__ == "__main__":
    main()
