"""The replay page's timeline: rebuilt from the public lines, it agrees with the transcript."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bidref.render.timeline import build_timeline
from tests.transcript.scripted_seats import referee_transcript

KINDS: dict[str, dict[str, Any]] = {
    "busy": {"chatty": True, "illegal_rate": 0.1},
    "time-loss": {"late_at": 7},
    "forfeit": {"illegal": "forfeit", "illegal_rate": 0.3},
    "to-the-end": {"max_rounds": None, "seed": 3},
    "explicit-first-deal": {"explicit_deals": 1},
}
_cache: dict[str, bytes] = {}


def transcript(kind: str, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    if kind not in _cache:
        path = tmp_path_factory.mktemp(kind) / "t.jsonl"
        _cache[kind] = referee_transcript(path, **KINDS[kind])
    return _cache[kind]


def pair(t: list[int]) -> str:
    a, b = sorted(t)
    return f"{a}-{b}"


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_line_is_a_step_that_agrees_with_the_transcript(
    kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    data = transcript(kind, tmp_path_factory)
    lines = [json.loads(x) for x in data.splitlines()]
    tl = build_timeline(data)
    assert tl.problem is None and len(tl.steps) == len(lines)
    assert [s.line for s in tl.steps] == list(range(1, len(lines) + 1))
    assert all(s.note is None for s in tl.steps), [s.note for s in tl.steps if s.note]
    drew = {
        p["seq"]: pair(p["tile"])
        for x in lines
        if x["type"] == "round_reveal"
        for p in x["private"]
        if p["kind"] == "drew"
    }
    offered: list[str] = []
    for x, s in zip(lines, tl.steps, strict=True):
        ev = x.get("event") or {}
        if ev.get("kind") == "transfer":
            assert list(s.balances) == ev["balances"]
        if ev.get("kind") == "drew":
            assert s.table.drawn is not None and str(s.table.drawn[1]) == drew[x["seq"]]
            assert s.table.boneyard == ev["boneyard_left"]
        if ev.get("kind") == "placed":
            lay, last = tl.layouts[s.table.layout]
            assert str(last) == pair(ev["tile"]) and lay.count() == ev["count"]
        if ev.get("kind") == "round_ended":
            hands = [sorted(str(t) for t in h or []) for h in s.table.hands]
            assert hands == [sorted(pair(t) for t in h) for h in ev["hands"]]
        if x["type"] == "request":
            c = s.turn.clocks[x["seat"]]
            assert (c.bank_ns, c.delay_left_ns) == (
                x["clock"]["bank_ns"],
                x["clock"]["delay_left_ns"],
            )
            assert s.turn.to_act == x["seat"] and s.turn.legal  # the rules' legal actions
            offered = s.turn.legal
        if x["type"] == "reply":
            assert s.turn.clocks[x["seat"]].bank_ns == x["banks_ns"][x["seat"]]
            assert s.turn.cost is not None and s.turn.cost.elapsed_ns == x["elapsed_ns"]
            if x["status"] == "accepted":
                assert x["action"] in offered  # one of the legal actions shown at the request
    assert tl.result is not None and tl.result["reason"] == lines[-1]["reason"]
    assert list(tl.steps[-1].balances) == lines[-1]["balances"]


def test_a_round_never_revealed_keeps_its_hands_face_down(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    data = transcript("busy", tmp_path_factory)
    lines = data.splitlines(keepends=True)
    reveal = next(i for i, x in enumerate(lines) if b'"round_reveal"' in x)
    cut = b"".join(lines[:reveal]) + lines[reveal][:40]  # killed while writing the reveal
    tl = build_timeline(cut)
    assert tl.problem is not None and "cut short" in tl.problem
    assert len(tl.steps) == reveal
    last = tl.steps[-1]
    assert last.table.hands == (None, None)  # unknown: the deal was never opened
    assert sum(last.table.hand_sizes) > 0
    full = build_timeline(data).steps[reveal - 1]
    assert last.table.hand_sizes == full.table.hand_sizes  # counted from the public lines
    assert str(tl.layouts[last.table.layout][0].placed) == str(
        build_timeline(data).layouts[full.table.layout][0].placed
    )
    assert all(s.table.drawn is None or s.table.drawn[1] is None for s in tl.steps)


def test_a_line_the_rules_refuse_is_noted_and_the_rest_still_shows(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    data = transcript("busy", tmp_path_factory)
    lines = [json.loads(x) for x in data.splitlines()]
    i = next(
        i
        for i, x in enumerate(lines)
        if x["type"] == "event" and x["event"]["kind"] == "placed" and x["event"]["at"]
    )
    lines[i]["event"]["at"] = {"tile": [6, 6], "side": "branch_a"}  # not on the table
    tl = build_timeline(("\n".join(json.dumps(x) for x in lines) + "\n").encode())
    assert tl.steps[i].note is not None and "[6|6] branch A" in tl.steps[i].note
    assert len(tl.steps) == len(lines) and tl.result is not None


def test_lines_that_are_not_as_documented_are_noted_not_a_traceback(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    assert build_timeline(b"").steps == []
    assert build_timeline(b"not json\n").problem == "line 1: not valid JSON: " + (
        "JSON is malformed: invalid character (byte 4)"
    )
    lines = [json.loads(x) for x in transcript("busy", tmp_path_factory).splitlines()]
    i = next(i for i, x in enumerate(lines) if x["type"] == "event")
    for broken in ({"kind": "placed", "player": 0}, {"kind": "drew", "player": "x"}, []):
        bad = [*lines[:i], {**lines[i], "event": broken}, *lines[i + 1 :]]
        tl = build_timeline(("\n".join(json.dumps(x) for x in bad) + "\n").encode())
        if broken:  # a line of the right shape with a meaning the rules refuse: a note
            assert len(tl.steps) == len(lines)
            assert tl.steps[i].note is not None
        else:  # not a transcript line at all: the steps end before it, and it is named
            assert len(tl.steps) == i
            assert tl.problem is not None and tl.problem.startswith(f"line {i + 1}: ")


def test_a_handicap_match_shows_each_seats_own_clock(tmp_path: Path) -> None:
    from bidref.engines import EngineSpec
    from bidref.match.referee import MatchSpec, run_match
    from bidref.render.replay_page import replay_page
    from bidref.rules import TimeControl
    from bidref.testing import FakeClock
    from bidref.transcript.files import read_bytes
    from bidref.transcript.writer import counter_salt
    from tests.transcript.scripted_seats import ScriptedSeat

    clock = FakeClock(1_000_000_000)
    seats = [ScriptedSeat("alpha", clock, 1), ScriptedSeat("beta", clock, 2)]
    spec = MatchSpec(
        engines=(EngineSpec(name="alpha", command=("x",)), EngineSpec(name="beta", command=("x",))),
        seed=5,
        time_control=TimeControl.of_seconds(2, 0.1),
        time_controls=(TimeControl.of_seconds(2, 0.1), TimeControl.of_seconds(8, 0.5)),
        max_rounds=1,
    )
    path = tmp_path / "t.jsonl"
    run_match(
        spec,
        transcript_path=path,
        clock=clock,
        seats=seats,  # type: ignore[arg-type]
        salt=counter_salt(),
        started_at="2026-12-02T13:00:00Z",
    )
    tl = build_timeline(read_bytes(path))
    said = "A bank 2.00 s, delay 0.10 s; B bank 8.00 s, delay 0.50 s"
    assert tl.clock_text() == said, tl.clock_text()
    assert said in tl.steps[0].text
    assert tl.steps[0].turn.clocks[1].bank_ns == 8_000_000_000
    page = replay_page(tl, "t.jsonl")
    assert said in page and '"banks":[2000000000,8000000000]' in page


def test_each_decisions_cpu_time_is_shown_where_the_transcript_has_it(tmp_path: Path) -> None:
    from itertools import count

    from bidref.engines import EngineSpec
    from bidref.match.referee import MatchSpec, run_match
    from bidref.render.replay_page import replay_page
    from bidref.rules import TimeControl
    from bidref.testing import FakeClock
    from bidref.transcript.files import read_bytes
    from bidref.transcript.writer import counter_salt
    from tests.transcript.scripted_seats import ScriptedSeat

    clock = FakeClock(1_000_000_000)
    seats = [ScriptedSeat("alpha", clock, 1), ScriptedSeat("beta", clock, 2)]
    ticks = count(step=2_500_000)  # seat A reads 2.5 ms more at every look
    seats[0].cpu_ns = lambda: next(ticks)  # type: ignore[attr-defined]
    spec = MatchSpec(
        engines=(EngineSpec(name="alpha", command=("x",)), EngineSpec(name="beta", command=("x",))),
        seed=5,
        time_control=TimeControl.of_seconds(2, 0.1),
        max_rounds=1,
    )
    path = tmp_path / "t.jsonl"
    run_match(spec, transcript_path=path, clock=clock, seats=seats, salt=counter_salt())  # type: ignore[arg-type]
    tl = build_timeline(read_bytes(path))
    a = [s for s in tl.steps if s.text.startswith("A (alpha):")]
    b = [s for s in tl.steps if s.text.startswith("B (beta):")]
    assert a and b
    assert all("CPU 2.5 ms)" in s.text for s in a), a[0].text
    assert not any("CPU" in s.text for s in b)  # seat B cannot tell
    last = a[0].turn.clocks[0].last
    assert last is not None and last.cpu_ns == 2_500_000
    assert "last.cpu" in replay_page(tl, "t.jsonl")  # the page's script shows it
