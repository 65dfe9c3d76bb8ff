#!/usr/bin/env python3
"""./tsm regress: the co-simulation regression (docs/regression.md).

Runs every kernel of the CUDA suite x configuration x launch shape, and seeded random kernels, on the
RTL in lockstep with the golden model (each case is one tsm-tool process, so a crash or hang stays in
its case), prints a table (pass/fail, cycles, IPC per case), writes JUnit XML, and for a failing case
prints the one command that reproduces it. Cases run longest first, by the times of the last run.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Random kernels per case: small enough that a failure is found early, large enough that process
# start-up does not matter.
RANDOM_CHUNK = 10
# --quick's problem size for the suite's longest kernels (--full runs them at their own).
QUICK_SIZE = {"mathlib": 200, "localarray": 2003}


@dataclass
class Case:
    name: str                 # e.g. suite.small.saxpy.b100, random.g80.2001-2012
    config: str               # the SM configuration it runs on
    argv: list[str]           # tsm-tool arguments (without the tool itself)
    kind: str                 # "suite", "random" or "fault"
    expect: str               # regex that a passing run prints
    full_only: bool = False   # part of --full only
    command: list[str] | None = None  # the whole command, when it is not tsm-tool's
    # filled in by the run
    status: str = "not run"   # pass, FAIL, timeout, not run
    seconds: float = 0.0
    cycles: int | None = None
    ipc: float | None = None
    instructions: int | None = None
    output: str = ""
    problem: str = ""
    saved: list[str] = field(default_factory=list)


def suite_case(prog: str, config: str, block: int, frontend: str, full_only: bool, sms: int = 0,
               source: str = "cuda", extra: list[str] | None = None, tag: str = "") -> Case:
    argv = ["run", prog, "--backend", "rtl", "--config", config, "--block", str(block)]
    argv += ["--source", "asm"] if source == "asm" else ["--frontend", frontend]
    if sms:
        argv += ["--sms", str(sms)]
    argv += extra or []
    where = config + (f"_{sms}sm" if sms else "")
    name = f"suite.{where}.{prog}{'.asm' if source == 'asm' else ''}.b{block}{tag}"
    return Case(name, config, argv, "suite", rf"^{re.escape(prog)}: .*\bmatch", full_only)


def random_cases(config: str, first: int, count: int, full_only: bool, sms: int = 0,
                 extra: list[str] | None = None, tag: str = "") -> list[Case]:
    cases = []
    for s in range(first, first + count, RANDOM_CHUNK):
        n = min(RANDOM_CHUNK, first + count - s)
        argv = ["random", "--seed", str(s), "--count", str(n), "--config", config]
        if sms:
            argv += ["--sms", str(sms)]
        argv += extra or []
        where = config + (f"_{sms}sm" if sms else "") + tag
        cases.append(Case(f"random.{where}.{s}-{s + n - 1}", config, argv, "random",
                          rf"^random: {n} seeds from {s} .*: {n} passed, 0 failed", full_only))
    return cases


def random_ptx_cases(config: str, first: int, count: int, full_only: bool, sms: int = 0) -> list[Case]:
    """Random PTX kernels through our translator (`random --level ptx`): the golden model against the
    generator's reference evaluation, then the RTL in lockstep against the golden model."""
    return random_cases(config, first, count, full_only, sms, extra=["--level", "ptx"], tag=".ptx")


def saved_cases() -> list[Case]:
    """Every kernel kept in tests/regressions/ runs again with the flags its header names."""
    cases = []
    saved = ROOT / "tests" / "regressions"
    for path in sorted(list(saved.glob("*.tsa")) + list(saved.glob("*.ptx"))):
        first = path.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
        m = re.search(r"reproduce with: \S*tsm(?:-tool)? (random .*?) --kernel-file", first[0]) if first else None
        if not m:
            print(f"regress: {path}: first line has no 'reproduce with: ... random ... --kernel-file'; skipped",
                  file=sys.stderr)
            continue
        argv = shlex.split(m.group(1)) + ["--kernel-file", str(path)]
        config = argv[argv.index("--config") + 1] if "--config" in argv else "small"
        cases.append(Case(f"saved.{path.stem}", config, argv, "random", r"^random: 1 seeds from .*: 1 passed, 0 failed"))
    return cases


def max_threads_per_block(tool: str, config: str) -> int:
    """The configuration's max_threads_per_block, from `tsm-tool configs NAME`."""
    out = subprocess.run([tool, "configs", config], capture_output=True, text=True).stdout
    m = re.search(r"^\s*max_threads_per_block\s+(\d+)", out, re.M)
    return int(m.group(1)) if m else 1 << 30


