#!/usr/bin/env python3
"""The translator's hard control-flow and register-pressure kernels on the RTL, in lockstep.

tests/translator/cuda/switches.cu (sw7: switch arms shared between compare chains, an early return
among them; clang's PTX of it once left the `default` lanes' results unwritten, with golden and RTL
agreeing) and sorts.cu (an insertion sort over a 16-int local array, bitonic networks over 16 and
32 values; many live values and predicates), through each installed front end, launched with
`tsm launch --backend rtl --config small` (lockstep on) and compared with this script's own
evaluation of the same C code.

Usage: TSM_TOOL=path check_rtl_kernels.py CUDA_DIR WORKDIR
"""
import os
import random
import shutil
import struct
import subprocess
import sys
from pathlib import Path

failures: list[str] = []


def c_rem(a: int, b: int) -> int:
    """C's % (truncating division)."""
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return a - q * b


def wrap32(x: int) -> int:
    return (x + 2**31) % 2**32 - 2**31


def sw7(values: list[int], marker: int) -> list[int]:
    out = []
    for i, v in enumerate(values):
        m = c_rem(c_rem(v, 7) + 7, 7)
        if m == 5:
            out.append(marker)
            continue
        if m < 4:
            r = 10 + m
        elif m == 4:
            r = wrap32(-v)
        else:
            r = sum(1 << k for k in range(3) if not (v >> k) & 1)
        out.append(wrap32(r + i))
    return out


def launch(tool: str, source: Path, kernel: str, frontend: str, grid: int, block: int, args: list[str], what: str) -> bool:
    argv = [tool, "launch", str(source), "--kernel", kernel, "--frontend", frontend, "--backend", "rtl", "--config", "small",
            "--grid", str(grid), "--block", str(block), *[a for arg in args for a in ("--arg", arg)]]
    print("$ " + " ".join(argv[1:]), flush=True)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        failures.append(f"{what}: exit status {r.returncode}: {r.stderr.strip()[-400:]}")
        return False
    return True


def main() -> int:
    tool = os.environ["TSM_TOOL"]
    cuda, work = Path(sys.argv[1]), Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    frontends = ["clang"]
    if shutil.which("nvcc") or Path("/usr/local/cuda/bin/nvcc").exists():
        frontends.insert(0, "nvcc")
    else:
        print("nvcc is not installed: its rows are skipped")
    rng = random.Random(32)
    n = 160
    values = [rng.randrange(-2**31, 2**31) for _ in range(n)]
    values[:14] = range(-7, 7)
    marker = 0x5EEDBEEF
    (work / "sw7.in").write_bytes(struct.pack(f"<{n}i", *values))
    (work / "marker.in").write_bytes(struct.pack(f"<{n}i", *([wrap32(marker)] * n)))
    threads = 48
    sort_in = [rng.randrange(-1000, 1000) for _ in range(32 * threads)]
    (work / "sort.in").write_bytes(struct.pack(f"<{len(sort_in)}i", *sort_in))
    for fe in frontends:
        out = work / f"sw7-{fe}.out"
        if launch(tool, cuda / "switches.cu", "sw7", fe, 3, 64, [f"buf:{work / 'sw7.in'}", f"buf:{work / 'marker.in'}:{out}", f"i32:{n}"],
                  f"sw7 ({fe})"):
            got = list(struct.unpack(f"<{n}i", out.read_bytes()))
            want = sw7(values, wrap32(marker))
            bad = [i for i in range(n) if got[i] != want[i]]
            if bad:
                failures.append(f"sw7 ({fe}): {len(bad)} of {n} words wrong, first at thread {bad[0]}: {got[bad[0]]} != {want[bad[0]]}")
        for kernel, width, extra in (("insertion16", 16, []), ("bitonic16", 16, []), ("bitonic32", 32, ["i32:1"])):
            out = work / f"{kernel}-{fe}.out"
            if not launch(tool, cuda / "sorts.cu", kernel, fe, 1, threads,
                          [f"buf:{work / 'sort.in'}", f"zeros:{4 * width * threads}:{out}", f"i32:{threads}", *extra], f"{kernel} ({fe})"):
                continue
            got = list(struct.unpack(f"<{width * threads}i", out.read_bytes()))
            for t in range(threads):
                want = sorted(sort_in[width * t:width * (t + 1)], reverse=bool(extra))
                if got[width * t:width * (t + 1)] != want:
                    failures.append(f"{kernel} ({fe}): thread {t}'s {width} values are not sorted")
                    break
    for f in failures:
        print("FAIL: " + f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
