"""benchmarks/strength.py counts each side's results from the right seat."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _strength() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength", ROOT / "benchmarks/strength.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["strength"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_a_time_loss_is_charged_to_the_side_that_lost_on_time() -> None:
    s = _strength()
    Outcome = s.Outcome
    # seed 1 with "strong" in seat 0, then seats swapped.
    seats = [("strong", "greedy"), ("greedy", "strong"), ("strong", "greedy"), ("greedy", "strong")]
    outcomes = [
        Outcome(0, "time", 3),  # greedy (seat 1) lost on time: a win for strong
        Outcome(1, "balance", 5),  # strong (seat 1) won
        Outcome(1, "time", 2),  # strong (seat 0) lost on time
        Outcome(None, "round_limit", 10),
    ]
    t = s.tally("strong", seats, outcomes)
    assert (t.wins, t.draws, t.losses) == (2, 1, 1)
    assert (t.lost_on_time, t.won_on_time) == (1, 1)
    assert t.rounds == 20
