"""A base for seats that live in the referee's own process (no program to end).

Test doubles, benchmarks and embedders that answer in Python implement
``send`` and ``receive`` (see :class:`bidref.players.Seat`) and get the rest:
such a seat has no exit status beyond a clean quit and no stderr.
"""

from __future__ import annotations

from ..engines import ExitInfo

_QUIT = ExitInfo(0, None, "quit")


class InProcessSeat:
    name: str = "in-process"

    def open(self) -> None:
        """Nothing to start."""

    def has_input(self) -> bool:
        """Never: the referee prepares every next step before it waits (an
        in-process seat answers in its own time, inside ``receive``)."""
        return False

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        return _QUIT

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        return _QUIT

    def stderr_tail(self) -> str:
        return ""

    def stderr_bytes(self) -> int:
        return 0

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "command": ["(in-process)"], "cwd": None}
