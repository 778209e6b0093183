"""Dominoes drawn as vector graphics (SVG): tiles with pips, and the layout of a round.

One drawing for every picture bidref makes of a table: ``bidref replay --svg``
and ``validate --svg`` write :func:`layout_svg` documents, and the HTML replay
page (:mod:`.replay_page`) shows the same markup inline, its hands drawn from
the same tile symbols (:func:`tile_defs`).

The geometry follows the terminal picture (:mod:`.layout`) and the original
rules' diagrams: the line runs across, the spinner's branches run up (branch
A) and down (branch B), doubles lie crosswise and matching halves touch. A
lone opening double has line A on its left and line B on its right; a
non-double opening tile shows its low half on the left. Every open attachment
point carries a marker: a filled disc with a number is a scoring end that
counts that many (a double at an end counts both halves, once); a dashed ring
is a legal place that counts nothing (an unopened branch, the second side of a
lone opening double), with the value it takes.

Nothing here reads a file or a clock: functions return strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Final

from ..rules.layout import Layout, Point, Side, point, points_earned
from ..rules.tiles import TILES, Tile

U: Final = 40
"""User units in one half of a tile (a tile is 2 x 1 halves)."""

_PIPS: Final[dict[int, tuple[tuple[float, float], ...]]] = {
    0: (),
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.27, 0.5), (0.27, 0.75), (0.73, 0.25), (0.73, 0.5), (0.73, 0.75)),
}

FACE: Final = "#fbf7ea"
INK: Final = "#1d1d1d"
SPINNER: Final = "#e8770e"
LAST: Final = "#2f9e44"
SCORING: Final = "#f5c518"


def tile_id(t: Tile) -> str:
    """The id of a tile's symbol, e.g. ``d3-6``; ``dback`` is a tile face down."""
    return f"d{t.low}-{t.high}"


def _tile_symbol(t: Tile) -> str:
    """One tile lying across, low half on the left, in a 2U x U box at the origin."""
    parts = [
        f'<g id="{tile_id(t)}">',
        f'<rect x="1.5" y="1.5" width="{2 * U - 3}" height="{U - 3}" rx="6" '
        f'fill="{FACE}" stroke="{INK}" stroke-width="2"/>',
        f'<line x1="{U}" y1="6" x2="{U}" y2="{U - 6}" stroke="{INK}" stroke-width="1.6"/>',
    ]
    for half, value in ((0, t.low), (1, t.high)):
        for px, py in _PIPS[value]:
            parts.append(
                f'<circle cx="{(half + px) * U:g}" cy="{py * U:g}" r="{0.09 * U:g}" fill="{INK}"/>'
            )
    parts.append("</g>")
    return "".join(parts)


def tile_defs() -> str:
    """``<defs>`` with the 28 tile symbols and the back of a tile (``#dback``)."""
    back = (
        f'<g id="dback"><rect x="1.5" y="1.5" width="{2 * U - 3}" height="{U - 3}" rx="6" '
        f'fill="#2d4a7a" stroke="{INK}" stroke-width="2"/>'
        f'<rect x="7" y="7" width="{2 * U - 14}" height="{U - 14}" rx="3" fill="none" '
        'stroke="#8fa8d6" stroke-width="1.5" stroke-dasharray="4 3"/></g>'
    )
    return "<defs>" + "".join(_tile_symbol(t) for t in TILES) + back + "</defs>"


