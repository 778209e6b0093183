"""The referee's hand-built transcript lines and batched writes keep the format exact."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bidref.engines import EngineSpec
from bidref.match.referee import MatchSpec, run_match
from bidref.protocol import encode_request
from bidref.protocol.fastview import RequestEncoder
from bidref.rules import MILLISECOND, SECOND, Match, TimeControl, player_view
from bidref.transcript import TranscriptWriter, counter_salt
from bidref.transcript.lines import (
    Charge,
    LogLine,
    Reply,
    Request,
    RequestClock,
    encode_line,
)

from .fakes import FakeClock, FakeSeat, first_legal

MS = MILLISECOND

# The key order of the hot lines, as protocols/transcript.md lists them
# (bidref-transcript/2: what the rules and the clock derive is left out).
KEYS = {
    "request": ["type", "seq", "t_ns", "seat", "id"],
    "reply": ["type", "seq", "t_ns", "seat", "id", "action"],
    "round_start": [
        "type",
        "seq",
        "t_ns",
        "round",
        "deal_commitment",
        "opening",
        "jockey",
        "balances",
    ],
}


class CheckingSeat(FakeSeat):
    """A fake seat that, whenever the referee sends it something, checks that the
    transcript file already holds every event line it is about to be told."""

    path: Path | None = None
    checks = 0
    offset = 0  # how far this seat has read the transcript
    events: list[dict[str, Any]] | None = None

    def send(self, text: str) -> int:
        assert self.path is not None
        if self.path.exists():
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read().decode()
            self.offset += len(data.encode())
            assert data == "" or data.endswith("\n"), "a partial line in the transcript"
            # bidref-transcript/2 has no event lines: the reply that caused the events
            # must be in the file before a seat is told them
            replies = self.events = self.events or []
            replies += [json.loads(x) for x in data.splitlines() if x.startswith('{"type":"reply"')]
            told = [
                json.loads(x)["event"] for x in text.split("\n") if json.loads(x)["type"] == "event"
            ]
            caused = [e for e in told if e["kind"] in ("placed", "auction", "drew")]
            if caused:
                e = caused[-1]  # the latest event: caused by the latest reply
                assert replies, "an event told before any reply is in the transcript"
                assert replies[-1]["action"] == ("draw" if e["kind"] == "drew" else e["action"])
                self.checks += 1
        return super().send(text)


def _run(tmp_path: Path, seed: int, max_rounds: int | None = None) -> list[str]:
    clock = FakeClock()
    path = tmp_path / f"t{seed}.jsonl"
    seats = [CheckingSeat(n, clock, first_legal(3 * MS)) for n in "ab"]
    for s in seats:
        s.path = path
    spec = MatchSpec(
        engines=(EngineSpec("a", ("fake",)), EngineSpec("b", ("fake",))),
        seed=seed,
        max_rounds=max_rounds,
        time_control=TimeControl(bank=60 * SECOND, delay=100 * MS),
    )
    run_match(
        spec,
        seats=seats,
        clock=clock,
        transcript_path=path,
        salt=counter_salt(),
        started_at="2026-01-01T00:00:00Z",
    )
    assert all(s.checks > 10 for s in seats)
    return path.read_text().splitlines()


def test_hot_lines_are_what_the_dict_writer_writes(tmp_path: Path) -> None:
    """Each line is the compact dump of its own content, keys in the documented order:
    exactly what ``TranscriptWriter.write`` makes of the same dict."""
    seen: set[str] = set()
    for seed in (3, 8):
        for raw in _run(tmp_path, seed, max_rounds=3):
            obj = json.loads(raw)
            kind = obj["type"]
            assert raw == json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
            if kind in KEYS:
                seen.add(kind)
                assert list(obj) == KEYS[kind]
            assert kind != "event"  # the replay derives the events
    assert {"request", "reply", "round_start"} <= seen


@pytest.mark.parametrize(
    "line",
    [
        Request(7, 150, 1, 9),
        Request(7, 150, 0, 9, 2, 14, "play", RequestClock(5, 6, 7), 900),
        Reply(7, 150, 1, 9, action="draw"),
        Reply(7, 150, 1, 9, action="play 1-3 1-1:branch_b", cpu_ns=12, idle_cpu_ns=0),
        Reply(7, 150, 0, 9, action="bid 20", idle_cpu_ns=5, elapsed_ns=3),
        Reply(7, 150, 0, 9, action='odd "\\ \ud800', charge=Charge(1, 2, False, 0)),
    ],
)
def test_the_hot_lines_fast_json_is_the_encoders(line: Any) -> None:
    """The request and accepted reply lines are made without the encoder (a measured
    fast path, a method of the model): the same bytes as the encoder makes of the
    line with what /2 derives left out."""
    derived = dict.fromkeys(("round", "turn", "phase", "clock", "deadline_ns"))
    if isinstance(line, Reply):
        derived = dict.fromkeys(("elapsed_ns", "charge", "banks_ns"))
    assert line.compact_json() == encode_line(msgspec.structs.replace(line, **derived))
    assert json.loads(line.compact_json())["seq"] == 7


def test_held_lines_wait_for_the_next_flush(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    w = TranscriptWriter(path, 0)

    def log(t: int, flush: bool = True) -> int:
        return w.put(LogLine(*w.stamp(t), seat=0, chars=t), flush)

    assert log(1) == 0
    assert log(2, flush=False) == 1
    assert w.put(LogLine(*w.stamp(3), seat=1, chars=3), flush=False) == 2
    assert path.read_text().splitlines() == ['{"type":"log","seq":0,"t_ns":1,"seat":0,"chars":1}']
    log(4)  # a flushing write takes the held lines along, in order
    assert [json.loads(x)["t_ns"] for x in path.read_text().splitlines()] == [1, 2, 3, 4]
    log(5, flush=False)
    w.close()  # closing flushes
    assert path.read_text().endswith('{"type":"log","seq":4,"t_ns":5,"seat":0,"chars":5}\n')


def test_a_line_out_of_order_is_refused(tmp_path: Path) -> None:
    w = TranscriptWriter(tmp_path / "t.jsonl", 0)
    with pytest.raises(ValueError, match="seq 3, but the next line is 0"):
        w.put(LogLine(3, 0, seat=0, chars=1))


def test_encoder_caches_follow_copies_and_new_rounds() -> None:
    """One encoder fed alternately a match and a copy that went another way."""
    rng = random.Random(4)
    m = Match.new(21)
    enc = RequestEncoder()
    other = m.copy()
    for n in range(1, 400):
        if m.over:
            m = Match.new(n)
        if other.over or n % 50 == 0:
            other = m.copy()
        for g in (m, other):
            clock = {"delay_left_ms": n, "bank_ms": 5, "opponent_bank_ms": 6, "deadline_ms": 7}
            want = encode_request(
                n, player_view(g, g.to_act).to_dict(), clock, [str(a) for a in g.legal_actions()]
            )
            assert enc.encode(g, n, clock) == want
        m.apply(rng.choice(m.legal_actions()))
        other.apply(rng.choice(other.legal_actions()))
