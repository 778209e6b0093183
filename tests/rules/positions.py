"""Positions taken from random play, for tests that check a rule on many states."""

from __future__ import annotations

import random

from bidref.rules import Match


def random_positions(matches: int, rounds: int = 3, seed: int = 11) -> list[Match]:
    """A copy of every position of ``matches`` random matches (seeds 0, 1, ...),
    up to their ``rounds``-th round."""
    rng = random.Random(seed)
    out = []
    for match_seed in range(matches):
        m = Match.new(match_seed)
        while not m.over and m.round_number < rounds:
            out.append(m.copy())
            m.apply(rng.choice(m.legal_actions()))
    return out
