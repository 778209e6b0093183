"""`bidref play` argument checks (no terminal needed for these)."""

from __future__ import annotations

from typer.testing import CliRunner

from bidref.cli import app

runner = CliRunner()


def test_play_needs_a_human_seat() -> None:
    r = runner.invoke(app, ["play", "sample_engines/c_first/engine", "x.py"])
    assert r.exit_code == 2
    assert "neither seat is 'human'" in r.output and "bidref match" in r.output


def test_play_needs_a_terminal() -> None:
    r = runner.invoke(app, ["play", "human", "human"])
    assert r.exit_code == 2
    assert "needs a terminal" in r.output


def test_play_rejects_a_bad_engine_and_bad_times() -> None:
    r = runner.invoke(app, ["play", "human", "human", "--bank", "-1"])
    assert r.exit_code == 2 and "--bank" in r.output
    r = runner.invoke(app, ["play", "human", "human", "--transport", "tcp"])
    assert r.exit_code == 2 and "--transport 'tcp'" in r.output


def test_play_help_teaches_with_examples() -> None:
    r = runner.invoke(app, ["play", "--help"])
    assert r.exit_code == 0
    assert "bidref play human sample_engines/python_random/engine.py" in r.output
    assert "hot-seat" in r.output
