"""A group of command-line options declared once, on a dataclass, and handed to
a command as one value (the jail's options, a cluster's trust options).

``grouped(Args, "name")`` is a decorator: the fields of ``Args`` (each annotated
with its ``typer.Option``) join the command's parameters, and the command
receives them as ``name=Args(...)``. typer sees the combined signature.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar, cast, get_type_hints

F = TypeVar("F", bound="Any")


def grouped(args_type: type[Any], param: str) -> Callable[[F], F]:
    """The decorator that gives a command the options of ``args_type`` as ``param``."""
    hints = get_type_hints(args_type, include_extras=True)
    names = [f.name for f in fields(args_type)]
    added = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=hints[f.name]
        )
        for f in fields(args_type)
    ]

    def decorate(fn: F) -> F:
        own = inspect.signature(fn, eval_str=True)
        kept = [p for p in own.parameters.values() if p.name != param]

        @functools.wraps(fn)
        def command(*args: Any, **kwargs: Any) -> Any:
            given = {n: kwargs.pop(n) for n in names if n in kwargs}
            return fn(*args, **{param: args_type(**given)}, **kwargs)

        command.__signature__ = own.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
        command.__annotations__ = {
            **{k: v for k, v in get_type_hints(fn, include_extras=True).items() if k != param},
            **{p.name: p.annotation for p in added},
        }
        del command.__wrapped__  # typer must see the signature above, not fn's
        return cast(F, command)

    return decorate
