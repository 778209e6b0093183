"""Output that is not a terminal is never cut, and tables piped carry no padding
(issue 35, item 4): `bidref replay | grep` finds every line whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bidref.transcript.replay import replay
from tests.transcript.scripted_seats import referee_transcript

BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("t") / "t.jsonl"
    referee_transcript(path, max_rounds=None, seed=3)
    return path


def _piped(*args: str, columns: int) -> str:
    # (a narrow COLUMNS: what rich would wrap and crop to when not on a terminal)
    env = {**os.environ, "COLUMNS": str(columns)}
    run = subprocess.run(
        [*BIDREF, *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.parametrize("columns", [40, 80])
def test_piped_replay_keeps_every_line_whole_and_unpadded(transcript: Path, columns: int) -> None:
    out = _piped("replay", str(transcript), columns=columns)
    lines = out.splitlines()
    report = replay(transcript.read_bytes())
    steps = [s for s in report.steps if s.kind not in ("round_start",)]
    assert steps
    for s in steps:
        assert f"{s.line:>5}  {s.text}" in lines, s.text
    for s in report.steps:
        if s.kind == "round_start":  # a rule: its title whole, balances and all
            assert any(line.startswith(s.text) for line in lines), s.text
    assert [line for line in lines if line != line.rstrip()] == []
