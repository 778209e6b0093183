from __future__ import annotations

import random

import pytest

from bidref.rules import (
    Match,
    MatchConfig,
    Phase,
    RulesError,
    match_from_view,
    player_view,
    redeal_hidden,
    with_free_opening,
)


def _positions() -> list[Match]:
    out = []
    rng = random.Random(5)
    for seed in range(40):
        m = Match.new(seed, MatchConfig(max_rounds=3))
        while not m.over:
            if rng.random() < 0.1:
                out.append(m.copy())
            m.apply(rng.choice(m.legal_actions()))
    return out


def test_from_view_agrees_with_the_view_and_hides_only_what_is_hidden() -> None:
    rng = random.Random(1)
    for m in _positions():
        p = m.to_act
        v = player_view(m, p)
        s = match_from_view(v, rng)
        assert s.legal_actions() == m.legal_actions()
        assert s.hands[p] == m.hands[p] and s.layout.open_points == m.layout.open_points
        assert s.layout.count() == m.layout.count() and s.balances == m.balances
        assert len(s.hands[1 - p]) == len(m.hands[1 - p]) and len(s.boneyard) == len(m.boneyard)
        assert player_view(s, p).to_dict() == v.to_dict()
        # the simulated match plays on to its end
        while not s.over:
            s.apply(rng.choice(s.legal_actions()))


def test_redeal_hidden_with_a_given_opponent_hand() -> None:
    m = Match.new(11)
    m.apply(m.legal_actions()[0])
    p = m.to_act
    hidden = sorted(m.hands[1 - p] + m.boneyard)
    want = hidden[: len(m.hands[1 - p])]
    r = redeal_hidden(m, p, random.Random(0), opponent_hand=want)
    assert r.hands[1 - p] == want and sorted(r.boneyard) == hidden[len(want) :]
    with pytest.raises(RulesError, match="distinct tiles hidden"):
        redeal_hidden(m, p, random.Random(0), opponent_hand=m.hands[p])


def test_with_free_opening_is_a_hypothetical_copy() -> None:
    m = Match.new(3, MatchConfig(first_jockey=0))
    c = with_free_opening(m, 1)
    assert c.phase is Phase.OPENING and c.to_act == 1 and len(c.legal_actions()) == 7
    assert m.phase is Phase.AUCTION and m.to_act == 1 and c.turn == m.turn + 1
    c.apply(c.legal_actions()[0])
    assert m.layout.placed == []
    with pytest.raises(RulesError, match="needs an auction"):
        with_free_opening(c, 0)
