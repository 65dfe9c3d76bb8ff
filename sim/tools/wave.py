#!/usr/bin/env python3
"""GTKWave views and headless screenshots of FST waveforms (standard library only).

Two jobs:

* ``write_gtkw`` writes a GTKWave 3.3 save file (``.gtkw``) that shows named,
  expandable groups of signals with a display format each and, optionally, a
  translate filter file that replaces raw values by names (opcode mnemonics,
  FSM states).  ``write_filter`` writes such a filter file.
  Open the result with ``gtkwave -a VIEW.gtkw`` or ``gtkwave FILE.fst VIEW.gtkw``.

* ``render_png`` starts GTKWave on a private Xvfb display, lets it load the
  view, takes a screenshot with ``xwd`` from a Tcl script that GTKWave runs
  once the window is drawn, quits, and converts the XWD dump to PNG in pure
  Python.  ``png_stats`` reads a PNG back (size, number of distinct colours) so
  a test can check that the picture is not blank.

Debian packages needed: gtkwave (gtkwave, fst2vcd), xvfb (Xvfb), x11-apps (xwd).

Facts about GTKWave 3.3.118 save files that this module relies on:

* Signal lines use the full hierarchical name exactly as GTKWave lists it:
  multi-bit signals WITH their range suffix (``TOP.u.dbg_opcode[7:0]``; the
  bare ``TOP.u.dbg_opcode`` is silently dropped), single-bit signals without
  one.  Verilator names a generate-for scope ``g_sm[0]`` (square brackets), so
  a signal reads ``TOP.tsm_gpu.g_sm[0].u_sm.dbg_opcode[7:0]``; unpacked array
  elements keep both brackets: ``TOP.tsm_gpu.ops[1][7:0]``.  Parameters are
  listed without a range.
* ``@HEX`` sets the trace flags for the following lines (see ``_FMT_FLAGS``).
  A group is ``@800200`` + ``-NAME`` ... ``@1000200`` + ``-NAME`` (open), or
  ``@c00200`` + ``-NAME`` ... ``@1401200`` + ``-NAME`` (closed/collapsed).
* A translate filter is attached by the flag 0x2000 plus a line
  ``^N /abs/path/filter.txt`` right before the signal line (N: any index; the
  file is looked up by its path).  ``+{alias} NAME`` shows NAME as ``alias``.
* ``*ZOOM MARKER n1 ... n26``: ZOOM is log2-scaled; the visible span is
  ``wave_area_px * floor(2**-ZOOM) / 200`` time units; MARKER is the primary
  marker (-1: none); n1..n26 are the named markers A..Z.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

# --------------------------------------------------------------------------
# Trace flags (GTKWave TR_* bits)
# --------------------------------------------------------------------------
TR_HEX = 0x2
TR_DEC = 0x4
TR_BIN = 0x8
TR_OCT = 0x10
TR_RJUSTIFY = 0x20
TR_BLANK = 0x200          # comment / group marker line ("-NAME")
TR_SIGNED = 0x400
TR_ASCII = 0x800
TR_COLLAPSED = 0x1000
TR_FTRANSLATED = 0x2000   # translate filter file attached ("^N path")
TR_ANALOG_STEP = 0x8000
TR_CLOSED = 0x400000
TR_GRP_BEGIN = 0x800000
TR_GRP_END = 0x1000000

_FMT_FLAGS = {
    "hex": TR_HEX | TR_RJUSTIFY,                       # @22
    "dec": TR_DEC | TR_RJUSTIFY,                       # @24
    "sdec": TR_SIGNED | TR_RJUSTIFY,                   # @420 (signed decimal)
    "bin": TR_BIN | TR_RJUSTIFY,                       # @28
    "oct": TR_OCT | TR_RJUSTIFY,                       # @30
    "ascii": TR_ASCII | TR_RJUSTIFY,                   # @820
    "analog": TR_DEC | TR_RJUSTIFY | TR_ANALOG_STEP,   # @8024
    "wave": TR_BIN | TR_RJUSTIFY,                      # @28 single bit, drawn as a wave
}
FORMATS = tuple(_FMT_FLAGS)

_GRP_OPEN = (TR_BLANK | TR_GRP_BEGIN, TR_BLANK | TR_GRP_END)                  # @800200 / @1000200
_GRP_CLOSED = (TR_BLANK | TR_GRP_BEGIN | TR_CLOSED,                           # @c00200
               TR_BLANK | TR_GRP_END | TR_CLOSED | TR_COLLAPSED)              # @1401200

# Layout of the GTKWave 3.3.118 (GTK3) main window, measured under Xvfb with the
# default theme: wave area width = window width - signals pane - SST pane - fixed.
_SST_MIN_WIDTH = 276          # the SST pane does not get narrower than this
_FIXED_PX_SST_OPEN = 24
_FIXED_PX_SST_CLOSED = 64     # collapsed "SST" expander + borders
_PIXELS_PER_FRAME = 200       # GTKWave's zoom unit

_RANGE_RE = re.compile(r"\[(-?\d+):(-?\d+)\]$")
_VIEW_RANGE_TAG = "[*] wave.py time_range"

PathLike = Union[str, "os.PathLike[str]"]


class WaveToolError(RuntimeError):
    """A missing program, a failed or timed-out render, an unknown signal."""


# --------------------------------------------------------------------------
# View description
# --------------------------------------------------------------------------
@dataclass
class Signal:
    """One trace.

    name:   full hierarchical name as GTKWave lists it (``TOP.a.b[7:0]``).  A
            multi-bit name given without its ``[msb:lsb]`` is completed from the
            FST when write_gtkw can read it.
    fmt:    one of FORMATS; default "wave" for 1 bit, "hex" otherwise.  A filter
            matches the text of the chosen format, so filters written by
            write_filter (hex keys) need "hex", the default when one is attached.
    filter: path of a translate filter file (see write_filter); False: none,
            even if write_gtkw's `filters` names one for this signal.
    alias:  text shown instead of the name.
    color:  trace colour: 0 default, 1 red, 2 orange, 3 yellow, 4 green,
            5 blue, 6 indigo, 7 violet.
    """
    name: str
    fmt: Optional[str] = None
    filter: Union[PathLike, bool, None] = None
    alias: Optional[str] = None
    color: int = 0


@dataclass
class Group:
    """A named, expandable group of signals (closed=True: starts collapsed)."""
    name: str
    signals: Sequence[Union[str, Signal, tuple]] = field(default_factory=list)
    closed: bool = False


def _as_signal(spec: Union[str, Signal, tuple, dict]) -> Signal:
    if isinstance(spec, Signal):
        return spec
    if isinstance(spec, str):
        return Signal(spec)
    if isinstance(spec, dict):
        return Signal(**spec)
    if isinstance(spec, tuple):
        return Signal(*spec)
    raise TypeError(f"bad signal spec {spec!r}: use a name, a tuple (name, fmt, filter, alias) or Signal")


def _as_group(spec: Union[Group, tuple]) -> Group:
    if isinstance(spec, Group):
        return spec
    if isinstance(spec, tuple) and len(spec) in (2, 3):
        return Group(*spec)
    raise TypeError(f"bad group spec {spec!r}: use (name, signals[, closed]) or Group")


def _bits_of(name: str) -> Optional[int]:
    m = _RANGE_RE.search(name)
    return abs(int(m.group(1)) - int(m.group(2))) + 1 if m else None


# --------------------------------------------------------------------------
# FST helpers
# --------------------------------------------------------------------------
def fst_header(fst_path: PathLike) -> Dict[str, int]:
    """Start time, end time and timescale exponent from an FST's header block.

    Returns {"start": t0, "end": t1, "timescale": exp} with times in the FST's
    own units (10**exp seconds each), the units used everywhere in a .gtkw.
    """
    with open(fst_path, "rb") as f:
        blk = f.read(74)
    if len(blk) < 74 or blk[0] != 0:
        raise WaveToolError(f"{fst_path}: not an FST file (no header block)")
    start, end = struct.unpack(">QQ", blk[9:25])
    (scale,) = struct.unpack("b", blk[73:74])
    return {"start": start, "end": end, "timescale": scale}


def fst_signals(fst_path: PathLike, timeout: float = 60.0) -> Dict[str, int]:
    """Names of all signals in an FST as GTKWave lists them -> bit width.

    Reads the header printed by ``fst2vcd`` (stops at $enddefinitions).
    Multi-bit names carry their range (``TOP.x.v[7:0]``); parameters do not.
    """
    exe = _need("fst2vcd", "gtkwave")
    out: Dict[str, int] = {}
    scope: List[str] = []
    proc = subprocess.Popen([exe, os.fspath(fst_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace")
    watchdog = threading.Timer(timeout, proc.kill)     # never hang on a bad file
    watchdog.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            tok = line.split()
            if not tok:
                continue
            if tok[0] == "$scope" and len(tok) >= 3:
                scope.append(tok[2])
            elif tok[0] == "$upscope":
                scope.pop()
            elif tok[0] == "$var" and len(tok) >= 5:
                # $var TYPE WIDTH ID NAME [RANGE] $end
                vtype, width, name = tok[1], int(tok[2]), tok[4]
                rng = tok[5] if len(tok) > 6 and tok[5].startswith("[") else ""
                if vtype == "parameter":
                    rng = ""
                out[".".join(scope + [name + rng])] = width
            elif tok[0] == "$enddefinitions":
                break
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    if not out:
        err = proc.stderr.read().strip() if proc.stderr else ""
        raise WaveToolError(f"fst2vcd found no signals in {fst_path}" + (f": {err}" if err else ""))
    return out


# --------------------------------------------------------------------------
# Translate filter files
# --------------------------------------------------------------------------
def filter_key(value: int, bits: int) -> str:
    """The text GTKWave shows for `value` on a `bits`-wide signal in hex format.

    GTKWave compares the displayed text with a filter's left column (ignoring
    case) and the display is zero-padded to ceil(bits/4) digits, upper case:
    an 8-bit 0x5 displays as "05", so the filter line must say "05", not "5".
    """
    digits = max(1, (bits + 3) // 4)
    if value < 0 or value >= (1 << bits):
        raise ValueError(f"value {value:#x} does not fit in {bits} bits")
    return f"{value:0{digits}X}"


def write_filter(path: PathLike, mapping: Mapping[Union[int, str], str],
                 bits: Optional[int] = None) -> None:
    """Write a GTKWave translate filter file: one ``VALUE NAME`` line each.

    mapping: int value -> name (keys are written as hex, zero-padded to the
             width of `bits`); a str key is written verbatim (e.g. "XX").
    bits:    width of the signals the filter is for.  Pass it: GTKWave only
             matches the zero-padded text it displays.  Default: the width of
             the largest int key, rounded up to whole hex digits.
    A name may start with "?colour?" (e.g. "?red?TRAP") to colour that value.
    """
    ints = [k for k in mapping if isinstance(k, int)]
    if bits is None:
        bits = max([4] + [max(k, 1).bit_length() for k in ints])
        bits = (bits + 3) // 4 * 4
    lines = ["# GTKWave translate filter: VALUE NAME (VALUE as shown in hex format)"]
    for key in sorted(mapping, key=lambda k: (isinstance(k, str), k if isinstance(k, int) else 0, str(k))):
        name = str(mapping[key]).strip()
        if not name or "\n" in name or "\r" in name:
            raise ValueError(f"bad filter name {mapping[key]!r} for {key!r}")
        lhs = filter_key(key, bits) if isinstance(key, int) else str(key)
        if not lhs or any(c.isspace() for c in lhs) or lhs.startswith("#"):
            raise ValueError(f"bad filter value {key!r}")
        lines.append(f"{lhs} {name}")
    _write_text(path, "\n".join(lines) + "\n")


# --------------------------------------------------------------------------
# .gtkw writer
# --------------------------------------------------------------------------
def wave_area_width(width: int, signals_width: int, sst: bool = False, sst_width: int = 0) -> int:
    """Approximate width in pixels of GTKWave's wave area for a window layout."""
    if sst:
        side = max(sst_width, _SST_MIN_WIDTH) + _FIXED_PX_SST_OPEN
    else:
        side = _FIXED_PX_SST_CLOSED
    return max(50, width - signals_width - side)


