"""check-engine against a scripted in-process transport on a fake clock (no processes)."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

from bidref.check_engine import CheckSettings, check_engine
from bidref.engines import EngineSpec, ExitInfo, Incoming, Line, Transport
from bidref.rules import MILLISECOND, SECOND

Reply = Callable[[dict[str, Any]], tuple[int, dict[str, Any]] | None]


class FakeTransport:
    """An engine as a function: each line written may produce one reply line
    ``delay`` ns later on the shared fake clock. Reading past a deadline moves
    the clock to the deadline and returns None, so nothing ever sleeps."""

    pid = 4242

    def __init__(self, now: list[int], reply: Reply) -> None:
        self.now = now
        self.reply = reply
        self.queue: deque[Line] = deque()
        self.exited: ExitInfo | None = None

    def cpu_ns(self) -> int | None:
        return None  # a function has no CPU time of its own

    def freeze(self) -> None:
        pass  # nothing runs between lines: there is nothing to stop

    def thaw(self) -> None:
        pass

    def write_line(self, text: str) -> int:
        msg = json.loads(text)
        if msg["type"] == "quit":
            self.exited = ExitInfo(0, None, "quit")
            return self.now[0]
        out = self.reply(msg)
        if out is not None:
            delay, obj = out
            self.queue.append(Line(json.dumps(obj), self.now[0] + delay))
        return self.now[0]

    def read(self, deadline: int | None) -> Incoming | None:
        if self.queue and (deadline is None or self.queue[0].t < deadline):
            item = self.queue.popleft()
            self.now[0] = max(self.now[0], item.t)
            return item
        assert deadline is not None
        self.now[0] = max(self.now[0], deadline)
        return None

    def poll_exit(self) -> ExitInfo | None:
        return self.exited

    def wait_exit(self, timeout_ns: int) -> ExitInfo | None:
        return self.exited

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        if self.exited is None:
            self.exited = (
                ExitInfo(0, None, "quit") if quit_line else ExitInfo(None, "SIGTERM", "sigterm")
            )
        return self.exited

    def stderr_tail(self) -> str:
        return ""

    def stderr_bytes(self) -> int:
        return 0


def engine(decision_delay: int) -> Reply:
    """A correct engine that takes ``decision_delay`` ns per decision."""

    def reply(msg: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        kind = msg["type"]
        if kind == "hello":
            return 5 * MILLISECOND, {"type": "hello", "name": "fake", "protocol": "bidref/1"}
        if kind == "ping":
            return MILLISECOND, {"type": "pong", "id": msg["id"]}
        if kind == "request":
            return decision_delay, {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
        if kind == "error" and msg["code"] == "illegal":
            return decision_delay, {"type": "action", "id": msg["id"], "action": reply.legal[-1]}  # type: ignore[attr-defined]
        return None

    reply.legal = ["?"]  # type: ignore[attr-defined]
    return reply


def run(decision_delay: int) -> dict[str, tuple[bool, str]]:
    now = [0]
    script = engine(decision_delay)

    def remember_legal(msg: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        if msg["type"] == "request":
            script.legal = msg["legal"]  # type: ignore[attr-defined]
        return script(msg)

    def starter(spec: EngineSpec, transport: str, clock: Callable[[], int]) -> Transport:
        return FakeTransport(now, remember_legal)

    settings = CheckSettings(bank=1 * SECOND, delay=100 * MILLISECOND, startup=SECOND)
    report = check_engine(
        EngineSpec("fake", ("fake",)), settings, clock=lambda: now[0], starter=starter
    )
    return {r.item: (r.passed, r.detail) for r in report.results}


def test_a_prompt_correct_engine_passes_every_item() -> None:
    results = run(decision_delay=30 * MILLISECOND)
    assert {k for k, (ok, _) in results.items() if not ok} == set()
    assert "median 30.0 ms" in results["reply time"][1]


def test_replies_just_inside_the_deadline_pass() -> None:
    results = run(decision_delay=1100 * MILLISECOND - 1)
    assert results["reply time"][0], results["reply time"]


def test_a_reply_at_the_deadline_is_late() -> None:
    results = run(decision_delay=1100 * MILLISECOND)  # bank 1 s + delay 0.1 s: exactly due
    failed = {k for k, (ok, _) in results.items() if not ok}
    assert "play" in failed and "reply time" in failed
    # It did answer, just too late: not the hint for unflushed output.
    assert "too slow" in results["play"][1] and "1100 ms" in results["play"][1]
    assert "not flushed" not in results["play"][1]
    assert "forced opening" in results["reply time"][1]


def test_the_hello_carries_the_engine_files_options_as_the_referees_does() -> None:
    now = [0]
    hellos: list[dict[str, Any]] = []
    script = engine(10 * MILLISECOND)

    def recording(msg: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        if msg["type"] == "hello":
            hellos.append(msg)
        return script(msg)

    def starter(spec: EngineSpec, transport: str, clock: Callable[[], int]) -> Transport:
        return FakeTransport(now, recording)

    spec = EngineSpec("fake", ("fake",), options={"depth": 3, "book": "openings.txt"})
    check_engine(
        spec,
        CheckSettings(bank=SECOND, delay=100 * MILLISECOND, startup=SECOND),
        clock=lambda: now[0],
        starter=starter,
    )
    assert hellos and hellos[0]["options"] == {"depth": 3, "book": "openings.txt"}


def test_a_silent_engine_is_told_to_flush_or_to_use_a_pty() -> None:
    now = [0]
    script = engine(10 * MILLISECOND)

    def silent_to_requests(msg: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        return None if msg["type"] == "request" else script(msg)

    def starter(spec: EngineSpec, transport: str, clock: Callable[[], int]) -> Transport:
        return FakeTransport(now, silent_to_requests)

    report = check_engine(
        EngineSpec("fake", ("fake",)),
        CheckSettings(bank=SECOND, delay=100 * MILLISECOND, startup=SECOND),
        clock=lambda: now[0],
        starter=starter,
    )
    detail = {r.item: r.detail for r in report.results}["play"]
    assert "not flushed" in detail and "--transport pty" in detail
