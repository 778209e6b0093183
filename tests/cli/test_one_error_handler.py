"""The CLI's one handler of the errors a user can fix (issue 30): a
:class:`~bidref.errors.UsageError` that leaves any command is printed as
``error: <message>`` on stderr, with exit status 2; other errors are not hidden."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bidref.cli._typer_app import _App, _Group
from bidref.engines.spec import EngineSpecError
from bidref.errors import BidrefError, UsageError
from bidref.tournament.engines import EngineArgError
from bidref.tournament.schedule import ScheduleError


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