def build_cases(programs: list[dict], frontend: str, tool: str) -> list[Case]:
    cases: list[Case] = []
    names = [p["name"] for p in programs]
    shapes = {p["name"]: p["shapes"] for p in programs}
    asm = [p["name"] for p in programs if p["asm"]]

    def quick_block(prog: str, preferred: int) -> int:
        # The preferred shape when the program is tested with it, else its largest tested shape
        # up to the preferred one, else its first (matmul_tiled's tiles need 256 threads).
        s = shapes[prog]
        if preferred in s:
            return preferred
        below = [b for b in s if b <= preferred]
        return max(below) if below else s[0]

    # --quick: each kernel once on small (2 SMs: several blocks per SM, partial warps) and on g80;
    # the control-flow and barrier kernels on one SM of small; the hand-written assembly; four
    # kernels with every register and memory starting random (Verilator is two-state, and a missing
    # reset hides behind zeros); 106 random native-ISA kernels (10 on tiny) and 50 runs of random PTX kernels.
    # The two longest kernels (mathlib: every function over 1999 inputs; localarray: 10007 elements)
    # run on fewer inputs (the same code in a tenth of the time; the golden model checks them at full
    # size in the firmware tests, and --full runs them at full size on every configuration).
    def sized(prog: str, config: str) -> dict:
        if prog in QUICK_SIZE:
            return {"extra": ["-n", str(QUICK_SIZE[prog])], "tag": f".n{QUICK_SIZE[prog]}"}
        return {}

    for prog in names:
        cases.append(suite_case(prog, "small", quick_block(prog, 100), frontend, False, **sized(prog, "small")))
        cases.append(suite_case(prog, "g80", quick_block(prog, 256), frontend, False, **sized(prog, "g80")))
    for prog in ["saxpy", "reduce", "diverge", "warpreduce", "printf_hello", "matmul_tiled"]:
        if prog in names:
            cases.append(suite_case(prog, "small", quick_block(prog, 64), frontend, False, sms=1))
    for prog in asm:
        for block in (64, 256):
            cases.append(suite_case(prog, "small", block, frontend, False, source="asm"))
    for seed in (1, 2):
        for prog in ["saxpy", "reduce", "diverge", "warpreduce"]:
            if prog in names:
                cases.append(suite_case(prog, "small", quick_block(prog, 100), frontend, False,
                                        extra=["--verilator-arg", "+verilator+rand+reset+2",
                                               "--verilator-arg", f"+verilator+seed+{seed}"],
                                        tag=f".randreset{seed}"))
    # The greedy-then-oldest warp scheduler (--sched gto, docs/sm-rtl.md §2.3): kernels with barriers,
    # divergence, shuffles and many loads in flight, and random kernels, in lockstep; their cycle
    # counts are recorded like the others'.
    for prog in ["saxpy", "reduce", "diverge", "warpreduce", "matmul_tiled", "spmv_csr"]:
        if prog in names:
            cases.append(suite_case(prog, "small", quick_block(prog, 100), frontend, False,
                                    extra=["--sched", "gto"], tag=".gto"))
    cases += random_cases("small", 6001, 10, False, extra=["--sched", "gto"], tag=".gto")
    # Seeds 57 (a slot's store counter cleared under stores in flight) and 149 then 150 on one model
    # (an atomic retired through a reused request ID) showed bugs: they stay.
    # (--quick keeps it within the CI budget, SPEC §4: seeds 31-50, 61-80 and 2021-2030 are --full's.)
    cases += random_cases("small", 1, 30, False)
    cases += random_cases("small", 51, 10, False)
    cases += random_cases("small", 141, 10, False)
    cases += random_cases("small", 1001, 8, False, sms=1)
    cases += random_cases("g80", 2001, 20, False)
    cases += random_cases("small", 3001, 8, False, extra=["--verilator-arg", "+verilator+rand+reset+2",
                                                          "--verilator-arg", "+verilator+seed+7"], tag=".randreset")
    # tiny, the FPGA board's SM (one SP lane, four banks, two warps): each kernel whose tested
    # shapes include a block it can hold, and random kernels.
    tiny_limit = max_threads_per_block(tool, "tiny")
    for prog in names:
        block = quick_block(prog, 64)
        if block <= tiny_limit:
            cases.append(suite_case(prog, "tiny", block, frontend, False, **sized(prog, "tiny")))
            if sized(prog, "tiny"):
                cases.append(suite_case(prog, "tiny", block, frontend, True))
    cases += random_cases("tiny", 5001, 10, False)
    # 50 runs of random PTX kernels (translator, golden model against the reference evaluation, RTL
    # in lockstep). A seed's kernel is the same on every configuration, so seeds 1-20 run on three
    # models (small with 2 SMs and 1, g80) and must give the same memory on each.
    cases += random_ptx_cases("small", 1, 20, False)
    cases += random_ptx_cases("small", 1, 10, False, sms=1)
    cases += random_ptx_cases("g80", 1, 20, False)
    cases += saved_cases()

    # --full adds: every tested shape of every kernel on small (2 SMs and 1), g80 and gt200 that the
    # configuration allows (small: at most 256 threads a block), the assembly on g80, mathlib and
    # localarray at full size, 510 more native random kernels and 310 runs of random PTX kernels.
    have = {c.name for c in cases}
    limit = {config: max_threads_per_block(tool, config) for config in ("small", "g80", "gt200")}
    for prog in names:
        for config, sms in (("small", 0), ("small", 1), ("g80", 0), ("gt200", 0)):
            for block in [b for b in shapes[prog] if b <= limit[config]]:
                c = suite_case(prog, config, block, frontend, True, sms=sms)
                if c.name not in have:
                    cases.append(c)
    for prog in asm:
        for block in (64, 256):
            cases.append(suite_case(prog, "g80", block, frontend, True, source="asm"))
    # gt200 (its DP unit in the SM) is --full's only, as its model is (SPEC §4): seeds 4001-4010
    # were in --quick before, and so were these.
    cases += random_cases("gt200", 4001, 10, True)
    cases += random_cases("small", 31, 20, True)
    cases += random_cases("small", 61, 20, True)
    cases += random_cases("g80", 2021, 10, True)
    cases += random_ptx_cases("small", 21, 10, True)
    for config in ("small", "g80", "gt200"):
        cases += random_cases(config, 10001, 150, True)
    # Every suite kernel under the greedy-then-oldest scheduler on g80 too.
    for prog in names:
        size = sized(prog, "g80")
        cases.append(suite_case(prog, "g80", quick_block(prog, 256), frontend, True,
                                extra=["--sched", "gto"] + size.get("extra", []), tag=size.get("tag", "") + ".gto"))
    # The PTX generator's kernels depend on the seed alone (blocks stop at 256 threads everywhere):
    # the same 100 kernels on each configuration.
    for config in ("small", "g80", "gt200"):
        cases += random_ptx_cases(config, 10001, 100, True)
    return cases


