"""The play function of real tournaments: one match between two engine processes.

:func:`play_match` runs in a worker (a local process or a dask worker), turns a
:class:`MatchJob` into the referee's ``MatchSpec``, plays it with
``bidref.match.referee.run_match`` and reports the outcome. The referee ends its engines
itself (quit, grace, SIGTERM, SIGKILL, reap), also when interrupted.

A match with a network engine is played in the runner's process, where the
engine's listener lives: ``remote`` gives its seat (:mod:`.remote`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..outcome import AbortCause, EndReason
from .model import EngineEntry, MatchJob, MatchReport

if TYPE_CHECKING:
    from bidref.engines.spec import EngineSpec
    from bidref.players import Seat
    from bidref.rules.clock import TimeControl


class RemoteSeats(Protocol):
    """Seats for network engines (the runner's listeners)."""

    startup_timeout_ns: int

    def seat_for(self, entry: EngineEntry, index: int, job: MatchJob) -> Seat | None:
        """The seat of ``entry`` at ``index`` in ``job``; None for a local engine."""


MAX_DETAIL = 500  # characters kept of each text in a match's detail


def _time_control(ms: tuple[int, int]) -> TimeControl:
    from bidref.rules.clock import MILLISECOND, TimeControl

    return TimeControl(ms[0] * MILLISECOND, ms[1] * MILLISECOND)


def _engine_spec(e: EngineEntry) -> EngineSpec:
    from bidref.engines.spec import EngineSpec

    return EngineSpec(
        e.name,
        e.command,
        e.cwd,
        dict(e.env),
        dict(e.options),
        time_control=None if e.time_control_ms is None else _time_control(e.time_control_ms),
        transport=e.transport,
        sandbox_level=e.sandbox_level,
        dir_writable=e.dir_writable,
    )


def _jailed(e: EngineSpec, job: MatchJob) -> EngineSpec:
    return e if job.sandbox is None else dataclasses.replace(e, sandbox=job.sandbox)


def _json_detail(detail: dict[str, object]) -> dict[str, object]:
    """The referee's detail as JSON values, long texts cut to MAX_DETAIL characters."""
    out: dict[str, object] = {}
    for k, v in json.loads(json.dumps(detail, sort_keys=True, default=str)).items():
        out[k] = v[:MAX_DETAIL] if isinstance(v, str) else v
    return out


def play_match(job: MatchJob, remote: RemoteSeats | None = None) -> MatchReport:
    """Play ``job`` with the referee, writing its transcript to ``job.transcript``."""
    from bidref.match.referee import MatchSpec, run_match
    from bidref.players.make import engine_seats
    from bidref.players.tap import DebugLog, TappedSeat

    s = job.settings
    base = _time_control((s.bank_ms, s.delay_ms))
    engines = (
        _jailed(_engine_spec(job.engine_a), job),
        _jailed(_engine_spec(job.engine_b), job),
    )
    own = [e.time_control for e in engines]
    spec = MatchSpec(
        engines=engines,
        seed=job.key.seed,
        time_control=base,
        time_controls=None if own == [None, None] else (own[0] or base, own[1] or base),
        max_rounds=s.max_rounds,
        illegal=s.illegal,
        transport=s.transport,
        freeze_idle=job.freeze_idle,
    )
    if remote is not None:
        spec = dataclasses.replace(spec, startup_timeout_ns=remote.startup_timeout_ns)
    transcript = Path(job.transcript)
    transcript.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        debug = None
        if job.debug_log is not None:
            path = Path(job.debug_log)
            path.parent.mkdir(parents=True, exist_ok=True)
            debug = DebugLog(stack.enter_context(path.open("w", encoding="utf-8")))
        stderr_dir = None
        if job.stderr_dir is not None:
            stderr_dir = Path(job.stderr_dir)
            stderr_dir.mkdir(parents=True, exist_ok=True)
        seats = engine_seats(
            engines,
            s.transport,
            stderr_dir=stderr_dir,
            stderr_prefix=job.stderr_prefix,
            debug=debug,
        )
        if remote is not None:
            for i, entry in enumerate((job.engine_a, job.engine_b)):
                seat = remote.seat_for(entry, i, job)
                if seat is not None:
                    seats[i] = (
                        seat
                        if debug is None
                        else TappedSeat(seat, debug, f"{entry.name}({'AB'[i]})")
                    )
        outcome = run_match(spec, transcript_path=transcript, seats=seats)
    end = outcome.end
    interrupted = outcome.reason == EndReason.ABORTED and end.cause is AbortCause.INTERRUPTED
    loser = end.at_seat
    fault_seat = loser if outcome.reason.fault and loser in (0, 1) else None
    return MatchReport(
        winner=outcome.winner,
        reason=outcome.reason,
        rated=outcome.rated,
        detail=_json_detail(end.to_dict()),
        balances=(int(outcome.balances[0]), int(outcome.balances[1])),
        rounds=outcome.rounds,
        transcript=str(transcript),
        interrupted=interrupted,
        fault_seat=fault_seat,
    )
