"""The fast request encoder writes exactly what the model-based encoder writes."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bidref.protocol import encode_request
from bidref.protocol.fastview import RequestEncoder, event_json
from bidref.rules import Match, player_view, public_event


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), choice_seed=st.integers(0, 2**32))
def test_fast_request_equals_reference(seed: int, choice_seed: int) -> None:
    rng = random.Random(choice_seed)
    m = Match.new(seed)
    enc = RequestEncoder()
    n = 0
    while not m.over and n < 600:
        n += 1
        p = m.to_act
        clock = {"delay_left_ms": n, "bank_ms": 2 * n, "opponent_bank_ms": 3, "deadline_ms": 3 * n}
        view = player_view(m, p).to_dict()
        legal = [str(a) for a in m.legal_actions()]
        assert enc.encode(m, n, clock) == encode_request(n, view, clock, legal)
        m.apply(rng.choice(m.legal_actions()))
    assert n > 1


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), choice_seed=st.integers(0, 2**32))
def test_fast_events_equal_reference(seed: int, choice_seed: int) -> None:
    rng = random.Random(choice_seed)
    m = Match.new(seed)
    kinds: set[str] = set()
    for _ in range(600):
        if m.over:
            break
        for ev in m.apply(rng.choice(m.legal_actions())):
            kinds.add(ev.kind)
            for form in (ev, public_event(ev, None)):
                if form is not None:
                    assert event_json(form) == json.dumps(form.to_dict(), separators=(",", ":"))
    assert "transfer" in kinds or "auction" in kinds or m.over
