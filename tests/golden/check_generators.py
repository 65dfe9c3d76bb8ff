#!/usr/bin/env python3
"""launch's generated buffers (iota, fill, rand), --print and ./tsm dump, as a user runs them.

saxpy (firmware/asm/saxpy.tsa: y = a*x + y) is launched with x and y made on the command line; the
buffers written back to files and printed by --print and dump are read here and compared with
what the documentation promises (docs/runtime.md, Command line).

usage: check_generators.py TSM_TOOL SAXPY_TSA WORK_DIR
"""
import struct
import subprocess
import sys
from pathlib import Path

tool, saxpy, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def launch(n, x, y, *extra):
    p = subprocess.run([tool, "launch", saxpy, "--grid", str((n + 255) // 256), "--block", "256", "--arg", f"u32:{n}", "--arg", "f32:2",
                        "--arg", x, "--arg", y, *extra], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
    return p


def floats(path):
    data = Path(path).read_bytes()
    return list(struct.unpack(f"<{len(data) // 4}f", data))


# iota and fill: y = 2*x + 1, printed as floats.
p = launch(8, "iota:f32:8", f"fill:f32:8:1:{work}/y.bin", "--print", "4:f32", "--print", "3:i32:3")
check(p.returncode == 0, "launch with iota:f32:8 and fill:f32:8:1 runs")
check("    [0] 1 3 5 7 9 11 13 15\n" in p.stdout, "--print 4:f32 shows y = 2*x + 1 for x = 0..7")
check("    [0] 0 1065353216 1073741824\n    ... (5 more)" in p.stdout, "--print 3:i32:3 shows x's first 3 words as i32 and says how many more")
check(floats(work / "y.bin") == [2.0 * i + 1.0 for i in range(8)], "fill's OUT_FILE holds the result")
d = subprocess.run([tool, "dump", str(work / "y.bin"), "--type", "f32"], capture_output=True, text=True)
check(d.returncode == 0 and d.stdout.strip() == "[0] 1 3 5 7 9 11 13 15", f"dump --type f32 prints the file ({d.stdout.strip()!r})")
d = subprocess.run([tool, "dump", str(work / "y.bin"), "--type", "u32", "--count", "1", "--offset", "4"], capture_output=True, text=True)
check(d.stdout.strip() == "[0] 1077936128\n... (6 more)", f"dump --offset 4 --count 1 starts at the second element ({d.stdout.strip()!r})")

# rand: reproducible from its seed, in [-1, 1) on a 2^-23 grid; a = 2 and y = 0 keep x visible in y/2.
n = 4096
for seed, name in ((7, "a"), (7, "b"), (8, "c")):
    p = launch(n, f"rand:f32:{n}:{seed}:{work}/x_{name}.bin", f"zeros:{4 * n}:{work}/y_{name}.bin")
    check(p.returncode == 0, f"launch with rand:f32:{n}:{seed} runs")
xa, xb, xc = floats(work / "x_a.bin"), floats(work / "x_b.bin"), floats(work / "x_c.bin")
check(xa == xb, "the same seed gives the same buffer")
check(xa != xc, "another seed gives another buffer")
check(all(-1.0 <= v < 1.0 and (v * 2 ** 23).is_integer() for v in xa), "rand:f32 values lie in [-1, 1) on a 2^-23 grid")
check(abs(sum(xa) / n) < 0.05 and min(xa) < -0.9 and max(xa) > 0.9, "rand:f32 spreads over [-1, 1)")
check(floats(work / "y_a.bin") == [2.0 * v for v in xa], "the kernel saw the generated x (y = 2*x)")
p = launch(n, f"rand:i32:{n}:3:{work}/xi.bin", f"zeros:{4 * n}")
words = struct.unpack(f"<{n}i", (work / "xi.bin").read_bytes())
check(min(words) < -(1 << 30) and max(words) > (1 << 30), "rand:i32 covers the whole range, negative and positive")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
