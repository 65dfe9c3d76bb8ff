#!/usr/bin/env python3
"""Tests of the waveform and timeline tools (docs/waveforms.md), run by CTest:

  signals   an rtl run traced with --trace and --timeline and logged with TSM_RTL_EVENTS: the FST
            holds every documented debug signal of every SM and warp slot; the clocks in which
            dbg_issue is high, the timeline's slices and the commit log's RETIRE events are the
            same instructions (as many, warp by warp); the warp states, stack depth and barrier
            signals tell what the kernel does (divergence, barriers)
  filters   the translate filters name every opcode and unit of the ISA table (as tsm-tool isa
            lists it) and every warp state documented in docs/waveforms.md
  render    ./tsm wave --png renders the generated view under Xvfb: a picture that is not blank,
            with the filters attached to the signals they translate
  on-fail   a kernel that deadlocks at a barrier, run with --trace-on-fail: the run fails, and the
            trace it leaves ends where the failure was found, with the warps at the barrier
"""
import argparse
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "sim" / "tools"))
import wave  # noqa: E402
import wave_views  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")
    return cond


def run(cmd, env=None, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != expect:
        print(p.stdout[-4000:], p.stderr[-4000:], sep="\n")
        raise SystemExit(f"{' '.join(map(str, cmd))}: exit {p.returncode}, expected {expect}")
    return p


def commit_log_retires(stderr):
    """(sm, warp) -> RETIRE events in the TSM_RTL_EVENTS log (kinds 0, 5 and 6 retire)."""
    counts = collections.Counter()
    for m in re.finditer(r"^\[\d+\] sm(\d+) k(\d+) w(\d+) ", stderr, re.M):
        if int(m.group(2)) in (0, 5, 6):
            counts[(int(m.group(1)), int(m.group(3)))] += 1
    return counts


def vcd_values(fst, wanted):
    """{name: [(time, value)]} for the signals `wanted` (full names without range), from fst2vcd."""
    proc = subprocess.Popen(["fst2vcd", "-f", str(fst)], stdout=subprocess.PIPE, text=True)
    ids, scope, out, t = {}, [], collections.defaultdict(list), 0
    for line in proc.stdout:
        if line.startswith("$scope"):
            scope.append(line.split()[2])
        elif line.startswith("$upscope"):
            scope.pop()
        elif line.startswith("$var"):
            tok = line.split()
            name = ".".join(scope + [tok[4]])
            if name in wanted:
                ids.setdefault(tok[3], []).append(name)
        elif line.startswith("#"):
            t = int(line[1:])
        elif line[0] == "b":
            value, ident = line[1:].split()
            for name in ids.get(ident, ()):
                out[name].append((t, int(value.replace("x", "0").replace("z", "0"), 2)))
        elif line[0] in "01xz" and len(line) > 1:
            for name in ids.get(line[1:].strip(), ()):
                out[name].append((t, 1 if line[0] == "1" else 0))
    proc.wait()
    return out


def per_clock(changes, first, last):
    """The value at each clock's sample (time 10*c, the clock low before its edge)."""
    values, i, v = [], 0, 0
    for c in range(first, last + 1):
        while i < len(changes) and changes[i][0] <= 10 * c:
            v = changes[i][1]
            i += 1
        values.append(v)
    return values


def test_signals(args):
    tmp = pathlib.Path(args.tmp)
    isa = {int(m.group(1), 16): m.group(2) for m in re.finditer(r"^0x([0-9a-f]+)\s+(\S+)", run([args.tool, "isa"]).stdout, re.M)}
    for program, extra in (("diverge", ["-n", "700"]), ("reduce", ["-n", "1024"])):
        fst, timeline = tmp / f"{program}.fst", tmp / f"{program}.json"
        env = dict(os.environ, TSM_RTL_EVENTS="1")
        p = run([args.tool, "run", program, "--backend", "rtl", "--config", "small", "--block", "64", *extra,
                 "--trace", fst, "--timeline", timeline], env=env)
        check("match" in p.stdout, f"{program}: the traced run matches its reference")
        retires = commit_log_retires(p.stderr)
        total = sum(retires.values())
        check(total > 0, f"{program}: the commit log has RETIRE events")

        # Every documented signal, for every SM and warp slot.
        signals = {re.sub(r"\[\d+:\d+\]$", "", n) for n in wave.fst_signals(fst)}
        scopes = wave_views.sm_scopes(wave.fst_signals(fst))
        check(len(scopes) == 2, f"{program}: the trace has the 2 SMs of small (found {len(scopes)})")
        for scope, slots in scopes:
            check(slots == list(range(8)), f"{program}: {scope} has warp slots 0..7 (small: 8 warps), found {slots}")
            for _, members in wave_views.SM_GROUPS:
                for name, *_ in members:
                    check(f"{scope}.{name}" in signals, f"{program}: {scope}.{name} is in the trace")
            for w in slots:
                for name, *_ in wave_views.WARP_SIGNALS:
                    check(f"{scope}.g_dbg_warp[{w}].{name}" in signals, f"{program}: {scope}.g_dbg_warp[{w}].{name} is in the trace")

        # Issue clocks in the FST == timeline slices == commit-log RETIRE events, warp by warp.
        head = wave.fst_header(fst)
        check(head["timescale"] == -10, f"{program}: the FST counts in 100 ps, ten to a clock, so a clock reads as 1 ns "
              f"(timescale 10^{head['timescale']} s)")
        first, last = head["start"] // 10, head["end"] // 10
        wanted = set()
        for scope, slots in scopes:
            wanted |= {f"{scope}.dbg_issue", f"{scope}.dbg_warp", f"{scope}.dbg_bar_arrive", f"{scope}.dbg_opcode"}
            wanted |= {f"{scope}.g_dbg_warp[{w}].{n}" for w in slots for n in ("state", "depth")}
        values = vcd_values(fst, wanted)
        issued = collections.Counter()
        issue_clocks = collections.defaultdict(list)
        opcodes_seen = set()
        for sm, (scope, slots) in enumerate(scopes):
            issue = per_clock(values[f"{scope}.dbg_issue"], first, last)
            warp = per_clock(values[f"{scope}.dbg_warp"], first, last)
            opcode = per_clock(values[f"{scope}.dbg_opcode"], first, last)
            for i, v in enumerate(issue):
                if v:
                    issued[(sm, warp[i])] += 1
                    issue_clocks[(sm, warp[i])].append(first + i)
                    opcodes_seen.add(opcode[i])
        check(issued == retires, f"{program}: the clocks with dbg_issue high are the commit log's RETIREs warp by warp "
              f"({sum(issued.values())} issued, {total} retired)")
        check(opcodes_seen <= set(isa), f"{program}: dbg_opcode shows only opcodes of the ISA table")

        doc = json.loads(timeline.read_text())
        check(doc["displayTimeUnit"] == "ns" and doc["otherData"]["time_base"] == "1 ns = 1 clock of the GPU",
              f"{program}: the timeline's time base is the waveform's, a nanosecond a clock")
        slices = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
        clock = lambda t: round(t * 1000)  # timestamps are microseconds: 1 ns = 1 clock
        per_warp = collections.Counter((e["pid"], e["args"]["warp"]) for e in slices)
        check(len(slices) == total, f"{program}: the timeline has one slice per retired instruction ({len(slices)} vs {total})")
        check(per_warp == retires, f"{program}: the timeline's tracks hold each warp's instructions")
        slice_issues = collections.defaultdict(list)
        for e in slices:
            slice_issues[(e["pid"], e["args"]["warp"])].append(clock(e["ts"]))
        check({k: sorted(v) for k, v in slice_issues.items()} == {k: sorted(v) for k, v in issue_clocks.items()},
              f"{program}: each slice starts at the clock the waveform shows its warp's issue")
        check(all(e["name"] in isa.values() and clock(e["dur"]) >= 1 for e in slices),
              f"{program}: every slice is named by its mnemonic and lasts at least a clock")
        names = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "thread_name"}
        check(all(names.get((e["pid"], e["tid"])) == ("warp {}".format(e["args"]["warp"]) if e["args"]["row"] == 0 else
                                                    "warp {} +{}".format(e["args"]["warp"], e["args"]["row"]))
                  for e in slices), f"{program}: each warp's tracks are named after it")
        # The Chrome trace format wants the complete slices of one track nested or apart, never
        # overlapping (Perfetto draws overlapping ones wrong): a warp's pipelined instructions take
        # as many rows as overlap.
        by_track = collections.defaultdict(list)
        for e in slices:
            by_track[(e["pid"], e["tid"])].append((clock(e["ts"]), clock(e["ts"]) + clock(e["dur"])))
        overlaps = 0
        for spans in by_track.values():
            stack = []
            for start, end in sorted(spans, key=lambda x: (x[0], -x[1])):
                while stack and stack[-1] <= start:
                    stack.pop()
                if stack and end > stack[-1]:
                    overlaps += 1
                stack.append(end)
        check(overlaps == 0, f"{program}: no two slices of a track overlap without nesting ({overlaps} do)")
        check(any(e["args"]["row"] > 0 for e in slices),
              f"{program}: some instructions of a warp overlap in time (pipelined issue) and take a second row")
        counters = {e["name"] for e in doc["traceEvents"] if e.get("ph") == "C"}
        check({"executed lanes", "stalls"} <= counters, f"{program}: counters of executed lanes and stalls ({counters})")

        states = set()
        depth = 0
        for scope, slots in scopes:
            for w in slots:
                states |= {v for _, v in values[f"{scope}.g_dbg_warp[{w}].state"]}
                depth = max([depth] + [v for _, v in values[f"{scope}.g_dbg_warp[{w}].depth"]])
        tables = wave_views.filter_tables(ROOT / "isa" / "isa.toml", ROOT / "rtl" / "sm" / "tsm_sm.sv")
        state_names = {tables["warp_states"][0][v] for v in states}
        check({"EXITED", "READY", "RUNNING"} <= state_names, f"{program}: warps go through EXITED, READY, RUNNING ({state_names})")
        if program == "diverge":
            check(depth >= 1, f"diverge: a warp's reconvergence stack holds entries (deepest {depth})")
        if program == "reduce":
            check("BARRIER" in state_names, "reduce: warps wait at the barrier")
            arrivals = sum(v for scope, _ in scopes for _, v in values[f"{scope}.dbg_bar_arrive"])
            check(arrivals > 0, "reduce: dbg_bar_arrive pulses")


