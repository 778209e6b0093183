"""The live table of `bidref match` shows a network seat's connection, read
afresh at every redraw: a client that drops between two actions shows as
disconnected at once, with for how long (issue 29 item 14). Fake connections,
a fake clock."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console

from bidref.cli.match_cmd import LiveMatchView
from bidref.match.spec import LiveState
from bidref.net.framing import ListenAddress
from bidref.net.seat import Link, NetworkSeat
from bidref.rules import MILLISECOND, SECOND
from bidref.testing import FakeClock
from tests.net.test_seat import FakeConn


def _shown(view: LiveMatchView) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(view)
    return console.export_text()


def _state() -> LiveState:
    return LiveState(
        engines=("remote-engine", "c_first"),
        round=1,
        turn=3,
        balances=(150, 150),
        banks_ns=(10 * SECOND, 10 * SECOND),
        delay_ns=SECOND,
        to_act=0,
        last="B: play 1-3 1-1:line_a",
        decisions=3,
    )


def test_the_seat_says_whether_a_client_holds_it_and_since_when() -> None:
    clock = FakeClock(1_000 * SECOND)
    seat = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, clock=clock)
    assert seat.link() == Link(connected=False, since=None, connections=0)
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    assert seat.link() == Link(True, 1_000 * SECOND, 1)
    clock.advance(2 * SECOND)
    seat.detach(conn, "connection lost")
    assert seat.link() == Link(False, 1_002 * SECOND, 1)
    clock.advance(SECOND)
    seat.attach(FakeConn(), fresh=False)
    assert seat.link() == Link(True, 1_003 * SECOND, 2)


def test_the_live_table_shows_a_disconnection_between_two_actions() -> None:
    clock = FakeClock(50 * SECOND)
    seat = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, clock=clock)
    view = LiveMatchView((seat, None))
    assert "waiting for its client" in _shown(view)  # before the match starts
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    view.update(_state())
    shown = _shown(view)
    assert "network" in shown and "connected" in shown and "local" in shown
    clock.advance(SECOND)
    seat.detach(conn, "connection lost")
    clock.advance(3200 * MILLISECOND)
    # no new report from the referee: the next redraw shows it all the same
    row_a = next(ln for ln in _shown(view).splitlines() if "remote-engine" in ln)
    assert "disconnected for 3.2 s" in row_a
    clock.advance(SECOND)
    assert "disconnected for 4.2 s" in _shown(view)
    seat.attach(FakeConn(), fresh=False)
    assert "connected (again, 2x)" in _shown(view)
    seat.close(None, 0)  # the match is over: not a disconnection to worry about
    assert "closed: the match is over" in _shown(view)
    assert "disconnected" not in _shown(view)


def test_a_match_of_local_engines_has_no_network_column() -> None:
    view = LiveMatchView((None, None))
    assert _shown(view).strip() == ""
    view.update(_state())
    shown = _shown(view)
    assert "c_first" in shown and "network" not in shown and "connected" not in shown


def _row(view: LiveMatchView, name: str) -> str:
    return next(ln for ln in _shown(view).splitlines() if name in ln)


def test_the_bank_of_a_disconnected_seat_on_move_runs_down_between_reports() -> None:
    # (issue 35, item 6: it stood at 30.00 s, then jumped to 21.77 s at the reconnect)
    clock = FakeClock(50 * SECOND)
    seat = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, clock=clock)
    view = LiveMatchView((seat, None))
    conn = FakeConn()
    seat.attach(conn, fresh=True)
    view.update(replace(_state(), banks_ns=(30 * SECOND, 30 * SECOND)))  # A to act
    assert "30.00 s" in _row(view, "remote-engine")
    seat.detach(conn, "connection lost")
    clock.advance(9_230 * MILLISECOND)  # the delay (1 s), then 8.23 s of its bank
    row = _row(view, "remote-engine")
    assert "21.77 s" in row and "disconnected for 9.2 s" in row
    assert "30.00 s" in _row(view, "c_first")  # not on move: its bank stands
    clock.advance(60 * SECOND)
    assert " 0.00 s" in _row(view, "remote-engine")  # never below nothing


def test_before_the_engines_connect_the_table_shows_names_balances_and_banks() -> None:
    from bidref.cli.match_cmd import waiting_state
    from bidref.engines import EngineSpec
    from bidref.match.referee import MatchSpec
    from bidref.rules import TimeControl

    clock = FakeClock(50 * SECOND)
    seat = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, clock=clock)
    spec = MatchSpec(
        engines=(EngineSpec("remote", ("x",)), EngineSpec("c_first", ("x",))),
        seed=1,
        time_control=TimeControl.of_seconds(120, 10),
    )
    view = LiveMatchView((seat, None), waiting=waiting_state(spec, ("remote", "c_first")))
    for name in ("remote", "c_first"):
        row = _row(view, name)
        assert "150" in row and "120.00 s" in row, row
    assert "waiting for the engines" in _shown(view)
