#!/usr/bin/env python3
"""Runs a suite kernel on the RTL of `small` with one SM and on the Yosys netlist of the same GPU
top, both with lockstep, and checks that both match the reference and that the GPU's counters
(cycles, IPC, SP busy) are the same: the netlist simulates like the RTL, cycle for cycle.

Usage: check_netlist.py TSM_TOOL PROGRAM BLOCK [RUN_ARGS...]
"""
import re
import subprocess
import sys


def fail(msg):
    print(f"check_netlist: {msg}", file=sys.stderr)
    sys.exit(1)


def run(tool, program, block, extra, backend):
    args = [tool, "run", program, "--backend", backend, "--config", "small", "--block", block] + extra
    if backend == "rtl":
        args += ["--sms", "1"]
    p = subprocess.run(args, text=True, capture_output=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        fail(f"{' '.join(args)} exited with {p.returncode}")
    if not re.search(rf"^{re.escape(program)}: .*match", p.stdout, re.M):
        fail(f"{backend}: no match line")
    counters = re.findall(rf"^{re.escape(program)}: rtl .*cycles.*$", p.stdout, re.M)
    if not counters:
        fail(f"{backend}: no counters line")
    return counters


def main():
    tool, program, block = sys.argv[1:4]
    extra = sys.argv[4:]
    rtl = run(tool, program, block, extra, "rtl")
    netlist = run(tool, program, block, extra, "netlist")
    if rtl != netlist:
        fail(f"the netlist's counters differ from the RTL's:\n  rtl:     {rtl}\n  netlist: {netlist}")
    if "(1 SM)" not in netlist[0]:
        fail(f"expected one SM: {netlist[0]}")
    print(f"check_netlist: {program}: the netlist ran like the RTL ({netlist[0]})")


if __name__ == "__main__":
    main()
