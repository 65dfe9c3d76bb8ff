#!/usr/bin/env python3
"""Runs `tsm-tool random --level cuda` for one front end and checks its result.

Without --known, every seed must pass. With --known FILE, the seeds that fail must be among the
ones FILE lists for this front end (failures found and reported, whose translator bugs are open):
a new failure fails the test, a listed seed that passes now is printed (the list can shrink). When
the front end is nvcc and nvcc is not installed, the test is skipped (exit code 77).

usage: check_cuda_oracle.py --tool TSM_TOOL --frontend clang|nvcc|both [--known FILE] [--min-kernels N]
                            -- OPTIONS OF tsm-tool random...
--min-kernels: each front end that ran must have run at least N kernels.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def nvcc_installed() -> bool:
    return shutil.which("nvcc") is not None or os.access("/usr/local/cuda/bin/nvcc", os.X_OK)


def known_failures(path: str, frontend: str) -> set[int]:
    seeds: set[int] = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) >= 2 and words[0] == frontend:
                seeds.update(int(w) for w in words[1:])
    return seeds


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--frontend", required=True, choices=["clang", "nvcc", "both"])
    parser.add_argument("--known")
    parser.add_argument("--min-kernels", type=int, default=0,
                        help="kernels each front end that ran must have compiled and run")
    parser.add_argument("options", nargs="*")
    args = parser.parse_args()
    if args.frontend == "nvcc" and not nvcc_installed():
        print("nvcc is not installed: the nvcc part of the CUDA oracle is skipped")
        return SKIP
    command = [args.tool, "random", "--level", "cuda", "--frontend", args.frontend, *args.options]
    print("$ " + " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    summary = re.search(r"^random: .*$", result.stdout, re.MULTILINE)
    passed_line = re.search(r"^kernels passed: (.*?);", result.stdout, re.MULTILINE)
    if not summary or not passed_line:
        print("FAIL: no summary line (the command did not run to its end)", file=sys.stderr)
        return 1
    problems = []
    for fe, _, total in re.findall(r"(\w+) (\d+)/(\d+)", passed_line.group(1)):
        if int(total) < args.min_kernels:
            problems.append(f"{fe}: {total} kernels ran, fewer than {args.min_kernels}")
    failed_line = re.search(r"^failed seeds: (.*)$", result.stdout, re.MULTILINE)
    failed = {int(s) for s in failed_line.group(1).split()} if failed_line else set()
    if args.known:
        fes = ["clang", "nvcc"] if args.frontend == "both" else [args.frontend]
        known = set().union(*(known_failures(args.known, fe) for fe in fes))
        new = sorted(failed - known)
        if new:
            problems.append(f"seeds that fail and are not in {args.known}: {' '.join(map(str, new))}")
        first = re.search(r"--seed (\d+)", " ".join(args.options))
        count = re.search(r"--count (\d+)", " ".join(args.options))
        if first and count:
            window = range(int(first.group(1)), int(first.group(1)) + int(count.group(1)))
            fixed = sorted(s for s in known if s in window and s not in failed)
            if fixed:
                print(f"known failures that pass now (take them out of {args.known}): {' '.join(map(str, fixed))}")
    elif result.returncode != 0 or failed:
        problems.append(f"exit code {result.returncode}; failed seeds: {' '.join(map(str, sorted(failed))) or 'none'}")
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
