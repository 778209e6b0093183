"""Answers correctly, but when it must draw it thinks past the request's deadline."""

import time

from _base import play


def think(req: dict) -> None:  # type: ignore[type-arg]
    if req["legal"] == ["draw"]:
        time.sleep(req["clock"]["deadline_ms"] / 1000 + 0.4)


play(name="slow_to_draw", on_request=think)
