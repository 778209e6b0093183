"""The vector drawing of the layout: geometry, pips, scoring ends, and files that stand alone."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from bidref.render.dominoes import U, arrange, count_text, layout_svg, tile_defs
from bidref.render.svg import Frame, to_html, to_svg
from bidref.rules import Layout, Match, Side, parse_side, point, tile

EXAMPLES = Path(__file__).resolve().parents[2] / "bidref" / "data" / "layout-examples.json"
SVG = "{http://www.w3.org/2000/svg}"


def worked_layouts() -> list[tuple[str, Layout, dict[str, object]]]:
    out = []
    for seq in json.loads(EXAMPLES.read_text())["sequences"]:
        lay = Layout()
        for i, step in enumerate(seq["steps"], 1):
            t = tile(*step["place"])
            at = step["at"]
            if at is None:
                lay.open_tile(t)
            else:
                lay.place(t, point(tile(*at["tile"]), parse_side(at["side"])))
            out.append((f"{seq['name']}-{i}", lay.copy(), step["expect"]))
    return out


WORKED = worked_layouts()


def random_layouts(n: int) -> list[Layout]:
    """Final layouts of random rounds: long lines, doubles, branches."""
    out = []
    for seed in range(n):
        m, rng = Match.new(seed=seed), random.Random(seed)
        while not m.over and m.round_number == 1:
            acts = m.legal_actions()
            m.apply(rng.choice(acts))
            if m.round_number == 1 and m.layout.placed:
                last = m.layout
        out.append(last.copy())
    return out


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0) * max(h, 0)


def touch(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """The boxes share a stretch of edge (and do not overlap)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return (abs(w) < 1e-9 and h > 0) or (abs(h) < 1e-9 and w > 0)


def half_centres(pt: object) -> dict[int, list[tuple[float, float]]]:
    """Where each value of a placed tile is drawn (the first half is left or top)."""
    from bidref.render.dominoes import PlacedTile

    assert isinstance(pt, PlacedTile)
    second = pt.tile.high if pt.first == pt.tile.low else pt.tile.low
    dx, dy = (0.0, 0.5) if pt.upright else (0.5, 0.0)
    out: dict[int, list[tuple[float, float]]] = {}
    out.setdefault(pt.first, []).append((pt.x - dx, pt.y - dy))
    out.setdefault(second, []).append((pt.x + dx, pt.y + dy))
    return out


@pytest.mark.parametrize("layout", [w[1] for w in WORKED] + random_layouts(40))
def test_tiles_never_overlap_and_matching_halves_touch(layout: Layout) -> None:
    arr = arrange(layout)
    assert [p.tile for p in arr.tiles] == layout.placed
    boxes = {p.tile: p.box() for p in arr.tiles}
    placed = {p.tile: p for p in arr.tiles}
    tiles = list(boxes)
    for i, a in enumerate(tiles):
        for b in tiles[i + 1 :]:
            assert overlap(boxes[a], boxes[b]) == 0, (a, b)
    for at, joined in layout.connections:
        new = joined.tile
        assert touch(boxes[at.tile], boxes[new]), (at, joined)
        if not new.double and not at.tile.double:
            # Two non-doubles in a row: the halves showing the joined value are adjacent.
            mine = half_centres(placed[new])[joined.value]
            theirs = half_centres(placed[at.tile])[at.value]
            gaps = [abs(x1 - x2) + abs(y1 - y2) for x1, y1 in mine for x2, y2 in theirs]
            assert min(gaps) == pytest.approx(1.0)
    # Every open point has a marker; the filled ones add up to the count.
    assert {m.point for m in arr.markers} == set(layout.open_points)
    assert sum(m.counts or 0 for m in arr.markers) == layout.count()
    assert sorted(m.counts for m in arr.markers if m.counts is not None) == sorted(
        v for _, v in layout.scoring()
    )


@pytest.mark.parametrize(("name", "layout", "expect"), WORKED, ids=[w[0] for w in WORKED])
def test_worked_layouts_draw_their_count(
    name: str, layout: Layout, expect: dict[str, object]
) -> None:
    svg = layout_svg(layout, layout.placed[-1], name)
    root = ET.fromstring(svg.split("\n", 1)[1])  # a well-formed SVG document
    groups = [g for g in root.iter(f"{SVG}g") if "tile" in (g.get("class") or "").split()]
    assert [g.get("data-tile") for g in groups] == [str(t) for t in layout.placed]
    scoring = [g for g in root.iter(f"{SVG}g") if g.get("class") == "end scoring"]
    assert sum(int(g.get("data-counts") or 0) for g in scoring) == expect["count"]
    count = int(expect["count"])  # type: ignore[call-overload]
    scores = count > 0 and count % 5 == 0
    assert count_text(layout).endswith(f"→ scores {count}" if scores else "· scores nothing")
    spinner = layout.spinner
    marked = [g.get("data-tile") for g in groups if "spinner" in (g.get("class") or "")]
    assert marked == ([str(spinner)] if spinner is not None else [])


