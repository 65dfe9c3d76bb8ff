#!/usr/bin/env python3
"""Builds targets of the project's CMake build with one status line of progress.

Every build the project starts goes through here: ./tsm's own (`build`, `test`, `demo`, each tool's
first use) and the on-demand builds of RTL models that tsm-tool asks for (sim/rtl_model/factory.cpp).
It configures the build directory when it has none, runs Ninja on the requested targets, and shows
one status line: the targets done out of those Ninja has to run, and the elapsed time, updated in
place on a terminal and as plain lines (one every 15 to 60 s) otherwise. Ninja's whole output
goes to the log (build/build.log); on failure the failing step's output and the log's path are
printed. A lock file in the build directory serializes builds started at the same time (two
commands that need the same model), since two Ninja runs must not share a build directory.

Exit status: 0 built (or already up to date), 1 the build or the configuration failed, 2 bad usage.
"""
from __future__ import annotations

import argparse
import fcntl
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

STATUS = re.compile(r"^\[(\d+)/(\d+)\] ")
# Steps of CMake's own that run on every build (globs re-checked, the build files regenerated): a
# build of nothing else is up to date, and says nothing.
BOOKKEEPING = ("Re-checking globbed directories", "Re-running CMake")
PLAIN_INTERVAL_S = 15.0  # a log gets at most one line this often as steps finish
PLAIN_QUIET_S = 60.0     # and one this often while a long step runs


def say(message: str) -> None:
    print(f"tsm: {message}", file=sys.stderr, flush=True)


def elapsed(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


class Progress:
    """The status line: in place on a terminal, plain lines now and then otherwise."""

    def __init__(self, what: str, stream=sys.stderr) -> None:
        self.what = what
        self.stream = stream
        self.tty = stream.isatty() and os.environ.get("TERM", "") != "dumb"
        self.start = time.monotonic()
        self.last_plain = 0.0
        self.shown = False
        self.done = 0
        self.total = 0
        self.real_steps = 0  # steps that build something (not CMake's own checks)
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        # One step can take minutes (a model's C++): the elapsed time moves on between steps, every
        # second on a terminal, every minute in a log.
        threading.Thread(target=self.tick, daemon=True).start()

    def line(self) -> str:
        count = f"{self.done}/{self.total} targets" if self.total else "checking what is out of date"
        return f"tsm: building {self.what}: {count}, {elapsed(time.monotonic() - self.start)} elapsed"

    def tick(self) -> None:
        while not self.stopped.wait(1.0):
            with self.lock:
                if self.stopped.is_set():
                    return
                if self.tty and self.shown:
                    self.stream.write("\r\033[K" + self.line())
                    self.stream.flush()
                elif not self.tty and self.real_steps and time.monotonic() - self.last_plain >= PLAIN_QUIET_S:
                    self.stream.write(self.line() + "\n")
                    self.stream.flush()
                    self.last_plain = time.monotonic()

    def update(self, done: int, total: int, show: bool = True) -> None:
        with self.lock:
            self.done, self.total = done, total
            now = time.monotonic()
            if not show:
                return
            if self.tty:
                self.stream.write("\r\033[K" + self.line())
                self.stream.flush()
                self.shown = True
            elif now - self.last_plain >= PLAIN_INTERVAL_S or done == total:
                self.stream.write(self.line() + "\n")
                self.stream.flush()
                self.last_plain = now

    def finish(self, ok: bool) -> None:
        with self.lock:
            self.stopped.set()
        took = elapsed(time.monotonic() - self.start)
        if self.tty and self.shown:
            self.stream.write("\r\033[K")
        if ok and self.real_steps:
            self.stream.write(f"tsm: built {self.what} ({self.total} targets, {took})\n")
        self.stream.flush()


def configure(source: Path, build: Path, log) -> bool:
    command = ["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
    log.write("$ " + " ".join(command) + "\n")
    log.flush()
    return subprocess.run(command, stdout=log, stderr=subprocess.STDOUT).returncode == 0


def ninja(build: Path, targets: list[str], jobs: int, progress: Progress, log) -> bool:
    command = ["cmake", "--build", str(build), "--"] + [f"-j{jobs}"] + targets
    log.write("$ " + " ".join(command) + "\n")
    log.flush()
    env = dict(os.environ, NINJA_STATUS="[%f/%t] ")
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True,
                          errors="replace", bufsize=1) as proc:
        assert proc.stdout is not None
        for text in proc.stdout:
            log.write(text)
            m = STATUS.match(text)
            if m:
                real = not text[m.end():].startswith(BOOKKEEPING)
                progress.real_steps += real
                progress.update(int(m.group(1)), int(m.group(2)), show=real or progress.real_steps > 0)
        proc.wait()
    log.flush()
    return proc.returncode == 0


def failure_excerpt(log_path: Path, limit: int = 60) -> str:
    """The output of the steps that failed (Ninja's FAILED: blocks), else the log's last lines."""
    lines = log_path.read_text(errors="replace").splitlines()
    blocks: list[str] = []
    for i, text in enumerate(lines):
        if text.startswith("FAILED: "):
            j = i + 1
            while j < len(lines) and not STATUS.match(lines[j]) and not lines[j].startswith("ninja: "):
                j += 1
            blocks.extend(lines[i:j])
    excerpt = blocks or lines[-limit:]
    if len(excerpt) > limit:
        excerpt = excerpt[:limit] + [f"... ({len(excerpt) - limit} more lines in the log)"]
    return "\n".join(excerpt)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="the project's root")
    parser.add_argument("--build", type=Path, required=True, help="the build directory")
    parser.add_argument("--target", action="append", default=[], help="a target to build (repeatable; none: all)")
    parser.add_argument("--what", default="", help="what the targets are, for the status line")
    parser.add_argument("--log", type=Path, help="the build log (default BUILD/build.log)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error("--jobs wants a positive number")
    for tool in ("cmake", "ninja"):
        if not shutil.which(tool):
            say(f"error: {tool} is not installed (./tsm deps installs it)")
            return 1

    build = args.build.resolve()
    build.mkdir(parents=True, exist_ok=True)
    log_path = (args.log or build / "build.log").resolve()
    what = args.what or (", ".join(args.target) if args.target else "everything")

    with open(build / ".tsm-build.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another build in {build} to finish")
            fcntl.flock(lock, fcntl.LOCK_EX)
        progress = Progress(what)
        with open(log_path, "w") as log:
            if not (build / "build.ninja").exists():
                say(f"configuring {build}")
                if not configure(args.source.resolve(), build, log):
                    log.close()
                    print(failure_excerpt(log_path), file=sys.stderr)
                    say(f"error: configuring {build} failed (full log: {log_path})")
                    return 1
            ok = ninja(build, args.target, args.jobs, progress, log)
            if not ok:
                # Verilated models' rules are written when CMake configures; when an RTL unit gains a
                # source file, the stale rule fails before CMake can rerun. Configure afresh once.
                log.flush()
                if "rebuilding 'build.ninja': subcommand failed" in log_path.read_text(errors="replace"):
                    ok = configure(args.source.resolve(), build, log) and ninja(build, args.target, args.jobs,
                                                                                 progress, log)
        progress.finish(ok)
        if not ok:
            print(failure_excerpt(log_path), file=sys.stderr)
            say(f"error: building {what} failed (full log: {log_path})")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
