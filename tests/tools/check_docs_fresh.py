#!/usr/bin/env python3
"""Fails when a committed generated doc differs from the build's copy, so docs/ never drifts.

Usage: check_docs_fresh.py GENERATED COMMITTED
"""

import difflib
import sys
from pathlib import Path


def main() -> int:
    generated, committed = (Path(arg) for arg in sys.argv[1:3])
    new = generated.read_text(encoding="utf-8")
    old = committed.read_text(encoding="utf-8") if committed.exists() else ""
    if new == old:
        return 0
    diff = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                str(committed), str(generated), n=1)
    sys.stderr.writelines(list(diff)[:60])
    print(f"\n{committed} is out of date with the source it is generated from.\n"
          "Run ./tsm docs to regenerate it, then commit the result.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
