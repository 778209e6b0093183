"""Where a tournament's matches run: this machine's cores or a dask cluster, and
the function that plays one match (``module:function``, for tests)."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Sequence
from typing import cast

from .local import LocalBackend, available_cores
from .model import EngineEntry, PlayFn
from .runner import Backend, TournamentError
from .security import ClusterTrust, checked_play


def load_play(ref: str) -> PlayFn:
    """The play function named ``module:function`` (``module`` alone: its ``play_match``).

    Raises ImportError or AttributeError, as importing it would."""
    module, _, attr = ref.partition(":")
    fn = getattr(importlib.import_module(module), attr or "play_match")
    return cast("PlayFn", fn)


def overload_warning(concurrency: int | None) -> str | None:
    """What to tell the user when more matches at once than cores were asked for."""
    cores = available_cores()
    if concurrency is None or concurrency <= cores:
        return None
    return (
        f"--concurrency {concurrency} is more than the {cores} cores here; an overloaded "
        "machine causes false time losses"
    )


def make_backend(
    play: PlayFn,
    cluster: str | None,
    concurrency: int | None,
    todo: int,
    *,
    engines: Sequence[EngineEntry] = (),
    ship: bool = False,
    trust: ClusterTrust | None = None,
) -> Backend:
    """``concurrency`` matches at once (default: a core each, never more than the
    ``todo`` matches) here, or on the dask scheduler at ``cluster`` (``ship``: the
    ``engines``' files sent to its workers; ``trust``: TLS, verification). Here,
    each match first checks its engines are still the recorded builds."""
    if cluster is not None:
        from .cluster import ClusterBackend, ClusterError  # dask: imported only for a cluster

        try:
            return ClusterBackend(
                play,
                cluster,
                concurrency=concurrency,
                engines=list(engines),
                ship=ship,
                trust=trust,
            )
        except ClusterError as exc:
            raise TournamentError(str(exc)) from None
    jobs = concurrency or available_cores()
    return LocalBackend(functools.partial(checked_play, play), max(1, min(jobs, todo or 1)))
