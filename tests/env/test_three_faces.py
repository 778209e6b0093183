"""One game, three faces: bidref.rules, the PettingZoo environment and the OpenSpiel game.

Seeded random games are played through all three at once; at every step the
three must find the same actions legal, report the same events and hold the
same balances, and the player to act gets the same observation vector from the
environment and from the OpenSpiel game. The OpenSpiel game's chance nodes are
given the outcomes the rules' seeded deal made (each hand's tiles, then each
draw's tile): the one place the faces differ is who rolls the dice.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

import bidref.openspiel  # noqa: F401  (registers the game)
from bidref.env import raw_env
from bidref.env.actions import ACTIONS, DRAW_ID, action_id
from bidref.rules import Event, Match, MatchConfig, RoundStarted

GAMES = 1000
MAX_ROUNDS = 3


def _norm(events: list[Event]) -> list[dict[str, Any]]:
    # A round's deal is compared by its hands: the OpenSpiel game keeps the
    # boneyard unordered (each draw is a chance node), the rules in draw order.
    out = []
    for e in events:
        if type(e) is RoundStarted:
            out.append({**e.public(), "hands": e.deal.hands})
        else:
            out.append(e.to_dict())
    return out


def _deal_by_chance(state: Any, m: Match) -> list[Event]:
    """Give the OpenSpiel state's deal the rules' tiles; its events after the deal."""
    for t in m.deal.hands[0] + m.deal.hands[1]:
        assert state.is_chance_node()
        state.apply_action(t.index)
    return list(state.last_events)


def play_three_faces(seed: int, game: Any, rng: random.Random) -> int:
    """Play one game through the three faces; return the number of steps."""
    m = Match.new(seed, MatchConfig(max_rounds=MAX_ROUNDS))
    env = raw_env(max_rounds=MAX_ROUNDS)
    env.reset(seed=seed)
    state = game.new_initial_state()
    os_events = _deal_by_chance(state, m)
    assert _norm(os_events) == _norm(m.start_events) == _norm(env.last_events)
    steps = 0
    while not m.over:
        legal = m.legal_actions()
        p = m.to_act
        obs = env.observe(env.agent_selection)
        mask = obs["action_mask"]
        assert np.array_equal(np.asarray(state.observation_tensor(p)), obs["observation"])
        assert env.agent_selection == f"player_{p}" and state.current_player() == p
        assert [ACTIONS[i] for i in np.flatnonzero(mask)] == legal
        assert [ACTIONS[i] for i in state.legal_actions()] == legal
        action = rng.choice(legal)
        a = action_id(action)
        if a == DRAW_ID:
            drawn = m.boneyard[-1]  # the rules' next tile: chance's outcome
        events = m.apply(action)
        env.step(a)
        state.apply_action(a)
        if a == DRAW_ID:
            assert state.is_chance_node()
            state.apply_action(drawn.index)
        os_events = list(state.last_events)
        if state.is_chance_node():  # a new round: its deal is chance's
            os_events += _deal_by_chance(state, m)
        assert _norm(events) == _norm(env.last_events) == _norm(os_events)
        assert m.balances == env.match.balances  # type: ignore[union-attr]
        assert state.match is not None and state.match.balances == m.balances
        assert state.returns() == [m.balances[0] - 150.0, m.balances[1] - 150.0]
        steps += 1
    assert state.is_terminal() and env.match is not None and env.match.over
    assert env.terminations["player_0"] or env.truncations["player_0"]
    return steps


def test_three_faces_agree_on_seeded_random_games() -> None:
    game = pyspiel.load_game(f"python_spectacular_bid(max_rounds={MAX_ROUNDS})")
    rng = random.Random(2026)
    steps = sum(play_three_faces(seed, game, rng) for seed in range(GAMES))
    assert steps > GAMES * 20  # real games, not a loop that ends at once
