"""Shared by the RTL checks in this folder: launch a kernel on the RTL with `tsm-tool launch` and
read the counters line it prints (docs/sm-rtl.md §4)."""
import os
import re
import subprocess
import sys

_COUNTERS = re.compile(r"rtl (\d+) cycles, IPC ([0-9.]+) per SM .*SP busy ([0-9.]+) %, SFU busy ([0-9.]+) % "
                       r"\(([0-9.]+) % both\), (\d+) memory requests, (\d+) transactions, (\d+) bank conflicts")


def launch(who, tool, source, kernel, grid, block, config, frontend, args, lockstep=True, events=False, echo=True):
    """Runs the launch; exits naming `who` and the command when it fails. Returns the completed process."""
    cmd = [tool, "launch", source, "--kernel", kernel, "--grid", str(grid), "--block", str(block), "--backend", "rtl",
           "--config", config, "--frontend", frontend]
    if not lockstep:
        cmd.append("--no-lockstep")
    for a in args:
        cmd += ["--arg", a]
    env = dict(os.environ, TSM_RTL_EVENTS="1") if events else None
    p = subprocess.run(cmd, text=True, capture_output=True, env=env)
    if echo or p.returncode != 0:
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr if not events else p.stderr[-4000:])
    if p.returncode != 0:
        sys.exit(f"{who}: {' '.join(cmd)} exited with {p.returncode}")
    return p


def counters(who, stdout):
    """The counters line of a launch as a dict."""
    m = _COUNTERS.search(stdout)
    if not m:
        sys.exit(f"{who}: no counters line")
    g = m.groups()
    return {"cycles": int(g[0]), "ipc": float(g[1]), "sp": float(g[2]), "sfu": float(g[3]), "both": float(g[4]),
            "requests": int(g[5]), "transactions": int(g[6]), "conflicts": int(g[7])}
