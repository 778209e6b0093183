"""A network seat seen as an engine :class:`~bidref.engines.Transport`.

``bidref check-engine listen://HOST:PORT`` checks a remote engine: the checker
talks to engine transports, so :class:`SeatTransport` puts that face on a
:class:`NetworkSeat`. A remote engine cannot be restarted from here: where the
checker restarts a local engine (after a crash or a request left unanswered),
:func:`remote_starter` says so and the items after it fail with that reason.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engines import Clock, EngineSpec, EngineStartError, ExitInfo, Incoming, Transport, WriteError
from .seat import NetworkSeat


class SeatTransport:
    """The :class:`Transport` interface over a network seat (``pid`` is 0: no
    process here)."""

    pid = 0
    jail = None  # its jail, if any, is on another machine

    def __init__(self, seat: NetworkSeat) -> None:
        self.seat = seat

    def write_line(self, text: str) -> int:
        if self.seat.ended:
            raise WriteError("the remote engine's seat is closed")
        return self.seat.send(text)

    def read(self, deadline: int | None) -> Incoming | None:
        return self.seat.receive(deadline)

    def note_descendants(self) -> None:
        pass  # its processes are on another machine

    def has_input(self) -> bool:
        return self.seat.has_input()

    def poll_exit(self) -> ExitInfo | None:
        return self.seat.exit_info(0)

    def wait_exit(self, timeout_ns: int) -> ExitInfo | None:
        return self.seat.exit_info(timeout_ns)

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        return self.seat.close(quit_line, grace_ns)

    def stderr_tail(self) -> str:
        return self.seat.stderr_tail()

    def settle_stderr(self, timeout_ns: int) -> None:
        pass  # a network engine's stderr stays with its client

    def stderr_bytes(self) -> int:
        return self.seat.stderr_bytes()

    def cpu_ns(self) -> int | None:
        return None  # its processes are on another machine

    def freeze(self) -> None:
        pass  # idem: a remote engine cannot be stopped from here

    def thaw(self) -> None:
        pass

    def wait_sample(self) -> None:
        return None  # (the machine's wait of a remote engine is not seen from here)

    def cores(self) -> None:
        return None

    def priority_lowered(self) -> bool:
        return False

    def runnable_tasks(self) -> set[int]:
        return set()


def remote_starter(seat: NetworkSeat) -> Callable[[EngineSpec, str, Clock], Transport]:
    """A ``check_engine`` starter: the seat the first time, a refusal after."""
    started = False

    def start(spec: EngineSpec, transport: str, clock: Clock) -> Transport:
        nonlocal started
        if started:
            raise EngineStartError(
                "a remote engine is not restarted by the referee (run `bidref connect` "
                "against a new `check-engine listen://…` to check it again)"
            )
        started = True
        return SeatTransport(seat)

    return start
