"""Why an action is illegal: the explanations :meth:`Match.apply` raises (RULES.md §8).

Apart from the state machine (issue 30): ``apply`` only tests membership in the
legal actions, and asks this module for the reason when that fails, which is
never on the playout path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .actions import Accept, Action, Bid, Decline, Draw, Open, Play, describe, is_action
from .errors import IllegalActionError
from .layout import Side
from .phase import BID_STEP, MIN_BID, Phase, player_name

if TYPE_CHECKING:
    from .match import Match


def where(m: Match) -> str:
    """Where the match stands, for messages: round, phase and player to act."""
    if m.phase is Phase.OVER:
        return "after the end of the match"
    return (
        f"in round {m.round_number}, {m.phase.value} phase, player {player_name(m.to_act)} to act"
    )


def explain(m: Match, action: Action, player: int | None) -> IllegalActionError:
    """Why ``action`` (by ``player``, if given) is illegal in ``m``: the error
    :meth:`Match.apply` raises, its reason and the rule that forbids it."""

    def err(reason: str, rule: str) -> IllegalActionError:
        return IllegalActionError(describe(action), where(m), reason, rule)

    phase = m.phase
    if phase is Phase.OVER:
        return err("the match is over; no action is legal", "§1")
    if player is not None and player != m.to_act:
        return err(
            f"it is player {player_name(m.to_act)}'s turn, not {player_name(player)}'s", "§8"
        )
    if not is_action(action):
        return err(
            f"{type(action).__name__} is not an action of the game: give an action value "
            "(one of legal_actions(), or parse_action('draw'))",
            "§8",
        )
    if phase is Phase.AUCTION:
        return _explain_auction(m, action, err)
    if phase is Phase.OPENING:
        if not isinstance(action, Open):
            return err(
                "the round must be opened first: legal is "
                + ", ".join(str(a) for a in m.legal_actions()),
                "§2",
            )
        if action.tile not in m.hands[m.to_act]:
            return err(f"{action.tile} is not in your hand", "§2")
        return err(
            f"this is a forced opening: the opener must open with {m.forced_tile}"
            " (the highest double, else the highest tile)",
            "§2",
        )
    # Play phase.
    if isinstance(action, (Bid, Accept, Decline)):
        return err("the auction is over; the round is in play", "§6")
    if isinstance(action, Open):
        return err("the round is already open; play a tile at an attachment point", "§2")
    hand = m.hands[m.to_act]
    if isinstance(action, Draw):
        playable = [t for t in hand if m.layout.can_play(t)]
        return err(
            f"you hold a playable tile ({', '.join(map(str, playable))}); "
            "a player may draw only when they cannot play",
            "§5",
        )
    if not isinstance(action, Play):  # is_action() leaves no other kind
        return err(f"{type(action).__name__} is not an action of the game", "§8")
    t, at = action.tile, action.at
    if t not in hand:
        return err(f"{t} is not in your hand", "§3")
    if at not in m.layout.open_points:
        if at.tile not in m.layout.placed:
            return err(f"{at.words} is not on the table", "§3")
        if at.side >= Side.BRANCH_A and at.tile is m.layout.spinner:
            return err(
                f"{at.words} is not open: the spinner's branches open only after "
                "both its line sides are filled",
                "§3",
            )
        if at.side >= Side.BRANCH_A:
            return err(
                f"{at.words} does not exist: only the spinner ({m.layout.spinner}) has branches",
                "§3",
            )
        return err(f"{at.words} is not an attachment point: it is already joined", "§3")
    if not t.has(at.value):
        return err(f"{t} does not match {at.words}, which takes a {at.value}", "§3")
    return err(f"{t} cannot be played now", "§5")


def _explain_auction(
    m: Match, action: Action, err: Callable[[str, str], IllegalActionError]
) -> IllegalActionError:
    p = m.to_act
    if isinstance(action, Decline):
        return err(
            "after a bid the only answers are accept or raise", "Decided here: the first bid"
        )
    if isinstance(action, Accept):
        return err("there is no bid to accept; decline or bid at least 15", "§6.1")
    if isinstance(action, Bid):
        a = action.amount
        if a % BID_STEP:
            return err(f"bids are multiples of 5, not {a}", "§6.2")
        if m.bid is None and a < MIN_BID:
            return err(f"the first bid is at least {MIN_BID}", "§6.1")
        if m.bid is not None and a < m.bid + BID_STEP:
            return err(
                f"a raise of the standing bid {m.bid} must be at least {m.bid + BID_STEP}",
                "§6.2",
            )
        if m.bid is None and p == m.jockey:
            return err("the non-jockey speaks first", "§6.1")
        return err(
            f"a bid of {a} would cost {m.net_payment(p, a)}, more than your "
            f"balance of {m.balances[p]}; the most you can bid is {m.max_bid(p)}",
            "§6.5",
        )
    return err(
        "the auction for the opening comes first: "
        + ", ".join(str(a) for a in m.legal_actions()[:4])
        + ", …",
        "§6",
    )
