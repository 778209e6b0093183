"""The layout drawn as a picture, as in the original rules' diagrams.

The line runs horizontally through the spinner; the spinner's branches run
vertically (branch A up, branch B down). Non-doubles in the line are drawn
``[4|1]`` with matching halves touching; doubles in the line lie crosswise,
three rows tall, and the spinner has a heavy (orange) border::

            (0)
            ╭0╮
            ╰5╯
           [5|5]
            ╭5╮
            ╰1╯
            ┏1┓   ╭4╮
    (2)[2|1]┃ ┃[1|4]│ │[4|3](3)
            ┗1┛   ╰4╯
            ╭1╮
            ╰3╯
            (3)

Every attachment point carries a marker with a value: ``(n)`` is a scoring
end, a *filled* number that counts n (a double standing at an end counts both
halves); ``<n>`` is an *empty* spot, a legal place that takes an n but counts
nothing (an unopened branch, the second side of a lone opening double). The
filled numbers add up to the count shown in the legend.

The legend names every attachment point as a move names it, with where it is
drawn: ``Places: left (2) 1-2:low · right (3) 3-4:high · up <1> 1-1:branch_a ·
down <1> 1-1:branch_b``, so that ``play 2-5 1-2:low`` can be read off the
picture (the left end, the line side of a double, which branch is which). A lone
opening double's count says why it counts both halves (once).

A line too wide for the width wraps into bands continued with ``→``; the
picture never grows wider than the width it is given (as long as that is at
least :data:`MIN_WIDTH`). A branch longer than :data:`BRANCH_ROWS` rows stops
at ``⋮`` and goes on, left to right, in a band of its own below the picture
(``⋮ branch B [1|0][0|3](3)``), so that the picture stays short enough for a
terminal. :func:`layout_text` gives the same picture without
colour, for snapshots and logs; :class:`LayoutPicture` is the rich renderable.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from ..rules.layout import Layout, Point, Side, point, points_earned
from ..rules.tiles import Tile

MIN_WIDTH = 24
DEFAULT_WIDTH = 100
BRANCH_ROWS = 8
"""Rows a spinner's branch may take; the rest of a longer branch continues in a band."""

STYLE_TILE = Style(bold=True)
STYLE_SPINNER = Style(color="dark_orange", bold=True)
STYLE_LAST = Style(color="green", bold=True)
STYLE_SCORING = Style(color="black", bgcolor="yellow", bold=True)
STYLE_OPEN = Style(color="cyan", dim=True)
STYLE_ARROW = Style(color="magenta", bold=True)
STYLE_LEGEND = Style(dim=True)

_OUT_SIDE = {Side.HIGH: Side.LOW, Side.LOW: Side.HIGH, Side.LINE_A: Side.LINE_B}


@dataclass(frozen=True, slots=True)
class _Link:
    """One tile of a chain: the tile, the half facing the chain's start, the far half."""

    tile: Tile
    near: int
    far: int


@dataclass(frozen=True, slots=True)
class _Marker:
    text: str
    scoring: bool


