"""Running matches on an existing dask.distributed cluster.

Each match is one task: the worker starts both engines, plays and writes the
transcript itself. So the engines (and the output folder, if the transcripts
are to be found afterwards) must be at the same paths on every worker, with
bidref installed there. Results come back to this process, which alone writes
the results file.

On Ctrl-C the tasks not yet started are cancelled; a match already running on a
worker plays to its end there and its result is discarded (``--resume`` plays
it again).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from bidref.errors import BidrefError

from .model import MatchJob, MatchReport, PlayFn
from .runner import Handle, run_job

log = logging.getLogger(__name__)


class ClusterError(BidrefError, RuntimeError):
    """The cluster cannot be reached or used (the message says the fix)."""


# Address schemes of dask.distributed's communication back-ends.
_SCHEMES = ("tcp", "tls", "ucx", "ws", "wss", "inproc")


class ClusterBackend:
    """Matches as tasks on a dask.distributed scheduler (``address`` or a ``Client``)."""

    def __init__(
        self,
        play: PlayFn,
        address: str | None = None,
        *,
        client: Any = None,
        concurrency: int | None = None,
        connect_timeout_s: float = 10.0,
    ) -> None:
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ClusterError(
                "--cluster needs dask.distributed: pip install 'bidref[cluster]'"
            ) from exc
        self._own_client = client is None
        if client is None:
            if not address:
                raise ClusterError("give a scheduler address, e.g. --cluster tcp://10.0.0.5:8786")
            scheme, sep, rest = address.partition("://")
            if not sep or scheme not in _SCHEMES or not rest:
                # said before dask is asked (its own errors vary, and take time under load)
                raise ClusterError(
                    f"--cluster {address!r} is not a scheduler address; give one like "
                    "tcp://10.0.0.5:8786"
                )
            try:
                client = Client(address, timeout=connect_timeout_s)  # type: ignore[no-untyped-call]
            except ValueError as exc:  # not an address at all
                raise ClusterError(
                    f"--cluster {address!r}: {exc}; give the scheduler's address, e.g. "
                    "tcp://10.0.0.5:8786"
                ) from None
            except (OSError, TimeoutError) as exc:
                raise ClusterError(
                    f"cannot reach the dask scheduler at {address!r}: {exc}; check the address "
                    "and that `dask scheduler` is running there"
                ) from exc
        self._client = client
        self._play = play
        self._futures: list[Any] = []
        threads = sum(client.nthreads().values())
        if threads < 1 and concurrency is None:
            raise ClusterError("the dask cluster has no workers: start some with `dask worker`")
        self.slots = concurrency if concurrency is not None else threads

    def submit(self, job: MatchJob) -> Handle:
        # a fresh key each time: a cancelled task of an earlier run may still hold the old one
        key = f"bidref-match-{job.key.id}-{job.attempt}-{uuid.uuid4().hex[:8]}"
        future = self._client.submit(run_job, self._play, job, pure=False, key=key)
        self._futures.append(future)
        self._futures = [f for f in self._futures if not f.done()]
        return future  # type: ignore[no-any-return]

    def result(self, handle: Handle) -> MatchReport:
        report = handle.result()  # type: ignore[attr-defined]
        if not isinstance(report, MatchReport):
            raise ClusterError(f"a worker returned {type(report).__name__}, not a match report")
        return report

    def interrupt(self) -> None:
        pending = [f for f in self._futures if not f.done()]
        if pending:
            log.info("cancelling %d match tasks on the cluster", len(pending))
            self._client.cancel(pending)

    def close(self) -> None:
        if self._own_client:
            self._client.close()
