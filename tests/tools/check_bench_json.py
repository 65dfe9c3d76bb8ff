#!/usr/bin/env python3
"""Runs `tsm-tool bench --repeat 1 --program P --json FILE` and checks what the JSON holds.

Usage: check_bench_json.py TSM_TOOL PROGRAM OUT.json

Each suite kernel gives a golden row and two rtl rows (g80, one per warp-scheduling policy: lrr,
gto); saxpy and matmul_tiled also give the two small rows with and without lockstep. Every rtl row
holds all the GPU's counters; the cycle counts are deterministic, so the lockstep and no-lockstep
rows of one kernel agree on them, and the two policies do the same work (instructions) in their
own number of cycles.
"""
import json
import subprocess
import sys

COUNTERS = ["cycles", "warp_instructions", "thread_instructions", "sp_busy", "sfu_busy", "stall_scoreboard",
            "stall_barrier", "stall_fetch", "memory_requests", "bank_conflicts", "transactions", "sp_sfu_together"]


def fail(msg):
    print(f"check_bench_json: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    tool, program, out = sys.argv[1:4]
    run = subprocess.run([tool, "bench", "--repeat", "1", "--program", program, "--json", out], text=True,
                         capture_output=True)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        fail(f"bench exited with {run.returncode}")
    rows = json.load(open(out))["rows"]
    want = [("golden", "g80", None, None), ("rtl", "g80", False, "lrr"), ("rtl", "g80", False, "gto")]
    if program in ("saxpy", "matmul_tiled"):
        want = [("rtl", "small", True, "lrr"), ("rtl", "small", False, "lrr")] + want
    got = [(r["backend"], r["config"], r.get("lockstep"), r.get("sched")) for r in rows]
    if got != want:
        fail(f"rows {got}, want {want}")
    for r in rows:
        if r["program"] != program or r["thread_instructions"] <= 0 or r["host_seconds"] <= 0 or \
                r["thread_instructions_per_second"] <= 0:
            fail(f"bad row {r}")
        if r["backend"] != "rtl":
            continue
        c = r["counters"]
        if sorted(c) != sorted(COUNTERS):
            fail(f"counters {sorted(c)}, want {sorted(COUNTERS)}")
        if c["cycles"] <= 0 or c["warp_instructions"] <= 0 or c["thread_instructions"] != r["thread_instructions"]:
            fail(f"counters do not add up: {c}")
        if not 0 < r["ipc_per_sm"] <= 1 or not 0 <= r["sp_busy_percent"] <= 100:
            fail(f"IPC or SP busy out of range: {r}")
        named = {"cycles": c["cycles"], "warp_instructions": c["warp_instructions"], "bank_conflicts": c["bank_conflicts"],
                 "mem_transactions": c["transactions"],
                 "stalls": {"scoreboard": c["stall_scoreboard"], "barrier": c["stall_barrier"], "fetch": c["stall_fetch"]}}
        for key, want_value in named.items():
            if r.get(key) != want_value:
                fail(f"{key} is {r.get(key)}, the counters say {want_value}")
        if abs(r["ipc"] - r["ipc_per_sm"]) > 1e-12 or abs(100 * r["sp_utilization"] - r["sp_busy_percent"]) > 1e-9 or \
                abs(100 * r["sfu_utilization"] - r["sfu_busy_percent"]) > 1e-9:
            fail(f"ipc, sp_utilization or sfu_utilization disagree with the percentages: {r}")
        if r["sim_cycles_per_second"] <= 0 or r["thread_instructions_per_second"] <= 0:
            fail(f"no simulation speed: {r}")
        if r["memory_port"]["requests"] != c["memory_requests"]:
            fail(f"the memory port saw {r['memory_port']['requests']} requests, the GPU counted {c['memory_requests']}")
    small = [r["counters"] for r in rows if r["config"] == "small"]
    if len(small) == 2 and small[0] != small[1]:
        fail(f"lockstep changed the counters: {small[0]} vs {small[1]}")
    g80 = {r["sched"]: r["counters"] for r in rows if r["backend"] == "rtl" and r["config"] == "g80"}
    for key in ("warp_instructions", "thread_instructions"):
        if g80["lrr"][key] != g80["gto"][key]:
            fail(f"the policies did different work: {key} {g80['lrr'][key]} (lrr) vs {g80['gto'][key]} (gto)")
    print(f"check_bench_json: {len(rows)} rows of {program} as expected")


if __name__ == "__main__":
    main()
