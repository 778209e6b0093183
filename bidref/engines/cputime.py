"""An engine's CPU time, and the one place where a jail plugs into a transport.

Without a jail, :class:`ProcTreeCpu` sums user + system time of the engine's
process tree from ``/proc``: the engine process and every living descendant
(``/proc/PID/task/TID/children``), each with the time of the children it has
reaped (``cutime`` + ``cstime``), so a child that ends between two readings
moves its time into its parent's count instead of losing it. ``stat`` counts
in clock ticks (10 ms here): a decision of a fast engine would read 0 or 10 ms.
So a living process's own time is the larger of its ``stat`` figure and the sum
of its threads' ``schedstat`` run time (ns); reaped children count in ticks. What it cannot
see: a descendant whose parent exited before it (the orphan is re-parented
outside the tree: its later time is not counted) and children that were
never waited for once they are gone. A jail (a cgroup) sees all of them;
that is why its figure wins where there is one.

It is read at decision boundaries only, so it must be cheap: the
``stat`` and ``children`` files stay open and are re-read with ``pread`` (a
procfs file regenerates its text at offset 0); an engine with one thread and
no children costs two reads. An open ``/proc/PID`` file keeps naming the
process it was opened for (a reused pid is another process, whose reads
fail on the old descriptor), so a cached descriptor never reads a stranger.

:class:`Jail` is what another module (the sandbox) provides per engine:
``freeze()``, ``thaw()`` (the cgroup freezer) and ``cpu_ns()`` (the cgroup's
``cpu.stat``). A transport whose ``jail`` attribute is set uses it for all
three instead of ``/proc`` and process-group signals.
"""

from __future__ import annotations

import contextlib
import os
from typing import Final, Protocol

MAX_PROCESSES: Final = 4096  # a bound on the tree walked per reading


def _ns_per_tick() -> int:
    try:
        ticks = os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError):  # pragma: no cover - every Linux has it
        ticks = 100
    return 1_000_000_000 // max(1, ticks)


NS_PER_TICK: Final = _ns_per_tick()


class Jail(Protocol):
    """What a jail offers the transport of the engine it holds (see the module doc)."""

    def freeze(self) -> None:
        """Stop every process in the jail (returns once they are stopped)."""
        ...

    def thaw(self) -> None:
        """Let them run again."""
        ...

    def cpu_ns(self) -> int | None:
        """User + system time of everything the jail ever ran (ns), or None."""
        ...


