from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bidref.cli import app
from bidref.rules_text import rules_section, rules_text

DATA = Path(__file__).resolve().parents[2] / "bidref" / "data"
runner = CliRunner()


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
