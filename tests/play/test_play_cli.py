"""`bidref play` argument checks (no terminal needed for these)."""

from __future__ import annotations

from pathlib import Path

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
    assert r.exit_code == 2 and "--transport 'tcp': use pipe or pty" in r.output


def test_play_help_teaches_with_examples() -> None:
    r = runner.invoke(app, ["play", "--help"])
    assert r.exit_code == 0
    assert "bidref play human sample_engines/python_random/engine.py" in r.output
    assert "hot-seat" in r.output


def test_play_refuses_a_transcript_it_cannot_write(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("", encoding="utf-8")
    for where in (tmp_path / "no-such-folder" / "t.jsonl", a_file / "t.jsonl"):
        r = runner.invoke(app, ["play", "human", "human", "--transcript", str(where)])
        assert r.exit_code == 2, r.output
        assert "--transcript" in r.output and "cannot" in r.output, r.output
        assert "Traceback" not in r.output
    r = runner.invoke(app, ["play", "human", "human", "--transcript", str(tmp_path)])
    assert r.exit_code == 2 and "directory" in " ".join(r.output.split())  # typer's check
