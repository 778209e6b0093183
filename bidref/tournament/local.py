"""Running matches on this machine: a pool of worker processes (or threads).

Each worker plays one match at a time with the play function. Worker processes
turn the first SIGINT into ``KeyboardInterrupt`` (so the referee inside ends its
engines: quit, grace, SIGTERM, SIGKILL, reap) and ignore further ones, so a
second Ctrl-C cannot break that clean-up. On Linux they also get SIGINT when the
runner dies (even by SIGKILL), so no match keeps running without its runner.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from types import FrameType
from typing import Literal, cast

from .model import MatchJob, MatchReport, PlayFn
from .runner import Handle, run_job

log = logging.getLogger(__name__)

Mode = Literal["process", "thread"]
_PR_SET_PDEATHSIG = 1


def _first_interrupt_only(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def worker_init() -> None:
    """Set up a worker process: one clean interrupt, and die with the runner."""
    signal.signal(signal.SIGINT, _first_interrupt_only)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGINT, 0, 0, 0)


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
        self._executor: Executor
        if mode == "process":
            self._executor = ProcessPoolExecutor(
                max_workers=concurrency,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=worker_init,
            )
        else:
            self._executor = ThreadPoolExecutor(max_workers=concurrency,
                                                thread_name_prefix="bidref-match")  # fmt: skip
        self._interrupted = False

    def submit(self, job: MatchJob) -> Handle:
        return self._executor.submit(run_job, self._play, job)

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
