"""The referee's seats: who sits in seat 0 (player A) and seat 1 (player B).

A **seat** is a line-level, timed connection to one player. The protocol
(``bidref/1``: ids, stale replies, rules help, logs, the judged wait for a
reply) is the seat's :class:`~bidref.match.session.EngineSession`, the rules and the
clock are the referee's; a seat only moves protocol lines and stamps incoming
ones with the referee's monotonic clock. (The shape of this interface is
unchanged: a class written for it before sessions existed still works.) Any player that can
speak protocol lines can sit in a seat — an engine process
(:class:`EngineSeat`), or, later, a human behind a terminal UI.

The :class:`Seat` interface (implement all of it for a new kind of seat; the
methods marked optional are declared in :mod:`bidref.players.abilities`, resolved
once per seat, and a seat that wraps another hands over its inner seat's with
``abilities()``)::

    name: str                      # a label for results (the engine's hello name may replace it)
    def open(self) -> None         # start the player (process, UI, …); raise SeatStartError
    def send(self, text: str) -> int
        # Deliver protocol lines to the player: ``text`` is one line, or several
        # joined by "\n" (the referee batches events with the next request), with
        # no final newline. Return the clock time (ns) taken *before* any of it
        # could reach the player: for a request (always the last line) the
        # player's time starts there. Never block for long (an engine seat queues
        # what the pipe does not take, capped). Raise SeatGone if the player can
        # no longer receive.
    def receive(self, deadline: int | None) -> Incoming | None
        # The next line from the player as Line(text, t, after): ``t`` the clock
        # time it was read, ``after`` the start of the last look before it that
        # found nothing (None: ``t`` is exact, e.g. a person's input stamped as
        # it is entered). Overlong(...) for a line over the limit, Eof(t) when
        # the player is gone. None only after a look that started at or after
        # ``deadline`` (absolute ns) found nothing: lines already there are
        # always returned first, even past the deadline. Lines the player sent
        # while it was not asked anything are queued, never dropped, in order.
    def before_end(self) -> None    # optional: called once the match is over,
        # just after the player is told, before quit (e.g. to note an engine's processes)
    def has_input(self) -> bool     # optional
        # True when the player has sent a complete line (or is gone) that receive()
        # has not returned yet (an engine seat reads and stamps bytes already in the
        # pipe right away; the start of a line is not input yet).
        # The referee prepares the next steps while a player thinks and stops as
        # soon as this is true; for a seat without it, it prepares nothing.
    def exit_info(self, wait_ns: int) -> ExitInfo | None
        # How the player ended, waiting up to wait_ns; None if it is still there.
    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo
        # Send quit_line (if any), give the player grace_ns to leave, then end it for
        # good (for a process: SIGTERM, SIGKILL to its group, reap). Idempotent.
    def cpu_ns(self) -> int | None   # optional
        # User + system time (ns) of everything the player has run so far, or None
        # where unknown (a person, a network seat). Read at decision boundaries.
    def wait_sample(self) -> dict[int, tuple[int, int]] | None   # optional
    def cores(self) -> int | None                                # optional
    def priority_lowered(self) -> bool                           # optional
    def runnable_tasks(self) -> set[int]                         # optional
        # An engine's tasks' run-queue counters (bidref/engines/schedwait.py) and
        # how many CPUs it may use (and whether it lowered its own priority): the
        # machine's wait, for the clock's excuse
        # (bidref/outcome/excuse.py). Read at decision boundaries, and at a deadline.
    def freeze(self) -> None / def thaw(self) -> None   # optional (--freeze-idle)
        # Stop the player while it is not on move / let it run again (an engine:
        # its process group gets SIGSTOP / SIGCONT, or its jail is frozen).
    def stderr_tail(self) -> str   # the last diagnostics (for crash reports), or ""
    def breach(self, info: ExitInfo | None) -> Breach | None   # optional
        # A player that ended (as ``info``) in a jail: the limit it ran into, if any
        # (an engine seat asks its jail: bidref/sandbox/breach.py).
    def settle_stderr(self, timeout_ns: int) -> None   # optional
        # Once the player has exited, wait (bounded) until all its diagnostics are read.
    def stderr_bytes(self) -> int
    def disconnected_at(self) -> int | None   # optional
        # A seat behind a connection (a network seat): the clock time its client
        # left, None while one is connected. A time loss says so.
    def describe(self) -> dict[str, object]   # for the transcript header

A human seat would, in ``send``, decode the line (``decode_referee_line``) and
show it; in ``receive``, wait for the person's input up to the deadline and
return it encoded as an ``action`` line (``encode(ActionMsg(...))``) stamped
with the clock time it was entered. Its ``close`` just closes the UI.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bidref.errors import BidrefError

from ..engines import (
    Clock,
    EngineSpec,
    EngineStartError,
    ExitInfo,
    Incoming,
    IoGroup,
    JailStartError,
    Transport,
    WriteError,
    start_engine,
)
from ..engines.framing import MAX_LINE

if TYPE_CHECKING:
    from ..engines.cputime import Jail
    from ..sandbox.breach import Breach


class SeatStartError(BidrefError):
    """The player could not be started; the message says why."""


class SeatSetupError(SeatStartError):
    """The referee could not set a seat up (its engine's jail): the referee's fault."""


class SeatGone(Exception):
    """A line could not be delivered: the player is gone or stopped reading."""


class SeatResigned(SeatGone):
    """The player resigned while being told something (e.g. a person at a pause).

    A seat that resigns while the referee waits for it sends a ``resign`` line
    instead; either way the match ends as a loss by resignation.
    """


class Seat(Protocol):
    """See the module docstring for the contract of each method."""

    name: str

    def open(self) -> None: ...

    def send(self, text: str) -> int: ...

    def receive(self, deadline: int | None) -> Incoming | None: ...

    def exit_info(self, wait_ns: int) -> ExitInfo | None: ...

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo: ...

    def stderr_tail(self) -> str: ...

    def stderr_bytes(self) -> int: ...

    def describe(self) -> dict[str, object]: ...


class EngineSeat:
    """An engine process in a seat, over the pipe or pty transport."""

    def __init__(
        self,
        spec: EngineSpec,
        *,
        transport: str = "pipe",
        clock: Clock = time.monotonic_ns,
        stderr_log: Path | None = None,
        max_line: int = MAX_LINE,
        group: IoGroup | None = None,
    ) -> None:
        self.spec = spec
        self.group = group
        self.name = spec.name
        self.transport_name = transport
        self.clock = clock
        self.stderr_log = stderr_log
        self.max_line = max_line
        self._t: Transport | None = None

    def open(self) -> None:
        try:
            self._t = start_engine(
                self.spec,
                self.transport_name,
                clock=self.clock,
                stderr_log=self.stderr_log,
                max_line=self.max_line,
                group=self.group,
            )
        except JailStartError as e:
            raise SeatSetupError(str(e)) from None
        except (EngineStartError, ValueError, OSError) as e:
            raise SeatStartError(str(e)) from None

    @property
    def transport(self) -> Transport:
        if self._t is None:
            raise RuntimeError("open() the seat first")
        return self._t

    @property
    def pid(self) -> int | None:
        return None if self._t is None else self._t.pid

    @property
    def jail(self) -> Jail | None:
        """The engine's jail (its limits, its record, its freezer), once it runs in one."""
        return None if self._t is None else self._t.jail

    def send(self, text: str) -> int:
        t = self._t  # (not the property: this is the referee's hot path)
        if t is None:
            raise RuntimeError("open() the seat first")
        try:
            return t.write_line(text)
        except WriteError as e:
            raise SeatGone(str(e)) from None

    def receive(self, deadline: int | None) -> Incoming | None:
        t = self._t
        if t is None:
            raise RuntimeError("open() the seat first")
        return t.read(deadline)

    def has_input(self) -> bool:
        return self._t is not None and self._t.has_input()

    def cpu_ns(self) -> int | None:
        t = self._t
        return None if t is None else t.cpu_ns()

    def wait_sample(self) -> dict[int, tuple[int, int]] | None:
        """The run-queue counters of the engine's tasks (bidref/engines/schedwait.py)."""
        t = self._t
        return None if t is None else t.wait_sample()

    def cores(self) -> int | None:
        t = self._t
        return None if t is None else t.cores()

    def priority_lowered(self) -> bool:
        t = self._t
        return t is not None and t.priority_lowered()

    def runnable_tasks(self) -> set[int]:
        t = self._t
        return set() if t is None else t.runnable_tasks()

    def freeze(self) -> None:
        if self._t is not None:
            self._t.freeze()

    def thaw(self) -> None:
        if self._t is not None:
            self._t.thaw()

    def before_end(self) -> None:
        """The match is over: note what close() must end besides the process group
        (children that left it), before the engine is sent its quit line (it has
        just been told how the match ended: bidref/match/ending.py)."""
        if self._t is not None:
            self._t.note_descendants()

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        if self._t is None:
            return None
        return self._t.wait_exit(wait_ns) if wait_ns > 0 else self._t.poll_exit()

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        if self._t is None:
            return ExitInfo(None, None, "not_started")
        return self._t.close(quit_line, grace_ns)

    def stderr_tail(self) -> str:
        return "" if self._t is None else self._t.stderr_tail()

    def breach(self, info: ExitInfo | None) -> Breach | None:
        """The jail limit this engine, which ended as ``info`` (None: it closed its
        stdout but runs on), ran into, or None (bidref/sandbox/breach.py)."""
        jail = self.jail
        if jail is None:
            return None
        code, sig = (None, None) if info is None else (info.exit_code, info.signal)
        return jail.breach(code, sig, self.stderr_tail())

    def settle_stderr(self, timeout_ns: int) -> None:
        if self._t is not None:
            self._t.settle_stderr(timeout_ns)

    def stderr_bytes(self) -> int:
        return 0 if self._t is None else self._t.stderr_bytes()

    def describe(self) -> dict[str, object]:
        d: dict[str, object] = {
            **self.spec.describe(),
            "transport": self.transport_name,
            "stderr_log": None if self.stderr_log is None else str(self.stderr_log),
        }
        # what the jail gives this seat (bidref/sandbox/spec.py): before the start (the
        # transcript header) as planned, after it as made (its account's uid too)
        jail = self.jail
        if jail is not None:
            d["jail"] = jail.record()
        elif self._t is None:
            from ..engines.contain import ENV_KEY, token
            from ..sandbox.jail import preview

            s = self.spec
            planned = preview(s.command, s.cwd, s.jail_config(), s.env, (ENV_KEY, token()))
            if planned is not None:
                d["jail"] = planned
        return d


__all__ = ["EngineSeat", "Seat", "SeatGone", "SeatResigned", "SeatSetupError", "SeatStartError"]
