"""How long an engine's tasks waited on a run queue: the kernel's own count.

Every task (thread) has ``/proc/PID/task/TID/schedstat``: three numbers, the
time it ran on a CPU (ns), the time it spent *runnable but waiting for a CPU*
on a run queue (ns: ``run_delay``), and its number of time slices. The second
one is the figure here: time the task wanted a CPU and did not get it.

Which tasks are the engine's (documented in docs/match.md, "The machine's
wait"):

- unjailed, or jailed without a control group: the engine process and every
  living descendant (``/proc/PID/task/TID/children``), each with all its
  threads (:class:`TreeTasks`);
- in a jail with a control group: every thread the group holds (its
  ``tasks`` file in cgroups v1, ``cgroup.threads`` in v2: the jail gives the
  path), which also finds orphans that left the process tree
  (:class:`ListedTasks`).

A :data:`Sample` maps each such task to its two counters at one moment; two
samples give what happened in between (:func:`between`): the wait summed over
the tasks, the largest one task's wait, and the CPU time of the same tasks.
A task that appears between two samples counts from 0 (it was born after the
first); one that is gone by the second takes its counts along (its CPU time
is still in the engine's ``cpu_ns``: the difference tells that it existed,
see :mod:`bidref.outcome.excuse`). The counters need ``CONFIG_SCHED_INFO``
(every distribution kernel); without them nothing is sampled (None).

Cost: one ``pread`` per task on a descriptor kept open (an open ``/proc`` file
keeps naming the task it was opened for, so a reused id is never read as
ours), plus the listing of the tasks.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from .cputime import MAX_PROCESSES

Sample = dict[int, tuple[int, int]]  # tid -> (ns on a CPU, ns waiting on a run queue)
TaskLister = Callable[[], Iterable[int]]


@dataclass(frozen=True, slots=True)
class Waited:
    """What an engine's tasks did between two samples."""

    wait_ns: int  # run-queue wait, summed over the tasks
    wait_max_ns: int  # the largest wait of one task
    run_ns: int  # CPU time of the same tasks (schedstat's first field)
    tasks: int  # tasks in the later sample


def between(before: Sample, after: Sample) -> Waited:
    """The counters' growth from ``before`` to ``after``, task by task (a task
    missing from ``before`` counts from 0; one missing from ``after`` is gone)."""
    total = top = run = 0
    for tid, (ran, waited) in after.items():
        r0, w0 = before.get(tid, (0, 0))
        w = max(0, waited - w0)
        total += w
        top = max(top, w)
        run += max(0, ran - r0)
    return Waited(total, top, run, len(after))


def parse_schedstat(data: bytes) -> tuple[int, int] | None:
    """(ns on a CPU, ns waiting) from a schedstat file's text; None if malformed.

    >>> parse_schedstat(b"4242 17 3\\n")
    (4242, 17)
    """
    parts = data.split()
    if len(parts) < 2:
        return None
    try:
        return int(parts[0]), int(parts[1])
    except ValueError:
        return None


class TaskWait:
    """Samples the schedstat counters of the tasks ``lister`` names."""

    __slots__ = ("_fds", "lister")

    def __init__(self, lister: TaskLister) -> None:
        self.lister = lister
        self._fds: dict[int, int] = {}

    def sample(self) -> Sample | None:
        """Each task's counters now; None where no task could be read (the engine
        is gone, or the kernel does not count)."""
        out: Sample = {}
        for tid in self.lister():
            if len(out) >= MAX_PROCESSES:
                break
            got = self._read(tid)
            if got is not None:
                out[tid] = got
        for tid in [t for t in self._fds if t not in out]:
            self._drop(tid)
        return out or None

    def _read(self, tid: int) -> tuple[int, int] | None:
        fd = self._fds.get(tid)
        try:
            if fd is None:
                path = f"/proc/{tid}/task/{tid}/schedstat"
                fd = self._fds[tid] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            return parse_schedstat(os.pread(fd, 128, 0))
        except OSError:
            self._drop(tid)
            return None

    def _drop(self, tid: int) -> None:
        fd = self._fds.pop(tid, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        for tid in list(self._fds):
            self._drop(tid)


def _task_ids(pid: int) -> list[int]:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except (OSError, ValueError):
        return []


class TreeTasks:
    """The threads of process ``pid`` and of its living descendants."""

    __slots__ = ("pid",)

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def __call__(self) -> list[int]:
        out: list[int] = []
        seen = {self.pid}
        todo = [self.pid]
        while todo:
            pid = todo.pop()
            for tid in _task_ids(pid):
                out.append(tid)
                try:
                    with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                        kids = f.read().split()
                except OSError:
                    continue
                for k in kids:
                    child = int(k)
                    if child not in seen and len(seen) < MAX_PROCESSES:
                        seen.add(child)
                        todo.append(child)
        return out


class ListedTasks:
    """The threads a control group's listing file names (v1 ``tasks``, v2
    ``cgroup.threads``): everything in a jail, orphans included."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self) -> list[int]:
        try:
            with open(self.path, "rb") as f:
                return [int(t) for t in f.read().split()[:MAX_PROCESSES]]
        except (OSError, ValueError):
            return []


_LOW_POLICIES: Final = frozenset({3, 5})  # SCHED_BATCH, SCHED_IDLE


def priority_lowered(tids: Iterable[int], nice: int) -> bool:
    """Whether any of the tasks ``tids`` runs below the priority the engine was
    started with: a nice value above ``nice``, or the batch or idle policy. A task
    that lowers itself waits longer for a CPU on a busy machine: its own doing."""
    for tid in tids:
        try:
            with open(f"/proc/{tid}/task/{tid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            # after the ")": field 19 (nice) is index 16, field 41 (policy) index 38
            if int(fields[16]) > nice or int(fields[38]) in _LOW_POLICIES:
                return True
        except (OSError, IndexError, ValueError):
            continue  # gone: it cannot be waiting now
    return False


def runnable_tasks(tids: Iterable[int]) -> set[int]:
    """Which of the tasks ``tids`` are runnable now (state ``R``: on a CPU or
    waiting on a run queue for one)."""
    out: set[int] = set()
    for tid in tids:
        try:
            with open(f"/proc/{tid}/task/{tid}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # gone: not runnable
        if state == b"R":
            out.add(tid)
    return out


def unseen_ns(before: Sample, after: Sample, runnable: Iterable[int], window_ns: int) -> int:
    """What the counters cannot hold yet of the tasks still runnable at ``after``.

    The kernel adds a task's run-queue wait to ``run_delay`` only when the wait
    ends (the task gets a CPU), and a running task's CPU time lags by up to a
    tick: a task that is runnable at the reading may have wanted a CPU through
    the whole window with little of it counted (a busy child on a crowded run
    queue gets one slice in tens of milliseconds). Each such task is taken as
    runnable through the whole window: the window less what its counters grew."""
    total = 0
    for tid in runnable:
        if tid not in after:
            continue
        r1, w1 = after[tid]
        r0, w0 = before.get(tid, (0, 0))
        total += max(0, window_ns - max(0, r1 - r0) - max(0, w1 - w0))
    return total


def cores_of(pid: int) -> int | None:
    """How many CPUs process ``pid`` may run on (its affinity: a jail's cpuset
    included); None where it cannot be read."""
    try:
        return len(os.sched_getaffinity(pid))
    except OSError:
        return None


__all__ = [
    "ListedTasks",
    "Sample",
    "TaskWait",
    "TreeTasks",
    "Waited",
    "between",
    "cores_of",
    "parse_schedstat",
    "priority_lowered",
    "runnable_tasks",
    "unseen_ns",
]
