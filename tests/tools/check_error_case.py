#!/usr/bin/env python3
"""One bad-input case of tests/errors/errors.json (docs/errors.md), run as a user would run it.

Usage: check_error_case.py TSM_TOOL ROOT ERRORS_JSON WORK_DIR ID
       check_error_case.py --doc ERRORS_JSON OUT.md        (render docs/errors.md)

A case passes when the tool exits with the case's status (never 0, never a signal), within the time
limit, and its stderr holds every line of `message` verbatim (or matches every regex of `match`,
when the message has parts that vary, like a compiler's line numbers); `stdout` lines must be in
stdout (output printed before the error is kept). `{root}` is the repository, `{out}` a fresh work
directory, `{bin}` the damaged binary that `binary` describes.
"""

import json
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

TIME_LIMIT = 300


# ---- the .tsb container (docs/binary-format.md), for making damaged binaries --------------------

def read_tsb(data: bytes):
    magic, version, isa, count, size, crc = struct.unpack_from("<4sHHIII", data, 0)
    sections = []
    for i in range(count):
        kind, off, length, _ = struct.unpack_from("<IIII", data, 32 + 16 * i)
        sections.append([kind, bytearray(data[off:off + length])])
    return {"version": version, "isa": isa, "sections": sections}


def write_tsb(tsb) -> bytearray:
    """The container as the writer lays it out: header, table, sections 8-byte aligned; size and CRC right."""
    count = len(tsb["sections"])
    pos = 32 + 16 * count
    table, body = bytearray(), bytearray()
    for kind, payload in tsb["sections"]:
        pos_aligned = (pos + 7) & ~7
        body += b"\0" * (pos_aligned - pos)
        table += struct.pack("<IIII", kind, pos_aligned, len(payload), 0)
        body += payload
        pos = pos_aligned + len(payload)
    rest = table + body
    header = struct.pack("<4sHHIII12x", b"TSMB", tsb["version"], tsb["isa"], count, 32 + len(rest), zlib.crc32(rest))
    return bytearray(header + rest)


def fix_crc(data: bytearray) -> bytearray:
    struct.pack_into("<I", data, 16, zlib.crc32(bytes(data[32:])))
    return data


def section(tsb, kind):
    return next(s for s in tsb["sections"] if s[0] == kind)


def damage(good: bytes, how: str) -> bytes:
    """One kind of damage, each of which the loader must name."""
    tsb = read_tsb(good)
    if how == "truncated":
        return good[: len(good) // 2]
    if how == "magic":
        return b"ELF\x7f" + good[4:]
    if how == "container_version":
        tsb["version"] = 7
        return bytes(write_tsb(tsb))
    if how == "isa_version":
        tsb["isa"] = 99
        return bytes(write_tsb(tsb))
    if how == "crc":
        data = bytearray(good)
        data[-1] ^= 0xFF
        return bytes(data)
    if how == "section_offset":
        data = bytearray(good)
        struct.pack_into("<I", data, 32 + 4, len(good) + 4096)  # the first section's offset: past the end
        return bytes(fix_crc(data))
    if how == "section_size":
        data = bytearray(good)
        struct.pack_into("<I", data, 32 + 8, 0x7FFFFFF0)  # the first section's size: far past the end
        return bytes(fix_crc(data))
    if how == "text_misaligned":
        text = section(tsb, 1)
        text[1] = text[1][:-4]  # half an instruction at the end
        return bytes(write_tsb(tsb))
    if how == "undefined_opcode":
        text = section(tsb, 1)
        text[1][0:8] = struct.pack("<Q", 0)  # opcode 0 is not an instruction
        return bytes(write_tsb(tsb))
    meta = section(tsb, 2)
    doc = json.loads(meta[1].decode())
    if how == "entry_outside":
        doc["kernels"][0]["entry"] = len(section(tsb, 1)[1]) // 8 + 100
    elif how == "regs_zero":
        doc["kernels"][0]["regs"] = 0
    elif how == "meta_missing_field":
        del doc["kernels"][0]["params"]
    elif how == "meta_not_json":
        meta[1] = bytearray(b'{"kernels": [')
        return bytes(write_tsb(tsb))
    else:
        raise SystemExit(f"unknown damage '{how}'")
    meta[1] = bytearray(json.dumps(doc).encode())
    return bytes(write_tsb(tsb))


# ---- running a case -----------------------------------------------------------------------------

def subst(text: str, root: Path, out: Path) -> str:
    return text.replace("{root}", str(root)).replace("{out}", str(out)).replace("{bin}", str(out / "damaged.tsb"))


def run_case(tool: str, root: Path, cases: list, work: Path, case_id: str) -> int:
    case = next((c for c in cases if c["id"] == case_id), None)
    if case is None:
        print(f"no case '{case_id}' in errors.json")
        return 1
    if case.get("needs") == "nvcc" and not (shutil.which("nvcc") or Path("/usr/local/cuda/bin/nvcc").exists()):
        print("nvcc is not installed: skipped")
        return 77
    out = work / case_id
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    if "binary" in case:
        good = out / "good.tsb"
        r = subprocess.run([tool, "asm", subst(case["binary"]["from"], root, out), "-o", str(good)], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"cannot assemble the binary to damage: {r.stderr}")
            return 1
        (out / "damaged.tsb").write_bytes(damage(good.read_bytes(), case["binary"]["damage"]))
    argv = [tool] + [subst(a, root, out) for a in case["run"]]
    print("$ tsm-tool " + " ".join(argv[1:]))
    try:
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=TIME_LIMIT, cwd=out)
    except subprocess.TimeoutExpired:
        print(f"FAIL: still running after {TIME_LIMIT} s (a hang)")
        return 1
    sys.stdout.write(r.stdout[-3000:])
    sys.stdout.write(r.stderr[-3000:])
    problems = []
    if r.returncode < 0:
        problems.append(f"killed by signal {-r.returncode} (a crash)")
    elif r.returncode != case.get("exit", 1):
        problems.append(f"exit status {r.returncode}, expected {case.get('exit', 1)}")
    for bad in ("terminate called", "Assertion", "Segmentation fault", "runtime error:", "AddressSanitizer"):
        if bad in r.stderr:
            problems.append(f"stderr shows '{bad}'")
    message = [subst(m, root, out) for m in case["message"]]
    if "match" in case:
        for rx in case["match"]:
            if not re.search(subst(rx, root, out), r.stderr, re.M):
                problems.append(f"stderr does not match /{rx}/")
            if not any(re.search(subst(rx, root, out), m) for m in message):
                problems.append(f"the documented message does not match /{rx}/ (errors.json is inconsistent)")
    else:
        lines = r.stderr.splitlines()
        for m in message:
            if m not in lines:
                problems.append(f"stderr lacks the line: {m}")
    for m in case.get("stdout", []):
        if subst(m, root, out) not in r.stdout.splitlines():
            problems.append(f"stdout lacks the line (output before the error must be kept): {m}")
    if problems:
        print("\nFAIL:\n  " + "\n  ".join(problems))
        return 1
    print("\nok")
    return 0


