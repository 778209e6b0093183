"""The seeded shuffle behind every deal (see :func:`shuffled_set`).

A module of its own so that the optional compiled build (docs/perf.md) can
compile it — it runs once a round of every playout — while ``deal.py``, whose
``Deal`` accepts any sequences of tiles, stays interpreted.
"""

from __future__ import annotations

import hashlib
from typing import Final

from .tiles import TILES, Tile

_LIMITS: Final = tuple(256 - 256 % n if n else 0 for n in range(len(TILES) + 1))
"""For ``n`` choices: the bytes below this give an unbiased index (``x % n``)."""


def shuffled_set(seed: int, round_number: int) -> list[Tile]:
    """All 28 tiles in the order the seeded shuffle of ``round_number`` gives.

    Fisher–Yates from the last position down; each index is one byte of the
    SHA-512 stream of ``bidref-deal-v1:{seed}:{round}`` (64-byte blocks numbered
    from 0, the number appended as 8 big-endian bytes). A byte at or above the
    largest multiple of ``n`` that fits in 256 is skipped, so that every index is
    exactly uniform.
    """
    return [TILES[i] for i in _shuffled_indices(seed, round_number)]


def shuffled_hands(
    seed: int, round_number: int
) -> tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]:
    """The deal of :func:`shuffled_set`: the first 7 tiles and the next 7 as
    hands sorted by tile index, the last 14 as the boneyard in draw order."""
    order = _shuffled_indices(seed, round_number)
    tiles = TILES
    hand_a = tuple([tiles[i] for i in sorted(order[0:7])])
    hand_b = tuple([tiles[i] for i in sorted(order[7:14])])
    return hand_a, hand_b, tuple([tiles[i] for i in order[14:]])


def _shuffled_indices(seed: int, round_number: int) -> list[int]:
    """The tile indices in shuffled order (the shuffle itself: see :func:`shuffled_set`)."""
    key = f"bidref-deal-v1:{seed}:{round_number}".encode()
    block = 0
    buf = hashlib.sha512(key + block.to_bytes(8, "big")).digest()
    pos = 0
    order = list(range(len(TILES)))
    for i in range(len(order) - 1, 0, -1):
        n = i + 1
        limit = _LIMITS[n]
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
        order[i], order[j] = order[j], order[i]
    return order
