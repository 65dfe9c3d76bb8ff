#!/usr/bin/env python3
"""Checks fpga/tools/fpga_build.py's reports without Yosys or nextpnr (milliseconds, for CI).

- Cells per unit from a `stat -json` of a kept hierarchy: parameterised module names
  ($paramod$HASH\\name, $paramod\\name\\P=V) mapped back to their module, instances multiplied
  through the hierarchy, a carry cell counted as two LUT4.
- The fit check: a design over the part stops `pnr` with exit status 2 and the message that names
  the LUT4 count, the part and the share, before nextpnr (no virtual environment needed).
- The critical-path summary of a nextpnr --report path.
- The clock plan of --freq: PLL dividers within the ECP5's limits, never faster than asked, and
  a UART bit rate the clock makes within 1 %; the default clock for a top with a PLL, none for a
  top without one, where --freq is refused.
- The router2 watch: on router2's log lines of tiny's board (router2_tiny.log), it stops nextpnr
  8 passes after the fewest overused wires (patience 8); a run that converges is left alone, and
  so is the run that routed tiny's board (router2_tiny_routed.log) with the default patience;
  run_measured stops a real process when told to.
"""
import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "fpga" / "tools"))
import fpga_build  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"check_flow: FAIL {what}")


def stat_fixture():
    sp = "$paramod\\tsm_sp_group\\Lanes=32'00000000000000000000000000000100"
    sm = "$paramod$bddd3f28df777d28edd995eb265c957f5152cd75\\tsm_sm"
    sfu = "$paramod$1fe02dca64f00a0e19bf66aa50eb5db20b3c63fd\\tsm_sfu"
    return {"modules": {
        "\\tsm_ulx3s": {"num_cells_by_type": {"\\tsm_board": 1, "EHXPLLL": 1, "LUT4": 10, "TRELLIS_FF": 4}},
        "\\tsm_board": {"num_cells_by_type": {sm: 1, "LUT4": 5, "DP16KD": 32}},
        sm: {"num_cells_by_type": {sp: 1, sfu: 2, "LUT4": 100, "CCU2C": 7, "TRELLIS_DPR16X4": 3}},
        sp: {"num_cells_by_type": {"LUT4": 1000, "CCU2C": 50, "MULT18X18D": 16, "TRELLIS_FF": 300}},
        sfu: {"num_cells_by_type": {"LUT4": 400, "TRELLIS_FF": 20}},
    }}


def check_units():
    rows = {r["module"]: r for r in fpga_build.unit_table(stat_fixture(), "tsm_ulx3s")}
    check(set(rows) == {"tsm_ulx3s", "tsm_board", "tsm_sm", "tsm_sp_group", "tsm_sfu"}, f"unit names: {sorted(rows)}")
    check(rows["tsm_sfu"]["instances"] == 2 and rows["tsm_sfu"]["LUT4"] == 800 and rows["tsm_sfu"]["FF"] == 40,
          f"two tsm_sfu instances count twice: {rows.get('tsm_sfu')}")
    check(rows["tsm_sp_group"]["LUT4"] == 1100 and rows["tsm_sp_group"]["MULT18X18D"] == 16,
          f"CCU2C counts as two LUT4: {rows.get('tsm_sp_group')}")
    check(rows["tsm_sm"]["LUT4"] == 114 and rows["tsm_sm"]["LUTRAM"] == 3, f"tsm_sm's own cells: {rows.get('tsm_sm')}")
    check(rows["tsm_board"]["DP16KD"] == 32 and rows["tsm_ulx3s"]["LUT4"] == 10, "board and top rows")
    check([r["depth"] for r in fpga_build.unit_table(stat_fixture(), "tsm_ulx3s")][:3] == [0, 1, 2], "hierarchy order")


def check_fit():
    totals = {"LUT4": 221089, "FF": 26685, "MULT18X18D": 74, "DP16KD": 76, "LUTRAM": 64}
    over = fpga_build.fit_verdict(totals)
    check([k for k, *_ in over] == ["LUT4"], f"only the LUT4 are over: {over}")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        msg = fpga_build.does_not_fit_message("small", over, d / "utilization.md", totals["LUTRAM"])
        util = {"name": "small", "top": "tsm_ulx3s", "fits": False, "verdict": msg,
                "utilization": {k: {"used": totals[k], "available": c, "percent": fpga_build.percent(totals[k], c)}
                                for k, c in fpga_build.CAPACITY.items()}}
        (d / "utilization.json").write_text(json.dumps(util))
        p = subprocess.run([sys.executable, str(ROOT / "fpga" / "tools" / "fpga_build.py"), "pnr", "--dir", tmp,
                            "--venv", str(d / "no-venv"), "--lpf", str(d / "no.lpf")], capture_output=True, text=True)
        check(p.returncode == 2, f"pnr of a design over the part exits 2, not {p.returncode}: {p.stderr.strip()}")
        want = ("the `small` design needs 221,345 LUT4 (221,089 of logic, 256 as LUT RAM), the LFE5U-85F has 83,640 (264.6 %): "
                "it does not fit; see the per-unit table")
        check(want in p.stderr, f"the fit message: {p.stderr.strip()}")
        check("nextpnr not started" in p.stderr, "the fit check comes before nextpnr")