def parse_result(case: Case) -> None:
    out = case.output
    m = re.search(r"rtl (\d+) cycles, IPC ([0-9.]+) per SM", out)
    if m:
        case.cycles, case.ipc = int(m.group(1)), float(m.group(2))
    m = re.search(r"^random: .* (\d+) warp instructions in", out, re.M)
    if m:
        case.instructions = int(m.group(1))


def first_problem(case: Case) -> str:
    # A random case: the first failing seed and the problem its next line names.
    m = re.search(r"^seed (\d+): .*: FAIL .*\n\s+(.*)$", case.output, re.M)
    if m:
        return f"seed {m.group(1)}: {m.group(2).strip()}"[:300]
    for pat in (r"^(cycle count changed: .*)$", r"^\s*(lockstep.*)$", r"^.*(MISMATCH.*)$", r"^(.*FAIL.*)$", r"^(error: .*)$", r"^(tsm-tool: .*)$"):
        m = re.search(pat, case.output, re.M)
        if m:
            return m.group(1).strip()[:300]
    tail = [l for l in case.output.splitlines() if l.strip()]
    return tail[-1][:300] if tail else "no output"


class Runner:
    def __init__(self, tool: str, jobs: int, log_dir: Path, fail_fast: bool, timeout: float, mutant: int,
                 env: dict | None = None):
        self.tool, self.jobs, self.log_dir, self.fail_fast, self.timeout, self.mutant = tool, jobs, log_dir, fail_fast, timeout, mutant
        self.env = env
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.procs: set[subprocess.Popen] = set()
        self.done = 0
        # The suite cases' recorded cycle counts (--cycles): a passing case whose count differs fails.
        self.expected_cycles: dict[str, int] | None = None
        self.cycles_file = ""

    def argv(self, case: Case) -> list[str]:
        if case.command:
            return list(case.command)
        argv = [self.tool] + case.argv
        if self.mutant:
            argv += ["--mutant", str(self.mutant)]
        if case.kind == "random" and "--kernel-file" not in case.argv:
            argv += ["--keep", str(self.log_dir / "random" / case.name)]
        return argv

    def run(self, case: Case, total: int) -> Case:
        if self.stop.is_set():
            return case
        start = time.monotonic()
        try:
            p = subprocess.Popen(self.argv(case), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 errors="replace", start_new_session=True, env=self.env)
        except OSError as e:
            case.status, case.output = "FAIL", f"cannot start {self.tool}: {e}"
            return self.finish(case, start, total)
        with self.lock:
            self.procs.add(p)
        try:
            case.output, _ = p.communicate(timeout=self.timeout)
            if self.stop.is_set() and p.returncode < 0:
                case.status = "not run"
            elif p.returncode == 0 and re.search(case.expect, case.output, re.M):
                case.status = "pass"
            else:
                case.status = "FAIL"
                if p.returncode < 0:
                    case.output += f"\n(tsm-tool ended by signal {-p.returncode})"
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            case.output = (p.communicate()[0] or "") + f"\n(stopped after {self.timeout:.0f} s)"
            case.status = "timeout"
        finally:
            with self.lock:
                self.procs.discard(p)
        return self.finish(case, start, total)

    def finish(self, case: Case, start: float, total: int) -> Case:
        case.seconds = time.monotonic() - start
        parse_result(case)
        want = (self.expected_cycles or {}).get(case.name)
        if case.status == "pass" and case.cycles is not None and want is not None and case.cycles != want:
            case.status = "FAIL"
            case.output += (f"\ncycle count changed: {case.cycles:,} cycles, {self.cycles_file} records {want:,} "
                            f"({100.0 * (case.cycles - want) / want:+.2f}%)")
        log = self.log_dir / f"{case.name}.log"
        log.write_text("$ " + shlex.join(self.argv(case)) + "\n" + case.output, encoding="utf-8")
        if case.status in ("FAIL", "timeout"):
            case.problem = first_problem(case)
        with self.lock:
            if case.status != "not run":
                self.done += 1
                extra = ""
                if case.cycles is not None:
                    extra = f"  {case.cycles:,} cycles  IPC {case.ipc:.3f}"
                elif case.instructions is not None:
                    extra = f"  {case.instructions:,} warp instructions"
                print(f"[{self.done:>4}/{total}] {case.status.upper():<7} {case.name:<44} {case.seconds:7.1f} s{extra}",
                      flush=True)
                if case.problem:
                    print(f"             {case.problem}", flush=True)
            if case.status in ("FAIL", "timeout") and self.fail_fast and not self.stop.is_set():
                self.stop.set()
                for p in self.procs:
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        return case


