#!/usr/bin/env python3
"""The FPGA board without a board (docs/fpga.md §5): tsm-board-sim runs the Verilated board top
(UART bridge, board memory, GPU) behind a pty, and the real `tsm-tool run --backend board --port`
drives it through the same host driver as the rtl backend.

  run PROGRAM     the suite program on the simulated board, with a match against its reference, and
                  the bridge's traffic and the GPU's counters reported
  errors          what the host says about a port that does not exist, is not a serial port, stays
                  silent, answers garbage, or a board built for another configuration
"""
import argparse
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
import tty


def fail(msg: str) -> None:
    print(f"FAIL: {msg}")
    sys.exit(1)


class BoardSim:
    """tsm-board-sim in the background; its pty's path once it is up."""

    def __init__(self, sim: str, workdir: str, max_seconds: int = 900):
        self.port_file = os.path.join(workdir, "port.txt")
        self.log_path = os.path.join(workdir, "board-sim.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sim, "--port-file", self.port_file, "--max-seconds", str(max_seconds)],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while not (os.path.exists(self.port_file) and open(self.port_file).read().strip()):
            if self.proc.poll() is not None:
                fail(f"tsm-board-sim exited with {self.proc.returncode} before it opened its port:\n{self.output()}")
            if time.time() > deadline:
                fail("tsm-board-sim did not write its port within 60 s")
            time.sleep(0.05)
        self.port = open(self.port_file).read().strip()

    def output(self) -> str:
        self.log.flush()
        return open(self.log_path).read()

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.output()


def tool_run(tool: str, args: list, timeout: int = 900) -> subprocess.CompletedProcess:
    print("$ tsm-tool " + " ".join(args), flush=True)
    r = subprocess.run([tool] + args, capture_output=True, text=True, timeout=timeout)
    print(r.stdout + r.stderr, end="", flush=True)
    return r


def check_run(args) -> None:
    with tempfile.TemporaryDirectory() as work:
        sim = BoardSim(args.sim, work)
        try:
            t0 = time.time()
            r = tool_run(args.tool, ["run", args.program, "--backend", "board", "--config", args.config, "--port", sim.port,
                                     "--board-timeout", "120", "-n", str(args.n), "--block", str(args.block)])
            wall = time.time() - t0
        finally:
            log = sim.stop()
        print(log, end="")
        if r.returncode != 0:
            fail(f"{args.program} on the simulated board exited with {r.returncode}")
        if not re.search(rf"^{args.program}: .*: match$", r.stdout, re.M):
            fail(f"{args.program} on the simulated board did not report a match")
        m = re.search(r"board (\d+) cycles, IPC ([0-9.]+) per SM \(1 SM\)", r.stdout)
        if not m or int(m.group(1)) == 0:
            fail("the board's counters (cycles, IPC) were not reported, or count no cycles")
        # The simulator's summary: it really moved the frames over its UART pins.
        s = re.search(r"(\d+) clocks.*?(\d+) bytes in.*?(\d+) bytes out", log, re.S)
        if not s:
            fail("tsm-board-sim printed no summary of clocks and bytes")
        clocks, bytes_in, bytes_out = (int(x) for x in s.groups())
        min_bytes = 4 * args.n  # at least the input array goes to the board
        if bytes_in < min_bytes or bytes_out < 100:
            fail(f"the UART carried {bytes_in} bytes in and {bytes_out} out: fewer than the {min_bytes} bytes of input")
        # Every byte is 10 bits on the wire at 8 clocks a bit: the simulated clocks cover the traffic.
        if clocks < 80 * (bytes_in + bytes_out) // 2:
            fail(f"{clocks} clocks cannot carry {bytes_in} + {bytes_out} bytes at 8 clocks a bit")
        print(f"PASS: {args.program} matched on the simulated board ({int(m.group(1))} GPU cycles; {bytes_in} bytes in, "
              f"{bytes_out} out over {clocks} clocks; {wall:.1f} s)")


def expect_error(tool: str, args: list, patterns: list, what: str, timeout: int = 120) -> None:
    r = tool_run(tool, args, timeout)
    if r.returncode == 0:
        fail(f"{what}: tsm-tool succeeded")
    for p in patterns:
        if not re.search(p, r.stderr, re.M):
            fail(f"{what}: stderr does not match {p!r}")
    print(f"ok: {what}")


def serve_pty(mode: str, stop: threading.Event):
    """A pty whose other side is silent or answers every byte with bytes that are no reply frame."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)

    def loop():
        while not stop.is_set():
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if mode == "garbage" and data:
                # A reply header with a wrong CRC for every request.
                os.write(master, bytes([0x5A, 0x00, data[2] if len(data) > 2 else 0, 0, 0, 0x12, 0x34]))

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    return master, slave, name, t


def check_errors(args) -> None:
    base = ["run", "saxpy", "--backend", "board", "--config", args.config, "-n", "64", "--block", "64"]
    with tempfile.TemporaryDirectory() as work:
        expect_error(args.tool, base + ["--port", os.path.join(work, "ttyNONE")],
                     [r"^error: cannot open serial port .*ttyNONE: No such file or directory"], "a port that does not exist")
        expect_error(args.tool, base + ["--port", "/dev/null"], [r"^error: .*/dev/null.*not a (serial port|terminal)"],
                     "a port that is not a serial port")
        expect_error(args.tool, base + ["--port", "/dev/null", "--trace", os.path.join(work, "x.fst")],
                     [r"^error: .*--trace.* need the rtl backend"], "a waveform of the board")
        for mode, patterns in (("silent", [r"no reply to identify within 0\.3 s", r"programmed with the TeslaSM bitstream"]),
                               ("garbage", [r"bad CRC", r"identify"])):
            stop = threading.Event()
            master, slave, name, t = serve_pty(mode, stop)
            try:
                expect_error(args.tool, base + ["--port", name, "--board-timeout", "0.3"], patterns, f"a {mode} port")
            finally:
                stop.set()
                t.join()
                os.close(master)
                os.close(slave)
        sim = BoardSim(args.sim, work)
        try:
            expect_error(args.tool, ["run", "saxpy", "--backend", "board", "--config", "g80", "-n", "64", "--block", "64",
                                     "--port", sim.port, "--board-timeout", "60"],
                         [rf"the GPU was built for configuration '{args.config}', the backend was given 'g80'"],
                         "a board built for another configuration", timeout=300)
        finally:
            sim.stop()
    print("PASS: the board backend's errors")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True, help="tsm-tool")
    ap.add_argument("--sim", required=True, help="tsm-board-sim")
    ap.add_argument("--config", required=True, help="the configuration tsm-board-sim was built with")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("program")
    r.add_argument("-n", type=int, default=256)
    r.add_argument("--block", type=int, default=64)
    sub.add_parser("errors")
    args = ap.parse_args()
    if args.cmd == "run":
        check_run(args)
    else:
        check_errors(args)


if __name__ == "__main__":
    main()
