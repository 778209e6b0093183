"""Spectacular Bid as a PettingZoo AEC environment (docs/env.md).

The environment is the game and nothing else: every rule is the rules
library's (``bidref.rules.Match``), the deal comes only from ``reset(seed=...)``,
and there is no clock (a match clock is the referee's, not the game's: an agent
trained here meets the clock only when it plays a match through the SDK).

Agents are ``player_0`` and ``player_1`` (the rules' players 0 and 1); the
agent to act is the rules' ``to_act``, so turns do not simply alternate (a
raise passes the turn, a draw does not). Forced passes are performed by the
rules and never asked of an agent.

Rewards are zero-sum: after each step, each agent's reward is the change of its
balance that the step caused (a count, an auction payment, a block's payout,
in points; RULES.md §1). The sum of an agent's rewards over a match is its
final balance minus its starting balance.
"""

from __future__ import annotations

import random
import sys
import warnings
from dataclasses import dataclass
from typing import IO, Any, Final, cast

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from bidref.rules import Match, MatchConfig, RulesError, describe_layout

from .actions import ACTIONS, NUM_ACTIONS, action_of, legal_ids
from .errors import EnvOptionError
from .observe import HIGH, SIZE, Reveals, encode

AGENTS: Final = ("player_0", "player_1")
DEFAULT_MAX_ROUNDS: Final = 10


@dataclass(slots=True)
class Episode:
    """One match from reset() on: the rules' state, what draws revealed, and the
    events of the last step (kept together: a reset replaces all three)."""

    match: Match
    reveals: Reveals
    last_events: list[Any]


