"""Every command answers -h and --help; the root answers --version."""

from __future__ import annotations

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from bidref import __version__
from bidref.cli import app

runner = CliRunner()
COMMANDS = sorted(get_command(app).commands)  # type: ignore[attr-defined]


def test_every_command_is_listed() -> None:
    assert {
        "match",
        "replay",
        "validate",
        "tournament",
        "play",
        "check-engine",
        "rules",
        "notation",
    } <= set(COMMANDS)


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_flags(command: str | None, flag: str) -> None:
    args = [flag] if command is None else [command, flag]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "Usage:" in res.output
    if command is not None:
        assert f"bidref {command}" in res.output


def test_version() -> None:
    for flag in ("--version", "-V"):
        res = runner.invoke(app, [flag])
        assert res.exit_code == 0
        assert res.output.strip() == f"bidref {__version__}"
