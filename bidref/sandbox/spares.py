"""One spare of each costly part of a jail, made when the last one is given back.

A jail's control group (a folder in each hierarchy) and, as root, its network
namespace take about 0.5-0.7 ms each to make, on the path of every engine's
start. A referee starts engines again and again (tournaments, rematches), so
when a jail is closed (at the end of its match, where no clock runs) the next
one's parts are made, and the next start takes them ready. (Not on a thread
while the match runs: it would hold the interpreter's lock just when the next
start needs it.) Each part is fresh and used by one jail only; a process never
takes one that its parent made before a fork (the pid is checked).

A spare group left when the process ends is removed at exit; one left by a
killed referee is swept like any of its groups (``bidref-PID-...``: the pid is
gone).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class Spares(Generic[T]):
    """Spares of one kind, at most one per ``key`` (the parts a jail wants)."""

    def __init__(self, discard: Callable[[T], None]) -> None:
        self._discard = discard
        self._lock = threading.Lock()
        self._ready: dict[Hashable, tuple[int, T]] = {}  # key -> (maker's pid, spare)
        atexit.register(self.clear)

    def take(self, key: Hashable, make: Callable[[], T]) -> T:
        """The spare for ``key`` if there is one, else one made now (``make``'s
        errors are the caller's)."""
        with self._lock:
            got = self._ready.pop(key, None)
        if got is not None and got[0] == os.getpid():
            return got[1]
        return make()

    def restock(self, key: Hashable, make: Callable[[], T]) -> None:
        """Make the spare for ``key`` now unless there is one; a failure is left
        for the next :meth:`take` to meet and say."""
        pid = os.getpid()
        with self._lock:
            held = self._ready.get(key)
            if held is not None and held[0] == pid:
                return
        try:
            item = make()
        except Exception:
            return
        with self._lock:
            if key not in self._ready or self._ready[key][0] != pid:
                self._ready[key] = (pid, item)
                return
        self._discard(item)

    def clear(self) -> None:
        """Discard the spares this process made (at exit); forget its parent's."""
        with self._lock:
            mine = [item for pid, item in self._ready.values() if pid == os.getpid()]
            self._ready = {}
        for item in mine:
            with contextlib.suppress(Exception):
                self._discard(item)