def gtkwave_time_factor(timescale: int) -> int:
    """GTKWave's time unit per FST time unit: 1, 10 or 100 (an FST of 100 ps counts in ps there)."""
    return 10 ** (timescale - 3 * math.floor(timescale / 3))


def zoom_for(span: int, wave_px: int) -> float:
    """GTKWave zoom value that shows at least `span` time units in `wave_px` pixels."""
    per_frame = max(1, math.ceil(max(1, span) * _PIXELS_PER_FRAME / wave_px))
    # GTKWave truncates 2**-zoom to an integer: aim half a unit above.
    return -math.log2(per_frame + 0.5)


def write_gtkw(path: PathLike, fst_path: PathLike,
               groups: Sequence[Union[Group, tuple]],
               filters: Optional[Mapping[str, PathLike]] = None, *,
               time_range: Optional[Tuple[int, int]] = None,
               marker: Optional[int] = None,
               named_markers: Sequence[int] = (),
               size: Tuple[int, int] = (1600, 900),
               signals_width: int = 300,
               sst: bool = False,
               check: bool = True,
               comment: Optional[str] = None) -> None:
    """Write a GTKWave save file showing `groups` of signals from `fst_path`.

    groups:     sequence of Group or (name, signals[, closed]); a signal is a
                name, a Signal, or a tuple (name, fmt, filter, alias).
    filters:    signal name -> translate filter file, for signals that name no
                filter themselves (the name may omit the [msb:lsb] suffix).
    time_range: (start, end) to show, in FST time units; default: whole dump.
    marker:     primary marker time; default: start of time_range (-1: none).
    named_markers: times of the named markers A, B, ... (up to 26).
    size:       window size in pixels; signals_width: names pane width.
    sst:        show the signal search tree pane expanded.
    check:      read the FST's signal list (fst2vcd) to complete ranges and
                reject names GTKWave would silently drop.
    """
    fst_abs = os.path.abspath(os.fspath(fst_path))
    known: Optional[Dict[str, int]] = None
    if check:
        if not os.path.exists(fst_abs):
            raise WaveToolError(f"{fst_abs}: no such FST file (pass check=False to write the view anyway)")
        known = fst_signals(fst_abs)
    by_base: Dict[str, str] = {}
    if known is not None:
        for n in known:
            by_base.setdefault(_RANGE_RE.sub("", n), n)
    flt = {_RANGE_RE.sub("", k): v for k, v in (filters or {}).items()}

    try:
        hdr = fst_header(fst_abs)
    except (OSError, WaveToolError):
        hdr = None
    if time_range is None:
        time_range = (hdr["start"], hdr["end"]) if hdr else (0, 0)
    t0, t1 = int(time_range[0]), int(time_range[1])
    if t1 < t0:
        raise ValueError(f"time_range {time_range}: end before start")
    if marker is None:
        marker = t0
    if len(named_markers) > 26:
        raise ValueError("at most 26 named markers (A..Z)")
    # A save file counts time in GTKWave's own unit, the FST's timescale without its 10x or 100x
    # (100 ps -> ps): times in FST units are scaled by that factor.
    scale = gtkwave_time_factor(hdr["timescale"]) if hdr else 1
    t0, t1 = t0 * scale, t1 * scale
    marker = marker * scale if marker >= 0 else marker
    named_markers = [m * scale for m in named_markers]
    width, height = int(size[0]), int(size[1])
    zoom = zoom_for(t1 - t0, wave_area_width(width, signals_width, sst))

    def resolve(name: str) -> Tuple[str, Optional[int]]:
        if known is None:
            return name, _bits_of(name)
        if name in known:
            return name, known[name]
        full = by_base.get(name)
        if full is None:
            near = [n for n in known if n.rsplit(".", 1)[-1].startswith(name.rsplit(".", 1)[-1])][:5]
            raise WaveToolError(f"signal {name!r} is not in {fst_abs}"
                                + (f"; similar: {', '.join(near)}" if near else ""))
        return full, known[full]

    out = [
        "[*]",
        "[*] GTKWave 3.3 save file written by sim/tools/wave.py",
    ]
    if comment:
        out += [f"[*] {line}" for line in comment.splitlines()]
    out += [
        "[*]",
        f"{_VIEW_RANGE_TAG} {t0} {t1} {signals_width} {int(sst)}",
        f'[dumpfile] "{fst_abs}"',
        f'[savefile] "{os.path.abspath(os.fspath(path))}"',
        f"[timestart] {t0}",
        f"[size] {width} {height}",
        "[pos] 0 0",
        _zoom_line(zoom, marker, named_markers),
    ]
    if sst:     # without [sst_width] a collapsed SST pane takes no room
        out.append(f"[sst_width] {_SST_MIN_WIDTH}")
    out += [
        f"[signals_width] {signals_width}",
        f"[sst_expanded] {int(sst)}",
        "[sst_vpaned_height] 300",
    ]
    cur_flags: Optional[int] = None

    def flags(v: int) -> None:
        nonlocal cur_flags
        if v != cur_flags:          # GTKWave keeps flags until the next "@"
            out.append(f"@{v:x}")
            cur_flags = v

    for gspec in groups:
        grp = _as_group(gspec)
        begin, end = _GRP_CLOSED if grp.closed else _GRP_OPEN
        _check_text(grp.name, "group name")
        flags(begin)
        out.append(f"-{grp.name}")
        for sspec in grp.signals:
            sig = _as_signal(sspec)
            name, bits = resolve(sig.name)
            fpath = sig.filter if sig.filter is not None else flt.get(_RANGE_RE.sub("", name))
            fpath = fpath or None           # Signal(filter=False): no filter for this one
            fmt = sig.fmt or ("hex" if fpath or (bits or 1) > 1 else "wave")
            if fmt not in _FMT_FLAGS:
                raise ValueError(f"{name}: unknown format {fmt!r} (one of {', '.join(FORMATS)})")
            v = _FMT_FLAGS[fmt]
            if fpath is not None:
                fabs = os.path.abspath(os.fspath(fpath))
                if not os.path.exists(fabs):
                    raise WaveToolError(f"{name}: filter file {fabs} does not exist")
                _check_text(fabs, "filter path")
                v |= TR_FTRANSLATED
            flags(v)
            if sig.color:
                out.append(f"[color] {int(sig.color)}")
            if fpath is not None:
                out.append(f"^1 {fabs}")
            if sig.alias:
                _check_text(sig.alias, "alias")
                if "{" in sig.alias or "}" in sig.alias:
                    raise ValueError(f"alias {sig.alias!r}: no braces allowed")
                out.append(f"+{{{sig.alias}}} {name}")
            else:
                out.append(name)
        flags(end)
        out.append(f"-{grp.name}")
    out += ["[pattern_trace] 1", "[pattern_trace] 0"]
    _write_text(path, "\n".join(out) + "\n")


