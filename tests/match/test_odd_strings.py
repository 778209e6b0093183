"""Every transcript the referee writes verifies with ``bidref replay`` (issue 29.2),
whatever text an engine puts in its lines: lone surrogate escapes, control
characters, quotes, backslashes, non-ASCII, lines long enough to be cut.

The referee and replay turn a raw line into values the same one way
(:func:`bidref.protocol.load_json`); these fake engines send odd strings where a
reply, a log, a rules request, a resignation message and a hello name go, and
play on."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bidref.engines import EngineSpec
from bidref.match.referee import MatchSpec, run_match
from bidref.rules import MILLISECOND, SECOND, TimeControl
from bidref.testing import FakeClock
from bidref.transcript import counter_salt
from bidref.transcript.replay import replay

from .fakes import FakeSeat, Reply, Script, action_line, first_legal

MS = MILLISECOND
SPEC = MatchSpec(
    engines=(EngineSpec("a", ("fake",)), EngineSpec("b", ("fake",))),
    seed=5,
    time_control=TimeControl(bank=2 * SECOND, delay=100 * MS),
    max_rounds=1,
)

# Text as JSON can carry it: any code point, lone surrogates included (written as
# \\uXXXX escapes, as a hostile engine would), plus the usual troublemakers.
odd = st.one_of(
    st.text(st.characters(codec=None), max_size=40),
    st.sampled_from(["\ud800", "\udfff", "a\ud83d", "\ud83d\ude00", "\x00", '"\\', "\u2028"]),
    st.builds(lambda s, n: s * n, st.sampled_from(["\ud800", "é", "x"]), st.integers(1, 3000)),
)


def _ascii(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=True)  # surrogates become escapes


def odd_engine(where: str, text: str) -> Script:
    """A first-legal engine that puts ``text`` in one line at ``where`` and plays on."""
    good = first_legal()
    done = False

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        nonlocal done
        if msg["type"] == "hello" and where == "name":
            hello = {"type": "hello", "name": text, "author": text, "version": "0"}
            return [(0, _ascii({**hello, "protocol": "bidref/1"}))]
        if msg["type"] == "request" and not done:
            done = True
            rid = msg["id"]
            odd_line = {
                "action": {"type": "action", "id": rid, "action": text},
                "stale": {"type": "action", "id": rid + 7, "action": text},
                "log": {"type": "log", "message": text},
                "rules": {"type": "rules", "id": 1, "topic": text},
                "resign": {"type": "resign", "message": text},
                "name": None,
                "line": None,
            }[where]
            if where == "line":  # the whole line, as the framing hands it on (UTF-8)
                raw = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
                return [(MS, raw.replace("\n", " ").replace("\r", " "))]
            lines = [] if odd_line is None else [(MS, _ascii(odd_line))]
            return [*lines, (2 * MS, action_line(rid, msg["legal"][0]))]
        return good(msg, seat)

    return script


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    where=st.sampled_from(["action", "stale", "log", "rules", "resign", "name", "line"]),
    text=odd,
    seat=st.integers(0, 1),
)
def test_the_referees_transcript_always_verifies(where: str, text: str, seat: int) -> None:
    clock = FakeClock()
    scripts = [first_legal(), first_legal()]
    scripts[seat] = odd_engine(where, text)
    seats = [FakeSeat(n, clock, s) for n, s in zip("ab", scripts, strict=True)]
    path = Path(f"/dev/shm/bidref-odd-{id(clock)}.jsonl")
    try:
        run_match(
            SPEC,
            seats=seats,
            clock=clock,
            transcript_path=path,
            salt=counter_salt(),
            started_at="2026-01-01T00:00:00Z",
        )
        report = replay(path.read_bytes())
    finally:
        path.unlink(missing_ok=True)
    assert report.ok and report.truncated is None, report.problem


def test_a_lone_surrogate_action_is_recorded_as_replay_rebuilds_it(tmp_path: Path) -> None:
    # the case of the issue: the error recorded was built from U+FFFD, replay
    # rebuilt it from the raw escape and rejected the referee's own transcript
    clock = FakeClock()
    seats = [
        FakeSeat("a", clock, odd_engine("action", "\ud800")),
        FakeSeat("b", clock, first_legal()),
    ]
    path = tmp_path / "t.jsonl"
    run_match(
        replace(SPEC),
        seats=seats,
        clock=clock,
        transcript_path=path,
        salt=counter_salt(),
        started_at="x",
    )
    errors = [m for m in seats[0].received if m["type"] == "error"]
    assert errors and errors[0]["message"].startswith("'\ufffd' is not an action")
    report = replay(path.read_bytes())
    assert report.ok, report.problem


SURROGATE_ENGINE = """\
import json, sys
first = True
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "surr", "protocol": "bidref/1"}), flush=True)
    elif msg["type"] == "request":
        if first:
            first = False
            print('{"type":"action","id":%d,"action":"\\\\ud800"}' % msg["id"], flush=True)
        reply = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
        print(json.dumps(reply), flush=True)
    elif msg["type"] == "quit":
        break
"""


def test_a_real_engine_sending_a_lone_surrogate_gets_a_transcript_that_verifies(
    tmp_path: Path, c_first: Path
) -> None:
    import subprocess
    import sys

    engine = tmp_path / "surr.py"
    engine.write_text(SURROGATE_ENGINE)
    t = tmp_path / "t.jsonl"
    cli = [sys.executable, "-c", "from bidref.cli import app; app()"]
    opts = ["--seed", "3", "--max-rounds", "1", "--transcript", str(t)]
    played = subprocess.run(
        [*cli, "match", f"{sys.executable} {engine}", str(c_first), *opts],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert played.returncode == 0, played.stdout + played.stderr
    assert "\\\\ud800" in t.read_text()  # the raw reply is kept as sent
    check = subprocess.run(
        [*cli, "replay", str(t), "--check"], capture_output=True, text=True, timeout=120
    )
    assert check.returncode == 0, check.stdout + check.stderr
