"""The start-up hint under a tournament that stopped goes by the typed end reason
of the match that stopped it (issue 29.15), never by the text: an engine's own
words may say anything."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from rich.console import Console

from bidref.cli.match_cmd import STARTUP_HINT
from bidref.cli.tournament_end import exit_for
from bidref.outcome import EndReason
from bidref.tournament.runner import RunSummary


def _said(stopped: str, by: EndReason) -> str:
    err = Console(record=True, width=400)
    summary = RunSummary(total=4, done=0, stopped=stopped, stopped_by=by)
    with pytest.raises(typer.Exit):
        exit_for(err, summary, Path("out"), max_attempts=3, as_json=False)
    return err.export_text()


def test_a_crash_whose_words_say_startup_gets_no_start_up_hint() -> None:
    said = _said(
        "engine 'x' failed (crash) in its first matches: stderr '(startup)'", EndReason.CRASH
    )
    assert "failed (crash)" in said and STARTUP_HINT[:40] not in said


def test_a_start_up_failure_gets_the_hint_whatever_the_text() -> None:
    said = _said("engine 'x' failed in its first matches", EndReason.STARTUP)
    assert STARTUP_HINT[:40] in said


def test_a_start_up_failure_whose_stderr_shows_the_cause_gets_that_hint_first() -> None:
    # (issue 35, item 3: the tournament of SDK engines whose import failed)
    said = _said(
        "engine 'python_greedy' failed (startup) in its first matches: the engine ended "
        "before its hello (exit code 1); stderr ends: 'Traceback (most recent call last):"
        "\\n ... \\nModuleNotFoundError: No module named \\'bidref\\''",
        EndReason.STARTUP,
    )
    assert "cannot import 'bidref'" in said and STARTUP_HINT[:40] not in said
