"""What a network seat has received and not yet handed to the referee.

Lines from the client wait in an :class:`Inbox`, stamped on arrival, with the
:class:`ConnectionNote` of every connect, disconnect, resume, refusal and
restarted engine between them, in the order it all happened. The referee takes
them in ``receive``; the notes are written through the seat's
:data:`NoteSink` on the way.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from ..engines import Clock, Incoming, Line

BACKLOG_CAP: Final = 16 << 20  # characters received and not yet taken by the referee
WAIT_SLICE_S: Final = 0.05  # a receive looks at the (possibly fake) clock this often


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


class Inbox:
    """Items for the referee, in arrival order, and the notes between them.

    ``cv`` is the seat's lock: the seat changes what it knows of its client under
    it together with the inbox (a reply is stamped and pushed at once).
    :meth:`push`, :meth:`note`, :meth:`wrote` and :attr:`over_cap` are for a
    caller that holds it; :meth:`take`, :meth:`drain`, :meth:`note_dicts` and
    :meth:`wake` take it themselves; :meth:`has_lines` (a count, read as a hint)
    and :meth:`watch` (the referee's thread, before the match) do without it.
    """

    def __init__(self, cv: threading.Condition) -> None:
        self._cv = cv
        self.notes: list[ConnectionNote] = []  # every note, including those written
        self._queue: deque[Incoming | ConnectionNote] = deque()
        self._lines_waiting = 0  # Incoming items in _queue
        self._backlog = 0
        self._sink: NoteSink | None = None
        self._floor = 0  # no connection line may be stamped before the seat's last write

    def push(self, item: Incoming) -> None:
        self._queue.append(item)
        self._lines_waiting += 1
        if isinstance(item, Line):
            self._backlog += len(item.text)
        self._cv.notify_all()

    def note(self, event: str, t: int, fields: dict[str, Any]) -> None:
        note = ConnectionNote(event, t, fields)
        self.notes.append(note)
        self._queue.append(note)
        self._cv.notify_all()

    def wrote(self, t: int) -> None:
        """The seat wrote to its client at ``t``."""
        self._floor = t

    @property
    def over_cap(self) -> bool:
        return self._backlog > BACKLOG_CAP

    def has_lines(self) -> bool:
        return self._lines_waiting > 0

    def watch(self, sink: NoteSink) -> None:
        self._sink = sink

    def wake(self) -> None:
        """Wake a :meth:`take` that is waiting (to look at something else)."""
        with self._cv:
            self._cv.notify_all()

    def take(self, deadline: int | None, clock: Clock) -> tuple[Incoming | None, bool]:
        """The next item, waiting for it one slice at most; the notes before it
        are written on the way. ``(None, True)`` once ``deadline`` has passed;
        ``(None, False)``: nothing yet, look again."""
        notes: list[ConnectionNote] = []
        item: Incoming | None = None
        timed_out = False
        with self._cv:
            while self._queue:
                head = self._queue.popleft()
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
                    left = deadline - clock()
                    if left <= 0:
                        timed_out = True
                    else:
                        self._cv.wait(min(left / 1e9, WAIT_SLICE_S))
                else:
                    self._cv.wait(WAIT_SLICE_S)
        self._write(notes)
        return item, timed_out

    def drain(self) -> None:
        """Write the notes still waiting (the lines stay)."""
        with self._cv:
            notes = [n for n in self._queue if isinstance(n, ConnectionNote)]
            self._queue = deque(i for i in self._queue if not isinstance(i, ConnectionNote))
        self._write(notes)

    def note_dicts(self) -> list[dict[str, Any]]:
        """Every note so far as ``{"event": …, "t": clock ns, …}``."""
        with self._cv:
            return [{"t": n.t, **n.to_dict()} for n in self.notes]

    def _write(self, notes: list[ConnectionNote]) -> None:
        sink = self._sink
        if sink is None:
            return
        for n in notes:
            # the line may be written later than it happened: t_ns says when it was
            # written (never before the seat's last write, so the transcript's time
            # never goes back), at_ns when it happened
            sink(max(n.t, self._floor), {**n.to_dict(), "at": n.t})
