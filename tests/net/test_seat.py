"""NetworkSeat without sockets: fake connections, a fake clock."""

from __future__ import annotations

import json
from typing import Any

from bidref.engines import Eof, Line, Overlong
from bidref.net.framing import CLOSE_MATCH_OVER, CLOSE_REPLACED, ListenAddress, RequestClock
from bidref.net.seat import NetworkSeat
from bidref.rules import MILLISECOND, SECOND
from bidref.testing import FakeClock

HELLO = '{"type":"hello","protocol":"bidref/1","seat":0}'


def request(rid: int, delay_ms: int = 1000, bank_ms: int = 10_000, opp_ms: int = 9000) -> str:
    clock = (
        f'"delay_left_ms":{delay_ms},"bank_ms":{bank_ms},"opponent_bank_ms":{opp_ms},'
        f'"deadline_ms":{delay_ms + bank_ms}'
    )
    return (
        f'{{"type":"request","id":{rid},"view":{{"turn":1}},"clock":{{{clock}}},"legal":["draw"]}}'
    )


class FakeConn:
    def __init__(self, peer: str = "127.0.0.1:5000") -> None:
        self.peer = peer
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        self.sent.append(text)

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def types(self) -> list[str]:
        return [json.loads(s)["type"] for s in self.sent]


def make(clock: FakeClock, **kw: Any) -> tuple[NetworkSeat, list[tuple[int, dict[str, Any]]]]:
    seat = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, clock=clock, **kw)
    written: list[tuple[int, dict[str, Any]]] = []
    seat.watch_connection(lambda t, fields: written.append((t, fields)))
    return seat, written


def test_lines_written_before_the_client_connects_are_delivered_on_connect() -> None:
    clock = FakeClock(1_000 * SECOND)
    seat, written = make(clock)
    t = seat.send(HELLO)
    assert t == clock()
    conn = FakeConn()
    assert seat.attach(conn, fresh=True)
    assert conn.types() == ["welcome", "hello"]
    assert json.loads(conn.sent[0]) == {
        "type": "welcome",
        "seat": 0,
        "protocol": "bidref/1",
        "resume": False,
    }
    clock.advance(5 * MILLISECOND)
    seat.deliver(conn, '{"type":"hello","name":"x","protocol":"bidref/1"}')
    got = seat.receive(clock() + SECOND)
    assert got == Line('{"type":"hello","name":"x","protocol":"bidref/1"}', clock())
    assert [f["event"] for _, f in written] == ["connect"]


def test_pending_request_is_sent_again_on_resume_with_the_same_id_and_the_clock_now() -> None:
    clock = FakeClock(1_000 * SECOND)
    seat, written = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    start = seat.send(request(7, delay_ms=1000, bank_ms=10_000))
    assert conn.types()[-1] == "request"
    clock.advance(SECOND)
    seat.detach(conn, "connection lost")
    clock.advance(2 * SECOND)  # 3 s since the request: the delay and 2 s of bank are gone
    again = FakeConn()
    seat.attach(again, fresh=False)
    assert again.types() == ["welcome", "request"]
    resent = json.loads(again.sent[1])
    assert resent["id"] == 7
    assert resent["clock"] == {
        "delay_left_ms": 0,
        "bank_ms": 8000,
        "opponent_bank_ms": 9000,
        "deadline_ms": 8000,
    }
    assert resent["view"] == {"turn": 1} and resent["legal"] == ["draw"]
    assert json.loads(again.sent[0])["resume"] is True
    # nothing came in: the referee's receive gets nothing, as at any deadline
    assert seat.receive(start) is None
    seat.receive(clock())  # writes the notes
    events = [f["event"] for _, f in written]
    assert events == ["connect", "disconnect", "resume"]
    disconnect = written[1][1]
    assert disconnect["at"] == start + SECOND and disconnect["reason"] == "connection lost"
    assert all(t >= start for t, _ in written)  # never before the seat's last write


def test_a_reply_counts_at_its_arrival() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    seat.send(request(1))
    clock.advance(1234)
    seat.deliver(conn, '{"type":"action","id":1,"action":"draw"}')
    clock.advance(10 * SECOND)  # the referee looks later: the stamp stays
    assert seat.has_input()
    got = seat.receive(clock() + 1)
    assert isinstance(got, Line) and got.t == 1234
    assert not seat.has_input()


def test_lines_written_while_disconnected_wait_and_the_request_carries_the_clock_now() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    seat.detach(conn, "lost")
    event = '{"type":"event","event":{"kind":"passed","player":1}}'
    seat.send(event + "\n" + request(3, delay_ms=500, bank_ms=2000))
    clock.advance(700 * MILLISECOND)
    back = FakeConn()
    seat.attach(back, fresh=False)
    assert back.types() == ["welcome", "event", "request"]  # the request once, not twice
    assert json.loads(back.sent[2])["clock"]["bank_ms"] == 1800


def test_answered_request_is_not_sent_again() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    seat.send(request(2))
    seat.deliver(conn, '{"type":"action","id":2,"action":"draw"}')
    seat.detach(conn, "lost")
    back = FakeConn()
    seat.attach(back, fresh=False)
    assert back.types() == ["welcome"]


def test_after_an_error_the_clock_restarts_where_the_referee_restarts_it() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    seat.send(request(4, delay_ms=1000, bank_ms=10_000))
    clock.advance(2 * SECOND)
    seat.deliver(conn, '{"type":"action","id":4,"action":"bid 5"}')  # illegal, charged 2 s
    clock.advance(300 * MILLISECOND)  # the referee's own work: not charged
    seat.send('{"type":"error","id":4,"code":"illegal","message":"no"}')
    clock.advance(500 * MILLISECOND)
    seat.detach(conn, "lost")
    clock.advance(SECOND)
    back = FakeConn()
    seat.attach(back, fresh=False)
    assert back.types() == ["welcome", "request"]
    assert json.loads(back.sent[1])["clock"]["bank_ms"] == 10_000 - 1000 - 1500


