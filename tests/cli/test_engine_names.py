"""One name per engine in every command (issue 35, item 5; docs/match.md,
"Names"): the command line's name (its folder here), never the hello's, which
check-engine shows beside it and the transcript records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from tests.play.test_play_e2e import NAMED

runner = CliRunner()


@pytest.fixture
def named(tmp_path: Path) -> Path:
    engine = tmp_path / "file_name" / "engine.py"
    engine.parent.mkdir()
    engine.write_text(NAMED)
    return engine


@pytest.mark.e2e
def test_check_engine_names_the_engine_as_match_does(named: Path) -> None:
    res = runner.invoke(app, ["check-engine", str(named)])
    assert "check-engine file_name (its hello says: HelloName)" in res.stdout, res.stdout


@pytest.mark.e2e
def test_match_names_the_engine_by_the_command_line_everywhere(
    named: Path, c_first: Path, tmp_path: Path
) -> None:
    t = tmp_path / "t.jsonl"
    res = runner.invoke(
        app,
        [
            *("match", str(named), str(c_first), "--seed", "5", "--max-rounds", "1"),
            *("--bank", "20", "--delay", "0.05", "--transcript", str(t)),
        ],
    )
    assert res.exit_code == 0, res.output
    header, *rest = res.stdout.splitlines()
    assert header.startswith("A file_name  vs  B c_first")
    assert any("file_name" in line and "│" in line for line in rest)  # the live table
    assert any(line.startswith("result:") for line in rest)
    assert "HelloName" not in res.stdout
    hellos = [json.loads(x) for x in t.read_text().splitlines() if '"hello"' in x]
    assert any("HelloName" in json.dumps(h) for h in hellos)  # the transcript keeps it
    res = runner.invoke(app, ["match", str(named), str(c_first), "--max-rounds", "1", "--json"])
    assert json.loads(res.stdout)["engines"] == ["file_name", "c_first"]
