#!/usr/bin/env python3
"""`./tsm regtable --check` notices a register table that no longer says what the translator does.

The test translator.register_table runs --check on docs/translator.md; this one shows that the
check can fail, independently of whether that table is up to date: it makes a fresh table of
saxpy.cu alone (regtable.py prints one), checks that --check passes a document holding it, then
alters the rows of saxpy through clang (our registers; where the ptxas the table names is installed,
also ptxas's) and requires --check to exit 1 naming each altered cell and the command that
regenerates the table.

Usage: check_regtable_drift.py REGTABLE_PY TSM_TOOL WORKDIR
"""
import re
import subprocess
import sys
from pathlib import Path

ONLY = r"firmware/cuda/saxpy\.cu$"
ROW = re.compile(r"^\| `firmware/cuda/saxpy\.cu` \| `saxpy` \| clang \| (\d+|—) \| (\d+) \|", re.M)


def regtable(script: str, tool: str, *args: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, script, "--tool", tool, "--only", ONLY, *args]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    print(f"$ {' '.join(argv)}\n{r.stdout}{r.stderr}")
    return r


def main() -> int:
    script, tool, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    made = regtable(script, tool)
    m = ROW.search(made.stdout)
    if made.returncode != 0 or not m:
        print("FAIL: regtable.py does not print a table with a row for saxpy through clang")
        return 1
    failures = []
    fresh = work / "fresh.md"
    fresh.write_text("# A document\n\nText before the table.\n\n" + made.stdout + "\nText after it.\n")
    if regtable(script, tool, "--doc", str(fresh), "--check").returncode != 0:
        failures.append("--check fails on a table just made")

    ours = int(m.group(2))
    ptxas = m.group(1)
    text = fresh.read_text()
    m = ROW.search(text)
    new_ptxas = ptxas if ptxas == "—" else str(int(ptxas) + 5)
    altered = work / "altered.md"
    altered.write_text(text[:m.start()] + f"| `firmware/cuda/saxpy.cu` | `saxpy` | clang | {new_ptxas} | {ours + 3} |" + text[m.end():])
    r = regtable(script, tool, "--doc", str(altered), "--check")
    if r.returncode != 1:
        failures.append(f"--check exits {r.returncode} on a table whose saxpy row was altered, not 1")
    if not re.search(rf"^FAIL: firmware/cuda/saxpy\.cu saxpy \(clang\): the table says {ours + 3} registers, .*; "
                     rf"the translator now gives {ours} registers", r.stdout, re.M):
        failures.append("--check does not name the altered 'ours' cell")
    # ptxas's columns are compared only where the ptxas the table names is installed ("with ptxas").
    if ptxas != "—" and "; with ptxas)" in r.stdout and not re.search(
            rf"^FAIL: firmware/cuda/saxpy\.cu saxpy \(clang\): the table says ptxas {new_ptxas} registers", r.stdout, re.M):
        failures.append("--check does not name the altered ptxas cell")
    if "./tsm regtable --write" not in r.stdout:
        failures.append("--check does not say how to regenerate the table")
    for f in failures:
        print(f"FAIL: {f}")
    if not failures:
        print("ok: --check passes a table just made and names each altered cell")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