def test_every_tile_symbol_has_its_pips() -> None:
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{tile_defs()}</svg>')
    for g in root.iter(f"{SVG}g"):
        gid = g.get("id") or ""
        if gid.startswith("d") and gid != "dback":
            low, high = (int(v) for v in gid[1:].split("-"))
            circles = list(g.iter(f"{SVG}circle"))
            assert len(circles) == low + high, gid
            left = [c for c in circles if float(c.get("cx") or 0) < U]
            assert len(left) == low  # the low half is drawn on the left


def test_a_file_stands_alone(snapshot: SnapshotAssertion) -> None:
    """No font, script, style sheet or image from anywhere: only the SVG namespace URI."""
    lay = WORKED[-1][1]
    svg = to_svg(Frame("round 1 · line 9 · B plays [1|1]", lay, lay.placed[-1]))
    for bad in ("<script", "<image", "@import", "@font-face", "url(", 'xlink:href="http'):
        assert bad not in svg
    assert svg.replace("http://www.w3.org/2000/svg", "").count("http") == 0
    assert svg == snapshot


def test_a_lone_double_counts_once_and_its_other_side_is_an_empty_spot() -> None:
    lay = Layout()
    lay.open_tile(tile(5, 5))
    arr = arrange(lay)
    counts = sorted((m.point.side, m.counts) for m in arr.markers)
    assert counts == [(Side.LINE_A, 10), (Side.LINE_B, None)]
    assert count_text(lay) == "Count: 10 → scores 10"


def test_branches_go_up_and_down_from_a_spinner_placed_later() -> None:
    lay = Layout()
    lay.open_tile(tile(1, 4))
    lay.place(tile(1, 1), point(tile(1, 4), Side.LOW))
    lay.place(tile(1, 2), point(tile(1, 1), Side.LINE_B))
    lay.place(tile(1, 3), point(tile(1, 1), Side.BRANCH_A))
    lay.place(tile(1, 6), point(tile(1, 1), Side.BRANCH_B))
    arr = {p.tile: p for p in arrange(lay).tiles}
    spinner = arr[tile(1, 1)]
    assert spinner.upright and spinner.x < 0  # left of the opening [1|4]
    assert arr[tile(1, 3)].y < spinner.y < arr[tile(1, 6)].y  # A up, B down
    assert arr[tile(1, 3)].upright and arr[tile(1, 6)].upright
    assert arr[tile(1, 2)].x < spinner.x and not arr[tile(1, 2)].upright


def test_html_page_escapes_titles() -> None:
    """A title (e.g. a file name) with markup in it stays text: it cannot end the page's
    script or add elements."""
    lay = WORKED[3][1]
    frames = [Frame('games/</script><b>x.txt:3 · "q" & more', lay, None)]
    page = to_html(frames, "bidref validate </title><i>x")
    assert page.count("</script>") == 1  # the page's own
    assert "<b>x" not in page and "<i>x" not in page


def test_html_of_frames_has_one_picture_each() -> None:
    frames = [Frame(f"state {i}", lay, None) for i, (_, lay, _) in enumerate(WORKED[:3])]
    page = to_html(frames, "worked layouts")
    assert page.count("<svg") == 3 and "state 2" in page
    assert page.count('id="d0-0"') == 1  # the tile symbols once, for all pictures


def test_validate_svg_writes_one_vector_picture_per_placement(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from bidref.cli import app

    sheet = Path(__file__).resolve().parents[2] / "examples" / "score-sheet.txt"
    r = CliRunner().invoke(app, ["validate", "--svg", str(tmp_path), "--no-picture", str(sheet)])
    assert r.exit_code == 0, r.output
    files = sorted(tmp_path.glob("*.svg"))
    assert len(files) == 27  # the 27 placements of the sheet's one round
    for n, f in enumerate(files, 1):
        root = ET.fromstring(f.read_text().split("\n", 1)[1])
        tiles = [g for g in root.iter(f"{SVG}g") if "tile" in (g.get("class") or "").split()]
        assert len(tiles) == n  # one more tile in each picture
        assert len([g for g in tiles if "last" in (g.get("class") or "")]) == 1
    page = (tmp_path / "index.html").read_text()
    assert "cdn" not in page.lower() and "<link" not in page and "@import" not in page
