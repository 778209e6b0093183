"""The layout picture: snapshots of every worked layout of the rules, and its geometry."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from rich.console import Console
from syrupy.assertion import SnapshotAssertion

from bidref.render.layout import BRANCH_ROWS, MIN_WIDTH, LayoutPicture, layout_text
from bidref.rules import Layout, Match, Side, parse_side, point, tile

# The rules' worked layouts: the project's copy (bidref/data/SOURCES.md says whence).
EXAMPLES = Path(__file__).resolve().parents[2] / "bidref" / "data" / "layout-examples.json"


def _states() -> list[tuple[str, Layout, object]]:
    data = json.loads(EXAMPLES.read_text())
    out = []
    for seq in data["sequences"]:
        lay = Layout()
        for i, step in enumerate(seq["steps"], 1):
            t = tile(*step["place"])
            if step["at"] is None:
                lay.open_tile(t)
            else:
                at = step["at"]
                lay.place(t, point(tile(*at["tile"]), parse_side(at["side"])))
            out.append((f"{seq['name']}-{i}", lay.copy(), step["expect"]))
    return out


STATES = _states()


@pytest.mark.parametrize(("name", "layout", "expect"), STATES, ids=[s[0] for s in STATES])
def test_worked_layouts(
    name: str, layout: Layout, expect: dict[str, object], snapshot: SnapshotAssertion
) -> None:
    text = layout_text(layout, 100)
    assert text == snapshot
    pic = text.split("\nCount:")[0]
    # The filled numbers are the scoring ends, and they add up to the count.
    filled = [int(tok.split(")")[0]) for tok in pic.split("(")[1:] if tok[:1].isdigit()]
    assert sum(filled) == expect["count"]
    assert f"= {expect['count']}" in text
    # Every attachment point has a marker: filled or empty.
    empties = pic.count("<")
    points = expect["attachment_points"]
    assert len(filled) + empties == len(points)  # type: ignore[arg-type]
    # ... and is named in the legend as a move names it, once.
    places = _places(text)
    assert sorted(places) == sorted(str(p) for p in layout.open_points)
    if len(layout.placed) == 1 and layout.placed[0].double:
        assert "alone counts both halves, once" in text
        assert places == [f"{layout.placed[0]}:line_a", f"{layout.placed[0]}:line_b"]


def _places(text: str) -> list[str]:
    """The attachment points the legend names, in its order (left, right, up, down)."""
    if "\nPlaces:" not in text:
        return []  # (empty layout)
    legend = text.split("\nPlaces:")[1].split("\n┏┓")[0]
    return re.findall(r"\d-\d:[a-z_]+", legend)


def four_arms() -> Layout:
    lay = Layout()
    lay.open_tile(tile(3, 3))
    lay.place(tile(3, 5), point(tile(3, 3), Side.LINE_A))
    lay.place(tile(1, 3), point(tile(3, 3), Side.LINE_B))
    lay.place(tile(3, 6), point(tile(3, 3), Side.BRANCH_A))
    lay.place(tile(2, 3), point(tile(3, 3), Side.BRANCH_B))
    lay.place(tile(6, 6), point(tile(3, 6), Side.HIGH))
    return lay


def test_spinner_with_all_four_arms_open(snapshot: SnapshotAssertion) -> None:
    text = layout_text(four_arms(), 100)
    assert text == snapshot
    lines = text.splitlines()
    spinner_col = next(ln.index("┏") for ln in lines if "┏" in ln)
    # Branch A runs up the spinner's column, branch B down it.
    assert lines[lines.index(next(ln for ln in lines if "┏" in ln)) - 1][spinner_col] == "╰"
    assert "[5|3]┃ ┃[3|1]" in text
    assert "= 20" in text and "earns 20" in text


def test_no_spinner_and_empty() -> None:
    lay = Layout()
    assert layout_text(lay) == "(empty layout)"
    lay.open_tile(tile(2, 3))
    lay.place(tile(3, 4), point(tile(2, 3), Side.HIGH))
    text = layout_text(lay)
    assert text.splitlines()[0] == "(2)[2|3][3|4](4)"
    assert "spinner (none yet)" in text


def _random_layouts(n_games: int) -> list[Layout]:
    out = []
    for seed in range(n_games):
        m = Match.new(seed)
        rng = random.Random(seed)
        while not m.over:
            before = m.round_number
            lay = m.layout.copy()
            m.apply(rng.choice(m.legal_actions()))
            if m.round_number != before or m.over:
                out.append(lay)
    return out


@pytest.mark.parametrize("width", [MIN_WIDTH, 40, 100])
def test_never_wider_than_the_width_and_every_tile_drawn(width: int) -> None:
    for lay in _random_layouts(40):
        text = layout_text(lay, width)
        assert max(len(line) for line in text.splitlines()) <= width
        pic = text.split("\nCount:")[0]
        # Every attachment point is named in the legend, each once.
        assert sorted(_places(text)) == sorted(str(p) for p in lay.open_points)
        # Each placed tile shows both halves somewhere; count tiles by their glyphs.
        horizontal = pic.count("[")
        vertical = pic.count("╭") + pic.count("┏")
        assert horizontal + vertical == len(lay.placed)


def test_long_line_wraps_with_arrows(snapshot: SnapshotAssertion) -> None:
    lay = Layout()
    chain = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 0), (0, 2), (2, 4), (4, 6)]
    lay.open_tile(tile(*chain[0]))
    prev, side = tile(*chain[0]), Side.HIGH
    for a, b in chain[1:]:
        t = tile(a, b)
        lay.place(t, point(prev, side))
        side = Side.HIGH if t.low == a else Side.LOW
        prev = t
    text = layout_text(lay, 32)
    assert "→" in text
    assert text == snapshot


def test_rich_renderable_uses_console_width_and_colours() -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=60, force_terminal=True, color_system="standard")
    console.print(LayoutPicture(four_arms(), last=tile(6, 6)))
    out = buf.getvalue()
    assert "\x1b[" in out  # styled
    assert "┏3┓" in out


def test_picture_measures_itself_inside_a_table() -> None:
    from rich.table import Table

    table = Table("layout", "note")
    table.add_row(LayoutPicture(four_arms()), "four arms")
    buf = io.StringIO()
    Console(file=buf, width=120, color_system=None).print(table)
    out = buf.getvalue()
    assert "[5|3]┃ ┃[3|1]" in out and "four arms" in out


def long_branch() -> Layout:
    """A round of seed 5 (c_first vs python_random): branch B holds eight tiles."""
    lay = Layout()
    lay.open_tile(tile(6, 6))
    lay.place(tile(2, 6), point(tile(6, 6), Side.LINE_A))
    lay.place(tile(5, 6), point(tile(6, 6), Side.LINE_B))
    lay.place(tile(3, 6), point(tile(6, 6), Side.BRANCH_A))
    lay.place(tile(3, 3), point(tile(3, 6), Side.LOW))
    prev, side = tile(6, 6), Side.BRANCH_B
    for a, b in [(6, 1), (1, 4), (4, 5), (5, 1), (1, 1), (1, 0), (0, 3), (3, 4)]:
        t = tile(a, b)
        lay.place(t, point(prev, side))
        side = Side.LINE_B if t.double else Side.HIGH if t.low == a else Side.LOW
        prev = t
    return lay


@pytest.mark.parametrize("width", [MIN_WIDTH, 40, 100])
def test_a_long_branch_continues_in_a_band_and_the_picture_stays_short(
    width: int, snapshot: SnapshotAssertion
) -> None:
    """A branch of more than BRANCH_ROWS rows turns into a band below the picture (marked
    ⋮), as a long line wraps into bands: the picture fits a 24-row terminal."""
    lay = long_branch()
    text = layout_text(lay, width)
    assert text == snapshot
    pic = text.split("\nCount:")[0]
    upright = pic.split("\n\n")[0].splitlines()  # the line with the spinner's branches
    assert len(upright) <= 2 * BRANCH_ROWS + 3 + 2  # two branches, the line, two markers
    assert max(len(line) for line in text.splitlines()) <= width
    assert pic.count("[") + pic.count("╭") + pic.count("┏") == len(lay.placed)
    assert "⋮" in pic and "(4)" in pic  # the branch's end marker, in its band
    assert pic.count("(") == len(lay.scoring())
    assert _places(text) == ["2-6:low", "5-6:low", "3-3:line_b", "3-4:high"]
