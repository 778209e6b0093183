"""The console a command prints its output to: the same on a terminal, and never
cut when piped (issue 35, item 4).

On a terminal, rich wraps text at the window's width and pads tables to their
columns; that is what a reader wants there. Into a pipe or a file, rich would
wrap at 80 columns (breaking a line a script greps for) and crop what does not
fit (a rule's title lost its end: ``balances A 190 · B``); so there, text is
soft-wrapped (one line stays one line, whole) and each line's trailing spaces
(a table's padding) are dropped.
"""

from __future__ import annotations

import io
import sys
from typing import IO, TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.console import Console, RenderableType


class TrimmedLines(io.TextIOBase):
    """A text stream that writes to ``sys.stdout`` (as it is at each write: a test
    runner swaps it) with the spaces at the end of each line dropped. Spaces not
    yet followed by more text are held back until the line goes on or ends."""

    def __init__(self) -> None:
        super().__init__()
        self.pending = ""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, s: str) -> int:
        *lines, rest = (self.pending + s).split("\n")
        out = "".join(line.rstrip(" ") + "\n" for line in lines)
        kept = rest.rstrip(" ")
        self.pending = rest[len(kept) :]
        if out or kept:
            sys.stdout.write(out + kept)
        return len(s)

    def flush(self) -> None:
        sys.stdout.flush()


# Piped, a table is given this many columns: as many as it needs (tables here
# do not expand), so that none is cut to fit an imaginary window.
UNBOUNDED = 10_000


def output_console(*, tables: bool = False, **kwargs: Any) -> Console:
    """A rich console on stdout: as rich makes it on a terminal; piped, one that
    never cuts a line and pads none (``tables``: the output has tables, each
    given all the columns it needs; ``kwargs``: rich's own, e.g. ``highlight``)."""
    from rich.console import Console

    if sys.stdout.isatty():
        return Console(**kwargs)
    if tables:
        kwargs.setdefault("width", UNBOUNDED)
    return Console(file=cast("IO[str]", TrimmedLines()), soft_wrap=True, **kwargs)


def print_whole(console: Console, renderable: RenderableType, title: str) -> None:
    """Print a renderable that crops to the console's width (a rule with ``title``)
    at least wide enough for the title, when the output is not a terminal."""
    if console.is_terminal:
        console.print(renderable)
        return
    # (print's own width= is capped at the console's: widen the console itself)
    width = console.width
    console.width = max(width, len(title) + 6)
    try:
        console.print(renderable)
    finally:
        console.width = width