@dataclass(frozen=True, slots=True)
class PlacedTile:
    """A tile on the table: its centre (in halves), whether it stands upright, and
    the value shown on its left (or top) half."""

    tile: Tile
    x: float
    y: float
    upright: bool
    first: int

    @property
    def angle(self) -> int:
        """The rotation of the symbol (drawn low half left) that shows ``first`` first."""
        if self.upright:
            return 90 if self.first == self.tile.low else 270
        return 0 if self.first == self.tile.low else 180

    def box(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) in halves."""
        w, h = (0.5, 1.0) if self.upright else (1.0, 0.5)
        return (self.x - w, self.y - h, self.x + w, self.y + h)


@dataclass(frozen=True, slots=True)
class Marker:
    """An open attachment point: where to draw it, the value it takes and what it
    counts (None: it counts nothing)."""

    point: Point
    x: float
    y: float
    takes: int
    counts: int | None


@dataclass(frozen=True, slots=True)
class Arrangement:
    tiles: tuple[PlacedTile, ...]
    markers: tuple[Marker, ...]
    spinner: Tile | None
    count: int


_Dir = tuple[int, int]
_RIGHT: Final[_Dir] = (1, 0)
_LEFT: Final[_Dir] = (-1, 0)
_UP: Final[_Dir] = (0, -1)
_DOWN: Final[_Dir] = (0, 1)


def _other_line_side(side: Side) -> Side:
    return {Side.HIGH: Side.LOW, Side.LOW: Side.HIGH, Side.LINE_A: Side.LINE_B}.get(
        side, Side.LINE_A
    )


def arrange(layout: Layout) -> Arrangement:
    """Where every tile of ``layout`` lies and where its open points are.

    Each placement continues the chain of the point it joins, in that chain's
    direction; the spinner starts two more chains, up and down. Coordinates
    are in halves of a tile, the opening tile centred at the origin.
    """
    if not layout.placed:
        return Arrangement((), (), None, 0)
    spinner = layout.spinner
    ends: dict[Point, tuple[float, float, _Dir]] = {}  # a point's edge and its direction
    first = layout.placed[0]
    tiles: list[PlacedTile] = []

    def add_branches(t: Tile, cx: float, cy: float, d: _Dir) -> None:
        across = d[1] == 0
        a, b = (_UP, _DOWN) if across else (_LEFT, _RIGHT)
        ends[point(t, Side.BRANCH_A)] = (cx + a[0], cy + a[1], a)
        ends[point(t, Side.BRANCH_B)] = (cx + b[0], cy + b[1], b)

    if first.double:
        tiles.append(PlacedTile(first, 0.0, 0.0, True, first.low))
        ends[point(first, Side.LINE_A)] = (-0.5, 0.0, _LEFT)
        ends[point(first, Side.LINE_B)] = (0.5, 0.0, _RIGHT)
        if first is spinner:
            add_branches(first, 0.0, 0.0, _RIGHT)
    else:
        tiles.append(PlacedTile(first, 0.0, 0.0, False, first.low))
        ends[point(first, Side.LOW)] = (-1.0, 0.0, _LEFT)
        ends[point(first, Side.HIGH)] = (1.0, 0.0, _RIGHT)
    for (at, joined), t in zip(layout.connections, layout.placed[1:], strict=True):
        ex, ey, d = ends.get(at, (0.0, 0.0, _RIGHT))
        along = d[1] == 0
        if t.double:
            cx, cy = ex + d[0] * 0.5, ey + d[1] * 0.5
            tiles.append(PlacedTile(t, cx, cy, along, t.low))
            free = point(t, _other_line_side(joined.side))
            ends[free] = (ex + d[0], ey + d[1], d)
            if t is spinner:
                add_branches(t, cx, cy, d)
        else:
            cx, cy = ex + d[0], ey + d[1]
            free = point(t, _other_line_side(joined.side))
            toward_first = d in (_RIGHT, _DOWN)  # the joined half is on the left/top
            shown = joined.value if toward_first else free.value
            tiles.append(PlacedTile(t, cx, cy, not along, shown))
            ends[free] = (ex + 2 * d[0], ey + 2 * d[1], d)
    markers: list[Marker] = []
    counted: set[Tile] = set()
    for p in layout.open_points:
        ex, ey, d = ends.get(p, (0.0, 0.0, _RIGHT))
        counts: int | None
        if p.side <= Side.LOW:
            counts = p.value
        elif p.side <= Side.LINE_B and p.tile not in counted:
            counts = 2 * p.value
            counted.add(p.tile)
        else:
            counts = None
        markers.append(Marker(p, ex + d[0] * 0.5, ey + d[1] * 0.5, p.value, counts))
    return Arrangement(tuple(tiles), tuple(markers), spinner, layout.count())


def _num(x: float) -> str:
    return f"{x * U:g}"


def _drawing(layout: Layout, last: Tile | None) -> tuple[tuple[float, float, float, float], str]:
    """The layout's picture elements and their bounding box (left, top, width, height)."""
    arr = arrange(layout)
    left, top, right, bottom = -1.5, -1.5, 1.5, 1.5
    for pt in arr.tiles:
        bl, bt, br, bb = pt.box()
        left, top, right, bottom = min(left, bl), min(top, bt), max(right, br), max(bottom, bb)
    for m in arr.markers:
        left, top = min(left, m.x - 0.5), min(top, m.y - 0.5)
        right, bottom = max(right, m.x + 0.5), max(bottom, m.y + 0.5)
    pad = 0.25
    box = (left - pad, top - pad, right - left + 2 * pad, bottom - top + 2 * pad)
    out: list[str] = []
    for pt in arr.tiles:
        is_spinner, is_last = pt.tile is arr.spinner, pt.tile is last
        role = " ".join(
            x for x, on in (("tile", True), ("spinner", is_spinner), ("last", is_last)) if on
        )
        out.append(
            f'<g class="{role}" data-tile="{pt.tile}" transform="translate({_num(pt.x)} '
            f'{_num(pt.y)}) rotate({pt.angle})">'
            f'<use href="#{tile_id(pt.tile)}" x="{-U}" y="{-U / 2:g}"/>'
        )
        if is_spinner:
            out.append(
                f'<rect x="{-U - 2}" y="{-U / 2 - 2:g}" width="{2 * U + 4}" height="{U + 4}" '
                f'rx="8" fill="none" stroke="{SPINNER}" stroke-width="4"/>'
            )
        if is_last:
            grow = 7 if is_spinner else 2
            out.append(
                f'<rect x="{-U - grow}" y="{-U / 2 - grow:g}" width="{2 * U + 2 * grow}" '
                f'height="{U + 2 * grow}" rx="9" fill="none" stroke="{LAST}" stroke-width="4"/>'
            )
        out.append("</g>")
    r = 0.36 * U
    for m in arr.markers:
        cx, cy = _num(m.x), _num(m.y)
        if m.counts is not None:
            out.append(
                f'<g class="end scoring" data-point="{m.point}" data-counts="{m.counts}">'
                f'<circle cx="{cx}" cy="{cy}" r="{r:g}" fill="{SCORING}" stroke="{INK}" '
                f'stroke-width="1.5"/><text x="{cx}" y="{cy}" dy="0.35em" text-anchor="middle" '
                f'font-family="sans-serif" font-weight="bold" font-size="{0.42 * U:g}" '
                f'fill="{INK}">{m.counts}</text></g>'
            )
        else:
            out.append(
                f'<g class="end open" data-point="{m.point}" data-takes="{m.takes}">'
                f'<circle cx="{cx}" cy="{cy}" r="{r:g}" fill="none" stroke="#56707d" '
                f'stroke-width="1.5" stroke-dasharray="4 3"/><text x="{cx}" y="{cy}" '
                f'dy="0.35em" text-anchor="middle" font-family="sans-serif" '
                f'font-size="{0.34 * U:g}" fill="#56707d">{m.takes}</text></g>'
            )
    return box, "".join(out)


