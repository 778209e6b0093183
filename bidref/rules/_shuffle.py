"""The seeded shuffle behind every deal (see :func:`shuffled_set`).

A module of its own so that the optional compiled build (docs/perf.md) can
compile it — it runs once a round of every playout — while ``deal.py``, whose
``Deal`` accepts any sequences of tiles, stays interpreted.
"""

from __future__ import annotations

import hashlib

from .tiles import TILES, Tile


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