def test_a_restarted_client_is_greeted_again_and_its_new_hello_is_not_passed_on() -> None:
    clock = FakeClock(0)
    seat, written = make(clock)
    seat.send(HELLO)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    seat.deliver(conn, '{"type":"hello","name":"e","protocol":"bidref/1"}')
    assert isinstance(seat.receive(clock() + 1), Line)
    seat.send(request(1))
    seat.detach(conn, "lost")
    fresh = FakeConn()
    seat.attach(fresh, fresh=True)
    assert fresh.types() == ["welcome", "hello", "request"]
    seat.deliver(fresh, '{"type":"hello","name":"e","protocol":"bidref/1"}')
    seat.deliver(fresh, '{"type":"action","id":1,"action":"draw"}')
    got = seat.receive(clock() + 1)
    assert isinstance(got, Line) and '"action"' in got.text
    assert [f["event"] for _, f in written][-2:] == ["resume", "engine_restarted"]


def test_a_replaced_connection_is_closed_and_can_no_longer_disturb_the_seat() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock)
    old, new = FakeConn("a:1"), FakeConn("b:2")
    seat.attach(old, fresh=True)
    seat.send(request(1))
    seat.attach(new, fresh=False)
    assert old.closed is not None and old.closed[0] == CLOSE_REPLACED
    seat.deliver(old, '{"type":"action","id":1,"action":"draw"}')
    seat.detach(old, "closed")  # not the current connection: no disconnect
    assert not seat.has_input()
    assert seat.receive(clock()) is None
    seat.deliver(new, '{"type":"action","id":1,"action":"draw"}')
    assert isinstance(seat.receive(clock() + 1), Line)


def test_an_over_long_message_is_an_over_long_line() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock, max_line=100)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    seat.deliver(conn, '{"type":"log","message":"' + "x" * 200 + '"}')
    got = seat.receive(clock() + 1)
    assert isinstance(got, Overlong) and got.length > 100


def test_the_engine_exit_reported_by_the_client_is_an_eof() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    assert seat.exit_info(0) is None
    seat.deliver(conn, '{"type":"engine_exit","exit_code":3,"signal":null,"stderr_tail":"boom"}')
    assert isinstance(seat.receive(clock() + 1), Eof)
    info = seat.exit_info(0)
    assert info is not None and info.exit_code == 3
    assert seat.stderr_tail() == "boom"


def test_close_ends_the_seat_for_good() -> None:
    clock = FakeClock(0)
    seat, written = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    info = seat.close('{"type":"quit","reason":"match_over"}', 0)
    assert info.how == "closed"
    assert conn.sent[-1].startswith('{"type":"quit"')
    assert conn.closed is not None and conn.closed[0] == CLOSE_MATCH_OVER
    assert not seat.attach(FakeConn(), fresh=True)
    assert [f["event"] for _, f in written] == ["connect", "disconnect"]
    assert seat.close(None, 0).how == "disconnected"  # idempotent


def test_token_check() -> None:
    seat = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=1, token="s3cret")
    assert seat.token_ok("s3cret")
    assert not seat.token_ok("s3cre")
    assert not seat.token_ok(None)
    assert not seat.token_ok("\udcff")
    assert len(NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0).token) >= 32


def test_request_clock_spends_delay_then_bank() -> None:
    c = RequestClock(1000 * MILLISECOND, 5000 * MILLISECOND, 7000 * MILLISECOND, start=0)
    assert c.after(400 * MILLISECOND, 10).members() == {
        "delay_left_ms": 600,
        "bank_ms": 5000,
        "opponent_bank_ms": 7000,
        "deadline_ms": 5600,
    }
    after = c.after(3000 * MILLISECOND, 10)
    assert (after.delay_left_ns, after.bank_ns, after.start) == (0, 3000 * MILLISECOND, 10)
    assert c.after(10 * SECOND, 10).bank_ns == 0


def test_a_new_engine_gets_the_request_even_when_an_error_for_it_is_waiting() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    seat.send(request(5))
    seat.deliver(conn, '{"type":"action","id":5,"action":"bid 1"}')
    seat.detach(conn, "lost")
    seat.send('{"type":"error","id":5,"code":"illegal","message":"no"}')
    same = FakeConn()
    seat.attach(same, fresh=False)  # the same engine: the error says it all
    assert same.types() == ["welcome", "error"]
    seat.detach(same, "lost")
    seat.send('{"type":"error","id":5,"code":"illegal","message":"no"}')
    new = FakeConn()
    seat.attach(new, fresh=True)  # a new engine never saw request 5
    assert new.types() == ["welcome", "error", "request"]


def test_an_error_reaching_a_new_engine_comes_with_the_request() -> None:
    clock = FakeClock(0)
    seat, _ = make(clock)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    seat.send(request(6))
    seat.deliver(conn, '{"type":"action","id":6,"action":"bid 1"}')  # answered: not re-sent
    seat.detach(conn, "lost")
    new = FakeConn()
    seat.attach(new, fresh=True)
    assert new.types() == ["welcome"]
    seat.send('{"type":"error","id":6,"code":"illegal","message":"no"}')
    assert new.types() == ["welcome", "error", "request"]
    assert json.loads(new.sent[2])["id"] == 6
