"""What a seat can do beyond the :class:`~bidref.players.Seat` interface, declared.

Each optional ability is a small :class:`typing.Protocol` (as python-chess
declares each engine capability). :func:`abilities_of` resolves them ONCE per
seat into a :class:`SeatAbilities`: a typed record of the seat's bound methods,
None where it has no such ability. The referee, its meters, the session and
the ending read that record; none of them probes a seat with ``getattr``
(tests/test_architecture.py keeps it so), so mypy checks every call.

A seat that wraps another (a person's watch on an engine's seat, a debug tap)
declares :class:`Declares`: it hands over the abilities it resolved for its
inner seat instead of forwarding each method.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..engines import ExitInfo
    from ..engines.schedwait import Sample
    from ..sandbox.breach import Breach

ConnectionSink = Callable[[int, dict[str, Any]], None]
"""Where a network seat reports its client's comings and goings (bidref.net.inbox)."""


@runtime_checkable
class HasInput(Protocol):
    def has_input(self) -> bool:
        """A complete line (or the end) is there that ``receive`` has not returned."""
        ...


@runtime_checkable
class BeforeEnd(Protocol):
    def before_end(self) -> None:
        """The match is over and the player told; before its quit line."""
        ...


@runtime_checkable
class CpuTime(Protocol):
    def cpu_ns(self) -> int | None:
        """User + system time (ns) of everything the player ran, None where unknown."""
        ...


# The machine's wait of an engine's tasks, for the clock's excuse (bidref/outcome/excuse.py):
@runtime_checkable
class WaitSample(Protocol):
    def wait_sample(self) -> Sample | None:
        """The run-queue counters of its tasks (bidref/engines/schedwait.py)."""
        ...


@runtime_checkable
class Cores(Protocol):
    def cores(self) -> int | None:
        """How many CPUs it may run on."""
        ...


@runtime_checkable
class PriorityLowered(Protocol):
    def priority_lowered(self) -> bool:
        """Whether it lowered its own priority (its wait is then its own)."""
        ...


@runtime_checkable
class RunnableTasks(Protocol):
    def runnable_tasks(self) -> set[int]:
        """Which of its tasks are runnable now (their wait is not counted yet)."""
        ...


@runtime_checkable
class Freezes(Protocol):
    """--freeze-idle: stop the player while it is not on move, and let it run."""

    def freeze(self) -> None: ...

    def thaw(self) -> None: ...


@runtime_checkable
class Breaches(Protocol):
    def breach(self, info: ExitInfo | None) -> Breach | None:
        """The jail limit the player, which ended as ``info``, ran into, if any."""
        ...


@runtime_checkable
class SettlesStderr(Protocol):
    def settle_stderr(self, timeout_ns: int) -> None:
        """Once the player exited, wait (bounded) until its diagnostics are read."""
        ...


# A seat behind a connection (a network seat, bidref.net):
@runtime_checkable
class Disconnects(Protocol):
    def disconnected_at(self) -> int | None:
        """The clock time its client left, None while one is connected."""
        ...


@runtime_checkable
class WatchesConnection(Protocol):
    def watch_connection(self, sink: ConnectionSink) -> None:
        """Report its client's comings and goings to ``sink``."""
        ...


@dataclass(frozen=True, slots=True)
class SeatAbilities:
    """A seat's optional abilities, each its bound method or None (see the module doc)."""

    has_input: Callable[[], bool] | None = None
    before_end: Callable[[], None] | None = None
    cpu_ns: Callable[[], int | None] | None = None
    wait_sample: Callable[[], Sample | None] | None = None
    cores: Callable[[], int | None] | None = None
    priority_lowered: Callable[[], bool] | None = None
    runnable_tasks: Callable[[], set[int]] | None = None
    freeze: Callable[[], None] | None = None
    thaw: Callable[[], None] | None = None
    breach: Callable[[ExitInfo | None], Breach | None] | None = None
    settle_stderr: Callable[[int], None] | None = None
    disconnected_at: Callable[[], int | None] | None = None
    watch_connection: Callable[[ConnectionSink], None] | None = None


@runtime_checkable
class Declares(Protocol):
    """A seat that says what it can do itself (a wrapper: its inner seat's abilities)."""

    def abilities(self) -> SeatAbilities: ...


def abilities_of(seat: object) -> SeatAbilities:
    """``seat``'s optional abilities, resolved once (see the module doc)."""
    if isinstance(seat, Declares):
        return seat.abilities()
    hold = seat if isinstance(seat, Freezes) else None
    return SeatAbilities(
        has_input=seat.has_input if isinstance(seat, HasInput) else None,
        before_end=seat.before_end if isinstance(seat, BeforeEnd) else None,
        cpu_ns=seat.cpu_ns if isinstance(seat, CpuTime) else None,
        wait_sample=seat.wait_sample if isinstance(seat, WaitSample) else None,
        cores=seat.cores if isinstance(seat, Cores) else None,
        priority_lowered=seat.priority_lowered if isinstance(seat, PriorityLowered) else None,
        runnable_tasks=seat.runnable_tasks if isinstance(seat, RunnableTasks) else None,
        freeze=None if hold is None else hold.freeze,
        thaw=None if hold is None else hold.thaw,
        breach=seat.breach if isinstance(seat, Breaches) else None,
        settle_stderr=seat.settle_stderr if isinstance(seat, SettlesStderr) else None,
        disconnected_at=seat.disconnected_at if isinstance(seat, Disconnects) else None,
        watch_connection=seat.watch_connection if isinstance(seat, WatchesConnection) else None,
    )


__all__ = [
    "BeforeEnd",
    "Breaches",
    "ConnectionSink",
    "Cores",
    "CpuTime",
    "Declares",
    "Disconnects",
    "Freezes",
    "HasInput",
    "PriorityLowered",
    "RunnableTasks",
    "SeatAbilities",
    "SettlesStderr",
    "WaitSample",
    "WatchesConnection",
    "abilities_of",
]
