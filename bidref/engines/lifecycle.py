"""Process lifecycle: how an engine's processes are found, waited for and ended.

Ending a process is a policy (:func:`terminate`): a quit line, a grace period,
SIGTERM to the whole group, SIGKILL to the group, reap. The group leader is
only reaped after the group has been killed, so its process-group id cannot be
reused by an unrelated process in between. Descendants that left the group
(setsid) are found through ``/proc`` (:func:`escaped_descendants`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable

from . import contain
from .procfs import all_processes, kill_if_same
from .transport import ExitInfo, WriteError

log = logging.getLogger(__name__)


def exit_info_of(pid: int, how: str) -> ExitInfo | None:
    """The exit status of child ``pid`` if it has exited, without reaping it."""
    try:
        res = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return ExitInfo(None, None, "reaped")
    if res is None or res.si_pid == 0:
        return None
    if res.si_code == os.CLD_EXITED:
        return ExitInfo(res.si_status, None, how)
    return ExitInfo(None, signal.Signals(res.si_status).name, how)


def wait_exit(pid: int, timeout_ns: int, how: str) -> ExitInfo | None:
    """Poll for the exit of ``pid`` (unreaped) for up to ``timeout_ns``."""
    end = time.monotonic_ns() + timeout_ns
    pause = 0.0005
    while True:
        info = exit_info_of(pid, how)
        if info is not None or time.monotonic_ns() >= end:
            return info
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send ``sig`` to process group ``pgid``; nothing if it is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def escaped_descendants(pid: int) -> dict[int, int]:
    """What :func:`terminate` will end besides the group (see there): look before
    telling an engine to quit, as its children are orphans once it has exited."""
    return _escaped(pid)


def _escaped(pid: int) -> dict[int, int]:
    """The living descendants of ``pid`` outside its process group (they called
    setsid or setpgid), as pid -> start time; empty where there is no /proc."""
    procs = all_processes()
    children: dict[int, list[int]] = {}
    for child, st in procs.items():
        children.setdefault(st.ppid, []).append(child)
    out: dict[int, int] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in out:
                out[child] = procs[child].start
                todo.append(child)
    return {p: start for p, start in out.items() if procs[p].pgid != pid}


def _kill_escaped(escaped: dict[int, int]) -> None:
    """SIGKILL each of ``escaped`` that is still the same process (same start time)."""
    for p, start in escaped.items():
        kill_if_same(p, start)


def terminate(
    pid: int,
    send_quit: Callable[[], None] | None,
    grace_ns: int,
    reap: Callable[[], None],
    escaped: dict[int, int] | None = None,
) -> ExitInfo:
    """End engine ``pid`` (leader of its own process group) and every process in
    the group: quit line (if ``send_quit``), grace, SIGTERM, grace, SIGKILL, then
    reap the leader. The grace period is given even without ``send_quit`` (the
    caller may have sent the quit line already). ``ExitInfo.how`` says what ended
    it: ``exited`` (before this call), ``quit`` (within the grace), ``sigterm``,
    ``sigkill``.

    The group is always killed at the end, even when the leader exited by
    itself, so grandchildren left behind are ended too; so are descendants that
    left the group (setsid), if they are found while their parent still lives
    (now, or earlier: ``escaped``, see :func:`escaped_descendants`), and so are
    orphans that no tree leads to any more (:func:`.contain.sweep`).
    """
    escaped = {**(escaped or {}), **_escaped(pid)}
    info = exit_info_of(pid, "exited")
    if info is None:
        if send_quit is not None:
            with contextlib.suppress(WriteError):
                send_quit()
        info = wait_exit(pid, grace_ns, "quit")
    if info is None:
        signal_group(pid, signal.SIGTERM)
        info = wait_exit(pid, grace_ns, "sigterm")
    if info is None:
        signal_group(pid, signal.SIGKILL)
        info = wait_exit(pid, 5_000_000_000, "sigkill")
    # The leader is a zombie (or alive) until reaped: the pgid is still ours.
    signal_group(pid, signal.SIGKILL)
    _kill_escaped(escaped)
    # Orphans that left every tree (double-forked daemons): before the reap, so
    # that they release the engine's pipes and the reader threads end.
    contain.sweep(exclude=pid)
    reap()
    if info is None:  # pragma: no cover - SIGKILL did not end it within 5 s
        info = ExitInfo(None, None, "running")
    log.debug("engine %d ended: %s (%s)", pid, info.describe(), info.how)
    return info