def _zoom_line(zoom: float, marker: int, named: Sequence[int]) -> str:
    slots = [int(t) for t in named] + [-1] * (26 - len(named))
    return f"*{zoom:.6f} {int(marker)} " + " ".join(str(t) for t in slots)


def _check_text(s: str, what: str) -> None:
    if not s or "\n" in s or "\r" in s:
        raise ValueError(f"bad {what}: {s!r}")


def _write_text(path: PathLike, text: str) -> None:
    d = os.path.dirname(os.path.abspath(os.fspath(path)))
    os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# --------------------------------------------------------------------------
# Rendering under Xvfb
# --------------------------------------------------------------------------
_DEPS_HINT = "run ./tsm deps"


def _need(prog: str, package: str) -> str:
    exe = shutil.which(prog)
    if not exe:
        raise WaveToolError(f"{prog} not found (Debian package {package}): {_DEPS_HINT}")
    return exe


def _start_xvfb(width: int, height: int, deadline: float, log_path: str) -> Tuple[subprocess.Popen, str]:
    """Start Xvfb on a free display; returns (process, ":N") once it accepts clients."""
    exe = _need("Xvfb", "xvfb")
    rfd, wfd = os.pipe()
    try:
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [exe, "-displayfd", str(wfd), "-screen", "0", f"{width}x{height}x24",
                 "-nolisten", "tcp", "-noreset"],
                pass_fds=(wfd,), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True)
    finally:
        os.close(wfd)
    buf = b""
    try:
        # Xvfb writes the display number (and a newline) when it is ready.
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaveToolError("Xvfb did not start in time")
            ready, _, _ = select.select([rfd], [], [], left)
            if not ready:
                continue
            chunk = os.read(rfd, 64)
            if not chunk:
                proc.wait(timeout=5)
                with open(log_path, "rb") as f:
                    err = f.read().decode(errors="replace").strip()
                raise WaveToolError(f"Xvfb exited before it was ready: {err[-500:]}")
            buf += chunk
    except BaseException:
        _stop(proc)
        raise
    finally:
        os.close(rfd)
    return proc, ":" + buf.decode().strip()


