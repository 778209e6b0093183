"""Wrong-typed input never changes a match (issue 20, RULES.md §8).

Action values check their fields when built (:class:`ActionTypeError`, a
``TypeError``); ``Match.apply`` refuses anything that is not a well-typed action
of the game with :class:`IllegalActionError`, quoting it, and leaves every part
of the state as it was.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bidref.rules import (
    ACCEPT,
    DECLINE,
    DRAW,
    POINTS,
    TILES,
    Accept,
    Bid,
    Deal,
    DealError,
    Decline,
    Draw,
    IllegalActionError,
    Match,
    MatchConfig,
    Open,
    Phase,
    Play,
    RulesError,
    Side,
    Tile,
    parse_action,
    point,
    tile,
)
from bidref.rules.errors import ActionTypeError
from bidref.rules.layout import Point

# Every attribute of a Match (the class's slots, spelled out so that the test
# does not depend on how the class stores them).
STATE_FIELDS = (
    "balances",
    "bid",
    "bidder",
    "boneyard",
    "config",
    "deal",
    "deals",
    "drawn_this_turn",
    "forced_tile",
    "hands",
    "jockey",
    "next_jockey",
    "over",
    "passes",
    "phase",
    "result",
    "round_actions",
    "round_number",
    "start_events",
    "to_act",
    "turn",
)


def snapshot(m: Match) -> tuple[object, ...]:
    """Everything a match holds, copied deeply enough that a change shows."""
    values: list[object] = []
    for name in STATE_FIELDS:
        v = getattr(m, name)
        if isinstance(v, list):
            v = tuple(v)
        elif name == "hands":
            v = (tuple(v[0]), tuple(v[1]))
        values.append(v)
    lay = m.layout
    values += [
        id(lay),
        tuple(lay.placed),
        tuple(lay.connections),
        tuple(lay.open_points),
        lay.spinner,
        tuple(m.legal_actions()),
    ]
    return tuple(values)


def _positions() -> list[Match]:
    """Positions of every phase, from seeded random matches."""
    rng = random.Random(20)
    by_phase: dict[Phase, list[Match]] = {p: [] for p in Phase}
    seed = 0
    while min(len(v) for v in by_phase.values()) < 6:
        m = Match.new(seed, MatchConfig(max_rounds=3))
        seed += 1
        while True:
            if len(by_phase[m.phase]) < 6 and rng.random() < 0.3:
                by_phase[m.phase].append(m.copy())
            if m.over:
                break
            m.apply(rng.choice(m.legal_actions()))
    # An auction where Bid(15) is legal, for the look-alike Bid(15.0).
    auction = Match.new(1, MatchConfig(first_jockey=0))
    assert Bid(15) in auction.legal_actions()
    return [*(m for ms in by_phase.values() for m in ms), auction]


POSITIONS = _positions()


def _forged(cls: type, **fields: object) -> object:
    """An action value built around its field checks, as careless code might."""
    obj = cls.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(obj, name, value)
    return obj


class _BidSubclass(Bid):
    """A subclass that claims to equal everything."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


class _EqualsAll:
    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "<equals all>"


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


_T = tile(1, 1)
_LOOKALIKE_TILE = Tile(_T.index, 1, 1)
_LOOKALIKE_POINT = Point(_T, Side.LINE_A)
FORGED: list[object] = [
    _forged(Bid, amount=15.0),
    _forged(Bid, amount=True),
    _forged(Bid, amount="15"),
    _forged(Bid, amount=None),
    _forged(Open, tile="1-1"),
    _forged(Open, tile=_LOOKALIKE_TILE),
    _forged(Open, tile=_EqualsAll()),
    _forged(Play, tile=_T, at="1-1:line_a"),
    _forged(Play, tile=_EqualsAll(), at=_EqualsAll()),
    _forged(Play, tile=_T, at=_LOOKALIKE_POINT),
    _forged(_BidSubclass, amount=15),
]

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.text(max_size=20),
    st.sampled_from(["draw", "decline", "accept", "bid 15", "open 6-6", ""]),
    st.binary(max_size=8),
    st.sampled_from(TILES),
    st.sampled_from([p for p in POINTS if p.is_valid_side()]),
    st.sampled_from([Bid, Open, Play, Draw, Decline, Accept, Deal, Match, _EqualsAll(), object()]),
    st.integers(0, len(FORGED) - 1).map(FORGED.__getitem__),  # some cannot hash
    st.tuples(st.integers(0, 6), st.integers(0, 6)),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _refuses(m: Match, value: Any, player: int | None = None) -> IllegalActionError:
    before = snapshot(m)
    with pytest.raises(IllegalActionError) as info:
        m.apply(value, player)
    assert snapshot(m) == before
    return info.value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.sampled_from(POSITIONS), value=JUNK, player=st.sampled_from([None, 0, 1]))
def test_apply_refuses_anything_that_is_not_an_action(
    position: Match, value: object, player: int | None
) -> None:
    m = position.copy()
    err = _refuses(m, value, player)
    assert err.action  # the value is quoted in the error, never a blank
    assert err.rule.startswith("§")
    # The match is still usable: a legal action goes through.
    if not m.over:
        m.apply(m.legal_actions()[0])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    position=st.sampled_from(POSITIONS),
    amount=st.one_of(st.integers(min_value=-(10**30), max_value=10**30), st.integers(-20, 400)),
)
def test_well_typed_bids_are_taken_or_refused_cleanly(position: Match, amount: int) -> None:
    m = position.copy()
    bid = Bid(amount)
    if bid in m.legal_actions():
        m.apply(bid)
        assert type(m.bid) is int and m.bid == amount
        m.legal_actions()
    else:
        err = _refuses(m, bid)
        assert err.action == f"bid {amount}"


