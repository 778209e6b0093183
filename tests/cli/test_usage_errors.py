"""Mistakes the option parser finds come out as bidref's one-line errors with
exit status 2, in every command (issue 29 item 12), not in the parser's boxed
wording ("Invalid value for '--bank': Input should be a valid number ...")."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from bidref.cli import app

runner = CliRunner()
GROUP: Any = get_command(app)
COMMANDS = sorted(GROUP.commands)


def _annotation(param: Any) -> Any:
    annotation = param.type_descriptor.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return args[0] if type(None) in typing.get_args(annotation) and len(args) == 1 else annotation


def _required(command: Any) -> list[str]:
    """Values for a command's required arguments and options (so that the
    option under test is what the parser trips over)."""
    args: list[str] = []
    for param in command.params:
        if param.param_type_name == "argument" and param.required:
            args.append("x")
        elif param.param_type_name == "option" and param.required:
            args += [max(param.opts, key=len), "x"]
    return args


def _typed_options() -> list[tuple[str, str, str]]:
    """(command, flag, kind) of every option read as a number or one of a few words."""
    found = []
    for name in COMMANDS:
        for param in GROUP.commands[name].params:
            if param.param_type_name != "option" or param.nargs != 1:
                continue
            ann = _annotation(param)
            kind = {int: "int", float: "float"}.get(ann)
            if typing.get_origin(ann) is typing.Literal:
                kind = "choice"
            if kind:
                found.append((name, max(param.opts, key=len), kind))
    return found


def _one_error_line(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith("error: "), output
    assert not any(ch in output for ch in "╭│╰"), output  # no box
    assert "Input should be" not in output and "Invalid value" not in output, output
    return lines[0]


def test_every_command_has_typed_options_to_check() -> None:
    kinds = {kind for _, _, kind in _typed_options()}
    assert kinds == {"int", "float", "choice"}
    assert {c for c, _, _ in _typed_options()} >= {"match", "play", "tournament", "replay"}


@pytest.mark.parametrize(("command", "flag", "kind"), _typed_options())
def test_a_bad_option_value_is_one_line_quoting_it(command: str, flag: str, kind: str) -> None:
    cmd = GROUP.commands[command]
    res = runner.invoke(app, [command, *_required(cmd), flag, "lots"])
    assert res.exit_code == 2, res.output
    line = _one_error_line(res.output)
    assert f"{flag} 'lots'" in line, line
    if kind == "float":
        assert "give a number" in line and f"e.g. {flag} " in line
    elif kind == "int":
        assert "give a whole number" in line and f"e.g. {flag} " in line
    else:
        assert ": use " in line and " or " in line


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_option_is_one_line_with_did_you_mean(command: str) -> None:
    res = runner.invoke(app, [command, "--hepl"])
    assert res.exit_code == 2, res.output
    line = _one_error_line(res.output)
    assert f"bidref {command}: there is no option --hepl; did you mean " in line
    assert "--help" in line.partition("did you mean")[2]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["match", "a", "b", "--bank", "abc"],
            "--bank 'abc': give a number of seconds, e.g. --bank 10",
        ),
        (["match", "a", "b", "--illegal", "x"], "--illegal 'x': use reject or forfeit"),
        (["replay", "t.jsonl", "--width", "3"], "--width '3': give a number of at least 24"),
        (
            ["match", "a", "b", "--bank"],
            "bidref match: --bank needs a value after it, e.g. --bank 10",
        ),
        (["match", "a", "b", "c"], "bidref match: unexpected extra argument(s) 'c'; put a command"),
        (["replay"], "bidref replay needs TRANSCRIPT...: give it"),
        (["tournament-report"], "bidref tournament-report needs FOLDER: give it"),
        (["tournament-report", "x"], "error: say what to make: --serve (open the report"),
        (["matc"], "bidref: there is no command 'matc'; did you mean 'match'?"),
        (["--frob"], "bidref: there is no option --frob"),
    ],
)
def test_parser_mistakes_read_as_bidref_errors(args: list[str], says: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert says in _one_error_line(res.output)


def test_help_still_works() -> None:
    res = runner.invoke(app, ["match", "--help"])
    assert res.exit_code == 0 and "Usage" in res.output
