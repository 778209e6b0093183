"""The sample engines of the engines work play complete matches under the referee."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bidref.engines import resolve_engine
from bidref.match.referee import MatchSpec, run_match
from bidref.rules import TimeControl
from tests.sample_build import build_c_engines

ROOT = Path(__file__).resolve().parents[1]
SE = ROOT / "sample_engines"
FAST = TimeControl.of_seconds(bank=5, delay=0.05)

PAIRINGS = [
    # python_strong thinks 20 ms a decision here so that the test stays quick.
    (f"{SE / 'python_strong/engine.py'} --max-seconds 0.02", str(SE / "js_random/engine.js")),
    (str(SE / "sh_random/engine.sh"), str(SE / "python_sdk_minimal/engine.py")),
    (str(SE / "c_first/engine"), str(SE / "python_random/engine.py")),
    (str(SE / "python_greedy/engine.py"), str(SE / "sh_random/engine.sh")),
    # OpenSpiel's IS-MCTS (the rl extra) thinks 20 ms a decision here too.
    (
        f"{SE / 'openspiel_ismcts/engine.py'} --max-seconds 0.02",
        str(SE / "python_greedy/engine.py"),
    ),
]


def test_the_pairings_cover_every_sample_engine() -> None:
    folders = {p.name for p in SE.iterdir() if p.is_dir() and not p.name.startswith("_")}
    played = {Path(side.split()[0]).parent.name for pair in PAIRINGS for side in pair}
    assert played == folders


@pytest.mark.e2e
@pytest.mark.parametrize(
    "a,b", PAIRINGS, ids=["strong-js", "sh-sdk_minimal", "c-random", "greedy-sh", "ismcts-greedy"]
)
def test_sample_engines_play_complete_matches(a: str, b: str) -> None:
    # `make test` installs Node.js where it is missing: its absence is a failure.
    assert shutil.which("node") or "engine.js" not in a + b, "Node.js is not installed"
    if "c_first" in a + b:
        build_c_engines()
    spec = MatchSpec(
        engines=(resolve_engine(a), resolve_engine(b)), seed=11, time_control=FAST, max_rounds=3
    )
    out = run_match(spec)
    # Finished by the game (a balance at 0, or the round limit), not by a fault.
    assert out.reason in ("balance", "round_limit"), out.summary()
    assert out.rounds >= 1 and sum(out.balances) == 300
    assert out.decisions > 10
    # Both engines exited by themselves (after quit), with exit code 0.
    assert [(e["how"] in ("quit", "exited"), e["exit_code"]) for e in out.exits] == [
        (True, 0),
        (True, 0),
    ], out.exits
