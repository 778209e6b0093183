"""An engine's captured stderr, line by line, with the times the referee read it.

The stderr log (``--stderr-dir``) holds exactly the engine's bytes; the times are
in its sidecar (:func:`bidref.engines.transport.stderr_times_path`, format in
``protocols/transcript.md``, "Stderr times"): for each chunk read, the byte offset
just after it and the referee's clock then. A line gets the time of the chunk
that completed it, in the transcript's time (the clock minus the header's
``monotonic_origin_ns``), and is placed after the last transcript line written by
then (:func:`place`). A log without a sidecar (an older referee), or a line
past the stamped chunks, has no time: it is shown after the game.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path

from ..engines.transport import STDERR_TIMES_FORMAT, stderr_times_path
from .lines import Header
from .replay.report import ReplayReport, Step, name


@dataclass(frozen=True, slots=True)
class StderrLine:
    text: str
    t_ns: int | None  # transcript time (None: not known)


def parse_times(text: str) -> list[tuple[int, int]] | None:
    """The chunks of a sidecar, as (end offset, clock); None if it is not one (a
    damaged or foreign file: its log is then shown without times)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("format") != STDERR_TIMES_FORMAT:
        return None
    chunks = data.get("chunks")
    if not isinstance(chunks, list):
        return None
    out: list[tuple[int, int]] = []
    for c in chunks:
        if not (isinstance(c, list) and len(c) == 2 and all(type(v) is int for v in c)):
            return None
        if out and c[0] < out[-1][0]:
            return None  # offsets only grow
        out.append((c[0], c[1]))
    return out


def split_lines(
    data: bytes, times: list[tuple[int, int]] | None, origin: int | None
) -> list[StderrLine]:
    """The log's lines, each with the time of the chunk that completed it."""
    ends = [end for end, _ in times] if times and origin is not None else []
    out: list[StderrLine] = []
    start = 0
    while start < len(data):
        nl = data.find(b"\n", start)
        stop = len(data) if nl < 0 else nl + 1
        text = data[start:stop].decode("utf-8", "replace").rstrip("\r\n")
        i = bisect_left(ends, stop)
        t = times[i][1] - origin if times and origin is not None and i < len(ends) else None
        out.append(StderrLine(text, t))
        start = stop
    return out


def read_stderr(path: Path, header: Header | None) -> list[StderrLine] | None:
    """The lines of a stderr log and their times (None: the log is not there)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    origin = header.monotonic_origin_ns if header is not None else None
    try:
        times = parse_times(stderr_times_path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        times = None
    return split_lines(data, times, origin)


def place(report: ReplayReport, seat: int, lines: list[StderrLine]) -> list[Step]:
    """``log`` steps for the lines with a time, each after the last transcript line
    written by then (in a replay that kept its steps); the lines without a time are
    left out (the caller shows them after the game)."""
    marks: list[int] = []  # the latest t_ns so far, by entry: times may step back a little
    numbers: list[int] = []
    latest = None
    for e in report.entries:
        t = getattr(e.item, "t_ns", None)
        if not isinstance(t, int) or (numbers and numbers[-1] == e.line):
            continue
        latest = t if latest is None else max(latest, t)
        marks.append(latest)
        numbers.append(e.line)
    starts = [(s.line, s.round) for s in report.steps if s.kind == "round_start"]
    out: list[Step] = []
    for ln in lines:
        if ln.t_ns is None:
            continue
        i = bisect_right(marks, ln.t_ns)
        at = numbers[i - 1] if i else (numbers[0] if numbers else 1)
        j = bisect_right(starts, (at, 1 << 62))
        rnd = starts[j - 1][1] if j else 0
        text = f"{name(seat)} stderr at {ln.t_ns / 1e9:.3f}s: {ln.text}"
        out.append(Step(at, rnd, "log", text, seat, t_ns=ln.t_ns))
    return out
