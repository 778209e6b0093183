"""Replay accepts exactly what the writer can write: transcripts with every cap hit.

The referee records at most LINES_CAP (200) log lines, stale replies and rules
requests per seat and match, keeps the raw lines of only the first 200 rejected
replies per seat, and cuts every raw line and log message it keeps to RAW_CAP
(1000) characters. A flooding seat hits every cap, in both formats; the
transcripts replay clean.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bidref.match.session import REJECTED_PER_TURN
from bidref.transcript import FORMAT, FORMAT_V1
from bidref.transcript.lines import LINES_CAP, RAW_CAP
from bidref.transcript.replay import replay
from tests.transcript.scripted_seats import ScriptedSeat, referee_transcript


class FloodSeat(ScriptedSeat):
    """At its first decision: floods logs, rules questions and stale replies, then
    answers with illegal actions (one of them very long) until ``illegal`` were sent,
    then with a legal action padded past the raw-line cap."""

    flood = LINES_CAP + 5
    illegal = LINES_CAP + 5
    pad = RAW_CAP + 10

    def _on(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "request" and self.decisions == 0:
            self.decisions += 1
            rid = msg["id"]
            self.pending_legal = (rid, msg["legal"])
            for i in range(self.flood):
                self._reply(0, {"type": "log", "message": "x" * (i % 3 * RAW_CAP)})
                self._reply(0, {"type": "rules", "id": f"q{i}", "topic": "7"})
                self._reply(0, {"type": "action", "id": rid + 1000 + i, "action": "draw"})
            self.sent_illegal = self.this_turn = 1
            self._reply(1, {"type": "action", "id": rid, "action": "play 6-6 0-0:branch_a"})
            return
        if kind == "request" and self.sent_illegal < self.illegal:
            # the referee takes at most REJECTED_PER_TURN rejected replies to one
            # request (then the match is lost): the rest go to later requests
            self.pending_legal = (msg["id"], msg["legal"])
            self.sent_illegal += 1
            self.this_turn = 1
            self._reply(0, {"type": "action", "id": msg["id"], "action": "open 9-9"})
            return
        if kind == "error" and msg.get("code") in ("illegal", "bad_action"):
            rid, legal = self.pending_legal
            if self.sent_illegal < self.illegal and self.this_turn < REJECTED_PER_TURN - 1:
                self.sent_illegal += 1
                self.this_turn += 1
                text = "nonsense " * (RAW_CAP // 8) if self.sent_illegal == 3 else "open 9-9"
                self._reply(0, {"type": "action", "id": rid, "action": text})
                return
            padded = {"type": "action", "id": rid, "action": legal[0], "pad": "p" * self.pad}
            self._reply(0, padded)
            return
        super()._on(msg)


@pytest.mark.timeout(600)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    flood=st.integers(LINES_CAP - 2, LINES_CAP + 3),
    illegal=st.integers(LINES_CAP - 1, LINES_CAP + 3),
    pad=st.sampled_from([RAW_CAP - 60, RAW_CAP - 50, RAW_CAP + 1, 3 * RAW_CAP]),
    fmt=st.sampled_from([FORMAT, FORMAT_V1]),
    raw_lines=st.booleans(),
)
def test_every_cap_hit_replays_clean(
    flood: int, illegal: int, pad: int, fmt: str, raw_lines: bool
) -> None:
    seat = type("Flood", (FloodSeat,), {"flood": flood, "illegal": illegal, "pad": pad})
    with tempfile.TemporaryDirectory() as d:
        data = referee_transcript(
            Path(d) / "t.jsonl",
            format=fmt,
            raw_lines=raw_lines and fmt == FORMAT,
            seat_class=seat,
            max_rounds=1,
            bank_s=3600,
        )
    lines = [json.loads(x) for x in data.splitlines()]
    counts = {
        k: sum(1 for x in lines if x["type"] == k and x.get("seat") == 0)
        for k in ("log", "rules", "stale")
    }
    assert counts == {k: min(flood, LINES_CAP) for k in counts}
    rejected = [
        x for x in lines if x["type"] == "reply" and x.get("status") not in (None, "accepted")
    ]
    assert len(rejected) == illegal
    private = [i for x in lines if x["type"] == "round_reveal" for i in x.get("private", [])]
    assert max(len(i.get("raw") or i.get("message") or "") for i in private) > RAW_CAP  # cut
    r = replay(data)
    assert r.exit_code == 0, r.problem
    ex = next(x for x in lines if x["type"] == "engine_exit" and x["seat"] == 0)
    assert ex["log_lines"] == ex["stale_lines"] == ex["rules_requests"] == flood
    assert ex["rejected"] == illegal


def test_one_line_past_a_cap_is_caught() -> None:
    """A transcript with more lines than the referee ever writes is not what it wrote."""
    with tempfile.TemporaryDirectory() as d:
        data = referee_transcript(
            Path(d) / "t.jsonl", format=FORMAT, seat_class=FloodSeat, max_rounds=1, bank_s=3600
        )
    lines = data.splitlines()
    i = max(n for n, x in enumerate(lines) if json.loads(x)["type"] == "log")
    extra = json.loads(lines[i])
    lines.insert(i + 1, json.dumps(extra).encode())
    for n in range(i + 1, len(lines)):
        x = json.loads(lines[n])
        x["seq"] = n
        lines[n] = json.dumps(x).encode()
    r = replay(b"\n".join(lines) + b"\n")
    assert r.problem is not None and r.problem.line == i + 2
    assert f"at most {LINES_CAP}" in r.problem.message
