#!/usr/bin/env python3
"""The translator's hard control-flow and register-pressure kernels on the RTL, in lockstep.

tests/translator/cuda/switches.cu (sw7: switch arms shared between compare chains, an early return
among them; clang's PTX of it once left the `default` lanes' results unwritten, with golden and RTL
agreeing), exits.cu (early returns among unrolled loops of switches: branches with an exiting side
and joins that ignore the exiting paths) and sorts.cu (an insertion sort over a 16-int local array, bitonic networks over 16 and
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


def exits(values: list[int], n: int, pb: int) -> list[int]:
    """exits.cu's kernel: early returns among unrolled loops of switches."""
    out = [0] * (8 * n)
    for i in range(n):
        o = [0] * 8
        a, b, l = values[i], values[(i * 7 + 3) % n], values[(i * 5 + 1) % n]
        done = False
        for k in range(3):
            if a != 0 and k > (b >> (i & 31)) and -k < a:
                m = c_rem(c_rem(a, 6) + 6, 6)
                if m == 1:
                    l = 0
                if m in (0, 1, 5):
                    if not ((b % 2**32) >> (k + 3)) & 1:
                        o[7] = 1 + k
                        done = True
                        break
                elif m == 2:
                    o[6] = 2
                    done = True
                    break
            a = wrap32(a * 3 + k)
            if l == 2:
                break
        if not done:
            for k in range(i % 5):
                if pb % 4 == 1:
                    o[1] += 1
                elif pb % 4 == 3:
                    if a & 1:
                        done = True
                        break
                    o[2] = (o[2] + a) % 2**32
                if ((a >> k) & 3) == 3:
                    o[3] = k
                    done = True
                    break
        if not done:
            o[0] = (a + l) % 2**32
        out[8 * i:8 * i + 8] = o
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
    exit_values = [rng.randrange(-2000, 2000) for _ in range(96)]
    (work / "exits.in").write_bytes(struct.pack(f"<{len(exit_values)}i", *exit_values))
    for fe in frontends:
        out = work / f"sw7-{fe}.out"
        if launch(tool, cuda / "switches.cu", "sw7", fe, 3, 64, [f"buf:{work / 'sw7.in'}", f"buf:{work / 'marker.in'}:{out}", f"i32:{n}"],
                  f"sw7 ({fe})"):
            got = list(struct.unpack(f"<{n}i", out.read_bytes()))
            want = sw7(values, wrap32(marker))
            bad = [i for i in range(n) if got[i] != want[i]]
            if bad:
                failures.append(f"sw7 ({fe}): {len(bad)} of {n} words wrong, first at thread {bad[0]}: {got[bad[0]]} != {want[bad[0]]}")
        for pb in (1, 3):
            m = 96
            out = work / f"exits-{fe}-{pb}.out"
            if launch(tool, cuda / "exits.cu", "exits", fe, 2, 64,
                      [f"buf:{work / 'exits.in'}", f"zeros:{32 * m}:{out}", f"i32:{m}", f"u32:{pb}"], f"exits pb={pb} ({fe})"):
                got = list(struct.unpack(f"<{8 * m}I", out.read_bytes()))
                want = exits(exit_values, m, pb)
                bad = [w for w in range(8 * m) if got[w] != want[w]]
                if bad:
                    failures.append(f"exits pb={pb} ({fe}): {len(bad)} of {8 * m} words wrong, first thread {bad[0] // 8} word "
                                    f"{bad[0] % 8}: {got[bad[0]]} != {want[bad[0]]}")
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
