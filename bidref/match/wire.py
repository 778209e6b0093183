"""The referee's lines to the seats, and the branches it prepares.

- :func:`request_line` and :func:`event_lines`: one request or event line as a
  seat receives it (the view never holds a tile hidden from that seat);
- :func:`seat_event_lines`: both seats' lines for the events of one step;
- :class:`Branch`: where one legal action of the player to move leads — the
  match after it, both seats' event lines and the next request without its
  clock — worked out while the player thinks, so that a reply naming it is
  answered by filling in the clock (see ``docs/perf.md``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from ..protocol.fastview import RequestEncoder, event_json
from ..rules import (
    MILLISECOND,
    Action,
    Drew,
    Event,
    Match,
    MatchClock,
    MatchEnded,
    RoundStarted,
    public_event,
)

SeatLines = tuple[list[str], list[str], bool]
"""Seat 0's and seat 1's event lines for one step, and whether the match ended."""


def request_line(
    match: Match, req_id: int, mclock: MatchClock, encoder: RequestEncoder | None = None
) -> str:
    """The request line for the player to act (the view never holds a hidden tile).

    Same text as ``encode(Request(...))`` of ``player_view(match, p).to_dict()``.
    """
    p = match.to_act
    delay_left = mclock.delay_left // MILLISECOND
    bank = mclock.banks[p] // MILLISECOND
    return (encoder or RequestEncoder()).encode_ms(
        match, req_id, delay_left, bank, mclock.banks[1 - p] // MILLISECOND, delay_left + bank
    )


_EVENT: Final = '{"type":"event","event":'


def event_lines(event: Event, seat: int) -> str | None:
    """The ``event`` message line for ``seat``, in the form that seat may see."""
    if isinstance(event, RoundStarted):
        return _EVENT + _dumps(event.public()) + "}"
    pub = public_event(event, seat)
    if pub is None:
        return None
    return _EVENT + event_json(pub) + "}"


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def seat_event_lines(events: list[Event]) -> SeatLines:
    """Each seat's event lines for ``events`` (in the form that seat may see), and
    whether the match ended."""
    out0: list[str] = []
    out1: list[str] = []
    over = False
    for ev in events:
        tp = type(ev)
        if tp is Drew:
            assert isinstance(ev, Drew)
            own = _EVENT + event_json(ev) + "}"
            other = _EVENT + event_json(ev.public_form()) + "}"
            out0.append(own if ev.player == 0 else other)
            out1.append(other if ev.player == 0 else own)
            continue
        if tp is RoundStarted:
            assert isinstance(ev, RoundStarted)
            line = _EVENT + _dumps(ev.public()) + "}"
        else:  # every other event is public as it is (public_event returns it unchanged)
            line = _EVENT + event_json(ev) + "}"
            if tp is MatchEnded:
                over = True
        out0.append(line)
        out1.append(line)
    return out0, out1, over


@dataclass(slots=True)
class Branch:
    """Where one action of the player to move leads: worked out while the player
    thinks, taken over if the player chooses it."""

    action: Action
    match: Match  # the match after the action
    events: list[Event]
    lines: SeatLines
    encoder: RequestEncoder  # its caches hold for ``match``
    request: tuple[Match, int, str, str] | None  # the next request without its clock:
    # (match, id, text before the clock members, text after); None when the match ends

    @classmethod
    def of(cls, match: Match, action: Action, encoder: RequestEncoder, next_id: int) -> Branch:
        """Where legal ``action`` leads from ``match``, which is left unchanged;
        ``encoder`` wrote the request for ``match``, and the next one has ``next_id``."""
        after = match.copy()
        layout = after.layout  # the copy of match.layout, unless a new round starts
        events = after.apply(action, after.to_act)
        forked = encoder.fork(match.layout, layout)
        request = None
        if not after.over:
            head, tail = forked.encode_parts(after, next_id)
            request = (after, next_id, head, tail)
        return cls(action, after, events, seat_event_lines(events), forked, request)