def test_a_bid_of_15_0_is_refused_where_bid_15_is_legal() -> None:
    m = Match.new(1, MatchConfig(first_jockey=0))
    assert Bid(15) in m.legal_actions()
    err = _refuses(m, _forged(Bid, amount=15.0))
    assert "15.0" in err.action and "not an action" not in err.action
    assert "Bid is not an action of the game" in str(err)
    assert m.bid is None
    m.apply(Bid(15))
    assert m.bid == 15 and type(m.bid) is int


def test_strings_and_none_in_the_play_phase_are_illegal_actions_not_assertions() -> None:
    m = next(p for p in POSITIONS if p.phase is Phase.PLAY).copy()
    for value in ("draw", None, DRAW.kind):
        err = _refuses(m, value)
        assert repr(value) in str(err)
        assert "(one of legal_actions(), or parse_action('draw'))" in str(err)


def test_a_value_whose_repr_fails_is_still_refused_cleanly() -> None:
    for m in POSITIONS[::5]:
        err = _refuses(m.copy(), _BadRepr())
        assert err.action == "<_BadRepr object>"
        err = _refuses(m.copy(), _forged(Bid))  # no amount at all
        assert err.action == "<Bid object>"


def test_the_legal_action_applied_is_the_interned_one() -> None:
    m = Match.new(1, MatchConfig(first_jockey=0))
    m.apply(parse_action("bid 20"))
    assert type(m.bid) is int
    assert m.legal_actions()[0] is ACCEPT


@pytest.mark.parametrize(
    ("build", "quoted"),
    [
        (lambda: Bid(15.0), "Bid(amount=15.0)"),
        (lambda: Bid(True), "Bid(amount=True)"),
        (lambda: Bid("15"), "Bid(amount='15')"),
        (lambda: Bid(None), "Bid(amount=None)"),
        (lambda: Open("3-6"), "Open(tile='3-6')"),
        (lambda: Open(_LOOKALIKE_TILE), "Open(tile=Tile(1, 1))"),
        (lambda: Play(_T, "1-1:line_a"), "Play(at='1-1:line_a')"),
        (lambda: Play((1, 1), point(_T, Side.LINE_A)), "Play(tile=(1, 1))"),
        (lambda: Play(_T, _LOOKALIKE_POINT), "Play(at=Point(Tile(1, 1), Side.LINE_A))"),
        (lambda: dataclasses.replace(Bid(15), amount=15.0), "Bid(amount=15.0)"),
        (lambda: dataclasses.replace(Open(_T), tile="1-1"), "Open(tile='1-1')"),
    ],
)
def test_action_values_check_their_fields_when_built(build: Any, quoted: str) -> None:
    with pytest.raises(ActionTypeError) as info:
        build()
    assert isinstance(info.value, TypeError) and isinstance(info.value, RulesError)
    assert str(info.value).startswith(quoted + ":")
    assert "give " in str(info.value)  # and it says what to give instead


def test_well_typed_values_still_build_and_compare() -> None:
    assert Bid(10**30).amount == 10**30 and Bid(-5) == Bid(-5)
    assert Open(_T) == parse_action("open 1-1")
    assert Play(_T, point(_T, Side.LINE_A)) == parse_action("play 1-1 1-1:line_a")
    assert hash(Bid(15)) == hash(parse_action("bid 15"))
    assert Decline() == DECLINE and Accept() == ACCEPT


# -- deals ---------------------------------------------------------------------------


def test_a_deal_sorts_its_hands() -> None:
    a, b, rest = TILES[:7], TILES[7:14], TILES[14:]
    d = Deal((a[::-1], tuple(reversed(b))), rest)
    assert d.hands == (a, b)
    assert d == Deal((a, b), rest)
    assert d.boneyard == rest  # the boneyard keeps its draw order
    listed = Deal(([*a], [*b[::-1]]), [*rest[::-1]])
    assert listed.hands == (a, b) and listed.boneyard == rest[::-1]
    assert isinstance(listed.boneyard, tuple)


@pytest.mark.parametrize(
    ("hands", "boneyard", "message"),
    [
        ((TILES[:7], ["0-0"] * 7), TILES[14:], "hand B holds '0-0', which is not one of"),
        ((TILES[:7], TILES[7:14]), "3-6", "the boneyard '3-6' is not a sequence of tiles"),
        ("hands", TILES[14:], "hands 'hands' are not two hands"),
        ((TILES[:7],), TILES[14:], "are not two hands"),
        ((TILES[:7], (Tile(8, 1, 2), *TILES[8:14])), TILES[14:], "not one of the 28 tiles"),
        ((TILES[:7], TILES[:7]), TILES[14:], "is dealt twice"),
    ],
)
def test_a_deal_refuses_what_is_not_tiles(hands: Any, boneyard: Any, message: str) -> None:
    with pytest.raises(DealError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Deal(hands, boneyard)


def test_seeded_deals_have_sorted_hands_and_equal_a_rebuilt_deal() -> None:
    for seed in range(50):
        d = Deal.from_seed(seed, 1)
        assert all(list(h) == sorted(h, key=lambda t: t.index) for h in d.hands)
        assert Deal(d.hands, d.boneyard) == d
