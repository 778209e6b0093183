"""The play function of real tournaments: one match between two engine processes.

:func:`play_match` runs in a worker (a local process or a dask worker), turns a
:class:`MatchJob` into the referee's ``MatchSpec``, plays it with
``bidref.referee.run_match`` and reports the outcome. The referee ends its engines
itself (quit, grace, SIGTERM, SIGKILL, reap), also when interrupted.
"""

from __future__ import annotations

import json
from pathlib import Path

from .model import ABORTED, FAULT_REASONS, EngineEntry, MatchJob, MatchReport

MAX_DETAIL = 500


def _engine_spec(e: EngineEntry) -> object:
    from bidref.engines.spec import EngineSpec

    return EngineSpec(e.name, e.command, e.cwd, dict(e.env), dict(e.options))


def play_match(job: MatchJob) -> MatchReport:
    """Play ``job`` with the referee, writing its transcript to ``job.transcript``."""
    from bidref.referee import MatchSpec, run_match
    from bidref.rules.clock import MILLISECOND, TimeControl

    s = job.settings
    spec = MatchSpec(
        engines=(_engine_spec(job.engine_a), _engine_spec(job.engine_b)),  # type: ignore[arg-type]
        seed=job.key.seed,
        time_control=TimeControl(s.bank_ms * MILLISECOND, s.delay_ms * MILLISECOND),
        max_rounds=s.max_rounds,
        illegal=s.illegal,
        transport=s.transport,
    )
    transcript = Path(job.transcript)
    transcript.parent.mkdir(parents=True, exist_ok=True)
    outcome = run_match(spec, transcript_path=transcript)
    detail = dict(outcome.detail)
    interrupted = outcome.reason == ABORTED and detail.get("cause") == "interrupted"
    seat = detail.get("seat")
    fault_seat = seat if outcome.reason in FAULT_REASONS and seat in (0, 1) else None
    return MatchReport(
        winner=outcome.winner,
        reason=outcome.reason,
        rated=outcome.rated,
        detail=json.dumps(detail, sort_keys=True, default=str)[:MAX_DETAIL] if detail else "",
        balances=(int(outcome.balances[0]), int(outcome.balances[1])),
        rounds=outcome.rounds,
        transcript=str(transcript),
        interrupted=interrupted,
        fault_seat=fault_seat,
    )
