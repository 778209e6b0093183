"""What replay, validate and check-engine say (issue 29 item 13): `replay --html`
writes the page and says where (no text replay), an empty transcript is called
empty, `validate` on a transcript points to `bidref replay`, and check-engine
marks what it never ran as skipped, not FAIL."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.check import CheckSettings, check_engine
from bidref.cli import app
from bidref.engines import EngineSpec
from bidref.rules import SECOND

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "transcript" / "data" / "v1-sample.jsonl"
runner = CliRunner()


@pytest.mark.parametrize("flag", ["--html", "--svg", "--moves"])
def test_replay_writing_a_file_does_not_also_print_the_game(tmp_path: Path, flag: str) -> None:
    out = tmp_path / ("t.html" if flag == "--html" else "pics" if flag == "--svg" else "m.txt")
    res = runner.invoke(app, ["replay", str(SAMPLE), flag, str(out)])
    assert res.exit_code == 0, res.output
    assert out.exists()
    lines = res.output.strip().splitlines()
    assert len(lines) == 2, res.output  # where the file is, and the verdict
    assert str(out) in lines[0]
    assert lines[1].startswith("✓ verified")
    shown = runner.invoke(app, ["replay", str(SAMPLE)])
    assert len(shown.output.splitlines()) > 50  # (the game, as it is shown without the flag)


def test_replay_html_with_final_also_shows_the_final_layouts(tmp_path: Path) -> None:
    out = tmp_path / "t.html"
    res = runner.invoke(app, ["replay", str(SAMPLE), "--html", str(out), "--final"])
    assert res.exit_code == 0, res.output
    assert f"HTML replay: {out}" in res.output
    assert len(res.output.splitlines()) > 10


@pytest.mark.parametrize("compressed", [False, True])
def test_an_empty_transcript_is_called_empty(tmp_path: Path, compressed: bool) -> None:
    t = tmp_path / ("t.jsonl.gz" if compressed else "t.jsonl")
    t.write_bytes(gzip.compress(b"") if compressed else b"")
    for args in (["replay", str(t)], ["replay", "--check", str(t)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 3, res.output
        assert f"{t}: empty: not one line" in res.output
        assert "nothing verified: the transcript is empty" in res.output
        assert "truncated" not in res.output and "incomplete" not in res.output
    res = runner.invoke(app, ["replay", "--json", str(t)])
    verdict = json.loads(res.output.strip().splitlines()[-1])
    assert verdict["ok"] is False and verdict["truncated"].startswith("not one line")


@pytest.mark.parametrize("compressed", [False, True])
def test_validate_on_a_transcript_points_to_replay(tmp_path: Path, compressed: bool) -> None:
    t = tmp_path / ("t.jsonl.gz" if compressed else "t.jsonl")
    data = SAMPLE.read_bytes()
    t.write_bytes(gzip.compress(data) if compressed else data)
    res = runner.invoke(app, ["validate", str(t)])
    assert res.exit_code == 2
    assert res.output.strip() == "error: " + (
        f"{t}: this is a match transcript, not a move file: use `bidref replay {t}` to "
        f"verify it (`bidref replay {t} --moves FILE` writes its move file)"
    )
    # a JSON move file is still a move file
    moves = tmp_path / "m.json"
    moves.write_text(json.dumps({"seed": 7, "actions": ["decline"]}))
    assert "match transcript" not in runner.invoke(app, ["validate", str(moves)]).output


def test_items_never_run_are_skipped_not_failed(tmp_path: Path) -> None:
    report = check_engine(
        EngineSpec("gone", (str(tmp_path / "no-such-program"),)),
        CheckSettings(bank=SECOND, delay=0, startup=2 * SECOND),
    )
    first, *rest = report.results
    assert (first.item, first.status) == ("hello", "fail")
    assert rest and all(r.status == "skipped" and not r.passed for r in rest)
    assert all(r.detail == "skipped (because the engine could not be started)" for r in rest)
    assert report.failed_items() == ["hello"] and not report.passed
    assert report.to_dict()["items"][1]["status"] == "skipped"  # type: ignore[index]


@pytest.mark.e2e
def test_check_engine_says_skipped_for_an_engine_that_never_said_hello(tmp_path: Path) -> None:
    quitter = tmp_path / "engine"
    quitter.write_text("#!/bin/sh\nexit 0\n")
    quitter.chmod(0o755)
    res = runner.invoke(app, ["check-engine", str(quitter), "--startup", "5"], terminal_width=200)
    assert res.exit_code == 1, res.output
    rows = [ln for ln in res.output.splitlines() if "│ quit" in ln or "│ ping" in ln]
    assert rows and all("skipped" in r and "FAIL" not in r for r in rows), res.output
    assert "(because the engine never said hello)" in res.output
    assert "0/15 items passed, 1 failed, 14 skipped (not run): failed" in res.output