def test_filters(args):
    listing = run([args.tool, "isa"]).stdout
    isa = {int(m.group(1), 16): m.group(2) for m in re.finditer(r"^0x([0-9a-f]+)\s+(\S+)", listing, re.M)}
    units = set(re.findall(r"^0x[0-9a-f]+\s+\S+\s+(\S+)", listing, re.M))
    check(len(isa) > 50, f"tsm-tool isa lists the instruction set ({len(isa)})")

    def read(name):
        out = {}
        for line in (pathlib.Path(args.filters) / f"{name}.txt").read_text().splitlines():
            if line and not line.startswith("#"):
                key, label = line.split(None, 1)
                out[int(key, 16)] = label
        return out
    opcodes = read("opcodes")
    check(opcodes == isa, "the opcode filter maps every opcode of the ISA table to its mnemonic, and nothing else"
          + "".join(f"\n  {k:#04x}: filter {opcodes.get(k)}, ISA {isa.get(k)}" for k in sorted(set(opcodes) | set(isa))
                    if opcodes.get(k) != isa.get(k)))
    check(set(read("units").values()) >= units, f"the unit filter names every unit the ISA uses ({units})")
    documented = set(re.findall(r"^\| `([A-Z]+)` \|", (ROOT / "docs" / "waveforms.md").read_text(), re.M))
    states = set(read("warp_states").values())
    check(states == documented, f"the warp-state filter and docs/waveforms.md name the same states ({states} vs {documented})")
    check({"IDLE", "FETCH", "DISPATCH", "ROWS", "LSU", "WARP_OP", "RET"} <= set(read("engine_states").values()),
          "the engine-state filter names the engine's states")
    check({"READ", "ADDRESS", "SHARED", "GLOBAL", "ATOMIC_SEND"} <= set(read("lsu_states").values()),
          "the load/store-unit filter names the unit's states")
    check({"S2R", "VOTE_WRITE", "SHFL_CAPTURE"} <= set(read("warp_op_states").values()),
          "the warp-op filter names the pipe's states")
    check({"SP_EXECUTE", "PREDICATE_FIRST", "DP_EXECUTE"} <= set(read("row_states").values()),
          "the row-pipe filter names the pipe's states")
    # The signal tables of docs/waveforms.md §2 name every signal the views show (wave_views.py).
    doc_signals = set(re.findall(r"^\| `([a-z_]+)` \|", (ROOT / "docs" / "waveforms.md").read_text(), re.M))
    shown = {name for _, members in wave_views.SM_GROUPS for name, *_ in members} | {name for name, *_ in wave_views.WARP_SIGNALS}
    check(shown <= doc_signals, f"docs/waveforms.md documents every debug signal (missing: {sorted(shown - doc_signals)})")