class ProcTreeCpu:
    """User + system time (ns) of process ``pid`` and its descendants, from /proc."""

    __slots__ = ("_children", "_last", "_lone", "_runs", "_stats", "pid")

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._stats: dict[int, int] = {}  # pid -> open /proc/PID/stat
        self._children: dict[tuple[int, int], int] = {}  # (pid, tid) -> open .../children
        self._runs: dict[tuple[int, int], int] = {}  # (pid, tid) -> open .../schedstat
        self._last: int | None = None
        # The usual engine, one process with one thread, is read in three reads and
        # little else (the referee reads both engines at every reply): the
        # descriptors of its stat, schedstat and children, while it is one.
        self._lone: tuple[int, int, int] | None = None

    def read(self) -> int | None:
        """The tree's CPU time now (ns); the last figure read once the engine is gone
        (None if there never was one: no /proc). Never less than an earlier one."""
        ns = self._lone_ns() if self._lone is not None else None
        if ns is None:
            ns = self._tree_ns()
        last = self._last
        if ns is not None and (last is None or ns > last):
            self._last = last = ns
        return last

    def _lone_ns(self) -> int | None:
        """:meth:`_tree_ns` while the engine is one process with one thread; None
        once it is not (it started a thread or a child, or it is gone)."""
        assert self._lone is not None
        stat_fd, run_fd, kids_fd = self._lone
        try:
            kids = os.pread(kids_fd, 64, 0)
            st = os.pread(stat_fd, 1024, 0)
            run = os.pread(run_fd, 128, 0)
            f = st[st.rindex(b")") + 2 :].split(b" ", 19)
            if kids or f[17] != b"1":
                self._lone = None
                return None
            own = max((int(f[11]) + int(f[12])) * NS_PER_TICK, int(run[: run.index(b" ")]))
            return own + (int(f[13]) + int(f[14])) * NS_PER_TICK
        except (OSError, ValueError, IndexError):
            self._lone = None
            return None

    def close(self) -> None:
        self._lone = None
        for fd in (*self._stats.values(), *self._children.values(), *self._runs.values()):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._stats.clear()
        self._children.clear()
        self._runs.clear()

    def _tree_ns(self) -> int | None:
        root = self._stat(self.pid)
        if root is None:
            return None
        total = 0
        seen = {self.pid}
        todo = [(self.pid, root)]
        while todo:
            pid, fields = todo.pop()
            # utime stime cutime cstime num_threads: fields 14-17 and 20 of stat(5),
            # counted here after the ")"
            threads = int(fields[17])
            tids = self._tids(pid, threads)
            own = max((int(fields[11]) + int(fields[12])) * NS_PER_TICK, self._run_ns(pid, tids))
            total += own + (int(fields[13]) + int(fields[14])) * NS_PER_TICK
            for child in self._kids(pid, tids):
                if child not in seen and len(seen) < MAX_PROCESSES:
                    seen.add(child)
                    st = self._stat(child)
                    if st is not None:
                        todo.append((child, st))
        self._forget(seen)
        pid = self.pid
        if len(seen) == 1 and root[17] == b"1":
            stat_fd = self._stats.get(pid)
            run_fd = self._runs.get((pid, pid))
            kids_fd = self._children.get((pid, pid))
            if stat_fd is not None and run_fd is not None and kids_fd is not None:
                self._lone = (stat_fd, run_fd, kids_fd)
        return total

    def _stat(self, pid: int) -> list[bytes] | None:
        fd = self._stats.get(pid)
        try:
            if fd is None:
                fd = self._stats[pid] = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            data = os.pread(fd, 1024, 0)
            fields = data.rsplit(b")", 1)[1].split()
            if len(fields) < 18:
                return None
            return fields
        except (OSError, IndexError):
            self._drop_stat(pid)
            return None

    @staticmethod
    def _tids(pid: int, threads: int) -> list[int]:
        """The threads of ``pid`` (no look when it has one: its own)."""
        if threads <= 1:
            return [pid]
        try:
            return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        except (OSError, ValueError):
            return [pid]

    def _run_ns(self, pid: int, tids: list[int]) -> int:
        """The run time (ns) of the living threads ``tids`` of ``pid``, from schedstat."""
        total = 0
        for tid in tids:
            data = self._pread(self._runs, (pid, tid), f"/proc/{pid}/task/{tid}/schedstat", 256)
            if data:
                total += int(data.split(maxsplit=1)[0])
        return total

    def _kids(self, pid: int, tids: list[int]) -> list[int]:
        """The children of every thread ``tids`` of ``pid``."""
        out: list[int] = []
        for tid in tids:
            data = self._pread(
                self._children, (pid, tid), f"/proc/{pid}/task/{tid}/children", 65536
            )
            if data:
                out.extend(int(c) for c in data.split())
        return out

    @staticmethod
    def _pread(cache: dict[tuple[int, int], int], key: tuple[int, int], path: str, n: int) -> bytes:
        """The text of ``path`` now, through a descriptor kept in ``cache`` (b"" when
        it cannot be read: the thread is gone)."""
        fd = cache.get(key)
        try:
            if fd is None:
                fd = cache[key] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(fd, n, 0)
        except OSError:
            fd = cache.pop(key, None)
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
            return b""

    def _forget(self, alive: set[int]) -> None:
        """Close the descriptors of processes no longer in the tree."""
        for pid in [p for p in self._stats if p not in alive]:
            self._drop_stat(pid)
        for cache in (self._children, self._runs):
            for key in [k for k in cache if k[0] not in alive]:
                fd = cache.pop(key)
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _drop_stat(self, pid: int) -> None:
        fd = self._stats.pop(pid, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


__all__ = ["NS_PER_TICK", "Jail", "ProcTreeCpu"]
