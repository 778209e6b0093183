"""Per-worker statistics of a cluster run, and the workers whose rates stand out.

Per worker: the matches it played, its rejected transcripts, and the ends that
a broken, overloaded or dishonest machine causes: crashes (crash, start-up,
resources), time losses, protocol losses (protocol, illegal) and aborts; and
each engine's mean time per decision there.

Which workers are flagged, and why this test. The engines are the same on
every worker, so an end that depends on the engine alone happens at the same
rate everywhere; a worker whose rate is far above the others' is the cause. For
each kind of end, each worker is compared with *the other* workers pooled: the
2x2 table (this worker or the others; this end or not) and its chi-square, as
fishtest tests a run's workers; the statistic used is its signed square root,
the two-proportion z ``(p_w - p_o) / sqrt(p (1 - p) (1/n_w + 1/n_o))`` (a
residual that counts the noise in the others' rate too, which the plain Pearson
residual against their rate does not: that one raised false alarms in 5 % of
seeded runs of three honest workers). A worker is flagged when it exceeds
:data:`RESIDUAL_LIMIT` (3: about 1 in 740 by chance for one worker and kind;
fishtest colours residuals above 2.7) with at least :data:`MIN_EVENTS` such
ends (a residual from one or two events is noise). Measured
(tests/tournament/test_workers_stats.py): three honest workers at 3-30 %,
60 matches each, are flagged in under 1 % of runs per kind; a worker at 25 %
time losses among two at 3 % is flagged in 95 %. Comparing with the others
rather than with a fixed rate (fishtest's "more than 3 crashes", "10 % time
losses") is deliberate: here the engines are entrants, and an engine that
crashes everywhere is the engine's fault, not the workers'. One worker alone is
never flagged: there is nothing to compare it with. A worker whose transcript
failed the replay is flagged at once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..outcome import AbortCause, EndReason
from .model import MatchRecord

RESIDUAL_LIMIT = 3.0
MIN_EVENTS = 3
KINDS = ("crashes", "time_losses", "protocol_losses", "aborts")
_KIND_OF: dict[str, str] = {
    EndReason.CRASH: "crashes",
    EndReason.STARTUP: "crashes",
    EndReason.RESOURCES: "crashes",
    EndReason.TIME: "time_losses",
    EndReason.PROTOCOL: "protocol_losses",
    EndReason.ILLEGAL: "protocol_losses",
    EndReason.ABORTED: "aborts",
}


@dataclass
class WorkerStats:
    """What one worker did in the run."""

    worker: str
    matches: int = 0  # every match it returned (rated or not, rejected included)
    rejected: int = 0  # transcripts that failed the replay or were not the match asked for
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    # engine: [total ns, decisions]
    decisions: dict[str, list[int]] = field(default_factory=dict)

    def mean_decision_ms(self) -> dict[str, float]:
        return {e: round(ns / n / 1e6, 3) for e, (ns, n) in sorted(self.decisions.items()) if n}


@dataclass(frozen=True)
class Flag:
    """A worker that stands out, and the sentence saying how."""

    worker: str
    why: str


class WorkerTally:
    """The per-worker counts of a run, added to as matches come back."""

    def __init__(self) -> None:
        self.workers: dict[str, WorkerStats] = {}

    def add(
        self,
        worker: str,
        reason: str,
        *,
        rejected: bool = False,
        engines: Sequence[str] = (),
        decision_ns: Sequence[Sequence[int]] = (),
    ) -> None:
        w = self.workers.setdefault(worker, WorkerStats(worker))
        w.matches += 1
        if rejected:
            w.rejected += 1
            return  # its claims are not evidence of anything else
        kind = _KIND_OF.get(str(reason))
        if kind is not None:
            w.counts[kind] += 1
        for name, (ns, n) in zip(engines, decision_ns, strict=False):
            totals = w.decisions.setdefault(name, [0, 0])
            totals[0] += int(ns)
            totals[1] += int(n)

    def add_record(self, r: MatchRecord) -> None:
        if r.played_on is None:
            return
        self.add(
            r.played_on.worker,
            r.reason,
            rejected=r.end.cause is AbortCause.TRANSCRIPT_REJECTED,
            engines=(r.engine_a, r.engine_b),
            decision_ns=r.played_on.decision_ns or (),
        )

    def flags(self) -> list[Flag]:
        return flag_workers(self.workers.values())

    def to_dict(self) -> dict[str, dict[str, object]]:
        flagged = {f.worker: f.why for f in self.flags()}
        return {
            w.worker: {
                "matches": w.matches,
                "rejected": w.rejected,
                **w.counts,
                "mean_decision_ms": w.mean_decision_ms(),
                "flagged": flagged.get(w.worker),
            }
            for w in sorted(self.workers.values(), key=lambda w: w.worker)
        }


def residual(observed: int, n: int, others_observed: int, others_n: int) -> float:
    """How far a worker's rate of ``observed`` in ``n`` matches stands above the
    other workers' (the signed root of the 2x2 chi-square; half an event of prior,
    so that no rate of 0 makes any one event infinitely surprising)."""
    if not n or not others_n:
        return 0.0
    pooled = (observed + others_observed + 0.5) / (n + others_n + 1)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / others_n))
    return (observed / n - others_observed / others_n) / spread if spread > 0 else 0.0


def flag_workers(workers: Iterable[WorkerStats]) -> list[Flag]:
    """The workers that stand out (see the module's text for the test and why).

    The most extreme worker first: a flagged worker leaves the pool the others are
    compared with (a slowed worker's time losses crowd out its other ends, which
    would make an honest worker's look high by comparison)."""
    ws = list(workers)
    out = [
        Flag(w.worker, f"{w.rejected} transcript(s) failed the replay check")
        for w in ws
        if w.rejected
    ]
    pool = [w for w in ws if not w.rejected]
    while True:
        worst: tuple[float, Flag] | None = None
        for w in pool:
            found = _stands_out(w, [o for o in pool if o is not w])
            if found is not None and (worst is None or found[0] > worst[0]):
                worst = found
        if worst is None:
            return out
        out.append(worst[1])
        pool = [w for w in pool if w.worker != worst[1].worker]


def _stands_out(w: WorkerStats, others: list[WorkerStats]) -> tuple[float, Flag] | None:
    """The largest residual of ``w`` over the limit, with its flag; None if none is."""
    others_n = sum(o.matches for o in others)
    if not others_n or not w.matches:
        return None
    best: tuple[float, Flag] | None = None
    for kind in KINDS:
        x = w.counts.get(kind, 0)
        if x < MIN_EVENTS:
            continue
        others_x = sum(o.counts.get(kind, 0) for o in others)
        r = residual(x, w.matches, others_x, others_n)
        if r > RESIDUAL_LIMIT and (best is None or r > best[0]):
            why = (
                f"{x} {kind.replace('_', ' ')} in {w.matches} matches, against {others_x} "
                f"in {others_n} on the other workers (residual {r:.1f} > {RESIDUAL_LIMIT:g})"
            )
            best = (r, Flag(w.worker, why))
    return best


def tally_of(records: Iterable[MatchRecord]) -> WorkerTally:
    """The per-worker counts of a results file's records (those played on a cluster)."""
    tally = WorkerTally()
    for r in records:
        tally.add_record(r)
    return tally


def workers_of(records: Iterable[MatchRecord]) -> dict[str, dict[str, object]] | None:
    """The per-worker statistics (as JSON) of records played on a cluster; None
    when none was (a local tournament)."""
    tally = tally_of(records)
    return tally.to_dict() if tally.workers else None
