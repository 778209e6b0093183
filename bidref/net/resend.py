"""What a bridge (:mod:`bidref.net.client`) sends again after a reconnection.

Between two connections the bridge keeps the engine's lines, and it remembers
the engine's hello and its answer to the last request with the connection each
went out on: a referee that sends again what its engine already has is not
passed it again but gets the engine's line again, once per connection.

Not thread-safe by itself: the bridge calls every method under its lock.
"""

from __future__ import annotations

from typing import Final

from websockets.sync.client import ClientConnection

BUFFER_CAP: Final = 4 << 20  # engine output kept while disconnected (characters)


class Resend:
    """The engine lines a new connection may need: see the module docstring."""

    def __init__(self) -> None:
        self._buffer: list[str] = []
        self._buffered = 0
        self.greeted = False  # the engine has been given a referee hello
        self._engine_hello: str | None = None
        self._engine_hello_conn = 0  # the connection its hello was sent on
        self._request_id: object = None  # the last request passed to the engine
        self._reply: str | None = None  # the engine's answer to it (until an error)
        self._reply_conn = 0

    # -- engine → referee ---------------------------------------------------------------

    def from_engine(self, text: str, kind: str | None, rid: object) -> None:
        """Remember ``text`` if it is the engine's hello or its answer to the last request."""
        if kind == "hello" and self._engine_hello is None:
            self._engine_hello = text
        elif kind == "action" and rid == self._request_id:
            self._reply = text

    def sent(self, text: str, conn_no: int) -> None:
        """``text`` reached connection ``conn_no``: it is not sent on it again."""
        # by identity: an equal line that is not the remembered one is not it
        if text is self._reply:
            self._reply_conn = conn_no
        if text is self._engine_hello:
            self._engine_hello_conn = conn_no

    def keep(self, text: str) -> None:
        """Keep a line that found no connection (up to :data:`BUFFER_CAP`)."""
        if self._buffered + len(text) <= BUFFER_CAP:
            self._buffer.append(text)
            self._buffered += len(text)

    def catch_up(self, ws: ClientConnection, conn_no: int) -> None:
        """Send the lines kept while there was no connection."""
        for line in self._buffer:
            ws.send(line)
            self.sent(line, conn_no)
        self._buffer = []
        self._buffered = 0

    # -- referee → engine ---------------------------------------------------------------

    def from_referee(
        self, kind: str | None, rid: object, ws: ClientConnection | None, conn_no: int
    ) -> bool:
        """Whether the engine is to get this referee line: not when it is one the engine
        already has (the engine's line that answered it is sent again instead, if it
        has not been sent on connection ``conn_no``)."""
        if kind == "hello":
            if self.greeted:
                # the referee still waits for our hello: it was lost on the way
                if self._engine_hello is not None and self._engine_hello_conn != conn_no:
                    self._engine_hello_conn = conn_no
                    if ws is not None:
                        ws.send(self._engine_hello)
                return False
            self.greeted = True
        elif kind == "request":
            if rid == self._request_id and rid is not None:
                # sent again after a reconnection: the engine has it already
                if self._reply is not None and self._reply_conn != conn_no:
                    self._reply_conn = conn_no
                    if ws is not None:
                        ws.send(self._reply)
                return False
            self._request_id, self._reply = rid, None
        elif kind == "error" and rid == self._request_id:
            self._reply = None  # refused: the engine answers again
        return True