class SpectacularBidEnv(AECEnv, EzPickle):  # type: ignore[misc]  # PettingZoo has no types
    """The AEC environment. Build it with :func:`env` (wrapped) or :func:`raw_env`."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "render_modes": ["human", "ansi"],
        "name": "spectacular_bid_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        max_rounds: int | None = DEFAULT_MAX_ROUNDS,
        start_balances: tuple[int, int] = (150, 150),
        stream: IO[str] | None = None,
    ) -> None:
        EzPickle.__init__(self, render_mode, max_rounds, start_balances)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvOptionError(f"render_mode={render_mode!r}: give None, 'human' or 'ansi'")
        self.render_mode = render_mode
        self._stream = stream
        self._config = _config(max_rounds, start_balances)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0, high=HIGH, shape=(SIZE,), dtype=np.int16),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self.episode: Episode | None = None  # the match being played, from reset()

    # -- spaces -----------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- episode ------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new match. ``seed`` is the only source of its deals (no seed: a
        random one); ``options`` may set ``max_rounds`` and ``start_balances``
        for this match and later ones."""
        if options:
            unknown = set(options) - {"max_rounds", "start_balances"}
            if unknown:
                # Not an error: PettingZoo's api_test passes an option no
                # environment knows, and expects a reset all the same.
                warnings.warn(
                    f"reset ignores the option(s) {sorted(unknown)}: it knows max_rounds "
                    "and start_balances",
                    stacklevel=2,
                )
            self._config = _config(
                options.get("max_rounds", self._config.max_rounds),
                options.get("start_balances", self._config.start_balances),
            )
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        match = Match.new(seed, self._config)
        self.episode = Episode(match, Reveals(), list(match.start_events))
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[match.to_act]

    def observe(self, agent: str) -> dict[str, npt.NDArray[np.int16 | np.int8]]:
        m = self._require_match()
        player = AGENTS.index(agent)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if not m.over and m.to_act == player:
            mask[legal_ids(m.legal_actions())] = 1
        return {"observation": encode(m, player, self.reveals), "action_mask": mask}

    def step(self, action: int | None) -> None:
        m = self._require_match()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise EnvOptionError(
                f"{agent} is to act and gave no action: give an id whose action_mask is 1"
            )
        chosen = action_of(action)
        player = AGENTS.index(agent)
        before = list(m.balances)
        events = m.apply(chosen, player)  # an illegal id raises and changes nothing
        self._cumulative_rewards[agent] = 0
        episode = self.episode
        assert episode is not None
        episode.last_events = events
        episode.reveals.update(m, events)
        for p, a in enumerate(AGENTS):
            self.rewards[a] = m.balances[p] - before[p]
        if m.over:
            limit = m.result is not None and m.result.reason == "round_limit"
            for a in AGENTS:
                self.terminations[a] = not limit
                self.truncations[a] = limit
                self.infos[a] = {"result": m.result}
        else:
            self.agent_selection = AGENTS[m.to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # -- rendering ------------------------------------------------------------------

    def render(self) -> str | None:
        """``ansi``: the position as text (returned); ``human``: the same, written
        to the stream given at construction (standard output by default)."""
        if self.render_mode is None:
            return None
        text = self._text()
        if self.render_mode == "ansi":
            return text
        (self._stream or sys.stdout).write(text + "\n")
        return None

    def _text(self) -> str:
        m = self.match
        if m is None:
            return "Spectacular Bid: no match yet (call reset)"
        head = (
            f"Round {m.round_number}, {m.phase.value}; balances "
            f"{m.balances[0]}-{m.balances[1]}; boneyard {len(m.boneyard)}"
        )
        if m.over:
            head += f"; over: {m.result.reason if m.result else ''}"
        else:
            head += f"; {AGENTS[m.to_act]} to act"
        hands = [
            f"{a}: " + " ".join(f"[{t.low}|{t.high}]" for t in m.hands[p])
            for p, a in enumerate(AGENTS)
        ]
        if m.bid is not None:
            head += f"; standing bid {m.bid} by {AGENTS[m.bidder or 0]}"
        return "\n".join([head, describe_layout(m.layout), *hands])

    def close(self) -> None:
        pass

    @property
    def match(self) -> Match | None:
        """The match being played (None before the first reset)."""
        return None if self.episode is None else self.episode.match

    @property
    def reveals(self) -> Reveals:
        """What the opponents' draws revealed so far (the observation's last part)."""
        return Reveals() if self.episode is None else self.episode.reveals

    @property
    def last_events(self) -> list[Any]:
        """The events of the last step (or of the deal, after a reset)."""
        return [] if self.episode is None else self.episode.last_events

    def _require_match(self) -> Match:
        if self.match is None:
            raise EnvOptionError("the environment has no match yet: call reset(seed=...) first")
        return self.match


def _config(max_rounds: object, start_balances: object) -> MatchConfig:
    if max_rounds is not None and (type(max_rounds) is not int or max_rounds < 1):
        raise EnvOptionError(f"max_rounds={max_rounds!r}: give a whole number >= 1, or None")
    try:
        a, b = cast(tuple[object, object], start_balances)
        return MatchConfig(start_balances=(int(a), int(b)), max_rounds=max_rounds)  # type: ignore[call-overload]
    except (TypeError, ValueError, RulesError) as e:
        raise EnvOptionError(
            f"start_balances={start_balances!r:.40}: give two positive whole numbers adding "
            f"up to 300 ({e})"
        ) from None


def raw_env(**kwargs: Any) -> SpectacularBidEnv:
    """The environment itself (what :func:`env` returns)."""
    return SpectacularBidEnv(**kwargs)


def env(**kwargs: Any) -> SpectacularBidEnv:
    """The environment, without PettingZoo's usual wrappers.

    Their checks are the environment's own (an action id out of range raises
    :class:`~bidref.env.errors.UnknownActionError`, an illegal one the rules'
    ``IllegalActionError``, a call before ``reset`` :class:`EnvOptionError`),
    and they would halve the steps per second (every attribute read goes
    through their ``__getattr__``; benchmarks/env_speed.py). Wrap it yourself
    if you want them: ``pettingzoo.utils.wrappers.OrderEnforcingWrapper(env())``.
    """
    return SpectacularBidEnv(**kwargs)


aec_env = env

__all__ = ["ACTIONS", "AGENTS", "EnvOptionError", "SpectacularBidEnv", "aec_env", "env", "raw_env"]
