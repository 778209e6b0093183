"""The positions ``check-engine`` asks an engine to decide, and how an answer is judged.

The positions come from seeded matches (:func:`find_position`), so the check
is the same on every run.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Final

from bidref.rules import (
    DRAW,
    Bid,
    IllegalActionError,
    Match,
    NotationError,
    Phase,
    Play,
    Side,
    parse_action,
)

SEAT: Final = 0  # the engine always plays seat 0 (player A)

PositionTest = Callable[[Match], bool]


def _branch_play(m: Match) -> bool:
    return any(isinstance(a, Play) and a.at.side >= Side.BRANCH_A for a in m.legal_actions())


POSITIONS: Final[dict[str, tuple[str, PositionTest]]] = {
    "forced opening": (
        "opening with the highest double (or tile), the only legal action",
        lambda m: m.phase is Phase.OPENING and m.forced_tile is not None,
    ),
    "auction: first bid": (
        "the non-jockey speaks first: decline or bid",
        lambda m: m.phase is Phase.AUCTION and m.bid is None,
    ),
    "auction: answer a bid": (
        "the jockey answers a bid: accept or raise",
        lambda m: m.phase is Phase.AUCTION and m.bid is not None and m.to_act == m.jockey,
    ),
    "free opening": (
        "the winner of the auction opens with any tile",
        lambda m: m.phase is Phase.OPENING and m.forced_tile is None,
    ),
    "play": (
        "an ordinary play with a choice",
        lambda m: m.phase is Phase.PLAY and m.drawn_this_turn == 0 and len(m.legal_actions()) >= 3,
    ),
    "draw": (
        "nothing to play: draw is the only legal action",
        lambda m: m.phase is Phase.PLAY and m.legal_actions() == [DRAW],
    ),
    "play after a draw": (
        "the drawn tile is playable and must be played",
        lambda m: m.phase is Phase.PLAY and m.drawn_this_turn > 0 and m.legal_actions() != [DRAW],
    ),
    "spinner branches": (
        "a play onto a branch of the spinner is legal",
        lambda m: m.phase is Phase.PLAY and _branch_play(m),
    ),
}


def _bidding_driver(m: Match, rng: random.Random) -> None:
    """Drive a match forward: a random legal play, a cheap bid now and then."""
    legal = m.legal_actions()
    if m.phase is Phase.AUCTION:
        bids = [
            a
            for a in legal[1:3]
            if isinstance(a, Bid) and m.net_payment(m.to_act, a.amount) < m.balances[m.to_act]
        ]
        m.apply(bids[0] if bids and rng.random() < 0.6 else legal[0])
        return
    m.apply(legal[rng.randrange(len(legal))])


@cache
def find_position(name: str) -> Match:
    """The first position of kind ``name`` (see ``POSITIONS``) with seat 0 to act,
    in seeded matches driven by a seeded policy: the same on every run. Cached:
    treat it as read-only (copy it to play on)."""
    test = POSITIONS[name][1]
    for seed in range(500):
        m = Match.new(seed)
        rng = random.Random(seed)
        for _ in range(400):
            if m.over:
                break
            if m.to_act == SEAT and test(m):
                return m
            _bidding_driver(m, rng)
    raise LookupError(f"no {name!r} position in 500 seeded matches")  # pragma: no cover


def judge_action(m: Match, text: str) -> str | None:
    """None if ``text`` is a legal action in ``m``; else the referee's complaint."""
    try:
        action = parse_action(text)
    except NotationError as e:
        return f"{text!r} is not bidref notation: {e}"
    try:
        m.copy().apply(action)
    except IllegalActionError as e:
        return f"illegal: {e}"
    return None
