"""A seat whose player is a remote engine, connected over the network.

:class:`NetworkSeat` implements the referee's ``Seat`` protocol
(``bidref/players/__init__.py``) for an engine that runs elsewhere and reaches
the referee through ``bidref connect`` (or any client that speaks the link of
:mod:`bidref.net.framing`). The referee cannot tell it from a local engine,
except that:

- **A lost connection is not the end** (RULES.md §7). Lines written while no
  client is connected are kept and delivered when one is back; the player's
  clock keeps running all the same, so ``receive`` simply gets nothing and the
  referee's deadline does the rest.
- **On a reconnection the pending request is sent again**, with the same id and
  the clock as it is *now*: the seat remembers when it wrote the request (or the
  ``error`` that restarted its stretch) and what the clock said then, and
  charges the time since exactly as the referee does (delay first, then bank).
  A reply counts by its arrival here: every incoming line is stamped with the
  referee's injected clock the moment it arrives.
- **A restarted client gets its seat back**: a client whose engine is new says
  so (``fresh``) and is sent the referee's ``hello`` again; the new engine's own
  hello is answered by the seat itself (the referee already has one) and noted.
- **In a tournament** one :class:`~bidref.net.listener.EngineListener` serves
  the engine's seat of each match in turn (``host``): the seat is offered to it
  when the match opens it, its welcome names the match (``match_id``), and at the
  end it tells the client to come back with a fresh engine for the next match
  (``CLOSE_NEXT_MATCH``) instead of closing for good.
- **Connections are notes**: every connect, disconnect, resume, refusal and
  restarted engine is a :class:`ConnectionNote`; :meth:`watch_connection` gives
  the seat a writer for them (the referee writes ``connection`` transcript
  lines), and :attr:`notes` keeps them all.

The socket side (WebSocket server, authentication, caps) is
:mod:`bidref.net.server`; it calls :meth:`attach`, :meth:`deliver` and
:meth:`detach`. Everything here is driven by those calls and the injected
clock, so it is tested without sockets.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Protocol

from ..engines import Clock, Eof, ExitInfo, Incoming, Line, Overlong
from ..engines.framing import MAX_LINE
from .framing import (
    CLOSE_MATCH_OVER,
    CLOSE_NEXT_MATCH,
    CLOSE_POLICY,
    CLOSE_REPLACED,
    ListenAddress,
    RequestClock,
    message_type,
    parse_object,
    welcome_message,
    with_clock,
)
from .tokens import new_token, token_matches

if TYPE_CHECKING:
    from websockets.sync.server import ServerConnection

    from .listener import EngineListener

log = logging.getLogger(__name__)

BACKLOG_CAP: Final = 16 << 20  # characters received and not yet taken by the referee
UNDELIVERED_CAP: Final = 4 << 20  # characters written while no client was connected
WAIT_SLICE_S: Final = 0.05  # a receive looks at the (possibly fake) clock this often
OVERLONG_PREFIX: Final = 200


class Conn(Protocol):
    """One authenticated client connection, as the seat sees it."""

    peer: str

    def send(self, text: str) -> None:
        """Queue one message for the client (never blocks the referee)."""

    def close(self, code: int, reason: str) -> None: ...


@dataclass(frozen=True)
class ConnectionNote:
    """Something that happened to a seat's connection, at clock time ``t``.

    ``event`` is one of: ``connect`` (the first client authenticated),
    ``resume`` (a client took the seat again), ``disconnect`` (the connection was
    lost or closed), ``refused`` (a client was turned away: ``reason`` says why),
    ``engine_restarted`` (a resumed client's new engine said hello again).
    """

    event: str
    t: int
    fields: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.event, **self.fields}


NoteSink = Callable[[int, dict[str, Any]], None]
"""Writes one connection note: (clock time for the line, fields incl. ``event``)."""


@dataclass
class _Pending:
    """The request the player has to answer, as the seat last wrote it."""

    id: object
    line: str
    clock: RequestClock | None
    engine: int  # the engine (see NetworkSeat._engine) that has it; 0: none yet
    answered_at: int | None = None  # arrival of a reply to it (an error clears it)


class NetworkSeat:
    """A seat for a remote engine; see the module docstring.

    ``listen`` (or ``open``) starts the server; :attr:`url` and :attr:`token`
    are then what the remote side needs.
    """

    def __init__(
        self,
        address: ListenAddress,
        *,
        seat: int,
        clock: Clock = time.monotonic_ns,
        startup_timeout_ns: int = 10_000_000_000,
        max_line: int = MAX_LINE,
        token: str | None = None,
        name: str | None = None,
        tls: Any = None,  # an ssl.SSLContext for wss://
        host: EngineListener | None = None,
        match_id: str | None = None,
    ) -> None:
        self.address = address
        self.host = host
        self.match_id = match_id
        self.seat = seat
        self.name = name or f"remote-{'AB'[seat]}"
        self.clock = clock
        self.startup_timeout_ns = startup_timeout_ns
        self.max_line = max_line
        self.token = token or new_token()
        self.tls = tls
        self.notes: list[ConnectionNote] = []
        self._cv = threading.Condition()
        self._inbox: deque[Incoming | ConnectionNote] = deque()
        self._lines_waiting = 0  # Incoming items in _inbox
        self._backlog = 0
        self._sink: NoteSink | None = None
        self._floor = 0  # no connection line may be stamped before the seat's last write
        self._conn: Conn | None = None
        self._connections = 0
        self._engine = 0  # counts the engines behind the seat: +1 for each fresh client
        self._hello: str | None = None
        self._hello_answered = False
        self._pending: _Pending | None = None
        self._undelivered: list[str] = []
        self._undelivered_chars = 0
        self._exit: ExitInfo | None = None
        self._stderr = ""
        self._ended = False  # close() was called: nobody takes this seat any more
        self._server: Any = None
        self._port: int | None = None
        self._interrupt = False  # raise KeyboardInterrupt in the referee's thread, once

    # -- the server side ------------------------------------------------------------------

    def listen(self) -> None:
        """Start listening (idempotent); :attr:`url` is then known. A seat with a
        ``host`` is offered to it instead (its client may be waiting already)."""
        if self.host is not None:
            if self._port is None:
                self._port = self.host.port
                self.host.offer(self)
            return
        if self._server is None:
            from .server import SeatServer

            self._server = SeatServer(self, self.address, tls=self.tls)
            self._port = self._server.port

    @property
    def url(self) -> str:
        if self.host is not None:
            return self.host.url
        port = self._port if self._port is not None else self.address.port
        host = self.address.host
        if ":" in host:
            host = f"[{host}]"
        return f"{'wss' if self.tls is not None else 'ws'}://{host}:{port}/"

    @property
    def label(self) -> str:
        return f"seat {'AB'[self.seat]}"

    @property
    def end_reason(self) -> tuple[int, str]:
        if self.host is not None:
            return CLOSE_NEXT_MATCH, "the match is over: start a fresh engine for the next one"
        return CLOSE_MATCH_OVER, "the match is over"

    def token_ok(self, given: object) -> bool:
        if self.host is not None:
            return self.host.token_ok(given)
        return token_matches(given, self.token)

    def claim(
        self, ws: ServerConnection, peer: str, fresh: bool, match: object
    ) -> NetworkSeat | None:
        """As its own server's host: this seat, until it is closed."""
        if self._ended:
            ws.close(*self.end_reason)
            return None
        return self

    def interrupt(self) -> None:
        """End the match as interrupted: the referee's next ``send`` or ``receive``
        raises ``KeyboardInterrupt`` (once), as a Ctrl-C does in the main thread.
        For matches played in a thread, where no signal reaches the referee."""
        self._interrupt = True
        with self._cv:
            self._cv.notify_all()

    def _interrupted(self) -> None:
        if self._interrupt:
            self._interrupt = False
            raise KeyboardInterrupt

    def attach(self, conn: Conn, fresh: bool) -> bool:
        """An authenticated client takes the seat (replacing any other).

        Sends it what it missed: the hello (to a fresh client, or when it is not
        answered yet), the lines written while nobody was connected, and the
        pending request with the current clock. False once the seat is closed.
        """
        now = self.clock()
        with self._cv:
            if self._ended:
                return False
            old = self._conn
            self._conn = conn
            self._connections += 1
            first = self._connections == 1
            if fresh or first:
                self._engine += 1
            engine = self._engine
            self._note(
                "connect" if first else "resume",
                now,
                {"connection": self._connections, "fresh": fresh},
            )
            batch = [welcome_message(self.seat, resume=not first, match=self.match_id)]
            hello = self._hello
            if (
                hello is not None
                and (fresh or not self._hello_answered)
                and not any(line is hello for line in self._undelivered)
            ):
                batch.append(hello)
            p = self._pending
            told = False  # the pending request (or an error for it) is in the batch
            for line in self._undelivered:
                if p is not None and line is p.line:
                    line = self._current_request(p, now)
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
                batch.append(self._current_request(p, now))
                p.engine = engine
            for line in batch:
                conn.send(line)
        if old is not None:
            old.close(CLOSE_REPLACED, "a newer connection with this seat's token took the seat")
        log.info(
            "seat %s: client %s %s", "AB"[self.seat], conn.peer, "connected" if first else "resumed"
        )
        return True

    def deliver(self, conn: Conn, text: str) -> None:
        """A message from ``conn`` (stamped now). A connection that is not the
        seat's current one is ignored: it can never disturb the seat."""
        t = self.clock()
        with self._cv:
            if conn is not self._conn or self._ended:
                return
            if len(text) * 4 > self.max_line and len(text.encode()) > self.max_line:
                # a local engine's over-long line ends its match: so does this one
                self._push(Overlong(text[:OVERLONG_PREFIX], len(text.encode()), t))
                return
            kind, rid = message_type(text)
            if kind == "overlong":  # the bridge read an over-long line from its engine
                obj = parse_object(text) or {}
                prefix, length = obj.get("prefix"), obj.get("length")
                self._push(
                    Overlong(
                        prefix[:OVERLONG_PREFIX] if isinstance(prefix, str) else "",
                        length if isinstance(length, int) else 0,
                        t,
                    )
                )
                return
            if kind == "engine_exit":
                obj = parse_object(text) or {}
                code, sig = obj.get("exit_code"), obj.get("signal")
                self._exit = ExitInfo(
                    code if isinstance(code, int) else None,
                    sig if isinstance(sig, str) else None,
                    "exited",
                )
                tail = obj.get("stderr_tail")
                self._stderr = tail[-2000:] if isinstance(tail, str) else ""
                self._push(Eof(t))
                return
            if kind == "hello":
                if self._hello_answered:
                    # a restarted client's new engine: the referee has its hello already
                    self._note("engine_restarted", t, {"connection": self._connections})
                    return
                self._hello_answered = True
            elif kind == "action":
                p = self._pending
                if p is not None and rid == p.id and p.answered_at is None:
                    p.answered_at = t
            if self._backlog > BACKLOG_CAP:
                self._conn = None
                self._note("disconnect", t, {"reason": "backlog over the cap"})
                conn.close(CLOSE_POLICY, "too much input waiting: slow down")
                return
            self._push(Line(text, t))

    def oversized(self, conn: Conn) -> None:
        """``conn`` sent a frame over the transport's size cap (it is being closed)."""
        t = self.clock()
        with self._cv:
            if conn is self._conn and not self._ended:
                self._push(Overlong("", 0, t))

    def detach(self, conn: Conn, reason: str) -> None:
        """``conn`` is gone (closed, lost, or dropped for a cap)."""
        t = self.clock()
        with self._cv:
            if conn is not self._conn:
                return
            self._conn = None
            if not self._ended:
                self._note("disconnect", t, {"connection": self._connections, "reason": reason})
        log.info("seat %s: client %s disconnected (%s)", "AB"[self.seat], conn.peer, reason)

    def refused(self, peer: str, reason: str) -> None:
        """A client was turned away (wrong token, silent, over a cap): noted and logged."""
        log.warning("seat %s: refused %s: %s", "AB"[self.seat], peer, reason)
        t = self.clock()
        with self._cv:
            self._note("refused", t, {"reason": reason})

    @property
    def ended(self) -> bool:
        return self._ended

    # -- the referee side (the Seat protocol) ----------------------------------------------

    def watch_connection(self, sink: NoteSink) -> None:
        """Write connection notes through ``sink`` from now on (in the referee's
        thread, from within ``receive`` and ``close``)."""
        self._sink = sink

    def open(self) -> None:
        self.listen()

    def send(self, text: str) -> int:
        self._interrupted()
        lines = text.split("\n")
        with self._cv:
            conn = self._conn
            for line in lines:
                if conn is not None:
                    conn.send(line)
                elif not self._ended:
                    self._keep(line)
            t = self.clock()  # the lines are handed to the network: the player's time runs
            self._floor = t
            engine = self._engine if conn is not None else 0
            for line in lines:
                head = line[:32]  # the referee writes "type" first
                if '"type":"request"' in head:
                    obj = parse_object(line) or {}
                    clock = RequestClock.of_request(obj, t)
                    self._pending = _Pending(obj.get("id"), line, clock, engine)
                elif '"type":"error"' in head:
                    p = self._restart(message_type(line)[1], t)
                    if p is not None and conn is not None and p.engine != self._engine:
                        # an engine that came after the request was written has only
                        # the error: it needs the request itself to answer again
                        conn.send(self._current_request(p, t))
                        p.engine = self._engine
                elif self._hello is None and '"type":"hello"' in head:
                    self._hello = line
            return t

    def receive(self, deadline: int | None) -> Incoming | None:
        while True:
            self._interrupted()
            notes: list[ConnectionNote] = []
            item: Incoming | None = None
            timed_out = False
            with self._cv:
                while self._inbox:
                    head = self._inbox.popleft()
                    if isinstance(head, ConnectionNote):
                        notes.append(head)
                        continue
                    self._lines_waiting -= 1
                    if isinstance(head, Line):
                        self._backlog -= len(head.text)
                    item = head
                    break
                if item is None and not notes:
                    if deadline is not None:
                        left = deadline - self.clock()
                        if left <= 0:
                            timed_out = True
                        else:
                            self._cv.wait(min(left / 1e9, WAIT_SLICE_S))
                    else:
                        self._cv.wait(WAIT_SLICE_S)
            self._write_notes(notes)
            if item is not None:
                return item
            if timed_out:
                return None

    def has_input(self) -> bool:
        return self._lines_waiting > 0

    def before_end(self) -> None:
        pass

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        if self._exit is None and wait_ns > 0:
            until = self.clock() + wait_ns
            with self._cv:
                while self._exit is None and self._conn is not None:
                    left = until - self.clock()
                    if left <= 0:
                        break
                    self._cv.wait(min(left / 1e9, WAIT_SLICE_S))
        return self._exit

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        """Tell the client (quit_line), give its engine ``grace_ns`` to report
        its exit, then close the connection and stop listening. Idempotent."""
        self._interrupt = False  # the match is ending already
        if quit_line is not None:
            self.send(quit_line)
        info = self.exit_info(grace_ns)
        with self._cv:
            self._ended = True
            conn, self._conn = self._conn, None
            if conn is not None:
                self._note("disconnect", self.clock(), {"reason": "match over"})
        if conn is not None:
            conn.close(*self.end_reason)
        if self._server is not None:
            self._server.stop()
        if self.host is not None:
            self.host.withdraw(self, told=conn is not None)
        self._drain_notes()
        if info is not None:
            # like a process transport: an engine that exits after our quit line quit
            return replace(info, how="quit") if quit_line is not None else info
        return ExitInfo(None, None, "disconnected" if conn is None else "closed")

    def stderr_tail(self) -> str:
        return self._stderr

    def stderr_bytes(self) -> int:
        return len(self._stderr.encode())

    def describe(self) -> dict[str, object]:
        return {
            "name": self.name,
            "command": [f"listen://{self.address.host}:{self._port or self.address.port}"],
            **({} if self.match_id is None else {"match": self.match_id}),
            "cwd": None,
            "transport": "websocket",
            "url": self.url,
            "stderr_log": None,
        }

    def connection_notes(self) -> list[dict[str, Any]]:
        """Every note so far as ``{"event": …, "t": clock ns, …}`` (for a report)."""
        with self._cv:
            return [{"t": n.t, **n.to_dict()} for n in self.notes]

    # -- inside -------------------------------------------------------------------------------

    def _push(self, item: Incoming) -> None:
        self._inbox.append(item)
        self._lines_waiting += 1
        if isinstance(item, Line):
            self._backlog += len(item.text)
        self._cv.notify_all()

    def _note(self, event: str, t: int, fields: dict[str, Any]) -> None:
        note = ConnectionNote(event, t, fields)
        self.notes.append(note)
        self._inbox.append(note)
        self._cv.notify_all()

    def _write_notes(self, notes: list[ConnectionNote]) -> None:
        sink = self._sink
        if sink is None:
            return
        for n in notes:
            # the line may be written later than it happened: t_ns says when it was
            # written (never before the seat's last write, so the transcript's time
            # never goes back), at_ns when it happened
            sink(max(n.t, self._floor), {**n.to_dict(), "at": n.t})

    def _drain_notes(self) -> None:
        with self._cv:
            notes = [n for n in self._inbox if isinstance(n, ConnectionNote)]
            self._inbox = deque(i for i in self._inbox if not isinstance(i, ConnectionNote))
        self._write_notes(notes)

    def _keep(self, line: str) -> None:
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

    def _restart(self, rid: object, now: int) -> _Pending | None:
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

    def _current_request(self, p: _Pending, now: int) -> str:
        if p.clock is None:
            return p.line
        return with_clock(p.line, p.clock.after(now - p.clock.start, now))
