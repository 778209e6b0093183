"""One network engine of a tournament: one address, one token, a seat per match.

A tournament engine given as ``listen://HOST:PORT`` gets one
:class:`EngineListener` for the whole tournament. Its client (``bidref
connect``, which keeps serving) authenticates with the engine's token; the
listener gives it the seat of the match being played, or keeps it waiting
(``{"type":"waiting"}``) until the next match opens its seat. So one client
plays the engine's matches one after the other, each with a fresh engine
process: at the end of a match the seat closes with ``CLOSE_NEXT_MATCH`` and
the client comes back; when the tournament is over the listener closes with
``CLOSE_MATCH_OVER`` and the client exits.

The runner plays at most one match of a network engine at a time (one client,
one connection, one match), so there is at most one seat offered here.

A client that comes back *not* fresh (its engine is in a match) names that
match; if it is not the one being played, it is told to start a fresh engine
(``CLOSE_NEXT_MATCH``), so an engine in an old match never plays a new one.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Final

from websockets.exceptions import ConnectionClosed

from ..engines import Clock
from ..engines.framing import MAX_LINE
from ..rules import SECOND
from .framing import (
    CLOSE_MATCH_OVER,
    CLOSE_NEXT_MATCH,
    CLOSE_POLICY,
    CLOSE_REPLACED,
    WAITING_MESSAGE,
    ListenAddress,
)
from .server import RateCap, SeatServer
from .tokens import new_token, token_matches

if TYPE_CHECKING:
    import ssl

    from websockets.sync.server import ServerConnection

    from .seat import NetworkSeat

log = logging.getLogger(__name__)

WAIT_SLICE_S: Final = 0.05
FINAL_WORD_S: Final = 5.0  # at the end, how long a client coming back may take to hear it


class EngineListener:
    """The listening side of one tournament engine; see the module docstring."""

    def __init__(
        self,
        address: ListenAddress,
        *,
        name: str,
        clock: Clock = time.monotonic_ns,
        startup_timeout_ns: int = 10 * SECOND,
        max_line: int = MAX_LINE,
        token: str | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.address = address
        self.name = name
        self.clock = clock
        self.startup_timeout_ns = startup_timeout_ns
        self.max_line = max_line
        self.token = token or new_token()
        self.tls = tls
        self._cv = threading.Condition()
        self._seat: NetworkSeat | None = None
        self._lobby: ServerConnection | None = None  # the client waiting for a match
        self._ended = False
        self._coming_back = False  # a client was just told to come back for the next match
        self._told_over = False  # a client has heard that the tournament is over
        self._server = SeatServer(self, address, tls=tls)
        self.port = self._server.port

    @property
    def url(self) -> str:
        host = f"[{self.address.host}]" if ":" in self.address.host else self.address.host
        return f"{'wss' if self.tls is not None else 'ws'}://{host}:{self.port}/"

    @property
    def label(self) -> str:
        return f"engine {self.name}"

    @property
    def ended(self) -> bool:
        return self._ended

    @property
    def end_reason(self) -> tuple[int, str]:
        # asked only to close a client with it: so a client has heard it (see close)
        self._told_over = True
        return CLOSE_MATCH_OVER, "the tournament is over"

    def token_ok(self, given: object) -> bool:
        return token_matches(given, self.token)

    def refused(self, peer: str, reason: str) -> None:
        """Logged; and noted in the transcript of the match being played, if any."""
        seat = self._seat
        if seat is not None:
            seat.refused(peer, reason)
        else:
            log.warning("%s: refused %s: %s", self.label, peer, reason)

    # -- the referee's side -----------------------------------------------------------------

    def offer(self, seat: NetworkSeat) -> None:
        """``seat`` (a match's, opening) is the one to give the engine's client."""
        with self._cv:
            if self._seat is not None and not self._seat.ended:
                raise RuntimeError(
                    f"engine {self.name!r} is offered a second seat while one is in play "
                    "(the runner plays one match of a network engine at a time)"
                )
            self._seat = seat
            self._cv.notify_all()

    def withdraw(self, seat: NetworkSeat, *, told: bool) -> None:
        """``seat``'s match is over; ``told``: its client was connected, and told
        to come back for the next."""
        with self._cv:
            if self._seat is seat:
                self._seat = None
                self._coming_back = told

    def close(self, final_word_s: float = FINAL_WORD_S) -> None:
        """The tournament is over: tell a waiting client so and stop listening.

        A client that played a match was told to come back for the next; it is
        given up to ``final_word_s`` to do so and hear that there is none (then
        ``bidref connect`` exits 0 rather than retry a listener that is gone)."""
        with self._cv:
            self._ended = True
            self._cv.notify_all()
            # a waiting client is told by its own thread (within a slice); stopping
            # the server first would close it with a bare 1001 "going away"
            self._cv.wait_for(lambda: self._lobby is None, timeout=1.0)
        if self._coming_back:
            until = time.monotonic() + final_word_s
            while not self._told_over and time.monotonic() < until:
                time.sleep(WAIT_SLICE_S)
        self._server.stop()

    # -- a client's side (in its connection's thread) -----------------------------------------

    def claim(
        self, ws: ServerConnection, peer: str, fresh: bool, match: object
    ) -> NetworkSeat | None:
        """The seat of the match being played, once there is one."""
        with self._cv:
            self._coming_back = False
            seat = self._seat
            if not fresh and (seat is None or seat.ended or match != seat.match_id):
                # its engine is still in a match that is over
                ws.close(CLOSE_NEXT_MATCH, "that match is over: start a fresh engine for the next")
                return None
            if seat is not None and not seat.ended:
                return seat
            old, self._lobby = self._lobby, ws
        if old is not None:
            old.close(CLOSE_REPLACED, "a newer connection with this engine's token is waiting")
        ws.send(WAITING_MESSAGE)
        cap = RateCap(self.clock)
        try:
            while True:
                with self._cv:
                    if self._lobby is not ws:
                        return None  # replaced
                    seat = self._seat
                    ended = self._ended
                    if not ended and seat is not None and not seat.ended:
                        self._lobby = None
                        return seat
                if ended:
                    ws.close(*self.end_reason)  # (the finally clears the lobby)
                    return None
                try:
                    msg = ws.recv(timeout=WAIT_SLICE_S)
                except TimeoutError:
                    continue
                # nothing is due from a waiting client: it is ignored, under the cap
                if not cap.take(len(msg)):
                    ws.close(CLOSE_POLICY, "too many messages: slow down")
                    return None
        except ConnectionClosed:
            return None
        finally:
            with self._cv:
                if self._lobby is ws:
                    self._lobby = None
                self._cv.notify_all()