def test_render(args):
    tmp = pathlib.Path(args.tmp)
    fst = tmp / "render.fst"
    run([args.tool, "run", "reduce", "--backend", "rtl", "--config", "small", "--block", "64", "-n", "256", "--trace", fst])
    # --trace-depth 4: the SMs' own signals, not the per-warp ones below them.
    shallow = tmp / "depth4.fst"
    run([args.tool, "run", "reduce", "--backend", "rtl", "--config", "small", "--block", "64", "-n", "256", "--trace", shallow,
         "--trace-depth", "4"])
    names = wave.fst_signals(shallow)
    check(any(n.endswith("u_sm.dbg_issue") for n in names) and not any("g_dbg_warp" in n for n in names),
          "--trace-depth 4 keeps the SMs' debug signals and leaves out the per-warp ones")
    png, view = tmp / "render.png", tmp / "render.gtkw"
    p = run([sys.executable, ROOT / "sim" / "tools" / "wave.py", "open", fst, "--filters", args.filters, "--png", png,
             "--warps", "0-3", "--sms", "0", "--from", "1000", "--to", "1300"])
    print(p.stdout.strip())
    w, h, colours = wave.png_stats(png)
    check((w, h) == (1600, 900), f"the picture is 1600x900 ({w}x{h})")
    check(colours > 50, f"the picture is not blank ({colours} colours)")
    # Without a display, opening GTKWave is not possible: a clear message and exit 1, no hang.
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    p = run([sys.executable, ROOT / "sim" / "tools" / "wave.py", "open", fst, "--filters", args.filters], env=env, expect=1)
    check("no display to open GTKWave on" in p.stderr and "--png" in p.stderr, f"without a display: {p.stderr.strip()}")
    p = run([sys.executable, ROOT / "sim" / "tools" / "wave.py", "open", tmp / "missing.fst", "--filters", args.filters], expect=1)
    check("no such trace" in p.stderr, f"a missing trace: {p.stderr.strip()}")
    text = view.read_text()
    for name, filt in (("dbg_opcode", "opcodes"), ("dbg_unit", "units"), ("dbg_engine", "engine_states"),
                       ("dbg_lsu", "lsu_states"), ("dbg_warp_op", "warp_op_states"), ("dbg_rows", "row_states"),
                       ("g_dbg_warp[0].state", "warp_states")):
        m = re.search(r"^\^\d+ (\S+)\n\+\{[^}]*\} \S+\." + re.escape(name) + r"\[", text, re.M)
        check(m is not None and m.group(1).endswith(f"/{filt}.txt"), f"the view translates {name} with {filt}.txt")


