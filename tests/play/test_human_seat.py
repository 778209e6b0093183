"""The human seat speaks protocol bidref/1 with the referee, line by line."""

from __future__ import annotations

import json

import pytest

from bidref.engines import Eof, Line
from bidref.match.wire import request_line
from bidref.players import SeatResigned
from bidref.players.human import HumanSeat
from bidref.protocol import ErrorMsg, Ping, Quit, RefereeHello, Settings, encode
from bidref.rules import SECOND, Match, MatchClock, TimeControl
from bidref.tui.screen import Clocks, ScreenModel
from bidref.tui.session import PlaySession

from .fakes import FakeClock, RecordingDisplay, ScriptKeys

T0 = 1_000 * SECOND


def _seat(script: list[tuple[int, str]]) -> tuple[FakeClock, RecordingDisplay, HumanSeat]:
    clock = FakeClock(T0)
    display = RecordingDisplay(clock)
    display.show(ScreenModel(names=("a", "b"), clocks=Clocks((0, 0), 0)))
    session = PlaySession(
        keys=ScriptKeys(clock, script),
        display=display,
        clock=clock,
        humans=[0],
        names=("human", "engine"),
    )
    return clock, display, HumanSeat(session, 0)


def test_hello_ping_request_error_quit() -> None:
    _clock, display, seat = _seat([(T0 + 2 * SECOND, "zz\n"), (T0 + 3 * SECOND, "1\n")])
    settings = Settings(
        bank_ms=60_000, delay_ms=5_000, max_rounds=None, illegal="reject", startup_ms=10_000
    )
    seat.send(
        encode(RefereeHello(bidref="0", rules="spectacular-bid/1", seat=0, settings=settings))
    )
    hello = seat.receive(T0 + SECOND)
    assert isinstance(hello, Line) and json.loads(hello.text)["type"] == "hello"
    seat.send(encode(Ping(id=7)))
    pong = seat.receive(T0 + SECOND)
    assert isinstance(pong, Line) and json.loads(pong.text) == {"type": "pong", "id": 7}

    m = Match.new(seed=2)
    mc = MatchClock.start(TimeControl.of_seconds(60, 5)).begin(m.to_act, m.turn)
    started = seat.send(request_line(m, 1, mc))
    assert started == T0
    reply = seat.receive(T0 + 65 * SECOND)
    assert isinstance(reply, Line) and reply.t == T0 + 3 * SECOND
    assert json.loads(reply.text) == {
        "type": "action",
        "id": 1,
        "action": str(m.legal_actions()[0]),
    }
    assert any("'zz' is not an action" in mo.ask.message for mo in display.models)
    # The referee's error reply is shown (the request stays pending).
    seat.send(encode(ErrorMsg(id=1, code="illegal", message="illegal action 'x'", rule="§5")))
    assert display.last.ask.message == "illegal action 'x'"
    seat.send(encode(Quit()))
    assert seat.close(None, 0).how == "quit"
    assert seat.describe()["kind"] == "human"


def test_resigned_seat_is_gone() -> None:
    _clock, _, seat = _seat([(T0 + SECOND, "\x03"), (T0 + 2 * SECOND, "y\n")])
    m = Match.new(seed=2)
    mc = MatchClock.start(TimeControl.of_seconds(60, 5)).begin(m.to_act, m.turn)
    seat.send(request_line(m, 1, mc))
    got = seat.receive(T0 + 60 * SECOND)
    assert isinstance(got, Line) and json.loads(got.text)["type"] == "resign"
    assert isinstance(seat.receive(T0 + 60 * SECOND), Eof)
    info = seat.exit_info(0)
    assert info is not None and info.how == "resigned"
    with pytest.raises(SeatResigned):
        seat.send(encode(Ping(id=1)))
