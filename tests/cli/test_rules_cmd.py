from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.rules_text import rules_section, rules_text

DATA = Path(__file__).resolve().parents[2] / "bidref" / "data"
runner = CliRunner()
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def test_the_packaged_rules_are_what_rules_help_reads() -> None:
    assert rules_text() == (DATA / "RULES.md").read_text(encoding="utf-8")


def test_rules_by_section_number_or_word() -> None:
    assert rules_section("6").startswith("## 6. The auction for the opening")
    assert rules_section("§7").startswith("## 7. The match clock")
    assert rules_section("clock").startswith("## 7. The match clock")
    assert rules_section(None) == rules_text()
    result = runner.invoke(app, ["rules", "5"])
    assert result.exit_code == 0 and "## 5. Drawing, passing, domino and block" in result.output


def test_an_unknown_topic_lists_the_sections_and_fails() -> None:
    result = runner.invoke(app, ["rules", "xyz"])
    assert result.exit_code == 2
    assert "no section of the rules is about 'xyz'" in result.output
    assert "6. The auction for the opening" in result.output
    # An engine asking about an unknown topic still gets all of the rules.
    assert rules_section("xyz") == rules_text()


def test_notation_prints_canonical_forms_and_fails_on_bad_input() -> None:
    result = runner.invoke(app, ["notation", "raise 25", "play [1|3] at [1|1] branch B"])
    assert result.exit_code == 0
    assert "-> bid 25" in result.output and "-> play 1-3 1-1:branch_b" in result.output
    result = runner.invoke(app, ["notation", "play 1-3"])
    assert result.exit_code == 2 and "say where 1-3 goes" in result.output


BIDREF = str(Path(sys.executable).with_name("bidref"))


def test_piped_rules_are_the_shipped_file_byte_for_byte() -> None:
    out = subprocess.run([BIDREF, "rules"], capture_output=True, check=True).stdout
    assert out == (DATA / "RULES.md").read_bytes()
    # One section, piped: its Markdown as it stands in the file.
    out = subprocess.run([BIDREF, "rules", "clock"], capture_output=True, check=True).stdout
    section = out.decode()
    assert section.startswith("## 7. The match clock\n") and section.endswith(".\n")
    assert section.strip() in (DATA / "RULES.md").read_text(encoding="utf-8")


def _tty(*args: str, rows: int, pager: str | None) -> str:
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LESS": ""}
    if pager is not None:
        env["PAGER"] = pager
    child = pexpect.spawn(
        BIDREF, ["rules", *args], encoding="utf-8", dimensions=(rows, 100), env=env, timeout=30
    )
    out = child.read()
    child.close()
    assert child.exitstatus == 0, out
    return ANSI.sub("", out).replace("\r", "")


def test_in_a_terminal_the_rules_are_rendered_and_paged_when_longer_than_the_screen() -> None:
    # A pager that marks every line it shows: the rules went through it.
    out = _tty(rows=24, pager="sed 's/^/PAGED /'")
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert lines and all(ln.startswith("PAGED ") for ln in lines)
    assert any("7. The match clock" in ln for ln in lines)
    # Rendered, not raw Markdown: no heading marks, no bold stars, tables drawn.
    assert "## " not in out and "**" not in out and "| --- |" not in out
    assert "150 points" in out


def test_no_pager_when_it_fits_or_with_no_pager() -> None:
    short = _tty("7", rows=24, pager="sed 's/^/PAGED /'")  # one section fits the screen
    assert "7. The match clock" in short and "PAGED" not in short and "## " not in short
    full = _tty("--no-pager", rows=24, pager="sed 's/^/PAGED /'")
    assert "PAGED" not in full and "8. The automatic digital game" in full


def test_a_pager_that_does_not_exist_still_shows_the_rules() -> None:
    out = _tty(rows=24, pager="no-such-pager-here")
    assert "1. Balances" in out and "8. The automatic digital game" in out


@pytest.mark.skipif(shutil.which("less") is None, reason="needs less")
def test_the_real_less_pages_and_quits_on_q() -> None:
    child = pexpect.spawn(
        BIDREF,
        ["rules"],
        encoding="utf-8",
        dimensions=(24, 100),
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color"},
        timeout=30,
    )
    child.expect("Balances")
    child.expect(":")  # less's prompt: the rest waits for the person
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
