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
clock, so it is tested without sockets. A seat keeps what it was given in a
:class:`SeatSettings`, what it received in an :class:`~bidref.net.inbox.Inbox`
and what it knows of its client in a :class:`~bidref.net.remote_side.RemoteSide`.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from ..engines import Clock, Eof, ExitInfo, Incoming, Line, Overlong
from ..engines.framing import MAX_LINE
from .framing import (
    CLOSE_MATCH_OVER,
    CLOSE_NEXT_MATCH,
    CLOSE_POLICY,
    CLOSE_REPLACED,
    ListenAddress,
    message_type,
    parse_object,
    welcome_message,
)
from .inbox import WAIT_SLICE_S, ConnectionNote, Inbox, NoteSink
from .remote_side import Conn, RemoteSide
from .tokens import new_token, token_matches

if TYPE_CHECKING:
    from websockets.sync.server import ServerConnection

    from .listener import EngineListener

__all__ = ["Conn", "ConnectionNote", "NetworkSeat", "NoteSink", "SeatSettings"]

log = logging.getLogger(__name__)

OVERLONG_PREFIX: Final = 200


@dataclass(frozen=True)
class SeatSettings:
    """What a network seat is given, fixed for its life: where it listens (or
    the ``host`` that serves it), whose seat it is, its clock, caps and token."""

    address: ListenAddress
    seat: int
    clock: Clock
    startup_timeout_ns: int
    max_line: int
    token: str
    tls: Any  # an ssl.SSLContext for wss://
    host: EngineListener | None
    match_id: str | None

    def url(self, port: int | None) -> str:
        """Where a client connects, once the seat listens on ``port``."""
        if self.host is not None:
            return self.host.url
        port = port if port is not None else self.address.port
        host = self.address.host
        if ":" in host:
            host = f"[{host}]"
        return f"{'wss' if self.tls is not None else 'ws'}://{host}:{port}/"


@dataclass(frozen=True, slots=True)
class Link:
    """How a network seat's client is connected now (for live displays, which
    read it between the referee's own events: a disconnection shows at once)."""

    connected: bool
    since: int | None  # clock time of the last connect, resume or disconnect; None: no client yet
    connections: int  # clients that have taken the seat so far
    ended: bool = False  # the seat is closed: the match is over


