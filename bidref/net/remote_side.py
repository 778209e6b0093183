"""What a network seat knows of its remote side: the client and its engine.

A :class:`RemoteSide` holds the client connection that has the seat (if any),
which engine is behind it, the engine's hello, the request the player has to
answer (:class:`Pending`), the lines written while nobody was connected, and
the exit the client reported. The seat changes it only under its lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol

from ..engines import ExitInfo
from .framing import RequestClock, message_type, parse_object, with_clock

UNDELIVERED_CAP: Final = 4 << 20  # characters written while no client was connected


class Conn(Protocol):
    """One authenticated client connection, as the seat sees it."""

    peer: str

    def send(self, text: str) -> None:
        """Queue one message for the client (never blocks the referee)."""

    def close(self, code: int, reason: str) -> None: ...


@dataclass
class Pending:
    """The request the player has to answer, as the seat last wrote it."""

    id: object
    line: str
    clock: RequestClock | None
    engine: int  # the engine (see RemoteSide.take) that has it; 0: none yet
    answered_at: int | None = None  # arrival of a reply to it (an error clears it)

    def current(self, now: int) -> str:
        """The request with the clock as it is ``now``."""
        if self.clock is None:
            return self.line
        return with_clock(self.line, self.clock.after(now - self.clock.start, now))


class RemoteSide:
    """The seat's client and the engines behind it; see the module docstring."""

    def __init__(self) -> None:
        self.conn: Conn | None = None
        self.connections = 0
        self.gone_at: int | None = None  # when the last client left (None: one is here)
        self.hello_answered = False
        self.exit: ExitInfo | None = None
        self.stderr = ""
        self._engine = 0  # counts the engines behind the seat: +1 for each fresh client
        self._hello: str | None = None
        self._pending: Pending | None = None
        self._undelivered: list[str] = []
        self._undelivered_chars = 0

    def drop(self, t: int) -> None:
        """The client has gone (closed, lost, dropped for a cap) at clock time ``t``."""
        self.conn = None
        self.gone_at = t

    # -- a client comes -----------------------------------------------------------------

    def take(self, conn: Conn, fresh: bool) -> Conn | None:
        """``conn`` takes the seat; returns the connection it replaces. A fresh
        client (or the first) brings a new engine."""
        old = self.conn
        self.conn = conn
        self.gone_at = None
        self.connections += 1
        if fresh or self.connections == 1:
            self._engine += 1
        return old

    def catch_up(self, fresh: bool, now: int) -> list[str]:
        """What the client that just took the seat missed: the hello (to a fresh
        client, or when it is not answered yet), the lines written while nobody
        was connected, and the pending request with the clock as it is ``now``."""
        batch: list[str] = []
        engine = self._engine
        hello = self._hello
        if (
            hello is not None
            and (fresh or not self.hello_answered)
            and not any(line is hello for line in self._undelivered)
        ):
            batch.append(hello)
        p = self._pending
        told = False  # the pending request (or an error for it) is in the batch
        for line in self._undelivered:
            if p is not None and line is p.line:
                line = p.current(now)
                told = True
                p.engine = engine
            elif p is not None and p.engine == engine and '"type":"error"' in line[:32]:
                # this engine has the request: the error tells it to answer again
                told = told or message_type(line)[1] == p.id
            batch.append(line)
        self._undelivered = []
        self._undelivered_chars = 0
        if p is not None and p.answered_at is None and not told:
            # (sent again even if it reached the client: the seat cannot know; the
            # client does not pass a request its engine has to it twice)
            batch.append(p.current(now))
            p.engine = engine
        return batch

    # -- the referee writes -------------------------------------------------------------

    def keep(self, line: str) -> None:
        """Hold a line written while nobody is connected (bounded: the oldest
        event lines go first; the pending request is always kept)."""
        self._undelivered.append(line)
        self._undelivered_chars += len(line)
        p = self._pending
        while self._undelivered_chars > UNDELIVERED_CAP and len(self._undelivered) > 1:
            drop = next((x for x in self._undelivered if p is None or x is not p.line), None)
            if drop is None:
                break
            self._undelivered.remove(drop)
            self._undelivered_chars -= len(drop)

    def wrote(self, lines: list[str], t: int) -> None:
        """The referee's ``lines`` were handed to the network (or kept) at ``t``:
        the hello, the request to answer, an error that restarts its stretch."""
        conn = self.conn
        engine = self._engine if conn is not None else 0
        for line in lines:
            head = line[:32]  # the referee writes "type" first
            if '"type":"request"' in head:
                obj = parse_object(line) or {}
                clock = RequestClock.of_request(obj, t)
                self._pending = Pending(obj.get("id"), line, clock, engine)
            elif '"type":"error"' in head:
                p = self._restart(message_type(line)[1], t)
                if p is not None and conn is not None and p.engine != self._engine:
                    # an engine that came after the request was written has only
                    # the error: it needs the request itself to answer again
                    conn.send(p.current(t))
                    p.engine = self._engine
            elif self._hello is None and '"type":"hello"' in head:
                self._hello = line

    def _restart(self, rid: object, now: int) -> Pending | None:
        """An error for the pending request: its stretch ends at the bad reply
        (charged) and a new one starts at this write, as the referee does.
        Returns the pending request it was for, if any."""
        p = self._pending
        if p is None or rid != p.id:
            return None
        if p.clock is not None and p.answered_at is not None:
            p.clock = p.clock.after(p.answered_at - p.clock.start, now)
        p.answered_at = None
        return p

    # -- the client writes --------------------------------------------------------------

    def answered(self, rid: object, t: int) -> None:
        """An action for request ``rid`` arrived at ``t``."""
        p = self._pending
        if p is not None and rid == p.id and p.answered_at is None:
            p.answered_at = t

    def exited(self, text: str) -> None:
        """The client's ``engine_exit`` message: how its engine ended, and the
        tail of its stderr."""
        obj = parse_object(text) or {}
        code, sig = obj.get("exit_code"), obj.get("signal")
        self.exit = ExitInfo(
            code if isinstance(code, int) else None,
            sig if isinstance(sig, str) else None,
            "exited",
        )
        tail = obj.get("stderr_tail")
        self.stderr = tail[-2000:] if isinstance(tail, str) else ""
