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
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from .errors import DealError
from .tiles import TILES, Tile, tile

HAND_SIZE = 7
BONEYARD_SIZE = 14


def shuffled_set(seed: int, round_number: int) -> list[Tile]:
    """All 28 tiles in the order the seeded shuffle of ``round_number`` gives.

    Fisher–Yates from the last position down; each index is one byte of the
    SHA-512 stream of ``bidref-deal-v1:{seed}:{round}`` (64-byte blocks numbered
    from 0, the number appended as 8 big-endian bytes). A byte at or above the
    largest multiple of ``n`` that fits in 256 is skipped, so that every index is
    exactly uniform.
    """
    key = f"bidref-deal-v1:{seed}:{round_number}".encode()
    block = 0
    buf = hashlib.sha512(key + block.to_bytes(8, "big")).digest()
    pos = 0
    tiles = list(TILES)
    for i in range(len(tiles) - 1, 0, -1):
        n = i + 1
        limit = 256 - 256 % n
        while True:
            if pos == len(buf):
                block += 1
                buf = hashlib.sha512(key + block.to_bytes(8, "big")).digest()
                pos = 0
            x = buf[pos]
            pos += 1
            if x < limit:
                break
        j = x % n
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


_BY_INDEX: Final = operator.attrgetter("index")


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
        # A shuffle of the full set is a valid partition: skip the checks.
        deal = object.__new__(cls)
        hands = (
            tuple(sorted(tiles[0:7], key=_BY_INDEX)),
            tuple(sorted(tiles[7:14], key=_BY_INDEX)),
        )
        object.__setattr__(deal, "hands", hands)
        object.__setattr__(deal, "boneyard", tuple(tiles[14:]))
        return deal

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
