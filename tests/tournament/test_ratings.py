"""Ratings against published reference figures and hand-computed values."""

from __future__ import annotations

import math

import pytest

from bidref.tournament.ratings import (
    Pentanomial,
    Sprt,
    Trinomial,
    elo_to_score,
    phi,
    score_to_elo,
)


def test_logistic_elo_by_hand() -> None:
    assert score_to_elo(0.5) == 0.0
    assert score_to_elo(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert score_to_elo(0.6) == pytest.approx(70.4365, abs=1e-4)
    assert score_to_elo(0.0) == -math.inf and score_to_elo(1.0) == math.inf
    for elo in (-300.0, -12.5, 0.0, 44.0, 600.0):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)


def test_trinomial_by_hand() -> None:
    t = Trinomial(wins=60, losses=40, draws=0)
    assert t.score == 0.6
    assert t.variance == pytest.approx((60 * 0.4**2 + 40 * 0.6**2) / 100)  # 0.24
    low, high = t.estimate.interval
    se = math.sqrt(0.24 / 100)
    assert low == pytest.approx(-400 * math.log10(1 / (0.6 - 1.959964 * se) - 1), abs=1e-4)
    assert high == pytest.approx(-400 * math.log10(1 / (0.6 + 1.959964 * se) - 1), abs=1e-4)
    assert (low, high) == pytest.approx((2.767, 143.909), abs=1e-3)
    assert t.los == pytest.approx(phi(2.0))  # (W-L)/sqrt(W+L) = 20/10
    assert t.los == pytest.approx(0.977250, abs=1e-6)


@pytest.mark.parametrize(
    ("w", "l", "d", "elo", "margin", "los"),
    [  # cutechess outputs "Score of X vs Y: W - L - D ... Elo difference: e +/- m, LOS: p %"
        (449, 276, 275, 60.7, 18.5, 100.0),
        (382, 320, 298, 21.6, 18.1, 99.0),
        (372, 322, 306, 17.4, 17.9, 97.1),
        (382, 304, 314, 27.2, 17.9, 99.9),
    ],
)
def test_trinomial_matches_cutechess_figures(
    w: int,
    l: int,  # noqa: E741
    d: int,
    elo: float,
    margin: float,
    los: float,
) -> None:
    t = Trinomial(w, l, d)
    assert t.estimate.elo == pytest.approx(elo, abs=0.05)
    assert t.estimate.margin == pytest.approx(margin, abs=0.1)
    assert t.los * 100 == pytest.approx(los, abs=0.05)


def test_pentanomial_by_hand() -> None:
    p = Pentanomial((1, 2, 4, 2, 1))
    assert p.pairs == 10
    assert p.score == pytest.approx(0.5)
    assert p.variance == pytest.approx((0.25 + 2 * 0.0625 + 2 * 0.0625 + 0.25) / 10)
    assert p.los == pytest.approx(0.5)
    q = Pentanomial((5, 10, 30, 35, 20))
    assert q.score == pytest.approx(0.6375)
    assert q.variance == pytest.approx(0.07171875)
    assert q.los == pytest.approx(phi((0.6375 - 0.5) / math.sqrt(0.07171875 / 100)))


def test_pentanomial_from_pair_points() -> None:
    assert Pentanomial.from_pairs([0, 0.5, 1, 1, 1.5, 2, 2]).counts == (1, 1, 2, 1, 2)
    with pytest.raises(ValueError, match="not one of"):
        Pentanomial.from_pairs([0.7])


def test_sprt_bounds() -> None:
    lower, upper = Sprt(0, 10, 0.05, 0.05).bounds
    assert lower == pytest.approx(-2.944439, abs=1e-6)
    assert upper == pytest.approx(2.944439, abs=1e-6)
    lower, upper = Sprt(0, 5, 0.05, 0.10).bounds
    assert (lower, upper) == pytest.approx((math.log(0.10 / 0.95), math.log(0.90 / 0.05)))


def test_sprt_normal_approximation_by_hand_and_by_the_equivalent_form() -> None:
    p = Pentanomial((5, 10, 30, 35, 20))
    sprt = Sprt(0, 10, 0.05, 0.05)
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    by_hand = (s1 - s0) * (2 * 0.6375 - s0 - s1) / (2 * 0.07171875 / 100)
    assert sprt.llr_normal(p) == pytest.approx(by_hand)
    # the same LLR written as half the difference of squared z-scores
    se2 = 0.07171875 / 100
    assert sprt.llr_normal(p) == pytest.approx(
        ((0.6375 - s0) ** 2 - (0.6375 - s1) ** 2) / (2 * se2)
    )
    assert sprt.llr_normal(p) == pytest.approx(2.614, abs=1e-3)


