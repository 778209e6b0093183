"""A seat that writes every line to and from the player to a debug log (``--debug``).

:class:`TappedSeat` wraps any :class:`~bidref.players.Seat` and passes every call
through unchanged; on the way it writes each protocol line the referee sends and
each line the player answers to a :class:`DebugLog`, stamped with the referee's
own clock (the time ``send`` returned, the time ``receive`` read the line), so
the log shows exactly what the referee timed. It adds no waiting and reads no
clock of its own, so the match plays the same with and without it.

The log format is cutechess's, with seconds since the match began::

      0.004 >c_first(A): {"type":"hello","bidref":"0.3.0",...}
      0.011 <c_first(A): {"type":"hello","protocol":"bidref/1","name":"c_first"}
      9.871 <c_first(A): [end of output]

``>`` is a line sent to the engine, ``<`` one received from it.
"""

from __future__ import annotations

import threading
from typing import TextIO

from ..engines import Eof, ExitInfo, Incoming, Line, Overlong
from . import Seat
from .abilities import SeatAbilities, abilities_of


class DebugLog:
    """Where tapped lines go: a text stream, one line each, flushed at once.

    ``origin``: the clock time (ns) shown as 0; by default the first line's.
    Safe to share between seats (a lock keeps lines whole).
    """

    def __init__(self, stream: TextIO, origin: int | None = None) -> None:
        self.stream = stream
        self.origin = origin
        self._lock = threading.Lock()

    def write(self, t: int, direction: str, label: str, text: str) -> None:
        with self._lock:
            if self.origin is None:
                self.origin = t
            seconds = (t - self.origin) / 1e9
            self.stream.write(f"{seconds:8.3f} {direction}{label}: {text}\n")
            self.stream.flush()


class TappedSeat:
    """``inner`` with every line to and from it written to ``log``.

    Its optional abilities (bidref/players/abilities.py) are ``inner``'s own, so
    the referee treats the tapped seat as it would the seat itself.
    """

    def __init__(self, inner: Seat, log: DebugLog, label: str | None = None) -> None:
        self.inner = inner
        self.log = log
        self.label = label or inner.name
        self._last_t = 0  # the quit line in close() is shown at the last time seen
        self._abilities = abilities_of(inner)

    @property
    def name(self) -> str:
        return self.inner.name

    @name.setter
    def name(self, value: str) -> None:
        self.inner.name = value

    def abilities(self) -> SeatAbilities:
        return self._abilities

    def open(self) -> None:
        self.inner.open()

    def send(self, text: str) -> int:
        t = self._last_t = self.inner.send(text)
        for line in text.split("\n"):
            self.log.write(t, ">", self.label, line)
        return t

    def receive(self, deadline: int | None) -> Incoming | None:
        got = self.inner.receive(deadline)
        if got is not None:
            self._last_t = got.t
        if isinstance(got, Line):
            self.log.write(got.t, "<", self.label, got.text)
        elif isinstance(got, Overlong):
            self.log.write(
                got.t, "<", self.label, f"{got.prefix[:200]}… [a line of {got.length} bytes]"
            )
        elif isinstance(got, Eof):
            rest = f" (after {got.rest!r})" if got.rest else ""
            self.log.write(got.t, "<", self.label, f"[end of output]{rest}")
        return got

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        return self.inner.exit_info(wait_ns)

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        if quit_line is not None:
            self.log.write(self._last_t, ">", self.label, quit_line)
        info = self.inner.close(quit_line, grace_ns)
        self.log.write(self._last_t, "<", self.label, f"[ended: {info.describe()}]")
        return info

    def stderr_tail(self) -> str:
        return self.inner.stderr_tail()

    def stderr_bytes(self) -> int:
        return self.inner.stderr_bytes()

    def describe(self) -> dict[str, object]:
        return self.inner.describe()
