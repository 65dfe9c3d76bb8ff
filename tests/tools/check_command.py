#!/usr/bin/env python3
"""Runs a command and checks its exit code and output, for CLI tests that must see both.

Usage: check_command.py --exit CODE [--stdout REGEX]... [--stderr REGEX]... -- COMMAND [ARGS...]
Each REGEX must match somewhere in that stream (Python re, MULTILINE).
"""

import argparse
import re
import subprocess
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int, required=True, dest="exit_code")
    parser.add_argument("--stdout", action="append", default=[])
    parser.add_argument("--stderr", action="append", default=[])
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    result = subprocess.run(args.command, capture_output=True, text=True, check=False)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    problems = [] if result.returncode == args.exit_code else [
        f"exit code {result.returncode}, expected {args.exit_code}"]
    for name, text, patterns in (("stdout", result.stdout, args.stdout), ("stderr", result.stderr, args.stderr)):
        problems += [f"{name} does not match: {p}" for p in patterns if not re.search(p, text, re.MULTILINE)]
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
