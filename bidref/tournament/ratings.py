"""Elo, intervals, likelihood of superiority and SPRT from match results.

Conventions are those of cutechess and fastchess (logistic Elo):

* score ``s`` = (wins + draws/2) / matches; Elo = -400·log10(1/s - 1).
* Trinomial (one match at a time): per-match variance
  ``σ² = (W(1-s)² + D(½-s)² + L(0-s)²)/N``; the 95 % interval is the Elo of
  ``s ± 1.96·σ/√N``; LOS = ½(1 + erf((W-L)/√(2(W+L)))).
* Pentanomial (pairs of matches on the same deal with seats swapped): a pair
  scores 0, ½, 1, 1½ or 2; counts ``[LL, LD, DD+WL, WD, WW]`` ("Ptnml(0-2)").
  The pair score is normalised to [0, 1] (divide by 2), its variance is taken over
  pairs, so the correlation inside a pair is accounted for.
  LOS = Φ((s-½)/(σ/√pairs)).
* SPRT: the generalised SPRT of fishtest on the pentanomial counts: each
  hypothesis is the maximum-likelihood distribution with the score ``s0`` or
  ``s1`` of the logistic Elo bounds; ``LLR = N·Σ f_i ln(q1_i/q0_i)``. On large
  samples this equals the normal approximation of fastchess,
  ``(s1-s0)(2s-s0-s1) / (2σ²/n)`` (also offered). Stop at ``ln(β/(1-α))`` (H0)
  or ``ln((1-β)/α)`` (H1).

>>> round(score_to_elo(0.75), 2)
190.85
>>> Trinomial(wins=60, losses=40, draws=0).los
0.9772498680518208
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import UsageError

Z95 = 1.959963984540054  # two-sided 95 % quantile of the standard normal
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # normalised pair scores of the 5 pentanomial cells


def score_to_elo(score: float) -> float:
    """Logistic Elo difference for an expected score; ±inf at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    """Expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@dataclass(frozen=True)
class Estimate:
    """A score with its standard error, seen as Elo."""

    score: float
    stderr: float  # of the mean score; nan when it cannot be estimated
    samples: int

    @property
    def elo(self) -> float:
        return score_to_elo(self.score) if self.samples else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        """95 % interval in Elo (low, high); nan when the spread is unknown."""
        if not self.samples or math.isnan(self.stderr):
            return (math.nan, math.nan)
        return (
            score_to_elo(self.score - Z95 * self.stderr),
            score_to_elo(self.score + Z95 * self.stderr),
        )

    @property
    def margin(self) -> float:
        """Half the width of the 95 % interval in Elo (the "±" of cutechess)."""
        low, high = self.interval
        if math.isnan(low) or math.isinf(low) or math.isinf(high):
            return math.nan if math.isnan(low) else math.inf
        return (high - low) / 2.0


@dataclass(frozen=True)
class Trinomial:
    """Wins, losses and draws of one side, matches taken one at a time."""

    wins: int
    losses: int
    draws: int

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.n if self.n else math.nan

    @property
    def variance(self) -> float:
        """Per-match variance of the score."""
        if not self.n:
            return math.nan
        s = self.score
        return (
            self.wins * (1.0 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s**2
        ) / self.n

    @property
    def estimate(self) -> Estimate:
        if not self.n:
            return Estimate(math.nan, math.nan, 0)
        return Estimate(self.score, math.sqrt(self.variance / self.n), self.n)

    @property
    def los(self) -> float:
        """Likelihood of superiority (cutechess): draws do not count."""
        decisive = self.wins + self.losses
        if not decisive:
            return 0.5
        return 0.5 * (1.0 + math.erf((self.wins - self.losses) / math.sqrt(2.0 * decisive)))


@dataclass(frozen=True)
class Pentanomial:
    """Pair outcomes of one side: counts of pair scores 0, ½, 1, 1½, 2 (of 2)."""

    counts: tuple[int, int, int, int, int]

    @classmethod
    def from_pairs(cls, pair_points: Sequence[float]) -> Pentanomial:
        """From each pair's points of 2 (0, 0.5, 1, 1.5 or 2)."""
        cells = [0, 0, 0, 0, 0]
        for points in pair_points:
            index = round(points * 2)
            if not 0 <= index <= 4 or index != points * 2:
                raise ValueError(f"pair points {points} are not one of 0, 0.5, 1, 1.5, 2")
            cells[index] += 1
        return cls((cells[0], cells[1], cells[2], cells[3], cells[4]))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        if not self.pairs:
            return math.nan
        return sum(c * v for c, v in zip(self.counts, PAIR_SCORES, strict=True)) / self.pairs

    @property
    def variance(self) -> float:
        """Per-pair variance of the normalised pair score."""
        if not self.pairs:
            return math.nan
        s = self.score
        return (
            sum(c * (v - s) ** 2 for c, v in zip(self.counts, PAIR_SCORES, strict=True))
            / self.pairs
        )

    @property
    def estimate(self) -> Estimate:
        if not self.pairs:
            return Estimate(math.nan, math.nan, 0)
        return Estimate(self.score, math.sqrt(self.variance / self.pairs), self.pairs)

    @property
    def los(self) -> float:
        """Likelihood of superiority from the pair scores (normal approximation)."""
        if not self.pairs:
            return 0.5
        stderr = math.sqrt(self.variance / self.pairs)
        s = self.score
        if stderr == 0.0:
            return 1.0 if s > 0.5 else 0.0 if s < 0.5 else 0.5
        return phi((s - 0.5) / stderr)


