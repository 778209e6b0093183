#!/usr/bin/env python3
"""openspiel_ismcts: OpenSpiel's IS-MCTS bot as a bidref/1 engine.

Each decision runs OpenSpiel's information-set Monte Carlo tree search
(``open_spiel.python.algorithms.ismcts``) on the game ``python_spectacular_bid``
(``bidref.openspiel``), to the end of the round, each simulation in a world
dealt by bidref from what this engine may see (``bidref.rules.match_from_view``).
It thinks for a share of its delay plus its bank spread over the turns still
expected, and never more than ``--max-seconds`` per decision. Needs the ``rl``
extra (``pip install 'bidref[rl]'``).

    engine.py [--max-seconds 1.0] [--seed 0] [--uct-c 2.0]
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bidref from this checkout
from bidref.engines_ai.search import bank_reserve, budget_seconds
from bidref.openspiel.ismcts import ISMCTSPlayer
from bidref.rules import Action
from bidref.sdk import Engine, Request, run

log = logging.getLogger("openspiel_ismcts")


class ISMCTSEngine(Engine):
    name = "openspiel_ismcts"
    author = "bidref (OpenSpiel's ISMCTSBot)"
    version = "1"

    def __init__(self, max_seconds: float, seed: int, uct_c: float) -> None:
        super().__init__()
        self.max_seconds = max_seconds
        self.player = ISMCTSPlayer(seed=seed, uct_c=uct_c)

    def choose(self, request: Request) -> Action:
        if len(request.legal) == 1:
            return request.legal[0]
        c = request.clock
        reserve = bank_reserve(self.settings.get("bank_ms", 120_000) / 1000)
        budget = min(
            self.max_seconds,
            budget_seconds(c.delay_left, c.bank, expected_turns=30, reserve=reserve),
        )
        left = budget - (time.monotonic() - request.received_at)
        action = self.player.choose(request.view, seconds=left, now=time.monotonic)
        log.debug("%s after %d simulations", action, self.player.last_simulations)
        return action


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=1.0,
        help="never think longer than this per decision (default 1.0)",
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    ap.add_argument(
        "--uct-c", type=float, default=2.0, help="UCT exploration constant (default 2.0)"
    )
    args = ap.parse_args()
    return run(ISMCTSEngine(args.max_seconds, args.seed, args.uct_c))


if __name__ == "__main__":
    sys.exit(main())
