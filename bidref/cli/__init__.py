"""The bidref command line: the only place that prints or exits.

Each command lives in its own module and registers itself on ``app`` here.
"""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(
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
from . import connect_cmd  # noqa: E402,F401
from . import report_cmd  # noqa: E402,F401
