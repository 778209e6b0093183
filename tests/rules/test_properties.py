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
    Phase,
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


def legal_from_scratch(m: Match) -> list[Action]:
    """The legal actions straight from RULES.md, with none of the bookkeeping
    ``Match`` keeps (the layout's open-value mask, interned tables, bid slices)."""
    if m.over:
        return []
    p = m.to_act
    if m.phase is Phase.PLAY:
        plays: list[Action] = [
            play(t, at) for t in m.hands[p] for at in m.layout.open_points if t.has(at.value)
        ]
        return sorted(plays, key=lambda a: a.sort_key()) or [DRAW]  # §5: draw only if none
    if m.phase is Phase.OPENING:
        tiles = [m.forced_tile] if m.forced_tile is not None else sorted(m.hands[p])
        return [Open(t) for t in tiles if t is not None]
    first: Action = DECLINE if m.bid is None else ACCEPT
    lowest = 15 if m.bid is None else m.bid + 5  # §6.1, §6.2
    # §6.5: a bid is legal if its net payment (less the jockey's credit) is affordable.
    return [first] + [Bid(n) for n in range(lowest, 320, 5) if m.net_payment(p, n) <= m.balances[p]]


def check_bookkeeping(m: Match) -> None:
    """What ``Match`` and ``Layout`` keep up to date action by action equals what
    a computation from scratch gives."""
    lay = m.layout
    mask = 0
    for at in lay.open_points:
        mask |= 1 << at.value
    assert lay.open_mask == mask, (lay.open_mask, [str(at) for at in lay.open_points])
    assert lay.open_points == sorted(lay.open_points, key=lambda at: at.index)
    for hand in m.hands:
        assert list(hand) == sorted(hand, key=lambda t: t.index)
        for t in hand:
            assert lay.can_play(t) == bool(lay.points_for(t))
    for player in (0, 1):
        assert m.can_play(player) == any(lay.points_for(t) for t in m.hands[player])
    assert m.legal_actions() == legal_from_scratch(m)


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
    check_bookkeeping(m)


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


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**63),
    policy_seed=st.integers(0, 2**32),
    jockey=st.sampled_from([None, 0, 1]),
    balance=st.integers(1, 29).map(lambda n: 5 * n),
)
def test_kept_bookkeeping_equals_a_computation_from_scratch_after_every_action(
    seed: int, policy_seed: int, jockey: int | None, balance: int
) -> None:
    """Every action of random matches (auctions from any balance, as jockey or
    not), on the match and on copies taken along the way."""
    config = MatchConfig(start_balances=(balance, 300 - balance), first_jockey=jockey)
    m = Match.new(seed, config)
    rng = random.Random(policy_seed)
    copies: list[Match] = []
    check_bookkeeping(m)
    while not m.over:
        m.apply(rng.choice(m.legal_actions()))
        check_bookkeeping(m)
        if rng.random() < 0.1:
            copies.append(m.copy())
    for c in copies:  # a copy carries the kept state on by itself
        while not c.over:
            c.apply(rng.choice(c.legal_actions()))
            check_bookkeeping(c)
