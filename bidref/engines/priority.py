"""The referee's CPU priority over its engines, where the machine allows it.

On a machine with more runnable tasks than cores, a referee that wakes at a
deadline waits on a run queue like everyone else: its look comes late, and a
late look cannot be judged (a ``timing_fault``, the match aborted). Its work
is small (a look, a line, a write) but must come on time, so while it referees
the thread running the match asks for a higher priority than the engines:

- ``nice`` :data:`BOOST` below its own (``setpriority`` of the calling
  thread: on Linux a nice value is per thread, so other threads of the
  process are left alone), with
- ``SCHED_RESET_ON_FORK``: every process it starts (the engines, the
  watchdog) starts at nice 0 again (the kernel resets a negative nice in the
  child), so no engine ever inherits the referee's priority, whatever its
  set-up does.

The engines' set-up (:func:`bidref.engines.contain.child_setup`) also sets the
nice value the referee thread had before (:func:`engine_nice`): the reset
alone gives 0, which is not it when the referee was started with ``nice``.

Lowering a nice value needs privilege (root, CAP_SYS_NICE, or RLIMIT_NICE): a
referee without it runs at its own priority, as before (:func:`boosted` says
which). The engines are never made slower: their priority relative to every
other process on the machine is unchanged.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Final

BOOST: Final = 10  # nice steps above the engines: weight 9548 against 1024 at nice 0
_ENV_OFF: Final = "BIDREF_REFEREE_PRIORITY"  # "0": never raised (benchmarks compare)
_thread = threading.local()  # .nice: the thread's nice before it was raised


def engine_nice() -> int | None:
    """The nice value engines started from this thread get (None: not raised)."""
    nice: int | None = getattr(_thread, "nice", None)
    return nice


@contextlib.contextmanager
def referee_priority(enabled: bool = True) -> Iterator[bool]:
    """Run the body at the referee's priority (see the module doc); yields
    whether it could be raised. The thread's own priority is restored after."""
    if (
        not enabled
        or os.environ.get(_ENV_OFF) == "0"
        or not hasattr(os, "SCHED_RESET_ON_FORK")
        or getattr(_thread, "nice", None) is not None  # (raised already: nested)
    ):
        yield False
        return
    try:
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        policy = os.sched_getscheduler(0)
    except OSError:
        yield False
        return
    raised = False
    if policy == os.SCHED_OTHER and nice > -20 + BOOST:
        try:
            # the flag first (it needs no privilege), then the nice value (it does)
            os.sched_setscheduler(0, os.SCHED_OTHER | os.SCHED_RESET_ON_FORK, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, 0, nice - BOOST)
            raised = True
        except OSError:
            pass
    if not raised:
        yield False
        return
    _thread.nice = nice
    try:
        yield True
    finally:
        _thread.nice = None
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, nice)
            os.sched_setscheduler(0, policy, os.sched_param(0))


__all__ = ["BOOST", "engine_nice", "referee_priority"]
