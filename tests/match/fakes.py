"""In-process fake engines on a fake clock, for the referee's protocol paths.

A :class:`FakeSeat` implements the referee's Seat interface. Every line the
referee sends is decoded and handed to a *script* function, which returns the
lines the fake engine answers with and how long after the send each arrives
(fake ns). :meth:`FakeSeat.receive` hands them back in time order and moves the
fake clock; when nothing arrives before the deadline the clock jumps to the
deadline (plus ``wake_late_ns``, to fake a stalled referee). Nothing sleeps.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bidref.engines import Eof, ExitInfo, Incoming, Line, Overlong
from bidref.rules import MILLISECOND
from bidref.testing import FakeClock

Reply = tuple[int, str]  # (delay after the triggering send in ns, line or a special marker)
Script = Callable[[dict[str, Any], "FakeSeat"], list[Reply]]

EOF_MARK = "<<eof>>"
OVERLONG_MARK = "<<overlong>>"
INTERRUPT_MARK = "<<interrupt>>"


def hello_line(name: str, protocol: str = "bidref/1") -> str:
    return json.dumps(
        {"type": "hello", "name": name, "author": "tests", "version": "0", "protocol": protocol}
    )


def action_line(req_id: int, action: str) -> str:
    return json.dumps({"type": "action", "id": req_id, "action": action})


def first_legal(think_ns: int = 1 * MILLISECOND) -> Script:
    """A well-behaved engine: hello at once, then legal[0] after ``think_ns``."""

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "hello":
            return [(0, hello_line(seat.name))]
        if msg["type"] == "request":
            return [(think_ns, action_line(msg["id"], msg["legal"][0]))]
        return []

    return script


def on_nth_request(n: int, bad: list[Reply] | Script, then: Script | None = None) -> Script:
    """A first-legal engine (or ``then``) that answers its ``n``-th request (1-based)
    with ``bad``: lines (``{ID}`` becomes the request's id) or a script of its own."""
    good = then or first_legal()
    count = 0

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        nonlocal count
        if msg["type"] == "request":
            count += 1
            if count == n:
                if callable(bad):
                    return bad(msg, seat)
                return [(d, line.replace("{ID}", str(msg["id"]))) for d, line in bad]
        return good(msg, seat)

    return script


@dataclass
class FakeSeat:
    name: str
    clock: FakeClock
    script: Script
    wake_late_ns: int = 0
    deliver_late: bool = False  # hand back lines stamped after the deadline, too
    exit: ExitInfo = field(default_factory=lambda: ExitInfo(0, None, "quit"))
    write_ns: int = 0  # how long a send takes
    sent: list[str] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    _requests: list[dict[str, Any]] = field(default_factory=list)
    _queue: list[tuple[int, int, str]] = field(default_factory=list)
    _n: int = 0
    closed: bool = False
    opened: bool = False
    # CPU time the fake engine reports using per line it sends (None: a seat that
    # cannot tell, like a person's: no cpu_ns figures in the transcript)
    cpu_per_line_ns: int | None = None
    # CPU time it uses as soon as a request is written to it (an engine that starts
    # thinking at once, before the referee's thread runs again)
    cpu_on_request_ns: int = 0
    _cpu: int = 0

    def open(self) -> None:
        self.opened = True

    def send(self, text: str) -> int:
        self.clock.now += self.write_ns
        now = self.clock.now
        for line in text.split("\n"):
            self.sent.append(line)
            msg = json.loads(line)
            self.received.append(msg)
            if msg["type"] == "request":
                self._requests.append(msg)
                self._cpu += self.cpu_on_request_ns
            for delay, reply in self.script(msg, self):
                self._n += 1
                heapq.heappush(self._queue, (now + delay, self._n, reply))
        return now

    def receive(self, deadline: int | None) -> Incoming | None:
        if self._queue and (deadline is None or self._queue[0][0] < deadline or self.deliver_late):
            t, _, text = heapq.heappop(self._queue)
            self.clock.advance_to(t)
            if text == EOF_MARK:
                return Eof(t)
            if text == OVERLONG_MARK:
                return Overlong("x" * 200, 5_000_000, t)
            if text == INTERRUPT_MARK:
                raise KeyboardInterrupt
            self._cpu += self.cpu_per_line_ns or 0
            return Line(text, t)
        assert deadline is not None, "the fake engine would never answer"
        self.clock.advance_to(deadline + self.wake_late_ns)
        return None

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        return self.exit

    def cpu_ns(self) -> int | None:
        return None if self.cpu_per_line_ns is None else self._cpu

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        self.closed = True
        return self.exit

    def stderr_tail(self) -> str:
        return "fake stderr"

    def stderr_bytes(self) -> int:
        return 11

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "command": ["fake"], "cwd": None}

    def requests(self) -> list[dict[str, Any]]:
        return self._requests

    def messages(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.received if m["type"] == kind]


@dataclass
class PipeSeat(FakeSeat):
    """A fake engine behind a pipe, judged as the referee judges a real one: a line
    is read by a *look* (it carries the last look that found nothing as ``after``),
    and the referee sleeps between looks until a line arrives or the deadline
    comes, waking ``wake_late_ns`` late (a stalled or overloaded referee).
    ``miss_wakeups``: the wait ignores arrivals and sleeps to the deadline (a lost
    hand-over: only the late look can find the line)."""

    miss_wakeups: bool = False
    _quiet: int = 0

    def _pop(self, after: int) -> Incoming:
        _t, _, text = heapq.heappop(self._queue)
        now = self.clock.now
        if text == EOF_MARK:
            return Eof(now)
        return Line(text, now, after)

    def has_input(self) -> bool:
        if self._queue and self._queue[0][0] <= self.clock.now:
            return True
        self._quiet = self.clock.now
        return False

    def receive(self, deadline: int | None) -> Incoming | None:
        while True:
            now = self.clock.now
            if self._queue and self._queue[0][0] <= now:
                return self._pop(self._quiet)
            self._quiet = now  # this look found nothing
            if deadline is not None and now >= deadline:
                return None
            arrival = self._queue[0][0] if self._queue else None
            if arrival is not None and (deadline is None or arrival < deadline):
                wake = deadline if self.miss_wakeups and deadline is not None else arrival
            else:
                assert deadline is not None, "the fake engine would never answer"
                wake = deadline
            self.clock.advance_to(wake + self.wake_late_ns)