def test_on_fail(args):
    tmp = pathlib.Path(args.tmp)
    fst = tmp / "fail.fst"
    # Without lockstep the GPU itself finds the deadlock (with it, the golden model finds it first).
    p = run([args.tool, "launch", ROOT / "tests" / "errors" / "faults.tsa", "--kernel", "barrier_deadlock", "--backend", "rtl",
             "--config", "small", "--grid", "1", "--block", "64", "--no-lockstep", "--trace-on-fail", "--trace", fst,
             "--trace-window", "100"], expect=1)
    m = re.search(r"the run failed at clock (\d+)", p.stderr)
    check(m is not None, "trace-on-fail says where the run failed")
    check("barrier" in p.stderr.lower(), "the failure is the barrier deadlock")
    check(f"wrote {fst}" in p.stderr, "trace-on-fail says where the trace is")
    if not m or not fst.exists():
        check(False, "the trace exists")
        return
    clock = int(m.group(1))
    check(clock > 100, f"the failure comes after the trace window's 100 clocks (clock {clock})")
    head = wave.fst_header(fst)
    check(head["start"] // 10 == clock - 100 and clock - 1 <= head["end"] // 10 <= clock,
          f"the trace holds clocks {clock - 100}..{clock} (found {head['start'] // 10}..{head['end'] // 10})")
    wanted = {f"{scope}.g_dbg_warp[{w}].state" for scope, slots in wave_views.sm_scopes(wave.fst_signals(fst)) for w in slots}
    states = vcd_values(fst, wanted)
    tables = wave_views.filter_tables(ROOT / "isa" / "isa.toml", ROOT / "rtl" / "sm" / "tsm_sm.sv")
    names = {w: tables["warp_states"][0][v[-1][1]] for w, v in states.items() if v}
    check("BARRIER" in names.values(), f"at the end of the trace a warp waits at the barrier ({names})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test", choices=["signals", "filters", "render", "on-fail"])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--filters", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tsm-wave-") as tmp:
        args.tmp = tmp
        {"signals": test_signals, "filters": test_filters, "render": test_render, "on-fail": test_on_fail}[args.test](args)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
