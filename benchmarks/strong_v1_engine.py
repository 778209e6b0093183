#!/usr/bin/env python3
"""python_strong as it was before issue 16 (the baseline of the strength benchmark).

Today's ``sample_engines/python_strong`` with its search frozen in
``benchmarks/search_v1.py``, always on the pure-Python rules core (this
file puts the checkout first on ``sys.path``, ahead of any compiled build).
Its text below is the original's.

python_strong: determinized Monte Carlo search on the bidref SDK.

Every decision samples the hidden tiles many times (``Request.sample_match``),
plays each legal action out to the end of the round with an epsilon-greedy
policy and keeps the best on average; the auction bids only up to what opening
is worth by simulation (see ``bidref.engines_ai.search``). The events tell it
when the opponent draws, and so which values the opponent's hand lacked; the
samples respect that (``bidref.engines_ai.inference``). It thinks for a
share of its delay plus its bank spread over the turns still expected, and
never more than ``--max-seconds`` per decision.

    engine.py [--max-seconds 1.0] [--seed 0]
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bidref from this checkout
from benchmarks.search_v1 import SearchLimits, StrongPlayer, bank_reserve, budget_seconds
from bidref.engines_ai.inference import OpponentModel
from bidref.rules import Action, Layout, point, tile
from bidref.rules.determinize import layout_from_view
from bidref.rules.layout import Side
from bidref.sdk import Engine, Request, run

log = logging.getLogger("python_strong_v1")


class StrongEngine(Engine):
    name = "python_strong_v1"
    author = "bidref"
    version = "1"

    def __init__(self, max_seconds: float, seed: int) -> None:
        super().__init__()
        self.max_seconds = max_seconds
        self.rng = random.Random(seed)
        self.searcher = StrongPlayer(seed=seed)
        self.model = OpponentModel(player=0)
        self.layout = Layout()  # the layout as the events tell it, to date the draws

    def on_hello(self, hello: dict[str, Any]) -> None:
        self.model = OpponentModel(player=self.seat)
        self.searcher.watch(self.model)

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind == "round_started":
            self.model.new_round(int(event["round"]))
            self.layout = Layout()
        elif kind == "placed":
            t = tile(*event["tile"])
            at = event["at"]
            if at is None:
                self.layout.open_tile(t)
            else:
                self.layout.place(t, point(tile(*at["tile"]), Side[at["side"].upper()]))
        elif kind == "drew" and event.get("player") == 1 - self.seat:
            # The opponent could not play: no tile in their hand matched these values.
            self.model.observe_draw(self.layout.open_values())

    def choose(self, request: Request) -> Action:
        if len(request.legal) == 1:
            return request.legal[0]
        c = request.clock
        reserve = bank_reserve(self.settings.get("bank_ms", 120_000) / 1000)
        budget = min(
            self.max_seconds,
            budget_seconds(c.delay_left, c.bank, expected_turns=30, reserve=reserve),
        )
        spent = time.monotonic() - request.received_at
        limits = SearchLimits(seconds=max(0.0, budget - spent))
        self.model.new_round(request.view.round)
        self.layout = layout_from_view(request.view.layout)
        root = request.sample_match(self.rng)
        action = self.searcher.choose(root, limits, now=time.monotonic)
        log.debug("%s after %d playouts", action, self.searcher.last_playouts)
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
    ap.add_argument("--seed", type=int, default=0, help="seed of the search's sampling")
    args = ap.parse_args()
    return run(StrongEngine(args.max_seconds, args.seed))


if __name__ == "__main__":
    sys.exit(main())
