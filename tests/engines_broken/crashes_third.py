"""Exits at its third request after each start, whatever the position."""

import sys

from _base import play

seen = 0


def count(req: dict) -> None:  # type: ignore[type-arg]
    global seen
    seen += 1
    if seen == 3:
        sys.stderr.write("crashes_third: out of memory\n")
        sys.exit(1)


play(name="crashes_third", on_request=count)