def test_sprt_exact_llr_is_the_likelihood_ratio_of_the_constrained_fits() -> None:
    from bidref.tournament.ratings import PAIR_SCORES, _mle_with_mean

    counts = (5, 10, 30, 35, 20)
    freqs = [c / 100 for c in counts]
    sprt = Sprt(0, 10, 0.05, 0.05)
    q0, q1 = _mle_with_mean(freqs, 0.5), _mle_with_mean(freqs, elo_to_score(10))
    for q, mean in ((q0, 0.5), (q1, elo_to_score(10))):
        assert sum(q) == pytest.approx(1.0)
        assert sum(a * v for a, v in zip(PAIR_SCORES, q, strict=True)) == pytest.approx(mean)
    by_hand = sum(c * math.log(b / a) for c, a, b in zip(counts, q0, q1, strict=True))
    assert sprt.llr(Pentanomial(counts)) == pytest.approx(by_hand)
    assert sprt.status(Pentanomial(counts)) == "continue"


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "llr"),
    [  # fastchess's own SPRT tests (logistic model, pentanomial LL, LD, WL+DD, WD, WW)
        ((223, 9863, 20279 + 1000, 10037, 246), 0.5, 2.5, -3.07),
        ((871, 26175, 55003 + 980, 26678, 821), 0.0, 2.0, -4.98),
    ],
)
def test_sprt_matches_fastchess_figures(
    counts: tuple[int, int, int, int, int], elo0: float, elo1: float, llr: float
) -> None:
    sprt = Sprt(elo0, elo1, 0.05, 0.05)
    assert sprt.llr(Pentanomial(counts)) == pytest.approx(llr, abs=0.01)
    assert sprt.llr_normal(Pentanomial(counts)) == pytest.approx(llr, abs=0.01)
    assert sprt.status(Pentanomial(counts)) == "H0"


@pytest.mark.parametrize(
    ("counts", "llr"),
    [  # published fishtest-style GSPRT figures for [-1.75, 0.25], alpha = beta = 0.05
        ((0, 0, 0, 0, 0), 0.0),
        ((10, 5, 2, 5, 10), 0.0),
        ((0, 0, 0, 0, 3), 0.02),
    ],
)
def test_sprt_matches_gsprt_figures_on_small_samples(
    counts: tuple[int, int, int, int, int], llr: float
) -> None:
    assert Sprt(-1.75, 0.25, 0.05, 0.05).llr(Pentanomial(counts)) == pytest.approx(llr, abs=0.005)


def test_sprt_decides_h1_for_a_clearly_stronger_side() -> None:
    assert Sprt(0, 10, 0.05, 0.05).status(Pentanomial((5, 10, 60, 80, 45))) == "H1"


def test_sprt_on_one_sided_samples_moves_one_pair_at_a_time() -> None:
    sprt = Sprt(0, 50, 0.05, 0.05)
    one = sprt.llr(Pentanomial((1, 0, 0, 0, 0)))  # one pair lost twice: weak evidence
    assert -0.5 < one < 0 and sprt.status(Pentanomial((1, 0, 0, 0, 0))) == "continue"
    # every pair lost: the evidence adds up, pair by pair, and H0 is accepted
    assert sprt.llr(Pentanomial((100, 0, 0, 0, 0))) == pytest.approx(100 * one, rel=0.01)
    assert sprt.status(Pentanomial((100, 0, 0, 0, 0))) == "H0"
    assert sprt.status(Pentanomial((0, 0, 0, 0, 100))) == "H1"
    assert sprt.llr_normal(Pentanomial((0, 0, 0, 0, 100))) == 0.0  # no spread: no estimate


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((10, 0, 0.05, 0.05), "must be below"),
        ((0, 10, 0.0, 0.05), "alpha"),
        ((0, 10, 0.05, 0.7), "beta"),
    ],
)
def test_bad_sprt_parameters(args: tuple[float, float, float, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Sprt(*args)


def test_empty_statistics_are_not_numbers() -> None:
    assert math.isnan(Trinomial(0, 0, 0).estimate.elo)
    assert Trinomial(0, 0, 3).los == 0.5
    assert math.isnan(Pentanomial((0, 0, 0, 0, 0)).estimate.elo)
    assert Pentanomial((0, 0, 2, 0, 0)).estimate.margin == 0.0  # all pairs equal: no spread


def test_joint_ratings_recover_the_pairwise_elo_of_two_engines() -> None:
    from bidref.tournament.ratings import joint_ratings

    r = joint_ratings(["a", "b"], {("a", "b"): (75.0, 100)}, prior_draws=0)
    assert abs((r["a"].elo - r["b"].elo) - score_to_elo(0.75)) < 0.01
    assert abs(r["a"].elo + r["b"].elo) < 1e-6  # the average is 0
    # the standard error of a logistic fit: 1/sqrt(n p (1-p)) natural units, halved each
    se = 400 / math.log(10) / math.sqrt(100 * 0.75 * 0.25) / 2
    assert abs(r["a"].stderr - se) < 0.01 and r["a"].matches == 100


def test_joint_ratings_use_indirect_results_and_stay_finite() -> None:
    from bidref.tournament.ratings import joint_ratings

    # a beat b, b beat c: a is rated above c although they never met
    results = {("a", "b"): (7.0, 10), ("b", "c"): (7.0, 10)}
    r = joint_ratings(["a", "b", "c"], results)
    assert r["a"].elo > r["b"].elo > r["c"].elo
    assert abs(r["a"].elo + r["c"].elo) < 1e-6 and abs(r["b"].elo) < 1e-6
    # a perfect score has a finite rating thanks to the virtual draws of the prior
    perfect = joint_ratings(["x", "y"], {("x", "y"): (10.0, 10)})
    assert math.isfinite(perfect["x"].elo) and perfect["x"].elo > 200
    assert math.isnan(joint_ratings(["x", "y", "z"], {("x", "y"): (1.0, 2)})["z"].elo)
