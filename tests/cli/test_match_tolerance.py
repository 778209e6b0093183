"""`bidref match --tolerance MS`: the referee's timing tolerance (docs/match.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app

runner = CliRunner()


@pytest.mark.e2e
def test_the_tolerance_goes_to_the_transcript_header(c_first: Path, tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    args = ["match", str(c_first), str(c_first), "--seed", "3", "--max-rounds", "1"]
    res = runner.invoke(app, [*args, "--tolerance", "2.5", "--json", "--transcript", str(t)])
    assert res.exit_code == 0, res.output
    header = json.loads(t.read_text().splitlines()[0])
    assert header["timing_tolerance_ns"] == 2_500_000
    assert isinstance(header["monotonic_origin_ns"], int)


def test_a_bad_tolerance_is_refused_with_the_fix(c_first: Path) -> None:
    res = runner.invoke(app, ["match", str(c_first), str(c_first), "--tolerance", "-1"])
    assert res.exit_code == 2
    assert "--tolerance -1: give a number of ms from 0 to 60000" in res.output
