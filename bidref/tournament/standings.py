"""Standings: per engine and per pairing statistics from the results records.

Only rated records count. Wins, losses and draws count every rated match; Elo,
its 95 % interval, the likelihood of superiority and the SPRT use *complete
pairs* (both seats of a deal seed rated), whose outcomes are the pentanomial
counts. Aborted (unrated) matches are only counted as such.

Beside the pairwise Elo, :meth:`Standings.joint` rates all engines at once by
maximum likelihood (as Ordo and BayesElo do), over the matches of complete
pairs too: a deal played in one seat only favours whoever had the better seat
of it. A rated match whose other seat is not rated (yet) is *unpaired*: it
counts in wins, losses and draws, is reported as ``unpaired``, and counts in
no rating, interval, LOS or SPRT until its partner is in. Results are
also split by seat (A moves first in the auction of round 1).

In JSON, no statistic is an "inf" string: an Elo that is infinite (every pair
won or lost) is given as a finite bound with ``elo_bound`` saying which
("lower": at least this; "upper": at most this), and an interval is null
("n/a") below :data:`MIN_PAIRS` complete pairs or where it is unbounded.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..outcome import EndReason
from .model import MatchRecord
from .ratings import (
    Estimate,
    JointRating,
    Pentanomial,
    Sprt,
    SprtStatus,
    Trinomial,
    joint_ratings,
    score_to_elo,
)
from .schedule import MatchKey, Pairing

log = logging.getLogger(__name__)

# Losses by the loser's fault, by end reason -> column name.
# (every reason that is an engine's fault has its column: tests/tournament check it)
FAULT_COLUMNS: dict[str, str] = {
    EndReason.TIME: "time_losses",
    EndReason.CRASH: "crashes",
    EndReason.STARTUP: "crashes",
    EndReason.RESOURCES: "crashes",  # killed or refused at a jail limit
    EndReason.ILLEGAL: "illegal_forfeits",
    EndReason.PROTOCOL: "protocol_errors",
}
FAULTS = ("time_losses", "crashes", "illegal_forfeits", "protocol_errors")
# Fewer complete pairs than this: the spread is too uncertain for an interval ("n/a").
MIN_PAIRS = 3


@dataclass
class SideStats:
    """Results of one side (an engine overall, or ``first`` of a pairing)."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    adjudications: int = 0  # rated matches ended at the round limit
    aborted: int = 0  # unrated records (played again)
    pair_counts: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))
    opponent_faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))
    # [wins, losses, draws] in seat A and in seat B
    by_seat: list[list[int]] = field(default_factory=lambda: [[0, 0, 0], [0, 0, 0]])

    @property
    def matches(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def trinomial(self) -> Trinomial:
        return Trinomial(self.wins, self.losses, self.draws)

    @property
    def pentanomial(self) -> Pentanomial:
        c = self.pair_counts
        return Pentanomial((c[0], c[1], c[2], c[3], c[4]))

    def add_pair(self, points: float) -> None:
        """A complete pair scoring ``points`` of 2 (0, 0.5, 1, 1.5 or 2) for this side."""
        self.pair_counts[round(points * 2)] += 1

    @property
    def estimate(self) -> Estimate:
        return self.pentanomial.estimate

    @property
    def interval_known(self) -> bool:
        """Enough complete pairs for a 95 % interval (else it is "n/a")."""
        return self.estimate.samples >= MIN_PAIRS

    def elo_bound(self) -> tuple[float, str | None]:
        """The pair Elo, or where it is infinite a finite bound and which bound it is:
        had one pair gone one half point the other way (WD instead of WW)."""
        est = self.estimate
        if not math.isinf(est.elo):
            return est.elo, None
        step = 0.25 / est.samples
        if est.elo > 0:
            return score_to_elo(1.0 - step), "lower"
        return score_to_elo(step), "upper"

    def seat_dict(self) -> dict[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for seat, (w, lo, d) in zip("AB", self.by_seat, strict=True):
            t = Trinomial(w, lo, d)
            out[seat] = {
                "matches": t.n,
                "wins": w,
                "losses": lo,
                "draws": d,
                "score": _num(t.score),
            }
        return out

    def to_dict(self) -> dict[str, object]:
        est = self.estimate
        low, high = est.interval if self.interval_known else (math.nan, math.nan)
        elo, bound = self.elo_bound()
        return {
            "matches": self.matches,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "points": self.points,
            "adjudications": self.adjudications,
            "aborted": self.aborted,
            "pairs": est.samples,
            "unpaired": self.matches - 2 * est.samples,
            "pentanomial": list(self.pentanomial.counts),
            "score": _num(self.trinomial.score),
            "elo": _num(elo),
            "elo_bound": bound,
            "elo_low": _num(low),
            "elo_high": _num(high),
            "los": _num(self.pentanomial.los),
            "by_seat": self.seat_dict(),
            **self.faults,
        }


def _num(x: float) -> float | None:
    """JSON form of a statistic: finite numbers rounded; nan and ±inf as null
    (never an "inf" string: see elo_bound)."""
    if math.isnan(x) or math.isinf(x):
        return None
    return round(x, 4)


@dataclass
class PairStats:
    pairing: Pairing
    side: SideStats  # from the view of pairing.first

    def to_dict(self, sprt: Sprt | None = None) -> dict[str, object]:
        out: dict[str, object] = {"first": self.pairing.first, "second": self.pairing.second}
        out.update(self.side.to_dict())
        out["second_faults"] = dict(self.side.opponent_faults)
        if sprt is not None:
            out["sprt"] = sprt_dict(sprt, self.side.pentanomial)
        return out


def sprt_dict(sprt: Sprt, penta: Pentanomial) -> dict[str, object]:
    lower, upper = sprt.bounds
    return {
        "elo0": sprt.elo0,
        "elo1": sprt.elo1,
        "alpha": sprt.alpha,
        "beta": sprt.beta,
        "llr": round(sprt.llr(penta), 4),
        "lower": round(lower, 4),
        "upper": round(upper, 4),
        "status": sprt.status(penta),
    }


@dataclass
class Standings:
    engines: dict[str, SideStats]
    pairs: dict[Pairing, PairStats]
    # (a, b) -> [points of a, rated matches], both orders: for the cross-table
    head_to_head: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    # ... of the matches of complete pairs only: for the joint ratings
    paired_h2h: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    def joint(self) -> dict[str, JointRating]:
        """All engines rated at once (maximum likelihood over the complete pairs' matches)."""
        results = {(a, b): (v[0], int(v[1])) for (a, b), v in self.paired_h2h.items() if a < b}
        return joint_ratings(list(self.engines), results)

    @property
    def unpaired(self) -> int:
        """Rated matches whose other seat is not rated: in no rating (see the module)."""
        return sum(p.side.matches - 2 * p.side.estimate.samples for p in self.pairs.values())

    def ranked(self, hero: str | None = None) -> list[tuple[str, SideStats]]:
        """Engines best first: by pair score, then match score, then name;
        ``hero`` (a gauntlet's engine) first of all."""

        def key(item: tuple[str, SideStats]) -> tuple[float, float, str]:
            name, s = item
            ps = s.pentanomial.score
            ts = s.trinomial.score
            return (
                -(ps if not math.isnan(ps) else -1.0),
                -(ts if not math.isnan(ts) else -1.0),
                name,
            )

        ranked = sorted(self.engines.items(), key=key)
        if hero is not None and hero in self.engines:
            ranked = [(hero, self.engines[hero])] + [x for x in ranked if x[0] != hero]
        return ranked

    def sprt_status(self, sprt: Sprt) -> tuple[Pairing, float, SprtStatus] | None:
        """SPRT of the only pairing (SPRT needs a two-engine tournament)."""
        if len(self.pairs) != 1:
            return None
        ((pairing, stats),) = self.pairs.items()
        penta = stats.side.pentanomial
        return pairing, sprt.llr(penta), sprt.status(penta)

    def to_dict(self, sprt: Sprt | None = None, hero: str | None = None) -> dict[str, object]:
        """``hero``: a gauntlet's engine, listed first."""
        joint = self.joint()
        engines = []
        for i, (n, s) in enumerate(self.ranked(hero)):
            j = joint[n]
            known = s.interval_known and not math.isnan(j.stderr)
            engines.append(
                {
                    "name": n,
                    "rank": i + 1,
                    **s.to_dict(),
                    "joint_elo": _num(j.elo),
                    "joint_elo_low": _num(j.elo - j.margin) if known else None,
                    "joint_elo_high": _num(j.elo + j.margin) if known else None,
                }
            )
        return {
            "engines": engines,
            "pairs": [p.to_dict(sprt) for p in self.pairs.values()],
            "cross_table": self.cross_dict(),
        }

    def cross_dict(self) -> dict[str, dict[str, dict[str, float | int]]]:
        """Each engine's points and matches against each opponent."""
        out: dict[str, dict[str, dict[str, float | int]]] = {n: {} for n in self.engines}
        for (a, b), (points, matches) in sorted(self.head_to_head.items()):
            out[a][b] = {"points": points, "matches": int(matches)}
        return out


class Tally:
    """Standings kept up to date one record at a time (O(1) per record).

    Only the first rated record of a match key counts; a pair is complete when
    both seats of a deal seed are rated.
    """

    def __init__(self, names: Sequence[str], pairings: Sequence[Pairing]) -> None:
        self.standings = Standings(
            {n: SideStats() for n in names}, {p: PairStats(p, SideStats()) for p in pairings}
        )
        self._rated: set[MatchKey] = set()
        self._deals: dict[tuple[Pairing, int], list[MatchRecord]] = defaultdict(list)

    def add(self, r: MatchRecord) -> None:
        engines, pairs = self.standings.engines, self.standings.pairs
        key = r.key
        if key.pairing not in pairs or r.engine_a not in engines or r.engine_b not in engines:
            log.warning("record %s is not part of this tournament; ignored", key.id)
            return
        if not r.rated:
            if r.reason == EndReason.ABORTED:
                engines[r.engine_a].aborted += 1
                engines[r.engine_b].aborted += 1
                pairs[key.pairing].side.aborted += 1
            else:  # e.g. an engine that did not start: its fault, not rated
                _fault(engines, pairs, r)
            return
        if key in self._rated:
            log.warning("match %s is recorded as rated twice; counting the first", key.id)
            return
        self._rated.add(key)
        _count(pairs[key.pairing].side, r, key.pairing.first)
        for name in (r.engine_a, r.engine_b):
            _count(engines[name], r, name)
        h2h = self.standings.head_to_head
        for name, other in ((r.engine_a, r.engine_b), (r.engine_b, r.engine_a)):
            cell = h2h.setdefault((name, other), [0.0, 0.0])
            cell[0] += r.points_for(name)
            cell[1] += 1
        _fault(engines, pairs, r)
        both = self._deals[(key.pairing, key.seed)]
        both.append(r)
        if len(both) == 2:
            points_first = sum(x.points_for(key.pairing.first) for x in both)
            for x in both:
                for name, other in ((x.engine_a, x.engine_b), (x.engine_b, x.engine_a)):
                    cell = self.standings.paired_h2h.setdefault((name, other), [0.0, 0.0])
                    cell[0] += x.points_for(name)
                    cell[1] += 1
            pairs[key.pairing].side.add_pair(points_first)
            engines[key.pairing.first].add_pair(points_first)
            engines[key.pairing.second].add_pair(2.0 - points_first)


def compute(
    names: Sequence[str], pairings: Sequence[Pairing], records: Iterable[MatchRecord]
) -> Standings:
    tally = Tally(names, pairings)
    for r in records:
        tally.add(r)
    return tally.standings


def _count(side: SideStats, r: MatchRecord, name: str) -> None:
    seat = side.by_seat[0 if name == r.engine_a else 1]
    if r.winner is None:
        side.draws += 1
        seat[2] += 1
    elif r.winner == name:
        side.wins += 1
        seat[0] += 1
    else:
        side.losses += 1
        seat[1] += 1
    if r.reason == EndReason.ROUND_LIMIT:
        side.adjudications += 1


def _fault(engines: dict[str, SideStats], pairs: dict[Pairing, PairStats], r: MatchRecord) -> None:
    """Count a match ended by an engine's fault (time, crash, start-up, ...) against it."""
    column = FAULT_COLUMNS.get(r.reason)
    culprit = r.at_fault or (r.loser if r.rated else None)
    if column is None or culprit is None:
        return
    if culprit in engines:
        engines[culprit].faults[column] += 1
    if r.key.pairing in pairs:
        side = pairs[r.key.pairing].side
        (side.faults if culprit == r.key.pairing.first else side.opponent_faults)[column] += 1
