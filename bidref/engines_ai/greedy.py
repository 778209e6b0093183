"""Fast one-ply policies: random and greedy (most points now).

``immediate_points`` computes what a placement would earn without copying the
layout, so it is cheap enough to drive the playouts of the Monte Carlo search.

>>> from bidref.rules import Match
>>> m = Match.new(seed=3)
>>> str(greedy_action(m))
'open 5-5'
"""

from __future__ import annotations

import random
from typing import Final

from bidref.rules import DECLINE, Accept, Action, Bid, Decline, Layout, Match, Open, Phase, Play
from bidref.rules.layout import Side, point, points_earned

_LINE_OTHER: Final = {Side.LINE_A: Side.LINE_B, Side.LINE_B: Side.LINE_A}


def count_after(layout: Layout, count: int, action: Play) -> int:
    """The count of the layout after ``action``, given its current ``count`` (RULES.md §4)."""
    t, at = action.tile, action.at
    v = at.value
    side = at.side
    if side <= Side.LOW:
        removed = v
    elif side <= Side.LINE_B:
        other = point(at.tile, _LINE_OTHER[side])
        removed = 0 if other in layout.open_points else 2 * v
    else:
        removed = 0  # an unopened branch counts nothing
    added = 2 * t.low if t.double else t.other_half(v)
    return count - removed + added


def immediate_points(layout: Layout, count: int, action: Play) -> int:
    """What playing ``action`` earns at once (before the cap at the payer's balance)."""
    return points_earned(count_after(layout, count, action))


def opening_points(action: Open) -> int:
    t = action.tile
    return points_earned(2 * t.low if t.double else t.pips)


def _play_greedy(m: Match, legal: list[Action], rng: random.Random | None) -> Action:
    layout = m.layout
    count = layout.count()
    best: list[Action] = []
    best_key = (-1, -1)
    for a in legal:
        if isinstance(a, Play):
            key = (immediate_points(layout, count, a), a.tile.pips)
        elif isinstance(a, Open):
            key = (opening_points(a), a.tile.pips)
        else:
            key = (0, 0)
        if key > best_key:
            best_key = key
            best = [a]
        elif key == best_key:
            best.append(a)
    if rng is None or len(best) == 1:
        return best[0]
    return best[rng.randrange(len(best))]


def greedy_auction(m: Match) -> Action:
    """A simple, sensible auction: bid 15 with a scoring opening tile, else stay out."""
    legal = m.legal_actions()
    if m.bid is None:
        best = max((opening_points(Open(t)) for t in m.hands[m.to_act]), default=0)
        if best >= 10 and Bid(15) in legal and m.balances[m.to_act] > 15:
            return Bid(15)
        return DECLINE
    return next(a for a in legal if isinstance(a, (Accept, Decline)))


def greedy_action(m: Match, rng: random.Random | None = None) -> Action:
    """The legal action that earns the most now; ties to the heavier tile (or at random)."""
    legal = m.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if m.phase is Phase.AUCTION:
        return greedy_auction(m)
    return _play_greedy(m, legal, rng)


def random_action(m: Match, rng: random.Random) -> Action:
    """A uniformly random legal action, but never a bid that would cost the whole balance."""
    legal = m.legal_actions()
    if m.phase is Phase.AUCTION:
        p = m.to_act
        legal = [
            a
            for a in legal
            if not (isinstance(a, Bid) and m.net_payment(p, a.amount) >= m.balances[p])
        ]
    return legal[rng.randrange(len(legal))]
