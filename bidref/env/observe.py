"""The observation vector: what one player may know, as fixed-size numbers.

One encoder for the PettingZoo environment and the OpenSpiel game, built from
the rules' own state (``Match``) and the events it returned; it never decides
a rule. The layout of the vector is documented in docs/env.md ("Observation")
and spelled out by :data:`FIELDS` (name, length, largest value), which also
gives the space's bounds.

"What the opponent's draws revealed" (:class:`Reveals`): a player draws only
when no tile in hand fits an open end (RULES.md §5), and a pass is forced only
then too; so at each draw or pass of player P, P is known to hold no tile
showing any value open at that moment. A later draw replaces that knowledge
(the new tiles are unknown); a new round clears it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import numpy as np
import numpy.typing as npt

from bidref.rules import TILES, Drew, Event, Match, Passed, Phase, RoundStarted
from bidref.rules.layout import POINTS
from bidref.rules.phase import JOCKEY_CREDIT, TOTAL_POINTS

_MAX_BID: Final = TOTAL_POINTS + JOCKEY_CREDIT
_MAX_COUNT: Final = 60  # four scoring ends, two of them a double six: 12 + 12 + 6 + 6 + …

FIELDS: Final[tuple[tuple[str, int, int], ...]] = (
    ("own_hand", len(TILES), 1),  # 1 for each tile in the player's hand
    ("placed", len(TILES), 1),  # 1 for each tile on the layout
    ("open_points", len(POINTS), 1),  # 1 for each open attachment point (tile × side)
    ("open_values", 7, 4),  # how many open points show pip value 0 … 6
    ("count", 1, _MAX_COUNT),  # the layout's count (sum of its scoring ends)
    ("spinner", len(TILES), 1),  # the spinner tile, if there is one
    ("balances", 2, TOTAL_POINTS),  # own balance, then the opponent's
    ("phase", 4, 1),  # one-hot: auction, opening, play, over
    ("to_act", 1, 1),  # 1 when this player is to act
    ("jockey", 2, 1),  # the jockey is: this player, the opponent
    ("standing_bid", 1, _MAX_BID),  # the bid on the table, 0 for none
    ("bidder", 2, 1),  # the standing bid is: this player's, the opponent's
    ("forced_opening", 1, 1),  # 1 when the opening tile is forced (§2)
    ("boneyard_size", 1, 14),
    ("opponent_hand_size", 1, 21),
    ("drawn_this_turn", 1, 14),  # tiles this player drew in the current turn
    ("opponent_void", 7, 1),  # the opponent's draws or pass showed no tile with value v
    ("opponent_draws", 1, 14),  # tiles the opponent drew this round
    ("round", 1, 32767),  # the round number (1 …)
)

SIZE: Final = sum(n for _, n, _ in FIELDS)


def _offsets() -> dict[str, int]:
    out: dict[str, int] = {}
    at = 0
    for name, n, _ in FIELDS:
        out[name] = at
        at += n
    return out


OFFSET: Final = _offsets()
HIGH: Final[npt.NDArray[np.int16]] = np.concatenate(
    [np.full(n, hi, dtype=np.int16) for _, n, hi in FIELDS]
)
_PHASES: Final = {Phase.AUCTION: 0, Phase.OPENING: 1, Phase.PLAY: 2, Phase.OVER: 3}

_HAND: Final = OFFSET["own_hand"]
_PLACED: Final = OFFSET["placed"]
_OPEN: Final = OFFSET["open_points"]
_VALUES: Final = OFFSET["open_values"]
_COUNT: Final = OFFSET["count"]
_SPINNER: Final = OFFSET["spinner"]
_BAL: Final = OFFSET["balances"]
_PHASE: Final = OFFSET["phase"]
_TO_ACT: Final = OFFSET["to_act"]
_JOCKEY: Final = OFFSET["jockey"]
_BID: Final = OFFSET["standing_bid"]
_BIDDER: Final = OFFSET["bidder"]
_FORCED: Final = OFFSET["forced_opening"]
_BONEYARD: Final = OFFSET["boneyard_size"]
_OPP_HAND: Final = OFFSET["opponent_hand_size"]
_DRAWN: Final = OFFSET["drawn_this_turn"]
_VOID: Final = OFFSET["opponent_void"]
_OPP_DRAWS: Final = OFFSET["opponent_draws"]
_ROUND: Final = OFFSET["round"]


class Reveals:
    """What each player's draws and passes showed the other, this round."""

    __slots__ = ("draws", "void")

    def __init__(self) -> None:
        self.void: list[frozenset[int]] = [frozenset(), frozenset()]
        self.draws = [0, 0]

    def copy(self) -> Reveals:
        new = Reveals()
        new.void = self.void.copy()
        new.draws = self.draws.copy()
        return new

    def update(self, match: Match, events: Iterable[Event]) -> None:
        """Learn from ``events``, which ``match`` has just returned.

        Draws and passes read the layout as it is now: within one batch of
        events, nothing is placed after a draw or a pass of the same round
        (a draw ends the batch, or a pass follows it; a pass is followed by
        the other's pass or the round's end, which clears everything).
        """
        for e in events:
            if type(e) is RoundStarted:
                self.void = [frozenset(), frozenset()]
                self.draws = [0, 0]
            elif type(e) is Drew:
                p = e.player
                self.draws[p] += 1
                self.void[p] = frozenset(pt.value for pt in match.layout.open_points)
            elif type(e) is Passed:
                self.void[e.player] = frozenset(pt.value for pt in match.layout.open_points)


def encode(match: Match, player: int, reveals: Reveals) -> npt.NDArray[np.int16]:
    """The observation vector of ``player`` (layout: :data:`FIELDS`)."""
    v = np.zeros(SIZE, dtype=np.int16)
    opp = 1 - player
    for t in match.hands[player]:
        v[_HAND + t.index] = 1
    lay = match.layout
    for t in lay.placed:
        v[_PLACED + t.index] = 1
    for p in lay.open_points:
        v[_OPEN + p.index] = 1
        v[_VALUES + p.value] += 1
    if lay.placed:
        v[_COUNT] = lay.count()
    if lay.spinner is not None:
        v[_SPINNER + lay.spinner.index] = 1
    v[_BAL] = match.balances[player]
    v[_BAL + 1] = match.balances[opp]
    v[_PHASE + _PHASES[match.phase]] = 1
    if not match.over:
        v[_TO_ACT] = match.to_act == player
    if match.jockey is not None:
        v[_JOCKEY + (match.jockey != player)] = 1
    if match.bid is not None:
        v[_BID] = match.bid
        v[_BIDDER + (match.bidder != player)] = 1
    v[_FORCED] = match.phase is Phase.OPENING and match.forced_tile is not None
    v[_BONEYARD] = len(match.boneyard)
    v[_OPP_HAND] = len(match.hands[opp])
    if not match.over and match.to_act == player:
        v[_DRAWN] = match.drawn_this_turn
    for value in reveals.void[opp]:
        v[_VOID + value] = 1
    v[_OPP_DRAWS] = reveals.draws[opp]
    v[_ROUND] = min(match.round_number, 32767)
    return v
