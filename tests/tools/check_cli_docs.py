#!/usr/bin/env python3
"""The README's command table and `./tsm --help` against the commands' own --help.

A user reads the options of a command in three places: the README's table, `./tsm --help` and the
command's own `--help`, which the code prints from the options it declares. This test fails when
they drift apart:

- every option the README's synopsis of a command names exists in that command's --help, and every
  option the command's --help lists appears in the README's synopsis (nothing hidden, nothing stale);
- every option `./tsm --help` names for a command exists in that command's --help;
- every default the README or `./tsm --help` states for an option ("--opt ...: ..., default X",
  up to the next option, `;`, `)` or table cell) equals the default the code declares.

The commands' --help come from tsm-tool (CLI11 prints each option's default after `=`), from the
Python tools (regress.py, regtable.py, wave.py, fpga_build.py, whose help strings print their defaults from the
code) and from ./tsm itself for the fpga and build commands.

usage: check_cli_docs.py --root ROOT --tool build/bin/tsm-tool
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
SHORT = re.compile(r"(?<![\w-])(-[a-zA-Z])(?![\w-])")
ALIASES = re.compile(r"(?<![\w-])(-[a-zA-Z])(?: \S+)?,\s*(--[a-z][a-z0-9-]*)|(--[a-z][a-z0-9-]*)(?: \S+)?,\s*(-[a-zA-Z])(?![\w-])")
ARGPARSE_LINE = re.compile(r"^\s{2,}(?:-\w(?: \S+)?, )?(--[a-z][a-z0-9-]*)")
CLI11_LINE = re.compile(r"^\s{2,}(?:-\w,)?(--[a-z][a-z0-9-]*)(\S*)")
DEFAULT = re.compile(r"default[: ]+`?(-?[\w./-]*\w)")
# Options every command has, or that only CLI11 and argparse add.
IGNORED = {"--help"}

failures: list[str] = []


def check(ok: bool, what: str) -> None:
    if not ok:
        failures.append(what)


def run(argv: list[str]) -> str:
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    return p.stdout + p.stderr


def cli11_options(text: str) -> dict[str, str | None]:
    """Options of a CLI11 help text and their defaults (`--repeat UINT=3`, `--level TEXT:{a,b}=a`)."""
    options: dict[str, str | None] = {}
    for line in text.splitlines():
        m = CLI11_LINE.match(line)
        if not m:
            continue
        # The type and default run to the first double space: "UINT:INT in [1 - 254]=128  help".
        spec = re.match(r" ?(\S(?:\S| (?! ))*)?", line[m.end(1):]).group(1) or ""
        default = None
        if "=" in spec and not spec.startswith("{"):
            default = spec.rsplit("=", 1)[1]
        options[m.group(1)] = default
    return options


def argparse_options(text: str) -> dict[str, str | None]:
    """Options of an argparse help text and the defaults their help strings state."""
    options: dict[str, str | None] = {}
    current = None
    blocks: dict[str, str] = {}
    for line in text.splitlines():
        m = ARGPARSE_LINE.match(line)
        if m:
            current = m.group(1)
            blocks[current] = line[m.end(1):]
        elif current and line.startswith(" " * 10):
            blocks[current] += " " + line.strip()
        else:
            current = None
    for opt, block in blocks.items():
        d = DEFAULT.search(block)
        options[opt] = d.group(1) if d else None
    return options


def stated_defaults(text: str) -> list[tuple[str, str]]:
    """(option, default) for each "--opt ... default X" in `text`, the default in the same clause."""
    found = []
    for m in OPTION.finditer(text):
        window = text[m.end():]
        stop = len(window)
        for token in (";", ")", "]", "|", "\n\n"):
            i = window.find(token)
            if i >= 0:
                stop = min(stop, i)
        nxt = OPTION.search(window)
        if nxt:
            stop = min(stop, nxt.start())
        d = DEFAULT.search(window[:stop])
        if d:
            found.append((m.group(1), d.group(1)))
    return found


def same_default(stated: str, code: str | None) -> bool:
    if code is None:
        return False
    norm = lambda v: v.strip("`'\".,").rstrip("0").rstrip(".") if re.fullmatch(r"-?\d+\.\d*", v.strip("`'\".,")) else v.strip("`'\".,")
    return norm(stated) == norm(code)


def command_name(words: re.Match) -> str:
    """"run", or "fpga build" for the fpga subcommands, from a match of (word)(?: (word))?."""
    if words.group(1) == "fpga" and words.group(2):
        return f"fpga {words.group(2)}"
    return words.group(1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--tool", required=True)
    a = ap.parse_args()
    root, tool = a.root, a.tool
    py = sys.executable

    tool_commands = set(re.findall(r"^\s{2}([a-z][a-z0-9-]*)\s", run([tool, "--help"]).split("Subcommands:")[-1], re.M))
    check({"run", "launch", "random", "models", "dump"} <= tool_commands, f"tsm-tool --help lists its subcommands ({tool_commands})")

    def code_options(command: str) -> dict[str, str | None] | None:
        if command in tool_commands:
            return cli11_options(run([tool, command, "--help"]))
        if command == "regress":
            return argparse_options(run([py, str(root / "sim/tools/regress.py"), "--tool", tool, "--help"]))
        if command == "regtable":
            return argparse_options(run([py, str(root / "sim/tools/regtable.py"), "--help"]))
        if command == "wave":
            return argparse_options(run([py, str(root / "sim/tools/wave.py"), "open", "--help"]))
        if command == "fpga build":
            # ./tsm fpga build's own options; all but --config are fpga_build.py's, whose defaults are the code's.
            wrapper = set(OPTION.findall(run(["bash", str(root / "tsm"), "fpga", "build", "--help"]).splitlines()[0]))
            inner = argparse_options(run([py, str(root / "fpga/tools/fpga_build.py"), "build", "--help"]))
            return {o: inner.get(o) for o in wrapper}
        if command in ("fpga synth", "fpga program", "build"):
            return {o: None for o in OPTION.findall(run(["bash", str(root / "tsm")] + command.split() + ["--help"]).splitlines()[0])}
        return None

    def aliases_of(command: str) -> dict[str, str]:
        """-o -> --output, from the help's "-o,--output" (CLI11) or "--jobs JOBS, -j JOBS" (argparse)."""
        if command in tool_commands:
            text = run([tool, command, "--help"])
        elif command == "regress":
            text = run([py, str(root / "sim/tools/regress.py"), "--tool", tool, "--help"])
        else:
            return {}
        pairs = {}
        for m in ALIASES.finditer(text):
            if m.group(1):
                pairs[m.group(1)] = m.group(2)
            else:
                pairs[m.group(4)] = m.group(3)
        return pairs

    # The README's table: | `./tsm CMD synopsis` | what it does |
    readme = (root / "README.md").read_text()
    rows = [line for line in readme.splitlines() if line.startswith("| `./tsm ")]
    check(len(rows) >= 15, f"the README's command table has a row per command ({len(rows)} rows)")
    seen = set()
    for row in rows:
        cells = row.split(" | ")
        synopsis = cells[0]
        command = command_name(re.match(r"\| `\./tsm ([a-z-]+)(?: ([a-z-]+))?", synopsis))
        options = code_options(command)
        if options is None:
            continue
        seen.add(command)
        text = synopsis.replace("\\|", "|")
        documented = set(OPTION.findall(text))
        for short in SHORT.findall(text):
            check(short in aliases_of(command), f"README: `./tsm {command}` names {short}, which `{command} --help` does not have")
            documented.add(aliases_of(command).get(short, short))
        declared = set(options) - IGNORED
        for o in sorted(documented - declared):
            check(False, f"README: `./tsm {command}` names {o}, which `{command} --help` does not have")
        for o in sorted(declared - documented):
            check(False, f"README: `./tsm {command}` does not name {o}, which `{command} --help` declares")
        for o, d in stated_defaults(row):
            if o in options and not same_default(d, options[o]):
                check(False, f"README: `./tsm {command}` says {o} defaults to {d}; the code's default is {options[o]}")
    for must in ("run", "launch", "random", "regress", "regtable", "wave", "bench", "compile", "models", "dump", "fpga build"):
        check(must in seen, f"README: the command table has a row for ./tsm {must}")

    # ./tsm --help: each entry's options exist, and the defaults it states are the code's.
    usage = run(["bash", str(root / "tsm"), "--help"])
    entries = re.split(r"\n(?=  [a-z])", usage)
    for entry in entries:
        m = re.match(r"  ([a-z][a-z0-9-]*)(?: ([a-z]+))?", entry)
        if not m:
            continue
        command = command_name(m)
        options = code_options(command)
        if options is None:
            continue
        for o in sorted(set(OPTION.findall(entry)) - IGNORED):
            check(o in options, f"./tsm --help: the entry of {command} names {o}, which `{command} --help` does not have")
        for o, d in stated_defaults(entry):
            if o in options and not same_default(d, options[o]):
                check(False, f"./tsm --help: {command}'s {o} is said to default to {d}; the code's default is {options[o]}")

    # ./tsm fpga build --help states defaults too.
    fb = run(["bash", str(root / "tsm"), "fpga", "build", "--help"])
    fb_options = code_options("fpga build") or {}
    for o, d in stated_defaults(fb):
        if o in fb_options and fb_options[o] is not None:
            check(same_default(d, fb_options[o]), f"./tsm fpga build --help: {o} is said to default to {d}; fpga_build.py's is {fb_options[o]}")

    for f in failures:
        print(f"FAIL: {f}")
    if failures:
        print(f"{len(failures)} differences between the documented and the declared options")
        return 1
    print(f"ok: {len(rows)} README rows and ./tsm --help agree with the commands' --help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
