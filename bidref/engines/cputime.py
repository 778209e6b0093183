"""An engine's CPU time, and the one place where a jail plugs into a transport.

Without a jail, :class:`ProcTreeCpu` sums user + system time of the engine's
process tree from ``/proc``: the engine process and every living descendant
(``/proc/PID/task/TID/children``), each with the time of the children it has
reaped (``cutime`` + ``cstime``), so a child that ends between two readings
moves its time into its parent's count instead of losing it. ``stat`` counts
in clock ticks (10 ms here): a decision of a fast engine would read 0 or 10 ms,
and ``schedstat`` lags a running process by up to a tick. So a living process's
own time (all its threads) is read from its POSIX CPU-time clock
(``clock_gettime`` of ``clock_getcpuclockid(pid)``: exact, the slice it is
running now included); reaped children count in ticks. What it cannot
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
three instead of ``/proc`` and process-group signals; the engine's seat reads
the rest of it (its limits, its record) through that one typed attribute.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:
    from ..sandbox.breach import Breach

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

    @property
    def freezes(self) -> bool:
        """Whether :meth:`freeze` stops the jail (it has a freezer group)."""
        ...

    def close(self) -> None:
        """End what is left in the jail and remove it, once the engine is reaped."""
        ...

    def stdio_argv(self, stdin_fd: int, stdout_fd: int) -> list[str] | None:
        """The jail's command line taking the engine's stdin and stdout from these
        descriptors, or None where it cannot (the pipes are then its own 0 and 1)."""
        ...

    def freeze(self) -> None:
        """Stop every process in the jail (returns once they are stopped)."""
        ...

    def thaw(self) -> None:
        """Let them run again."""
        ...

    def cpu_ns(self) -> int | None:
        """User + system time of everything the jail ever ran (ns), or None where it
        does not count (no accounting group: /proc's process tree is read instead)."""
        ...

    @property
    def wrapped(self) -> bool:
        """Whether the engine's process is bubblewrap (exit code 128 + n: signal n)."""
        ...

    @property
    def tasks_path(self) -> str | None:
        """The file listing every task in the jail's group, or None (no group)."""
        ...

    def breach(self, exit_code: int | None, signal_name: str | None, stderr: str) -> Breach | None:
        """The limit an engine that ended so ran into, or None (bidref/sandbox/breach.py)."""
        ...

    def record(self) -> dict[str, object]:
        """What the jail gives the engine, for the transcript header."""
        ...


def _process_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU-time clock (what glibc's
    ``clock_getcpuclockid`` makes: ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``)."""
    return ((~pid) << 3) | 2


class ProcTreeCpu:
    """User + system time (ns) of process ``pid`` and its descendants, from /proc."""

    __slots__ = ("_children", "_last", "_lone", "_stats", "pid")

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._stats: dict[int, int] = {}  # pid -> open /proc/PID/stat
        self._children: dict[tuple[int, int], int] = {}  # (pid, tid) -> open .../children
        self._last: int | None = None
        # The usual engine, one process with one thread, is read in two reads and a
        # clock (the referee reads an engine at each request and reply): the
        # descriptors of its stat and children, while it is one.
        self._lone: tuple[int, int] | None = None

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

    def close(self) -> None:
        self._lone = None
        for fd in (*self._stats.values(), *self._children.values()):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._stats.clear()
        self._children.clear()

    def _lone_ns(self) -> int | None:
        """:meth:`_tree_ns` while the engine is one process with one thread; None
        once it is not (it started a thread or a child, or it is gone)."""
        assert self._lone is not None
        stat_fd, kids_fd = self._lone
        try:
            kids = os.pread(kids_fd, 64, 0)
            st = os.pread(stat_fd, 1024, 0)
            f = st[st.rindex(b")") + 2 :].split(b" ", 19)
            if kids or f[17] != b"1":
                self._lone = None
                return None
            return self._own_ns(self.pid, f) + (int(f[13]) + int(f[14])) * NS_PER_TICK
        except (OSError, ValueError, IndexError):
            self._lone = None
            return None

    @staticmethod
    def _own_ns(pid: int, fields: list[bytes]) -> int:
        """The process's own CPU time, all its threads: its CPU-time clock (exact to
        the nanosecond, the slice it is running now included), or where that cannot
        be read (a zombie) ``stat``'s utime + stime (clock ticks)."""
        try:
            return time.clock_gettime_ns(_process_clock(pid))
        except OSError:
            return (int(fields[11]) + int(fields[12])) * NS_PER_TICK

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
            total += self._own_ns(pid, fields) + (int(fields[13]) + int(fields[14])) * NS_PER_TICK
            for child in self._kids(pid, int(fields[17])):
                if child not in seen and len(seen) < MAX_PROCESSES:
                    seen.add(child)
                    st = self._stat(child)
                    if st is not None:
                        todo.append((child, st))
        self._forget(seen)
        pid = self.pid
        if len(seen) == 1 and root[17] == b"1":
            stat_fd = self._stats.get(pid)
            kids_fd = self._children.get((pid, pid))
            if stat_fd is not None and kids_fd is not None:
                self._lone = (stat_fd, kids_fd)
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

    def _kids(self, pid: int, threads: int) -> list[int]:
        """The children of every thread of ``pid`` (one read when it has one)."""
        tids = [pid]
        if threads > 1:
            with contextlib.suppress(OSError, ValueError):
                tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        out: list[int] = []
        for tid in tids:
            key = (pid, tid)
            fd = self._children.get(key)
            try:
                if fd is None:
                    path = f"/proc/{pid}/task/{tid}/children"
                    fd = self._children[key] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                data = os.pread(fd, 65536, 0)
            except OSError:
                self._drop(self._children, key)
                continue
            out.extend(int(c) for c in data.split())
        return out

    def _forget(self, alive: set[int]) -> None:
        """Close the descriptors of processes no longer in the tree."""
        for pid in [p for p in self._stats if p not in alive]:
            self._drop_stat(pid)
        for key in [k for k in self._children if k[0] not in alive]:
            self._drop(self._children, key)

    def _drop_stat(self, pid: int) -> None:
        fd = self._stats.pop(pid, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    @staticmethod
    def _drop(cache: dict[tuple[int, int], int], key: tuple[int, int]) -> None:
        fd = cache.pop(key, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


__all__ = ["NS_PER_TICK", "Jail", "ProcTreeCpu"]
