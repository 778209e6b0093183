"""A seat's optional abilities, resolved once into a typed record (bidref/players/abilities.py).

The referee, its meters, the session and the ending read that record instead of
probing a seat with getattr (tests/test_architecture.py forbids the probes).
"""

from __future__ import annotations

import io
from typing import Any

from bidref.engines import ExitInfo, Incoming
from bidref.match.meters import SeatMeters
from bidref.match.session import EngineSession
from bidref.players.abilities import SeatAbilities, abilities_of
from bidref.players.human import WatchedEngineSeat
from bidref.players.tap import DebugLog, TappedSeat
from bidref.testing import FakeClock


class PlainSeat:
    """Only the Seat interface: no optional ability at all."""

    name = "plain"

    def open(self) -> None: ...

    def send(self, text: str) -> int:
        return 0

    def receive(self, deadline: int | None) -> Incoming | None:
        return None

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        return None

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        return ExitInfo(0, None, "exited")

    def stderr_tail(self) -> str:
        return ""

    def stderr_bytes(self) -> int:
        return 0

    def describe(self) -> dict[str, object]:
        return {"name": self.name}


class SomeSeat(PlainSeat):
    """Some abilities: its input, its CPU time, its run-queue figures; a freeze
    without a thaw (so it cannot be held); no jail, no connection."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def has_input(self) -> bool:
        return True

    def cpu_ns(self) -> int | None:
        self.calls.append("cpu_ns")
        return 7

    def wait_sample(self) -> dict[int, tuple[int, int]] | None:
        return {1: (0, 0)}

    def cores(self) -> int | None:
        return 2

    def freeze(self) -> None:
        self.calls.append("freeze")


def test_a_seat_with_only_the_interface_has_no_ability() -> None:
    assert abilities_of(PlainSeat()) == SeatAbilities()


def test_each_ability_is_the_seats_own_method_and_the_rest_none() -> None:
    seat = SomeSeat()
    has = abilities_of(seat)
    assert has.has_input == seat.has_input and has.cpu_ns == seat.cpu_ns
    assert has.wait_sample == seat.wait_sample and has.cores == seat.cores
    absent = (
        has.before_end,
        has.priority_lowered,
        has.runnable_tasks,
        has.freeze,  # (a freeze without a thaw: the two are one ability, Freezes)
        has.thaw,
        has.breach,
        has.settle_stderr,
        has.disconnected_at,
        has.watch_connection,
    )
    assert absent == (None,) * len(absent)


def test_the_meters_hold_only_a_seat_that_can_be_frozen_and_thawed() -> None:
    seat = SomeSeat()
    meters = SeatMeters([abilities_of(seat), abilities_of(PlainSeat())], True, FakeClock())
    assert meters.holds == [None, None]  # a freeze without a thaw holds nothing
    meters.start()
    assert seat.calls == ["cpu_ns"]  # its CPU time read at the start, nothing frozen
    assert meters.cores[0] is not None and meters.cores[0]() == 2 and meters.cores[1] is None


def test_a_session_resolves_its_seat_once() -> None:
    seat = SomeSeat()
    sess = EngineSession(seat, 0, FakeClock(), None, None)  # type: ignore[arg-type]
    seat.has_input = lambda: False  # type: ignore[method-assign]
    # (read at construction: what the seat grows later is not seen)
    assert sess.abilities.has_input is not None and sess.abilities.has_input() is True


def test_a_wrapper_hands_over_its_inner_seats_abilities() -> None:
    inner = SomeSeat()
    session: Any = None  # (the watch needs it to receive only)
    watched = abilities_of(WatchedEngineSeat(inner, session))
    assert watched.cpu_ns == inner.cpu_ns and watched.has_input == inner.has_input
    tapped = abilities_of(TappedSeat(WatchedEngineSeat(inner, session), DebugLog(io.StringIO())))
    assert tapped == watched  # a tap over a wrapper: the wrapper's record as it is
    assert abilities_of(TappedSeat(PlainSeat(), DebugLog(io.StringIO()))) == SeatAbilities()
