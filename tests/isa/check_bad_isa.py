#!/usr/bin/env python3
"""The ISA generator refuses broken tables: each mutation of isa.toml must fail with its message.

Usage: check_bad_isa.py GENERATOR ISA_TOML
"""

import subprocess
import sys
import tempfile
from pathlib import Path

# (what the mutation breaks, text to replace, replacement, message the generator must print)
MUTATIONS = [
    ("two instructions share an encoding",
     'mnemonic = "IMUL"\nopcode = 0x09', 'mnemonic = "IMUL"\nopcode = 0x08',
     "encodings of IADD and IMUL overlap"),
    ("two fields of one instruction overlap",
     'mods = ["x", "cc", "sat"]', 'mods = ["x", "cc", "sat", "psn"]',
     "IADD: fields 'psn' and 'x' overlap"),
    ("a modifier overlaps operand B",
     'mods = ["mulw", "sgn"]\nsem = "p = sgn', 'mods = ["mulw", "sgn", "lut"]\nsem = "p = sgn',
     "IMUL: field 'lut' overlaps operand B"),
    ("an enum does not fit its field",
     'icmp    = { lsb = 56, width = 3,', 'icmp    = { lsb = 56, width = 2,',
     "6 values of enum icmp do not fit in 2 bits"),
    ("a field leaves the 64-bit word",
     'negb    = { lsb = 63, width = 1,', 'negb    = { lsb = 63, width = 2,',
     "field negb: bits 64:63 outside the 64-bit word"),
    ("two modifiers share a suffix",
     'mods = ["redop"]', 'mods = ["redop", "bop"]',
     "BRED: suffix .AND is ambiguous"),
    ("a mnemonic appears twice",
     'mnemonic = "SHR"', 'mnemonic = "SHL"',
     "SHL: mnemonic defined twice"),
    ("an unknown field is named",
     'mods = ["membar"]', 'mods = ["membar", "wibble"]',
     "MEMBAR: unknown field 'wibble'"),
    ("an operand width names a non-modifier",
     '{ f = "rd", k = "reg", role = "dst", w = "msz" }, { f = "ra", k = "mem", w = "e" }]\nmods = ["msz", "e"]\nsem = "Rd.. = global',
     '{ f = "rd", k = "reg", role = "dst", w = "atype" }, { f = "ra", k = "mem", w = "e" }]\nmods = ["msz", "e"]\nsem = "Rd.. = global',
     "LDG: operand width field 'atype' is not one of the modifiers"),
]


def main() -> int:
    generator, table = sys.argv[1], Path(sys.argv[2]).read_text()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for what, old, new, message in MUTATIONS:
            if table.count(old) != 1:
                print(f"FAIL: {what}: the text to mutate occurs {table.count(old)} times in isa.toml")
                failures += 1
                continue
            bad = Path(tmp) / "bad.toml"
            bad.write_text(table.replace(old, new))
            out = Path(tmp) / "out"
            r = subprocess.run([sys.executable, generator, "--toml", str(bad), "--out-dir", str(out)],
                               capture_output=True, text=True, check=False)
            if r.returncode == 0 or message not in r.stderr or out.exists():
                print(f"FAIL: {what}: exit {r.returncode}, stderr: {r.stderr.strip()!r}, expected {message!r}"
                      + (" (and it wrote output)" if out.exists() else ""))
                failures += 1
            else:
                print(f"ok: {what}: {r.stderr.strip()}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
