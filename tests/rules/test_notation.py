from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bidref.rules import (
    ACCEPT,
    DECLINE,
    DRAW,
    TILES,
    Bid,
    NotationError,
    Open,
    Side,
    parse_action,
    parse_point,
    parse_tile,
    play,
    point,
    tile,
)
from bidref.rules import POINTS as _POINTS


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("decline", "decline"),
        ("  ACCEPT ", "accept"),
        ("bid 20", "bid 20"),
        ("raise 25", "bid 25"),
        ("open [3|6]", "open 3-6"),
        ("open 63", "open 3-6"),
        ("draw", "draw"),
        ("play 1-3 1-1:branch_b", "play 1-3 1-1:branch_b"),
        ("play [1|3] at [1|1] branch B", "play 1-3 1-1:branch_b"),
        ("1-3 at 1-1 bb", "play 1-3 1-1:branch_b"),
        ("play 3-4 4-4 line b", "play 3-4 4-4:line_b"),
        ("play 1-2 [3|4] low end", "play 1-2 3-4:low"),
        ("play 21 34lo", "play 1-2 3-4:low"),
    ],
)
def test_parse_variants(text: str, canonical: str) -> None:
    assert str(parse_action(text)) == canonical


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("", "empty action"),
        ("bid", "whole number"),
        ("bid twenty", "whole number"),
        ("bid ²", "digits 0-9"),  # str.isdigit() says yes, int() says no
        ("bid ٣٥", "digits 0-9"),  # another script's digits: not notation
        ("bid " + "5" * 5000, "digits 0-9"),  # longer than int() reads
        ("bid -20", "whole number"),
        ("open", "one tile"),
        ("play 1-3", "say where"),
        ("play 1-7 1-1:line_b", "no tile"),
        ("play 1-3 1-1:high", "has no side"),
        ("play 1-3 1-4:line_a", "has no side"),
        ("play 1-3 1-1:sideways", "not a side"),
        ("jump", "not an action"),
        ("accept now", "takes nothing"),
    ],
)
def test_bad_notation_says_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(NotationError, match=fragment):
        parse_action(text)


@settings(deadline=None)  # microseconds each, but a loaded machine stalls any one
@given(st.text(max_size=40))
def test_any_text_parses_or_is_a_notation_error(text: str) -> None:
    # The referee turns a NotationError into an error reply; anything else would
    # be a crash of the referee on an engine's input.
    for attempt in (text, "bid " + text, "play " + text, "open " + text, "play 1-1 " + text):
        with contextlib.suppress(NotationError):
            parse_action(attempt)


ALL_ACTIONS = [
    DECLINE,
    ACCEPT,
    DRAW,
    *[Bid(n) for n in range(15, 320, 5)],
    *[Open(t) for t in TILES],
    *[
        play(t, p)
        for t in TILES
        for p in _POINTS
        if p.is_valid_side() and p.tile is not t and t.has(p.value)
    ],
]


@settings(deadline=None)
@given(st.sampled_from(ALL_ACTIONS))
def test_round_trip(action: object) -> None:
    assert parse_action(str(action)) == action
    assert hash(parse_action(str(action))) == hash(action)


def test_actions_compare_by_value_not_identity() -> None:
    from bidref.rules import Play

    a = Play(tile(1, 3), point(tile(1, 1), Side.BRANCH_B))
    assert a == play(tile(1, 3), point(tile(1, 1), Side.BRANCH_B))
    assert a != play(tile(1, 3), point(tile(1, 1), Side.BRANCH_A))
    assert len({a, play(tile(1, 3), point(tile(1, 1), Side.BRANCH_B))}) == 1


def test_tiles_and_points() -> None:
    assert parse_tile("[6|3]") is tile(3, 6)
    assert str(tile(6, 3)) == "3-6" and tile(3, 6).pips == 9
    assert parse_point("[1|1] line B") is point(tile(1, 1), Side.LINE_B)
    assert point(tile(3, 4), Side.LOW).value == 3
    assert point(tile(3, 4), Side.LOW).words == "[3|4] low end"
    assert len(TILES) == 28 and len({(t.low, t.high) for t in TILES}) == 28
    assert list(TILES) == sorted(TILES, key=lambda t: (t.low, t.high))
