#!/usr/bin/env python3
"""Runs gen_config.py on isa/configs.toml plus one broken file; passes only if the generator refuses it.

The broken file states what the generator must say in `# expect: TEXT` lines; every one must appear
in the generator's stderr, the exit code must be 1 and nothing may be written.

Usage: check_bad_toml.py GENERATOR BASE_TOML BAD_TOML
"""

import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    generator, base, bad = sys.argv[1:4]
    expected = [line.split("# expect:", 1)[1].strip()
                for line in Path(bad).read_text(encoding="utf-8").splitlines()
                if line.startswith("# expect:")]
    if not expected:
        print(f"{bad}: no '# expect:' line says what the generator must report", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as out_dir:
        result = subprocess.run([sys.executable, generator, "--toml", base, "--toml", bad, "--out-dir", out_dir],
                                capture_output=True, text=True, check=False)
        written = sorted(str(p.relative_to(out_dir)) for p in Path(out_dir).rglob("*") if p.is_file())
    print(result.stderr, end="")
    problems = []
    if result.returncode != 1:
        problems.append(f"exit code {result.returncode}, expected 1")
    problems += [f"stderr lacks: {text}" for text in expected if text not in result.stderr]
    if written:
        problems.append(f"files written despite the error: {', '.join(written)}")
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
