"""python_strong learns from the opponent's draws through the SDK's events."""

from __future__ import annotations

from sample_engines.python_strong.engine import StrongEngine


def test_opponent_draws_become_facts_for_the_search() -> None:
    eng = StrongEngine(max_seconds=0.01, seed=0)
    eng.seat = 0
    eng.on_hello({"type": "hello", "seat": 0})
    assert eng.searcher.model is eng.model and eng.model.player == 0
    eng.on_event({"kind": "round_started", "round": 1, "opening": "forced", "jockey": None})
    eng.on_event({"kind": "placed", "player": 0, "tile": [1, 4], "at": None})
    eng.on_event(
        {"kind": "placed", "player": 1, "tile": [4, 4], "at": {"tile": [1, 4], "side": "high"}}
    )
    eng.on_event({"kind": "drew", "player": 0, "tile": [2, 3], "boneyard_left": 13})
    assert eng.model.constraints == []  # our own draw says nothing about them
    eng.on_event({"kind": "drew", "player": 1, "tile": None, "boneyard_left": 12})
    # Open: [1|4] low end (1) and [4|4] line B (4).
    assert eng.model.constraints == [(frozenset({1, 4}), 0)]
    eng.on_event({"kind": "round_started", "round": 2, "opening": "auction", "jockey": 1})
    assert eng.model.constraints == []