def _stop(proc: Optional[subprocess.Popen], grace: float = 3.0) -> None:
    """Terminate a process we started (and its process group), then reap it."""
    if proc is None or proc.poll() is not None:
        if proc is not None:
            proc.wait()
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _view_for_size(view_text: str, width: int, height: int) -> str:
    """Copy of a view with window size `width`x`height` (zoom kept to the view's range)."""
    lines = view_text.splitlines()
    rng = None
    for ln in lines:
        if ln.startswith(_VIEW_RANGE_TAG):
            p = ln[len(_VIEW_RANGE_TAG):].split()
            if len(p) >= 4:
                rng = (int(p[0]), int(p[1]), int(p[2]), bool(int(p[3])))
    out = [] if _view_size(view_text) else [f"[size] {width} {height}", "[pos] 0 0"]
    for ln in lines:
        if ln.startswith("[size]"):
            ln = f"[size] {width} {height}"
        elif ln.startswith("[pos]"):
            ln = "[pos] 0 0"
        elif ln.startswith("*") and rng is not None:
            t0, t1, sw, sst = rng
            rest = ln[1:].split()[1:]
            ln = f"*{zoom_for(t1 - t0, wave_area_width(width, sw, sst)):.6f} " + " ".join(rest)
        out.append(ln)
    return "\n".join(out) + "\n"


