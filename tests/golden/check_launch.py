#!/usr/bin/env python3
"""`tsm launch` with buffer arguments: saxpy over files, and the output file holds a*x + y.

Usage: TSM_TOOL=path check_launch.py SAXPY_TSA WORKDIR
"""
import os
import struct
import subprocess
import sys


def main() -> int:
    tool, source, work = os.environ["TSM_TOOL"], sys.argv[1], sys.argv[2]
    n = 777  # not a multiple of the block: the tail threads exit early
    x = [float(i) * 0.5 for i in range(n)]
    y = [float(n - i) for i in range(n)]
    paths = {k: os.path.join(work, f"launch_{k}.bin") for k in ("x", "y", "out")}
    for k, v in (("x", x), ("y", y)):
        with open(paths[k], "wb") as f:
            f.write(struct.pack(f"<{n}f", *v))
    if os.path.exists(paths["out"]):
        os.remove(paths["out"])
    r = subprocess.run([tool, "launch", source, "--kernel", "saxpy", "--grid", "4", "--block", "256",
                        "--arg", f"u32:{n}", "--arg", "f32:3", "--arg", f"buf:{paths['x']}",
                        "--arg", f"buf:{paths['y']}:{paths['out']}"], capture_output=True, text=True)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        print(f"FAIL: exit code {r.returncode}")
        return 1
    with open(paths["out"], "rb") as f:
        out = struct.unpack(f"<{n}f", f.read())
    bad = [i for i in range(n) if out[i] != 3.0 * x[i] + y[i]]  # exact in binary32 for these values
    if bad:
        print(f"FAIL: {len(bad)} wrong elements, first at {bad[0]}: {out[bad[0]]} != {3.0 * x[bad[0]] + y[bad[0]]}")
        return 1
    if "warp instructions" not in r.stdout or f"wrote {4 * n} bytes" not in r.stdout:
        print("FAIL: the launch summary is missing")
        return 1
    print(f"ok: {n} elements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
