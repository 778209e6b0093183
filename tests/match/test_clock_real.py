"""The clock promises with real processes (generous margins: the machine may be
loaded). The fake-clock proofs are in test_clock_promises.py; the measurements in
benchmarks/clock_battery.py."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from bidref.engines import EngineSpec, resolve_engine
from bidref.match.referee import MatchSpec, run_match
from bidref.rules import MILLISECOND, TimeControl
from bidref.transcript.expand import expanded_lines
from bidref.transcript.replay import replay

SCRIPT = Path(__file__).resolve().parents[1] / "engines" / "scripts" / "clock_mischief.py"
MS = MILLISECOND


def mischief(mode: str) -> EngineSpec:
    return EngineSpec(mode, (sys.executable, str(SCRIPT), mode))


@pytest.mark.e2e
def test_a_referee_stopped_while_a_reply_waits_aborts_unrated(
    c_first: Path, tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    spec = MatchSpec(
        engines=(mischief("stall"), resolve_engine(str(c_first))),
        seed=5,
        time_control=TimeControl(bank=0, delay=400 * MS),
    )
    out = run_match(spec, transcript_path=path)
    assert (out.reason, out.winner, out.rated) == ("aborted", None, False), out.summary()
    assert out.end.cause == "timing_fault" and out.end.seat == 0
    assert out.end.late_ns > 100 * MS  # stopped for 0.4 s, 0.15 s before the deadline
    result = json.loads(path.read_text().splitlines()[-1])
    assert result["detail"]["late_ns"] == out.end.late_ns  # in the transcript
    assert replay(path.read_bytes()).ok


@pytest.mark.e2e
def test_an_engine_flooding_rules_then_not_reading_loses_at_its_deadline(
    c_first: Path, tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    spec = MatchSpec(
        engines=(mischief("flood"), resolve_engine(str(c_first))),
        seed=5,
        time_control=TimeControl(bank=0, delay=300 * MS),
    )
    t0 = time.monotonic_ns()
    out = run_match(spec, transcript_path=path)
    done = time.monotonic_ns()
    assert (out.reason, out.winner, out.rated) == ("time", 1, True), out.summary()
    lines = expanded_lines(path.read_bytes())
    origin = lines[0]["monotonic_origin_ns"]
    assert t0 <= origin <= done  # the header's origin is the real CLOCK_MONOTONIC
    last = [x for x in lines if x["type"] == "request" and x["seat"] == 0][-1]
    deadline = origin + last["deadline_ns"]
    assert done - deadline < 3_000_000_000  # (the promise is 1 s; 3 s for a loaded machine)
    assert sum(1 for x in lines if x["type"] == "rules") >= 1
    assert replay(path.read_bytes()).ok
