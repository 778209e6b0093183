"""A cluster match's transcript, mirrored into the coordinator's folder as it grows.

A worker plays into a folder of its own and sends the transcript home when the
match ends (:mod:`.cluster`). To watch a cluster run live (``bidref tournament
--live``, ``tournament-report --serve``), the coordinator must hold what is
being played: while a match runs, its worker sends the bytes its transcript
gained every :data:`EVERY_S` (dask's event topics: worker → scheduler → the
coordinator's client), and the coordinator appends them to the match's own
transcript path in its ``--out`` folder, where the live page reads them like
a local match's. The whole transcript that comes home at the end replaces the
mirrored copy (``write_durably``: a new file).

The transcript holds only public lines until a round's reveal (the referee's
rule), so the mirror carries nothing a spectator may not see. The coordinator
writes only to the transcript path of a match that is running, for the run
(one task's attempt) it heard from first; bytes at another offset are dropped
(the next message that fits goes on; the final file is whole anyway).
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

TOPIC = "bidref-live-transcript"
EVERY_S = 0.25
MAX_MESSAGE = 1 << 20  # bytes per message at most (a long match catches up over several)


class WorkerMirror:
    """On a worker: sends what ``source`` gained, as ``dest``, until closed.

    ``send``: the worker's ``log_event`` (a test passes its own)."""

    def __init__(
        self, source: Path, dest: str, send: Callable[[str, Any], None], every_s: float = EVERY_S
    ) -> None:
        self.source = source
        self.dest = dest
        self.send = send
        self.every_s = every_s
        self.run = uuid.uuid4().hex
        self.offset = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bidref-mirror", daemon=True)

    def __enter__(self) -> WorkerMirror:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                self.step()
            except Exception as e:  # never the match's problem
                log.debug("live mirror of %s: %r", self.dest, e)

    def step(self) -> bool:
        """Send what is new; whether anything was."""
        try:
            size = os.path.getsize(self.source)
        except OSError:
            return False
        if size <= self.offset:
            return False
        with open(self.source, "rb") as f:
            f.seek(self.offset)
            data = f.read(min(size - self.offset, MAX_MESSAGE))
        self.send(TOPIC, {"path": self.dest, "run": self.run, "offset": self.offset, "data": data})
        self.offset += len(data)
        return True


def worker_send() -> Callable[[str, Any], None] | None:
    """This dask worker's ``log_event`` (None outside a worker)."""
    try:
        from distributed import get_worker

        return get_worker().log_event
    except (ImportError, ValueError):
        return None


class CoordinatorMirror:
    """On the coordinator: appends each message's bytes to its transcript path, if
    ``running(path)`` says a match writing there is running."""

    def __init__(self, running: Callable[[str], bool]) -> None:
        self.running = running
        self._lock = threading.Lock()
        self._runs: dict[str, tuple[str, int]] = {}  # path -> (run, bytes written)

    def on_event(self, event: Any) -> None:
        """A dask event ``(timestamp, message)``."""
        try:
            _, msg = event
            path, run, offset, data = msg["path"], msg["run"], msg["offset"], msg["data"]
        except (TypeError, ValueError, KeyError):
            return
        if not (isinstance(path, str) and isinstance(data, bytes) and isinstance(offset, int)):
            return
        with self._lock:
            if not self.running(path):
                self._runs.pop(path, None)
                return
            known = self._runs.get(path)
            mode = "ab"
            if known is None or known[0] != run:
                if offset != 0:
                    return  # (the middle of a run not heard from its start)
                # a new run: the task played again (its worker was lost) starts over
                known = (run, 0)
                mode = "wb"
            if offset != known[1]:
                return  # a gap or a repeat: wait for bytes that fit
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                with open(path, mode) as f:
                    f.write(data)
            except OSError as e:
                log.debug("live mirror: cannot write %s: %s", path, e)
                return
            self._runs[path] = (run, offset + len(data))

    def forget(self, path: str) -> None:
        with self._lock:
            self._runs.pop(path, None)
