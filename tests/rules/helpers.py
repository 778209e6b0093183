from __future__ import annotations

from collections.abc import Iterable

from bidref.rules import Event, Match, parse_action


def play_out(m: Match, actions: Iterable[str]) -> list[Event]:
    """Apply actions given in notation; return every event they caused."""
    events: list[Event] = []
    for text in actions:
        events.extend(m.apply(parse_action(text)))
    return events