SprtStatus = Literal["H0", "H1", "continue"]


def _mle_with_mean(freqs: Sequence[float], mean: float) -> list[float]:
    """The distribution over the pair scores closest (max likelihood) to ``freqs``
    whose expected score is ``mean``: ``q_i = f_i / (1 + x (a_i - mean))`` with
    ``x`` the root of ``sum f_i (a_i - mean) / (1 + x (a_i - mean)) = 0``.
    """
    d = [a - mean for a in PAIR_SCORES]
    lo, hi = -1.0 / max(d), -1.0 / min(d)  # keeps every 1 + x d_i > 0

    def slope(x: float) -> float:
        return sum(f * di / (1.0 + x * di) for f, di in zip(freqs, d, strict=True))

    for _ in range(200):  # slope decreases in x: bisection
        mid = (lo + hi) / 2.0
        if slope(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2.0
    q = [f / (1.0 + x * di) for f, di in zip(freqs, d, strict=True)]
    total = sum(q)
    return [v / total for v in q]


class SprtError(UsageError, ValueError):  # ValueError: as before, for one release
    """SPRT bounds that cannot be used (the message says the fix)."""


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of "elo >= elo1" against "elo <= elo0"."""

    elo0: float
    elo1: float
    alpha: float
    beta: float

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise SprtError(
                f"SPRT elo0={self.elo0} must be below elo1={self.elo1}, e.g. --sprt 0 10 0.05 0.05"
            )
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise SprtError(f"SPRT {name}={value} must be between 0 and 0.5, e.g. 0.05")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) LLR bounds: H0 is accepted at or below lower, H1 at or above upper."""
        return (
            math.log(self.beta / (1.0 - self.alpha)),
            math.log((1.0 - self.beta) / self.alpha),
        )

    def llr(self, penta: Pentanomial) -> float:
        """Log-likelihood ratio on pair statistics: the GSPRT of fishtest.

        Each hypothesis is the maximum-likelihood pentanomial distribution whose
        expected score is that hypothesis's score; empty cells get a tiny count
        (1e-3) so that one-sided samples (every pair won) still move the test,
        by at most one observation's worth of evidence per pair.
        """
        if penta.pairs == 0:
            return 0.0
        counts = [c if c > 0 else 1e-3 for c in penta.counts]
        total = sum(counts)
        freqs = [c / total for c in counts]
        q0 = _mle_with_mean(freqs, elo_to_score(self.elo0))
        q1 = _mle_with_mean(freqs, elo_to_score(self.elo1))
        return total * sum(f * math.log(b / a) for f, a, b in zip(freqs, q0, q1, strict=True))

    def llr_normal(self, penta: Pentanomial) -> float:
        """The normal approximation of the LLR (fastchess): close to :meth:`llr` on
        large samples; 0 while the spread is zero (every pair alike)."""
        n = penta.pairs
        if n == 0 or penta.variance <= 0.0:
            return 0.0
        s0 = elo_to_score(self.elo0)
        s1 = elo_to_score(self.elo1)
        return (s1 - s0) * (2.0 * penta.score - s0 - s1) / (2.0 * penta.variance / n)

    def status(self, penta: Pentanomial) -> SprtStatus:
        llr = self.llr(penta)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return "continue"


ELO_PER_NATURAL = 400.0 / math.log(10.0)  # Elo points per natural-log unit of odds


@dataclass(frozen=True)
class JointRating:
    """One engine's rating from all the results at once (maximum likelihood)."""

    elo: float  # relative to the average of all engines (0)
    stderr: float  # in Elo; nan when it cannot be estimated
    matches: int

    @property
    def margin(self) -> float:
        """Half the 95 % interval, in Elo."""
        return Z95 * self.stderr


def _inverse(m: list[list[float]]) -> list[list[float]]:
    """The inverse of a small, well-conditioned square matrix (Gauss-Jordan)."""
    n = len(m)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(m)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise ZeroDivisionError("singular matrix")
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        a[col] = [v / p for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0.0:
                f = a[r][col]
                a[r] = [v - f * w for v, w in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]


def joint_ratings(
    names: Sequence[str],
    results: dict[tuple[str, str], tuple[float, int]],
    *,
    prior_draws: float = 1.0,
    tolerance: float = 1e-9,
    max_iterations: int = 10_000,
) -> dict[str, JointRating]:
    """Ratings of all engines at once: the maximum-likelihood logistic (Bradley-Terry)
    model of every rated match, as Ordo and BayesElo compute them.

    ``results[(a, b)] = (points of a, matches)`` for each pair of engines that met
    (either order; a draw is half a point). ``prior_draws`` virtual draws are added
    between every two engines that met (BayesElo's prior), so that an engine that
    won every match still gets a finite rating. The average rating is 0. The
    standard error comes from the curvature of the likelihood (the Fisher
    information, constrained to that average); it treats matches as independent,
    unlike the pairwise Elo, whose pentanomial interval accounts for the pairs.

    Solved with the minorise-maximise iteration of Hunter (2004):
    ``π_i ← W_i / Σ_j n_ij / (π_i + π_j)``.

    >>> r = joint_ratings(["a", "b"], {("a", "b"): (75.0, 100)}, prior_draws=0)
    >>> round(r["a"].elo - r["b"].elo, 1)
    190.8
    """
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    games = [[0.0] * k for _ in range(k)]
    points = [0.0] * k
    played = [0] * k
    for (a, b), (pts, n) in results.items():
        if n <= 0 or a not in index or b not in index:
            continue
        i, j = index[a], index[b]
        games[i][j] += n + prior_draws
        games[j][i] += n + prior_draws
        points[i] += pts + prior_draws / 2
        points[j] += n - pts + prior_draws / 2
        played[i] += n
        played[j] += n
    pi = [1.0] * k
    active = [i for i in range(k) if any(games[i])]
    for _ in range(max_iterations):
        change = 0.0
        new = pi[:]
        for i in active:
            denom = sum(games[i][j] / (pi[i] + pi[j]) for j in active if games[i][j])
            if denom > 0 and points[i] > 0:
                new[i] = points[i] / denom
        # keep the geometric mean at 1 (the average rating at 0)
        mean = math.exp(sum(math.log(new[i]) for i in active) / max(len(active), 1))
        for i in active:
            new[i] /= mean
            change = max(change, abs(math.log(new[i]) - math.log(pi[i])))
        pi = new
        if change < tolerance:
            break
    beta = [math.log(p) for p in pi]
    stderr = [math.nan] * k
    if len(active) >= 2:
        m = len(active)
        h = [[0.0] * m for _ in range(m)]
        for x, i in enumerate(active):
            for y, j in enumerate(active):
                if i != j and games[i][j]:
                    p = 1.0 / (1.0 + math.exp(beta[j] - beta[i]))
                    w = games[i][j] * p * (1.0 - p)
                    h[x][y] -= w
                    h[x][x] += w
        try:
            # The information matrix is singular along "all ratings + c": its
            # pseudo-inverse (H + J/m)^-1 - J/m is the covariance with the average fixed.
            inv = _inverse([[v + 1.0 / m for v in row] for row in h])
            for x, i in enumerate(active):
                var = inv[x][x] - 1.0 / m
                stderr[i] = math.sqrt(var) * ELO_PER_NATURAL if var > 0 else math.nan
        except ZeroDivisionError:
            pass
    return {
        n: JointRating(beta[i] * ELO_PER_NATURAL if i in active else math.nan, stderr[i], played[i])
        for n, i in index.items()
    }
