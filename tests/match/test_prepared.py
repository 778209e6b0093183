"""Branches prepared while a player thinks: the same match, the same transcript,
and the player never charged for the referee's preparing."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bidref.engines import EngineSpec
from bidref.match.referee import MatchSpec, run_match
from bidref.rules import MILLISECOND, SECOND, TimeControl
from bidref.transcript import counter_salt
from bidref.transcript.expand import expanded_lines

from .fakes import FakeClock, FakeSeat, Reply, action_line, first_legal, hello_line

MS = MILLISECOND


def random_legal(seed: int):  # type: ignore[no-untyped-def]
    """A legal player with random choices and random thinking times (0-3 ms)."""
    rng = random.Random(seed)

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "hello":
            return [(0, hello_line(seat.name))]
        if msg["type"] == "request":
            return [(rng.randrange(3 * MS), action_line(msg["id"], rng.choice(msg["legal"])))]
        return []

    return script


class InputSeat(FakeSeat):
    """A fake seat that says whether input is waiting, by a rule given as a
    function of how often it has been asked (None: the seat has no has_input)."""

    rule: Any = None
    asked = 0

    def has_input(self) -> bool:
        self.asked += 1
        return bool(self.rule(self.asked))


def play(tmp_path: Path, seed: int, rule: Any, name: str) -> tuple[str, Any]:
    clock = FakeClock()
    seats = []
    for i in range(2):
        cls = InputSeat if rule is not None else FakeSeat
        s = cls(f"p{i}", clock, random_legal(seed * 2 + i))
        if rule is not None:
            s.rule = rule
        seats.append(s)
    spec = MatchSpec(
        engines=(EngineSpec("a", ("a",)), EngineSpec("b", ("b",))),
        seed=seed,
        time_control=TimeControl.of_seconds(bank=60, delay=1),
        max_rounds=6,
    )
    path = tmp_path / f"{name}.jsonl"
    out = run_match(
        spec,
        seats=seats,
        clock=clock,
        transcript_path=path,
        salt=counter_salt(),
        started_at="2026-01-01T00:00:00Z",
    )
    # verified and spelled out: the v1 form of the lines, with the clock fields
    text = "".join(
        json.dumps(x, separators=(",", ":")) + "\n" for x in expanded_lines(path.read_bytes())
    )
    return text, out


TIMES = ("t_ns", "elapsed_ns", "charge", "banks_ns", "deadline_ns", "clock", "elapsed")


def untimed(text: str) -> list[dict[str, Any]]:
    """The transcript's lines without their clock fields (and without the raw
    requests, which carry the clock too)."""
    lines = []
    for x in text.splitlines():
        line = {k: v for k, v in json.loads(x).items() if k not in TIMES}
        if "private" in line:
            line["private"] = [p for p in line["private"] if p["kind"] != "request_raw"]
        lines.append(line)
    return lines


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_prepared_or_not_the_match_and_its_transcript_are_the_same(
    tmp_path: Path, seed: int
) -> None:
    variants = {
        "no has_input": None,  # nothing prepared
        "never input": lambda n: False,  # every legal action prepared
        "input at once": lambda n: True,  # nothing prepared: every reply is a miss
    }
    results = {
        name: play(tmp_path, seed, rule, name.replace(" ", "_")) for name, rule in variants.items()
    }
    reference = results["input at once"][0]
    assert json.loads(reference.splitlines()[-1])["type"] == "result"
    for name, (text, _) in results.items():
        assert text == reference, f"{name}: transcript differs"
    outcomes = [{**r[1].to_dict(), "transcript_path": None} for r in results.values()]
    assert all(o == outcomes[0] for o in outcomes)
    assert outcomes[0]["decisions"] > 10


@pytest.mark.parametrize("seed", [5, 6])
def test_stopping_anywhere_changes_nothing_but_the_times(tmp_path: Path, seed: int) -> None:
    # Input seen at random points of the preparing (some replies prepared, some
    # not): the same moves and lines; only the clock fields may differ, and
    # never to the player's cost.
    flip = random.Random(seed)
    some, _ = play(tmp_path, seed, lambda n: flip.random() < 0.4, "some")
    none, _ = play(tmp_path, seed, lambda n: True, "none")
    assert untimed(some) == untimed(none)
    charged = [
        (json.loads(a), json.loads(b))
        for a, b in zip(some.splitlines(), none.splitlines(), strict=True)
        if a.startswith('{"type":"reply"')
    ]
    assert charged and all(a["elapsed_ns"] <= b["elapsed_ns"] for a, b in charged)
    assert any(a["elapsed_ns"] < b["elapsed_ns"] for a, b in charged)


class LateStampSeat(InputSeat):
    """Its reply is in the pipe while the referee prepares (has_input says so), but
    is stamped ``think_ns`` after the request, as a reader thread kept waiting by
    the referee would stamp it."""


def one_reply(think_ns: int, rule: Any) -> dict[str, Any]:
    clock = FakeClock()
    seats = [LateStampSeat(f"p{i}", clock, first_legal(think_ns)) for i in range(2)]
    for s in seats:
        s.rule = rule
        s.deliver_late = True  # a line already read is handed over even after the deadline
    spec = MatchSpec(
        engines=(EngineSpec("a", ("a",)), EngineSpec("b", ("b",))),
        seed=5,
        time_control=TimeControl.of_seconds(bank=1, delay=0.1),
        max_rounds=1,
    )
    lines: list[dict[str, Any]] = []
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        run_match(
            spec,
            seats=seats,
            clock=clock,
            transcript_path=path,
            salt=counter_salt(),
            started_at="2026-01-01T00:00:00Z",
        )
        lines = expanded_lines(path.read_bytes())
    return next(x for x in lines if x["type"] == "reply")


def test_a_reply_that_came_while_the_referee_prepared_is_not_charged_its_work() -> None:
    # Nothing waiting at the first look, a branch prepared, then input: the reply
    # came after the first look, and what the referee did after it is its own time.
    reply = one_reply(7 * MS, lambda n: n >= 2)
    assert reply["status"] == "accepted" and reply["elapsed_ns"] == 0
    # Even a reply stamped after the deadline is in time if it was already there
    # when the referee looked before the deadline.
    reply = one_reply(2 * SECOND, lambda n: n >= 2)
    assert reply["status"] == "accepted" and reply["elapsed_ns"] == 0


def test_a_reply_seen_before_any_preparing_keeps_its_stamp() -> None:
    reply = one_reply(7 * MS, lambda n: True)  # input at the very first look
    assert reply["elapsed_ns"] == 7 * MS
    reply = one_reply(7 * MS, lambda n: False)  # never: everything prepared, then waited
    assert reply["elapsed_ns"] == 7 * MS


class SlowLookSeat(FakeSeat):
    """Says truly whether a line is there (on the fake clock), and each of these
    looks costs the referee ``look_ns`` of fake time: a referee slow at preparing."""

    look_ns = 0

    def has_input(self) -> bool:
        self.clock.now += self.look_ns
        return bool(self._queue) and self._queue[0][0] <= self.clock.now


def answer_or_hang(think_ns: int | None, min_legal: int) -> Any:
    """Legal[0] at once, but at the first request with at least ``min_legal``
    legal actions: legal[0] after ``think_ns`` (None: no answer at all)."""
    done = False

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        nonlocal done
        if msg["type"] == "hello":
            return [(0, hello_line(seat.name))]
        if msg["type"] != "request":
            return []
        if done or len(msg["legal"]) < min_legal:
            return [(0, action_line(msg["id"], msg["legal"][0]))]
        done = True
        return [] if think_ns is None else [(think_ns, action_line(msg["id"], msg["legal"][0]))]

    return script


def slow_look_match(think_ns: int | None, min_legal: int, look_ns: int) -> Any:
    clock = FakeClock()
    seats = [SlowLookSeat(f"p{i}", clock, answer_or_hang(think_ns, min_legal)) for i in range(2)]
    spec = MatchSpec(
        engines=(EngineSpec("a", ("a",)), EngineSpec("b", ("b",))),
        seed=5,
        time_control=TimeControl(bank=0, delay=100 * MS),
        max_rounds=1,
    )
    for s in seats:
        s.deliver_late = True  # a line already read is handed over even after the deadline
        s.look_ns = look_ns
    return run_match(
        spec, seats=seats, clock=clock, salt=counter_salt(), started_at="2026-01-01T00:00:00Z"
    )


def test_a_reply_that_may_have_come_after_the_deadline_is_never_taken_as_in_time() -> None:
    # The referee looked at 75 ms (nothing), prepared, looked again at 150 ms and
    # found the reply (sent at 120 ms): the deadline (100 ms) passed while it was
    # preparing, and the last look before it found nothing. It cannot tell
    # whether the reply came in time: it must neither accept it nor award a time
    # loss it cannot prove.
    out = slow_look_match(120 * MS, 1, look_ns=75 * MS)
    assert (out.reason, out.rated) == ("aborted", False)
    assert out.end.cause == "timing_fault"
    assert out.decisions == 0


def test_the_referee_stops_preparing_in_time_to_see_the_deadline() -> None:
    # Looks that cost 30 ms each, a delay of 100 ms, four or more legal actions and
    # no reply: the referee stops preparing before the deadline (preparing on
    # would have taken it past it), so the hang is a plain time loss.
    out = slow_look_match(None, 4, look_ns=30 * MS)
    assert out.reason == "time"
    assert out.end.overrun_ns == 0
