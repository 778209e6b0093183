"""The bidref command line: the only place that prints or exits.

Each command lives in its own module and registers itself on ``app`` (built on
first use by :mod:`._typer_app`). ``bidref --help`` and ``--version`` are
answered by :mod:`.fast_help` without importing typer or any command, so they
start in a few times the interpreter's own start-up (benchmarks/startup.py).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._typer_app import _App

    app: _App


def __getattr__(name: str) -> Any:
    # ``app`` is built on first use: ``bidref --help`` needs none of it.
    if name == "app":
        from ._typer_app import build

        return build()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    from .fast_help import answer

    if answer(sys.argv[1:]):
        return
    from ._typer_app import build

    args = sys.argv[1:]
    build(args[0] if args else None)()
