"""The scoring rule once (issue 30): what a placement counts and earns, from
``bidref.rules``, agrees with what ``Match.apply`` then reports, and every user
of the rule (the request's ``legal_points``, the SDK's ``points_of``, the
greedy policy) gives the same figure."""

from __future__ import annotations

from bidref.rules import (
    Open,
    Placed,
    Play,
    action_points,
    count_after,
    opening_count,
    points_earned,
)
from tests.rules.positions import random_positions


def test_count_after_and_action_points_agree_with_applying_the_action() -> None:
    plays = opens = scoring = 0
    for m in random_positions(60):
        for a in m.legal_actions():
            if not isinstance(a, (Play, Open)):
                assert action_points(m.layout, a) == 0
                continue
            before = m.layout.copy()
            after = m.copy()
            placed = next(e for e in after.apply(a) if isinstance(e, Placed))
            if isinstance(a, Play):
                assert count_after(m.layout, a.tile, a.at) == placed.count, a
                plays += 1
            else:
                assert opening_count(a.tile) == placed.count, a
                opens += 1
            assert action_points(m.layout, a) == placed.points == points_earned(placed.count)
            scoring += placed.points > 0
            # asking changes nothing
            assert m.layout.open_points == before.open_points
            assert m.layout.count() == before.count()
    assert plays > 1000 and opens > 50 and scoring > 100


def test_the_layout_keeps_its_count_with_the_same_rule() -> None:
    for m in random_positions(20):
        assert m.layout.count() == m.layout.recount()


def test_points_earned_is_a_multiple_of_five_or_nothing() -> None:
    assert [points_earned(c) for c in (0, 4, 5, 12, 15, 30, 31)] == [0, 0, 5, 0, 15, 30, 0]
