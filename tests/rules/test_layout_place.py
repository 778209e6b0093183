"""`Layout.place` is public: it refuses every placement the rules forbid, with
the rules' narrow error naming the tile, the point and the rule, and leaves the
layout unchanged, so that the public API cannot corrupt a layout (issue 29
item 9). `count()` (kept as tiles are placed) and `recount()` always agree."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bidref.rules import POINTS, TILES, Layout, PlacementError, RulesError, parse_point, parse_tile


def _state(lay: Layout) -> tuple[object, ...]:
    return (
        list(lay.placed),
        list(lay.connections),
        list(lay.open_points),
        lay.open_mask,
        lay.spinner,
        lay.count(),
    )


def _legal(lay: Layout, t: object, at: object) -> bool:
    """The rules' own answer (RULES.md §2-§3), written apart from the layout's checks."""
    return (
        bool(lay.placed)
        and t not in lay.placed
        and at in lay.open_points
        and at.value in (t.low, t.high)  # type: ignore[attr-defined]
    )


def test_the_issue_s_example_is_refused_naming_tile_point_and_rule() -> None:
    lay = Layout()
    lay.open_tile(parse_tile("6-6"))
    lay.place(parse_tile("3-6"), parse_point("6-6:line_a"))
    before = _state(lay)
    with pytest.raises(PlacementError) as e:
        lay.place(parse_tile("3-3"), parse_point("6-6:line_b"))
    assert str(e.value) == (
        "cannot place 3-3 at 6-6:line_b: 3-3 has no 6 to match 6-6:line_b, which takes a 6; "
        "3-3 fits at: 3-6:low (RULES.md §3)"
    )
    assert (e.value.tile, e.value.at, e.value.rule) == ("3-3", "6-6:line_b", "§3")
    assert isinstance(e.value, RulesError) and isinstance(e.value, ValueError)
    assert _state(lay) == before
    assert lay.count() == lay.recount()


@pytest.mark.parametrize(
    ("moves", "tile", "at", "says"),
    [
        ([], "1-2", "1-1:line_a", "the layout is empty: open it first"),
        (["6-6"], "6-6", "6-6:line_a", "6-6 is already in the layout"),
        (["6-6"], "2-6", "6-6:branch_a", "6-6:branch_a is not an open attachment point"),
        (["6-6"], "2-6", "5-5:line_a", "the open ones are 6-6:line_a, 6-6:line_b"),
        (["1-4", ("1-1", "1-4:low")], "1-2", "1-4:low", "1-4:low is not an open"),
    ],
)
def test_each_illegal_placement_says_why(
    moves: list[object], tile: str, at: str, says: str
) -> None:
    lay = Layout()
    for m in moves:
        if isinstance(m, str):
            lay.open_tile(parse_tile(m))
        else:
            lay.place(parse_tile(m[0]), parse_point(m[1]))  # type: ignore[index]
    before = _state(lay)
    with pytest.raises(PlacementError) as e:
        lay.place(parse_tile(tile), parse_point(at))
    assert f"cannot place {tile} at {at}: " in str(e.value) and says in str(e.value)
    assert _state(lay) == before


def test_an_opened_layout_cannot_be_opened_again_nor_take_non_tiles() -> None:
    lay = Layout()
    lay.open_tile(parse_tile("5-5"))
    with pytest.raises(PlacementError, match="the layout is already opened"):
        lay.open_tile(parse_tile("2-3"))
    # (the compiled build refuses a value of the wrong type at the call: TypeError)
    with pytest.raises((PlacementError, TypeError), match=r"not one of the 28 tiles|Tile object"):
        lay.place("2-5", parse_point("5-5:line_a"))  # type: ignore[arg-type]
    with pytest.raises((PlacementError, TypeError), match=r"not an attachment point|Point object"):
        lay.place(parse_tile("2-5"), "5-5:line_a")  # type: ignore[arg-type]
    assert lay.placed == [parse_tile("5-5")] and lay.count() == 10


@settings(max_examples=400, deadline=None)
@given(
    st.integers(0, len(TILES) - 1),
    st.lists(
        st.tuples(st.booleans(), st.integers(0, len(TILES) - 1), st.integers(0, len(POINTS) - 1)),
        max_size=80,
    ),
)
def test_any_sequence_of_placements_keeps_the_layout_consistent(
    opening: int, attempts: list[tuple[bool, int, int]]
) -> None:
    """Any tile at any point (or, half the time, a legal one, so that the layout
    grows): a legal one is placed and counted, any other is refused with the
    layout unchanged; count() and recount() never disagree."""
    lay = Layout()
    lay.open_tile(TILES[opening])
    for legal_one, ti, pi in attempts:
        t, at = TILES[ti], POINTS[pi]
        if legal_one:
            options = [(u, p) for u in TILES if u not in lay.placed for p in lay.points_for(u)]
            if options:
                t, at = options[(ti * len(POINTS) + pi) % len(options)]
        before = _state(lay)
        if _legal(lay, t, at):
            assert lay.place(t, at) == lay.count() == lay.recount()
        else:
            with pytest.raises(PlacementError) as e:
                lay.place(t, at)
            assert f"cannot place {t} at {at}: " in str(e.value)
            assert _state(lay) == before
        assert lay.count() == lay.recount()
        assert len(set(lay.placed)) == len(lay.placed)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_legal_placements_chosen_from_points_for_are_all_accepted(data: st.DataObject) -> None:
    """Walking only legal placements (as a match does), every one is taken."""
    lay = Layout()
    free = list(TILES)
    first = data.draw(st.sampled_from(free))
    lay.open_tile(first)
    free.remove(first)
    for _ in range(27):
        options = [(t, p) for t in free for p in lay.points_for(t)]
        if not options:
            break
        t, at = data.draw(st.sampled_from(options))
        assert lay.place(t, at) == lay.recount()
        free.remove(t)
