"""docs/env.md's examples run, and the observation holds only what the player may know."""

from __future__ import annotations

import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from bidref.env import raw_env
from bidref.env.observe import encode
from bidref.rules import Match, match_from_view, parse_action, player_view

DOC = Path(__file__).resolve().parents[2] / "docs" / "env.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_training_loop_of_the_docs_runs_and_learns_something() -> None:
    loop = next(b for b in _blocks() if "agent_iter" in b)
    assert len(loop.strip().splitlines()) <= 25
    scope: dict[str, Any] = {}
    exec(compile(loop, str(DOC), "exec"), scope)
    weights = scope["weights"]
    assert weights.shape == (512, 285)
    assert np.abs(weights).sum() > 0  # 40 episodes moved points, so the policy changed


def test_the_engine_example_chooses_legal_actions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = next(b for b in _blocks() if "def choose" in b)
    body = engine[: engine.index("run(choose")]  # not the stdin loop
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(1)
    np.save("weights.npy", rng.normal(size=(512, 285)))
    scope: dict[str, Any] = {}
    exec(compile(body, str(DOC), "exec"), scope)
    m = Match.new(8)
    while not m.over:
        view = player_view(m, m.to_act)
        reply = scope["choose"](SimpleNamespace(view=view, legal=view.legal_actions))
        action = parse_action(reply)
        assert action in m.legal_actions()
        m.apply(action)


def test_the_match_example_sees_the_vector_the_agent_trained_on() -> None:
    """The vector built from a PlayerView alone (what an engine gets) equals the
    environment's: no hidden tile enters the observation."""
    e = raw_env(max_rounds=2)
    rng = random.Random(4)
    for seed in range(25):
        e.reset(seed=seed)
        m = e.match
        assert m is not None
        while not m.over:
            p = m.to_act
            agent = f"player_{p}"
            seen = encode(match_from_view(player_view(m, p), rng), p, e.reveals)
            assert (e.observe(agent)["observation"] == seen).all()
            e.step(int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"]))))
