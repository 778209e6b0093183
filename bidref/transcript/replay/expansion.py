"""What ``bidref-transcript/2`` derives, in the fields ``/1`` spells out (for
:func:`bidref.transcript.expand.expanded_lines`)."""

from __future__ import annotations

from typing import Any

from ...rules import Charge, Match, MatchClock
from .. import lines
from ..lines import Reply
from .clock import Pending


def request_fields(m: Match, c: MatchClock, seat: int, t_ns: int) -> dict[str, Any]:
    return {
        "round": m.round_number,
        "turn": m.turn,
        "phase": m.phase.value,
        "clock": {
            "delay_left_ns": c.delay_left,
            "bank_ns": c.banks[seat],
            "opponent_bank_ns": c.banks[1 - seat],
        },
        "deadline_ns": c.deadline(t_ns),
    }


def reply_fields(r: Reply, charge: Charge, after: MatchClock) -> dict[str, Any]:
    return lines.reply_fields(
        r.status, r.action, r.rule, charge, after.banks, r.cpu_ns, r.idle_cpu_ns, r.wait_ns
    )


def retry_fields(p: Pending, c: MatchClock) -> dict[str, Any]:
    return {"deadline_ns": p.deadline, "delay_left_ns": c.delay_left, "bank_ns": c.banks[p.seat]}
