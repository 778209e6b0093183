"""Greedy and search policies of bidref.engines_ai."""

from __future__ import annotations

import itertools
import random

import pytest

from bidref.engines_ai import SearchLimits, StrongPlayer, greedy_action, random_action
from bidref.engines_ai.search import budget_seconds
from bidref.rules import ACCEPT, DECLINE, Bid, Match, Phase, Play, action_points
from tests.rules.positions import random_positions


def test_greedy_takes_the_most_points_now() -> None:
    for m in random_positions(30):
        if m.phase is not Phase.PLAY or len(m.legal_actions()) < 2:
            continue
        best = max(action_points(m.layout, a) for a in m.legal_actions() if isinstance(a, Play))
        chosen = greedy_action(m)
        assert isinstance(chosen, Play)
        assert action_points(m.layout, chosen) == best


def test_random_never_bids_its_whole_balance() -> None:
    m = _auction_position(own_balance=20)
    rng = random.Random(0)
    picks = {random_action(m, rng) for _ in range(200)}
    assert picks == {DECLINE, Bid(15)}  # bid 20 would cost all 20 and lose at once


def _auction_position(own_balance: int) -> Match:
    """The start of an auction (round 2 after a domino), the speaker holding ``own_balance``."""
    for seed in itertools.count():
        m = Match.new(seed)
        rng = random.Random(seed)
        while not m.over and m.round_number == 1:
            m.apply(greedy_action(m, rng))
        if not m.over and m.phase is Phase.AUCTION:
            m.balances = (
                [300 - own_balance, own_balance] if m.to_act else [own_balance, 300 - own_balance]
            )
            m._legal = None
            return m
    raise AssertionError("unreachable")


def test_budget_is_a_share_of_the_delay_plus_the_bank_spread_out() -> None:
    assert budget_seconds(10, 120, expected_turns=24, safety=0) == pytest.approx(11.0)
    assert budget_seconds(0.05, 5, expected_turns=25) == pytest.approx(0.03 + 0.2 - 0.02)
    assert budget_seconds(0.0, 0.0) == 0.0
    assert budget_seconds(1.0, 0.0, delay_share=5.0) <= 1.0  # never past the deadline


def test_search_returns_a_legal_action_in_every_phase() -> None:
    player = StrongPlayer(seed=3)
    seen = set()
    for m in random_positions(8)[::7]:
        a = player.choose(m, SearchLimits(playouts=30))
        assert a in m.legal_actions()
        seen.add(m.phase)
    assert Phase.PLAY in seen and Phase.OPENING in seen


def test_search_stops_at_its_time_budget_on_an_injected_clock() -> None:
    m = Match.new(5)
    m.apply(m.legal_actions()[0])
    while len(m.legal_actions()) < 2:
        m.apply(m.legal_actions()[0])
    ticks = itertools.count()

    def now() -> float:  # every call advances a fake clock by 1 ms
        return next(ticks) / 1000

    player = StrongPlayer(seed=1)
    player.choose(m, SearchLimits(seconds=0.05), now=now)
    per_round = len(m.legal_actions())
    assert 0 < player.last_playouts <= 60 * per_round
    capped = StrongPlayer(seed=1)
    capped.choose(m, SearchLimits(seconds=100.0, playouts=3 * per_round), now=now)
    assert capped.last_playouts == 3 * per_round


def test_search_accepts_a_bid_that_bankrupts_the_bidder() -> None:
    m = _auction_position(own_balance=20)
    m.apply(Bid(20))  # costs the non-jockey its whole balance if accepted
    assert StrongPlayer().choose(m, SearchLimits(playouts=10)) == ACCEPT


def test_search_never_bids_what_it_cannot_afford_to_lose() -> None:
    m = _auction_position(own_balance=15)
    assert StrongPlayer().choose(m, SearchLimits(playouts=50)) == DECLINE


def test_search_plays_greedily_when_there_is_no_time() -> None:
    m = Match.new(5)
    m.apply(m.legal_actions()[0])
    while len(m.legal_actions()) < 2:
        m.apply(m.legal_actions()[0])
    player = StrongPlayer(seed=1)
    a = player.choose(m, SearchLimits(seconds=0.001), now=lambda: 0.0)
    assert player.last_playouts == 0
    best = greedy_action(m)
    assert isinstance(a, Play) and isinstance(best, Play)
    assert (action_points(m.layout, a), a.tile.pips) == (
        action_points(m.layout, best),
        best.tile.pips,
    )
