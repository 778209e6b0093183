"""An engine that ends before its hello is quoted to its last words: its stderr is
read to the end first (issue 35, item 8: under load the reader of its stderr may
not have read its traceback yet when the referee sees its stdout close)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bidref.engines import ExitInfo
from bidref.match.referee import run_match
from bidref.transcript import counter_salt

from .fakes import EOF_MARK, FakeClock, FakeSeat, Reply, first_legal
from .test_protocol_paths import SPEC

LAST_WORDS = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'x'"


@dataclass
class LaggingStderr(FakeSeat):
    """A seat whose stderr reader is behind: the engine's last words are read
    only once the referee waits for them (settle_stderr)."""

    settled: bool = False

    def settle_stderr(self, timeout_ns: int) -> None:
        self.settled = True

    def stderr_tail(self) -> str:
        return LAST_WORDS if self.settled else ""


def _ends_at_hello(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
    return [(1_000, EOF_MARK)] if msg["type"] == "hello" else []


def test_a_start_up_failure_quotes_the_stderr_read_to_its_end() -> None:
    clock = FakeClock()
    a = LaggingStderr("a", clock, _ends_at_hello, exit=ExitInfo(1, None, "exited"))
    b = FakeSeat("b", clock, first_legal())
    out = run_match(SPEC, seats=[a, b], clock=clock, salt=counter_salt())
    assert out.reason == "startup"
    assert a.settled
    assert "No module named" in out.end.problem, out.end
    assert "flush" not in out.end.problem  # (the evidence speaks: item 3)
