"""The --debug seat tap: every line both ways, stamped with the referee's clock."""

from __future__ import annotations

import io

from bidref.engines import Eof, ExitInfo, Incoming, Line
from bidref.players.abilities import abilities_of
from bidref.players.tap import DebugLog, TappedSeat


class ScriptedSeat:
    """Answers from a list; times come from the script (the referee's clock)."""

    def __init__(self) -> None:
        self.name = "bot"
        self.replies: list[Incoming | None] = [Line('{"type":"hello"}', 2_500_000), Eof(9_000_000)]
        self.sent: list[str] = []
        self.prepared = False

    def open(self) -> None: ...

    def send(self, text: str) -> int:
        self.sent.append(text)
        return 1_000_000

    def receive(self, deadline: int | None) -> Incoming | None:
        return self.replies.pop(0)

    def has_input(self) -> bool:
        return True

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        return None

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        return ExitInfo(0, None, "exited")

    def stderr_tail(self) -> str:
        return ""

    def stderr_bytes(self) -> int:
        return 0

    def describe(self) -> dict[str, object]:
        return {"name": self.name}


def test_every_line_both_ways_is_logged_with_the_referee_s_times() -> None:
    out = io.StringIO()
    inner = ScriptedSeat()
    seat = TappedSeat(inner, DebugLog(out, origin=0), "bot(A)")
    assert seat.send('{"type":"event"}\n{"type":"request"}') == 1_000_000
    assert seat.receive(None) == Line('{"type":"hello"}', 2_500_000)
    assert isinstance(seat.receive(None), Eof)
    seat.close('{"type":"quit"}', 0)
    assert inner.sent == ['{"type":"event"}\n{"type":"request"}']  # passed on unchanged
    assert out.getvalue().splitlines() == [
        '   0.001 >bot(A): {"type":"event"}',
        '   0.001 >bot(A): {"type":"request"}',
        '   0.003 <bot(A): {"type":"hello"}',
        "   0.009 <bot(A): [end of output]",
        '   0.009 >bot(A): {"type":"quit"}',
        "   0.009 <bot(A): [ended: " + ExitInfo(0, None, "exited").describe() + "]",
    ]


def test_optional_seat_methods_are_offered_exactly_when_the_seat_has_them() -> None:
    seat = TappedSeat(ScriptedSeat(), DebugLog(io.StringIO()))
    has = abilities_of(seat)
    assert has.has_input is not None and has.has_input() is True
    assert has.before_end is None and has.settle_stderr is None
    assert seat.name == "bot" and seat.describe() == {"name": "bot"}