def check_path():
    cell = lambda c, port: {"cell": c, "loc": [1, 1], "port": port}
    path = [
        {"type": "clk-to-q", "delay": 0.5, "from": cell("u_sm.u_sp.$auto$ff.cc:266:slice$1", "Q"), "to": cell("x", "Q")},
        {"type": "routing", "delay": 1.0, "net": "u_sm.a", "sources": ["/usr/share/yosys/ecp5/cells_map.v:1.1-1.2"],
         "from": cell("a", "Q"), "to": cell("b", "A")},
        {"type": "logic", "delay": 0.25, "from": cell("b", "A"), "to": cell("b", "F")},
        {"type": "routing", "delay": 1.0, "net": "u_sm.b", "sources": [f"{ROOT}/rtl/sm/tsm_sm.sv:12.3-12.9"],
         "from": cell("b", "F"), "to": cell("c", "A")},
        {"type": "logic", "delay": 0.0, "from": cell("c", "FCO"), "to": cell("c", "FCI")},
        {"type": "setup", "delay": 0.1, "from": cell("g_x[0].u_rf.$abc$9$lut", "M"), "to": cell("g_x[0].u_rf.$abc$9$lut", "M")},
    ]
    s = fpga_build.summarize_path({"from": "posedge $glbnet$clk", "to": "posedge $glbnet$clk", "path": path})
    check(s["from"] == "posedge clk" and s["logic_steps"] == 2 and s["carry_steps"] == 1 and s["lut_levels"] == 1,
          f"path steps: {s}")
    check(abs(s["logic_ns"] - 0.85) < 1e-6 and abs(s["routing_ns"] - 2.0) < 1e-6, f"delay split: {s}")
    check(s["source_instance"] == "u_sm.u_sp" and s["sink_instance"] == "g_x[0].u_rf", f"instances: {s}")
    check(s["first_net"] == {"net": "u_sm.b", "defined_in": "rtl/sm/tsm_sm.sv:12"}, f"named net: {s['first_net']}")


def check_clock():
    """--freq: the EHXPLLL dividers and the UART's bit rate the board top gets."""
    def plan(mhz):
        c = fpga_build.clock_plan(mhz)
        p = c["pll"]
        return (p["clki_div"], p["clkfb_div"], p["clkop_div"], c["clock_hz"], c["baud"], c["clocks_per_bit"])
    # 60 MHz: the dividers tsm_ulx3s had before --freq set them, and Trellis' ecppll's (-i 25 -o 60).
    check(plan(60) == (5, 12, 10, 60_000_000, 3_000_000, 20), f"60 MHz: {plan(60)}")
    # 5 MHz: ecppll -i 25 -o 5 gives the same dividers; 500 kbaud is 10 clocks a bit.
    check(plan(5) == (5, 1, 120, 5_000_000, 500_000, 10), f"5 MHz: {plan(5)}")
    # 64 MHz is not made exactly: the fastest clock below it is 62.5 MHz, never a faster one.
    check(plan(64)[3] == 62_500_000, f"64 MHz asks for 62.5: {plan(64)}")
    # 8 MHz: 8.333 MHz would be nearer but faster; 7.142857 MHz, 115,200 baud (62 clocks, 0.04 % off).
    check(plan(8)[3] == 7_142_857 and plan(8)[4] == 115_200, f"8 MHz: {plan(8)}")
    for mhz in (3.125, 10, 25, 30, 48, 100, 200):
        c = fpga_build.clock_plan(mhz)
        p = c["pll"]
        vco = p["mhz"] * p["clkop_div"]
        ok = (25.0 / p["clki_div"] >= 3.125 and 400 <= vco <= 800 and p["mhz"] <= mhz + 1e-9 and
              abs(c["clock_hz"] / c["clocks_per_bit"] / c["baud"] - 1) <= 0.01 and c["clocks_per_bit"] >= 8)
        check(ok, f"{mhz} MHz: a plan within the PLL's and the UART's limits: {c}")
    # Which top gets a clock: the ULX3S top (a PLL) the default one or --freq's, the simulated
    # board top (no PLL) none, and --freq there is an error.
    with tempfile.TemporaryDirectory() as d:
        pll_top = Path(d) / "top_pll.sv"
        pll_top.write_text("module top_pll #(parameter int unsigned PllClkiDiv = 5) ();\nendmodule\n")
        plain_top = Path(d) / "top_plain.sv"
        plain_top.write_text("module top_plain #(parameter int unsigned ClockHz = 8000000) ();\nendmodule\n")
        pll = {"top": "top_pll", "sources": [str(pll_top)]}
        plain = {"top": "top_plain", "sources": [str(plain_top)]}
        c = fpga_build.synth_clock(pll, None, False)
        check(c is not None and c["clock_hz"] == int(fpga_build.DEFAULT_MHZ * 1e6), f"PLL top, no --freq: {c}")
        c = fpga_build.synth_clock(pll, 10, False)
        check(c is not None and c["clock_hz"] == 10_000_000, f"PLL top, --freq 10: {c}")
        check(fpga_build.synth_clock(pll, None, True) is None, "PLL top, --report-only: the last run's clock")
        check(fpga_build.synth_clock(plain, None, False) is None, "top without a PLL: no clock plan")
        try:
            fpga_build.synth_clock(plain, 10, False)
            check(False, "--freq on a top without a PLL is refused")
        except fpga_build.FlowError as e:
            check("no PLL parameters" in str(e), f"--freq on a top without a PLL: {e}")
    for bad in (1.0, 500.0):
        try:
            fpga_build.clock_plan(bad)
            check(False, f"--freq {bad} is refused")
        except fpga_build.FlowError as e:
            check("3.125 to 400 MHz" in str(e), f"--freq {bad}: {e}")


