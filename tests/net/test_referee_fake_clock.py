"""The referee with two network seats, on a fake clock, without sockets.

Each seat's client is a scripted engine (:class:`ScriptedClient`) that answers
at once, moving the fake clock by a fixed think time; a client can be cut at a
request and come back later (another thread, the clock moved on meanwhile), or
never. The times in the transcript are then exact.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bidref.match.referee import MatchSpec, run_match
from bidref.net.framing import ListenAddress
from bidref.net.match_seats import engine_spec_for
from bidref.net.seat import NetworkSeat
from bidref.outcome import MatchOutcome
from bidref.rules import MILLISECOND, SECOND, TimeControl
from bidref.testing import FakeClock
from bidref.transcript import counter_salt
from bidref.transcript.expand import expanded_lines
from bidref.transcript.replay import replay

THINK = MILLISECOND


class ScriptedClient:
    """A client connection whose engine plays the first legal action."""

    def __init__(self, seat: NetworkSeat, clock: FakeClock, cut_at: int | None = None) -> None:
        self.seat = seat
        self.clock = clock
        self.peer = "scripted"
        self.cut_at = cut_at  # cut instead of answering this request (1 = the first)
        self.requests = 0
        self.seen: list[dict[str, Any]] = []
        self.cut = threading.Event()

    def send(self, text: str) -> None:
        # called with the seat's lock held (a re-entrant lock): answering from here
        # is an engine that answers before the referee looks again
        msg = json.loads(text)
        self.seen.append(msg)
        kind = msg["type"]
        if kind == "hello":
            self.clock.advance(THINK)
            name = f"scripted-{msg['seat']}"
            self.seat.deliver(
                self, json.dumps({"type": "hello", "name": name, "protocol": "bidref/1"})
            )
        elif kind == "request":
            self.requests += 1
            if self.requests == self.cut_at:
                self.seat.detach(self, "connection lost")
                self.cut.set()
                return
            self.clock.advance(THINK)
            reply = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
            self.seat.deliver(self, json.dumps(reply))
        elif kind == "quit":
            self.seat.deliver(self, '{"type":"engine_exit","exit_code":0,"signal":null}')

    def close(self, code: int, reason: str) -> None:
        pass


def setup(
    tmp: Path, cut_at: int | None, bank_s: float = 10
) -> tuple[FakeClock, list[NetworkSeat], ScriptedClient, MatchSpec]:
    clock = FakeClock(1_000 * SECOND)
    seats = [
        NetworkSeat(ListenAddress("127.0.0.1", 0), seat=i, clock=clock, token=f"t{i}")
        for i in (0, 1)
    ]
    a = ScriptedClient(seats[0], clock, cut_at=cut_at)
    seats[0].attach(a, fresh=True)
    seats[1].attach(ScriptedClient(seats[1], clock), fresh=True)
    remote = engine_spec_for("listen://127.0.0.1:0")
    stand_in = MatchSpec(
        engines=(remote, remote),
        seed=4,
        time_control=TimeControl.of_seconds(bank=bank_s, delay=1),
        max_rounds=1,
    )
    return clock, seats, a, stand_in


def lines(path: Path) -> list[dict[str, Any]]:
    return expanded_lines(path.read_bytes())


def play_with_helper(
    helper: Callable[[], None], spec: MatchSpec, t: Path, clock: FakeClock, seats: list[Any]
) -> MatchOutcome:
    """Play the match with ``helper`` (what the network does meanwhile) on its own thread."""
    thread = threading.Thread(target=helper)
    thread.start()
    try:
        return run_match(
            spec,
            transcript_path=t,
            clock=clock,
            seats=seats,
            salt=counter_salt(),
            started_at="2026-12-03T00:00:00Z",
        )
    finally:
        thread.join(60)


def test_cut_mid_turn_and_back_before_the_deadline_charges_the_time_away(tmp_path: Path) -> None:
    clock, seats, a, spec = setup(tmp_path, cut_at=2)
    back = ScriptedClient(seats[0], clock)

    def come_back() -> None:
        a.cut.wait(60)
        clock.advance(3 * SECOND)  # away for 3 s: the delay (1 s) and 2 s of bank
        seats[0].attach(back, fresh=False)

    t = tmp_path / "t.jsonl"
    out = play_with_helper(come_back, spec, t, clock, seats)
    assert out.reason == "round_limit", out
    ls = lines(t)
    seat0_requests = [x for x in ls if x["type"] == "request" and x["seat"] == 0]
    cut_request = seat0_requests[1]
    reply = next(x for x in ls if x["type"] == "reply" and x["id"] == cut_request["id"])
    assert reply["status"] == "accepted"
    assert reply["elapsed_ns"] == 3 * SECOND + THINK  # every nanosecond away was charged
    assert reply["charge"]["delay_used_ns"] == SECOND
    assert reply["charge"]["bank_used_ns"] == 2 * SECOND + THINK
    # the re-sent request: same id, the clock as it was on the reconnection
    resent = next(m for m in back.seen if m["type"] == "request")
    assert resent["id"] == cut_request["id"]
    assert resent["clock"]["delay_left_ms"] == 0
    assert resent["clock"]["bank_ms"] == cut_request["clock"]["bank_ns"] // MILLISECOND - 2000
    conns = [x for x in ls if x["type"] == "connection" and x["seat"] == 0]
    assert [c["event"] for c in conns] == ["connect", "disconnect", "resume", "disconnect"]
    cut, resume = conns[1], conns[2]
    assert cut["at_ns"] == cut_request["t_ns"]  # cut the moment the request went out
    assert resume["at_ns"] == cut["at_ns"] + 3 * SECOND
    assert resume["fresh"] is False
    report = replay(t.read_bytes())
    assert report.ok and not report.truncated, report.problem


def test_cut_and_not_back_loses_on_time_at_the_deadline(tmp_path: Path) -> None:
    clock, seats, a, spec = setup(tmp_path, cut_at=2, bank_s=5)

    def time_passes() -> None:
        a.cut.wait(60)
        # nobody comes back: the time runs out (the request gave it deadline_ms)
        clock.advance(a.seen[-1]["clock"]["deadline_ms"] * MILLISECOND)

    t = tmp_path / "t.jsonl"
    out = play_with_helper(time_passes, spec, t, clock, seats)
    assert (out.winner, out.reason) == (1, "time")
    ls = lines(t)
    timeout = next(x for x in ls if x["type"] == "timeout")
    last_request = [x for x in ls if x["type"] == "request" and x["seat"] == 0][-1]
    assert timeout["seat"] == 0
    assert timeout["overrun_ns"] == 0  # lost at the deadline exactly, not at the cut
    # the result says what happened: the time it had, and since when nobody was there
    cut = next(x for x in ls if x["type"] == "connection" and x["event"] == "disconnect")
    allowed = last_request["deadline_ns"] - last_request["t_ns"]
    assert out.time_loss is not None
    assert out.time_loss.allowed_ns == allowed
    assert out.time_loss.disconnected_ns == cut["at_ns"] == last_request["t_ns"]
    said = out.summary()
    assert f"A (scripted-0) sent no reply within {allowed / SECOND:g} s (bank " in said
    assert f"; disconnected since {cut['at_ns'] / SECOND:g} s" in said, said
    assert "overran" not in said
    assert (
        last_request["deadline_ns"] - last_request["t_ns"]
        == a.seen[-1]["clock"]["deadline_ms"] * MILLISECOND
    )
    kinds = [x["type"] for x in ls]
    assert kinds.index("timeout") > max(
        i
        for i, x in enumerate(ls)
        if x["type"] == "connection"
        and x["event"] == "disconnect"
        and x["seat"] == 0
        and x.get("reason") == "connection lost"
    )
    report = replay(t.read_bytes())
    assert report.ok and not report.truncated, report.problem
