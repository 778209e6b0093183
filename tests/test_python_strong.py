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


_WHICH = """
import runpy, sys
sys.argv = ["engine.py", *sys.argv[1:]]
try:
    runpy.run_path(sys.argv.pop(1), run_name="__main__")
except SystemExit:
    pass
print(sys.modules["bidref.rules.match"].__file__)
print(sys.modules["bidref.engines_ai.search"].__file__)
"""


def _imported_by_engine(*args: str) -> list[str]:
    import os
    import subprocess
    import sys
    from pathlib import Path

    engine = Path(__file__).resolve().parents[1] / "sample_engines/python_strong/engine.py"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BIDREF_PURE")}
    proc = subprocess.run(
        [sys.executable, "-c", _WHICH, str(engine), *args],
        input="",  # no referee: the engine reads end of input and exits
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        check=True,
        timeout=60,
    )
    return proc.stdout.split()[-2:]


def test_the_engine_runs_on_a_fresh_compiled_build_unless_told_pure() -> None:
    from pathlib import Path

    from bidref.build.compiled import quick_fresh_build

    root = Path(__file__).resolve().parents[1]
    build = quick_fresh_build(root)  # what the engine (and `bidref`) goes by
    chosen = _imported_by_engine()
    if build is None:  # nothing compiled (no `make compiled`): pure Python
        assert all(f.startswith(str(root / "bidref")) and f.endswith(".py") for f in chosen)
    else:
        assert all(f.startswith(str(build)) and not f.endswith(".py") for f in chosen), chosen
    pure = _imported_by_engine("--pure")
    assert all(f.startswith(str(root / "bidref")) and f.endswith(".py") for f in pure), pure