class _Canvas:
    """A sparse grid of styled characters."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], tuple[str, Style | None]] = {}

    def put(self, row: int, col: int, text: str, style: Style | None = None) -> None:
        for i, ch in enumerate(text):
            self.cells[(row, col + i)] = (ch, style)

    def lines(self) -> list[Text]:
        if not self.cells:
            return []
        rows = [r for r, _ in self.cells]
        top, bottom = min(rows), max(rows)
        left = min(c for _, c in self.cells)
        out = []
        for r in range(top, bottom + 1):
            cols = [c for rr, c in self.cells if rr == r]
            text = Text()
            run, run_style = "", None
            for c in range(left, max(cols) + 1 if cols else left):
                ch, style = self.cells.get((r, c), (" ", None))
                if style != run_style and run:
                    text.append(run, run_style)
                    run = ""
                run, run_style = run + ch, style
            if run:
                text.append(run, run_style)
            out.append(text)
        return out


class _Geometry:
    """The layout as chains: the line (left to right) and the spinner's branches."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.joined: dict[Point, tuple[Tile, Side]] = {
            at: (new.tile, new.side) for at, new in layout.connections
        }
        self.open = set(layout.open_points)
        root = layout.placed[0]
        self.root = root
        if root.double:
            left_side, right_side = Side.LINE_A, Side.LINE_B
        else:
            left_side, right_side = Side.LOW, Side.HIGH
        self.left, self.left_end = self._chain(point(root, left_side))
        self.right, self.right_end = self._chain(point(root, right_side))
        self.branch_a: list[_Link] = []
        self.branch_b: list[_Link] = []
        self.branch_a_end: Point | None = None
        self.branch_b_end: Point | None = None
        sp = layout.spinner
        if sp is not None:
            self.branch_a, self.branch_a_end = self._chain(point(sp, Side.BRANCH_A))
            self.branch_b, self.branch_b_end = self._chain(point(sp, Side.BRANCH_B))

    def _chain(self, start: Point) -> tuple[list[_Link], Point | None]:
        """Follow the tiles joined from ``start`` outwards; return them and the open end."""
        links: list[_Link] = []
        at = start
        while at in self.joined:
            t, side = self.joined[at]
            near = at.value
            links.append(_Link(t, near, t.other_half(near) if not t.double else near))
            at = point(t, _OUT_SIDE[side])
        return links, (at if at in self.open else None)

    def markers(self) -> dict[Point, _Marker]:
        """A marker for every attachment point: filled if it counts, empty if not."""
        out: dict[Point, _Marker] = {}
        counted_doubles: set[Tile] = set()
        # A lone opening double counts once: put the count on line B (drawn right).
        for p in sorted(self.open, key=lambda p: (p.tile.index, -p.side)):
            if p.side <= Side.LOW:
                out[p] = _Marker(f"({p.value})", True)
            elif p.side <= Side.LINE_B and p.tile not in counted_doubles:
                counted_doubles.add(p.tile)
                out[p] = _Marker(f"({2 * p.value})", True)
            else:
                out[p] = _Marker(f"<{p.value}>", False)
        return out


@dataclass(frozen=True, slots=True)
class _Item:
    """One slot of the horizontal line: a tile (or the root) and its width."""

    link: _Link
    crosswise: bool  # a double lying across the line

    @property
    def width(self) -> int:
        return 3 if self.crosswise else 5


def _line_items(geo: _Geometry) -> list[_Item]:
    items: list[_Item] = []
    for link in reversed(geo.left):
        items.append(_Item(_Link(link.tile, link.far, link.near), link.tile.double))
    root = geo.root
    items.append(_Item(_Link(root, root.low, root.high), root.double))
    for link in geo.right:
        items.append(_Item(link, link.tile.double))
    return items


