"""Containment: everything an engine starts ends with the match, even when the
referee itself is killed.

Ending an engine's process group (:func:`.lifecycle.terminate`) misses what
left the group: double-forked daemons (fork, setsid, fork, exit) are orphans
that no process tree leads to. Four unprivileged mechanisms (Linux) close the
gaps; elsewhere they are skipped and only the group is ended:

- **Death signal.** Each engine's own process is started with
  ``PR_SET_PDEATHSIG(SIGKILL)`` (:func:`child_setup`): the kernel kills it when
  the referee dies, even by SIGKILL.
- **A mark in the environment.** Each engine gets ``BIDREF_CONTAIN=<token>``
  (:func:`engine_env`), a token of this referee process; whatever it starts
  inherits it unless it clears its environment.
- **A watchdog process** (:mod:`.watchdog`), started with the first engine,
  holds the read end of a pipe only this process writes. When the referee dies
  (the pipe's EOF), it kills every process carrying the token, with their
  sessions and process groups.
- **Subreaper.** A process that starts no other children than engines (the
  `match`, `play` and `check-engine` commands, tournament workers) calls
  :func:`claim_orphans`: it becomes a child subreaper, so orphans of its
  engines become its children. After each engine is ended, :func:`sweep`
  kills and reaps them (no /proc-wide search, no zombies, whatever their
  environment); :func:`sweep_all` at the end of the command or match ends
  every child left. Elsewhere (a library user's process, thread workers)
  :func:`sweep` instead kills the orphans that carry the token.

What remains is documented in docs/engines.md ("Containment").
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import ClassVar, Final

from .priority import engine_nice
from .procfs import ProcStat, all_processes, kill_if_same, read_stat

log = logging.getLogger(__name__)

ENV_KEY: Final = "BIDREF_CONTAIN"
_PR_SET_PDEATHSIG: Final = 1
_PR_SET_DUMPABLE: Final = 4
_PR_SET_CHILD_SUBREAPER: Final = 36
_LINUX: Final = sys.platform.startswith("linux")
_WATCHDOG: Final = Path(__file__).with_name("watchdog.py")


def _load_libc() -> ctypes.CDLL | None:
    if not _LINUX:
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - no C library to call
        return None


class _State:
    libc = _load_libc()
    token = secrets.token_hex(8)
    lock = threading.Lock()
    watchdog: subprocess.Popen[bytes] | None = None
    watchdog_fd: int | None = None
    claimed = False
    since: int | None = None  # start time (clock ticks) of the watchdog, before any engine
    live: ClassVar[set[int]] = set()  # pids of this process's engines that have not been ended


def _forget_after_fork() -> None:
    # A forked copy of the referee is another referee (or an engine about to be
    # exec'd): it must not keep the watchdog's pipe open, nor share the token.
    if _State.watchdog_fd is not None:
        with contextlib.suppress(OSError):
            os.close(_State.watchdog_fd)
    _State.watchdog_fd = None
    _State.watchdog = None
    _State.claimed = False
    _State.since = None
    _State.lock = threading.Lock()
    _State.token = secrets.token_hex(8)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _prctl(option: int, value: int) -> bool:
    libc = _State.libc
    if libc is None:
        return False
    return int(libc.prctl(option, value, 0, 0, 0)) == 0


def token() -> str:
    """This referee process's mark (the value of ``BIDREF_CONTAIN`` in its engines)."""
    return _State.token


