#!/usr/bin/env python3
"""sim/tools/build.py, the build helper every ./tsm command and every on-demand model build goes
through, on a small CMake project of its own (made here, in WORK_DIR): it configures a directory
that has no build, shows progress as plain lines when its output is not a terminal, keeps Ninja's
output in the log, names the failing step and the log on failure with exit status 1, and waits
for another build of the same directory instead of running beside it.

usage: check_build_progress.py BUILD_PY WORK_DIR
"""
import fcntl
import shutil
import subprocess
import sys
import time
from pathlib import Path

build_py, work = sys.argv[1], Path(sys.argv[2])
shutil.rmtree(work, ignore_errors=True)
(work / "src").mkdir(parents=True)
(work / "src" / "CMakeLists.txt").write_text("""cmake_minimum_required(VERSION 3.25)
project(progress_probe LANGUAGES NONE)
foreach(i RANGE 1 6)
  add_custom_command(OUTPUT step${i}.txt COMMAND ${CMAKE_COMMAND} -E echo made step ${i}
    COMMAND ${CMAKE_COMMAND} -E touch step${i}.txt)
  list(APPEND steps step${i}.txt)
endforeach()
add_custom_target(good ALL DEPENDS ${steps})
add_custom_target(broken COMMAND sh -c "echo 'deliberate failure: line 3 is wrong' >&2; exit 3")
""")
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def build(*targets, background=False):
    argv = [sys.executable, build_py, "--source", str(work / "src"), "--build", str(work / "b"), "--what", "the probe"]
    for t in targets:
        argv += ["--target", t]
    if background:
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(argv, capture_output=True, text=True)


r = build("good")
print(r.stderr)
check(r.returncode == 0, "a good target builds (exit 0)")
check(f"tsm: configuring {work / 'b'}" in r.stderr, "a directory without a build is configured first")
check("tsm: building the probe: " in r.stderr and " targets, 0:0" in r.stderr, "a status line with targets done/total and the elapsed time")
check("tsm: built the probe (" in r.stderr, "a closing line says what was built")
log = (work / "b" / "build.log").read_text()
check("made step 6" in log and "$ cmake --build" in log, "Ninja's whole output is in build.log")
check("made step" not in r.stderr + r.stdout, "and not on the screen")

r = build("good")
check(r.returncode == 0 and "building" not in r.stderr, "an up-to-date target builds silently")

r = build("broken")
print(r.stderr)
check(r.returncode == 1, "a failing build exits 1")
check("FAILED: " in r.stderr and "deliberate failure: line 3 is wrong" in r.stderr, "the failing step and its output are shown")
check(f"(full log: {work / 'b' / 'build.log'})" in r.stderr, "the log's path is printed on failure")

# Another build of the same directory holds the lock: this one waits, then runs.
with open(work / "b" / ".tsm-build.lock", "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    p = build("good", background=True)
    time.sleep(2)
    check(p.poll() is None, "a second build waits while another holds the build directory")
# (closing the file released the lock)
out, err = p.communicate(timeout=60)
check(p.returncode == 0 and "waiting for another build" in err, "and says so, then runs")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
