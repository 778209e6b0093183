"""What ``bidref-transcript/2`` derives, in the fields ``/1`` spells out (for
:func:`bidref.transcript.expand.expanded_lines`)."""

from __future__ import annotations

from typing import Any

from ...rules import Charge, Match, MatchClock
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
    cpu: dict[str, Any] = {}
    if r.cpu_ns is not None:
        cpu["cpu_ns"] = r.cpu_ns
    if r.idle_cpu_ns is not None:
        cpu["idle_cpu_ns"] = r.idle_cpu_ns
    return {
        "status": r.status,
        "action": r.action,
        "rule": r.rule,
        "elapsed_ns": charge.elapsed,
        **cpu,
        "charge": {
            "delay_used_ns": charge.delay_used,
            "bank_used_ns": charge.bank_used,
            "timed_out": charge.timed_out,
            "overrun_ns": charge.overrun,
        },
        "banks_ns": list(after.banks),
    }


def retry_fields(p: Pending, c: MatchClock) -> dict[str, Any]:
    return {"deadline_ns": p.deadline, "delay_left_ns": c.delay_left, "bank_ns": c.banks[p.seat]}
