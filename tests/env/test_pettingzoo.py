"""The PettingZoo environment passes PettingZoo's own tests, and means what docs/env.md says."""

from __future__ import annotations

import importlib
import io
import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.wrappers import BaseWrapper

from bidref.env import EnvOptionError, env, raw_env
from bidref.env.actions import (
    ACTIONS,
    FIRST_BID,
    FIRST_OPEN,
    FIRST_PLAY,
    NUM_ACTIONS,
    action_id,
    action_of,
)
from bidref.env.errors import UnknownActionError
from bidref.env.observe import OFFSET
from bidref.rules import DRAW, Bid, IllegalActionError, Match, MatchConfig

# The module, not the function pettingzoo.test exports under the same name.
bombardment = importlib.import_module("pettingzoo.test.bombardment_test")


def test_api_test() -> None:
    api_test(env(), num_cycles=1000, verbose_progress=False)


def test_seed_test() -> None:
    seed_test(env, num_cycles=1000)


def test_render_test() -> None:
    # human mode writes to its stream: a buffer here, not the test's output.
    render_test(lambda render_mode: env(render_mode=render_mode, stream=io.StringIO()))


class _StepReturnsObservation(BaseWrapper):  # type: ignore[type-arg]
    """``step`` returns the next observation, as PettingZoo's old API did.

    PettingZoo 1.27's bombardment test still reads the observation from what
    ``step`` returns (``next_observe = env.step(action)``); an AEC ``step``
    returns nothing since PettingZoo 1.0. This adapter gives it the old return
    (the observation of the agent to act next) and changes nothing else.
    """

    def step(self, action: Any) -> Any:
        agent = self.agent_selection
        super().step(action)
        return self.observe(self.agent_selection if self.agents else agent)


def test_bombardment_test(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its observation checker is also handed the first observation whole; with the
    # dict observation PettingZoo documents for action masks it fails on
    # ``dict.shape`` inside PettingZoo. It gets that observation's array instead;
    # every check of the test (observation in its space, mask, numbers) runs as shipped.
    shipped = bombardment.test_observation

    def checker(observation: Any, observation_0: Any, env_name: str | None = None) -> None:
        if isinstance(observation_0, dict):
            observation_0 = observation_0["observation"]
        shipped(observation, observation_0, env_name)

    monkeypatch.setattr(bombardment, "test_observation", checker)
    bombardment.bombardment_test(_StepReturnsObservation(env()), cycles=1000)


def test_the_enumeration_is_fixed_and_complete() -> None:
    assert NUM_ACTIONS == len(ACTIONS) == 512
    assert [str(a) for a in ACTIONS[:3]] == ["decline", "accept", "draw"]
    assert str(ACTIONS[FIRST_OPEN]) == "open 0-0"
    assert str(ACTIONS[FIRST_BID]) == "bid 15" and str(ACTIONS[FIRST_PLAY - 1]) == "bid 315"
    assert str(ACTIONS[FIRST_PLAY]) == "play 0-0 0-1:low"
    assert action_id(Bid(20)) == FIRST_BID + 1
    # Every legal action of many random positions has an id, and ids round-trip.
    rng = random.Random(3)
    for seed in range(30):
        m = Match.new(seed, MatchConfig(max_rounds=3))
        while not m.over:
            legal = m.legal_actions()
            assert [ACTIONS[action_id(a)] for a in legal] == legal
            m.apply(rng.choice(legal))
    with pytest.raises(UnknownActionError, match="out of range"):
        action_of(NUM_ACTIONS)


def test_mask_is_the_rules_legal_actions_and_an_illegal_id_changes_nothing() -> None:
    e = raw_env()
    e.reset(seed=11)
    m = e.match
    assert m is not None
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    assert mask.dtype == np.int8
    assert sorted(np.flatnonzero(mask)) == sorted(action_id(a) for a in m.legal_actions())
    other = "player_1" if agent == "player_0" else "player_0"
    assert not e.observe(other)["action_mask"].any()
    illegal = next(i for i in range(NUM_ACTIONS) if not mask[i])
    e._cumulative_rewards[agent] = 5  # as if the agent had been paid since its last step
    before = e.observe(agent)["observation"].copy()
    with pytest.raises(IllegalActionError):
        e.step(illegal)
    assert (e.observe(agent)["observation"] == before).all()
    assert e._cumulative_rewards[agent] == 5 and e.agent_selection == agent
    with pytest.raises(UnknownActionError, match="out of range"):
        e.step(NUM_ACTIONS)


def test_rewards_are_zero_sum_and_add_up_to_the_balance_moved() -> None:
    e = raw_env(max_rounds=4)
    e.reset(seed=5)
    totals = {"player_0": 0, "player_1": 0}
    rng = random.Random(5)
    for agent in e.agent_iter(5000):
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        e.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        assert sum(e.rewards.values()) == 0
    m = e.match
    assert m is not None and m.over
    assert totals == {"player_0": m.balances[0] - 150, "player_1": m.balances[1] - 150}
    assert totals["player_0"] != 0  # four rounds of random play move points


def test_the_seed_is_the_only_source_of_the_deal() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=99)
    b.reset(seed=99)
    assert a.match is not None and b.match is not None
    assert a.match.deal == b.match.deal == Match.new(99).deal
    b.reset(seed=100)
    assert b.match is not None and b.match.deal != a.match.deal


