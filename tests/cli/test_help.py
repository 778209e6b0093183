"""Every command answers -h and --help; the root answers --version."""

from __future__ import annotations

import shlex

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


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_shows_no_type_placeholders(command: str | None) -> None:
    res = runner.invoke(app, ["-h"] if command is None else [command, "-h"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    for placeholder in ("<bool>", "<str>", "<text>"):
        assert placeholder not in res.output, (command, res.output)


@pytest.mark.parametrize("command", ["match", "tournament", "check-engine"])
def test_choices_are_shown(command: str) -> None:
    res = runner.invoke(app, [command, "-h"], env={"COLUMNS": "200"})
    assert "[pipe|pty]" in res.output
    if command != "check-engine":
        assert "[reject|forfeit]" in res.output


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_multi_line_examples_continue_with_a_backslash(command: str) -> None:
    # in an 80-column terminal: an example that wrapped would not paste
    res = runner.invoke(app, [command, "-h"], env={"COLUMNS": "80"})
    lines = [ln.strip() for ln in res.output.splitlines()]
    starts = [i for i, ln in enumerate(lines) if ln.startswith(f"bidref {command} ")]
    assert starts
    for i in starts:  # an example goes on only after a "\"
        j = i
        shlex.split(lines[j].rstrip("\\"))  # whole words: a wrapped quote would not split
        while lines[j].endswith("\\"):
            j += 1
            assert lines[j].startswith(("--", "-e ", "sample_engines/")), lines[j]
            shlex.split(lines[j].rstrip("\\"))
        assert j + 1 >= len(lines) or not lines[j + 1].startswith("--"), lines[i : j + 2]


def test_the_fast_root_help_lists_exactly_the_app_s_commands() -> None:
    from bidref.cli.fast_help import COMMANDS, help_text

    commands = get_command(app).commands  # type: ignore[attr-defined]
    typer_side = [(n, c.get_short_help_str(limit=300)) for n, c in commands.items()]
    assert sorted(COMMANDS) == sorted(typer_side)
    text = help_text(80)
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "Usage: bidref [OPTIONS] COMMAND [ARGS]..." in text


def test_root_help_and_version_import_neither_typer_nor_a_command() -> None:
    import subprocess
    import sys

    probe = (
        "import sys; from bidref.cli import main; main(); "
        "print(sorted(m for m in sys.modules if m.startswith(('typer', 'rich', 'bidref.cli.'))),"
        " file=sys.stderr)"
    )
    for flag in ("--help", "-h", "--version", "-V"):
        res = subprocess.run(
            [sys.executable, "-c", probe, flag], capture_output=True, text=True, timeout=60
        )
        assert res.returncode == 0, res.stderr
        assert res.stderr.strip() == "['bidref.cli.fast_help']", (flag, res.stderr)
    assert "match" in res.stdout or res.stdout.startswith("bidref ")


def test_a_command_line_loads_only_its_command() -> None:
    import subprocess
    import sys

    probe = (
        "import sys; from bidref.cli import main\n"
        "try: main()\n"
        "except SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.endswith('_cmd')), file=sys.stderr)"
    )
    res = subprocess.run(
        [sys.executable, "-c", probe, "match", "-h"], capture_output=True, text=True, timeout=60
    )
    assert res.stderr.strip().splitlines()[-1] == "['bidref.cli.match_cmd']", res.stderr
    assert "bidref match" in res.stdout
