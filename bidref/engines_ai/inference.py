"""What the opponent's draws reveal, for better determinizations.

A player draws only when no tile in hand can be played (RULES.md §5). So when
the opponent draws while the open values are ``V``, every tile they held then
avoids ``V``; only tiles they drew since may match ``V``. :class:`OpponentModel`
records these facts and :meth:`OpponentModel.deal` deals the hidden tiles so
that the opponent's hand respects them (as far as the hidden tiles allow).

>>> from bidref.rules import Match
>>> model = OpponentModel(player=0)
>>> model.observe_draw({3, 5})  # the opponent drew with 3 and 5 open
>>> model.constraints
[(frozenset({3, 5}), 0)]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from bidref.rules import Match, Tile, redeal_hidden


class OpponentModel:
    """Facts about the opponent's hand learnt from their draws in this round."""

    def __init__(self, player: int) -> None:
        self.player = player
        self.round = 0
        self.drawn = 0  # tiles the opponent has drawn this round
        self.constraints: list[tuple[frozenset[int], int]] = []  # (values, drawn before)

    def new_round(self, round_number: int) -> None:
        if round_number != self.round:
            self.round = round_number
            self.drawn = 0
            self.constraints = []

    def observe_draw(self, open_values: Iterable[int]) -> None:
        """The opponent drew a tile while ``open_values`` were the open values."""
        values = frozenset(open_values)
        if values:
            self.constraints.append((values, self.drawn))
        self.drawn += 1

    def slack(self) -> list[tuple[frozenset[int], int]]:
        """Each constraint with how many hand tiles may still break it (drawn since)."""
        return [(values, self.drawn - before) for values, before in self.constraints]

    def consistent(self, hand: Sequence[Tile]) -> bool:
        for values, allowed in self.slack():
            if sum(1 for t in hand if t.low in values or t.high in values) > allowed:
                return False
        return True

    def deal(self, root: Match, rng: random.Random) -> Match:
        """Like ``redeal_hidden(root, player, rng)``, but the opponent's hand is built
        to respect the draws seen (tiles that would break a fact are skipped while
        others remain)."""
        if not self.constraints:
            return redeal_hidden(root, self.player, rng)
        opp = 1 - self.player
        hidden = root.hands[opp] + root.boneyard
        rng.shuffle(hidden)
        n = len(root.hands[opp])
        slack = self.slack()
        left = [allowed for _, allowed in slack]
        hand: list[Tile] = []
        rest: list[Tile] = []
        for t in hidden:
            if len(hand) < n:
                hits = [
                    i for i, (values, _) in enumerate(slack) if t.low in values or t.high in values
                ]
                if all(left[i] > 0 for i in hits):
                    for i in hits:
                        left[i] -= 1
                    hand.append(t)
                    continue
            rest.append(t)
        while len(hand) < n:  # the facts cannot all hold: fill up at random
            hand.append(rest.pop())
        return redeal_hidden(root, self.player, rng, opponent_hand=hand)