def test_observation_shows_own_hand_and_not_the_opponents() -> None:
    e = raw_env()
    e.reset(seed=2)
    m = e.match
    assert m is not None
    for p, agent in enumerate(("player_0", "player_1")):
        v = e.observe(agent)["observation"]
        hand = np.flatnonzero(v[OFFSET["own_hand"] : OFFSET["own_hand"] + 28]).tolist()
        assert hand == [t.index for t in m.hands[p]]
        assert v[OFFSET["balances"]] == 150 and v[OFFSET["opponent_hand_size"]] == 7


def test_an_opponents_draw_reveals_the_values_it_lacks() -> None:
    e = raw_env(max_rounds=1)
    rng = random.Random(0)
    for seed in range(200):
        e.reset(seed=seed)
        m = e.match
        assert m is not None
        while not m.over:
            drawer = m.to_act
            legal = m.legal_actions()
            if legal == [DRAW]:
                open_values = {p.value for p in m.layout.open_points}
                e.step(action_id(DRAW))
                if m.over or m.round_number > 1:
                    break
                v = e.observe(("player_0", "player_1")[1 - drawer])["observation"]
                void = np.flatnonzero(v[OFFSET["opponent_void"] : OFFSET["opponent_void"] + 7])
                assert set(void.tolist()) == open_values
                assert v[OFFSET["opponent_draws"]] >= 1
                return
            e.step(action_id(rng.choice(legal)))
    pytest.fail("no draw in 200 seeded matches")


def test_round_limit_truncates_and_balance_terminates() -> None:
    e = raw_env(max_rounds=1)
    e.reset(seed=1)
    rng = random.Random(1)
    for _agent in e.agent_iter(2000):
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            result = info["result"]
            assert trunc == (result.reason == "round_limit") and term != trunc
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert e.agents == []


def test_options_and_their_errors() -> None:
    e = raw_env()
    e.reset(seed=1, options={"start_balances": (100, 200), "max_rounds": 2})
    assert e.match is not None and e.match.balances == [100, 200]
    with pytest.raises(EnvOptionError, match=r"add.*up to 300"):
        e.reset(seed=1, options={"start_balances": (100, 100)})
    with pytest.raises(EnvOptionError, match="max_rounds=0"):
        raw_env(max_rounds=0)
    with pytest.raises(EnvOptionError, match="render_mode='rgb_array'"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(EnvOptionError, match="call reset"):
        raw_env().observe("player_0")


def test_ansi_render_shows_the_layout_as_text() -> None:
    e = raw_env(render_mode="ansi")
    e.reset(seed=4)
    text = e.render()
    assert isinstance(text, str) and text.startswith("Round 1, opening")
    assert "Layout: empty" in text
    m = e.match
    assert m is not None
    e.step(action_id(m.legal_actions()[0]))
    assert "opens" in str(e.render())


def test_human_render_writes_each_step_to_its_stream() -> None:
    buf = io.StringIO()
    e = raw_env(render_mode="human", stream=buf)
    e.reset(seed=4)
    m = e.match
    assert m is not None
    assert e.render() is None and buf.getvalue().startswith("Round 1, opening")
    e.step(action_id(m.legal_actions()[0]))
    assert buf.getvalue().count("Round 1,") == 2  # step renders too, as PettingZoo expects
