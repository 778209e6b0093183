"""Each seat's CPU-time readings and its --freeze-idle hold, for the referee.

The referee holds one :class:`SeatMeters`: what it reads of each engine's CPU time
(for the transcript's reply lines) and how it stops and resumes the engine not on
move (``--freeze-idle``) change together, because with a freeze the mover's CPU
time at its request is read while it is still stopped.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Final

from ..players import Seat

NO_CPU: Final[tuple[int | None, int | None]] = (None, None)

CpuReader = Callable[[], int | None]
Hold = tuple[Callable[[], None], Callable[[], None]]  # (freeze, thaw)


def _hold_of(seat: Seat) -> Hold | None:
    """A seat's (freeze, thaw), or None for a seat that cannot be stopped (a person)."""
    freeze = getattr(seat, "freeze", None)
    thaw = getattr(seat, "thaw", None)
    if freeze is None or thaw is None:
        return None
    return freeze, thaw


class SeatMeters:
    """Each seat's CPU time (``Seat.cpu_ns``, None where a seat cannot tell) for the
    transcript's reply lines, and with --freeze-idle each seat's (freeze, thaw).

    The mover's CPU time is read just before its request is written (with
    --freeze-idle while it is still stopped) and when its reply is read.
    """

    __slots__ = ("holds", "readers", "req", "rest")

    def __init__(self, seats: Sequence[Seat], freeze_idle: bool) -> None:
        readers = [getattr(s, "cpu_ns", None) for s in seats]
        self.readers: list[CpuReader | None] | None = (
            readers if any(r is not None for r in readers) else None
        )
        self.rest: list[int | None] = [None, None]  # each seat's at its last reply (or hello)
        self.req: int | None = None  # the mover's, at its request (or last reply)
        # --freeze-idle: each seat's (freeze, thaw), where it has them
        self.holds: list[Hold | None] | None = [_hold_of(s) for s in seats] if freeze_idle else None

    def start(self) -> None:
        """The hellos are done: each engine's idle time counts from here, and with
        --freeze-idle both are stopped (nobody is on move before the first request)."""
        readers = self.readers
        if readers is not None:
            self.rest = [None if r is None else r() for r in readers]
        for hold in self.holds or ():
            if hold is not None:
                hold[0]()

    def before_request(self, p: int, reading: bool) -> None:
        """Seat ``p``'s request is about to be written: read its CPU time now
        (``reading``: the transcript wants CPU times), before the engine can start
        on it, so that nothing it does for the request counts as time off move.
        (Read after the write, the CPU an engine spent at once, while this thread
        waited for a core, was counted as idle: a non-pondering engine looked
        like it pondered.) --freeze-idle: stop the other seat, and let seat ``p``
        run after the reading (its time starts at the request's stamp as always);
        what the stopped one is sent meanwhile waits in its pipe (writes never
        block: what the pipe does not take is queued). (A seat is also stopped as
        soon as its reply is accepted, and both once the hellos are done;
        stopping a stopped seat costs nothing.)"""
        holds = self.holds
        other, own = (None, None) if holds is None else (holds[1 - p], holds[p])
        if other is not None:
            other[0]()
        if reading and self.readers is not None:
            self._at_request(p)
        if own is not None:
            own[1]()

    def _at_request(self, p: int) -> None:
        readers = self.readers
        assert readers is not None
        read = readers[p]
        self.req = None if read is None else read()

    def at_reply(self, p: int) -> tuple[int | None, int | None]:
        """What seat ``p`` used since its request (or its last rejected reply) and,
        before that, since its previous reply: its decision's CPU time and its CPU
        time while not on move (None where unknown)."""
        readers = self.readers
        read = None if readers is None else readers[p]
        if read is None:
            return NO_CPU
        now = read()
        req, rest = self.req, self.rest[p]
        # (never below 0: a child that left the engine's tree takes its time along)
        used = None if now is None or req is None else max(0, now - req)
        idle = None if req is None or rest is None else max(0, req - rest)
        self.rest[p] = self.req = now  # a retry's stretch starts here
        return used, idle

    def replied(self, p: int) -> None:
        """--freeze-idle: seat ``p``'s reply is accepted, it is stopped until its
        next request (even when that is its own next decision: the referee's work
        in between, e.g. a person's screen drawn, is nobody's time to think on)."""
        hold = None if self.holds is None else self.holds[p]
        if hold is not None:
            hold[0]()

    def thaw_all(self) -> None:
        """The match is over: both engines must run to read how it ended and their
        quit line (a stopped one would make the teardown wait for SIGKILL)."""
        for hold in self.holds or ():
            if hold is not None:
                with contextlib.suppress(Exception):
                    hold[1]()
