#!/usr/bin/env python3
"""`tsm launch` of a .cu file compiles within the register budget its block allows.

The suite's localarray kernel (a per-thread insertion sort over a 16-int local array) compiled at
the default budget of 128 needs more registers than a block of 512 threads may use on g80 (16;
through nvcc it needed 90, more than the 64 of a block of 128). launch must compile it with the
budget of the block it launches, spilling, and run it (./tsm run does the same,
firmware/host/host.cpp); an explicit --maxrregcount is honoured. (One too large for the block ends
in the launch's register error: the case launch.maxrregcount_too_large of tests/errors/errors.json.)

Usage: TSM_TOOL=path check_launch_budget.py LOCALARRAY_CU WORKDIR
Each front end that is installed is checked (nvcc's rows are skipped without nvcc).
"""
import os
import random
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

SEGMENT = 16  # localarray.cu's per-thread array
failures: list[str] = []


def values(n: int) -> list[int]:
    rng = random.Random(7)
    return [rng.randrange(-2**31, 2**31) for _ in range(n)]


def launch(tool: str, source: str, frontend: str, block: int, n: int, out: Path, extra=()) -> subprocess.CompletedProcess:
    inp = out.with_suffix(".in")
    inp.write_bytes(struct.pack(f"<{n}i", *values(n)))
    argv = [tool, "launch", source, "--frontend", frontend, "--config", "g80", "--grid",
            str((n + SEGMENT * block - 1) // (SEGMENT * block)), "--block", str(block), *extra,
            "--arg", f"i32:{n}", "--arg", f"buf:{inp}", "--arg", f"zeros:{4 * n}:{out}"]
    print("$ " + " ".join(argv[1:]))
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    print(r.stdout + r.stderr)
    return r


def expected(n: int) -> list[int]:
    """The input, each thread's segment sorted (the last one partial)."""
    v = values(n)
    return [x for s in range(0, n, SEGMENT) for x in sorted(v[s:s + SEGMENT])]


def check_sorted(r: subprocess.CompletedProcess, what: str, frontend: str, budget: int, n: int, out: Path) -> None:
    if r.returncode != 0:
        failures.append(f"{what}: exit status {r.returncode}: {r.stderr.strip()}")
        return
    m = re.search(rf"^compiled localarray\.cu with {frontend} at (\d+) registers \(([^)]*)\): kernel localarray, (\d+) registers, "
                  rf"(\d+) spilled values", r.stdout, re.M)
    if not m:
        failures.append(f"{what}: no line saying how the kernel was compiled")
        return
    if int(m.group(1)) != budget or int(m.group(3)) > budget:
        failures.append(f"{what}: compiled at {m.group(1)} registers (used {m.group(3)}), expected a budget of {budget}")
    data = out.read_bytes()
    got = list(struct.unpack(f"<{n}i", data))
    want = expected(n)
    bad = [i for i in range(n) if got[i] != want[i]]
    if bad:
        failures.append(f"{what}: {len(bad)} wrong elements, the first at {bad[0]}: {got[bad[0]]} != {want[bad[0]]}")
    else:
        print(f"ok: {what}: {n} elements sorted in segments, at {m.group(1)} registers ({m.group(2)}), "
              f"{m.group(4)} values spilled")


def main() -> int:
    tool, source, work = os.environ["TSM_TOOL"], sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    has_nvcc = bool(shutil.which("nvcc") or Path("/usr/local/cuda/bin/nvcc").exists())
    frontends = ["clang"] + (["nvcc"] if has_nvcc else [])
    if not has_nvcc:
        print("nvcc is not installed: only clang is checked")
    for fe in frontends:
        # g80 allows 64 registers a thread for 128 threads a block, 16 for 512 (docs/configurations.md).
        for block, budget, n in ((128, 64, 4001), (512, 16, 9000)):
            out = work / f"sorted_{fe}_{block}.bin"
            out.unlink(missing_ok=True)
            check_sorted(launch(tool, source, fe, block, n, out), f"{fe}, block {block}", fe, budget, n, out)
        # An explicit --maxrregcount that the block allows is the budget.
        out = work / f"sorted_{fe}_explicit.bin"
        out.unlink(missing_ok=True)
        r = launch(tool, source, fe, 128, 4001, out, ["--maxrregcount", "20"])
        check_sorted(r, f"{fe}, block 128, --maxrregcount 20", fe, 20, 4001, out)
    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
