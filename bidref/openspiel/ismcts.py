"""OpenSpiel's IS-MCTS bot choosing Spectacular Bid moves from what one player sees.

OpenSpiel's information-set Monte Carlo tree search (``ISMCTSBot``) needs, at
every simulation, a full state consistent with what the searching player
knows. That resampling is bidref's: :func:`bidref.rules.match_from_view` deals
the tiles the player cannot see at random, consistently with the
:class:`~bidref.rules.PlayerView`. The search runs to the end of the current
round (later rounds are another deal, and a search horizon must end): a
position's value is the balance it moves from here to the round's end.

An engine program on it: ``sample_engines/openspiel_ismcts/engine.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from bidref.env.actions import ACTIONS
from bidref.rules import Action, MatchConfig, PlayerView, match_from_view

from .game import SHORT_NAME, SpectacularBidState

MIN_SIMULATIONS: Final = 8
MAX_SIMULATIONS: Final = 200_000


def search_state(game: Any, view: PlayerView, rng: random.Random) -> SpectacularBidState:
    """An OpenSpiel state of ``game`` agreeing with ``view``, hidden tiles dealt from ``rng``.

    Its match ends with the current round (the search horizon) and its returns
    count from the view's balances. Its history starts here: the information
    state of the player to act is the same for every such state of one view.
    """
    cfg = MatchConfig(start_balances=view.balances, max_rounds=view.round)
    state: SpectacularBidState = game.new_initial_state()
    state.c.config = cfg
    state.c.match = match_from_view(view, rng, cfg)
    state.c.dealing = None
    return state


class ISMCTSPlayer:
    """Chooses an action for a :class:`PlayerView` with OpenSpiel's ``ISMCTSBot``.

    The number of simulations follows the time given: the player measures what
    one simulation costs and runs as many as fit (at least 8), so that equal
    time per decision means equal time, whatever the machine.
    """

    def __init__(self, seed: int = 0, uct_c: float = 2.0, rollouts: int = 1) -> None:
        self.game = pyspiel.load_game(SHORT_NAME)
        self.rng = random.Random(seed)
        self.np_rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=self.np_rng)
        self.bot = ismcts.ISMCTSBot(
            game=self.game,
            evaluator=evaluator,
            uct_c=uct_c,
            max_simulations=MIN_SIMULATIONS,
            random_state=self.np_rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            # The opponent's nodes are keyed by what the searcher saw happen, and
            # each world gives the opponent another hand: other legal actions.
            allow_inconsistent_action_sets=True,
        )
        self.seconds_per_simulation = 0.002  # a first guess; measured after each search
        self.last_simulations = 0

    def choose(
        self,
        view: PlayerView,
        seconds: float | None = None,
        simulations: int | None = None,
        now: Callable[[], float] | None = None,
    ) -> Action:
        """The search's action for ``view``: ``simulations`` of them, or as many as
        fit in ``seconds`` by the clock ``now`` (e.g. ``time.monotonic``)."""
        legal = list(view.legal_actions)
        if len(legal) == 1:
            return legal[0]
        if simulations is None:
            budget = max(0.0, seconds or 0.0)
            simulations = int(budget / self.seconds_per_simulation)
        n = max(MIN_SIMULATIONS, min(MAX_SIMULATIONS, simulations))
        self.bot._max_simulations = n  # the bot reads it at each search
        self.bot.set_resampler(lambda _state, _player: search_state(self.game, view, self.rng))
        root = search_state(self.game, view, self.rng)
        started = now() if now is not None else None
        action_id = int(self.bot.step(root))
        if now is not None and started is not None:
            spent = now() - started
            self.seconds_per_simulation = 0.5 * self.seconds_per_simulation + 0.5 * spent / n
        self.last_simulations = n
        chosen = ACTIONS[action_id]
        if chosen not in legal:  # never: the search's root is the view's position
            raise AssertionError(f"IS-MCTS chose {chosen}, not one of {legal}")
        return chosen
