"""The phases of a round and the match's constants (RULES.md §1, §6).

Apart from :mod:`bidref.rules.match` so that the modules that read a match
without being part of it (:mod:`~bidref.rules.explain`,
:mod:`~bidref.rules.determinize`) need not import it.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

TOTAL_POINTS: Final = 300
START_BALANCE: Final = 150
MIN_BID: Final = 15
BID_STEP: Final = 5
JOCKEY_CREDIT: Final = 15


class Phase(Enum):
    AUCTION = "auction"
    OPENING = "opening"
    PLAY = "play"
    OVER = "over"


def player_name(player: int) -> str:
    """``A`` or ``B``: how the rules and the referee name players 0 and 1."""
    return "AB"[player]
