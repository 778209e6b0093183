"""Hidden information: an engine that reads what a process of its user can read
(its ancestors' command lines and environments in /proc, the stderr-log folder)
finds neither the seed nor the other engine's stderr while the match runs."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import UNJAILED, assert_nothing_left, bidref, engine, match, new_token

pytestmark = pytest.mark.e2e

SEED = "918273645"


def _peeks(token: str) -> list[dict[str, Any]]:
    found = sorted(Path(token).parent.glob(Path(token).name + ".peek.*.json"))
    assert found, f"the engine {Path(token).name} did not look"
    return [json.loads(p.read_text()) for p in found]


def _assert_no_seed(peek: dict[str, Any]) -> None:
    assert len(peek["cmdline"]) >= 2, peek  # the referee and at least the test
    assert any("match" in c or "tournament" in c or "multiprocessing" in c for c in peek["cmdline"])
    for what in ("cmdline", "environ"):
        for text in peek[what]:
            assert SEED not in text, f"the seed is in an ancestor's {what}: {text!r}"


def test_an_engine_finds_neither_the_seed_nor_the_other_engines_stderr(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    a, b = new_token(tmp_path, "A"), new_token(tmp_path, "B")
    run = match(
        engine("peek", a, str(logs)),
        engine("peek", b, str(logs)),
        tmp_path,
        "--seed",
        SEED,
        "--stderr-dir",
        str(logs),
        max_rounds=1,
    )
    assert run.code == 0, run.stderr
    assert run.result()["seed"] == int(SEED)  # the seed given is the seed used
    for token, other in ((a, b), (b, a)):
        for peek in _peeks(token):
            _assert_no_seed(peek)
            seen = "".join(peek.get("logs", {}).values())
            assert f"secret of {other}" not in seen, peek["logs"]
    # Once the engines have ended, the logs are there, for their owner only.
    # (each log's stderr times beside it, bidref-stderr-times/1, for its owner too)
    every = sorted(logs.iterdir())
    files = [f for f in every if f.name.endswith(".stderr.log")]
    assert len(files) == 2 and len(every) == 4, every
    for f in every:
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    assert f"secret of {a}" in files[0].read_text()
    assert f"secret of {b}" in files[1].read_text()
    assert_nothing_left([a, b])


def test_in_a_tournament_no_process_shows_the_seed_and_nothing_piles_up(tmp_path: Path) -> None:
    """Four matches in one worker process against an engine that leaves a daemon
    each time: no daemon is left, and the worker's threads do not grow."""
    peeker, forker = new_token(tmp_path, "peek"), new_token(tmp_path, "fork")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            *bidref(),
            "tournament",
            *UNJAILED,
            f"peek={engine('peek', peeker)}",
            f"fork={engine('daemon', forker)}",
            "--seed",
            SEED,
            "--deals",
            "2",
            "--bank",
            "2",
            "--delay",
            "0.05",
            "--max-rounds",
            "1",
            "--concurrency",
            "1",
            "--out",
            str(out),
            "--json",
        ],
        capture_output=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    peeks = _peeks(peeker)
    assert len(peeks) == 4  # every match
    for peek in peeks:
        _assert_no_seed(peek)
    threads = [p["parent_threads"] for p in peeks]
    assert len(set(threads)) == 1, f"the worker's threads grew: {threads}"
    assert_nothing_left([peeker, forker])
    assert sys.platform.startswith("linux")
