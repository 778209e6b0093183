"""The transcript side of a match: every line the referee writes, with the caps
of docs/match.md ("Caps"). The sessions report to it (it is their
:class:`~bidref.match.session.Recorder`); the referee calls it for the rest.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from .. import __version__
from ..engines import Clock
from ..protocol import PROTOCOL_VERSION, Log, RulesRequest
from ..protocol.fastview import event_json
from ..rules import (
    RULES_VERSION,
    Charge,
    Drew,
    Event,
    Match,
    MatchClock,
    RoundEnded,
    RoundStarted,
    TimeControl,
)
from ..transcript import TranscriptWriter
from ..transcript.lines import reply_fields
from .outcome import MatchOutcome
from .session import EngineSession
from .spec import MatchSpec

LOG_LINE_CAP: Final = 1000  # characters kept of a log line, or of a raw engine line held back
LOG_LINES_CAP: Final = 200  # per seat and match: log lines, stale replies, rules requests and
# rejected replies whose raw line is recorded; further ones are counted (engine_exit)


def _cut(raw: str) -> str:
    """An engine's line as held back in the transcript: at most LOG_LINE_CAP
    characters, and a mark of its length when cut."""
    if len(raw) <= LOG_LINE_CAP:
        return raw
    return f"{raw[:LOG_LINE_CAP]}…[{len(raw)} chars]"


class MatchRecord:
    """The transcript side of the match: what the sessions report, written with
    the caps of docs/match.md (a :class:`~bidref.match.session.Recorder`)."""

    def __init__(self, tx: TranscriptWriter, clock: Clock, origin: int) -> None:
        self.tx = tx
        self.clock = clock
        self.origin = origin  # the clock at t_ns 0
        self.path: Path | None = None
        self.started_at: str | None = None
        self.sessions: list[EngineSession] = []

    def before_send(self) -> None:
        self.tx.flush()  # what the engine is told is in the transcript first

    def log(self, seat: int, msg: Log, t: int) -> None:
        if self.sessions[seat].counts["log_lines"] > LOG_LINES_CAP:
            return
        seq = self.tx.write("log", t, {"seat": seat, "chars": len(msg.message)})
        self.tx.private(seq, "log", {"seat": seat, "message": msg.message[:LOG_LINE_CAP]})

    def stale(self, seat: int, got_id: int, pending: int, raw: str, t: int) -> None:
        if self.sessions[seat].counts["stale_lines"] <= LOG_LINES_CAP:
            seq = self.tx.write("stale", t, {"seat": seat, "id": got_id, "pending": pending})
            self.tx.private(seq, "reply_raw", {"seat": seat, "raw": _cut(raw)})

    def rules(self, seat: int, msg: RulesRequest, t: int) -> None:
        if self.sessions[seat].counts["rules_requests"] <= LOG_LINES_CAP:
            self.tx.write(
                "rules",
                t,
                {
                    "seat": seat,
                    "id": _cut(msg.id) if isinstance(msg.id, str) else msg.id,
                    "topic": None if msg.topic is None else _cut(msg.topic),
                },
            )

    def resign(self, seat: int, message: str | None, t: int) -> None:
        seq = self.tx.write("resign", t, {"seat": seat})
        if message:  # private like a log line: it could say something about the hand
            self.tx.private(
                seq, "resign_message", {"seat": seat, "message": message[:LOG_LINE_CAP]}
            )

    def connection(self, seat: int, t: int, fields: dict[str, Any]) -> None:
        """A network seat's connect, disconnect or resume (bidref.net): ``t`` when
        written, ``at`` (raw clock) when it happened."""
        at = fields.pop("at", t)
        self.tx.write("connection", t, {"seat": seat, **fields, "at_ns": at - self.origin})

    def timeout(self, seat: int, overrun_ns: int) -> None:
        self.tx.write("timeout", self.clock(), {"seat": seat, "overrun_ns": overrun_ns})

    def header(
        self,
        spec: MatchSpec,
        policy: str,
        seed: int | None,
        controls: tuple[TimeControl, TimeControl] | None,
    ) -> None:
        tc = spec.time_control
        seed_commitment = self.tx.commit_seed(seed) if seed is not None else None
        started_at = self.started_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.tx.write(
            "header",
            self.origin,
            {
                "format": "bidref-transcript/1",
                "bidref": __version__,
                "protocol": PROTOCOL_VERSION,
                "rules": RULES_VERSION,
                "started_at": started_at,
                "time_control": {"bank_ns": tc.bank, "delay_ns": tc.delay},
                **(
                    {"time_controls": [{"bank_ns": c.bank, "delay_ns": c.delay} for c in controls]}
                    if controls is not None
                    else {}
                ),
                # the referee's clock origin (raw CLOCK_MONOTONIC when the clock is the
                # real one): engine logs stamped with CLOCK_MONOTONIC line up with t_ns
                "monotonic_origin_ns": self.origin,
                "timing_tolerance_ns": spec.timing_tolerance_ns,
                "max_rounds": spec.max_rounds,
                "illegal": policy,
                "transport": spec.transport,
                "seeded": seed is not None,
                "explicit_deals": len(spec.deals),
                "seed_commitment": seed_commitment,
                "engines": [{"seat": s.index, **s.seat.describe()} for s in self.sessions],
            },
        )

    def hello(
        self, seat: int, sent: str, received: str, engine: dict[str, Any], t: int, sent_at: int
    ) -> None:
        self.tx.write(
            "hello",
            t,
            {
                "seat": seat,
                "sent": sent,
                "received": received,
                "engine": engine,
                "elapsed_ns": t - sent_at,
            },
        )

    def accepted(
        self,
        p: int,
        rid: int,
        action_json: str,
        text: str,
        t: int,
        mclock: MatchClock,
        charge: Charge,
    ) -> None:
        tx = self.tx
        banks = mclock.banks
        seq = tx.write_json(
            "reply",
            t,
            (
                f'"seat":{p},"id":{rid},"status":"accepted",'
                f'"action":{action_json},"rule":null,'
                f'"elapsed_ns":{charge.elapsed},"charge":{{'
                f'"delay_used_ns":{charge.delay_used},"bank_used_ns":{charge.bank_used},'
                f'"timed_out":{"true" if charge.timed_out else "false"},'
                f'"overrun_ns":{charge.overrun}}},"banks_ns":[{banks[0]},{banks[1]}]'
            ),
            flush=False,
        )
        # the raw line may carry extra fields: private until the round ends
        tx.private(seq, "reply_raw", {"seat": p, "raw": _cut(text)})

    def rejected(
        self,
        p: int,
        rid: int,
        code: str,
        rule: str | None,
        charge: Charge,
        banks: tuple[int, int],
        raw: str,
        message: str,
        t: int,
    ) -> None:
        tx = self.tx
        seq = tx.write(
            "reply",
            t,
            {"seat": p, "id": rid, **reply_fields(code, None, rule, charge, banks)},
        )
        if self.sessions[p].counts["rejected"] <= LOG_LINES_CAP:
            tx.private(seq, "reply_raw", {"seat": p, "raw": _cut(raw)})
            tx.private(seq, "error_raw", {"seat": p, "message": _cut(message)})

    def retry(
        self, p: int, rid: int, start: int, deadline: int, delay_left: int, bank: int
    ) -> None:
        self.tx.write(
            "retry",
            start,
            {
                "seat": p,
                "id": rid,
                "deadline_ns": deadline - self.origin,
                "delay_left_ns": delay_left,
                "bank_ns": bank,
            },
        )

    def events(self, events: list[Event], t: int, match: Match | None) -> None:
        tx = self.tx
        for ev in events:
            tp = type(ev)
            if tp is Drew:
                assert isinstance(ev, Drew)
                seq = tx.write_json(
                    "event", t, '"event":' + event_json(ev.public_form()), flush=False
                )
                tx.private(
                    seq, "drew", {"seat": ev.player, "tile": ev.tile.as_list() if ev.tile else None}
                )
            elif tp is RoundStarted:
                assert isinstance(ev, RoundStarted)
                tx.start_round(
                    t,
                    ev.round,
                    ev.deal.to_dict(),
                    {
                        "opening": ev.opening,
                        "jockey": ev.jockey,
                        "balances": list(match.balances) if match else None,
                    },
                )
            else:
                tx.write_json("event", t, '"event":' + event_json(ev), flush=False)
                if tp is RoundEnded:
                    tx.reveal_round(t)

    def exits(self, t: int, t_end: int, exits: list[dict[str, object]]) -> None:
        self.tx.reveal_round(t)
        for e in exits:
            self.tx.write("engine_exit", t_end, e)
        self.tx.reveal_seed(t_end)

    def result(self, t_end: int, outcome: MatchOutcome) -> None:
        self.tx.write(
            "result",
            t_end,
            {
                "winner": outcome.winner,
                "reason": outcome.reason,
                "detail": outcome.detail,
                "balances": list(outcome.balances),
                "rounds": outcome.rounds,
                "rated": outcome.rated,
                "engines": list(outcome.engines),
            },
        )
        self.tx.close()
