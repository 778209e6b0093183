"""A person at the terminal as one of the referee's seats.

The referee talks to a :class:`HumanSeat` exactly as to an engine seat: it
sends protocol lines (``bidref/1``) and receives lines stamped with its own
monotonic clock, under the same rules, clock and transcript. The seat decodes
what it is sent and hands it to the :class:`~bidref.tui.session.PlaySession`
that owns the terminal (two human seats share one session in hot-seat play);
in :meth:`receive` it waits for the person's entry up to the referee's absolute
deadline and answers with an ``action`` line.

How the clock stands still where RULES.md §7 says so: :meth:`send` returns the
clock time at which a request reached the person, and the referee starts the
player's time there. The session makes :meth:`send` return only once the person
has pressed Start/Continue (after a deal or an end-of-round count) or, in
hot-seat play, revealed their hand after the hand-over.

A resignation (Ctrl-C, confirmed) is a protocol ``resign`` line, read when
the referee waits for this player, as the protocol says: at once when the
person was asked for an action; at the next request when it was confirmed at a
pause, a hand-over or while the engine thought (the session keeps it pending
and asks nothing more). The referee ends the match as a loss by resignation
(end reason ``resign``) and the transcript is complete and replays.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from ..engines import Eof, ExitInfo, Incoming, Line
from ..protocol import (
    PROTOCOL_VERSION,
    ActionMsg,
    EngineHello,
    ErrorMsg,
    EventMsg,
    Ping,
    Pong,
    ProtocolError,
    Quit,
    RefereeHello,
    Request,
    Resign,
    RulesAnswer,
    decode_referee_line,
    encode,
)
from ..rules.clock import MILLISECOND
from ..tui.session import PlaySession, Resigned
from . import Seat, SeatResigned
from .abilities import SeatAbilities, abilities_of

log = logging.getLogger(__name__)

RESIGNED = "resigned"


class HumanSeat:
    """Seat ``seat`` (0 = A, 1 = B) played by a person through ``session``."""

    def __init__(
        self,
        session: PlaySession,
        seat: int,
        name: str = "human",
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.session = session
        self.seat = seat
        self.name = name
        self.clock = clock or session.clock
        self._outbox: list[str] = []
        self._request: Request | None = None
        self._resigned = False
        self._closed = False

    @property
    def resigned(self) -> bool:
        return self._resigned

    # -- the Seat interface --------------------------------------------------------------

    def open(self) -> None:
        """Nothing to start: the session owns the terminal."""

    def send(self, text: str) -> int:
        if self._resigned:
            raise SeatResigned(f"player {'AB'[self.seat]} resigned")
        events: list[dict[str, Any]] = []
        started: int | None = None
        for raw in text.split("\n"):
            if not raw.strip():
                continue
            try:
                msg = decode_referee_line(raw)
            except ProtocolError as e:  # the referee is ours: this is a bug
                log.error("human seat %d cannot read %r: %s", self.seat, raw, e)
                continue
            if isinstance(msg, EventMsg):
                events.append(msg.event)
                continue
            if events:
                self.session.on_events(self.seat, events)
                events = []
            started = self._handle(msg)
        if events:
            self.session.on_events(self.seat, events)
        # For a request: the moment it reached the person (after any hand-over).
        return started if started is not None else self.clock()

    def _handle(self, msg: object) -> int | None:
        """Act on one message; for a request, return when the person's time starts."""
        s = self.session
        if isinstance(msg, RefereeHello):
            s.on_hello(self.seat, msg.settings.bank_ms, msg.settings.delay_ms)
            self._outbox.append(
                encode(
                    EngineHello(name=self.name, author="", version="", protocol=PROTOCOL_VERSION)
                )
            )
        elif isinstance(msg, Request):
            self._request = msg
            c = msg.clock
            return s.on_request(
                self.seat, msg.view, msg.legal, c.delay_left_ms, c.bank_ms, c.opponent_bank_ms
            )
        elif isinstance(msg, ErrorMsg):
            s.on_error(self.seat, msg.message)
        elif isinstance(msg, Ping):
            self._outbox.append(encode(Pong(id=msg.id)))
        elif isinstance(msg, Quit):
            self._request = None
            s.on_quit(self.seat)
        elif isinstance(msg, RulesAnswer):
            pass  # the session shows the rules itself; never asked through the referee
        return None

    def receive(self, deadline: int | None) -> Incoming | None:
        if self._outbox:
            return Line(self._outbox.pop(0), self.clock())
        if self._resigned or self._closed:
            return Eof(self.clock())
        req = self._request
        if req is not None and self.session.resign_pending == self.seat:
            self._resigned = True
            self._request = None
            return Line(encode(Resign(message="resigned at the terminal")), self.clock())
        if req is None:
            # Nothing asked, so a person has nothing to say (the referee reads a seat
            # only after a hello or a request; this is never reached in a match).
            return None
        try:
            answer = self.session.ask(self.seat, deadline if deadline is not None else 2**62)
        except Resigned:
            self._resigned = True
            self._request = None
            return Line(encode(Resign(message="resigned at the terminal")), self.clock())
        if answer is None:
            return None
        return Line(encode(ActionMsg(id=req.id, action=answer.action)), answer.t)

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        if self._resigned:
            return ExitInfo(0, None, RESIGNED)
        if self._closed:
            return ExitInfo(0, None, "quit")
        return None

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        self._closed = True
        return ExitInfo(0, None, RESIGNED if self._resigned else "quit")

    def stderr_tail(self) -> str:
        return ""

    def stderr_bytes(self) -> int:
        return 0

    def describe(self) -> dict[str, object]:
        return {
            "name": self.name,
            "kind": "human",
            "hot_seat": self.session.hot_seat,
            "stderr_log": None,
        }


