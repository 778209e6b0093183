"""Deals: seeded shuffles that are the same on every platform and Python.

A deal is the chance event of a round (RULES.md §2): 7 tiles to each player
and 14 to the boneyard, in draw order. Seeded deals use SHA-256 as the random
source and an unbiased Fisher–Yates shuffle, so the same ``(seed, round)``
gives the same deal everywhere, independently of Python's ``random`` module.

>>> d = Deal.from_seed(42, 1)
>>> len(d.hands[0]), len(d.hands[1]), len(d.boneyard)
(7, 7, 14)
>>> d == Deal.from_seed(42, 1)
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import DealError
from .tiles import TILES, Tile, tile

HAND_SIZE = 7
BONEYARD_SIZE = 14


class _HashStream:
    """Unbiased integers in ``[0, n)`` from SHA-512 blocks of a fixed key."""

    __slots__ = ("_block", "_buf", "_key", "_pos")

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._block = 0
        self._buf = b""
        self._pos = 0

    def _u16(self) -> int:
        pos = self._pos
        if pos + 2 > len(self._buf):
            self._buf = hashlib.sha512(self._key + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            pos = 0
        self._pos = pos + 2
        return (self._buf[pos] << 8) | self._buf[pos + 1]

    def below(self, n: int) -> int:
        limit = 65536 - 65536 % n  # reject the biased top of the range
        while True:
            x = self._u16()
            if x < limit:
                return x % n


def shuffled_set(seed: int, round_number: int) -> list[Tile]:
    """All 28 tiles in the order the seeded shuffle of ``round_number`` gives."""
    tiles = list(TILES)
    stream = _HashStream(f"bidref-deal-v1:{seed}:{round_number}".encode())
    for i in range(len(tiles) - 1, 0, -1):
        j = stream.below(i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


@dataclass(frozen=True, slots=True)
class Deal:
    """Both hands (sorted) and the boneyard in draw order (first is drawn first)."""

    hands: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    boneyard: tuple[Tile, ...]

    def __post_init__(self) -> None:
        everything = [*self.hands[0], *self.hands[1], *self.boneyard]
        sizes = (len(self.hands[0]), len(self.hands[1]), len(self.boneyard))
        if sizes != (HAND_SIZE, HAND_SIZE, BONEYARD_SIZE):
            raise DealError(
                f"a deal is 7 + 7 tiles in hand and 14 in the boneyard, got "
                f"{sizes[0]} + {sizes[1]} and {sizes[2]}"
            )
        seen: set[Tile] = set()
        for t in everything:
            if t in seen:
                raise DealError(f"tile {t} is dealt twice; each of the 28 tiles is dealt once")
            seen.add(t)

    @classmethod
    def from_seed(cls, seed: int, round_number: int) -> Deal:
        """The deal of round ``round_number`` (1-based) of the match with ``seed``."""
        tiles = shuffled_set(seed, round_number)
        return cls(
            (tuple(sorted(tiles[0:7])), tuple(sorted(tiles[7:14]))),
            tuple(tiles[14:]),
        )

    @classmethod
    def from_lists(
        cls,
        hand_0: Sequence[Sequence[int]],
        hand_1: Sequence[Sequence[int]],
        boneyard: Sequence[Sequence[int]],
    ) -> Deal:
        """Build a deal from ``[low, high]`` pairs, e.g. read from a file."""

        def conv(seq: Sequence[Sequence[int]]) -> tuple[Tile, ...]:
            out = []
            for pair in seq:
                if len(pair) != 2:
                    raise DealError(f"{list(pair)!r} is not a tile: give two halves")
                out.append(tile(int(pair[0]), int(pair[1])))
            return tuple(out)

        return cls((tuple(sorted(conv(hand_0))), tuple(sorted(conv(hand_1)))), conv(boneyard))

    def to_dict(self) -> dict[str, object]:
        return {
            "hands": [[t.as_list() for t in h] for h in self.hands],
            "boneyard": [t.as_list() for t in self.boneyard],
        }


DealSource = Callable[[int], Deal]
"""A function from a 1-based round number to that round's deal."""


def seeded_deals(seed: int) -> DealSource:
    def deal(round_number: int) -> Deal:
        return Deal.from_seed(seed, round_number)

    return deal


def listed_deals(deals: Sequence[Deal], then_seed: int | None = None) -> DealSource:
    """Explicit deals for the first rounds, then seeded ones (or an error)."""

    def deal(round_number: int) -> Deal:
        if round_number <= len(deals):
            return deals[round_number - 1]
        if then_seed is None:
            raise DealError(
                f"no deal given for round {round_number}: give one deal per round, or a seed"
            )
        return Deal.from_seed(then_seed, round_number)

    return deal


def forced_opening_tile(hands: tuple[Sequence[Tile], Sequence[Tile]]) -> tuple[int, Tile]:
    """Who opens a forced round, and with which tile (RULES.md §2).

    The highest double; with no double in either hand, the highest pip total,
    ties going to the tile with the larger half (e.g. [3|6] beats [4|5]).
    """
    best: tuple[int, int, int] | None = None
    holder = 0
    chosen: Tile | None = None
    for player, hand in enumerate(hands):
        for t in hand:
            key = (1 if t.double else 0, t.pips if not t.double else t.low, t.high)
            if best is None or key > best:
                best, holder, chosen = key, player, t
    assert chosen is not None
    return holder, chosen