def repro_command(case: Case, mutant: int) -> str:
    argv = list(case.argv)
    if mutant:
        argv += ["--mutant", str(mutant)]
    if case.kind == "random" and "--kernel-file" not in argv:
        # One seed: the first failing one when the output names it.
        m = re.search(r"^failed seeds: (\d+)", case.output, re.M)
        if m:
            i = argv.index("--seed")
            argv[i + 1] = m.group(1)
            argv[argv.index("--count") + 1] = "1"
    return "./tsm " + shlex.join(argv)


def trace_command(case: Case, mutant: int, log_dir: Path) -> str:
    """The reproducing command that also leaves a waveform of the clocks before the failure
    (docs/waveforms.md), for suite-kernel cases on the RTL model (the mutant model has no FST
    writer; a random case reproduces through `random`, which does not trace)."""
    argv = list(case.argv)
    if mutant or not argv or argv[0] not in ("run", "launch") or "rtl" not in argv:
        return ""
    return repro_command(case, 0) + " " + shlex.join(["--trace-on-fail", "--trace", str(log_dir / (case.name + ".fst"))])


def save_failing_kernels(case: Case, runner: Runner) -> None:
    """Random kernels that failed go to tests/regressions/, where --quick runs them from then on."""
    keep = runner.log_dir / "random" / case.name
    dest = ROOT / "tests" / "regressions"
    kept = list(keep.glob("seed-*.tsa")) + list(keep.glob("seed-*.ptx")) if keep.is_dir() else []
    for tsa in sorted(kept):
        text = tsa.read_text(encoding="utf-8", errors="replace")
        if "FAILED" not in text.splitlines()[0] if text else True:
            continue
        config = case.config
        target = dest / f"{config}-{'ptx-' if tsa.suffix == '.ptx' else ''}{tsa.stem}{tsa.suffix}"
        if not target.exists():
            dest.mkdir(parents=True, exist_ok=True)
            first, _, rest = text.partition("\n")
            first = re.sub(r"--kernel-file \S+", f"--kernel-file tests/regressions/{target.name}", first)
            target.write_text(first + "\n" + rest, encoding="utf-8")
            case.saved.append(str(target.relative_to(ROOT)))


def fault_cases(tool: str, work: Path) -> list[Case]:
    """The run-time bad-input cases of docs/errors.md (faults on the golden model and the RTL), run
    through their own checker: with --coverage, so that fault kinds count."""
    errors = ROOT / "tests" / "errors" / "errors.json"
    checker = ROOT / "tests" / "tools" / "check_error_case.py"
    cases = []
    for e in json.loads(errors.read_text()):
        if e["area"] == "Run time":
            cmd = [sys.executable, str(checker), tool, str(ROOT), str(errors), str(work), e["id"]]
            config = e["run"][e["run"].index("--config") + 1] if "--config" in e["run"] else "g80"
            where, _, kind = e["id"].partition(".")
            name = f"fault.{'rtl' if where == 'fault_rtl' else 'golden'}.{kind}"
            cases.append(Case(name, config, e["run"], "fault", r"^ok$", command=cmd))
    return cases


