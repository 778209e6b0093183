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

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, cast

from ._shuffle import shuffled_hands
from .errors import DealError
from .opening import forced_opening_tile
from .tiles import TILES, Tile, tile

HAND_SIZE = 7
BONEYARD_SIZE = 14


_BY_INDEX: Final = operator.attrgetter("index")


_ALL_TILES: Final = frozenset(TILES)


def _tiles_of(value: object, what: str) -> tuple[Tile, ...]:
    """``value`` as a tuple of interned tiles, or a :class:`DealError` quoting it."""
    if type(value) is not tuple:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise DealError(
                f"{what} {value!r:.60} is not a sequence of tiles: give a tuple of tiles"
            )
        value = tuple(value)
    out: tuple[object, ...] = value
    # Tiles hash and compare by identity, so set membership finds exactly the
    # 28 interned tiles (a look-alike built with Tile(...) is not among them).
    if not _ALL_TILES.issuperset(out):
        bad = next(t for t in out if type(t) is not Tile or t not in _ALL_TILES)
        raise DealError(
            f"{what} holds {bad!r:.40}, which is not one of the 28 tiles: "
            "give tiles from tile(low, high) or TILES"
        )
    return cast(tuple[Tile, ...], out)


@dataclass(frozen=True, slots=True)
class Deal:
    """Both hands and the boneyard in draw order (first is drawn first).

    A hand is a set of tiles, so building a deal sorts each hand (by tile
    index, the canonical order): ``Deal((hand_a, hand_b), boneyard)`` with hands
    in any order equals the same deal with sorted hands. Hands and boneyard may
    be given as any sequences of tiles; they are stored as tuples. Anything
    that is not 7 + 7 + 14 distinct tiles raises :class:`DealError`.

    >>> from bidref.rules.tiles import TILES
    >>> d = Deal((TILES[6::-1], TILES[7:14]), TILES[14:])
    >>> d.hands[0][:3]
    (Tile(0, 0), Tile(0, 1), Tile(0, 2))
    """

    hands: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    boneyard: tuple[Tile, ...]

    def __post_init__(self) -> None:
        pair: object = self.hands
        if type(pair) is not tuple and (
            isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence)
        ):
            raise DealError(f"hands {pair!r:.60} are not two hands: give (hand_a, hand_b)")
        if len(pair) != 2:
            raise DealError(f"hands {pair!r:.60} are not two hands: give (hand_a, hand_b)")
        hand_a = tuple(sorted(_tiles_of(pair[0], "hand A"), key=_BY_INDEX))
        hand_b = tuple(sorted(_tiles_of(pair[1], "hand B"), key=_BY_INDEX))
        boneyard = _tiles_of(self.boneyard, "the boneyard")
        # Frozen: the normalised values go in the way dataclasses' own __init__ does.
        object.__setattr__(self, "hands", (hand_a, hand_b))
        object.__setattr__(self, "boneyard", boneyard)
        sizes = (len(hand_a), len(hand_b), len(boneyard))
        if sizes != (HAND_SIZE, HAND_SIZE, BONEYARD_SIZE):
            raise DealError(
                f"a deal is 7 + 7 tiles in hand and 14 in the boneyard, got "
                f"{sizes[0]} + {sizes[1]} and {sizes[2]}"
            )
        everything = hand_a + hand_b + boneyard
        if len(set(everything)) == len(TILES):
            return
        seen: set[Tile] = set()
        for t in everything:
            if t in seen:
                raise DealError(f"tile {t} is dealt twice; each of the 28 tiles is dealt once")
            seen.add(t)

    @classmethod
    def from_seed(cls, seed: int, round_number: int) -> Deal:
        """The deal of round ``round_number`` (1-based) of the match with ``seed``."""
        hand_a, hand_b, boneyard = shuffled_hands(seed, round_number)
        hands = (hand_a, hand_b)
        if not _UNCHECKED_NEW:
            return cls(hands, boneyard)
        # A shuffle of the full set is a valid partition: skip the checks (this
        # runs once a round of every playout).
        deal = object.__new__(cls)
        object.__setattr__(deal, "hands", hands)
        object.__setattr__(deal, "boneyard", boneyard)
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

        return cls((conv(hand_0), conv(hand_1)), conv(boneyard))

    def to_dict(self) -> dict[str, object]:
        return {
            "hands": [[t.as_list() for t in h] for h in self.hands],
            "boneyard": [t.as_list() for t in self.boneyard],
        }


def _object_new_works() -> bool:
    """Whether a Deal can be made without its checks. Not when mypyc compiled
    this module (it refuses ``object.__new__`` of its classes); there the
    checks run in C and cost little."""
    try:
        object.__new__(Deal)
    except TypeError:
        return False
    return True


_UNCHECKED_NEW: Final = _object_new_works()


__all__ = [
    "BONEYARD_SIZE",
    "HAND_SIZE",
    "Deal",
    "DealSource",
    "forced_opening_tile",
    "listed_deals",
    "seeded_deals",
]

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
