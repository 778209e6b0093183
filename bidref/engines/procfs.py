"""What ``/proc/PID/stat`` says about a process, read in one place (issue 30).

Containment (:mod:`.contain`: the subreaper's sweep) and teardown
(:mod:`.lifecycle`: descendants that left the engine's process group) both look
at every process's parent, group, session and start time, and kill a process
only if it is still the one they saw: same pid *and* same start time, since a
pid is reused once its process is reaped. (The watchdog reads ``/proc`` itself:
it runs without importing bidref.)
"""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProcStat:
    """The fields of ``/proc/PID/stat`` bidref uses."""

    ppid: int
    pgid: int
    sid: int
    start: int  # start time in clock ticks after boot: with the pid, names one process
    state: str  # R, S, D, Z, ...


def read_stat(pid: int | str) -> ProcStat | None:
    """The stat of ``pid``; None if it is gone or there is no ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # The command name (field 2) may hold spaces and ")": split after its last ")".
            fields = f.read().rsplit(b")", 1)[1].split()
        return ProcStat(
            int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]), fields[0].decode()
        )
    except (OSError, IndexError, ValueError):
        return None


def all_processes() -> dict[int, ProcStat]:
    """Every process in ``/proc`` by pid; empty where there is no ``/proc``."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    out: dict[int, ProcStat] = {}
    for name in names:
        if name.isdigit() and (st := read_stat(name)) is not None:
            out[int(name)] = st
    return out


def kill_if_same(pid: int, start: int) -> None:
    """SIGKILL ``pid`` if it is still the process that started at ``start`` (not a
    reused pid); nothing if it is gone or not ours to kill."""
    st = read_stat(pid)
    if st is not None and st.start == start:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