def isa_suffixes() -> dict[str, tuple[set[str], set]]:
    """Per mnemonic, every suffix its syntax line in the generated ISA reference allows."""
    out: dict[str, set[str]] = {}
    text = (ROOT / "docs" / "isa.md").read_text(encoding="utf-8")
    for m in re.finditer(r"^\[@\[!\]Pg\] ([A-Z0-9_]+)(\S*)", text, re.M):
        if m.group(1) == "MNEMONIC":  # the page's explanation of the syntax
            continue
        tokens, defaults = set(), set()
        for group in re.findall(r"\.\{([^}]*)\}|\[\.([^\]]*)\]|\.([A-Z0-9_]+)", m.group(2)):
            for alt in filter(None, group):
                tokens.update(alt.split("|"))
            if group[1] and "|" in group[1]:
                # An optional choice the disassembler leaves out when it is the default: 32 for
                # access sizes, else the first (RN, LO, AND, ...).
                alts = group[1].split("|")
                defaults.add((frozenset(alts), "32" if "32" in alts else alts[0]))
        out[m.group(1)] = (tokens, defaults)
    return out


def merge_coverage(cov_dir: Path) -> dict:
    total = {"forms": {}, "stack_depth": [0] * 33, "bank_degree": [0] * 17, "faults": {}, "stalls": {}, "processes": 0}
    for f in sorted(cov_dir.glob("coverage-*.json")):
        try:
            c = json.loads(f.read_text())
        except ValueError:
            continue
        total["processes"] += 1
        for key in ("forms", "faults", "stalls"):
            for k, v in c[key].items():
                total[key][k] = total[key].get(k, 0) + v
        for key in ("stack_depth", "bank_degree"):
            for i, v in enumerate(c[key]):
                total[key][i] += v
    return total


def coverage_markdown(cov: dict, what: str) -> str:
    suffixes = isa_suffixes()
    by_mn: dict[str, dict[str, int]] = {}
    for form, n in cov["forms"].items():
        by_mn.setdefault(form.split(".")[0], {})[form] = n
    lines = ["# Coverage of the regression", "",
             f"<!-- Generated by ./tsm regress {what} --coverage; refresh with: "
             "./tsm regress --coverage docs/coverage.md -->", "",
             f"What `./tsm regress {what}` reached ({cov['processes']} tool processes: the suite kernels and random kernels "
             "on the RTL in lockstep, and the run-time fault cases of [errors.md](errors.md)). Instruction forms, "
             "reconvergence-stack depths and bank-conflict degrees are counted by the golden model, which executes "
             "every instruction the RTL retires; stall reasons are the RTL's counters ([sm-rtl.md](sm-rtl.md) §4).", ""]
    never_op = sorted(m for m in suffixes if m not in by_mn)
    lines += ["## Instruction forms", "",
              f"{sum(len(v) for v in by_mn.values())} forms (mnemonic with suffixes) of {len(by_mn)} of the ISA's "
              f"{len(suffixes)} instructions executed, {sum(cov['forms'].values()):,} warp instructions in all.", ""]
    lines += ["| instruction | forms | warp instructions | suffixes never executed |", "|---|---|---|---|"]
    for mn in sorted(suffixes):
        forms = by_mn.get(mn, {})
        tokens, defaults = suffixes[mn]
        seen = set()
        for f in forms:
            parts = set(f.split(".")[1:])
            seen |= parts
            seen |= {d for alts, d in defaults if not (alts & parts)}
        missing = sorted(tokens - seen)
        if not forms:
            lines.append(f"| {mn} | 0 | 0 | **never executed** |")
        else:
            lines.append(f"| {mn} | {len(forms)} | {sum(forms.values()):,} | {' '.join('.' + t for t in missing) or '—'} |")
    lines += ["", f"Never executed: {', '.join(never_op) if never_op else 'none'}.", ""]
    lines += ["## Reconvergence-stack depth", "", "Warp instructions by the entries on their warp's stack when they issued:", "",
              "| depth | " + " | ".join(str(d) for d in range(len(cov["stack_depth"])) if cov["stack_depth"][d]) + " |",
              "|---|" + "---|" * sum(1 for v in cov["stack_depth"] if v),
              "| warp instructions | " + " | ".join(f"{v:,}" for v in cov["stack_depth"] if v) + " |", ""]
    deepest = max((d for d, v in enumerate(cov["stack_depth"]) if v), default=0)
    lines += [f"Deepest: {deepest} entries.", ""]
    lines += ["## Shared-memory bank conflicts", "",
              "Half-warp shared loads and stores by conflict degree (the most distinct words one bank serves; 1: "
              "conflict-free or broadcast):", "", "| degree | half-warp accesses |", "|---|---|"]
    for d in range(1, 17):
        lines.append(f"| {d} | {cov['bank_degree'][d]:,} |")
    never = [str(d) for d in range(1, 17) if not cov["bank_degree"][d]]
    lines += ["", f"Degrees never reached: {', '.join(never) if never else 'none'}.", ""]
    kinds = sorted(cov["faults"])  # every process lists every kind the golden model has, raised or not
    lines += ["## Fault kinds", "", "| fault | times raised |", "|---|---|"]
    for k in kinds:
        lines.append(f"| {k} | {cov['faults'].get(k, 0):,} |")
    never = [k for k in kinds if not cov["faults"].get(k)]
    lines += ["", f"Never raised: {', '.join(never) if never else 'none'}.", ""]
    lines += ["## Stall reasons (RTL)", "", "| reason | SM-clocks |", "|---|---|"]
    for k in ("scoreboard", "barrier", "fetch"):
        lines.append(f"| {k} | {cov['stalls'].get(k, 0):,} |")
    never = [k for k in ("scoreboard", "barrier", "fetch") if not cov["stalls"].get(k)]
    lines += ["", f"Never reached: {', '.join(never) if never else 'none'}.", ""]
    return "\n".join(lines)


