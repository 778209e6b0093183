"""Answers correctly, but when it must draw it never answers (stuck in a loop)."""

import time

from _base import play


def hang(req: dict) -> None:  # type: ignore[type-arg]
    while req["legal"] == ["draw"]:
        time.sleep(1)


play(name="hangs_on_draw", on_request=hang)
