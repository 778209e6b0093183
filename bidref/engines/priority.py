"""The referee's CPU priority over its engines, where the machine allows it.

On a machine with more runnable tasks than cores, a referee that wakes at a
deadline waits for a CPU like everyone else, and a late look cannot be
judged: a ``timing_fault``, the match aborted. Measured on the 2-core machine
of docs/perf.md ("The clock under overload"), with two busy processes: a
thread sleeping 2 ms woke 4.7 ms late at p90 at nice 0, and still 4.7 ms at
nice -10 — the kernel preempts a running fair-class task for a waking one
only at its next tick (lazy preemption) — but 0.08 ms late at p90 (0.4 ms
at worst) as a real-time (``SCHED_FIFO``) thread, which preempts at once.

So while it referees, the thread running the match asks for, in order:

1. ``SCHED_FIFO`` priority 1 (the lowest real-time one): needs root,
   CAP_SYS_NICE or an RLIMIT_RTPRIO. Its work is small and bounded (a look, a
   line, a write; the caps of docs/match.md bound what an engine can make it
   do), and the kernel's real-time throttling keeps 5 % of every CPU for the
   rest whatever happens. The work it does while an engine thinks (preparing
   the next steps, stopped as soon as a line comes) stays at that priority:
   done at the engines' priority instead, a preempted thread was kept from its
   look at the deadline for tens of milliseconds (timing faults, measured).
2. Else ``nice`` :data:`BOOST` below its own (needs the same privilege, minus
   real-time; a smaller gain: see above).
3. Else nothing: it runs at its own priority, as before.

Either way with ``SCHED_RESET_ON_FORK``: every process and thread it starts
(the engines, the watchdog, the readers of an engine's stderr) starts as an
ordinary task again, and the engines' set-up
(:func:`bidref.engines.contain.child_setup`) also gives them the nice value the
referee had before (:func:`engine_nice`). No engine ever gets the referee's
priority; the engines' priority against every other process is unchanged.
The priority is per thread (Linux): other threads of the process keep theirs.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Final, Literal

BOOST: Final = 10  # nice steps above the engines, without real-time: weight 9548 vs 1024
_ENV_OFF: Final = "BIDREF_REFEREE_PRIORITY"  # "0": never raised (benchmarks compare)
_thread = threading.local()  # .nice: the thread's nice before it was raised

Kind = Literal["realtime", "nice", "none"]


def engine_nice() -> int | None:
    """The nice value engines started from this thread get (None: not raised)."""
    nice: int | None = getattr(_thread, "nice", None)
    return nice


class RefereePriority:
    """What :func:`referee_priority` got."""

    __slots__ = ("kind",)

    def __init__(self, kind: Kind) -> None:
        self.kind = kind


NOT_RAISED: Final = RefereePriority("none")


@contextlib.contextmanager
def referee_priority(enabled: bool = True) -> Iterator[RefereePriority]:
    """Run the body at the referee's priority (see the module doc). The thread's
    own priority is restored after."""
    if (
        not enabled
        or os.environ.get(_ENV_OFF) == "0"
        or not hasattr(os, "SCHED_RESET_ON_FORK")
        or getattr(_thread, "nice", None) is not None  # (raised already: nested)
    ):
        yield NOT_RAISED
        return
    try:
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        policy = os.sched_getscheduler(0)
    except OSError:
        yield NOT_RAISED
        return
    got = _raise(nice) if policy == os.SCHED_OTHER else NOT_RAISED
    if got.kind == "none":
        yield got
        return
    _thread.nice = nice
    try:
        yield got
    finally:
        _thread.nice = None
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, policy, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, 0, nice)


def _raise(nice: int) -> RefereePriority:
    reset = os.SCHED_RESET_ON_FORK
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO | reset, os.sched_param(1))
        return RefereePriority("realtime")
    except OSError:
        pass
    try:
        os.sched_setscheduler(0, os.SCHED_OTHER | reset, os.sched_param(0))  # (no privilege)
        os.setpriority(os.PRIO_PROCESS, 0, max(-20, nice - BOOST))
        return RefereePriority("nice")
    except OSError:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        return NOT_RAISED


__all__ = ["BOOST", "NOT_RAISED", "RefereePriority", "engine_nice", "referee_priority"]
