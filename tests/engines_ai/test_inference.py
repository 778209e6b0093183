"""Opponent draws constrain the determinizations (bidref.engines_ai.inference)."""

from __future__ import annotations

import random

from bidref.engines_ai.inference import OpponentModel
from bidref.rules import DRAW, Match, Phase


def _position_after_an_opponent_draw() -> tuple[Match, frozenset[int], int]:
    """A play position where the player to act saw the opponent draw this round."""
    for seed in range(200):
        m = Match.new(seed)
        seen: dict[int, list[frozenset[int]]] = {0: [], 1: []}
        while not m.over and m.round_number == 1:
            if m.phase is Phase.PLAY and m.legal_actions() == [DRAW]:
                seen[m.to_act].append(frozenset(m.layout.open_values()))
            m.apply(m.legal_actions()[0])
            p = m.to_act
            if (
                m.phase is Phase.PLAY
                and m.round_number == 1
                and seen[1 - p]
                and m.drawn_this_turn == 0
                and len(m.hands[1 - p]) >= 4
            ):
                return m, seen[1 - p][-1], len(seen[1 - p])
    raise AssertionError("no such position")


def test_a_draw_makes_the_sampled_hands_avoid_the_open_values() -> None:
    m, values, draws = _position_after_an_opponent_draw()
    p = m.to_act
    model = OpponentModel(p)
    model.new_round(m.round_number)
    model.observe_draw(values)  # only the last draw: one tile drawn since may match
    assert model.slack() == [(values, 1)]
    rng = random.Random(3)
    for _ in range(50):
        d = model.deal(m, rng)
        hand = d.hands[1 - p]
        assert len(hand) == len(m.hands[1 - p]) and len(d.boneyard) == len(m.boneyard)
        assert sorted(hand + d.boneyard) == sorted(m.hands[1 - p] + m.boneyard)
        assert d.hands[p] == m.hands[p]
        assert model.consistent(hand)
        assert d.legal_actions() == m.legal_actions()
    assert draws >= 1


def test_the_true_hand_is_consistent_with_what_was_seen() -> None:
    m, values, _ = _position_after_an_opponent_draw()
    model = OpponentModel(m.to_act)
    model.observe_draw(values)
    assert model.consistent(m.hands[1 - m.to_act])


def test_a_new_round_forgets() -> None:
    model = OpponentModel(0)
    model.new_round(1)
    model.observe_draw({1, 2})
    model.new_round(2)
    assert model.constraints == [] and model.drawn == 0