class LayoutPicture:
    """A rich renderable: the layout as a picture plus a legend with the count.

    ``last`` highlights the tile placed last (e.g. in a replay);
    ``width`` caps the picture's width (the console's width caps it too).
    """

    def __init__(
        self,
        layout: Layout,
        *,
        last: Tile | None = None,
        width: int | None = None,
        legend: bool = True,
    ) -> None:
        self.layout = layout
        self.last = last
        self.width = width
        self.legend = legend

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width if self.width is None else min(self.width, options.max_width)
        yield from self.lines(width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = options.max_width if self.width is None else min(self.width, options.max_width)
        widest = max((line.cell_len for line in self.lines(width)), default=0)
        return Measurement(min(MIN_WIDTH, widest), widest)

    def lines(self, width: int = DEFAULT_WIDTH) -> list[Text]:
        width = max(width, MIN_WIDTH)
        if not self.layout.placed:
            return [Text("(empty layout)", STYLE_LEGEND)]
        geo = _Geometry(self.layout)
        out: list[Text] = []
        for i, band in enumerate(self._bands(geo, width)):
            if i:
                out.append(Text())
            out.extend(band.lines())
        if self.legend:
            out.append(Text())
            out.extend(self._legend(width))
        return out

    # -- drawing -------------------------------------------------------------------

    def _tile_style(self, t: Tile) -> Style:
        if t is self.last:
            return STYLE_LAST
        return STYLE_SPINNER if t is self.layout.spinner else STYLE_TILE

    def _marker(self, canvas: _Canvas, row: int, col: int, m: _Marker) -> None:
        canvas.put(row, col, m.text, STYLE_SCORING if m.scoring else STYLE_OPEN)

    def _bands(self, geo: _Geometry, width: int) -> Iterable[_Canvas]:
        markers = geo.markers()
        left_m = markers.get(geo.left_end) if geo.left_end else None
        right_m = markers.get(geo.right_end) if geo.right_end else None
        yield from self._chain_bands(_line_items(geo), left_m, None, right_m, geo, markers, width)
        # A long branch would make the picture taller than a terminal: what does not fit
        # in BRANCH_ROWS continues in a band of its own, below, as a long line wraps.
        for name, links, end in (
            ("A", geo.branch_a, geo.branch_a_end),
            ("B", geo.branch_b, geo.branch_b_end),
        ):
            rest = _split_branch(links)[1]
            if rest:
                yield from self._chain_bands(
                    [_Item(link, link.tile.double) for link in rest],
                    None,
                    f"⋮ branch {name} ",
                    markers.get(end) if end else None,
                    geo,
                    markers,
                    width,
                )

    def _chain_bands(
        self,
        items: list[_Item],
        left_m: _Marker | None,
        label: str | None,
        right_m: _Marker | None,
        geo: _Geometry,
        markers: dict[Point, _Marker],
        width: int,
    ) -> Iterable[_Canvas]:
        """Draw a chain left to right, split greedily into bands that fit the width."""
        arrow_w = 2
        head_w = len(left_m.text) if left_m else len(label) if label else 0
        bands: list[list[_Item]] = [[]]
        used = head_w
        for k, item in enumerate(items):
            tail = len(right_m.text) if (k == len(items) - 1 and right_m) else 0
            if bands[-1] and used + item.width + max(tail, arrow_w) > width:
                bands.append([])
                used = arrow_w
            bands[-1].append(item)
            used += item.width
        for b, band in enumerate(bands):
            canvas = _Canvas()
            col = 0
            if b == 0 and left_m:
                self._marker(canvas, 0, col, left_m)
                col += len(left_m.text)
            elif b == 0 and label:
                canvas.put(0, col, label, STYLE_ARROW)
                col += len(label)
            if b > 0:
                canvas.put(0, col, "→ ", STYLE_ARROW)
                col += arrow_w
            for item in band:
                self._draw_line_item(canvas, col, item, geo, markers)
                col += item.width
            if b < len(bands) - 1:
                canvas.put(0, col, " →", STYLE_ARROW)
            elif right_m:
                self._marker(canvas, 0, col, right_m)
            yield canvas

    def _draw_line_item(
        self, canvas: _Canvas, col: int, item: _Item, geo: _Geometry, markers: dict[Point, _Marker]
    ) -> None:
        t = item.link.tile
        style = self._tile_style(t)
        if not item.crosswise:
            canvas.put(0, col, f"[{item.link.near}|{item.link.far}]", style)
            return
        v = t.low
        if t is self.layout.spinner:
            canvas.put(-1, col, f"┏{v}┓", style)
            canvas.put(0, col, "┃ ┃", style)
            canvas.put(1, col, f"┗{v}┛", style)
            self._draw_branch(
                canvas, col, geo.branch_a, -1, geo, markers, Side.BRANCH_A, geo.branch_a_end
            )
            self._draw_branch(
                canvas, col, geo.branch_b, +1, geo, markers, Side.BRANCH_B, geo.branch_b_end
            )
        else:
            canvas.put(-1, col, f"╭{v}╮", style)
            canvas.put(0, col, "│ │", style)
            canvas.put(1, col, f"╰{v}╯", style)

    def _draw_branch(
        self,
        canvas: _Canvas,
        col: int,
        links: list[_Link],
        step: int,
        geo: _Geometry,
        markers: dict[Point, _Marker],
        side: Side,
        end: Point | None,
    ) -> None:
        """Draw a branch of the spinner at ``col``: up (step -1) or down (step +1)."""
        row = 2 * step  # the first row beyond the spinner's box
        sp = self.layout.spinner
        assert sp is not None
        links, rest = _split_branch(links)
        if not links:
            p = point(sp, side)
            if p in markers:
                self._marker(canvas, row, col, markers[p])
            return
        for link in links:
            style = self._tile_style(link.tile)
            if link.tile.double:
                canvas.put(row, col - 1, f"[{link.near}|{link.far}]", style)
                row += step
                continue
            near_row, far_row = row, row + step
            top, bottom = (near_row, far_row) if step > 0 else (far_row, near_row)
            top_v, bottom_v = (link.near, link.far) if step > 0 else (link.far, link.near)
            canvas.put(top, col, f"╭{top_v}╮", style)
            canvas.put(bottom, col, f"╰{bottom_v}╯", style)
            row += 2 * step
        if rest:
            canvas.put(row, col + 1, "⋮", STYLE_ARROW)  # continued in a band below
        elif end is not None and end in markers:
            self._marker(canvas, row, col, markers[end])

    def _places(self, geo: _Geometry, width: int) -> list[Text]:
        """Every attachment point named as an action names it (``1-2:low``), with where
        it is drawn and its marker: the picture's ends told apart in a move's words.
        A narrow picture breaks the line between places, never inside one."""
        markers = geo.markers()
        where = [
            ("left", geo.left_end),
            ("right", geo.right_end),
            ("up", geo.branch_a_end),
            ("down", geo.branch_b_end),
        ]
        lines = [Text("Places:", STYLE_LEGEND)]
        for k, (name, p) in enumerate((n, p) for n, p in where if p is not None and p in markers):
            m = markers[p]
            item = Text(f"{name} ", STYLE_LEGEND)
            item.append(m.text, STYLE_SCORING if m.scoring else STYLE_OPEN)
            item.append(f" {p}", STYLE_TILE)
            gap = " · " if k else " "
            if lines[-1].cell_len + len(gap) + item.cell_len > width:
                lines.append(Text("  "))
            elif gap:
                lines[-1].append(gap, STYLE_LEGEND)
            lines[-1].append_text(item)
        return lines

    def _legend(self, width: int) -> list[Text]:
        lay = self.layout
        scoring = lay.scoring()
        count = lay.count()
        earned = points_earned(count)
        terms = " + ".join(str(v) for _, v in scoring) or "0"
        root = lay.placed[0]
        if len(lay.placed) == 1 and root.double:  # RULES.md §4: say why it counts so
            terms = f"{count} ([{root.low}|{root.high}] alone counts both halves, once)"
        line = Text()
        line.append("Count: ", STYLE_LEGEND)
        line.append(f"{terms} = {count}", Style(bold=True))
        if earned:
            line.append(f" → earns {earned}", Style(bold=True, color="green"))
        elif count:
            line.append(" → not a multiple of 5, earns nothing", STYLE_LEGEND)
        else:
            line.append(" → earns nothing", STYLE_LEGEND)
        key = Text()
        sp = lay.spinner
        key.append("┏┓", STYLE_SPINNER)
        key.append(f" spinner [{sp.low}|{sp.high}]" if sp else " spinner (none yet)", STYLE_LEGEND)
        key.append("  ")
        key.append("(n)", STYLE_SCORING)
        key.append(" scoring end, counts n  ", STYLE_LEGEND)
        key.append("<n>", STYLE_OPEN)
        key.append(" open, takes n, counts nothing", STYLE_LEGEND)
        return [*_wrap(line, width), *self._places(_Geometry(lay), width), *_wrap(key, width)]


def _split_branch(links: list[_Link]) -> tuple[list[_Link], list[_Link]]:
    """The links a branch draws upright (at most BRANCH_ROWS rows) and the rest."""
    used = 0
    for k, link in enumerate(links):
        used += 1 if link.tile.double else 2
        if used > BRANCH_ROWS:
            return links[:k], links[k:]
    return links, []


def _wrap(text: Text, width: int) -> list[Text]:
    if text.cell_len <= width:
        return [text]
    console = Console(width=width, color_system=None, file=io.StringIO())
    return list(text.wrap(console, width))


def layout_text(
    layout: Layout, width: int = DEFAULT_WIDTH, *, last: Tile | None = None, legend: bool = True
) -> str:
    """The picture as plain text without colour (for snapshots, logs and tests)."""
    lines = LayoutPicture(layout, last=last, legend=legend).lines(width)
    return "\n".join(line.plain.rstrip() for line in lines)