def engine_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment to start an engine with: ``env`` (default: ours) plus the mark."""
    base = dict(os.environ if env is None else env)
    base[ENV_KEY] = _State.token
    return base


def child_setup() -> Callable[[], None]:
    """The ``preexec_fn`` of an engine's process (pipe and pty transports alike).

    Calling it (in the referee) starts the watchdog if it is not running yet.
    In the child, before exec, it asks the kernel for SIGKILL when the referee
    (the thread that started it) dies, and exits at once if it already has.
    """
    ensure_watchdog()
    parent = os.getpid()
    libc = _State.libc
    nice = engine_nice()  # the referee's own, before it raised its priority (priority.py)

    def setup() -> None:
        if libc is not None:
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the referee died before prctl
            os._exit(1)
        if nice is not None:
            os.setpriority(os.PRIO_PROCESS, 0, nice)

    return setup


def ensure_watchdog() -> int | None:
    """Start the watchdog of this process if it is not running; its pid."""
    if not _LINUX:
        return None
    with _State.lock:
        wd = _State.watchdog
        if wd is not None and wd.poll() is None:
            return wd.pid
        if _State.watchdog_fd is not None:
            with contextlib.suppress(OSError):
                os.close(_State.watchdog_fd)
            _State.watchdog_fd = None
        r, w = os.pipe()  # both non-inheritable: engines never hold the write end
        try:
            # -I -S: the standard library only, started in a few ms; a session of
            # its own: Ctrl-C and SIGHUP of the terminal go to the referee, which
            # ends its engines; the watchdog waits for the referee to end.
            _State.watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_WATCHDOG), str(os.getpid()), _State.token],
                stdin=r,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as e:  # pragma: no cover - no interpreter to start
            log.warning("cannot start the engine watchdog: %s", e)
            os.close(w)
            return None
        finally:
            os.close(r)
        _State.watchdog_fd = w
        if _State.since is None:
            _State.since = _start_time(_State.watchdog.pid)
        return _State.watchdog.pid


def _start_time(pid: int) -> int | None:
    st = read_stat(pid)
    return None if st is None else st.start


def watchdog_pid() -> int | None:
    wd = _State.watchdog
    return None if wd is None else wd.pid


def claim_orphans() -> bool:
    """Make this process a child subreaper (see the module docstring), and keep
    other processes of this user from reading its memory, open files and
    environment (``PR_SET_DUMPABLE`` 0: engines run as the same user).

    Only for a process that starts no children other than engines: what is
    left among its children after an engine is ended is killed and reaped.
    True where the subreaper could be set (Linux)."""
    if _State.claimed:
        return True
    _prctl(_PR_SET_DUMPABLE, 0)
    _State.claimed = _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    return _State.claimed


def claimed() -> bool:
    return _State.claimed


def _has_token(pid: int, mark: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return mark in f.read().split(b"\0")
    except OSError:
        return False


def _subtree(roots: list[int], procs: dict[int, ProcStat]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, p in procs.items():
        children.setdefault(p.ppid, []).append(pid)
    out: set[int] = set()
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid in out:
            continue
        out.add(pid)
        todo.extend(children.get(pid, ()))
    return out


def _attached(pid: int, procs: dict[int, ProcStat], me: int) -> bool:
    """Whether ``pid`` descends from this process (within a live engine's tree)."""
    seen = 0
    while pid in procs and seen < 4096:
        pid = procs[pid].ppid
        if pid == me:
            return True
        seen += 1
    return False


def _kill_all(victims: set[int], procs: dict[int, ProcStat]) -> None:
    for pid in victims:
        kill_if_same(pid, procs[pid].start)


def _reap(pids: list[int], timeout_s: float = 2.0) -> None:
    end = time.monotonic() + timeout_s
    left = list(pids)
    while left:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                left.remove(pid)
        if not left or time.monotonic() >= end:
            break
        time.sleep(0.002)


def started(pid: int) -> None:
    """``pid`` is one of this process's engines (a sweep spares it until :func:`ended`)."""
    _State.live.add(pid)


def ended(pid: int) -> None:
    """The engine ``pid`` has been ended and reaped."""
    _State.live.discard(pid)


def sweep(exclude: int | None = None) -> int:
    """Kill what engines left outside their process groups; the number killed.

    In a claimed process (:func:`claim_orphans`): every child of ours that is
    not a live engine (:func:`started`; one may belong to the other seat) and
    not the watchdog, with its descendants; they are then reaped. (A daemon
    that made itself a session leader and was orphaned as its engine exited on
    ``match_ended`` is such a child: it is ended with the match, not at exit.)
    Elsewhere: every process carrying our token that no longer descends from
    this process (an orphan: its engine's tree is gone).
    ``exclude``: the engine being ended (its caller reaps it).
    """
    return _sweep(final=False, exclude=exclude)


def sweep_all() -> int:
    """In a claimed process, after its matches: kill and reap every child left
    but the watchdog (orphans that made themselves session leaders included)."""
    return _sweep(final=True, exclude=None) if _State.claimed else 0


def _sweep(final: bool, exclude: int | None) -> int:
    if not _LINUX:
        return 0
    me = os.getpid()
    keep = {watchdog_pid(), exclude, *(() if final else _State.live)}
    mark = f"{ENV_KEY}={_State.token}".encode()
    since = _State.since
    killed = 0
    for _ in range(20):  # a killed orphan's children become ours in turn
        procs = all_processes()
        roots: list[int] = []
        for pid, p in procs.items():
            if pid in keep or pid == me:
                continue
            if _State.claimed:
                if p.ppid == me:
                    roots.append(pid)
            elif (
                since is not None
                and p.start >= since  # (older ones cannot be engines' of ours)
                and not _attached(pid, procs, me)
                and _has_token(pid, mark)
            ):
                roots.append(pid)
        if not roots:
            break
        victims = _subtree(roots, procs) - {me, exclude, watchdog_pid()}
        _kill_all(victims, procs)
        killed += len(victims)
        _reap([v for v in victims if procs[v].ppid == me])
    if killed:
        log.info("ended %d process(es) that engines left behind", killed)
    return killed
