"""The replay page's wording: times, durations, each line and a match's end in words
(:class:`Words`: what the page says of each line; the builder keeps the state)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...outcome import EndReason
from ...outcome.details import (
    CrashDetail,
    EndDetail,
    IllegalDetail,
    ResourcesDetail,
    RoundLimitDetail,
    TimeDetail,
    UnreadDetail,
    decode_detail,
)
from ...rules import MatchEnded, Placed, RoundEnded, Tile, Transfer
from ...transcript.lines import EngineExit, Header, Hello, Reply, Retry, Stale

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


class Words:
    """What the page says of each line of a match between ``names`` (A's, B's)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names

    def who(self, seat: int | None) -> str:
        """``A (alpha)``; ``nobody`` for no seat."""
        if seat is None or seat not in (0, 1):
            return "nobody"
        return f"{SEATS[seat]} ({self.names[seat]})"

    # the lines

    def header(self, h: Header, clock: str) -> str:
        return (
            f"{self.names[0]} (A) vs {self.names[1]} (B) · {clock}"
            + (f" · at most {h.max_rounds} rounds" if h.max_rounds else "")
            + f" · illegal actions: {h.illegal}"
        )

    def hello(self, seat: int | None, h: Hello) -> str:
        e = h.engine
        return (
            f"{self.who(seat)} said hello: {e.get('name', '?')} {e.get('version', '')}"
            f" by {e.get('author', '?')} · {duration(h.elapsed_ns)}"
        )

    def round_start(
        self, number: int, opening: str, jockey: int | None, balances: tuple[int, int]
    ) -> str:
        text = f"Round {number}: {opening} opening" + (
            f", {self.who(jockey)} is the jockey" if jockey is not None else ""
        )
        return text + f" · balances {balances[0]}–{balances[1]}"

    def request(
        self, seat: int | None, phase: str | None, delay_left: int | None, bank: int | None
    ) -> str:
        return (
            f"{self.who(seat)} to decide ({'?' if phase is None else phase}): delay "
            f"{seconds(delay_left)} + bank {seconds(bank)}"
        )

    def reply(self, seat: int | None, rp: Reply, error: str | None) -> str:
        """An accepted reply's action, or a rejected one's rule and ``error`` message."""
        ch = rp.charge
        took = took_text(
            rp.elapsed_ns,
            None if ch is None else ch.delay_used_ns,
            None if ch is None else ch.bank_used_ns,
            rp.cpu_ns,
            rp.wait_ns,
        )
        if rp.status == "accepted":
            return f"{self.who(seat)}: {rp.action} · took {took}"
        why = f": {error}" if error else ""
        return f"{self.who(seat)}: {rp.status} action ({rp.rule or 'no rule'}) · took {took}{why}"

    def retry(self, seat: int | None, rt: Retry) -> str:
        return (
            f"{self.who(seat)} decides again: delay {seconds(rt.delay_left_ns)}"
            f" + bank {seconds(rt.bank_ns)}"
        )

    def log(self, seat: int | None, message: str | None, chars: int) -> str:
        shown = message if message is not None else f"({chars} characters, not revealed)"
        return f"{self.who(seat)} log: " + shown

    def rules(self, seat: int | None, topic: str | None) -> str:
        return f"{self.who(seat)} asked for the rules, topic {topic!r}"

    def stale(self, seat: int | None, s: Stale) -> str:
        return (
            f"{self.who(seat)} answered request {s.id}, which is not pending "
            f"({s.pending} is): ignored"
        )

    def timeout(self, seat: int | None, overrun_ns: int) -> str:
        return f"{self.who(seat)} ran out of time: {duration(overrun_ns)} late"

    def resign(self, seat: int | None) -> str:
        return f"{self.who(seat)} resigned"

    def round_reveal(self, number: int, items: int) -> str:
        return f"Round {number} revealed: the deal and {items} private items open"

    def seed_reveal(self, seed: int) -> str:
        return f"The seed is revealed: {seed}"

    def engine_exit(self, seat: int | None, e: EngineExit) -> str:
        return f"{self.who(seat)} ended: {engine_exit_text(e)}"

    # the events

    def before_any_round(self, kind: object) -> str:
        return f"{kind} (before any round)"

    def unusable(self, kind: object) -> tuple[str, str]:
        """The text and the note of an event the page cannot use."""
        return f"event {kind!r}", f"an event of kind {kind!r} whose fields the page cannot use"

    def placed(self, ev: Placed) -> str:
        t, at = ev.tile, ev.at
        where = "opens with" if at is None else "plays"
        place = "" if at is None else f" at {at.words}"
        text = f"{self.who(ev.player)} {where} [{t.low}|{t.high}]{place} · count {ev.count}"
        return text + (f" → earns {ev.points}" if ev.points else "")

    def drew(self, seat: int, got: Tile | None, left: int) -> str:
        shown = f"[{got.low}|{got.high}]" if got is not None else "a tile"
        return f"{self.who(seat)} draws {shown} · {left} left"

    def passed(self, seat: int) -> str:
        return f"{self.who(seat)} passes: cannot play and the boneyard is empty"

    def not_auction(self, seat: int, action: str) -> str:
        return f"{self.who(seat)}: {action}"

    def bid(self, seat: int, bid: int, first: bool) -> str:
        return f"{self.who(seat)} {'bids' if first else 'raises to'} {bid}"

    def decline(self, seat: int, jockey: int | None) -> str:
        return f"{self.who(seat)} declines: {self.who(jockey)} opens for free"

    def accept(self, seat: int, bid: int | None, bidder: int | None) -> str:
        return f"{self.who(seat)} accepts {bid} from {self.who(bidder)}"

    def payment(self, ev: Transfer, bid: int | None) -> str:
        """What the auction's winner paid (less the jockey's credit, if any)."""
        credit = ""
        if bid is not None and ev.requested != bid:
            credit = f" (bid {bid} less the jockey's credit 15)"
        return f"{self.who(ev.payer)} pays {ev.amount}{credit}"

    def transfer(self, ev: Transfer) -> str:
        payer, amount, requested = ev.payer, ev.amount, ev.requested
        capped = f" (of {requested}: all {self.who(payer)} had)" if amount != requested else ""
        return (
            f"{self.who(payer)} pays {self.who(ev.payee)} {amount}{capped} for the {ev.reason}"
            f" → {ev.balances[0]}–{ev.balances[1]}"
        )

    def round_ended(self, ev: RoundEnded) -> str:
        w, pips = ev.winner, ev.pips
        if ev.reason == "domino":
            text = f"Round {ev.round} ends: {self.who(w)} dominoes"
        elif ev.reason == "block":
            text = f"Round {ev.round} is blocked: pips {pips[0]}–{pips[1]}, " + (
                f"{self.who(w)} is paid {ev.payout}" if w is not None else "equal, nothing paid"
            )
        else:
            text = f"Round {ev.round} ends: a balance reached 0"
        return text + f" · pips in hand {pips[0]}–{pips[1]}"

    def match_ended(self, ev: MatchEnded) -> str:
        return f"The game is over: {self.who(ev.winner)} wins by {ev.reason}"


