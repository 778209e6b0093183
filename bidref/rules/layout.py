"""The layout: attachment points, the spinner, scoring ends and the count.

RULES.md §3–§4. An attachment point is named by its tile and side
(``Point``); both are interned, so the layout works on identities and small
lists, which keeps random playouts fast.

>>> from bidref.rules.tiles import tile
>>> lay = Layout()
>>> lay.open_tile(tile(1, 4))
5
>>> [str(p) for p in lay.open_points]
['1-4:high', '1-4:low']
>>> lay.place(tile(1, 1), point(tile(1, 4), Side.LOW))
6
>>> lay.spinner
Tile(1, 1)
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from .errors import NotationError, PlacementError
from .tiles import TILES, Tile, parse_tile


class Side(IntEnum):
    """The side of a tile at which another tile can be attached.

    The order is the canonical sort order within a tile.
    """

    HIGH = 0
    LOW = 1
    LINE_A = 2
    LINE_B = 3
    BRANCH_A = 4
    BRANCH_B = 5

    @property
    def label(self) -> str:
        """The name used in notation and in ``layout-examples.json``."""
        return self.name.lower()

    @property
    def words(self) -> str:
        """The name as RULES.md writes it, e.g. ``line B`` or ``high end``."""
        return _WORDS[self]


_WORDS: Final = {
    Side.HIGH: "high end",
    Side.LOW: "low end",
    Side.LINE_A: "line A",
    Side.LINE_B: "line B",
    Side.BRANCH_A: "branch A",
    Side.BRANCH_B: "branch B",
}

_SIDE_ALIASES: Final = {
    "high": Side.HIGH,
    "highend": Side.HIGH,
    "hi": Side.HIGH,
    "h": Side.HIGH,
    "low": Side.LOW,
    "lowend": Side.LOW,
    "lo": Side.LOW,
    "l": Side.LOW,
    "linea": Side.LINE_A,
    "la": Side.LINE_A,
    "lineb": Side.LINE_B,
    "lb": Side.LINE_B,
    "brancha": Side.BRANCH_A,
    "ba": Side.BRANCH_A,
    "branchb": Side.BRANCH_B,
    "bb": Side.BRANCH_B,
}


def parse_side(text: str) -> Side:
    key = "".join(ch for ch in text.lower() if ch.isalnum())
    try:
        return _SIDE_ALIASES[key]
    except KeyError:
        raise NotationError(
            f"{text!r} is not a side: use high, low, line_a, line_b, branch_a or branch_b"
        ) from None


class Point:
    """An attachment point: a tile and one of its sides. Interned; use :func:`point`."""

    __slots__ = ("index", "side", "side_number", "tile", "value")

    tile: Tile
    side: Side
    side_number: int  # ``int(side)``: the layout's hot paths compare plain ints, not enums
    value: int
    index: int

    def __init__(self, t: Tile, side: Side) -> None:
        self.tile = t
        self.side = side
        self.side_number = int(side)
        self.value = t.high if side == Side.HIGH else t.low
        self.index = t.index * 6 + int(side)

    def __repr__(self) -> str:
        return f"Point({self.tile!r}, Side.{self.side.name})"

    def __str__(self) -> str:
        return f"{self.tile}:{self.side.label}"

    def __lt__(self, other: Point) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        # Equality stays identity (Points are interned); the hash is spelled out
        # because a class with __lt__ compiled by mypyc has none, and the index
        # makes set order the same in every build and every run.
        return self.index

    def __reduce__(self) -> tuple[object, tuple[Tile, Side]]:
        return (point, (self.tile, self.side))

    @property
    def words(self) -> str:
        """RULES.md wording, e.g. ``[1|1] line B``."""
        return f"[{self.tile.low}|{self.tile.high}] {self.side.words}"

    def is_valid_side(self) -> bool:
        return (self.side >= Side.LINE_A) == self.tile.double


_POINTS: Final[tuple[Point, ...]] = tuple(Point(t, s) for t in TILES for s in Side)


POINTS: Final = _POINTS
"""Every (tile, side) pair, valid or not, indexed by ``Point.index``."""


def point(t: Tile, side: Side) -> Point:
    """The interned attachment point ``side`` of tile ``t``."""
    p = _POINTS[t.index * 6 + side]
    if not p.is_valid_side():
        kind = "a double" if t.double else "a non-double"
        raise NotationError(f"{t} is {kind} and has no side {side.label!r}")
    return p


def parse_point(text: str) -> Point:
    """Parse ``1-1:line_b``, ``[1|1] line B``, ``3-4 low end`` or ``34lo``."""
    raw = text.strip()
    for sep in (":", " ", "."):
        if sep in raw:
            head, _, tail = raw.partition(sep)
            return point(parse_tile(head), parse_side(tail))
    # Compact form: two digits then the side, e.g. "11lb".
    if len(raw) > 2 and raw[:2].isdigit():
        return point(parse_tile(raw[:2]), parse_side(raw[2:]))
    raise NotationError(
        f"{text!r} is not an attachment point: write the tile and its side, e.g. '1-1:line_b'"
    )


def _build_joins() -> tuple[tuple[Point, Point] | None, ...]:
    """For tile index * 7 + value: (the side joined, the side left free)."""
    table: list[tuple[Point, Point] | None] = [None] * (len(TILES) * 7)
    for t in TILES:
        base = t.index * 6
        for v in range(7):
            if t.double and v == t.low:
                table[t.index * 7 + v] = (_POINTS[base + Side.LINE_A], _POINTS[base + Side.LINE_B])
            elif v == t.high and not t.double:
                table[t.index * 7 + v] = (_POINTS[base + Side.HIGH], _POINTS[base + Side.LOW])
            elif v == t.low and not t.double:
                table[t.index * 7 + v] = (_POINTS[base + Side.LOW], _POINTS[base + Side.HIGH])
    return tuple(table)


_JOINS: Final = _build_joins()
# The two sides of each entry apart (the unused entries: any point), so that the
# compiled build fetches a Point, not an optional tuple to check and unpack.
_JOINED: Final[tuple[Point, ...]] = tuple(_POINTS[0] if j is None else j[0] for j in _JOINS)
_FREED: Final[tuple[Point, ...]] = tuple(_POINTS[0] if j is None else j[1] for j in _JOINS)


def _insert_sorted(ops: list[Point], p: Point) -> None:
    """Insert ``p`` into the sorted ``ops`` (at most four points: a scan beats
    ``bisect`` with a key function)."""
    pi = p.index
    i = len(ops)
    while i and ops[i - 1].index > pi:
        i -= 1
    ops.insert(i, p)


class Layout:
    """The tiles on the table. Mutable; :meth:`copy` before searching.

    ``open_points`` is every attachment point, sorted by tile then side;
    ``open_mask`` has bit ``v`` set when some open point takes a ``v`` (kept up
    to date as tiles are placed, so that legal plays are found without a pass
    over the points).
    """

    __slots__ = ("_count", "connections", "open_mask", "open_points", "placed", "spinner")

    placed: list[Tile]
    connections: list[tuple[Point, Point]]
    open_points: list[Point]
    open_mask: int
    spinner: Tile | None
    _count: int  # the count (RULES.md §4), kept up to date by open_tile and place

    def __init__(self) -> None:
        self.placed = []
        self.connections = []
        self.open_points = []
        self.open_mask = 0
        self.spinner = None
        self._count = 0

    def copy(self) -> Layout:
        new = Layout()
        new.placed = self.placed.copy()
        new.connections = self.connections.copy()
        new.open_points = self.open_points.copy()
        new.open_mask = self.open_mask
        new.spinner = self.spinner
        new._count = self._count
        return new

    def __len__(self) -> int:
        return len(self.placed)

    # -- queries ---------------------------------------------------------------

    def points_for(self, t: Tile) -> list[Point]:
        """The attachment points where ``t`` can be played, sorted."""
        lo = t.low
        hi = t.high
        return [p for p in self.open_points if p.value == lo or p.value == hi]

    def can_play(self, t: Tile) -> bool:
        return self.open_mask & t.mask != 0

    def open_values(self) -> set[int]:
        return {p.value for p in self.open_points}

    def scoring(self) -> list[tuple[Tile, int]]:
        """Every scoring end and what it adds, sorted by tile (RULES.md §4).

        A branch of the spinner that has not been opened adds 0 and is not a
        scoring end, so it is not listed; a lone opening double is listed once.
        """
        out: list[tuple[Tile, int]] = []
        last_double: Tile | None = None
        for p in self.open_points:
            side = p.side
            if side <= Side.LOW:
                out.append((p.tile, p.value))
            elif side <= Side.LINE_B and p.tile is not last_double:
                out.append((p.tile, 2 * p.value))
                last_double = p.tile
        return out

    def count(self) -> int:
        """The count: what the scoring ends add up to (RULES.md §4)."""
        return self._count

    def recount(self) -> int:
        """The count summed afresh over the scoring ends (``count`` keeps it as
        tiles are placed; tests check that the two agree)."""
        return sum(added for _, added in self.scoring())

    # -- changes ---------------------------------------------------------------

    def open_tile(self, t: Tile) -> int:
        """Place the opening tile on an empty layout; return the count.

        Raises :class:`PlacementError` (the layout unchanged) if the layout is
        not empty or ``t`` is not one of the 28 tiles."""
        _check_tile(t, None)
        if self.placed:
            raise PlacementError(
                str(t),
                None,
                f"the layout is already opened (with {self.placed[0]}); attach tiles with "
                "place(tile, point)",
                "§2",
            )
        self.placed.append(t)
        base = t.index * 6
        if t.double:
            self.spinner = t
            self.open_points = [_POINTS[base + 2], _POINTS[base + 3]]  # line A, line B
            self.open_mask = 1 << t.low
            self._count = opening_count(t)
            return self._count
        self.open_points = [_POINTS[base], _POINTS[base + 1]]  # high, low
        self.open_mask = 1 << t.low | 1 << t.high
        self._count = opening_count(t)
        return self._count

    def place(self, t: Tile, at: Point) -> int:
        """Attach ``t`` at the open point ``at``; return the count after it.

        Raises :class:`PlacementError` naming the tile, the point and the rule
        (the layout unchanged) unless the layout is opened, ``t`` is not in it
        yet, ``at`` is one of its open points (:attr:`open_points`) and ``t``
        has a half of ``at``'s value (:meth:`points_for` lists where ``t`` fits).
        """
        _check_tile(t, at)
        if type(at) is not Point or POINTS[at.index] is not at:
            raise PlacementError(
                str(t),
                _text(at),
                "the point is not an attachment point; give point(tile, Side.X) or "
                "parse_point('1-1:line_b')",
                "§3",
            )
        if not self.placed:
            raise PlacementError(
                str(t), str(at), "the layout is empty: open it first with open_tile(tile)", "§2"
            )
        if t in self.placed:
            raise PlacementError(str(t), str(at), f"{t} is already in the layout", "§2")
        if at not in self.open_points:
            open_now = ", ".join(str(p) for p in self.open_points)
            raise PlacementError(
                str(t),
                str(at),
                f"{at} is not an open attachment point; the open ones are {open_now}",
                "§3",
            )
        if at.value != t.low and at.value != t.high:
            fits = ", ".join(str(p) for p in self.points_for(t)) or "nowhere"
            raise PlacementError(
                str(t),
                str(at),
                f"{t} has no {at.value} to match {at}, which takes a {at.value}; "
                f"{t} fits at: {fits}",
                "§3",
            )
        return self._attach(t, at)

    def _attach(self, t: Tile, at: Point) -> int:
        """:meth:`place` without its checks, for the rules core's hot paths: the
        caller knows that ``t`` is one of ``points_for``'s tiles at ``at`` (a legal
        action). Used on any other input it corrupts the layout."""
        total = count_after(self, t, at)
        join = t.index * 7 + at.value
        joined = _JOINED[join]
        free = _FREED[join]
        if t.double and self.spinner is None:
            self.spinner = t
        ops = self.open_points
        ops.remove(at)
        # _insert_sorted written out (and the value mask below): this runs on every play.
        fi = free.index
        i = len(ops)
        while i and ops[i - 1].index > fi:
            i -= 1
        ops.insert(i, free)
        side = at.side_number
        if (
            (side == 2 or side == 3)
            and at.tile is self.spinner
            and _POINTS[at.index + (1 if side == 2 else -1)] not in ops
        ):
            # Both line sides filled: the branches open (RULES.md §3).
            sb = at.tile.index * 6
            _insert_sorted(ops, _POINTS[sb + 4])  # branch A
            _insert_sorted(ops, _POINTS[sb + 5])  # branch B
        mask = 0
        for p in ops:
            mask |= 1 << p.value
        self.open_mask = mask
        self._count = total
        self.placed.append(t)
        self.connections.append((at, joined))
        return total


def _text(value: object) -> str:
    """A value in an error message: short, and never raising itself."""
    try:
        text = str(value) if type(value) in (Tile, Point) else repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 60 else text[:57] + "..."


def _check_tile(t: object, at: object) -> None:
    if type(t) is not Tile or not (0 <= t.index < len(TILES)) or TILES[t.index] is not t:
        raise PlacementError(
            _text(t),
            None if at is None else _text(at),
            "that is not one of the 28 tiles; give tile(low, high) or parse_tile('3-6')",
            "§2",
        )


# -- the scoring rule (RULES.md §4) ---------------------------------------------------
# The one place that says what a placement counts and earns: the layout keeps its
# count with it, and the referee's ``legal_points``, the SDK's ``points_of`` and
# the sample engines' greedy policy ask it (issue 30).


def opening_count(t: Tile) -> int:
    """The count of a layout holding only the opening tile ``t``: its two ends (a
    double: its two line sides, each its value) — always its pip total."""
    return t.pips


def count_after(layout: Layout, t: Tile, at: Point) -> int:
    """The count ``layout`` would have after ``t`` is attached at its open point
    ``at``, without changing it (RULES.md §4).

    The count changes by what the new free end adds (a double adds both its
    halves: its free line side) less what the covered end added: a non-double's
    end its value, a double's line side twice its value but only if it was the
    double's last open line side, a branch nothing.
    """
    side = at.side_number
    v = at.value
    if side <= 1:
        lost = v
    elif side <= 3:
        lost = 0 if _POINTS[at.index + (1 if side == 2 else -1)] in layout.open_points else 2 * v
    else:
        lost = 0
    return layout._count - lost + (2 * v if t.double else t.other_half(v))


def points_earned(count: int) -> int:
    """What a placement that leaves this count earns (RULES.md §4), before the
    cap at the payer's balance: the count if it is a multiple of 5, else 0."""
    return count if count > 0 and count % 5 == 0 else 0
