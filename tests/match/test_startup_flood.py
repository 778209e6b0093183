"""An engine that floods log lines before its hello and never reads its stdin
(issue 29.1): the start-up deadline still ends the wait, with a ``startup`` loss.

A seat hands back lines it already read even past the deadline, so an engine
that never lets a look find the pipe empty must be judged line by line."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bidref.engines import EngineSpec, Incoming, Line
from bidref.match.referee import MatchSpec, run_match
from bidref.rules import MILLISECOND, SECOND, TimeControl
from bidref.testing import SteppingClock
from bidref.transcript import counter_salt

from .fakes import FakeSeat, first_legal

ROOT = Path(__file__).resolve().parents[2]
LOG = json.dumps({"type": "log", "message": "x"})
LIMIT = 1_000_000  # lines: far beyond the deadline; a spinning wait fails here, not forever


class FloodSeat(FakeSeat):
    """A fake engine that always has another log line ready (and never a hello)."""

    lines = 0

    def receive(self, deadline: int | None) -> Incoming | None:
        self.lines += 1
        assert self.lines < LIMIT, "the referee kept reading past the start-up deadline"
        return Line(LOG, self.clock(), 0)


def test_a_log_flood_before_the_hello_loses_at_the_start_up_deadline() -> None:
    clock = SteppingClock(1 * MILLISECOND)
    spec = MatchSpec(
        engines=(EngineSpec("flood", ("fake",)), EngineSpec("b", ("fake",))),
        seed=5,
        time_control=TimeControl(bank=2 * SECOND, delay=100 * MILLISECOND),
    )
    spec = replace(spec, startup_timeout_ns=2 * SECOND)
    a = FloodSeat("flood", clock, first_legal())
    b = FakeSeat("b", clock, first_legal())
    start = clock.now
    out = run_match(spec, seats=[a, b], clock=clock, salt=counter_salt(), started_at="x")
    assert (out.reason, out.winner, out.rated) == ("startup", 1, False)
    assert out.end.seat == 0
    assert "no hello within the start-up timeout of 2 s" in out.end.problem
    assert "log lines and no hello" in out.end.problem
    # it ended by the deadline: a few lines past it, not a spin (one clock reading a line)
    assert clock.now - start < 2 * SECOND + 50 * MILLISECOND
    assert a.closed and b.closed


@pytest.mark.parametrize("transport", ["pipe", "pty"])
def test_a_real_engine_flooding_logs_without_reading_loses_by_startup(
    tmp_path: Path, c_first: Path, transport: str
) -> None:
    flood = tmp_path / "flood.py"
    flood.write_text('while True:\n    print(\'{"type":"log","message":"x"}\', flush=True)\n')
    t = tmp_path / "t.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from bidref.cli import app; app()",
            "match",
            f"{sys.executable} {flood}",
            str(c_first),
            "--startup",
            "1",
            "--transport",
            transport,
            "--seed",
            "5",
            "--transcript",
            str(t),
        ],
        capture_output=True,
        text=True,
        timeout=60,  # the deadline is 1 s: a generous margin for a loaded machine
        cwd=ROOT,
    )
    assert proc.returncode == 3, proc.stderr
    said = " ".join(proc.stdout.split())  # (the console wraps long lines)
    hint = " ".join(proc.stderr.split())
    assert "log lines but no hello" in hint and "buffered stdout" not in hint
    assert "result:" in said and "(flood) did not start: no hello within the start-up" in said
    last = json.loads(t.read_text().splitlines()[-1])
    assert (last["type"], last["reason"], last["winner"]) == ("result", "startup", 1)
    check = subprocess.run(
        [sys.executable, "-c", "from bidref.cli import app; app()", "replay", str(t), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert check.returncode == 0, check.stdout + check.stderr
