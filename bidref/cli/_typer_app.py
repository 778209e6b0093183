"""The typer app of the command line, built on first use (see ``bidref.cli``).

Kept out of ``bidref/cli/__init__.py`` so that ``bidref --help`` and
``bidref --version`` answer without importing typer, rich or the commands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer._click.exceptions import UsageError
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


def _plain_help_option(option: Any) -> Any:
    # typer shows a flag's type as "<bool>"; -h/--help takes no value.
    if option is not None:
        option.metavar = ""
    return option


def _no_type(ctx: Any) -> None:
    return None


class _OneLineErrors:
    """A mistake the parser finds (a value that is not a number, an unknown option)
    comes out as bidref's one-line error with exit status 2 (:mod:`.usage`), not
    in the parser's own boxed wording."""

    def make_context(self, info_name: Any, args: Any, parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)  # type: ignore[misc]
        except UsageError as e:
            from .usage import refuse

            path = f"{parent.command_path} {info_name}" if parent is not None else str(info_name)
            raise refuse(e, self, path) from None


class _Command(_OneLineErrors, TyperCommand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            # An argument's help says what it is (an engine, a file): "<str>" says nothing.
            if isinstance(param, TyperArgument):
                setattr(param, "display_type_rich", _no_type)  # noqa: B010
            # A flag takes no value: no "<bool>" after it.
            elif isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
                param.metavar = ""

    def get_help_option(self, ctx: Any) -> Any:
        return _plain_help_option(super().get_help_option(ctx))


class _Group(_OneLineErrors, TyperGroup):
    def resolve_command(self, ctx: Any, args: Any) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except UsageError as e:  # no such command (with its "did you mean")
            from .usage import refuse

            raise refuse(e) from None

    def get_help_option(self, ctx: Any) -> Any:
        return _plain_help_option(super().get_help_option(ctx))

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a :class:`~bidref.errors.UsageError` it raises (an
        option, engine argument or file that cannot be used) becomes
        ``error: <message>`` on stderr and exit status 2: the command line's one
        handler of the errors its users can fix (issue 30)."""
        from ..errors import UsageError

        try:
            return super().invoke(ctx)
        except UsageError as e:
            from .options import refusal

            raise refusal(str(e)) from None


class _App(typer.Typer):
    """The app, whose commands show -h/--help without a "<bool>" placeholder."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        kwargs.setdefault("cls", _Command)
        return super().command(*args, **kwargs)


def _new_app() -> _App:
    return _App(
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


_app: _App | None = None
_loaded: set[str] = set()

# Each command's module (it registers the command on import).
MODULES = {
    "match": "match_cmd",
    "notation": "rules_cmd",
    "rules": "rules_cmd",
    "validate": "validate_cmd",
    "replay": "replay_cmd",
    "play": "play_cmd",
    "tournament": "tournament_cmd",
    "check-engine": "check_engine_cmd",
    "connect": "connect_cmd",
    "tournament-report": "report_cmd",
}
ORDER = (
    "match_cmd",
    "rules_cmd",
    "validate_cmd",
    "replay_cmd",
    "play_cmd",
    "tournament_cmd",
    "check_engine_cmd",
    "connect_cmd",
    "report_cmd",
)


def build(command: str | None = None) -> _App:
    """The app with every command registered; with ``command`` (the one the command
    line names), only that command's module is imported: `bidref match ...` need
    not import the replay or the play screen."""
    global _app
    import importlib

    if _app is None:
        import bidref.cli as package

        _app = _new_app()
        _app.callback()(_root)
        package.app = _app  # what the command modules register on (`from . import app`)
    wanted = [MODULES[command]] if command in MODULES else list(ORDER)
    for module in wanted:
        if module not in _loaded:
            _loaded.add(module)
            importlib.import_module(f"{__package__}.{module}")
    return _app
