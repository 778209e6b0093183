"""Running matches on this machine: a pool of worker processes (or threads).

Each worker plays one match at a time with the play function. In a worker
process, SIGINT (Ctrl-C, or the runner's interrupt) turns into
``KeyboardInterrupt`` only while a match runs and only once, so the referee
inside ends its engines (quit, grace, SIGTERM, SIGKILL, reap) and a second
Ctrl-C cannot break that clean-up; an idle worker ignores it and is shut down
normally. On Linux a worker also learns when the runner dies (even by
SIGKILL): a running match is ended the same clean way, then the worker exits.
A worker is a child subreaper (:mod:`bidref.engines.contain`): what its
engines leave behind is ended with each match, so nothing piles up.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import FrameType
from typing import Literal, cast

from ..engines import contain
from .model import MatchJob, MatchReport, PlayFn
from .runner import Handle, run_job

log = logging.getLogger(__name__)

Mode = Literal["process", "thread"]
_PR_SET_PDEATHSIG = 1
_PARENT_DIED = signal.SIGUSR1


class _WorkerState:
    busy = False
    ending = False  # the match is over; what its engines left is being ended
    interrupted = False
    parent = 0


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    if _WorkerState.busy and not _WorkerState.interrupted and not _WorkerState.ending:
        _WorkerState.interrupted = True
        raise KeyboardInterrupt


def _on_parent_death(signum: int, frame: FrameType | None) -> None:
    if not _WorkerState.busy:
        os._exit(1)
    _on_interrupt(signum, frame)


def worker_init(runner_pid: int) -> None:
    """Set up a worker process: clean interrupts, and end with the runner.

    ``runner_pid`` comes from the runner itself: a runner killed before this
    worker got here has already left it to init, and ``getppid()`` alone would
    not tell.
    """
    _WorkerState.parent = runner_pid
    # A worker starts no children but engines: it adopts what they leave behind
    # (double-forked daemons) and ends it after each match (contain.sweep_all).
    contain.claim_orphans()
    signal.signal(signal.SIGINT, _on_interrupt)
    signal.signal(_PARENT_DIED, _on_parent_death)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, _PARENT_DIED, 0, 0, 0)
    if os.getppid() != _WorkerState.parent:  # the runner died before prctl
        os._exit(1)
    # Belt and braces where the death signal does not reach (other systems, or a
    # signal lost in a race): a watchdog that notices the runner is gone.
    threading.Thread(target=_watch_runner, name="bidref-runner-watch", daemon=True).start()


def _watch_runner(period_s: float = 0.5) -> None:
    while True:
        time.sleep(period_s)
        if os.getppid() != _WorkerState.parent:
            # Idle: leave now. Busy: end the match cleanly (its engines too).
            if not _WorkerState.busy:
                os._exit(1)
            os.kill(os.getpid(), _PARENT_DIED)
            return


def play_in_worker(play: PlayFn, job: MatchJob) -> MatchReport:
    """``run_job`` in a worker process; exits the worker if the runner is gone."""
    _WorkerState.busy = True
    try:
        return run_job(play, job)
    finally:
        # What the engines left is ended now, not to be cut short by an
        # interrupt (the match is over) or the runner's death (see below).
        _WorkerState.ending = True
        try:
            contain.sweep_all()
        finally:
            _WorkerState.ending = False
            _WorkerState.busy = False
        if os.getppid() != _WorkerState.parent:
            os._exit(1)


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class LocalBackend:
    """``concurrency`` matches at once in worker processes (default) or threads.

    Threads suit play functions that spend their time waiting (or tests); the
    referee's own work holds the GIL, so real tournaments use processes.
    """

    def __init__(self, play: PlayFn, concurrency: int, mode: Mode = "process") -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency {concurrency}: give at least 1")
        self.slots = concurrency
        self.mode = mode
        self._play = play
        self._executor = self._new_executor()
        self._interrupted = False

    def _new_executor(self) -> Executor:
        if self.mode == "process":
            return ProcessPoolExecutor(
                max_workers=self.slots,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=worker_init,
                initargs=(os.getpid(),),
            )
        return ThreadPoolExecutor(max_workers=self.slots, thread_name_prefix="bidref-match")

    def submit(self, job: MatchJob) -> Handle:
        if self.mode != "process":
            return self._executor.submit(run_job, self._play, job)
        try:
            return self._executor.submit(play_in_worker, self._play, job)
        except BrokenProcessPool:
            # a worker died (killed, out of memory): its matches come back as errors
            # and are played again; carry on with a fresh pool
            log.warning("a worker process died; starting a new pool")
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = self._new_executor()
            return self._executor.submit(play_in_worker, self._play, job)

    def result(self, handle: Handle) -> MatchReport:
        return cast(Future[MatchReport], handle).result()

    def interrupt(self) -> None:
        """Ask running matches to end now (processes: one SIGINT each, by pid)."""
        if self._interrupted:
            return
        self._interrupted = True
        if self.mode != "process":
            log.info("thread workers cannot be interrupted; waiting for running matches")
            return
        for child in multiprocessing.active_children():
            if child.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGINT)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
