"""Property tests: random matches with random legal actions keep every invariant."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bidref.rules import (
    ACCEPT,
    DECLINE,
    DRAW,
    TILES,
    Action,
    Bid,
    IllegalActionError,
    Match,
    MatchConfig,
    Open,
    parse_action,
    play,
    player_view,
)
from bidref.rules import POINTS as _POINTS

MAX_ACTIONS = 20_000

_UNIVERSE: list[Action] = [DECLINE, ACCEPT, DRAW]
_UNIVERSE += [Bid(n) for n in range(0, 320, 5)] + [Bid(17), Bid(-5)]
_UNIVERSE += [Open(t) for t in TILES]
_UNIVERSE += [play(t, p) for t in TILES for p in _POINTS if p.is_valid_side()]


def fingerprint(m: Match) -> tuple[object, ...]:
    lay = m.layout
    return (
        tuple(m.balances),
        tuple(m.hands[0]),
        tuple(m.hands[1]),
        tuple(m.boneyard),
        tuple(lay.placed),
        tuple(lay.open_points),
        tuple(lay.connections),
        lay.spinner,
        m.phase,
        m.to_act,
        m.turn,
        m.bid,
        m.bidder,
        m.jockey,
        m.round_number,
        m.passes,
        m.drawn_this_turn,
        m.result,
        tuple(m.legal_actions()),
    )


def check_invariants(m: Match) -> None:
    assert sum(m.balances) == 300
    assert min(m.balances) >= 0
    places = [*m.hands[0], *m.hands[1], *m.boneyard, *m.layout.placed]
    assert len(places) == 28 and set(places) == set(TILES)
    if not m.over:
        assert min(m.balances) > 0
        assert m.legal_actions(), "a live match must offer a legal action"
    assert m.legal_actions() == sorted(m.legal_actions(), key=lambda a: a.sort_key())
    assert m.layout.count() == m.layout.recount()  # the kept count is the summed one


def play_random_match(seed: int, policy_seed: int, max_rounds: int | None) -> Match:
    m = Match.new(seed, MatchConfig(max_rounds=max_rounds))
    rng = random.Random(policy_seed)
    check_invariants(m)
    for _ in range(MAX_ACTIONS):
        if m.over:
            break
        legal = m.legal_actions()
        # An illegal action raises and changes nothing.
        bad = rng.choice(_UNIVERSE)
        if bad not in legal:
            before = fingerprint(m)
            try:
                m.apply(bad)
            except IllegalActionError as e:
                assert str(bad) in str(e) and e.rule
            else:
                raise AssertionError(f"{bad} was accepted but is not in {legal}")
            assert fingerprint(m) == before
        action = rng.choice(legal)
        assert parse_action(str(action)) == action
        m.apply(action)  # a legal action never fails
        check_invariants(m)
    assert m.over, "the match must end"
    return m


@pytest.mark.timeout(600)  # 1,500 matches: minutes on a busy machine
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**63),
    policy_seed=st.integers(0, 2**32),
    max_rounds=st.one_of(st.none(), st.integers(1, 6)),
)
def test_random_matches_keep_invariants(
    seed: int, policy_seed: int, max_rounds: int | None
) -> None:
    m = play_random_match(seed, policy_seed, max_rounds)
    assert m.result is not None
    if m.result.reason == "balance":
        assert m.balances[1 - m.result.winner] == 0  # type: ignore[operator]
    else:
        assert m.round_number == max_rounds


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**63), policy_seed=st.integers(0, 2**32))
def test_views_never_show_hidden_tiles(seed: int, policy_seed: int) -> None:
    m = Match.new(seed, MatchConfig(max_rounds=3))
    rng = random.Random(policy_seed)
    while not m.over:
        for p in (0, 1):
            v = player_view(m, p)
            hidden = set(m.hands[1 - p]) | set(m.boneyard)
            shown = set(v.hand) | set(v.layout.placed)
            assert not hidden & shown
            assert v.opponent_hand_size == len(m.hands[1 - p])
            text = repr(v.to_dict())
            for t in hidden:
                assert f"[{t.low}, {t.high}]" not in text, f"{t} leaks into {p}'s view"
        m.apply(rng.choice(m.legal_actions()))