_LINK_EVENTS = frozenset({"connect", "resume", "disconnect"})


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
        self.settings = SeatSettings(
            address=address,
            seat=seat,
            clock=clock,
            startup_timeout_ns=startup_timeout_ns,
            max_line=max_line,
            token=token or new_token(),
            tls=tls,
            host=host,
            match_id=match_id,
        )
        # not a setting: the Seat protocol lets the referee (or a tap) rename a seat
        self.name = name or f"remote-{'AB'[seat]}"
        # one lock for the inbox and the remote side: a message from the client
        # changes both at once (a reply is stamped, answers the request, waits)
        self._cv = threading.Condition()
        self._inbox = Inbox(self._cv)
        self._remote = RemoteSide()
        self._ended = False  # close() was called: nobody takes this seat any more
        self._server: Any = None
        self._port: int | None = None
        self._interrupt = False  # raise KeyboardInterrupt in the referee's thread, once

    # -- its settings ---------------------------------------------------------------------

    @property
    def address(self) -> ListenAddress:
        return self.settings.address

    @property
    def seat(self) -> int:
        return self.settings.seat

    @property
    def clock(self) -> Clock:
        return self.settings.clock

    @property
    def startup_timeout_ns(self) -> int:
        return self.settings.startup_timeout_ns

    @property
    def max_line(self) -> int:
        return self.settings.max_line

    @property
    def token(self) -> str:
        return self.settings.token

    @property
    def tls(self) -> Any:
        return self.settings.tls

    @property
    def host(self) -> EngineListener | None:
        return self.settings.host

    @property
    def match_id(self) -> str | None:
        return self.settings.match_id

    @property
    def notes(self) -> list[ConnectionNote]:
        """Every connection note so far."""
        return self._inbox.notes

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
        return self.settings.url(self._port)

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
        self._inbox.wake()

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
        remote = self._remote
        with self._cv:
            if self._ended:
                return False
            old = remote.take(conn, fresh)
            first = remote.connections == 1
            self._inbox.note(
                "connect" if first else "resume",
                now,
                {"connection": remote.connections, "fresh": fresh},
            )
            batch = [
                welcome_message(self.seat, resume=not first, match=self.match_id),
                *remote.catch_up(fresh, now),
            ]
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
        remote = self._remote
        inbox = self._inbox
        with self._cv:
            if conn is not remote.conn or self._ended:
                return
            if len(text) * 4 > self.max_line and len(text.encode()) > self.max_line:
                # a local engine's over-long line ends its match: so does this one
                inbox.push(Overlong(text[:OVERLONG_PREFIX], len(text.encode()), t))
                return
            kind, rid = message_type(text)
            if kind == "overlong":  # the bridge read an over-long line from its engine
                obj = parse_object(text) or {}
                prefix, length = obj.get("prefix"), obj.get("length")
                inbox.push(
                    Overlong(
                        prefix[:OVERLONG_PREFIX] if isinstance(prefix, str) else "",
                        length if isinstance(length, int) else 0,
                        t,
                    )
                )
                return
            if kind == "engine_exit":
                remote.exited(text)
                inbox.push(Eof(t))
                return
            if kind == "hello":
                if remote.hello_answered:
                    # a restarted client's new engine: the referee has its hello already
                    inbox.note("engine_restarted", t, {"connection": remote.connections})
                    return
                remote.hello_answered = True
            elif kind == "action":
                remote.answered(rid, t)
            if inbox.over_cap:
                remote.drop(t)
                inbox.note("disconnect", t, {"reason": "backlog over the cap"})
                conn.close(CLOSE_POLICY, "too much input waiting: slow down")
                return
            inbox.push(Line(text, t))

    def oversized(self, conn: Conn) -> None:
        """``conn`` sent a frame over the transport's size cap (it is being closed)."""
        t = self.clock()
        with self._cv:
            if conn is self._remote.conn and not self._ended:
                self._inbox.push(Overlong("", 0, t))

    def detach(self, conn: Conn, reason: str) -> None:
        """``conn`` is gone (closed, lost, or dropped for a cap)."""
        t = self.clock()
        remote = self._remote
        with self._cv:
            if conn is not remote.conn:
                return
            remote.drop(t)
            if not self._ended:
                self._inbox.note(
                    "disconnect", t, {"connection": remote.connections, "reason": reason}
                )
        log.info("seat %s: client %s disconnected (%s)", "AB"[self.seat], conn.peer, reason)

    def refused(self, peer: str, reason: str) -> None:
        """A client was turned away (wrong token, silent, over a cap): noted and logged."""
        log.warning("seat %s: refused %s: %s", "AB"[self.seat], peer, reason)
        t = self.clock()
        with self._cv:
            self._inbox.note("refused", t, {"reason": reason})

    @property
    def ended(self) -> bool:
        return self._ended

    def link(self) -> Link:
        """Whether a client holds the seat now, and since when (seat clock time)."""
        with self._cv:
            since = next(
                (n.t for n in reversed(self._inbox.notes) if n.event in _LINK_EVENTS), None
            )
            remote = self._remote
            return Link(remote.conn is not None, since, remote.connections, self._ended)

    # -- the referee side (the Seat protocol) ----------------------------------------------

    def watch_connection(self, sink: NoteSink) -> None:
        """Write connection notes through ``sink`` from now on (in the referee's
        thread, from within ``receive`` and ``close``)."""
        self._inbox.watch(sink)

    def open(self) -> None:
        self.listen()

    def send(self, text: str) -> int:
        self._interrupted()
        lines = text.split("\n")
        remote = self._remote
        with self._cv:
            conn = remote.conn
            for line in lines:
                if conn is not None:
                    conn.send(line)
                elif not self._ended:
                    remote.keep(line)
            t = self.clock()  # the lines are handed to the network: the player's time runs
            self._inbox.wrote(t)
            remote.wrote(lines, t)
            return t

    def receive(self, deadline: int | None) -> Incoming | None:
        while True:
            self._interrupted()
            item, timed_out = self._inbox.take(deadline, self.clock)
            if item is not None:
                return item
            if timed_out:
                return None

    def has_input(self) -> bool:
        return self._inbox.has_lines()

    def before_end(self) -> None:
        pass

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        remote = self._remote
        if remote.exit is None and wait_ns > 0:
            until = self.clock() + wait_ns
            with self._cv:
                while remote.exit is None and remote.conn is not None:
                    left = until - self.clock()
                    if left <= 0:
                        break
                    self._cv.wait(min(left / 1e9, WAIT_SLICE_S))
        return remote.exit

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        """Tell the client (quit_line), give its engine ``grace_ns`` to report
        its exit, then close the connection and stop listening. Idempotent."""
        self._interrupt = False  # the match is ending already
        if quit_line is not None:
            self.send(quit_line)
        info = self.exit_info(grace_ns)
        remote = self._remote
        with self._cv:
            self._ended = True
            conn, remote.conn = remote.conn, None
            if conn is not None:
                self._inbox.note("disconnect", self.clock(), {"reason": "match over"})
        if conn is not None:
            conn.close(*self.end_reason)
        if self._server is not None:
            self._server.stop()
        if self.host is not None:
            self.host.withdraw(self, told=conn is not None)
        self._inbox.drain()
        if info is not None:
            # like a process transport: an engine that exits after our quit line quit
            return replace(info, how="quit") if quit_line is not None else info
        return ExitInfo(None, None, "disconnected" if conn is None else "closed")

    def disconnected_at(self) -> int | None:
        """When the client that had the seat left (clock ns); None while one is
        connected, or before any came (the referee says so in a time loss)."""
        with self._cv:
            return self._remote.gone_at

    def stderr_tail(self) -> str:
        return self._remote.stderr

    def stderr_bytes(self) -> int:
        return len(self._remote.stderr.encode())

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
        return self._inbox.note_dicts()