# ---- docs/errors.md -----------------------------------------------------------------------------

def render_doc(cases: list) -> str:
    out = ["# Bad input and what the user is told",
           "",
           "<!-- Generated from tests/errors/errors.json by tests/tools/check_error_case.py; ./tsm docs refreshes it. -->",
           "",
           "Every row is a test (`ctest -R errors.`): the command runs as a user would run it, and the",
           "test requires its exit status (never 0, never a crash), that it ends within "
           f"{TIME_LIMIT} s (never a hang),",
           "and the message below on stderr; where a row lists output printed before the error, that",
           "output must still be there. `{root}` is the repository; `{bin}` a binary damaged as the row says",
           "(made from a good one by the test). The run-time faults come from `tests/errors/faults.tsa` and are",
           "checked on the golden model and on the RTL, which report them the same way. Where a row's message",
           "holds line and column numbers of generated PTX, the test matches them loosely: they change with",
           "the compiler's version.",
           ""]
    areas = []
    for c in cases:
        if c["area"] not in areas:
            areas.append(c["area"])
    n = 0
    for area in areas:
        out += [f"## {area}", "", "| # | bad input | command | exit | message |", "|---|---|---|---|---|"]
        for c in cases:
            if c["area"] != area:
                continue
            n += 1
            cmd = "./tsm " + " ".join(c["run"])
            if "binary" in c:
                cmd += f" (`{{bin}}`: {c['binary']['from'].replace('{root}/', '')}, {c['binary']['damage'].replace('_', ' ')})"
            msg = "<br>".join(m.replace("|", "\\|") for m in c["message"])
            if c.get("stdout"):
                msg += "<br>stdout kept: " + "<br>".join(s.replace("|", "\\|") for s in c["stdout"])
            needs = " (nvcc only)" if c.get("needs") == "nvcc" else ""
            cmd = cmd.replace("|", "\\|")
            out.append(f"| {n} | {c['input']}{needs} | `{cmd}` | {c.get('exit', 1)} | {msg} |")
        out.append("")
    out.append(f"{n} cases.")
    return "\n".join(out) + "\n"


def main() -> int:
    if sys.argv[1] == "--doc":
        cases = json.loads(Path(sys.argv[2]).read_text())
        Path(sys.argv[3]).parent.mkdir(parents=True, exist_ok=True)
        Path(sys.argv[3]).write_text(render_doc(cases))
        return 0
    tool, root, errors, work, case_id = sys.argv[1:6]
    return run_case(tool, Path(root), json.loads(Path(errors).read_text()), Path(work), case_id)


if __name__ == "__main__":
    sys.exit(main())
