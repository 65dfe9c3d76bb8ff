#!/usr/bin/env python3
"""The regression can fail: every deliberate bug of rtl/mutants/mutants.json, switched on in the
`small` mutant model, makes `./tsm regress --quick` fail (docs/regression.md §3).

Usage: check_mutants.py REGRESS_PY TSM_TOOL RTL_DIR DOC LOG_DIR [IDS...]

First the table, the RTL and the doc must agree: each mutant's `TSM_MUT(N) appears in the RTL, and
nothing else does; DOC (docs/regression.md) holds the table as rendered here. Then the mutant model with no mutant switched on (an ID outside the table) must pass a
few cases, so that a failure below is the mutant's doing. Then, for each mutant, regress --quick
--fail-fast --mutant N must exit 1 with a failing case; the case that caught it is printed.
"""

import json
import re
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    regress, tool, rtl_dir, doc, log_dir = sys.argv[1:6]
    only = {int(x) for x in sys.argv[6:]}
    table = json.loads((Path(rtl_dir) / "mutants" / "mutants.json").read_text())
    ids = [m["id"] for m in table]
    problems = []
    if len(set(ids)) != len(ids):
        problems.append("mutants.json repeats an id")
    uses: dict[int, list[str]] = {}
    for sv in sorted(Path(rtl_dir).rglob("*.sv")):
        for n, line in enumerate(sv.read_text().splitlines(), 1):
            for m in re.finditer(r"`TSM_MUT\((\d+)\)", line):
                uses.setdefault(int(m.group(1)), []).append(f"{sv.name}:{n}")
    for i in ids:
        if i not in uses:
            problems.append(f"mutant {i} is in mutants.json but no `TSM_MUT({i}) is in the RTL")
    for i, where in uses.items():
        if i not in ids:
            problems.append(f"`TSM_MUT({i}) at {', '.join(where)} has no row in mutants.json")
    rendered = "| id | name | unit | the bug |\n|---|---|---|---|\n" + "".join(
        f"| {m['id']} | {m['name']} | {m['unit']} | {m['bug']} |\n" for m in table)
    if rendered not in Path(doc).read_text():
        problems.append(f"{doc} does not hold the mutant table of mutants.json; it should read:\n{rendered}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{len(ids)} mutants in mutants.json, each in the RTL and in {Path(doc).name}")

    # With the recorded cycle counts: the mutant model with no mutant switched on must keep them, and
    # a mutant that only costs time (the warp scheduler's) is caught by a count that changed.
    cycles = Path(rtl_dir).resolve().parent / "tests" / "regress" / "cycles.json"
    base = [sys.executable, regress, "--tool", tool, "--quick", "--jobs", "2", "--no-save", "--cycles", str(cycles)]
    unused = max(ids) + 1000
    r = subprocess.run(base + ["--mutant", str(unused), "--filter", r"^(suite\.small\.(saxpy|reduce)\.|random\.small\.1-)",
                               "--log-dir", f"{log_dir}/unused"], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout[-4000:], r.stderr[-2000:])
        print(f"the mutant model with no mutant switched on (+tsm+mutant={unused}) fails: the schema itself changes the RTL")
        return 1
    print(f"mutant model, no mutant switched on: passes")

    missed = []
    for m in table:
        if only and m["id"] not in only:
            continue
        t0 = time.monotonic()
        r = subprocess.run(base + ["--fail-fast", "--mutant", str(m["id"]), "--log-dir", f"{log_dir}/mutant-{m['id']}"],
                           capture_output=True, text=True)
        secs = time.monotonic() - t0
        caught = re.search(r"^FAILED (\S+): (.*)$", r.stdout, re.M)
        if r.returncode == 1 and caught:
            print(f"mutant {m['id']:>2} {m['name']:<22} caught in {secs:5.0f} s by {caught.group(1)}: {caught.group(2)[:150]}")
        else:
            missed.append(m)
            print(f"mutant {m['id']:>2} {m['name']:<22} NOT caught (exit {r.returncode}, {secs:.0f} s): {m['bug']}")
            print(r.stdout[-3000:], r.stderr[-2000:])
    if missed:
        print(f"{len(missed)} mutants survived ./tsm regress --quick")
        return 1
    print("every mutant was caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
