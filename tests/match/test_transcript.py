"""Transcripts: deterministic (snapshot), public during a round, commitments that verify."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from syrupy.assertion import SnapshotAssertion

from bidref.engines import EngineSpec
from bidref.match.referee import MatchSpec, run_match
from bidref.rules import MILLISECOND, SECOND, Deal, TimeControl
from bidref.transcript import commitment, counter_salt
from bidref.transcript.expand import expanded_lines

from .fakes import FakeClock, FakeSeat, Reply, action_line, first_legal

MS = MILLISECOND


def _thinking_engine(think: int) -> Any:
    """First legal action, but draws take ``think`` too and it logs once per round."""

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "request":
            return [(think, action_line(msg["id"], msg["legal"][0]))]
        return first_legal()(msg, seat)

    return script


def run(
    tmp_path: Path, *, seed: int = 5, max_rounds: int | None = None, think: int = 130 * MS
) -> tuple[list[dict[str, Any]], Any]:
    clock = FakeClock()
    seats = [
        FakeSeat("a", clock, _thinking_engine(think), cpu_per_line_ns=think // 2),
        FakeSeat("b", clock, _thinking_engine(think + 7 * MS)),
    ]
    spec = MatchSpec(
        engines=(EngineSpec("a", ("fake",)), EngineSpec("b", ("fake",))),
        seed=seed,
        max_rounds=max_rounds,
        time_control=TimeControl(bank=60 * SECOND, delay=100 * MS),
    )
    path = tmp_path / "t.jsonl"
    out = run_match(
        spec,
        seats=seats,
        clock=clock,
        transcript_path=path,
        salt=counter_salt(),
        started_at="2026-01-01T00:00:00Z",
    )
    # verified and spelled out: the v1 form of the lines (what v2 derives included)
    return expanded_lines(path.read_bytes()), out


def test_transcript_snapshot(tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    """The file itself, as written (bidref-transcript/2)."""
    run(tmp_path, max_rounds=1)
    lines = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert lines == snapshot


def test_transcript_is_deterministic(tmp_path: Path) -> None:
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    a, _ = run(tmp_path / "1")
    b, _ = run(tmp_path / "2")
    assert a == b


def test_shape_header_first_result_last_seq_in_order(tmp_path: Path) -> None:
    lines, out = run(tmp_path)
    assert lines[0]["type"] == "header" and lines[0]["t_ns"] == 0
    assert lines[0]["rules"] == "spectacular-bid/1" and lines[0]["protocol"] == "bidref/1"
    assert lines[-1]["type"] == "result"
    assert lines[-1]["reason"] == out.reason and lines[-1]["winner"] == out.winner
    assert [x["seq"] for x in lines] == list(range(len(lines)))
    times = [x["t_ns"] for x in lines]
    assert times == sorted(times)
    assert [x["type"] for x in lines[-4:]] == [
        "engine_exit",
        "engine_exit",
        "seed_reveal",
        "result",
    ]


def _pairs(obj: Any) -> list[tuple[int, int]]:
    """Every [a, b] with 0 <= a, b <= 6 inside ``obj``: everything that may be a tile."""
    found: list[tuple[int, int]] = []
    if isinstance(obj, list):
        if len(obj) == 2 and all(type(v) is int and 0 <= v <= 6 for v in obj):
            found.append((min(obj), max(obj)))
        for v in obj:
            found.extend(_pairs(v))
    elif isinstance(obj, dict):
        for v in obj.values():
            found.extend(_pairs(v))
    return found


def test_during_a_round_the_file_shows_only_placed_tiles(tmp_path: Path) -> None:
    lines, _ = run(tmp_path)
    placed: set[tuple[int, int]] = set()
    in_round = False
    checked = 0
    for x in lines:
        if x["type"] == "round_start":
            in_round, placed = True, set()
            continue
        if x["type"] in ("round_reveal", "seed_reveal"):
            in_round = False
            continue
        if not in_round:
            continue
        ev = x.get("event", {})
        if ev.get("kind") == "round_ended":
            in_round = False  # hands are revealed from here on
            continue
        if ev.get("kind") == "placed":
            placed.add((min(ev["tile"]), max(ev["tile"])))
        if ev.get("kind") == "drew":
            assert ev["tile"] is None
        assert not {"raw", "deal", "hand", "hands", "seed", "salt", "message"} & set(x)
        assert set(_pairs(x)) <= placed, x
        checked += 1
    assert checked > 100


def test_commitments_open_to_the_revealed_seed_and_deals(tmp_path: Path) -> None:
    lines, out = run(tmp_path)
    header = lines[0]
    seed_line = next(x for x in lines if x["type"] == "seed_reveal")
    assert seed_line["seed"] == 5
    assert commitment(seed_line["salt"], {"seed": 5}) == header["seed_commitment"]
    starts = {x["round"]: x for x in lines if x["type"] == "round_start"}
    reveals = {x["round"]: x for x in lines if x["type"] == "round_reveal"}
    assert starts.keys() == reveals.keys() and len(starts) == out.rounds
    for r, rev in reveals.items():
        assert commitment(rev["salt"], rev["deal"]) == starts[r]["deal_commitment"]
        assert rev["deal"] == Deal.from_seed(5, r).to_dict()
        assert rev["seq"] > starts[r]["seq"]
    # the raw requests are in the reveals, each tied to its public request line
    requests = {x["seq"]: x for x in lines if x["type"] == "request"}
    raws = [p for rev in reveals.values() for p in rev["private"] if p["kind"] == "request_raw"]
    assert {p["seq"] for p in raws} == set(requests)
    for p in raws:
        assert json.loads(p["raw"])["id"] == requests[p["seq"]]["id"]
    drew = [p for rev in reveals.values() for p in rev["private"] if p["kind"] == "drew"]
    assert drew and all(p["tile"] is not None for p in drew)


def test_a_wrong_deal_does_not_open_the_commitment(tmp_path: Path) -> None:
    lines, _ = run(tmp_path, max_rounds=1)
    start = next(x for x in lines if x["type"] == "round_start")
    rev = next(x for x in lines if x["type"] == "round_reveal")
    assert commitment(rev["salt"], Deal.from_seed(6, 1).to_dict()) != start["deal_commitment"]


def test_clock_arithmetic_per_genuine_turn(tmp_path: Path) -> None:
    """Each reply is charged to the delay of its turn first, then the bank; draws in
    the same turn share one delay (RULES.md §7)."""
    lines, out = run(tmp_path, think=130 * MS)
    delay = 100 * MS
    banks = [60 * SECOND, 60 * SECOND]
    left: dict[tuple[int, int], int] = {}
    turn_of: dict[int, tuple[int, int]] = {}
    shared_turns = 0
    for x in lines:
        if x["type"] == "request":
            key = (x["seat"], x["turn"])
            if key in left:
                shared_turns += 1
            left.setdefault(key, delay)
            turn_of[x["id"]] = key
            assert x["clock"]["delay_left_ns"] == left[key]
            assert x["clock"]["bank_ns"] == banks[x["seat"]]
        elif x["type"] == "reply":
            key = turn_of[x["id"]]
            used = min(x["elapsed_ns"], left[key])
            left[key] -= used
            banks[key[0]] -= x["elapsed_ns"] - used
            assert x["charge"]["delay_used_ns"] == used
            assert x["banks_ns"] == banks
    assert shared_turns > 0, "the match had draws within a turn"
    assert banks[0] < 60 * SECOND and out.reason == "balance"


def test_cpu_time_per_decision_is_recorded_where_a_seat_can_tell(tmp_path: Path) -> None:
    """Seat A reports CPU time (half its thinking time per line it sends), seat B
    cannot tell: A's replies carry its CPU time thinking and idle, B's nothing."""
    run(tmp_path, max_rounds=1)
    lines = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
    replies = [x for x in lines if x["type"] == "reply"]
    a = [x for x in replies if x["seat"] == 0]
    b = [x for x in replies if x["seat"] == 1]
    assert a and b
    # one reply line (and nothing else) sent per decision: half of 130 ms each
    assert {x["cpu_ns"] for x in a} == {65 * MS}
    assert {x["idle_cpu_ns"] for x in a} == {0}  # it sends nothing while not on move
    assert all("cpu_ns" not in x and "idle_cpu_ns" not in x for x in b)
    # the replay shows the figure next to the wall time and verifies the file
    from bidref.transcript.replay import replay

    report = replay((tmp_path / "t.jsonl").read_bytes())
    assert report.ok
    assert any("(CPU 65.0 ms)" in str(s) for s in report.steps)


def test_cpu_an_engine_spends_on_its_request_at_once_is_its_decisions(tmp_path: Path) -> None:
    # the engine starts thinking the moment its request is written, before the
    # referee's thread runs again: that is the decision's CPU time, never idle time
    clock = FakeClock()
    seats = [
        FakeSeat("a", clock, _thinking_engine(9 * MS), cpu_per_line_ns=0, cpu_on_request_ns=5 * MS),
        FakeSeat("b", clock, _thinking_engine(9 * MS)),
    ]
    spec = MatchSpec(
        engines=(EngineSpec("a", ("fake",)), EngineSpec("b", ("fake",))),
        seed=5,
        max_rounds=1,
        time_control=TimeControl(bank=60 * SECOND, delay=100 * MS),
    )
    path = tmp_path / "t.jsonl"
    run_match(spec, seats=seats, clock=clock, transcript_path=path, salt=counter_salt())
    replies = [x for x in expanded_lines(path.read_bytes()) if x["type"] == "reply"]
    mine = [x for x in replies if x["seat"] == 0]
    assert mine and {x["cpu_ns"] for x in mine} == {5 * MS}
    assert {x["idle_cpu_ns"] for x in mine[1:]} == {0}, mine
