"""The 28 tiles of a double-six set.

Tiles are interned: ``TILES[i]`` is the only instance of each tile, so tiles
compare and hash by identity-cheap value and never need to be constructed by
callers. Index order is the canonical sort order (by low half, then high half),
which is also the order used by ``layout-examples.json``.

>>> tile(3, 6)
Tile(3, 6)
>>> str(tile(6, 3))
'3-6'
>>> parse_tile("[3|6]") is parse_tile("63")
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from .errors import NotationError

MAX_PIP: Final = 6


class Tile:
    """One domino. Use :func:`tile` or :data:`TILES`; never construct directly."""

    __slots__ = ("double", "high", "index", "low", "mask", "pips")

    index: int
    low: int
    high: int
    double: bool
    pips: int
    mask: int  # bit ``v`` set for each half ``v``: matched against open values at once

    def __init__(self, index: int, low: int, high: int) -> None:
        self.index = index
        self.low = low
        self.high = high
        self.double = low == high
        self.pips = low + high
        self.mask = 1 << low | 1 << high

    def __repr__(self) -> str:
        return f"Tile({self.low}, {self.high})"

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __lt__(self, other: Tile) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        # Equality stays identity (Tiles are interned); the hash is spelled out
        # because a class with __lt__ compiled by mypyc has none, and the index
        # makes set order the same in every build and every run.
        return self.index

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        # Keep interning across pickling (process pools, dask workers).
        return (tile, (self.low, self.high))

    def has(self, value: int) -> bool:
        return value == self.low or value == self.high

    def other_half(self, value: int) -> int:
        """The half left free when this tile is joined by ``value``."""
        return self.high if value == self.low else self.low

    def as_list(self) -> list[int]:
        return [self.low, self.high]


def _build() -> tuple[Tile, ...]:
    tiles: list[Tile] = []
    for low in range(MAX_PIP + 1):
        for high in range(low, MAX_PIP + 1):
            tiles.append(Tile(len(tiles), low, high))
    return tuple(tiles)


TILES: Final[tuple[Tile, ...]] = _build()
_BY_HALVES: Final[dict[tuple[int, int], Tile]] = {}
for _t in TILES:
    _BY_HALVES[(_t.low, _t.high)] = _t
    _BY_HALVES[(_t.high, _t.low)] = _t
DOUBLES: Final[tuple[Tile, ...]] = tuple(t for t in TILES if t.double)


def tile(a: int, b: int) -> Tile:
    """The tile with halves ``a`` and ``b`` in either order."""
    try:
        return _BY_HALVES[(a, b)]
    except KeyError:
        raise NotationError(
            f"no tile [{a}|{b}] in a double-six set: halves run from 0 to {MAX_PIP}"
        ) from None


_TILE_RE = re.compile(r"^\[?\s*([0-9])\s*[|\-/:,]?\s*([0-9])\s*\]?$")


def parse_tile(text: str) -> Tile:
    """Parse ``3-6``, ``6-3``, ``[3|6]``, ``3|6`` or ``36``."""
    m = _TILE_RE.match(text.strip())
    if not m:
        raise NotationError(f"{text!r} is not a tile: write its two halves, e.g. '3-6' or '[3|6]'")
    return tile(int(m.group(1)), int(m.group(2)))


def pip_total(tiles: Iterable[Tile]) -> int:
    return sum(t.pips for t in tiles)
