"""Scripted seats on a fake clock, to have the real referee write transcripts in tests.

A :class:`ScriptedSeat` answers every request with a seeded random legal action
after a seeded think time; it can send an illegal action first now and then,
or think past its deadline at a chosen decision. Nothing sleeps: the fake
clock jumps to each reply's time.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any
from unittest import mock

from bidref.engines.transport import Eof, Incoming, Line
from bidref.match import referee
from bidref.match.referee import MatchSpec, run_match
from bidref.players.inprocess import InProcessSeat
from bidref.rules import MILLISECOND, Deal, TimeControl
from bidref.testing import FakeClock
from bidref.transcript import FORMAT_V1, TranscriptWriter, counter_salt
from bidref.transcript.files import read_bytes


class ScriptedSeat(InProcessSeat):
    def __init__(
        self,
        name: str,
        clock: FakeClock,
        seed: int,
        *,
        illegal_rate: float = 0.0,
        late_at: int | None = None,
        max_think_ms: int = 900,
        chatty: bool = False,
        odd_spelling: bool = False,
        hostile: bool = False,
    ) -> None:
        self.hostile = hostile  # lone surrogates in a log line and its resignation
        self.odd_spelling = odd_spelling  # every 4th reply with its keys in another order
        self.name = name
        self.clock = clock
        self.rng = random.Random(seed)
        self.illegal_rate = illegal_rate
        self.late_at = late_at
        self.max_think_ms = max_think_ms
        self.chatty = chatty
        self.queue: list[tuple[int, str]] = []
        self.decisions = 0
        self.pending_legal: tuple[int, list[str]] = (0, [])

    def _reply(self, after_ms: int, obj: dict[str, object]) -> None:
        t = self.clock.now + after_ms * MILLISECOND
        # Keep the queue in time order (stable for equal times).
        at = len([q for q in self.queue if q[0] <= t])
        text = json.dumps(obj)
        if self.odd_spelling and obj.get("type") == "action" and self.decisions % 4 == 0:
            text = json.dumps(dict(reversed(obj.items())), separators=(",", ":"))
        self.queue.insert(at, (t, text))

    def send(self, text: str) -> int:
        for line in text.split("\n"):
            if line.strip():
                self._on(json.loads(line))
        return self.clock.now

    def _on(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "hello":
            self._reply(
                1,
                {
                    "type": "hello",
                    "name": self.name,
                    "author": "tests",
                    "version": "1",
                    "protocol": "bidref/1",
                },
            )
        elif kind == "request":
            self.decisions += 1
            legal = msg["legal"]
            rid = msg["id"]
            if self.chatty and self.decisions % 3 == 0:
                # A log line, a rules question and a stale reply: recorded, no effect.
                self._reply(1, {"type": "log", "message": f"decision {self.decisions}"})
                self._reply(2, {"type": "rules", "id": f"q{rid}", "topic": "7"})
                self._reply(3, {"type": "action", "id": rid - 1, "action": "accept"})
            if self.hostile and self.decisions == 2:
                self._reply(1, {"type": "log", "message": "lone \udc80 surrogate"})
            if self.hostile and self.decisions == 6:
                self._reply(3, {"type": "resign", "message": "I give up \ud83d"})
                return
            if self.late_at is not None and self.decisions == self.late_at:
                clock = msg["clock"]
                late = (clock["delay_left_ms"] + clock["bank_ms"]) + 50
                self._reply(late, {"type": "action", "id": rid, "action": legal[0]})
            elif self.illegal_rate and self.rng.random() < self.illegal_rate:
                self._reply(
                    self.rng.randrange(1, 200),
                    {"type": "action", "id": rid, "action": "play 6-6 0-0:branch_a"},
                )
                self.pending_legal = (rid, legal)
            else:
                self._reply(
                    self.rng.randrange(1, self.max_think_ms),
                    {"type": "action", "id": rid, "action": self.rng.choice(legal)},
                )
        elif kind == "error" and msg.get("code") in ("illegal", "bad_action"):
            rid, legal = self.pending_legal
            self._reply(
                self.rng.randrange(1, 200),
                {"type": "action", "id": rid, "action": self.rng.choice(legal)},
            )
        elif kind == "ping":
            self._reply(1, {"type": "pong", "id": msg["id"]})

    def receive(self, deadline: int | None) -> Incoming | None:
        if not self.queue:
            if deadline is None:
                return Eof(self.clock.now)
            self.clock.now = max(self.clock.now, deadline)
            return None
        t, text = self.queue[0]
        if deadline is not None and t >= deadline:
            self.clock.now = max(self.clock.now, deadline)
            return None
        self.queue.pop(0)
        self.clock.now = max(self.clock.now, t)
        return Line(text, t)

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "command": ["scripted"], "cwd": None}


def referee_transcript(
    path: Path,
    *,
    seed: int = 7,
    max_rounds: int | None = 2,
    illegal: str = "reject",
    illegal_rate: float = 0.0,
    late_at: int | None = None,
    bank_s: float = 30,
    delay_s: float = 0.5,
    chatty: bool = False,
    explicit_deals: int = 0,
    format: str = FORMAT_V1,
    raw_lines: bool = False,
    odd_spelling: bool = False,
    hostile: bool = False,
    seat_class: type[ScriptedSeat] | None = None,
) -> bytes:
    """Have the real referee play two scripted seats and return the transcript's bytes,
    in ``format`` (the tests that edit the clock or event fields use v1, which states
    them; see also ``test_format_v2.py``). ``seat_class`` plays seat A instead of a
    plain :class:`ScriptedSeat`."""
    from bidref.engines import EngineSpec

    clock = FakeClock(1_000_000_000)
    make = seat_class or ScriptedSeat
    seats = [
        make(
            "alpha",
            clock,
            seed * 2 + 1,
            illegal_rate=illegal_rate,
            late_at=late_at,
            chatty=chatty,
            odd_spelling=odd_spelling,
            hostile=hostile,
        ),
        ScriptedSeat("beta", clock, seed * 2 + 2, illegal_rate=illegal_rate, chatty=chatty),
    ]
    spec = MatchSpec(
        engines=(EngineSpec(name="alpha", command=("x",)), EngineSpec(name="beta", command=("x",))),
        seed=seed,
        time_control=TimeControl.of_seconds(bank_s, delay_s),
        max_rounds=max_rounds,
        illegal=illegal,  # type: ignore[arg-type]
        deals=tuple(Deal.from_seed(seed + 1000, r) for r in range(1, explicit_deals + 1)),
        raw_lines=raw_lines,
    )
    writer = functools.partial(TranscriptWriter, format=format)
    with mock.patch.object(referee, "TranscriptWriter", writer):
        run_match(
            spec,
            transcript_path=path,
            clock=clock,
            seats=seats,  # type: ignore[arg-type]
            salt=counter_salt(),
            started_at="2026-12-02T13:00:00Z",
        )
    return read_bytes(path)