def _view_size(view_text: str) -> Optional[Tuple[int, int]]:
    m = re.search(r"^\[size\]\s+(\d+)\s+(\d+)", view_text, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


_RENDER_TCL = """\
# GTKWave runs this once it has loaded the view and mapped its window, but GTK
# still finishes layout and drawing over the next few frames.  Keep GTK's main
# loop running, take screenshots until two in a row are identical, keep the
# last one, and quit.
proc pump {ms} {
    set t0 [clock milliseconds]
    while {[clock milliseconds] - $t0 < $ms} { gtkwave::nop; after 2 }
    gtkwave::nop
}
set shot %(xwd_out)s
set prev ""
set settled 0
set xwd_ok 1
for {set i 1} {$i <= %(tries)d} {incr i} {
    pump %(pump_ms)d
    if {[catch {exec %(xwd)s -root -silent -out $shot.new} err]} {
        puts stderr "wave.py: xwd failed: $err"
        set xwd_ok 0
        break
    }
    set f [open $shot.new rb]
    set cur [read $f]
    close $f
    file rename -force $shot.new $shot
    if {$cur eq $prev} { set settled 1; break }
    set prev $cur
}
puts "WAVE_PY_SCREENSHOT xwd_ok=$xwd_ok settled=$settled shots=$i"
flush stdout
gtkwave::/File/Quit
"""


def render_png(view_gtkw: PathLike, fst: PathLike, png: PathLike,
               width: Optional[int] = 1600, height: Optional[int] = 900,
               timeout: float = 60.0) -> Dict[str, Union[float, int, bool]]:
    """Render what GTKWave shows for `view_gtkw` on `fst` into `png`, headless.

    The window fills a private Xvfb screen of width x height (None: the view's
    [size]).  Views written by write_gtkw keep their time range when the size
    changes.  Everything is bounded by `timeout` seconds.  Returns timings in
    seconds (xvfb_s, gtkwave_s, convert_s, total_s), the number of screenshots
    taken and whether the last two agreed (settled).
    """
    t_start = time.monotonic()
    deadline = t_start + timeout
    gtkwave = _need("gtkwave", "gtkwave")
    xwd = _need("xwd", "x11-apps")
    _need("Xvfb", "xvfb")
    view_path = os.path.abspath(os.fspath(view_gtkw))
    fst_path = os.path.abspath(os.fspath(fst))
    for p, what in ((view_path, "view"), (fst_path, "FST file")):
        if not os.path.isfile(p):
            raise WaveToolError(f"{what} {p} does not exist")
    with open(view_path, encoding="utf-8", errors="replace") as f:
        view_text = f.read()
    vsize = _view_size(view_text) or (1600, 900)
    w = int(width) if width else vsize[0]
    h = int(height) if height else vsize[1]
    if w < 200 or h < 150:
        raise ValueError(f"render size {w}x{h} too small")

    with tempfile.TemporaryDirectory(prefix="wave_render_") as tmp:
        view_copy = os.path.join(tmp, "view.gtkw")
        _write_text(view_copy, _view_for_size(view_text, w, h))
        xwd_out = os.path.join(tmp, "shot.xwd")
        tcl = os.path.join(tmp, "shot.tcl")
        _write_text(tcl, _RENDER_TCL % {"xwd": _tcl_quote(xwd), "xwd_out": _tcl_quote(xwd_out),
                                        "tries": 8, "pump_ms": 120})
        # A private, empty HOME: no user ~/.gtkwaverc or GTK settings.  No
        # animations, no fading overlay scrollbars, no blinking cursor: nothing
        # on screen may change with time.
        home = os.path.join(tmp, "home")
        _write_text(os.path.join(home, "gtk-3.0", "settings.ini"),
                    "[Settings]\ngtk-enable-animations=0\ngtk-cursor-blink=0\n")

        xvfb = gw = None
        try:
            xvfb, display = _start_xvfb(w, h, deadline, os.path.join(tmp, "xvfb.log"))
            t_x = time.monotonic()
            env = dict(os.environ)
            env.update(DISPLAY=display, HOME=home, XDG_CONFIG_HOME=home,
                       XDG_CACHE_HOME=home, XDG_RUNTIME_DIR=home,
                       GSETTINGS_BACKEND="memory", NO_AT_BRIDGE="1", GTK_OVERLAY_SCROLLING="0")
            for k in ("WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XAUTHORITY"):
                env.pop(k, None)
            gw = subprocess.Popen(
                [gtkwave, "-S", tcl, "-a", view_copy, "-f", fst_path],
                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, start_new_session=True)
            try:
                log, _ = gw.communicate(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _stop(gw)
                log = gw.stdout.read() if gw.stdout else b""
                raise WaveToolError(f"gtkwave did not finish within {timeout:.0f} s; log:\n"
                                    + _tail(log))
        finally:
            _stop(gw)
            _stop(xvfb)
        m = re.search(rb"WAVE_PY_SCREENSHOT xwd_ok=(\d) settled=(\d) shots=(\d+)", log)
        if not m or m.group(1) != b"1" or not os.path.exists(xwd_out):
            raise WaveToolError(f"gtkwave exited with {gw.returncode} without a screenshot; log:\n"
                                + _tail(log))
        settled, shots = m.group(2) == b"1", int(m.group(3))
        if not settled:
            print(f"wave.py: warning: the GTKWave window did not settle after {shots} screenshots; "
                  "keeping the last one", file=sys.stderr)
        t_shot = time.monotonic()
        xwd_to_png(xwd_out, png)
    t_end = time.monotonic()
    return {"xvfb_s": t_x - t_start, "gtkwave_s": t_shot - t_x,
            "convert_s": t_end - t_shot, "total_s": t_end - t_start,
            "screenshots": shots, "settled": settled}


def _tcl_quote(s: str) -> str:
    return "{" + s + "}" if not any(c in s for c in "{}\\") else '"' + re.sub(r'([\\$\[\]"])', r"\\\1", s) + '"'


def _tail(b: bytes, n: int = 2000) -> str:
    return b.decode(errors="replace")[-n:]


# --------------------------------------------------------------------------
# XWD -> PNG, PNG statistics (pure Python)
# --------------------------------------------------------------------------
def xwd_to_png(xwd_path: PathLike, png_path: PathLike) -> Tuple[int, int]:
    """Convert an X window dump (ZPixmap, TrueColor, 24/32 bpp) to an RGB PNG."""
    with open(xwd_path, "rb") as f:
        data = f.read()
    if len(data) < 100:
        raise WaveToolError(f"{xwd_path}: truncated XWD file")
    hdr = struct.unpack(">25I", data[:100])
    (header_size, version, pix_format, _depth, w, h, _xoff, byte_order, _unit, _bit_order,
     _pad, bpp, bpl, _vclass, rmask, gmask, bmask, _bits_rgb, _cmap_entries, ncolors) = hdr[:20]
    if version != 7 or pix_format != 2 or bpp not in (24, 32):
        raise WaveToolError(f"{xwd_path}: unsupported XWD (version {version}, format {pix_format}, {bpp} bpp)")
    off = header_size + ncolors * 12
    pix = data[off:off + bpl * h]
    if len(pix) < bpl * h:
        raise WaveToolError(f"{xwd_path}: truncated pixel data")
    step = bpp // 8
    shifts = []
    for mask in (rmask, gmask, bmask):
        shift = (mask & -mask).bit_length() - 1
        if mask == 0 or shift % 8 or mask >> shift != 0xFF:
            raise WaveToolError(f"{xwd_path}: unsupported colour mask {mask:#x}")
        shifts.append(shift)
    # Byte index of each channel inside a pixel.
    idx = [(s // 8) if byte_order == 0 else (step - 1 - s // 8) for s in shifts]
    rows = []
    for y in range(h):
        row = pix[y * bpl: y * bpl + w * step]
        rgb = bytearray(w * 3)
        rgb[0::3] = row[idx[0]::step]
        rgb[1::3] = row[idx[1]::step]
        rgb[2::3] = row[idx[2]::step]
        rows.append(b"\x00" + bytes(rgb))
    write_png(png_path, w, h, b"".join(rows), prefiltered=True)
    return w, h


def write_png(path: PathLike, width: int, height: int, rgb: bytes, prefiltered: bool = False) -> None:
    """Write 8-bit RGB pixels (rows top to bottom) as a PNG."""
    if not prefiltered:
        stride = width * 3
        rgb = b"".join(b"\x00" + rgb[y * stride:(y + 1) * stride] for y in range(height))

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    png = (b"\x89PNG\r\n\x1a\n"
           + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rgb, 6))
           + chunk(b"IEND", b""))
    d = os.path.dirname(os.path.abspath(os.fspath(path)))
    os.makedirs(d, exist_ok=True)
    tmp = os.fspath(path) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(png)
    os.replace(tmp, path)


def png_stats(png: PathLike) -> Tuple[int, int, int]:
    """(width, height, number of distinct colours) of an 8-bit PNG (non-interlaced)."""
    with open(png, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise WaveToolError(f"{png}: not a PNG file")
    pos, idat, ihdr, plte = 8, [], None, None
    while pos + 8 <= len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if tag == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif tag == b"PLTE":
            plte = body
        elif tag == b"IDAT":
            idat.append(body)
        elif tag == b"IEND":
            break
    if ihdr is None:
        raise WaveToolError(f"{png}: no IHDR chunk")
    w, h, depth, ctype, _comp, _filt, interlace = ihdr
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise WaveToolError(f"{png}: only 8-bit non-interlaced PNGs are supported")
    raw = zlib.decompress(b"".join(idat))
    stride = w * channels
    prev = bytearray(stride)
    colours = set()
    for y in range(h):
        base = y * (stride + 1)
        ftype, line = raw[base], bytearray(raw[base + 1: base + 1 + stride])
        if ftype:
            _unfilter(ftype, line, prev, channels)
        colours.update(zip(*[iter(bytes(line))] * channels))
        prev = line
    if ctype == 3 and plte is not None:
        colours = {tuple(plte[3 * c[0]: 3 * c[0] + 3]) for c in colours}
    return w, h, len(colours)


def _unfilter(ftype: int, line: bytearray, prev: bytearray, bpp: int) -> None:
    n = len(line)
    if ftype == 1:      # Sub
        for i in range(bpp, n):
            line[i] = (line[i] + line[i - bpp]) & 0xFF
    elif ftype == 2:    # Up
        for i in range(n):
            line[i] = (line[i] + prev[i]) & 0xFF
    elif ftype == 3:    # Average
        for i in range(n):
            a = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((a + prev[i]) >> 1)) & 0xFF
    elif ftype == 4:    # Paeth
        for i in range(n):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pred) & 0xFF
    else:
        raise WaveToolError(f"bad PNG filter type {ftype}")


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------
def _cmd_render(args: argparse.Namespace) -> int:
    t = render_png(args.view, args.fst, args.png, args.width, args.height, args.timeout)
    w, h, n = png_stats(args.png)
    print(f"{args.png}: {w}x{h}, {n} colours, {t['total_s']:.2f} s")
    return 0


def _clock_range(args: argparse.Namespace):
    if args.clock_from is None and args.clock_to is None:
        return None
    start = args.clock_from or 0
    end = args.clock_to if args.clock_to is not None else start + 200
    if end < start:
        raise ValueError(f"--to {end} is before --from {start}")
    return (start, end)


def _cmd_filters(args: argparse.Namespace) -> int:
    import wave_views
    wave_views.write_filters(args.out_dir)
    return 0


def _cmd_view(args: argparse.Namespace) -> int:
    import wave_views
    gtkw = args.out or os.path.splitext(args.fst)[0] + ".gtkw"
    wave_views.make_view(args.fst, args.filters, gtkw, warps=wave_views.parse_list(args.warps),
                         sms=wave_views.parse_list(args.sms), clocks=_clock_range(args),
                         groups_shown=args.groups.split(",") if args.groups else None)
    print(f"wrote {gtkw}")
    return 0


def _cmd_open(args: argparse.Namespace) -> int:
    """./tsm wave: the view of a TeslaSM trace, opened in GTKWave or rendered to PNG."""
    import wave_views
    if not os.path.exists(args.fst):
        raise WaveToolError(f"{args.fst}: no such trace (write one with ./tsm run|launch ... --backend rtl --trace FILE.fst)")
    gtkw = args.view or os.path.splitext(args.fst)[0] + ".gtkw"
    if not args.view:
        wave_views.make_view(args.fst, args.filters, gtkw, warps=wave_views.parse_list(args.warps),
                             sms=wave_views.parse_list(args.sms), clocks=_clock_range(args),
                             size=(args.width, args.height), groups_shown=args.groups.split(",") if args.groups else None)
        print(f"view: {gtkw}")
    if args.png:
        _cmd_render(argparse.Namespace(view=gtkw, fst=args.fst, png=args.png, width=args.width,
                                       height=args.height, timeout=args.timeout))
        return 0
    exe = _need("gtkwave", "gtkwave")
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise WaveToolError("no display to open GTKWave on (DISPLAY is not set): use --png OUT.png to render the view "
                            f"headless, or copy {args.fst} and {gtkw} to a machine with one")
    os.execv(exe, [exe, "-f", os.path.abspath(args.fst), "-a", os.path.abspath(gtkw)])
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="wave.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("render", help="render a GTKWave view of an FST file to PNG (headless)")
    p.add_argument("--view", required=True, help=".gtkw save file")
    p.add_argument("--fst", required=True, help="FST waveform file")
    p.add_argument("--png", required=True, help="output PNG")
    p.add_argument("--width", type=int, default=1600)
    p.add_argument("--height", type=int, default=900)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds (default 60)")
    p.set_defaults(func=_cmd_render)

    p = sub.add_parser("filters", help="write the translate filters (opcodes, units, warp and engine states)")
    p.add_argument("--out-dir", required=True)
    p.set_defaults(func=_cmd_filters)

    def view_options(p: argparse.ArgumentParser, filters_help: str) -> None:
        p.add_argument("--filters", required=True, help=filters_help)
        p.add_argument("--warps", help="warp slots to show, e.g. 0-3,8 (default: all; the first four open)")
        p.add_argument("--sms", help="SMs to show, e.g. 0 (default: all)")
        p.add_argument("--groups", help="signal groups to show: issue, stalls, memory, warps (default: all)")
        p.add_argument("--from", dest="clock_from", type=int, help="first clock to show (default: the whole trace)")
        p.add_argument("--to", dest="clock_to", type=int, help="last clock to show (default: --from + 200)")

    p = sub.add_parser("view", help="write the .gtkw view of a TeslaSM trace")
    p.add_argument("--fst", required=True)
    p.add_argument("--out", help="the .gtkw (default: next to the trace)")
    view_options(p, "directory of the translate filters (build/gen/wave)")
    p.set_defaults(func=_cmd_view)

    p = sub.add_parser("open", prog="./tsm wave", help="open a TeslaSM trace in GTKWave with its generated view (./tsm wave)")
    p.add_argument("fst", help="the trace (./tsm run|launch ... --trace FILE.fst)")
    p.add_argument("--view", help="an existing .gtkw to use instead of generating one")
    p.add_argument("--png", help="render the view headless (Xvfb) to this PNG instead of opening GTKWave")
    p.add_argument("--width", type=int, default=1600)
    p.add_argument("--height", type=int, default=900)
    p.add_argument("--timeout", type=float, default=60.0, help="--png: seconds (default 60)")
    # ./tsm wave passes the build's filters itself: not an option a user gives.
    view_options(p, argparse.SUPPRESS)
    p.set_defaults(func=_cmd_open)

    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except (WaveToolError, ValueError, OSError) as e:
        print(f"wave: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
