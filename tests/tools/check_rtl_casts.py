#!/usr/bin/env python3
"""Fails if any SystemVerilog file under the given directories applies a unary operator (~ - !)
directly to a size cast, as in `a & ~32'(C)` or `-12'(C)`: Yosys 0.23 drops the operator and
synthesizes `a & C` and `+C`, while Verilator gets them right (docs/sm-rtl.md §5). The netlist
tests catch such a line only on the paths a kernel exercises; this catches it everywhere.

Usage: check_rtl_casts.py DIR...
"""
import pathlib
import re
import sys

# A unary operator: at the start of an expression or after another operator or an opening bracket.
UNARY_CAST = re.compile(r"(?:^|[=(?:,&|^+*/%<>{\[~!-])\s*([~!-])\s*(?:[A-Za-z_$][A-Za-z0-9_$]*|\d+|\([^()]*\))\s*'\(")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    found = []
    files = [f for d in sys.argv[1:] for f in sorted(pathlib.Path(d).rglob("*.sv"))]
    if not files:
        print("check_rtl_casts: no .sv files found", file=sys.stderr)
        sys.exit(2)
    for f in files:
        for n, line in enumerate(strip_comments(f.read_text()).split("\n"), 1):
            for m in UNARY_CAST.finditer(line):
                found.append(f"{f}:{n}: unary '{m.group(1)}' in front of a size cast: {line.strip()}")
    if found:
        print("\n".join(found), file=sys.stderr)
        print(f"check_rtl_casts: {len(found)} unary operator(s) in front of a size cast; Yosys 0.23 drops them "
              "(write the cast's operand as a subtraction or mask instead)", file=sys.stderr)
        sys.exit(1)
    print(f"check_rtl_casts: {len(files)} files, no unary operator in front of a size cast")


if __name__ == "__main__":
    main()
