#!/usr/bin/env python3
"""Checks the GPU's transactions counter (docs/sm-rtl.md §4) against counts worked out by hand from
the compute capability 1.2 coalescing rules: per half-warp, each distinct aligned segment that an
active thread touches is one transaction; segments are 32 bytes for 1-byte accesses, 64 for 2-byte
and 128 for 4-, 8- and 16-byte ones.

Each case launches one block of tests/rtl/coalescing/coalescing.cu on the RTL with lockstep. The
kernel reads and writes p[threadIdx.x * stride + offset], two warp accesses of the same shape, so
the counter must read twice the per-access count. Buffers are 256-byte aligned.

Usage: check_transactions.py TSM_TOOL KERNEL.cu CONFIG FRONTEND
"""
import re
import subprocess
import sys

# kernel, threads, stride, offset (elements), transactions per warp access, and why.
CASES = [
    ("f32", 32, 1, 0, 2, "64 consecutive bytes per half-warp, one 128-byte segment each"),
    ("f32", 32, 1, 1, 3, "shifted by one word: the second half-warp crosses byte 128"),
    ("f32", 32, 2, 0, 2, "every other word: each half-warp spans one 128-byte segment"),
    ("f32", 32, 32, 0, 32, "a 128-byte stride: every thread its own segment"),
    ("f32", 24, 1, 0, 2, "24 threads: the second half-warp has 8 active threads"),
    ("f32", 24, 32, 0, 24, "24 threads, a 128-byte stride"),
    ("u8", 32, 1, 0, 2, "16 bytes per half-warp inside one 32-byte segment"),
    ("u8", 32, 1, 16, 2, "bytes 16..47: each half-warp in its own 32-byte segment"),
    ("u8", 32, 1, 24, 3, "bytes 24..55: the first half-warp crosses byte 32"),
    ("u16", 32, 1, 0, 2, "32 bytes per half-warp inside one 64-byte segment"),
    ("u16", 32, 1, 24, 3, "bytes 48..111: the first half-warp crosses byte 64"),
    ("u64", 32, 1, 0, 2, "128 bytes per half-warp, one segment each"),
    ("u64", 32, 1, 1, 4, "shifted by 8 bytes: both half-warps cross a 128-byte boundary"),
    ("v4", 32, 1, 0, 4, "256 bytes per half-warp: two 128-byte segments each"),
]


def fail(msg):
    print(f"check_transactions: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    tool, source, config, frontend = sys.argv[1:5]
    for kernel, threads, stride, offset, per_access, why in CASES:
        args = [tool, "launch", source, "--kernel", kernel, "--grid", "1", "--block", str(threads),
                "--backend", "rtl", "--config", config, "--frontend", frontend,
                "--arg", "zeros:8192", "--arg", f"i32:{stride}", "--arg", f"i32:{offset}"]
        p = subprocess.run(args, text=True, capture_output=True)
        if p.returncode != 0:
            sys.stdout.write(p.stdout)
            sys.stderr.write(p.stderr)
            fail(f"{' '.join(args)} exited with {p.returncode}")
        m = re.search(r"(\d+) memory requests, (\d+) transactions", p.stdout)
        if not m:
            sys.stdout.write(p.stdout)
            fail(f"{kernel}: no counters line")
        got = int(m.group(2))
        want = 2 * per_access
        line = f"{config} {kernel:<4} threads {threads:>2} stride {stride:>2} offset {offset:>2}: {got:>2} transactions"
        if got != want:
            fail(f"{line}, want {want} ({why})")
        print(f"{line} ({why})")
    print(f"check_transactions: {len(CASES)} access shapes on {config} counted as compute capability 1.2 does")


if __name__ == "__main__":
    main()
