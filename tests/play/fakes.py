"""Fakes for play tests: a clock that jumps, a display that records every screen,
a scripted person who types after looking at the screen, and an engine seat that
always plays the first legal action (no process)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from bidref.engines import Eof, Incoming, Line
from bidref.players.inprocess import InProcessSeat
from bidref.rules import SECOND
from bidref.testing import FakeClock
from bidref.tui.screen import ScreenModel


class RecordingDisplay:
    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.models: list[ScreenModel] = []
        self.times: list[int] = []

    def show(self, model: ScreenModel) -> None:
        self.models.append(model)
        self.times.append(self.clock.t)

    @property
    def last(self) -> ScreenModel:
        return self.models[-1]


def situation(m: ScreenModel) -> tuple[object, ...] | None:
    """What the person is asked on screen ``m``, as a key; None: nothing."""
    if m.ask.footer.startswith("Player ") and "reveal" in m.ask.footer:
        return ("reveal", m.ask.footer, m.table.round, m.table.turn, m.table.drawn)
    if "continue" in m.ask.footer or "to start" in m.ask.footer:
        return ("pause", m.ask.footer, m.table.round)
    if m.ask.prompt is not None and m.ask.legal:
        # A new message (a problem with an entry, the rules shown) is a new situation.
        return ("ask", m.own.viewer, m.table.round, m.table.turn, m.table.drawn, m.ask.message)
    if m.ask.prompt is not None and "Resign the match?" in m.ask.message:
        return (
            "confirm",
            m.table.round,
            m.table.turn,
            m.table.drawn,
        )  # asked while nothing else is
    if m.ask.message.endswith("is thinking…"):
        return ("thinking", m.table.round, m.table.turn, m.table.drawn)
    return None


# A policy looks at a screen and its situation and says (wait in ns, what to type),
# or None to type nothing on that screen.
Policy = Callable[[ScreenModel, tuple[object, ...]], tuple[int, str] | None]


def first_legal(wait: int = SECOND // 2, reveal_wait: int = SECOND // 10) -> Policy:
    def policy(m: ScreenModel, sit: tuple[object, ...]) -> tuple[int, str] | None:
        if sit[0] == "ask":
            return wait, "1\n"
        if sit[0] == "reveal":
            return reveal_wait, "\n"
        return SECOND // 10, "\n"

    return policy


class BotKeys:
    """A person at the keyboard: on each new situation on screen, waits and types.

    Waiting advances the fake clock, never past the ``until`` of a read.
    """

    def __init__(self, clock: FakeClock, display: RecordingDisplay, policy: Policy) -> None:
        self.clock = clock
        self.display = display
        self.policy = policy
        self.done: set[tuple[object, ...]] = set()
        self.plan: tuple[tuple[object, ...], int, str] | None = None
        self.typed: list[tuple[int, str]] = []

    def read(self, until: int) -> str:
        m = self.display.last
        sit = situation(m)
        if sit is not None and sit not in self.done and (self.plan is None or self.plan[0] != sit):
            todo = self.policy(m, sit)
            self.plan = None if todo is None else (sit, self.clock.t + todo[0], todo[1])
        if self.plan is None or self.plan[0] != sit:
            self.clock.t = max(self.clock.t, until)
            return ""
        key, due, chars = self.plan
        if due > until:
            self.clock.t = max(self.clock.t, until)
            return ""
        self.clock.t = max(self.clock.t, due)
        self.plan = None
        self.done.add(key)
        self.typed.append((self.clock.t, chars))
        return chars

    def drain(self) -> str:
        return ""


class ScriptKeys:
    """Keys typed at given clock times: [(t, chars), ...] in order."""

    def __init__(self, clock: FakeClock, script: list[tuple[int, str]]) -> None:
        self.clock = clock
        self.script = list(script)

    def read(self, until: int) -> str:
        if self.script and self.script[0][0] <= until:
            t, chars = self.script.pop(0)
            self.clock.t = max(self.clock.t, t)
            return chars
        self.clock.t = max(self.clock.t, until)
        return ""

    def drain(self) -> str:
        """Keys typed up to now and not read yet."""
        out = ""
        while self.script and self.script[0][0] <= self.clock.t:
            out += self.script.pop(0)[1]
        return out


@dataclass
class FirstLegalSeat(InProcessSeat):
    """An engine seat without a process: answers every request with its first legal
    action ``think`` ns of the fake clock after it was sent (a ``receive`` with an
    earlier deadline returns None at that deadline, as a real seat's does)."""

    clock: FakeClock
    think: int = SECOND // 100
    name: str = "first"
    outbox: list[tuple[int, str]] = field(default_factory=list)  # (ready at, line)
    requests: list[tuple[int, int]] = field(default_factory=list)  # (round, sent at)

    def send(self, line: str) -> int:
        ready = self.clock.t + self.think
        for raw in line.split("\n"):
            msg = json.loads(raw)
            if msg["type"] == "hello":
                self.outbox.append(
                    (
                        ready,
                        json.dumps({"type": "hello", "name": self.name, "protocol": "bidref/1"}),
                    )
                )
            elif msg["type"] == "request":
                self.requests.append((msg["view"]["round"], self.clock.t))
                self.outbox.append(
                    (
                        ready,
                        json.dumps({"type": "action", "id": msg["id"], "action": msg["legal"][0]}),
                    )
                )
        return self.clock.t

    def receive(self, deadline: int | None) -> Incoming | None:
        if self.outbox:
            ready, line = self.outbox[0]
            if deadline is not None and deadline < ready:
                self.clock.t = max(self.clock.t, deadline)
                return None
            self.outbox.pop(0)
            self.clock.t = max(self.clock.t, ready)
            return Line(line, self.clock.t)
        if deadline is not None:
            self.clock.t = max(self.clock.t, deadline)
            return None
        return Eof(self.clock.t)

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "command": []}
