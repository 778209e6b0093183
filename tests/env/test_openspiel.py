"""The OpenSpiel game passes OpenSpiel's own tests and replays its committed playthrough."""

from __future__ import annotations

import importlib
import pickle
import random
import unittest

import pyspiel
import pytest
from absl import flags
from open_spiel.python.algorithms import generate_playthrough

from bidref.env.actions import ACTIONS, DRAW_ID, action_id
from bidref.env.errors import EnvOptionError
from bidref.openspiel import SHORT_NAME
from bidref.openspiel.game import DECISIONS_PER_ROUND
from bidref.rules import DRAW, Match, MatchConfig

from .make_playthrough import PATH, make

if not flags.FLAGS.is_parsed():  # OpenSpiel's test helpers read absl flags
    flags.FLAGS.mark_as_parsed()


def test_random_sim_test_500_games() -> None:
    # 500 one-round games: in the default ten-round game OpenSpiel's per-step
    # checks cost ~50 ms a game (below, 50 of those, serialized, with later
    # rounds dealt by chance; tests/env/test_three_faces.py has 1,000 more).
    game = pyspiel.load_game(f"{SHORT_NAME}(max_rounds=1)")
    pyspiel.random_sim_test(game, num_sims=500, serialize=False, verbose=False)


def test_random_sim_test_default_game() -> None:
    game = pyspiel.load_game(SHORT_NAME)
    pyspiel.random_sim_test(game, num_sims=50, serialize=True, verbose=False)


def test_openspiel_api_test_from_the_wheel() -> None:
    """The wheel's integration API test (the partial-tree one it runs on every game)."""
    api = importlib.import_module("open_spiel.integration_tests.api_test")
    case = type(
        "SpectacularBidAPI",
        (api.EnforceAPIOnPartialTreeBase,),
        {"game_name": SHORT_NAME, "game": pyspiel.load_game(SHORT_NAME)},
    )
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    assert suite.countTestCases() >= 5
    result = unittest.TextTestRunner(verbosity=0).run(suite)
    assert result.wasSuccessful(), result.failures + result.errors


def test_committed_playthrough_replays() -> None:
    expected, actual = generate_playthrough.replay(str(PATH))
    assert actual == expected
    assert make() == expected  # the file is what make_playthrough.py writes


def test_chance_is_explicit_deal_and_draws() -> None:
    game = pyspiel.load_game(SHORT_NAME)
    s = game.new_initial_state()
    for n in range(14):
        assert s.is_chance_node()
        outcomes = s.chance_outcomes()
        assert len(outcomes) == 28 - n
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        s.apply_action(outcomes[0][0])
    assert not s.is_chance_node()
    # Play until a draw: then the tile drawn is chance's, uniform over the boneyard.
    rng = random.Random(1)
    while DRAW_ID not in s.legal_actions():
        s.apply_action(rng.choice(s.legal_actions()))
        while s.is_chance_node():  # a later round's deal
            s.apply_action(rng.choice(s.chance_outcomes())[0])
    m = s.match
    assert m is not None
    boneyard = sorted(t.index for t in m.boneyard)
    s.apply_action(DRAW_ID)
    assert s.is_chance_node()
    assert [a for a, _ in s.chance_outcomes()] == boneyard
    drawn = boneyard[-1]
    player = m.to_act
    s.apply_action(drawn)
    assert s.match is not None and any(t.index == drawn for t in s.match.hands[player])


def test_max_game_length_bounds_the_longest_auction_round() -> None:
    # The longest possible round: a bidding war from 15 to the jockey's 315 limit.
    m = Match.new(3, MatchConfig(start_balances=(299, 1), first_jockey=0))
    n = 0
    while not m.over and n < 1000:
        legal = m.legal_actions()
        bids = [a for a in legal if str(a).startswith("bid")]
        m.apply(bids[0] if bids else legal[0])
        n += 1
        if m.phase.value != "auction":
            break
    assert n <= 62 <= DECISIONS_PER_ROUND - 1 - 27 - 14


def test_information_state_hides_the_opponents_tiles() -> None:
    game = pyspiel.load_game(SHORT_NAME)
    s = game.new_initial_state()
    for _ in range(14):
        s.apply_action(s.chance_outcomes()[0][0])
    m = s.match
    assert m is not None
    info0, info1 = s.information_state_string(0), s.information_state_string(1)
    for t in m.hands[1]:
        assert f"dealt {t}" in info1 and f"dealt {t}" not in info0
    assert s.observation_string(0) != s.observation_string(1)


def test_a_state_pickles_and_clones_independently() -> None:
    game = pyspiel.load_game(SHORT_NAME)
    s = game.new_initial_state()
    for _ in range(14):
        s.apply_action(s.chance_outcomes()[0][0])
    c = s.clone()
    c.apply_action(c.legal_actions()[0])
    assert s.match is not None and s.match.round_actions == 0
    back = pickle.loads(pickle.dumps(s))
    assert back.history() == s.history()
    assert [ACTIONS[a] for a in s.legal_actions()] == s.match.legal_actions()
    assert action_id(DRAW) == DRAW_ID


def test_bad_parameters_say_the_fix() -> None:
    with pytest.raises(EnvOptionError, match="max_rounds=0"):
        pyspiel.load_game(f"{SHORT_NAME}(max_rounds=0)")
    with pytest.raises(EnvOptionError, match="first_balance=300"):
        pyspiel.load_game(f"{SHORT_NAME}(first_balance=300)")


def _mid_game(seed: int) -> pyspiel.State:
    game = pyspiel.load_game(SHORT_NAME)
    s = game.new_initial_state()
    rng = random.Random(seed)
    for _ in range(40):
        if s.is_terminal():
            break
        if s.is_chance_node():
            s.apply_action(rng.choice(s.chance_outcomes())[0])
        else:
            s.apply_action(rng.choice(s.legal_actions()))
    while s.is_chance_node():
        s.apply_action(rng.choice(s.chance_outcomes())[0])
    return s


def test_resampling_keeps_what_the_player_knows_and_deals_the_rest_again() -> None:
    s = _mid_game(3)
    p = s.current_player()
    m = s.match
    assert m is not None
    others = set()
    for _ in range(20):
        r = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        rm = r.match
        assert r.information_state_string(p) == s.information_state_string(p)
        assert rm.hands[p] == m.hands[p] and rm.layout.placed == m.layout.placed
        assert len(rm.hands[1 - p]) == len(m.hands[1 - p]) and rm.balances == m.balances
        assert r.legal_actions() == s.legal_actions()
        others.add(tuple(rm.hands[1 - p]))
    assert len(others) > 1  # the opponent's hand is dealt again
    assert s.match is m and s.match.hands == m.hands  # the original is untouched


def test_openspiel_ismcts_bot_plays_from_the_full_game_state() -> None:
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    s = _mid_game(5)
    game = s.get_game()
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(
        game=game,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs),
        uct_c=2.0,
        max_simulations=30,
        random_state=rs,
        allow_inconsistent_action_sets=True,
    )
    assert bot.step(s) in s.legal_actions()