def _names(layout: Layout) -> str:
    return ", ".join(f"[{t.low}|{t.high}]" for t in layout.placed) or "nothing yet"


def layout_markup(layout: Layout, last: Tile | None = None) -> str:
    """The layout as one inline ``<svg>`` element for an HTML page, whose tile symbols
    come from the page's own :func:`tile_defs`."""
    (x, y, w, h), body = _drawing(layout, last)
    return (
        f'<svg class="layout" role="img" viewBox="{_num(x)} {_num(y)} {_num(w)} {_num(h)}" '
        f'width="{_num(w)}" height="{_num(h)}" data-count="{layout.count()}">'
        f"<title>Layout: {escape(_names(layout))}; count {layout.count()}</title>{body}</svg>"
    )


def count_text(layout: Layout) -> str:
    """``Count: 5 + 10 = 15 → scores 15`` (RULES.md §4), as the picture's legend says it."""
    if not layout.placed:
        return "Count: nothing on the table yet"
    parts = [str(v) for _, v in layout.scoring()]
    total = layout.count()
    shown = f"{' + '.join(parts)} = {total}" if len(parts) > 1 else f"{total}"
    earned = points_earned(total)
    return f"Count: {shown}" + (f" → scores {earned}" if earned else " · scores nothing")


def layout_svg(layout: Layout, last: Tile | None = None, title: str = "") -> str:
    """A standalone SVG document of the layout on a green cloth, with the title and
    the count written below it; it needs no font, script or file besides itself."""
    (x, y, w, h), body = _drawing(layout, last)
    lines = [escape(t) for t in (title, count_text(layout)) if t]
    width = max(w, 9.0) * U
    height = (h + 0.6 * len(lines) + 0.2) * U
    texts = "".join(
        f'<text x="{_num(x + 0.15)}" y="{_num(y + h + 0.6 * (i + 1) - 0.1)}" '
        f'font-family="sans-serif" font-size="{0.38 * U:g}" fill="{INK}">{text}</text>'
        for i, text in enumerate(lines)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{_num(x)} {_num(y)} {width:g} '
        f'{height:g}" width="{width:g}" height="{height:g}">'
        f"<title>Layout: {escape(_names(layout))}; count {layout.count()}</title>"
        f"{tile_defs()}"
        f'<rect x="{_num(x)}" y="{_num(y)}" width="{width:g}" height="{height:g}" '
        f'fill="#dfeadf"/>{body}{texts}</svg>\n'
    )
