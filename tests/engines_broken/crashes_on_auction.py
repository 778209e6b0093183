"""Exits with an error as soon as it is asked to bid."""

import sys

from _base import play


def crash(req: dict) -> None:  # type: ignore[type-arg]
    if req["view"]["phase"] == "auction":
        sys.stderr.write("crashes_on_auction: no idea how to bid\n")
        sys.exit(3)


play(name="crashes_on_auction", on_request=crash)
