"""Network engines in a tournament: one listener each, and where their matches run.

Each ``listen://`` engine gets one :class:`~bidref.net.listener.EngineListener`
(one address, one fresh token) for the whole run, in this process: a seat
cannot be handed to a worker process, so a match with a network engine is
played in a thread here (:class:`RemoteBackend`), while matches between local
engines still go to the worker processes. The runner plays one match of a
network engine at a time (``run(remote=...)``): one ``bidref connect`` client
plays them one after the other. To play a network engine's matches in
parallel, enter it several times under different names, one client each.

A resumed tournament listens again at the recorded address (port 0: a new
free port) with a new token: a token is good for one run only.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..engines import Clock
from ..engines.framing import MAX_LINE
from ..rules import SECOND
from .engines import is_remote
from .model import EngineEntry, MatchJob, MatchReport
from .runner import Backend, Handle, run_job

if TYPE_CHECKING:
    from ..net.listener import EngineListener
    from ..net.seat import NetworkSeat


class RemoteEngines:
    """The listeners of a tournament's network engines (listening once made)."""

    def __init__(
        self,
        entries: Sequence[EngineEntry],
        *,
        tls: ssl.SSLContext | None = None,
        clock: Clock = time.monotonic_ns,
        startup_timeout_ns: int = 10 * SECOND,
        max_line: int = MAX_LINE,
    ) -> None:
        from ..net.framing import ListenAddress
        from ..net.listener import EngineListener

        self.clock = clock
        self.startup_timeout_ns = startup_timeout_ns
        self.max_line = max_line
        self.listeners: dict[str, EngineListener] = {}
        self._lock = threading.Lock()
        self._live: list[NetworkSeat] = []
        try:
            for e in entries:
                if is_remote(e):
                    self.listeners[e.name] = EngineListener(
                        ListenAddress.parse(e.command[0]),
                        name=e.name,
                        clock=clock,
                        startup_timeout_ns=startup_timeout_ns,
                        max_line=max_line,
                        tls=tls,
                    )
        except BaseException:
            self.close(final_word_s=0)
            raise

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.listeners)

    def connect_info(self) -> dict[str, Any]:
        """``{"engines": [{"name", "url", "token"}]}``: what each client needs."""
        return {
            "engines": [
                {"name": name, "url": lst.url, "token": lst.token}
                for name, lst in self.listeners.items()
            ]
        }

    def write_connect_info(self, path: Path) -> None:
        """:meth:`connect_info` as JSON, for its owner only (see
        :func:`bidref.net.tokens.write_connect_info`)."""
        from ..net.tokens import write_connect_info

        write_connect_info(path, self.connect_info())

    def seat_for(self, entry: EngineEntry, index: int, job: MatchJob) -> NetworkSeat | None:
        """A fresh seat of ``job`` for the network engine ``entry`` (None: local).
        Its match opens it, which offers it to the engine's client."""
        from ..net.seat import NetworkSeat

        listener = self.listeners.get(entry.name)
        if listener is None:
            return None
        seat = NetworkSeat(
            listener.address,
            seat=index,
            clock=self.clock,
            startup_timeout_ns=self.startup_timeout_ns,
            max_line=self.max_line,
            token=listener.token,
            name=entry.name,
            tls=listener.tls,
            host=listener,
            match_id=f"{job.key.id}#{job.attempt}",
        )
        with self._lock:
            self._live = [s for s in self._live if not s.ended]
            self._live.append(seat)
        return seat

    def interrupt(self) -> None:
        """End the matches of network engines being played (as a Ctrl-C would)."""
        with self._lock:
            for s in self._live:
                if not s.ended:
                    s.interrupt()

    def close(self, final_word_s: float | None = None) -> None:
        """The tournament is over: tell the clients and stop listening."""
        for lst in self.listeners.values():
            if final_word_s is None:
                lst.close()
            else:
                lst.close(final_word_s)


class RemoteBackend:
    """Matches with a network engine in threads here; the others on ``local``."""

    def __init__(
        self,
        local: Backend,
        remote: RemoteEngines,
        play: Callable[[MatchJob], MatchReport],
    ) -> None:
        self.slots = local.slots
        self.local = local
        self.remote = remote
        self._play = play
        self._threads = ThreadPoolExecutor(
            max_workers=max(1, min(local.slots, len(remote.listeners))),
            thread_name_prefix="bidref-remote-match",
        )

    def submit(self, job: MatchJob) -> Handle:
        if job.engine_a.name in self.remote.listeners or job.engine_b.name in self.remote.listeners:
            return self._threads.submit(run_job, self._play, job)
        return self.local.submit(job)

    def result(self, handle: Handle) -> MatchReport:
        return cast(Future[MatchReport], handle).result()

    def interrupt(self) -> None:
        self.local.interrupt()
        self.remote.interrupt()

    def close(self) -> None:
        self.local.close()
        self._threads.shutdown(wait=True, cancel_futures=True)
