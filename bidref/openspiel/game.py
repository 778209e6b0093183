"""Spectacular Bid as an OpenSpiel game, ``python_spectacular_bid`` (docs/env.md).

Every rule is the rules library's (``bidref.rules.Match``); this module only
turns the game's chance into OpenSpiel's explicit chance nodes:

- **the deal** of every round is 14 chance nodes: the first seven outcomes are
  player 0's hand, the next seven player 1's, each uniform over the tiles not
  dealt yet; the 14 tiles left are the boneyard;
- **each draw** is the player's ``draw`` action (a decision), then a chance node
  whose outcome is the tile drawn, uniform over the boneyard.

That is the same distribution as the referee's shuffled deal (RULES.md §2):
the order of an unseen boneyard is the order of its draws. Chance outcomes are
tile indices (``TILES`` order, 0–27); player actions are the fixed enumeration
of :mod:`bidref.env.actions`.

A match could go on for ever (an equal block moves no points), and OpenSpiel
needs a finite ``max_game_length``: the game's parameter ``max_rounds``
(default 10) is the referee's round limit with adjudication by balance
(RULES.md "Decided here"). Returns are each player's balance moved (final minus
starting balance): zero-sum, as in the PettingZoo environment.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Final

import numpy as np
import pyspiel

from bidref.env.actions import ACTIONS, DRAW_ID, NUM_ACTIONS, legal_ids
from bidref.env.errors import EnvOptionError
from bidref.env.observe import SIZE, Reveals, encode
from bidref.rules import (
    TILES,
    Deal,
    Event,
    Match,
    MatchConfig,
    RoundStarted,
    Tile,
    redeal_hidden,
)
from bidref.rules.deal import BONEYARD_SIZE, HAND_SIZE
from bidref.rules.layout import POINTS
from bidref.rules.phase import START_BALANCE, TOTAL_POINTS

SHORT_NAME: Final = "python_spectacular_bid"
DEFAULT_MAX_ROUNDS: Final = 10
# The most decisions one round can hold: an auction of at most 61 rising bids
# (15 … 315) and an accept or decline, the opening, at most 27 more placements
# (28 tiles in all) and at most 14 draws.
DECISIONS_PER_ROUND: Final = 62 + 1 + 27 + BONEYARD_SIZE
CHANCE_PER_ROUND: Final = 2 * HAND_SIZE + BONEYARD_SIZE
_DEALT: Final = 2 * HAND_SIZE
_TILE_NAMES: Final = tuple(str(t) for t in TILES)
_POINT_NAMES: Final = tuple(str(p) for p in POINTS)
_PLACEHOLDER_SEED: Final = 0  # later rounds' deals, thrown away: see _start_dealing

GAME_TYPE: Final = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Spectacular Bid (bidref)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"max_rounds": DEFAULT_MAX_ROUNDS, "first_balance": START_BALANCE},
)


def _config(params: dict[str, Any]) -> MatchConfig:
    rounds = int(params.get("max_rounds", DEFAULT_MAX_ROUNDS))
    first = int(params.get("first_balance", START_BALANCE))
    if rounds < 1:
        raise EnvOptionError(f"max_rounds={rounds}: give at least 1 (the game must end)")
    if not 0 < first < TOTAL_POINTS:
        raise EnvOptionError(
            f"first_balance={first}: give 1 to {TOTAL_POINTS - 1} (player 1 starts with the rest)"
        )
    return MatchConfig(start_balances=(first, TOTAL_POINTS - first), max_rounds=rounds)


class _Deals:
    """The deal source of one round's match: its dealt tiles, then placeholders.

    The rules deal the next round inside ``apply``; the state throws that deal
    away and deals the round by chance (``_after``). A class, not a closure, so
    that a state pickles (OpenSpiel serializes states).
    """

    __slots__ = ("first",)

    def __init__(self, first: Deal) -> None:
        self.first = first

    def __call__(self, round_number: int) -> Deal:
        return self.first if round_number == 1 else Deal.from_seed(_PLACEHOLDER_SEED, round_number)


class _Core:
    """Everything a state holds, in one object that copies itself fast.

    OpenSpiel clones a Python state by deep-copying its attributes; a generic
    deep copy of a ``Match`` walks every tile and point. ``Match.copy`` knows
    what is shared (interned tiles, points, the deal) and what is not.
    """

    __slots__ = (
        "base",
        "config",
        "dealing",
        "draw_pending",
        "last_events",
        "match",
        "recall",
        "reveals",
        "seen",
    )

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.match: Match | None = None  # None until the first deal is complete
        self.dealing: list[Tile] | None = []  # the tiles dealt so far, while dealing
        self.draw_pending = False  # a draw was asked for; chance gives the tile
        self.reveals = Reveals()
        # What each step showed: (owner, what the owner saw, what the other saw);
        # owner -1 for what both saw. The information states are built from it.
        self.seen: list[tuple[int, str, str]] = []
        self.last_events: list[Event] = []
        # The returns when the last decision was taken: rewards() is what moved
        # since, chance steps included (OpenSpiel adds rewards up at decisions only).
        self.base = [0.0, 0.0]
        self.recall: dict[tuple[int, bool, bool], tuple[int, str]] = {}

    def __deepcopy__(self, memo: dict[int, object]) -> _Core:
        new = _Core(self.config)
        new.match = None if self.match is None else self.match.copy()
        new.dealing = None if self.dealing is None else self.dealing.copy()
        new.draw_pending = self.draw_pending
        new.reveals = self.reveals.copy()
        new.seen = self.seen.copy()
        new.last_events = self.last_events.copy()
        new.base = self.base.copy()
        new.recall = self.recall.copy()
        return new


class SpectacularBidGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no types
    """The game; ``pyspiel.load_game("python_spectacular_bid(max_rounds=3)")``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.config = _config(params or {})
        rounds = self.config.max_rounds or DEFAULT_MAX_ROUNDS
        worst = max(self.config.start_balances)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=len(TILES),
            num_players=2,
            min_utility=-float(worst),
            max_utility=float(worst),
            utility_sum=0.0,
            max_game_length=DECISIONS_PER_ROUND * rounds,
        )
        super().__init__(GAME_TYPE, info, params or {})

    def new_initial_state(self) -> SpectacularBidState:
        return SpectacularBidState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Observer:
        if params:
            raise EnvOptionError(f"observer parameters are not supported; got {params}")
        return Observer(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class SpectacularBidState(pyspiel.State):  # type: ignore[misc]
    """A position: a ``Match`` of the rules, or a deal or draw in progress."""

    def __init__(self, game: SpectacularBidGame) -> None:
        super().__init__(game)
        self.c = _Core(game.config)

    @property
    def match(self) -> Match | None:
        """The rules' match (None until the first deal is complete)."""
        return self.c.match

    @property
    def last_events(self) -> list[Event]:
        """The rules' events of the last step (a new round's start once it is dealt)."""
        return self.c.last_events

    # -- whose turn ----------------------------------------------------------------

    def current_player(self) -> int:
        m = self.match
        if self.c.dealing is not None or self.c.draw_pending:
            return int(pyspiel.PlayerId.CHANCE)
        assert m is not None
        if m.over:
            return int(pyspiel.PlayerId.TERMINAL)
        return m.to_act

    def is_terminal(self) -> bool:
        return self.c.dealing is None and self.match is not None and self.match.over

    def _legal_actions(self, player: int) -> list[int]:
        m = self.match
        assert m is not None
        return legal_ids(m.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        tiles = self._chance_tiles()
        p = 1.0 / len(tiles)
        return [(t.index, p) for t in tiles]

    def _chance_tiles(self) -> list[Tile]:
        if self.c.dealing is not None:
            dealt = set(self.c.dealing)
            return [t for t in TILES if t not in dealt]
        assert self.match is not None
        return sorted(self.match.boneyard, key=lambda t: t.index)

    # -- moves -------------------------------------------------------------------------

    def _apply_action(self, action: int) -> None:
        if not self.is_chance_node():
            self.c.base = self.returns()
        self._step(action)

    def _step(self, action: int) -> None:
        if self.c.dealing is not None:
            self._deal(TILES[action])
            return
        m = self.match
        assert m is not None
        if self.c.draw_pending:
            t = TILES[action]
            m.arrange_next_draw(t)
            self.c.draw_pending = False
            player = m.to_act
            self.c.seen.append((player, f"{player}:drew {t}", f"{player}:drew"))
            self._after(m.apply(ACTIONS[DRAW_ID]))
            return
        player = m.to_act
        self.c.seen.append((-1, f"{player}:{ACTIONS[action]}", ""))
        if action == DRAW_ID:
            self.c.draw_pending = True  # the tile is chance's
            return
        self._after(m.apply(ACTIONS[action]))

    def _deal(self, t: Tile) -> None:
        dealing = self.c.dealing
        assert dealing is not None
        to = 0 if len(dealing) < HAND_SIZE else 1
        dealing.append(t)
        self.c.seen.append((to, f"{to}:dealt {t}", f"{to}:dealt"))
        if len(dealing) < _DEALT:
            return
        rest = tuple(x for x in TILES if x not in set(dealing))
        deal = Deal((tuple(dealing[:HAND_SIZE]), tuple(dealing[HAND_SIZE:])), rest)
        self.c.dealing = None
        old = self.match
        if old is None:
            new = Match(_Deals(deal), self.c.config)
        else:
            # The old match dealt its next round from a placeholder (the rules deal
            # inside apply); the round restarts from the dealt tiles, with the
            # balances, jockey and round number the rules gave the old one.
            cfg = replace(self.c.config, start_balances=(old.balances[0], old.balances[1]))
            new = Match(_Deals(deal), replace(cfg, first_jockey=old.jockey))
            new.round_number = old.round_number
            new.turn = old.turn
            started = new.start_events[0]
            assert isinstance(started, RoundStarted)
            started.round = old.round_number
        self.c.match = new
        self._after(list(new.start_events), dealt=True)

    def _after(self, events: list[Event], dealt: bool = False) -> None:
        m = self.match
        assert m is not None
        if not dealt:
            for i, e in enumerate(events):
                if type(e) is RoundStarted:
                    # A new round, dealt by the rules from the placeholder: hide it
                    # and deal it by chance instead.
                    events = events[:i]
                    self.c.dealing = []
                    break
        self.c.last_events = events
        self.c.reveals.update(m, events)

    # -- results ----------------------------------------------------------------------

    def returns(self) -> list[float]:
        m = self.match
        if m is None:
            return [0.0, 0.0]
        start = self.c.config.start_balances
        return [float(m.balances[0] - start[0]), float(m.balances[1] - start[1])]

    def rewards(self) -> list[float]:
        """The points moved since the last decision (its share of :meth:`returns`)."""
        now = self.returns()
        return [now[0] - self.c.base[0], now[1] - self.c.base[1]]

    def resample_from_infostate(self, player: int, sampler: Any = None) -> SpectacularBidState:
        """A state ``player`` cannot tell from this one: the tiles hidden from them
        (the opponent's hand, the boneyard) dealt again by bidref
        (:func:`bidref.rules.redeal_hidden`), uniformly; for OpenSpiel's IS-MCTS.

        ``sampler`` (OpenSpiel's, a callable giving a float in [0, 1)) seeds the
        deal; without it the deal is random. The player's information state, own
        hand and every public fact stay; the opponent's hand keeps its size.
        """
        m = self.match
        if m is None or self.c.dealing is not None or self.c.draw_pending:
            raise EnvOptionError(
                "resample_from_infostate needs a decision node, not a deal or draw in progress"
            )
        seed = int(sampler() * 2**52) if callable(sampler) else random.getrandbits(52)
        new: SpectacularBidState = self.clone()
        redealt = redeal_hidden(m, player, random.Random(seed))
        redealt.deals = m.deals  # later rounds stay chance's (a placeholder here)
        new.c.match = redealt
        return new

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"{'deal' if self.c.dealing is not None else 'draw'} {TILES[action]}"
        return str(ACTIONS[action])

    def __str__(self) -> str:
        m = self.match
        if self.c.dealing is not None:
            return "dealing: " + " ".join(str(t) for t in self.c.dealing)
        assert m is not None
        # OpenSpiel's tests print every state they visit: names from tables.
        hands = " | ".join(" ".join([_TILE_NAMES[t.index] for t in h]) for h in m.hands)
        bone = " ".join([_TILE_NAMES[t.index] for t in reversed(m.boneyard)])
        placed = " ".join([_TILE_NAMES[t.index] for t in m.layout.placed])
        ends = " ".join([_POINT_NAMES[p.index] for p in m.layout.open_points])
        return (
            f"round {m.round_number} {m.phase.value} balances {m.balances[0]}-{m.balances[1]}"
            f"\nhands {hands}\nboneyard {bone}\nplaced {placed}\nends {ends}"
        )


class Observer:
    """OpenSpiel's observer protocol: the observation vector of bidref.env and strings.

    The tensor is :func:`bidref.env.observe.encode` (docs/env.md), with the own
    hand zeroed when the observation type has no private information and the
    rest zeroed when it has no public information; it is the same for the
    information state (it sums up the round's public facts, not every earlier
    move). The perfect-recall string lists everything the player saw, in order.
    """

    def __init__(self, iig_obs_type: Any) -> None:
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = bool(iig_obs_type.public_info)
        self.recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: SpectacularBidState, player: int) -> None:
        self.tensor.fill(0)
        m = state.match
        if m is not None and state.c.dealing is None:
            self.tensor[:] = encode(m, player, state.c.reveals)
        elif state.c.dealing:
            mine = state.c.dealing[:HAND_SIZE] if player == 0 else state.c.dealing[HAND_SIZE:]
            for t in mine:
                self.tensor[t.index] = 1
        if not self.private:
            self.tensor[: len(TILES)] = 0
        if not self.public:
            self.tensor[len(TILES) :] = 0

    def string_from(self, state: SpectacularBidState, player: int) -> str:
        if self.recall:
            return self._recall(state, player)
        return self._now(state, player)

    def _recall(self, state: SpectacularBidState, player: int) -> str:
        # Extended from the last call's string (kept in the state): search asks
        # for the information state at every node of a long history.
        key = (player, self.private, self.public)
        seen = state.c.seen
        done, text = state.c.recall.get(key, (0, f"p{player}"))
        parts = [text]
        for owner, own, other in seen[done:]:
            if owner == -1:
                shown = own if self.public else ""
            elif owner == player:
                shown = own if self.private else (other if self.public else "")
            else:
                shown = other if self.public else ""
            if shown:
                parts.append(shown)
        text = " ".join(parts)
        state.c.recall[key] = (len(seen), text)
        return text

    def _now(self, state: SpectacularBidState, player: int) -> str:
        m = state.match
        parts = [f"p{player}"]
        if self.private:
            if state.c.dealing is not None:
                mine = state.c.dealing[:HAND_SIZE] if player == 0 else state.c.dealing[HAND_SIZE:]
            else:
                assert m is not None
                mine = list(m.hands[player])
            parts.append("hand " + (" ".join(str(t) for t in mine) or "-"))
        if self.public:
            if m is None or state.c.dealing is not None:
                parts.append("dealing")
            else:
                ends = " ".join(str(p) for p in m.layout.open_points)
                parts.append(
                    f"round {m.round_number} {m.phase.value} balances "
                    f"{m.balances[0]}-{m.balances[1]} bid {m.bid} ends {ends} "
                    f"boneyard {len(m.boneyard)} hands {len(m.hands[0])}/{len(m.hands[1])}"
                )
        return " ".join(parts)
