"""Fast one-ply policies: random and greedy (most points now).

What a placement would earn comes from the rules (:func:`bidref.rules.action_points`,
which counts without copying the layout), so it is cheap enough to drive the
playouts of the Monte Carlo search.

>>> from bidref.rules import Match
>>> m = Match.new(seed=3)
>>> str(greedy_action(m))  # the forced opening: the highest double
'open 6-6'
"""

from __future__ import annotations

import random

from bidref.rules import (
    DECLINE,
    Accept,
    Action,
    Bid,
    Decline,
    Match,
    Open,
    Phase,
    Play,
    action_points,
    opening_count,
    points_earned,
)


def _play_greedy(m: Match, legal: list[Action], rng: random.Random | None) -> Action:
    layout = m.layout
    best: list[Action] = []
    best_key = (-1, -1)
    for a in legal:
        heavy = a.tile.pips if isinstance(a, (Play, Open)) else 0
        key = (action_points(layout, a), heavy)
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
        best = max((points_earned(opening_count(t)) for t in m.hands[m.to_act]), default=0)
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