def write_junit(path: Path, cases: list[Case], seconds: float) -> None:
    ran = [c for c in cases if c.status != "not run"]
    failures = sum(c.status in ("FAIL", "timeout") for c in ran)
    suites = ET.Element("testsuites", name="tsm regress", tests=str(len(ran)), failures=str(failures),
                        time=f"{seconds:.1f}")
    groups: dict[str, list[Case]] = {}
    for c in cases:
        groups.setdefault(".".join(c.name.split(".")[:2]), []).append(c)
    for group, members in groups.items():
        suite = ET.SubElement(suites, "testsuite", name=group, tests=str(len(members)),
                              failures=str(sum(c.status in ("FAIL", "timeout") for c in members)),
                              skipped=str(sum(c.status == "not run" for c in members)),
                              time=f"{sum(c.seconds for c in members):.1f}")
        for c in members:
            tc = ET.SubElement(suite, "testcase", classname=group, name=c.name[len(group) + 1:], time=f"{c.seconds:.1f}")
            if c.status in ("FAIL", "timeout"):
                f = ET.SubElement(tc, "failure", message=c.problem or c.status, type=c.status)
                f.text = c.output[-20000:]
            elif c.status == "not run":
                ET.SubElement(tc, "skipped", message="not run (--fail-fast stopped the run)")
            props = []
            if c.cycles is not None:
                props.append(("cycles", str(c.cycles)))
                props.append(("ipc", f"{c.ipc:.3f}"))
            if c.instructions is not None:
                props.append(("warp_instructions", str(c.instructions)))
            if props:
                pe = ET.SubElement(tc, "properties")
                for k, v in props:
                    ET.SubElement(pe, "property", name=k, value=v)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def main() -> int:
    ap = argparse.ArgumentParser(
        prog="./tsm regress",
        description="Every suite kernel x configuration x launch shape and seeded random kernels on the RTL, in "
                    "lockstep with the golden model (docs/regression.md).")
    level = ap.add_mutually_exclusive_group()
    level.add_argument("--quick", action="store_true", help="the cases ./tsm test runs (the default)")
    level.add_argument("--full", action="store_true",
                       help="add every tested launch shape on small (2 SMs and 1), g80 and gt200, 510 more random kernels and "
                            "310 more runs of random PTX kernels")
    level.add_argument("--full-only", action="store_true", help="only the cases --full adds to --quick")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="cases run at once (default: the cores)")
    ap.add_argument("--junit", metavar="FILE", help="write the results as JUnit XML")
    ap.add_argument("--filter", metavar="REGEX", help="only the cases whose name matches")
    ap.add_argument("--list", action="store_true", help="list the cases and their commands; run nothing")
    ap.add_argument("--fail-fast", action="store_true", help="stop at the first failing case")
    ap.add_argument("--mutant", type=int, default=0, metavar="N",
                    help="run on the RTL with deliberate bug N switched on (cases on configurations with a mutant model)")
    ap.add_argument("--frontend", default="auto", choices=["auto", "nvcc", "clang"],
                    help="CUDA front end of the suite kernels (auto: nvcc where installed)")
    ap.add_argument("--timeout", type=float, default=1800, metavar="S", help="seconds before a case is stopped")
    ap.add_argument("--log-dir", metavar="DIR", help="where each case's log goes (default: BUILD/regress)")
    ap.add_argument("--coverage", nargs="?", const="", metavar="FILE",
                    help="also run the run-time fault cases, count what the cases reached (instruction forms, stack "
                         "depths, bank-conflict degrees, fault kinds, stall reasons) and write it as Markdown to FILE "
                         "(default: LOG_DIR/coverage.md)")
    ap.add_argument("--tool", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cycles", metavar="FILE",
                    help="compare each suite case's cycle count with the one FILE records for this front end (docs/regression.md "
                         "§2: the RTL's cycle counts change only on purpose); a difference fails the run")
    ap.add_argument("--update-cycles", action="store_true",
                    help="with --cycles: record this run's cycle counts in FILE instead (only when every case passed)")
    ap.add_argument("--no-save", action="store_true",
                    help="do not copy failing random kernels to tests/regressions/ (--mutant never copies)")
    a = ap.parse_args()

    # The build directory: the tool's (BUILD/bin/tsm-tool), else TSM_BUILD_DIR, else ROOT/build.
    build = Path(a.tool).resolve().parent.parent if a.tool else Path(os.environ.get("TSM_BUILD_DIR", ROOT / "build"))
    tool = a.tool or str(build / "bin" / "tsm-tool")
    if not Path(tool).exists():
        print(f"regress: {tool} does not exist; run ./tsm build first", file=sys.stderr)
        return 2
    if a.jobs < 1:
        print("regress: --jobs must be at least 1", file=sys.stderr)
        return 2
    log_dir = Path(a.log_dir) if a.log_dir else build / "regress"
    frontend = a.frontend
    if frontend == "auto":
        frontend = "nvcc" if shutil.which("nvcc") or Path("/usr/local/cuda/bin/nvcc").exists() else "clang"

    try:
        programs = json.loads(subprocess.run([tool, "programs"], check=True, capture_output=True, text=True).stdout)
    except (subprocess.CalledProcessError, json.JSONDecodeError) as e:
        print(f"regress: cannot list the suite with '{tool} programs': {e}", file=sys.stderr)
        return 2
    cases = build_cases(programs, frontend, tool)
    if a.coverage is not None and not a.mutant:
        cases += fault_cases(tool, log_dir / "faults")
    if a.full_only:
        cases = [c for c in cases if c.full_only]
    elif not a.full:
        cases = [c for c in cases if not c.full_only]
    if a.mutant:
        mutant_configs = {"small"}
        cases = [c for c in cases if c.config in mutant_configs]
    if a.filter:
        try:
            rx = re.compile(a.filter)
        except re.error as e:
            print(f"regress: --filter '{a.filter}': {e}", file=sys.stderr)
            return 2
        cases = [c for c in cases if rx.search(c.name)]
    if not cases:
        print("regress: no case matches", file=sys.stderr)
        return 2

    if a.list:
        for c in cases:
            print(f"{c.name:<46} ./tsm {shlex.join(c.argv)}")
        print(f"{len(cases)} cases")
        return 0

    # Longest first by the last run's times (unknown ones first), so the cores stay busy to the end.
    # With --fail-fast, shortest first, suite and random cases taking turns, so a failure shows soon.
    times_file = build / "regress" / "durations.json"
    try:
        times = json.loads(times_file.read_text())
    except (OSError, ValueError):
        times = {}
    if a.fail_fast:
        by_time = lambda group: sorted(group, key=lambda c: times.get(c.name, 30.0))
        suite, rand = by_time([c for c in cases if c.kind == "suite"]), by_time([c for c in cases if c.kind != "suite"])
        order = [c for pair in zip(suite, rand) for c in pair]
        order += suite[len(rand):] + rand[len(suite):]
    else:
        order = sorted(cases, key=lambda c: times.get(c.name, 1e9), reverse=True)

    log_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    # Under ./tsm (TSM_BUILD_COMMAND set) the models the cases use are built here, once, before the
    # first case; the cases themselves then only load them.
    if env.pop("TSM_BUILD_COMMAND", None):
        models = sorted({c.config + (":mutant" if a.mutant else "") for c in cases})
        build_args = [arg for m in models for arg in ("--build", m)]
        if build_args and subprocess.run([tool, "models"] + build_args).returncode != 0:
            print("regress: the models the cases need could not be built (see above)", file=sys.stderr)
            return 2
    if a.coverage is not None:
        cov_dir = log_dir / "coverage"
        shutil.rmtree(cov_dir, ignore_errors=True)
        cov_dir.mkdir(parents=True)
        env["TSM_COVERAGE_DIR"] = str(cov_dir)
    runner = Runner(tool, a.jobs, log_dir, a.fail_fast, a.timeout, a.mutant, env)
    if a.cycles and not a.update_cycles:
        try:
            runner.expected_cycles = json.loads(Path(a.cycles).read_text()).get(frontend)
        except (OSError, ValueError) as e:
            print(f"regress: cannot read the cycle counts in {a.cycles}: {e}", file=sys.stderr)
            return 2
        runner.cycles_file = a.cycles
    what = "--full" if a.full else "--full-only" if a.full_only else "--quick"
    print(f"regress {what}: {len(cases)} cases, {a.jobs} at a time"
          f"{f', mutant {a.mutant}' if a.mutant else ''}; logs in {log_dir}", flush=True)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [pool.submit(runner.run, c, len(cases)) for c in order]
        try:
            for f in concurrent.futures.as_completed(futures):
                f.result()
        except KeyboardInterrupt:
            runner.stop.set()
            for p in list(runner.procs):
                os.killpg(p.pid, signal.SIGKILL)
            raise
    seconds = time.monotonic() - start

    for c in cases:
        if c.status == "pass" and not a.mutant:
            times[c.name] = round(c.seconds, 1)
    try:
        times_file.parent.mkdir(parents=True, exist_ok=True)
        times_file.write_text(json.dumps(times, indent=0, sort_keys=True))
    except OSError:
        pass

    failed = [c for c in cases if c.status in ("FAIL", "timeout")]
    if failed and not a.mutant and not a.no_save:
        for c in failed:
            if c.kind == "random":
                save_failing_kernels(c, runner)

    # The table, in the cases' natural order.
    print()
    print(f"{'case':<46} {'result':<8} {'seconds':>8} {'cycles':>12} {'IPC':>6} {'warp insns':>11}")
    for c in cases:
        print(f"{c.name:<46} {c.status:<8} {c.seconds:8.1f} "
              f"{(f'{c.cycles:,}' if c.cycles is not None else '-'):>12} "
              f"{(f'{c.ipc:.3f}' if c.ipc is not None else '-'):>6} "
              f"{(f'{c.instructions:,}' if c.instructions is not None else '-'):>11}")
    ran = [c for c in cases if c.status != "not run"]
    kernels = sum(int(c.argv[c.argv.index("--count") + 1]) if "--count" in c.argv else 1
                  for c in ran if c.kind == "random")
    print(f"\nregress {what}: {len(ran) - len(failed)} of {len(ran)} cases passed"
          f" ({kernels} random kernels), {len(failed)} failed, {len(cases) - len(ran)} not run; {seconds:.0f} s")
    if a.junit:
        write_junit(Path(a.junit), cases, seconds)
        print(f"JUnit XML: {a.junit}")
    if a.coverage is not None:
        cov = merge_coverage(log_dir / "coverage")
        (log_dir / "coverage.json").write_text(json.dumps(cov, indent=1, sort_keys=True))
        md_path = Path(a.coverage) if a.coverage else log_dir / "coverage.md"
        md_path.write_text(coverage_markdown(cov, what), encoding="utf-8")
        print(f"coverage: {md_path} ({len(cov['forms'])} instruction forms, {cov['processes']} processes)")
    cycles_ok = True
    if a.cycles:
        cycles_ok = check_cycles(Path(a.cycles), frontend, cases, a.update_cycles and not failed and not a.mutant)
    for c in failed:
        print(f"\nFAILED {c.name}: {c.problem}\n  log: {log_dir / (c.name + '.log')}\n"
              f"  reproduce: {repro_command(c, a.mutant)}")
        traced = trace_command(c, a.mutant, log_dir)
        if traced:
            print(f"  with a waveform of the failure: {traced}")
        for s in c.saved:
            print(f"  kept: {s} (--quick runs it from now on; commit it)")
    return 1 if failed or not cycles_ok else 0


