"""Command-line mistakes that the parser finds (a value that is not a number, an
unknown option, a missing argument) as bidref's own one-line errors.

The parser (typer, on click and pydantic) words them for itself, in a box:
``Invalid value for '--bank': Input should be a valid number, unable to parse
string as a number``. Here they become what every other refusal of bidref says:
one line that quotes the value and names the fix, on stderr, exit status 2
(:func:`bidref.cli.options.refusal`):

    error: --bank 'abc': give a number of seconds, e.g. --bank 10

Imported only when such a mistake is made.
"""

from __future__ import annotations

import typing
from typing import Any

import typer

EXAMPLES = {"SECONDS": "10", "N": "3", "FILE": "FILE", "DIR": "DIR"}


def refuse(error: Exception, command: Any = None, path: str = "") -> typer.Exit:
    """Print ``error`` (a parser's ``UsageError`` met while ``command``, called as
    ``path``, read its arguments) as one line; the exit to raise."""
    from .options import refusal

    return refusal(one_line(error, command, path))


def one_line(error: Exception, command_obj: Any = None, path: str = "") -> str:
    """The one-line wording of a parser's ``UsageError``."""
    ctx = getattr(error, "ctx", None)
    command = _command(getattr(ctx, "command_path", None) or path)
    command_obj = getattr(ctx, "command", None) or command_obj
    see = f"see `{command} -h`"
    kind = type(error).__name__
    message = str(getattr(error, "message", "") or "").strip()
    param = getattr(error, "param", None)
    if kind == "NoSuchOption":
        name = getattr(error, "option_name", "") or message.rpartition(" ")[2]
        possible = sorted(getattr(error, "possibilities", None) or ())
        guess = f"; did you mean {' or '.join(possible)}?" if possible else ""
        return f"{command}: there is no option {name}{guess} ({see})"
    if kind == "BadOptionUsage":
        name = getattr(error, "option_name", "") or "an option"
        option = _param_named(command_obj, name)
        what = _metavar(option) if option is not None else "a value"
        count = getattr(option, "nargs", 1) if option is not None else 1
        if count and count > 1:
            return f"{command}: {name} needs {count} values after it: {name} {what}"
        return f"{command}: {name} needs a value after it, e.g. {name} {_example(option)}"
    if kind == "MissingParameter" and param is not None:
        if getattr(param, "param_type_name", "") == "argument":
            return f"{command} needs {_metavar(param)}: give it ({see} for an example)"
        flag = _flag(param)
        return f"{command} needs {flag} {_metavar(param)} ({see})"
    if kind == "BadParameter" and param is not None:
        return _bad_value(param, error, message, see)
    if message.startswith("Got unexpected extra argument"):
        extra = message.rpartition(" (")[2].rstrip(")")
        return (
            f"{command}: unexpected extra argument(s) {extra!r}; put a command line with "
            f'spaces in quotes, e.g. "python3 bot.py --fast" ({see})'
        )
    if message.startswith("No such command"):
        text = message.replace("No such command", "there is no command").replace(
            ". Did you mean", "; did you mean"
        )
        return f"{command}: {text} (`bidref -h` lists the commands)"
    return f"{command}: {_sentence(message)} ({see})"


def _bad_value(param: Any, error: Exception, message: str, see: str) -> str:
    flag = _flag(param)
    cause = error.__cause__
    problems: list[dict[str, Any]] = []
    errors = getattr(cause, "errors", None)
    if callable(errors):
        problems = list(errors())
    first = problems[0] if problems else {}
    shown = f"{flag} {first['input']!r}" if "input" in first else flag
    kind = first.get("type", "")
    limits = first.get("ctx") or {}
    bare = _annotation(param)
    choices = typing.get_args(bare) if typing.get_origin(bare) is typing.Literal else ()
    seconds = getattr(param, "metavar", None) == "SECONDS"
    number = "a number of seconds" if seconds else "a number"
    if choices:
        names = [str(c) for c in choices]
        return f"{shown}: use {', '.join(names[:-1])} or {names[-1]}"
    if kind in ("float_parsing", "float_type"):
        return f"{shown}: give {number}, e.g. {flag} {_example(param)}"
    if kind in ("int_parsing", "int_from_float", "int_type"):
        return f"{shown}: give a whole number, e.g. {flag} {_example(param)}"
    if "ge" in limits or "gt" in limits:
        least = limits.get("ge", limits.get("gt"))
        at = "at least" if "ge" in limits else "more than"
        return f"{shown}: give a number of {at} {least}, e.g. {flag} {least}"
    if "le" in limits or "lt" in limits:
        most = limits.get("le", limits.get("lt"))
        at = "at most" if "le" in limits else "less than"
        return f"{shown}: give a number of {at} {most}, e.g. {flag} {most}"
    text = str(first.get("msg", message)).removeprefix("Value error, ")
    return f"{shown}: {_sentence(text)} ({see})"


def _annotation(param: Any) -> Any:
    """The type a parameter is read as (``X`` of ``X | None``)."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if type(None) in typing.get_args(annotation) and len(args) == 1:
        return args[0]
    return annotation


def _command(path: str) -> str:
    # Under a test runner the program's name may be "-" or a module's: say bidref.
    words = str(path or "").split()
    if not words:
        return "bidref"
    return " ".join(["bidref", *words[1:]])


def _param_named(command: Any, name: str) -> Any:
    for param in getattr(command, "params", ()):
        if name in getattr(param, "opts", ()):
            return param
    return None


def _flag(param: Any) -> str:
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
    if opts:
        return str(max(opts, key=len))
    return _metavar(param)


def _metavar(param: Any) -> str:
    metavar = getattr(param, "metavar", None)
    if metavar:
        return str(metavar)
    name = str(getattr(param, "name", "") or "VALUE")
    return name.upper()


def _example(param: Any) -> str:
    if param is None:
        return "VALUE"
    metavar = str(getattr(param, "metavar", "") or "")
    if metavar in EXAMPLES:
        return EXAMPLES[metavar]
    bare = _annotation(param)
    default = getattr(param, "default", None)
    if bare in (int, float) or isinstance(default, int | float):
        if isinstance(default, int | float) and not isinstance(default, bool) and default:
            return f"{default:g}"
        return "3" if bare is int else "10"
    return metavar or "VALUE"


def _sentence(text: str) -> str:
    """The parser's message as a clause: no capital, no full stop."""
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text
