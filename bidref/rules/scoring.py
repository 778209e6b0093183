"""What an action earns at once (RULES.md §4), for every kind of action.

The rule itself is in :mod:`bidref.rules.layout` (:func:`count_after`,
:func:`opening_count`, :func:`points_earned`), where the layout keeps its count
with it; this module applies it to an action value, for the referee's
``legal_points``, the SDK's ``points_of`` and the greedy policy.

>>> from bidref.rules import Match
>>> m = Match.new(seed=3)
>>> [(str(a), action_points(m.layout, a)) for a in m.legal_actions()]
[('open 6-6', 0)]
"""

from __future__ import annotations

from .actions import Action, Open, Play
from .layout import Layout, count_after, opening_count, points_earned


def action_points(layout: Layout, action: Action) -> int:
    """What ``action`` earns at once on ``layout``: a play or an opening the
    count it leaves if that is a multiple of 5; any other action 0. (The payer
    pays at most its balance; see the ``transfer`` event.)"""
    if isinstance(action, Play):
        return points_earned(count_after(layout, action.tile, action.at))
    if isinstance(action, Open):
        return points_earned(opening_count(action.tile))
    return 0
