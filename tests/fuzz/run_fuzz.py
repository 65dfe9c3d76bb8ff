#!/usr/bin/env python3
"""The sanitizer build, its unit-test runs and the fuzz runs of ./tsm test (docs/fuzzing.md).

  run_fuzz.py --sanitize-dir DIR build --source SRC
      configure and build DIR, the TSM_HOST_ONLY tree of SRC, with clang (ASan + UBSan)
  run_fuzz.py --sanitize-dir DIR unit EXE [--gtest-filter F]
      run one sanitized unit-test executable once
  run_fuzz.py --sanitize-dir DIR fuzz TARGET --seconds S --regressions DIR --work DIR [--seeds DIR...]
      replay the kept inputs of TARGET, then fuzz it for S seconds from the seeds
"""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

# Every sanitizer report ends the process with a stack trace; leaks count as failures.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
# Unit tests whose bulk is many random inputs through the same code take fewer under the
# sanitizers (tests/sequences/specs.hpp).
UNIT_ENV = {"TSM_SEQUENCE_RANDOM_CASES": "500"}


def env():
    e = dict(os.environ)
    for k, v in SANITIZER_ENV.items():
        e[k] = v if k not in e else e[k] + ":" + v
    return e


def say(msg):
    print(f"run_fuzz: {msg}", flush=True)


def build(args):
    san = Path(args.sanitize_dir)
    clang = shutil.which("clang++")
    if not clang:
        say("error: clang++ not found (./tsm deps installs Debian's clang)")
        return 1
    log = san / "build.log"
    san.mkdir(parents=True, exist_ok=True)
    steps = []
    if not (san / "build.ninja").exists():
        steps.append(["cmake", "-S", args.source, "-B", str(san), "-G", "Ninja", "-DTSM_HOST_ONLY=ON",
                      f"-DCMAKE_CXX_COMPILER={clang}"])
    steps.append(["cmake", "--build", str(san), "--", f"-j{os.cpu_count() or 1}"])
    with open(log, "w") as f:
        for cmd in steps:
            say(" ".join(cmd))
            r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
            if r.returncode != 0:
                f.close()
                sys.stdout.write(log.read_text()[-20000:])
                say(f"error: the sanitizer build failed (log: {log})")
                return 1
    say(f"built {san}")
    return 0


def unit(args):
    exe = Path(args.sanitize_dir) / "bin" / args.exe
    if not exe.exists():
        say(f"error: {exe} does not exist (the sanitize.build test builds it)")
        return 1
    cmd = [str(exe), "--gtest_brief=1"]
    if args.gtest_filter:
        cmd.append(f"--gtest_filter={args.gtest_filter}")
    say(" ".join(cmd))
    r = subprocess.run(cmd, env={**env(), **UNIT_ENV})
    if r.returncode != 0:
        say(f"error: {args.exe} failed under ASan+UBSan (exit {r.returncode}); rerun: {' '.join(cmd)}")
    return r.returncode


def fuzz(args):
    exe = Path(args.sanitize_dir) / "bin" / f"fuzz_{args.target}"
    if not exe.exists():
        say(f"error: {exe} does not exist (the sanitize.build test builds it)")
        return 1
    work = Path(args.work)
    corpus, artifacts = work / "corpus", work / "artifacts"
    shutil.rmtree(artifacts, ignore_errors=True)
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    seeds = [s for s in args.seeds if Path(s).is_dir()]
    if args.assemble_seeds:
        out = work / "seeds"
        out.mkdir(exist_ok=True)
        for tsa in sorted(Path(args.assemble_seeds).glob("*.tsa")):
            subprocess.run([args.tool, "asm", str(tsa), "-o", str(out / (tsa.stem + ".tsb"))], check=True,
                           stdout=subprocess.DEVNULL)
        seeds.append(str(out))
    kept = sorted(p for p in Path(args.regressions).glob("*") if p.is_file()) if Path(args.regressions).is_dir() else []
    common = ["-timeout=20", "-rss_limit_mb=3072", "-malloc_limit_mb=2048", f"-artifact_prefix={artifacts}/"]
    if kept:
        cmd = [str(exe), *common, *map(str, kept)]
        say(f"replaying {len(kept)} kept input(s) from {args.regressions}")
        r = subprocess.run(cmd, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.stdout.write(r.stderr[-20000:])
            say(f"error: a kept input of {args.target} fails again; rerun: {' '.join(cmd)}")
            return 1
    cmd = [str(exe), *common, f"-max_total_time={args.seconds}", f"-seed={args.seed}", "-print_final_stats=1",
           str(corpus), *seeds]
    say(" ".join(cmd))
    r = subprocess.run(cmd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = r.stdout.splitlines()
    if r.returncode == 0:
        stats = [l for l in lines if l.startswith("stat::") or " DONE " in l]
        print("\n".join(stats))
        say(f"{args.target}: clean after {args.seconds} s, corpus {len(list(corpus.iterdir()))} inputs")
        return 0
    print("\n".join(lines[-200:]))
    found = sorted(artifacts.iterdir())
    for a in found:
        say(f"error: {args.target} failed on {a}")
        say(f"  reproduce: {exe} {a}")
        say(f"  keep it (after the fix): cp {a} tests/fuzz/regressions/{args.target}/")
    if not found:
        say(f"error: {args.target} exited {r.returncode} without leaving an input")
    return 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sanitize-dir", required=True)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--source", required=True)
    u = sub.add_parser("unit")
    u.add_argument("exe")
    u.add_argument("--gtest-filter", default="")
    f = sub.add_parser("fuzz")
    f.add_argument("target")
    f.add_argument("--seconds", type=int, default=30)
    f.add_argument("--seed", type=int, default=int(os.environ.get("TSM_FUZZ_SEED", "1")))
    f.add_argument("--regressions", required=True)
    f.add_argument("--work", required=True)
    f.add_argument("--assemble-seeds", help="assemble every .tsa of this directory into seeds (binary target)")
    f.add_argument("--tool", help="tsm-tool, for --assemble-seeds")
    f.add_argument("--seeds", action="append", default=[], help="a directory of seed inputs (repeatable)")
    args = p.parse_args()
    return {"build": build, "unit": unit, "fuzz": fuzz}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
