"""What the referee sends an engine never holds a tile hidden from it."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bidref.match.wire import event_lines, request_line, seat_event_lines
from bidref.rules import Drew, Match, MatchClock, Placed, Tile, TimeControl, tile


def _tiles(obj: Any) -> set[Tile]:
    found: set[Tile] = set()
    if isinstance(obj, list):
        if len(obj) == 2 and all(type(v) is int and 0 <= v <= 6 for v in obj):
            found.add(tile(obj[0], obj[1]))
        for v in obj:
            found |= _tiles(v)
    elif isinstance(obj, dict):
        for v in obj.values():
            found |= _tiles(v)
    return found


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), choice_seed=st.integers(0, 2**32))
def test_requests_and_events_hold_no_hidden_tile(seed: int, choice_seed: int) -> None:
    rng = random.Random(choice_seed)
    m = Match.new(seed)
    clock = MatchClock.start(TimeControl())
    req_id = 0
    requests = 0
    for _ in range(400):
        if m.over:
            break
        p = m.to_act
        clock = clock.begin(p, m.turn)
        req_id += 1
        msg = json.loads(request_line(m, req_id, clock))
        hidden = m.hidden_from(p)
        assert not (_tiles(msg["view"]) & hidden)
        assert not (_tiles(msg["legal"]) & hidden)
        assert sorted(tile(a, b) for a, b in msg["view"]["hand"]) == sorted(m.hands[p])
        requests += 1
        before = {s: m.hidden_from(s) for s in (0, 1)}
        events = m.apply(rng.choice(m.legal_actions()))
        # the referee's fast form for both seats says the same as event_lines
        both = seat_event_lines(events)
        for s in (0, 1):
            assert both[s] == [x for ev in events if (x := event_lines(ev, s)) is not None]
        for ev in events:
            for s in (0, 1):
                line = event_lines(ev, s)
                if line is None:
                    continue
                event = json.loads(line)["event"]
                if isinstance(ev, Drew):
                    assert (event["tile"] is None) == (ev.player != s)
                if event["kind"] in ("round_ended", "round_started", "match_ended"):
                    continue  # the round is over: hands are public now
                # a placement shows the placed tile, a draw shows the drawer its
                # tile; nothing else hidden may show
                shown: set[Tile | None] = set()
                if isinstance(ev, Placed) or (isinstance(ev, Drew) and ev.player == s):
                    shown = {ev.tile}
                assert _tiles(event) & before[s] <= shown
    assert requests > 10
