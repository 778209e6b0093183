"""Who opens a forced round, and with which tile (RULES.md §2).

A module of its own so that the optional compiled build (docs/perf.md) can
compile it — it runs at the start of every forced round of every playout —
while ``deal.py``, which re-exports it, stays interpreted.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import DealError
from .tiles import Tile


def forced_opening_tile(hands: tuple[Sequence[Tile], Sequence[Tile]]) -> tuple[int, Tile]:
    """Who opens a forced round, and with which tile (RULES.md §2).

    The highest double; with no double in either hand, the highest pip total,
    ties going to the tile with the larger half (e.g. [3|6] beats [4|5]).
    """
    # One int per tile ranks like the tuple (double, pips or half, high half):
    # a non-double ranks at most 11 * 8 + 6 = 94, below every double (100 + half).
    best = -1
    holder = 0
    chosen: Tile | None = None
    for player, hand in enumerate(hands):
        for t in hand:
            rank = 100 + t.low if t.double else t.pips * 8 + t.high
            if rank > best:
                best = rank
                holder = player
                chosen = t
    if chosen is None:
        raise DealError("both hands are empty: a forced opening needs a tile in a hand")
    return holder, chosen