def check_cycles(path: Path, frontend: str, cases: list[Case], update: bool) -> bool:
    """After the run: with `update`, records the passing cases' cycle counts in `path` for `frontend`;
    otherwise reports the cases whose count differs (they failed) and those without one recorded.
    False when a passing case has no recorded count (a new case: record it)."""
    measured = {c.name: c.cycles for c in cases if c.status == "pass" and c.cycles is not None}
    try:
        table = json.loads(path.read_text()) if path.exists() else {}
    except (OSError, ValueError) as e:
        print(f"regress: cannot read the cycle counts in {path}: {e}", file=sys.stderr)
        return False
    if update:
        table.setdefault(frontend, {}).update(measured)
        table[frontend] = dict(sorted(table[frontend].items()))
        try:
            path.write_text(json.dumps(table, indent=1) + "\n")
        except OSError as e:
            print(f"regress: cannot write the cycle counts to {path}: {e}", file=sys.stderr)
            return False
        print(f"cycle counts: recorded {len(measured)} cases ({frontend}) in {path}")
        return True
    recorded = table.get(frontend)
    if recorded is None:
        print(f"cycle counts: {path} records none for the {frontend} front end: not compared "
              f"(record them with --update-cycles)")
        return True
    changed = [c for c in cases if c.cycles is not None and c.name in recorded and c.cycles != recorded[c.name]]
    missing = sorted(n for n in measured if n not in recorded)
    if not changed and not missing:
        print(f"cycle counts: {len(measured)} cases as recorded in {path} ({frontend})")
        return True
    print(f"\ncycle counts that differ from {path} ({frontend}):")
    print(f"{'case':<46} {'recorded':>12} {'now':>12} {'change':>8}")
    for c in changed:
        before = recorded[c.name]
        print(f"{c.name:<46} {before:>12,} {c.cycles:>12,} {100.0 * (c.cycles - before) / before:>+7.2f}%")
    for n in missing:
        print(f"{n:<46} {'-':>12} {measured[n]:>12,}")
    print("If the change is intended, record it (./tsm regress --quick --cycles FILE --update-cycles), commit the table and "
          "state the counts before and after in the commit and in docs/sm-rtl.md §4.")
    return not missing


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
