"""The fixed action enumeration shared by the environment and the OpenSpiel game.

Learning code wants a ``Discrete`` space whose numbers mean the same move in
every position. The rules library names actions by value (``Bid(20)``,
``Play(tile, point)``); this module numbers every action value the game can
ever make legal, once, in this order (docs/env.md, "Actions"):

====================  ===========  =====================================================
ids                   how many     action
====================  ===========  =====================================================
0                     1            ``decline`` (the non-jockey's first word, §6.1)
1                     1            ``accept`` the standing bid (§6.3)
2                     1            ``draw`` one tile from the boneyard (§5)
3 – 30                28           ``open T``: tile ``T`` (``TILES`` order) opens
31 – 91               61           ``bid N`` for N = 15, 20, …, 315 (§6)
92 – 511              420          ``play T P``: tile ``T`` at attachment point ``P``
====================  ===========  =====================================================

There is no pass action: a pass is forced and the rules perform it themselves
(RULES.md "Decided here"), so an agent is never asked to pass. The plays are
every (tile, point) pair the rules could ever make legal (a point of another
tile that shows one of the tile's values), by tile then point index. Bids stop
at 315: the most a jockey holding all 300 points can afford (§6.5).

Standard library only, like the rules: the OpenSpiel game and the environment
both import it, and neither needs the other.
"""

from __future__ import annotations

from typing import Final

from bidref.rules import ACCEPT, DECLINE, DRAW, POINTS, TILES, Action, Bid, Open, play
from bidref.rules.phase import BID_STEP, JOCKEY_CREDIT, MIN_BID, TOTAL_POINTS

from .errors import UnknownActionError


def _enumerate() -> tuple[Action, ...]:
    out: list[Action] = [DECLINE, ACCEPT, DRAW]
    out.extend(Open(t) for t in TILES)
    out.extend(Bid(n) for n in range(MIN_BID, TOTAL_POINTS + JOCKEY_CREDIT + 1, BID_STEP))
    for t in TILES:
        for p in POINTS:
            if p.is_valid_side() and p.tile is not t and t.has(p.value):
                out.append(play(t, p))
    return tuple(out)


ACTIONS: Final[tuple[Action, ...]] = _enumerate()
"""Every action, indexed by its id."""

NUM_ACTIONS: Final = len(ACTIONS)

DRAW_ID: Final = 2
FIRST_OPEN: Final = 3
FIRST_BID: Final = FIRST_OPEN + len(TILES)
FIRST_PLAY: Final = FIRST_BID + (TOTAL_POINTS + JOCKEY_CREDIT - MIN_BID) // BID_STEP + 1

# Action values are interned except bids (a frozen dataclass compared by value),
# so the look-up table is keyed by value: equal bids hash equally.
_IDS: Final[dict[Action, int]] = {a: i for i, a in enumerate(ACTIONS)}


def action_id(action: Action) -> int:
    """The id of ``action``; raise :class:`UnknownActionError` if it has none."""
    try:
        return _IDS[action]
    except (KeyError, TypeError):
        raise UnknownActionError(
            f"{action!r:.60} is not an action of the game: give a value from legal_actions()"
        ) from None


def action_of(action_id: int) -> Action:
    """The action numbered ``action_id``; raise :class:`UnknownActionError` if none is."""
    if type(action_id) is not int and not hasattr(action_id, "__index__"):
        raise UnknownActionError(f"action id {action_id!r:.40} is not an integer")
    i = int(action_id)
    if not 0 <= i < NUM_ACTIONS:
        raise UnknownActionError(
            f"action id {action_id} is out of range: give 0 to {NUM_ACTIONS - 1} (docs/env.md)"
        )
    return ACTIONS[i]


def legal_ids(legal: list[Action]) -> list[int]:
    """The ids of ``legal`` (the rules' sorted legal actions), ascending."""
    ids = _IDS
    return sorted(ids[a] for a in legal)
