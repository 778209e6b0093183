"""The chaos battery: a misbehaving engine (engines/chaos.py) in either seat
against one that plays the first legal action, through the real `bidref match`.

Every case asserts the end reason, who lost, whether the match is rated, the
exit status, the timing (below), no traceback, no process left behind (found
by a mark in their command lines, daemons included) and a transcript that
`bidref replay` verifies.

Timing: on the referee's own clock (the transcript's ``t_ns``) the result
comes at most 1 s after the deadline the rules give (the latest
request's bank and delay, or the start-up timeout) plus the teardown policy
(quit grace, then SIGTERM grace); the whole process, start-up of the Python
interpreter included, ends at most 10 s after its result (imports alone take
seconds on a loaded machine; a hang on a leftover process would take longer).

Every case runs for real, in both seats.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from .harness import (
    BANK_S,
    GRACE_S,
    SECOND,
    STARTUP_S,
    assert_nothing_left,
    engine,
    match,
    new_token,
    replay_verifies,
)

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class Case:
    mode: str
    reason: tuple[str, ...]
    loses: bool  # the misbehaving seat loses (else: who wins is the deals' business)
    rated: bool
    code: int


CASES = [
    Case("crash_start", ("startup",), True, False, 3),
    Case("crash_mid", ("crash",), True, True, 0),
    Case("hang", ("time",), True, True, 0),  # ignores SIGTERM too
    Case("silent", ("startup",), True, False, 3),
    Case("garbage", ("protocol",), True, True, 0),
    Case("non_utf8", ("time",), True, True, 0),  # the line is refused; it never answers again
    Case("huge", ("protocol",), True, True, 0),
    Case("no_stdin", ("time",), True, True, 0),
    Case("stderr_flood", ("round_limit",), False, True, 0),
    Case("stale_flood", ("round_limit",), False, True, 0),
    Case("daemon", ("round_limit",), False, True, 0),
    Case("daemon_scrub", ("round_limit",), False, True, 0),  # the daemon clears its env
    Case("stubborn", ("round_limit",), False, True, 0),  # + ignores quit, EOF and SIGTERM
    Case("surrogate", ("round_limit",), False, True, 0),
    Case("deep", ("protocol",), True, True, 0),
    Case("double", ("round_limit",), False, True, 0),
    Case("illegal_flood", ("illegal", "protocol"), True, True, 0),
    # it loses either way, rated: at its deadline, or sooner by the per-request line cap
    Case("rules_flood", ("time", "protocol"), True, True, 0),
]


def _params() -> list[object]:
    out: list[object] = []
    for case in CASES:
        for seat in (0, 1):
            out.append(pytest.param(case, seat, id=f"{case.mode}-{'AB'[seat]}"))
    return out


@pytest.mark.parametrize(("case", "seat"), _params())
def test_a_misbehaving_engine(case: Case, seat: int, tmp_path: Path) -> None:
    bad = new_token(tmp_path, "bad")
    good = new_token(tmp_path, "good")
    engines = [engine(case.mode, bad), engine("play", good)]
    if seat == 1:
        engines.reverse()
    run = match(engines[0], engines[1], tmp_path, "--seed", "5", max_rounds=1)
    try:
        assert "Traceback" not in run.stderr, run.stderr
        result = run.result()
        assert run.code == case.code, (run.code, result)
        assert result["reason"] in case.reason, result
        assert result["rated"] is case.rated, result
        if case.loses:
            assert result["winner"] == 1 - seat, result
        lines = run.lines()
        assert lines[-1]["type"] == "result"
        _assert_in_time(lines, run.wall_s)
        if case.mode == "stubborn":
            assert result["exits"][seat]["how"] == "sigkill", result["exits"]
        assert run.transcript.stat().st_size < 4 << 20
        replay_verifies(run.transcript)
    finally:
        assert_nothing_left([bad, good])


def _assert_in_time(lines: list[dict[str, object]], wall_s: float) -> None:
    requests = [line for line in lines if line["type"] == "request"]
    hellos = [int(str(line["t_ns"])) for line in lines if line["type"] == "hello"]
    deadline = round(STARTUP_S * SECOND) + max(hellos, default=0)
    for r in requests:
        clock = r["clock"]
        assert isinstance(clock, dict)
        deadline = max(deadline, int(str(r["t_ns"])) + clock["bank_ns"] + clock["delay_left_ns"])
    end = int(str(lines[-1]["t_ns"]))
    limit = deadline + round((2 * GRACE_S + 1) * SECOND)
    assert end <= limit, f"result at {end / SECOND:.2f} s, deadline {deadline / SECOND:.2f} s"
    assert wall_s <= end / SECOND + 10, f"bidref took {wall_s:.1f} s, its result came at {end}"
    assert BANK_S > 0
