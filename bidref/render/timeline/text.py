"""The replay page's wording: times, durations and a match's end in words."""

from __future__ import annotations

from typing import Any

from ...outcome import EndReason
from ...transcript.lines import EngineExit

SEATS = "AB"
MS = 1_000_000


def seconds(ns: int | None) -> str:
    """``12.35 s`` (``—`` for no value)."""
    if ns is None:
        return "—"
    return f"{ns / 1e9:.2f} s"


def duration(ns: int | None) -> str:
    """A short duration: ``12 ms`` below a second, else ``1.23 s``."""
    if ns is None:
        return "—"
    if abs(ns) < 1_000_000_000:
        return f"{ns / MS:.0f} ms"
    return seconds(ns)


def cpu_duration(ns: int) -> str:
    """A CPU time: a decision's is often below a millisecond, so one decimal more."""
    return duration(ns) if ns >= 1_000_000_000 else f"{ns / MS:.1f} ms"


def took_text(
    elapsed_ns: int | None,
    delay_used_ns: int | None,
    bank_used_ns: int | None,
    cpu_ns: int | None = None,
    wait_ns: int | None = None,
) -> str:
    """What a decision took: ``12 ms (delay 12 ms, bank 0 ms, CPU 2.5 ms)``."""
    cpu = "" if cpu_ns is None else f", CPU {cpu_duration(cpu_ns)}"
    wait = "" if wait_ns is None else f", waited for a CPU {cpu_duration(wait_ns)}"
    return (
        f"{duration(elapsed_ns)} (delay {duration(delay_used_ns)},"
        f" bank {duration(bank_used_ns)}{cpu}{wait})"
    )


def engine_exit_text(e: EngineExit) -> str:
    """How an engine ended: ``exited, exit code 0; 3 log lines, 0 bytes on stderr``."""
    status = f"signal {e.signal}" if e.signal else f"exit code {e.exit_code}"
    return f"{e.how}, {status}; {e.log_lines} log lines, {e.stderr_bytes} bytes on stderr"


def result_text(end: dict[str, Any], names: list[str] | tuple[str, str]) -> str:
    """``alpha (A) wins: time: the clock ran out (B, 50 ms late)`` and the like."""
    w = end.get("winner")
    reason = str(end.get("reason"))
    detail = end.get("detail") or {}
    who = f"{names[w]} ({SEATS[w]}) wins" if w in (0, 1) else "No winner"
    said = EndReason.named(reason)
    why = reason if said is None else said.cause
    if said is EndReason.RESOURCES and detail.get("limit"):  # the one it ran into
        why = f"a jail limit ({detail['limit']})"
    extra = []
    s = detail.get("seat")
    if s in (0, 1):
        extra.append(f"{SEATS[s]}")
    if "overrun_ns" in detail:
        extra.append(f"{duration(detail['overrun_ns'])} late")
    for k in ("action", "rule", "message", "problem", "cause", "max_rounds", "signal"):
        if detail.get(k) not in (None, ""):
            extra.append(f"{k.replace('_', ' ')} {detail[k]}")
    if "exit_code" in detail and detail["exit_code"] is not None:
        extra.append(f"exit code {detail['exit_code']}")
    bal = end.get("balances")
    tail = f" · balances {bal[0]}–{bal[1]}" if isinstance(bal, list) and len(bal) == 2 else ""
    rated = "" if end.get("rated", True) else " · not rated"
    return f"{who}: {why}" + (f" ({', '.join(extra)})" if extra else "") + tail + rated
