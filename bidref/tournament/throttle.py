"""A run that keeps aborting matches because the machine is overloaded plays
fewer at once.

An abort for a referee's stall (``timing_fault``) or for the machine's wait
(``machine_wait``, bidref/outcome/excuse.py) says the machine had more to run
than CPUs; such a match is played again anyway (runner.py), so a run that
keeps aborting only wastes its time. When :data:`ABORTS` of the last
:data:`WINDOW` matches finished at the current level aborted so, the level is
halved (down to 1) and the count starts again: the matches still running were
started at the old level. Other aborts (an interrupt, a runner error) do not
count: a machine's load is not their cause.
"""

from __future__ import annotations

from collections import deque
from typing import Final

from ..outcome import AbortCause

OVERLOAD_CAUSES: Final = frozenset({AbortCause.TIMING_FAULT, AbortCause.MACHINE_WAIT})
WINDOW: Final = 20  # matches finished at the current level
ABORTS: Final = 3  # ... of which this many aborted for the machine's load: halve


class Throttle:
    """How many matches may run at once (:attr:`limit`), lowered by :meth:`note`."""

    def __init__(self, slots: int) -> None:
        self.limit = slots
        self.recent: deque[bool] = deque(maxlen=WINDOW)

    def note(self, aborted: bool, cause: AbortCause | None) -> str | None:
        """A match finished (``aborted``, with its ``cause``); what was lowered, in
        words, when the level goes down now, else None."""
        self.recent.append(aborted and cause in OVERLOAD_CAUSES)
        if self.limit <= 1 or sum(self.recent) < ABORTS:
            return None
        old, self.limit = self.limit, max(1, self.limit // 2)
        self.recent.clear()
        return (
            f"{ABORTS} of the last {WINDOW} matches aborted because the machine is "
            f"overloaded (referee stalls or the machine's wait): playing {self.limit} "
            f"at once instead of {old}"
        )


__all__ = ["ABORTS", "OVERLOAD_CAUSES", "WINDOW", "Throttle"]
