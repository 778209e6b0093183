"""`bidref notation` reads what the docs say it reads (issue 29 item 7): the
examples are taken from the markdown itself, so docs and parser cannot drift."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "protocols" / "PROTOCOL.md").read_text(encoding="utf-8")
PLAY = (ROOT / "docs" / "play.md").read_text(encoding="utf-8")
runner = CliRunner()


def _cells(row: str) -> list[str]:
    """A markdown table row's cells (``\\|`` is a pipe inside a cell)."""
    cells = re.split(r"(?<!\\)\|", row.strip().strip("|"))
    return [c.strip().replace("\\|", "|") for c in cells]


def _code(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _notation_table() -> list[tuple[str, str, bool]]:
    """(what you write, what `bidref notation` prints, is it a point) from PROTOCOL.md."""
    start = PROTOCOL.find("| you write | `bidref notation` prints |")
    if start < 0:
        return []  # (the test below says so)
    rows = []
    for line in PROTOCOL[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        written, printed = _cells(line)
        rows.append((_code(written)[0], _code(printed)[0], "attachment point" in printed))
    return rows


def _canonical_list() -> list[str]:
    """The canonical actions that open the "Actions (canonical notation)" section."""
    section = PROTOCOL.split("### Actions (canonical notation)", 1)[1]
    return _code(section.split(". ", 1)[0])


def _play_md_forms() -> list[str]:
    """The forms docs/play.md says you may type for a play ("any bidref notation")."""
    (row,) = [ln for ln in PLAY.splitlines() if "(any bidref notation)" in ln]
    return _code(_cells(row)[0])


def _notation(*texts: str) -> tuple[int, list[str]]:
    res = runner.invoke(app, ["notation", *texts])
    return res.exit_code, res.output.splitlines()


def test_the_docs_have_examples_to_check() -> None:
    table = _notation_table()
    assert len(table) >= 8 and any(p for *_, p in table) and not all(p for *_, p in table)
    assert _canonical_list() == [
        "decline",
        "accept",
        "bid 20",
        "open 3-6",
        "draw",
        "play 1-3 1-1:line_a",
    ]
    assert len(_play_md_forms()) == 3


@pytest.mark.parametrize(("written", "printed", "point"), _notation_table())
def test_every_form_the_protocol_shows_reads_as_it_says(
    written: str, printed: str, point: bool
) -> None:
    code, lines = _notation(written)
    assert code == 0, lines
    assert lines == [f"{written!r} -> {printed}" + (" (an attachment point)" if point else "")]


def test_the_canonical_forms_are_their_own_canonical_form() -> None:
    texts = _canonical_list()
    code, lines = _notation(*texts)
    assert code == 0
    assert lines == [f"{t!r} -> {t}" for t in texts]


def test_the_play_screen_s_forms_are_notation() -> None:
    code, lines = _notation(*_play_md_forms())
    assert code == 0
    assert {ln.split(" -> ")[1] for ln in lines} == {"play 1-3 1-1:branch_b"}


def test_a_side_that_is_not_one_is_refused_as_a_side() -> None:
    code, lines = _notation("1-1 a")  # line A or branch A? neither is written so
    assert code == 2
    assert lines == [
        "'1-1 a': 'a' is not a side: use high, low, line_a, line_b, branch_a or branch_b"
    ]