class WatchedEngineSeat:
    """An engine's seat whose waits also watch the person's keys.

    While the referee waits for the engine (its thinking time), :meth:`receive`
    waits in short slices and lets the session take what the person typed in
    between (:meth:`PlaySession.watch`), so that a Ctrl-C is answered at once
    instead of at the person's next turn. The engine's lines and their time
    stamps are the engine seat's own: slicing the wait changes nothing the
    referee sees. Everything else is the engine seat's.
    """

    def __init__(self, seat: Seat, session: PlaySession, slice_ns: int = 100 * MILLISECOND) -> None:
        self.seat = seat
        self.session = session
        self.name = seat.name
        self.slice_ns = slice_ns
        # (as before this record existed, the engine's note of its descendants
        # and its stderr settling are not passed on: only what the referee's
        # meters, --freeze-idle and the jail's limits read)
        self._abilities = dataclasses.replace(
            abilities_of(seat),
            before_end=None,
            settle_stderr=None,
            disconnected_at=None,
            watch_connection=None,
        )

    def open(self) -> None:
        self.seat.open()

    def send(self, text: str) -> int:
        return self.seat.send(text)

    def receive(self, deadline: int | None) -> Incoming | None:
        while True:
            step = self.session.clock() + self.slice_ns
            if deadline is not None and deadline <= step:
                return self.seat.receive(deadline)
            got = self.seat.receive(step)
            if got is not None:
                return got
            self.session.watch()

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        return self.seat.exit_info(wait_ns)

    def abilities(self) -> SeatAbilities:
        """The engine seat's (bidref/players/abilities.py): its input check, CPU
        time and run-queue figures, --freeze-idle's holds and its jail's limits."""
        return self._abilities

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        return self.seat.close(quit_line, grace_ns)

    def stderr_tail(self) -> str:
        return self.seat.stderr_tail()

    def stderr_bytes(self) -> int:
        return self.seat.stderr_bytes()

    def describe(self) -> dict[str, object]:
        return self.seat.describe()
