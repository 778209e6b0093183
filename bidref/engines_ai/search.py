"""Determinized Monte Carlo search for Spectacular Bid.

The searcher never sees hidden tiles: every simulation starts from
``redeal_hidden(match, player, rng)``, which deals the opponent's hand and the
boneyard afresh from what the player cannot see — or, once the opponent has
drawn this round, from an :class:`~.inference.OpponentModel` that keeps their
hand consistent with those draws (``StrongPlayer.watch``). For each legal action the
same determinization is played out (common random numbers) with an
epsilon-greedy playout policy to the end of the round, and the action with the
best mean value wins.

A playout's value is the player's balance change over the round, plus a bonus
for becoming the jockey (the auction advantage of RULES.md §6) and a large
bonus or malus when the match ends.

The auction (RULES.md §6) is decided by simulation too: the searcher estimates
how much opening the round is worth to it (``open_value``: its best opening
tile against the opponent opening greedily) and bids or raises only while the
net price stays below that value and within its balance.

Time is never read here: pass ``now`` (a monotonic seconds function) and a
``SearchLimits`` with a time budget, or a playout count for reproducible play.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass

from bidref.rules import (
    ACCEPT,
    DECLINE,
    Action,
    Bid,
    Match,
    Open,
    Phase,
    redeal_hidden,
    with_free_opening,
)

from .greedy import greedy_action
from .inference import OpponentModel

log = logging.getLogger(__name__)

MIN_SEARCH = 0.005
"""Below this budget (seconds) the searcher plays greedily instead of searching."""


@dataclass(frozen=True, slots=True)
class SearchLimits:
    """How much one decision may cost: a time budget (seconds) and/or a playout cap.

    With neither given the search runs ``default_playouts`` playouts.
    """

    seconds: float | None = None
    playouts: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and self.seconds < 0:
            raise ValueError(f"a time budget must be >= 0 s, got {self.seconds}")
        if self.playouts is not None and self.playouts < 1:
            raise ValueError(f"a playout cap must be >= 1, got {self.playouts}")


def budget_seconds(
    delay_left: float,
    bank: float,
    *,
    expected_turns: int = 25,
    delay_share: float = 0.6,
    safety: float = 0.02,
    reserve: float = 0.0,
) -> float:
    """A time budget for one decision from the player's clock (RULES.md §7).

    A share of the turn's delay (free time) plus the bank above ``reserve``
    spread over the turns still expected, minus a safety margin for the reply
    to travel. The reserve is never planned for: it absorbs hiccups (a busy
    machine, a garbage collection) once the bank has been spent down.

    >>> round(budget_seconds(10.0, 120.0), 3)
    10.78
    >>> round(budget_seconds(0.1, 0.5, reserve=0.5), 3)
    0.01
    >>> budget_seconds(0.01, 0.0)
    0.0
    """
    if bank <= reserve:
        delay_share /= 2  # living on the delay alone: leave it plenty of slack
    spend = delay_share * delay_left + max(0.0, bank - reserve) / max(1, expected_turns) - safety
    return max(0.0, min(spend, delay_left + bank - 2 * safety))


def bank_reserve(initial_bank: float) -> float:
    """The part of the bank a player should keep for emergencies: a quarter, at most 10 s."""
    return min(0.25 * initial_bank, 10.0)


def _opener_state(m: Match, opener: int) -> Match:
    """A copy of an auction position in which ``opener`` is about to open for free."""
    return with_free_opening(m, opener)


class StrongPlayer:
    """The search policy. ``choose`` returns a legal action of ``root.to_act``.

    ``root`` may be the true match: only ``redeal_hidden`` is used to look
    at hidden tiles, so nothing secret leaks into the decision.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        epsilon: float = 0.1,
        jockey_value: float = 8.0,
        win_bonus: float = 60.0,
        bid_margin: float = 3.0,
        default_playouts: int = 400,
    ) -> None:
        self.rng = random.Random(seed)
        self.epsilon = epsilon
        self.jockey_value = jockey_value
        self.win_bonus = win_bonus
        self.bid_margin = bid_margin
        self.default_playouts = default_playouts
        self.last_playouts = 0
        self.model: OpponentModel | None = None

    def watch(self, model: OpponentModel | None) -> None:
        """Use ``model`` (what the opponent's draws revealed) in every determinization."""
        self.model = model

    def determinize(self, root: Match) -> Match:
        """One sample of the hidden tiles, respecting the opponent model if any."""
        player = root.to_act
        model = self.model
        if model is not None and model.player == player and model.round == root.round_number:
            return model.deal(root, self.rng)
        return redeal_hidden(root, player, self.rng)

    # -- playouts ------------------------------------------------------------------

    def playout(self, m: Match, player: int, base: int, round_number: int) -> float:
        """Play ``m`` (consumed) to the end of the round; its value for ``player``."""
        rng = self.rng
        eps = self.epsilon
        while not m.over and m.round_number == round_number:
            legal = m.legal_actions()
            if len(legal) == 1:
                m.apply(legal[0])
            elif rng.random() < eps and m.phase is not Phase.AUCTION:
                m.apply(legal[rng.randrange(len(legal))])
            else:
                m.apply(greedy_action(m, rng))
        value = float(m.balances[player] - base)
        result = m.result
        if result is not None:  # the match ended in this round
            if result.winner == player:
                value += self.win_bonus
            elif result.winner is not None:
                value -= self.win_bonus
        elif m.jockey == player:
            value += self.jockey_value
        elif m.jockey is not None:
            value -= self.jockey_value
        return value

    # -- decisions -------------------------------------------------------------------

    def choose(
        self,
        root: Match,
        limits: SearchLimits | None = None,
        now: Callable[[], float] | None = None,
    ) -> Action:
        legal = root.legal_actions()
        if not legal:
            raise ValueError(f"no legal action {root.where()}")
        if len(legal) == 1:
            self.last_playouts = 0
            return legal[0]
        limits = limits or SearchLimits()
        if limits.seconds is not None and now is not None and limits.seconds < MIN_SEARCH:
            # No time to search: even one determinization could overrun the clock.
            self.last_playouts = 0
            return greedy_action(root, self.rng)
        stop = self._stopper(limits, now)
        if root.phase is Phase.AUCTION:
            return self._auction(root, stop)
        return self._flat_monte_carlo(root, legal, stop)

    def _stopper(
        self, limits: SearchLimits, now: Callable[[], float] | None
    ) -> Callable[[int], bool]:
        cap = limits.playouts
        if limits.seconds is None or now is None:
            cap = cap or self.default_playouts
            return lambda done: done >= cap
        end = now() + limits.seconds

        def stop(done: int) -> bool:
            return (cap is not None and done >= cap) or now() >= end

        return stop

    def _flat_monte_carlo(
        self, root: Match, legal: list[Action], stop: Callable[[int], bool]
    ) -> Action:
        player = root.to_act
        base = root.balances[player]
        rnd = root.round_number
        totals = [0.0] * len(legal)
        done = 0
        sims = 0
        while sims == 0 or not stop(done):
            det = self.determinize(root)
            for i, a in enumerate(legal):
                c = det.copy()
                c.apply(a)
                totals[i] += self.playout(c, player, base, rnd)
            done += len(legal)
            sims += 1
        self.last_playouts = done
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        log.debug(
            "searched %d determinizations: best %s (mean %.1f)",
            sims,
            legal[best],
            totals[best] / sims,
        )
        return legal[best]

    def open_value(self, root: Match, stop: Callable[[int], bool]) -> float:
        """How much more opening this round is worth to the player to act than the
        opponent opening it, by simulation (auction payments left out)."""
        player = root.to_act
        opp = 1 - player
        tiles = list(root.hands[player])
        rnd = root.round_number
        mine = [0.0] * len(tiles)
        theirs = 0.0
        sims = 0
        done = 0
        while sims == 0 or not stop(done):
            det = self.determinize(root)
            base = det.balances[player]
            me_first = _opener_state(det, player)
            for i, t in enumerate(tiles):
                c = me_first.copy()
                c.apply(Open(t))
                mine[i] += self.playout(c, player, base, rnd)
            for _ in range(2):
                theirs += self.playout(_opener_state(det, opp), player, base, rnd)
            done += len(tiles) + 2
            sims += 1
        self.last_playouts = done
        return max(mine) / sims - theirs / (2 * sims)

    def _auction(self, root: Match, stop: Callable[[int], bool]) -> Action:
        me = root.to_act
        opp = 1 - me
        legal = root.legal_actions()
        if (
            root.bid is not None
            and root.bidder == opp
            and root.net_payment(opp, root.bid) >= root.balances[opp]
        ):
            return ACCEPT  # accepting ends the match in our favour (§6.6)
        value = self.open_value(root, stop)
        if root.bid is None:
            amount, gain_if_out = root.min_bid(), 0
        else:
            amount = root.bid + 5
            gain_if_out = root.net_payment(opp, root.bid)
        cost = root.net_payment(me, amount)
        affordable = Bid(amount) in legal and cost < root.balances[me]
        raise_it = affordable and value > cost + gain_if_out + self.bid_margin
        log.debug(
            "auction: opening is worth %.1f; bid %d costs %d, staying out gains %d",
            value,
            amount,
            cost,
            gain_if_out,
        )
        if raise_it:
            return Bid(amount)
        return DECLINE if root.bid is None else ACCEPT