def check_route_watch():
    # router2's pass lines of the run that placed tiny's board (two warps) at 85 % of the LUT4
    # (docs/fpga.md): the fewest overused wires at pass 19, more at every pass after it.
    log = (Path(__file__).parent / "router2_tiny.log").read_text()
    lines = log.splitlines()  # one line a pass, passes 1 to 27
    w = fpga_build.RouteWatch("unused", 8)
    stalled_after = []
    for n in range(1, len(lines) + 1):
        w.feed("\n".join(lines[:n]))
        stalled_after.append(w.stalled())
    check(stalled_after == [False] * 26 + [True] and w.best() == (19, 5837),
          f"router2 on tiny's board is stopped at pass 27, 8 passes after its best (19), not before: "
          f"{[i + 1 for i, s in enumerate(stalled_after) if s]}, {w.best()}")
    msg = w.message()
    check("5,837" in msg and "(19)" in msg and "pass 27" in msg, f"the message names the best pass and the last: {msg}")
    # A run that levels off for fewer passes than the patience and then converges is left alone.
    converging = [120000, 60000, 9000, 900, 500, 510, 520, 530, 540, 550, 560, 570, 300, 40, 0]
    w = fpga_build.RouteWatch("unused", 8)
    stopped = False
    for i in range(1, len(converging) + 1):
        w.feed("\n".join(f"Info:     iter={k + 1} wires=1000 overused={o} overuse={o} archfail=NA"
                         for k, o in enumerate(converging[:i])))
        stopped = stopped or w.stalled()
    check(not stopped, "a run that reaches a new low within 8 passes and converges is not stopped")
    # The run that routed tiny's board (docs/fpga.md): a new low 9 passes after the last one (pass
    # 47 to 56) on its way to 0 at pass 71. The default patience lets it finish; 8 would not have.
    routed = (Path(__file__).parent / "router2_tiny_routed.log").read_text().splitlines()
    for patience, want in ((fpga_build.ROUTE_PATIENCE, []), (8, [55])):
        w = fpga_build.RouteWatch("unused", patience)
        stops = []
        for n in range(1, len(routed) + 1):
            w.feed("\n".join(routed[:n]))
            if w.stalled():
                stops.append(w.passes[-1][0])
        check(stops[:1] == want and w.passes[-1] == (71, 0),
              f"the routed run with patience {patience}: first stop {stops[:1]}, wanted {want}; last pass {w.passes[-1]}")
    w = fpga_build.RouteWatch("unused", 0)
    w.feed(log)
    check(not w.stalled(), "--route-patience 0 never stops the run")
    # run_measured stops a real process when the watch says so, and reports its exit status.
    # (sleep left alone exits with 0; stopped, it reports SIGTERM.)
    calls = []
    rc, seconds, _ = fpga_build.run_measured(["sleep", "60"], watch=lambda: calls.append(1) or len(calls) >= 2,
                                             poll_seconds=0.1)
    check(rc == -signal.SIGTERM and len(calls) == 2,
          f"a watched command is stopped with SIGTERM when the watch first says so: exit {rc}, {len(calls)} calls")


def main():
    check_units()
    check_fit()
    check_path()
    check_clock()
    check_route_watch()
    if failures:
        print(f"check_flow: {len(failures)} checks failed")
        sys.exit(1)
    print("check_flow: per-unit table, fit check, critical-path summary, clock plans and the router2 watch as expected")


if __name__ == "__main__":
    main()
