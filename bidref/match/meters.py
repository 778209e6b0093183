"""Each seat's CPU-time readings and its --freeze-idle hold, for the referee.

The referee holds one :class:`SeatMeters`: what it reads of each engine's CPU time
(for the transcript's reply lines) and how it stops and resumes the engine not on
move (``--freeze-idle``) change together, because with a freeze the mover's CPU
time at its request is read while it is still stopped.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Final

from ..engines import Clock
from ..engines.schedwait import Sample, between, unseen_ns
from ..outcome.excuse import MachineWait
from ..players.abilities import SeatAbilities

# (CPU time of the decision, CPU time while not on move, run-queue wait of the decision)
NO_CPU: Final[tuple[int | None, int | None, int | None]] = (None, None, None)

CpuReader = Callable[[], int | None]
WaitReader = Callable[[], Sample | None]
Hold = tuple[Callable[[], None], Callable[[], None]]  # (freeze, thaw)


def _hold_of(seat: SeatAbilities) -> Hold | None:
    """A seat's (freeze, thaw), or None for a seat that cannot be stopped (a person)."""
    freeze, thaw = seat.freeze, seat.thaw
    if freeze is None or thaw is None:
        return None
    return freeze, thaw


class SeatMeters:
    """Each seat's CPU time (``Seat.cpu_ns``, None where a seat cannot tell) for the
    transcript's reply lines, and with --freeze-idle each seat's (freeze, thaw).

    The mover's CPU time is read just before its request is written (with
    --freeze-idle while it is still stopped) and when its reply is read.
    """

    __slots__ = (
        "clock",
        "cores",
        "holds",
        "lowered",
        "readers",
        "req",
        "rest",
        "runnable",
        "waits",
        "wreq",
    )

    def __init__(
        self,
        seats: Sequence[SeatAbilities],
        freeze_idle: bool,
        clock: Clock = time.monotonic_ns,
    ) -> None:
        self.clock = clock
        self.runnable: list[Callable[[], set[int]] | None] = [s.runnable_tasks for s in seats]
        # the run-queue counters of each seat's tasks (schedwait.py), and its CPUs
        self.waits: list[WaitReader | None] = [s.wait_sample for s in seats]
        self.cores: list[Callable[[], int | None] | None] = [s.cores for s in seats]
        self.lowered: list[Callable[[], bool] | None] = [s.priority_lowered for s in seats]
        self.wreq: tuple[int, Sample] | None = None  # the mover's, when read at its request
        readers = [s.cpu_ns for s in seats]
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
        if holds is not None:  # (read while stopped; else after the write)
            self._wait_at_request(p)
        if own is not None:
            own[1]()

    def after_request(self, p: int) -> None:
        """Seat ``p``'s request has just been written: read its run-queue counters
        (always: the clock's excuse needs them), unless they were read while it
        was stopped. (Read after the write, off the critical path: a wait that
        begins with the write is added to them only when it ends, so what is
        read now does not hold it. Its CPU time was read before the write:
        :meth:`before_request`.)"""
        if self.holds is None:
            self._wait_at_request(p)

    def _at_request(self, p: int) -> None:
        readers = self.readers
        assert readers is not None
        read = readers[p]
        self.req = None if read is None else read()

    def _wait_at_request(self, p: int) -> None:
        read = self.waits[p]
        sample = None if read is None else read()
        self.wreq = None if sample is None else (self.clock(), sample)

    def machine(self, p: int) -> MachineWait | None:
        """Seat ``p``'s figures from its request (or its last rejected reply) to now,
        for the clock's excuse (bidref/outcome/excuse.py); None where unknown."""
        read, cores_of, wreq = self.waits[p], self.cores[p], self.wreq
        if read is None or cores_of is None or wreq is None:
            return None
        cpu_read = None if self.readers is None else self.readers[p]
        cpu_now = None if cpu_read is None else cpu_read()
        now = read()
        cores = cores_of()
        if now is None or cores is None:
            return None
        t = self.clock()
        # (read after the counters: a task queued since is seen runnable)
        runnable = self.runnable[p]
        running = set() if runnable is None else runnable()
        w = between(wreq[1], now)
        req = self.req
        cpu = None if cpu_now is None or req is None else max(0, cpu_now - req)
        low = self.lowered[p]
        lowered = low is not None and low()
        window = t - wreq[0]
        # (one task cannot have waited longer than the window: a task missing from
        # the first reading counts from 0, its whole life; never excuse more)
        top = min(w.wait_max_ns, window)
        unseen = unseen_ns(wreq[1], now, running, window)
        return MachineWait(
            window, w.wait_ns, top, w.run_ns, cpu, w.tasks, cores, lowered, unseen_ns=unseen
        )

    def at_reply(self, p: int) -> tuple[int | None, int | None, int | None]:
        """What seat ``p`` used since its request (or its last rejected reply) and,
        before that, since its previous reply: its decision's CPU time, its CPU
        time while not on move, and its tasks' run-queue wait in the decision
        (None where unknown)."""
        waited = self._wait_at_reply(p)
        readers = self.readers
        read = None if readers is None else readers[p]
        if read is None:
            return (None, None, waited)
        now = read()
        req, rest = self.req, self.rest[p]
        # (never below 0: a child that left the engine's tree takes its time along)
        used = None if now is None or req is None else max(0, now - req)
        idle = None if req is None or rest is None else max(0, req - rest)
        self.rest[p] = self.req = now  # a retry's stretch starts here
        return used, idle, waited

    def _wait_at_reply(self, p: int) -> int | None:
        read, wreq = self.waits[p], self.wreq
        if read is None or wreq is None:
            return None
        now = read()
        if now is None:
            return None
        self.wreq = (self.clock(), now)  # a retry's stretch starts here
        return between(wreq[1], now).wait_ns

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
