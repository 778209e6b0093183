"""The WebSocket server behind a network seat: authentication and caps.

One :class:`SeatServer` listens on one address for one :class:`SeatHost`: a
match's :class:`~bidref.net.seat.NetworkSeat` itself, or a tournament's
:class:`~bidref.net.listener.EngineListener`, which hands each match's seat to
the engine's client in turn. A connection must authenticate with its first
message (see :mod:`bidref.net.framing`) within the start-up timeout; a wrong
token, a malformed or over-long first message, or silence is refused, noted and
logged, and never touches a seat. Once authenticated, the host gives it a seat
(a tournament's may keep it waiting for one first); it takes the seat (a newer
one with the right token replaces it) and its messages go to the seat, stamped
on arrival, under a message-rate and byte-rate cap; frames over the size cap
close it.

Writes to a client go through a per-connection writer thread, so that a slow
or dead client can never block the referee.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import ssl
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Protocol

from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.sync.server import ServerConnection, serve

from ..engines import Clock
from ..rules import SECOND
from .framing import (
    AUTH_MAX,
    CLOSE_AUTH_TIMEOUT,
    CLOSE_BAD_AUTH,
    CLOSE_BUSY,
    CLOSE_POLICY,
    ListenAddress,
    parse_object,
)

if TYPE_CHECKING:
    from .seat import NetworkSeat

log = logging.getLogger(__name__)

MAX_UNAUTHENTICATED: Final = 8  # connections waiting to authenticate, per seat
RATE_MESSAGES: Final = 500  # messages per second, sustained (a burst of 4 s worth)
RATE_BYTES: Final = 8 << 20  # bytes per second, sustained (a burst of 4 s worth)
BURST_SECONDS: Final = 4
PING_INTERVAL_S: Final = 5.0  # keepalive: a silent dead connection is found within ~20 s
PING_TIMEOUT_S: Final = 15.0
WAIT_SLICE_S: Final = 0.05
# The TLS and HTTP opening of a connection (before its auth message, which has the
# start-up timeout): milliseconds for a real client; a connection that stalls there
# holds a handler thread that closing the seat would wait for.
OPEN_TIMEOUT_S: Final = 10.0
STOP_WAIT_S: Final = 2.0  # how long closing a seat waits for the server's threads


@dataclass
class RateCap:
    """A token bucket on messages and bytes, on the injected clock.

    >>> from bidref.testing import FakeClock
    >>> c = FakeClock(0); cap = RateCap(c, per_second=2, bytes_per_second=100, burst_s=1)
    >>> [cap.take(10) for _ in range(3)]
    [True, True, False]
    >>> c.advance(SECOND // 2); cap.take(10)
    True
    """

    clock: Clock
    per_second: int = RATE_MESSAGES
    bytes_per_second: int = RATE_BYTES
    burst_s: int = BURST_SECONDS
    _messages: float = field(init=False)
    _bytes: float = field(init=False)
    _t: int = field(init=False)

    def __post_init__(self) -> None:
        self._messages = float(self.per_second * self.burst_s)
        self._bytes = float(self.bytes_per_second * self.burst_s)
        self._t = self.clock()

    def take(self, size: int) -> bool:
        now = self.clock()
        dt = max(now - self._t, 0) / SECOND
        self._t = now
        self._messages = min(self._messages + dt * self.per_second, self.per_second * self.burst_s)
        self._bytes = min(
            self._bytes + dt * self.bytes_per_second, self.bytes_per_second * self.burst_s
        )
        if self._messages < 1 or self._bytes < size:
            return False
        self._messages -= 1
        self._bytes -= size
        return True


class _Conn:
    """An authenticated connection: sends go through a writer thread."""

    def __init__(self, ws: ServerConnection, peer: str) -> None:
        self.ws = ws
        self.peer = peer
        self._q: queue.SimpleQueue[str | tuple[int, str]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write, name=f"bidref-net-{peer}", daemon=True)
        self._thread.start()

    def send(self, text: str) -> None:
        self._q.put(text)

    def close(self, code: int, reason: str) -> None:
        self._q.put((code, reason))  # after what is queued: a quit line reaches the client

    def _write(self) -> None:
        while True:
            item = self._q.get()
            try:
                if isinstance(item, str):
                    self.ws.send(item)
                    continue
                self.ws.close(item[0], item[1])
            except (ConnectionClosed, OSError, RuntimeError):
                pass  # the reading side notices and tells the seat
            return


def _peer(ws: ServerConnection) -> str:
    addr = ws.remote_address
    if isinstance(addr, tuple) and len(addr) >= 2:
        return f"{addr[0]}:{addr[1]}"
    return str(addr)


class SeatHost(Protocol):
    """What a :class:`SeatServer` serves: it checks tokens and gives out seats."""

    @property
    def clock(self) -> Clock: ...

    @property
    def startup_timeout_ns(self) -> int: ...

    @property
    def max_line(self) -> int: ...

    @property
    def label(self) -> str:
        """For logs and thread names, e.g. ``seat A``."""

    @property
    def ended(self) -> bool:
        """Nobody takes a seat here any more."""

    @property
    def end_reason(self) -> tuple[int, str]:
        """The close code and reason for a client that comes once it has ended."""

    def token_ok(self, given: object) -> bool: ...

    def refused(self, peer: str, reason: str) -> None: ...

    def claim(
        self, ws: ServerConnection, peer: str, fresh: bool, match: object
    ) -> NetworkSeat | None:
        """The seat an authenticated client is to take (after waiting for one, if
        need be), or None once ``ws`` has been closed (told why) or is gone."""


class SeatServer:
    """Listens for a host's remote engine (started at once, in a thread)."""

    def __init__(
        self, host: SeatHost, address: ListenAddress, *, tls: ssl.SSLContext | None = None
    ) -> None:
        self.host = host
        self._lock = threading.Lock()
        self._waiting: list[ServerConnection] = []  # connections not authenticated yet
        try:
            self._server = serve(
                self._handle,
                address.host,
                address.port,
                ssl=tls,
                compression=None,  # small messages; no decompression bombs
                max_size=4 * host.max_line,  # over the line limit (not this) is a protocol loss
                max_queue=64,
                open_timeout=min(max(host.startup_timeout_ns / SECOND, 1.0), OPEN_TIMEOUT_S),
                ping_interval=PING_INTERVAL_S,
                ping_timeout=PING_TIMEOUT_S,
                close_timeout=2.0,
                logger=logging.getLogger("bidref.net.websockets"),
            )
        except OSError as e:
            from .framing import NetSpecError

            raise NetSpecError(
                f"cannot listen on {address.host}:{address.port} ({e.strerror or e}); "
                "give another address or port (port 0 picks a free one)"
            ) from None
        self.port: int = self._server.socket.getsockname()[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            name=f"bidref-{host.label.replace(' ', '-')}",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop listening (idempotent), waiting STOP_WAIT_S at most: the server's
        shutdown closes open connections and waits for every handler thread, and
        one stuck in a connection's opening (a client that stalls there) would
        hold the referee's close until its open timeout. Those threads are daemons
        (started from the server's daemon thread) and end on their own."""
        closing = threading.Thread(
            target=self._shutdown, name=f"bidref-stop-{self.host.label.replace(' ', '-')}"
        )
        closing.daemon = True
        closing.start()
        closing.join(timeout=STOP_WAIT_S)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=STOP_WAIT_S)

    def _shutdown(self) -> None:
        with contextlib.suppress(Exception):
            self._server.shutdown()

    # -- one connection -----------------------------------------------------------------

    def _handle(self, ws: ServerConnection) -> None:
        host = self.host
        peer = _peer(ws)
        with self._lock:
            # Over the cap, the connection that has waited longest goes: idle
            # connections cannot keep the seat's own client out, which sends its
            # auth message at once.
            victim = self._waiting.pop(0) if len(self._waiting) >= MAX_UNAUTHENTICATED else None
            self._waiting.append(ws)
        if victim is not None:
            log.warning("%s: too many connections waiting to authenticate", host.label)
            victim.close(CLOSE_BUSY, "too many connections waiting to authenticate: retry later")
        try:
            auth = self._authenticate(ws, peer)
        finally:
            with self._lock:
                if ws in self._waiting:
                    self._waiting.remove(ws)
        if auth is None:
            return
        fresh, match = auth
        try:
            seat = host.claim(ws, peer, fresh, match)
        except (ConnectionClosed, OSError, WebSocketException):
            return
        if seat is None:
            return
        conn = _Conn(ws, peer)
        if not seat.attach(conn, fresh):
            conn.close(*seat.end_reason)
            return
        cap = RateCap(seat.clock)
        reason = "closed by the client"
        try:
            while True:
                msg = ws.recv()
                text = msg if isinstance(msg, str) else msg.decode("utf-8", "replace")
                if not cap.take(len(msg)):
                    reason = "over the message rate cap"
                    seat.detach(conn, reason)
                    ws.close(CLOSE_POLICY, "too many messages: slow down")  # now, not queued
                    return
                seat.deliver(conn, text)
        except ConnectionClosed as e:
            sent = e.sent
            if sent is not None and sent.code == 1009:
                seat.oversized(conn)
                reason = f"a message over {4 * seat.max_line} bytes"
            elif e.rcvd is None and e.sent is None:
                reason = "connection lost"
            elif e.rcvd is not None:
                reason = f"closed by the client ({e.rcvd.code})"
            else:
                reason = f"closed ({sent.code if sent else '?'})"
        except (OSError, WebSocketException) as e:
            reason = f"connection lost ({e})"
        finally:
            seat.detach(conn, reason)

    def _authenticate(self, ws: ServerConnection, peer: str) -> tuple[bool, object] | None:
        """The client's ``fresh`` flag and ``match`` once its token is right; None
        when refused."""
        host = self.host
        deadline = host.clock() + host.startup_timeout_ns
        msg: str | bytes | None = None
        try:
            while msg is None:
                if host.ended:
                    ws.close(*host.end_reason)
                    return None
                if host.clock() >= deadline:
                    host.refused(peer, "no auth message within the start-up timeout")
                    ws.close(CLOSE_AUTH_TIMEOUT, "no auth message within the start-up timeout")
                    return None
                with contextlib.suppress(TimeoutError):
                    msg = ws.recv(timeout=WAIT_SLICE_S)
        except (ConnectionClosed, OSError, WebSocketException):
            host.refused(peer, "closed before authenticating")
            return None
        obj = parse_object(msg) if len(msg) <= AUTH_MAX else None
        if obj is None or obj.get("type") != "auth":
            host.refused(peer, "the first message is not an auth message")
            ws.close(CLOSE_BAD_AUTH, 'send {"type":"auth","token":...} first')
            return None
        if not host.token_ok(obj.get("token")):
            host.refused(peer, "wrong token")
            ws.close(CLOSE_BAD_AUTH, "wrong token: use the token the referee printed for this seat")
            return None
        if host.ended:
            ws.close(*host.end_reason)
            return None
        return obj.get("fresh") is not False, obj.get("match")
