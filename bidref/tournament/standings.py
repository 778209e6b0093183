"""Standings: per engine and per pairing statistics from the results records.

Only rated records count. Wins, losses and draws count every rated match; Elo,
its 95 % interval, the likelihood of superiority and the SPRT use *complete
pairs* (both seats of a deal seed rated), whose outcomes are the pentanomial
counts. Aborted (unrated) matches are only counted as such.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .model import ABORTED, MatchRecord
from .ratings import Estimate, Pentanomial, Sprt, SprtStatus, Trinomial
from .schedule import MatchKey, Pairing

log = logging.getLogger(__name__)

# Losses by the loser's fault, by end reason -> column name.
FAULT_COLUMNS = {
    "time": "time_losses",
    "crash": "crashes",
    "startup": "crashes",
    "illegal": "illegal_forfeits",
    "protocol": "protocol_errors",
}
FAULTS = ("time_losses", "crashes", "illegal_forfeits", "protocol_errors")


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

    def to_dict(self) -> dict[str, object]:
        est = self.estimate
        low, high = est.interval
        return {
            "matches": self.matches,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "points": self.points,
            "adjudications": self.adjudications,
            "aborted": self.aborted,
            "pairs": est.samples,
            "pentanomial": list(self.pentanomial.counts),
            "score": _num(self.trinomial.score),
            "elo": _num(est.elo),
            "elo_low": _num(low),
            "elo_high": _num(high),
            "los": _num(self.pentanomial.los),
            **self.faults,
        }


def _num(x: float) -> float | str | None:
    """JSON form of a statistic: finite numbers rounded, ±inf as strings, nan as null."""
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
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

    def ranked(self) -> list[tuple[str, SideStats]]:
        """Engines best first: by pair score, then match score, then name."""

        def key(item: tuple[str, SideStats]) -> tuple[float, float, str]:
            name, s = item
            ps = s.pentanomial.score
            ts = s.trinomial.score
            return (
                -(ps if not math.isnan(ps) else -1.0),
                -(ts if not math.isnan(ts) else -1.0),
                name,
            )

        return sorted(self.engines.items(), key=key)

    def sprt_status(self, sprt: Sprt) -> tuple[Pairing, float, SprtStatus] | None:
        """SPRT of the only pairing (SPRT needs a two-engine tournament)."""
        if len(self.pairs) != 1:
            return None
        ((pairing, stats),) = self.pairs.items()
        penta = stats.side.pentanomial
        return pairing, sprt.llr(penta), sprt.status(penta)

    def to_dict(self, sprt: Sprt | None = None) -> dict[str, object]:
        return {
            "engines": [
                {"name": n, "rank": i + 1, **s.to_dict()} for i, (n, s) in enumerate(self.ranked())
            ],
            "pairs": [p.to_dict(sprt) for p in self.pairs.values()],
        }


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
            if r.reason == ABORTED:
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
        _fault(engines, pairs, r)
        both = self._deals[(key.pairing, key.seed)]
        both.append(r)
        if len(both) == 2:
            points_first = sum(x.points_for(key.pairing.first) for x in both)
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
    if r.winner is None:
        side.draws += 1
    elif r.winner == name:
        side.wins += 1
    else:
        side.losses += 1
    if r.reason == "round_limit":
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