def engine_exit_text(e: EngineExit) -> str:
    """How an engine ended: ``exited, exit code 0; 3 log lines, 0 bytes on stderr``."""
    status = f"signal {e.signal}" if e.signal else f"exit code {e.exit_code}"
    return f"{e.how}, {status}; {e.log_lines} log lines, {e.stderr_bytes} bytes on stderr"


def result_text(end: dict[str, Any], names: list[str] | tuple[str, str]) -> str:
    """``alpha (A) wins: time: the clock ran out (B, 50 ms late)`` and the like."""
    w = end.get("winner")
    reason = str(end.get("reason"))
    said = decode_detail(reason, end.get("detail") or {})
    who = f"{names[w]} ({SEATS[w]}) wins" if w in (0, 1) else "No winner"
    known = EndReason.named(reason)
    why = reason if known is None else known.cause
    if isinstance(said, ResourcesDetail) and said.limit:  # the one it ran into
        why = f"a jail limit ({said.limit})"
    extra = _facts(said)
    bal = end.get("balances")
    tail = f" · balances {bal[0]}–{bal[1]}" if isinstance(bal, list) and len(bal) == 2 else ""
    rated = "" if end.get("rated", True) else " · not rated"
    return f"{who}: {why}" + (f" ({', '.join(extra)})" if extra else "") + tail + rated


def _facts(d: EndDetail) -> list[str]:
    """What the result's line names of its detail, in the order it always has."""
    if isinstance(d, UnreadDetail):
        return _unread_facts(d.fields)
    out = [] if d.at_seat not in (0, 1) else [SEATS[d.at_seat]]
    if isinstance(d, TimeDetail):
        out.append(f"{duration(d.overrun_ns)} late")
    named: list[tuple[str, object]] = []
    if isinstance(d, IllegalDetail):
        named += [("action", d.action), ("rule", d.rule), ("message", d.message)]
    named += [("problem", d.problem_text), ("cause", d.cause_word)]
    if isinstance(d, RoundLimitDetail):
        named.append(("max rounds", d.max_rounds))
    if isinstance(d, CrashDetail | ResourcesDetail):
        named.append(("signal", d.signal))
    out += [f"{k} {v}" for k, v in named if v not in (None, "")]
    if isinstance(d, CrashDetail | ResourcesDetail) and d.exit_code is not None:
        out.append(f"exit code {d.exit_code}")
    return out


def _unread_facts(fields: Mapping[str, Any]) -> list[str]:
    """The same for a detail this bidref cannot read (a newer writer's, a damaged
    file's): the words it has, as they are."""
    out = [SEATS[fields["seat"]]] if fields.get("seat") in (0, 1) else []
    if "overrun_ns" in fields:
        out.append(f"{duration(fields['overrun_ns'])} late")
    for k in ("action", "rule", "message", "problem", "cause", "max_rounds", "signal"):
        if fields.get(k) not in (None, ""):
            out.append(f"{k.replace('_', ' ')} {fields[k]}")
    if fields.get("exit_code") is not None:
        out.append(f"exit code {fields['exit_code']}")
    return out
