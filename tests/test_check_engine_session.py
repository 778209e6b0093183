"""check-engine judges an engine through the referee's EngineSession: the same
script behind the same fake pipe (tests/match/fakes.PipeSeat, a fake clock)
gets the same verdict from ``bidref match`` and from ``check-engine``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bidref.check import CheckSettings, check_engine
from bidref.check.probe import Notes, TransportSeat
from bidref.engines import EngineSpec, ExitInfo, Incoming, Line, Transport
from bidref.match.session import EngineSession, SessionEnd
from bidref.protocol import EngineHello, Pong
from bidref.rules import MILLISECOND, SECOND
from tests.match.fakes import (
    FakeClock,
    FakeSeat,
    PipeSeat,
    Reply,
    Script,
    action_line,
    first_legal,
    hello_line,
)
from tests.match.test_clock_promises import SPEC, first_request_at, play

MS = MILLISECOND
US = 1000
SETTINGS = CheckSettings(bank=2 * SECOND, delay=100 * MS, startup=SECOND)  # SPEC's clock


class SeatAsTransport:
    """A fake seat as the transport check-engine starts (alive until closed)."""

    pid = 1

    def __init__(self, seat: FakeSeat) -> None:
        self.seat = seat
        self.ended: ExitInfo | None = None

    def write_line(self, text: str) -> int:
        return self.seat.send(text)

    def read(self, deadline: int | None) -> Incoming | None:
        return self.seat.receive(deadline)

    def note_descendants(self) -> None:
        pass

    def has_input(self) -> bool:
        return False

    def poll_exit(self) -> ExitInfo | None:
        return self.ended

    def wait_exit(self, timeout_ns: int) -> ExitInfo | None:
        return self.ended

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        self.ended = self.seat.close(quit_line, grace_ns)
        return self.ended

    def stderr_tail(self) -> str:
        return ""

    def stderr_bytes(self) -> int:
        return 0

    def cpu_ns(self) -> int | None:
        return None

    def freeze(self) -> None:
        pass

    def thaw(self) -> None:
        pass


def with_pong(script: Script) -> Script:
    def answer(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "ping":
            return [(MS, json.dumps({"type": "pong", "id": msg["id"]}))]
        return script(msg, seat)

    return answer


def check(script: Script, **seat_kw: Any) -> tuple[dict[str, tuple[bool, str]], PipeSeat]:
    clock = FakeClock()
    seats: list[PipeSeat] = []

    def starter(spec: EngineSpec, transport: str, _clock: Any) -> Transport:
        seats.append(PipeSeat("a", clock, with_pong(script), **seat_kw))
        return SeatAsTransport(seats[-1])

    report = check_engine(EngineSpec("a", ("fake",)), SETTINGS, clock=clock, starter=starter)
    return {r.item: (r.passed, r.detail) for r in report.results}, seats[0]


# The first request (check-engine's "forced opening") answered `offset` from its
# deadline, read by a referee that wakes `wake` late: the match's verdict, and
# what check-engine says of the same reply.
CASES = [
    pytest.param(-MS, 0, "round_limit", "'", id="in-time"),
    pytest.param(-100 * US, 900 * US, "round_limit", "'", id="in-the-tolerance-band"),
    pytest.param(-100 * US, 1200 * US, "aborted", "not judged", id="past-the-tolerance"),
    pytest.param(-MS, 300 * MS, "aborted", "not judged", id="stalled"),
    pytest.param(2 * MS, 0, "time", "too slow", id="late"),
    pytest.param(5 * MS, 3 * MS, "time", "too slow", id="late-to-a-late-look"),
]


@pytest.mark.parametrize(("offset", "wake", "match_end", "check_says"), CASES)
def test_a_reply_is_judged_by_check_engine_as_in_a_match(
    offset: int, wake: int, match_end: str, check_says: str, tmp_path: Path
) -> None:
    out, _, _ = play(first_request_at(offset), tmp_path, wake_late_ns=wake)
    assert out.reason == match_end
    results, _ = check(first_request_at(offset), wake_late_ns=wake)
    passed, detail = results["forced opening"]
    assert passed is (match_end == "round_limit"), detail
    assert check_says in detail
    # a referee that was not watching says so; the engine is not blamed for it
    assert ("reply time" in {k for k, (ok, _) in results.items() if not ok}) is (
        match_end == "time"
    )


def test_a_bad_line_is_waited_past_and_told_to_the_engine_as_the_referee_tells_it() -> None:
    good = first_legal()

    def noisy(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "request":
            return [(MS, "thinking..."), *good(msg, seat)]
        if msg["type"] == "error" and msg["code"] == "illegal":
            last = seat.requests()[-1]
            return [(MS, action_line(last["id"], last["legal"][-1]))]
        return good(msg, seat)

    results, seat = check(noisy)
    failed = {k for k, (ok, _) in results.items() if not ok}
    assert failed == {"clean stdout"}
    assert "'thinking...'" in results["clean stdout"][1]
    errors = [m for m in seat.messages("error") if m["code"] == "bad_json"]
    assert errors and "thinking..." in errors[0]["message"]  # the referee's own error line


def test_a_reply_with_an_id_never_sent_fails_at_once() -> None:
    def wrong_id(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "request":
            line = json.dumps({"type": "action", "id": msg["id"] + 1000, "action": "x"})
            return [(MS, line)]
        return first_legal()(msg, seat)

    results, _ = check(wrong_id)
    assert "echo the id" in results["forced opening"][1]
    assert "median 1.0 ms" in results["reply time"][1]  # it did answer, at once


# -- the session's additions that check-engine uses ------------------------------------------


class _Quiet(Notes):
    def stale(self, seat: int, got_id: int, pending: int, raw: str, t: int) -> None:
        self.seen = got_id


def session(lines: list[Reply]) -> tuple[EngineSession, PipeSeat, FakeClock]:
    clock = FakeClock()
    seat = PipeSeat("a", clock, lambda msg, s: lines if msg["type"] == "ping" else [])
    sess = EngineSession(seat, 0, clock, _Quiet(), SPEC)
    sess.send(json.dumps({"type": "ping", "id": 5}))
    return sess, seat, clock


def test_next_message_handles_every_other_line_as_while_a_reply_is_awaited() -> None:
    rules = json.dumps({"type": "rules", "id": "r", "topic": "clock"})
    stale = json.dumps({"type": "action", "id": 3, "action": "draw"})
    log = json.dumps({"type": "log", "message": "hm"})
    pong = json.dumps({"type": "pong", "id": 5})
    sess, seat, clock = session([(1, rules), (2, stale), (3, log), (4, pong)])
    msg, raw, _ = sess.next_message(clock() + SECOND, Pong)
    assert isinstance(msg, Pong) and msg.id == 5 and raw == pong
    assert [m["type"] for m in seat.received] == ["ping", "rules", "error"]  # answered, stale
    assert seat.received[2]["code"] == "stale_id"
    assert sess.counts["rules_requests"] == 1 and sess.counts["log_lines"] == 1


def test_next_message_ends_on_a_bad_line_and_names_it() -> None:
    sess, _, clock = session([(1, "{oops")])
    with pytest.raises(SessionEnd) as e:
        sess.next_message(clock() + SECOND, Pong)
    assert e.value.reason == "protocol" and e.value.bad_line is not None
    assert "{oops" in str(e.value.bad_line)


def test_a_hello_of_another_protocol_is_returned_only_when_asked() -> None:
    clock = FakeClock()
    seat = PipeSeat("a", clock, lambda m, s: [(MS, hello_line("old", "bidref/0"))] * 2)
    sess = EngineSession(seat, 0, clock, _Quiet(), SPEC)
    sess.send_hello(json.dumps({"type": "hello"}))
    with pytest.raises(SessionEnd) as e:
        sess.await_hello(clock() + SECOND)
    assert e.value.reason == "startup" and "bidref/0" in (e.value.detail.problem_text or "")
    hello, _, _ = sess.await_hello(clock() + SECOND, same_protocol=False)
    assert isinstance(hello, EngineHello) and hello.protocol == "bidref/0"


def test_the_check_s_seat_keeps_what_it_read_last() -> None:
    clock = FakeClock()
    fake = PipeSeat("a", clock, lambda m, s: [(MS, "x")])
    seat = TransportSeat(SeatAsTransport(fake), "a")
    seat.send(json.dumps({"type": "ping", "id": 1}))
    got = seat.receive(clock() + SECOND)
    assert isinstance(got, Line) and seat.last is got
    assert seat.receive(clock() + SECOND) is None and seat.last is None


@pytest.mark.parametrize("features", [[], ["points"]])
def test_the_requests_are_the_referee_s_with_points_if_the_hello_asks(
    features: list[str],
) -> None:
    good = first_legal()

    def hello_with(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "hello":
            hello = {"type": "hello", "name": "a", "protocol": "bidref/1", "features": features}
            return [(MS, json.dumps(hello))]
        return good(msg, seat)

    _, seat = check(hello_with)
    requests = seat.requests()
    assert requests and all(("legal_points" in r) is bool(features) for r in requests)
