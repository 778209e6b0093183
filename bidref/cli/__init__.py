"""The bidref command line: the only place that prints or exits.

Each command lives in its own module and registers itself on ``app`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup


def _plain_help_option(option: Any) -> Any:
    # typer shows a flag's type as "<bool>"; -h/--help takes no value.
    if option is not None:
        option.metavar = ""
    return option


def _no_type(ctx: Any) -> None:
    return None


class _Command(TyperCommand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            # An argument's help says what it is (an engine, a file): "<str>" says nothing.
            if isinstance(param, TyperArgument):
                setattr(param, "display_type_rich", _no_type)  # noqa: B010

    def get_help_option(self, ctx: Any) -> Any:
        return _plain_help_option(super().get_help_option(ctx))


class _Group(TyperGroup):
    def get_help_option(self, ctx: Any) -> Any:
        return _plain_help_option(super().get_help_option(ctx))


class _App(typer.Typer):
    """The app, whose commands show -h/--help without a "<bool>" placeholder."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        kwargs.setdefault("cls", _Command)
        return super().command(*args, **kwargs)


app = _App(
    cls=_Group,
    name="bidref",
    help="Referee and toolkit for Spectacular Bid, a two-player Fives dominoes duel.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"bidref {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            metavar="",
            callback=_print_version,
            is_eager=True,
            help="Print bidref's version and exit.",
        ),
    ] = False,
) -> None:
    """Run matches between engines, replay and validate games, run tournaments, play."""


def main() -> None:
    app()


# Command modules register themselves on import.
from . import match_cmd  # noqa: E402,F401,I001
from . import rules_cmd  # noqa: E402,F401
from . import validate_cmd  # noqa: E402,F401
from . import replay_cmd  # noqa: E402,F401
from . import play_cmd  # noqa: E402,F401
from . import tournament_cmd  # noqa: E402,F401
from . import check_engine_cmd  # noqa: E402,F401
