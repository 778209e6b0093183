"""The CLI's one handler of the errors a user can fix (issue 30): a
:class:`~bidref.errors.UsageError` that leaves any command is printed as
``error: <message>`` on stderr, with exit status 2; other errors are not hidden."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref import launch
from bidref.cli._typer_app import _App, _Group
from bidref.cli.exit_codes import ExitCode
from bidref.engines.spec import EngineSpecError
from bidref.errors import BidrefError, UsageError
from bidref.sandbox.policy import SandboxError
from bidref.tournament.engines import EngineArgError
from bidref.tournament.ratings import SprtError
from bidref.tournament.schedule import ScheduleError
from bidref.tournament.shipping import EngineFilesError


def _app(error: Exception) -> _App:
    app = _App(cls=_Group, add_completion=False, pretty_exceptions_enable=False)

    @app.command()
    def go() -> None:
        raise error

    @app.command()
    def other() -> None:  # (two commands: a group, as the real app)
        pass

    return app


@pytest.mark.parametrize(
    "error",
    [
        UsageError("--frob 3: give a number from 0 to 2, e.g. --frob 1"),
        EngineSpecError("engine 'x': there is no program 'x'"),
        ScheduleError("--rounds 0: give at least 1"),
    ],
)
def test_a_usage_error_from_any_command_is_one_line_and_exit_2(error: Exception) -> None:
    res = CliRunner().invoke(_app(error), ["go"])
    assert res.exit_code == 2
    assert res.stderr.strip() == f"error: {error}"
    assert res.stdout == ""


def test_other_errors_are_not_taken_for_usage_errors() -> None:
    res = CliRunner().invoke(_app(RuntimeError("a bug")), ["go"])
    assert res.exit_code == 1 and isinstance(res.exception, RuntimeError)


def test_the_error_types_keep_their_old_bases_for_one_release() -> None:
    assert issubclass(EngineSpecError, UsageError) and issubclass(EngineSpecError, ValueError)
    assert issubclass(UsageError, BidrefError)
    assert EngineArgError is EngineSpecError  # the two engine-argument errors are one
    with pytest.raises(ValueError):
        raise ScheduleError("still a ValueError")


# -- One dialect (issue 39): every error a user can fix reaches the handler above
# as it was raised; the CLI neither re-wraps it, nor says it itself, nor numbers
# its exit statuses twice.

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "bidref" / "cli"
THE_HANDLER = CLI / "_typer_app.py"


def _cli_files() -> list[Path]:
    return sorted(p for p in CLI.glob("*.py") if p != THE_HANDLER)


# Where bidref's UsageError types live (a new module with one: add it here).
_ERROR_MODULES = (
    "bidref.engines.spec",
    "bidref.net.framing",
    "bidref.sandbox.policy",
    "bidref.transcript.files",
    "bidref.tournament.ratings",
    "bidref.tournament.runner",
    "bidref.tournament.schedule",
    "bidref.tournament.shipping",
    "bidref.tournament.store",
)


def _usage_error_names() -> set[str]:
    """The names of every UsageError type bidref defines."""
    for name in _ERROR_MODULES + tuple(f"bidref.cli.{p.stem}" for p in CLI.glob("*.py")):
        importlib.import_module(name)
    names, todo = set(), [UsageError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return names


def _caught(handler: ast.ExceptHandler) -> set[str]:
    if handler.type is None:
        return set()
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {k.attr if isinstance(k, ast.Attribute) else getattr(k, "id", "") for k in kinds}


def test_no_cli_module_rewraps_an_error_message_as_another_error() -> None:
    """``except X as e: raise Refused(str(e))``: the same words, another type (and
    X already reaches the one handler). Adding words is fine; repeating them is not."""
    found = []
    for path in _cli_files():
        for h in ast.walk(ast.parse(path.read_text())):
            if not isinstance(h, ast.ExceptHandler) or h.name is None:
                continue
            for node in ast.walk(h):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name | ast.Attribute)
                    and len(node.args) == 1
                    and ast.unparse(node.args[0]) == f"str({h.name})"
                ):
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def test_no_cli_module_ends_the_command_on_a_usage_error_itself() -> None:
    """A second handler (``except Refused: print; raise typer.Exit(2)``, a
    ``_fail``): the one in ``_typer_app`` says it, escaped, exit 2."""
    usage = _usage_error_names()
    assert {"Refused", "EngineSpecError", "SandboxError", "TournamentError"} <= usage
    found = []
    for path in _cli_files():
        for h in ast.walk(ast.parse(path.read_text())):
            if isinstance(h, ast.ExceptHandler) and _caught(h) & usage:
                for node in ast.walk(h):  # it may add words, as a UsageError
                    if (
                        isinstance(node, ast.Raise)
                        and isinstance(node.exc, ast.Call)
                        and ast.unparse(node.exc.func).rsplit(".", 1)[-1] not in usage
                    ):
                        found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def test_the_cli_has_one_refusal_type() -> None:
    """Refusals of options are :class:`Refused`; errors of the layers below keep
    their own narrow types (they reach the handler as they are)."""
    own = []
    for path in sorted(CLI.glob("*.py")):
        module = importlib.import_module(f"bidref.cli.{path.stem}")
        own += [
            name
            for name, obj in vars(module).items()
            if isinstance(obj, type)
            and issubclass(obj, BaseException)
            and obj.__module__ == module.__name__
        ]
    assert own == ["Refused"]


def _exit_constants(path: Path) -> list[str]:
    """Module-level ``EXIT_... = <int>`` (a duration such as EXIT_POLL_NS is not one)."""
    out = []
    for node in ast.parse(path.read_text()).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if (
            isinstance(target, ast.Name)
            and target.id.startswith("EXIT_")
            and not target.id.endswith("_NS")
            and isinstance(value, ast.Constant)
            and isinstance(value.value, int)
        ):
            out.append(f"{path.relative_to(ROOT)}: {target.id} = {value.value}")
    return out


def test_exit_codes_are_defined_once() -> None:
    """Every exit status is an :class:`ExitCode`; ``launch.py`` repeats 130 because
    it exits before importing anything, and the two must agree."""
    found = [c for p in sorted((ROOT / "bidref").rglob("*.py")) for c in _exit_constants(p)]
    assert found == ["bidref/launch.py: EXIT_INTERRUPTED = 130"]
    assert launch.EXIT_INTERRUPTED == ExitCode.INTERRUPTED
    literal = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("typer.Exit", "sys.exit"):
                codes = [k.value for k in node.keywords if k.arg == "code"] + node.args
                if any(isinstance(n, ast.Constant) for c in codes for n in ast.walk(c)):
                    literal.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert literal == []


@pytest.mark.parametrize("error", [SandboxError, EngineFilesError, SprtError])
def test_the_errors_outside_the_base_are_usage_errors_now(error: type[Exception]) -> None:
    assert issubclass(error, UsageError) and issubclass(error, ValueError)
    res = CliRunner().invoke(_app(error("--memory '3X': give a size such as 512M")), ["go"])
    assert (res.exit_code, res.stderr) == (2, "error: --memory '3X': give a size such as 512M\n")


# A command that exits 2 itself, and why it may (each prints several findings first)
OWN_USAGE_EXITS = {
    "rules_cmd.py",  # `rules --check A B C`: one line per action, exit 2 if any is bad
    "report_cmd.py",  # the HTML report's writer says which of its files failed
}


def test_a_refusal_is_raised_to_the_handler_not_printed_and_exited() -> None:
    """``typer.echo(msg, err=True); raise typer.Exit(2)`` is the handler by another
    name: without its ``error:`` prefix and its escaping of the quoted input."""
    found = [
        f"{path.name}:{n.lineno}"
        for path in _cli_files()
        if path.name not in OWN_USAGE_EXITS
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, ast.Raise) and n.exc is not None and "ExitCode.USAGE" in ast.unparse(n.exc)
    ]
    assert found == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["replay", "a.jsonl", "b.jsonl"], "error: give one transcript to show (2 given)"),
        (["replay", "/nonexistent/t.jsonl"], "error: /nonexistent/t.jsonl: cannot read"),
        (["validate", "/nonexistent/m.txt"], "error: /nonexistent/m.txt: cannot read"),
        (["rules", "no-such-topic"], "error: no section of the rules is about 'no-such-topic'"),
    ],
)
def test_replay_validate_and_rules_refuse_through_the_one_handler(
    args: list[str], says: str
) -> None:
    from bidref.cli import app

    res = CliRunner().invoke(app, args)
    assert res.exit_code == ExitCode.USAGE and res.output.startswith(says), res.output
