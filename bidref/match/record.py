"""The transcript side of a match: every line the referee writes, as the models
of :mod:`bidref.transcript.lines`, with the caps of docs/match.md ("Caps":
``lines.RAW_CAP`` and ``lines.LINES_CAP``). The sessions report to it (it is their
:class:`~bidref.match.session.Recorder`); the referee calls it for the rest.
"""

from __future__ import annotations

import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..engines import Clock
from ..outcome import MatchOutcome
from ..protocol import PROTOCOL_VERSION, Log, RulesRequest
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
from ..transcript.lines import (
    FORMAT_V1,
    LINES_CAP,
    RAW_CAP,
    Connection,
    EngineExit,
    EventLine,
    Header,
    Hello,
    LogLine,
    PrivateItem,
    Reply,
    Resign,
    Result,
    Retry,
    RulesAsked,
    Stale,
    TimeControlField,
    Timeout,
    cut_raw,
)
from ..transcript.lines import (
    Charge as ChargeField,
)
from .meters import NO_CPU
from .session import EngineSession
from .spec import MatchSpec


def _charge(charge: Charge) -> ChargeField:
    return ChargeField(charge.delay_used, charge.bank_used, charge.timed_out, charge.overrun)


class TranscriptRecorder:
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
        if self.sessions[seat].counts["log_lines"] > LINES_CAP:
            return
        tx = self.tx
        seq = tx.put(LogLine(*tx.stamp(t), seat=seat, chars=len(msg.message)))
        tx.private(PrivateItem(seq, "log", seat=seat, message=msg.message[:RAW_CAP]))

    def stale(self, seat: int, got_id: int, pending: int, raw: str, t: int) -> None:
        if self.sessions[seat].counts["stale_lines"] <= LINES_CAP:
            tx = self.tx
            seq = tx.put(Stale(*tx.stamp(t), seat=seat, id=got_id, pending=pending))
            tx.private(PrivateItem(seq, "reply_raw", seat=seat, raw=cut_raw(raw)))

    def rules(self, seat: int, msg: RulesRequest, t: int) -> None:
        if self.sessions[seat].counts["rules_requests"] <= LINES_CAP:
            tx = self.tx
            rid = cut_raw(msg.id) if isinstance(msg.id, str) else msg.id
            topic = None if msg.topic is None else cut_raw(msg.topic)
            tx.put(RulesAsked(*tx.stamp(t), seat=seat, id=rid, topic=topic))

    def resign(self, seat: int, message: str | None, t: int) -> None:
        tx = self.tx
        seq = tx.put(Resign(*tx.stamp(t), seat=seat))
        if message:  # private like a log line: it could say something about the hand
            tx.private(PrivateItem(seq, "resign_message", seat=seat, message=message[:RAW_CAP]))

    def connection(self, seat: int, t: int, fields: dict[str, Any]) -> None:
        """A network seat's connect, disconnect or resume (bidref.net): ``t`` when
        written, ``at`` (raw clock) when it happened."""
        tx = self.tx
        at = fields.pop("at", t)
        tx.put(Connection(*tx.stamp(t), seat=seat, **fields, at_ns=at - self.origin))

    def timeout(self, seat: int, overrun_ns: int) -> None:
        tx = self.tx
        tx.put(Timeout(*tx.stamp(self.clock()), seat=seat, overrun_ns=overrun_ns))

    def header(
        self,
        spec: MatchSpec,
        policy: str,
        seed: int | None,
        controls: tuple[TimeControl, TimeControl] | None,
    ) -> None:
        tx = self.tx
        tc = spec.time_control
        seed_commitment = tx.commit_seed(seed) if seed is not None else None
        started_at = self.started_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        tx.put(
            Header(
                *tx.stamp(self.origin),
                format=FORMAT_V1,  # (the writer's own format is written)
                bidref=__version__,
                protocol=PROTOCOL_VERSION,
                rules=RULES_VERSION,
                started_at=started_at,
                time_control=TimeControlField(tc.bank, tc.delay),
                time_controls=None
                if controls is None
                else [TimeControlField(c.bank, c.delay) for c in controls],
                # the referee's clock origin (raw CLOCK_MONOTONIC when the clock is the
                # real one): engine logs stamped with CLOCK_MONOTONIC line up with t_ns
                monotonic_origin_ns=self.origin,
                timing_tolerance_ns=spec.timing_tolerance_ns,
                max_rounds=spec.max_rounds,
                illegal=policy,
                transport=spec.transport,
                seeded=seed is not None,
                explicit_deals=len(spec.deals),
                seed_commitment=seed_commitment,
                engines=[{"seat": s.index, **s.seat.describe()} for s in self.sessions],
            )
        )

    def hello(
        self,
        seat: int,
        sent: str,
        received: str,
        engine: dict[str, Any],
        t: int,
        sent_at: int,
        jail: dict[str, Any] | None = None,
    ) -> None:
        tx = self.tx
        tx.put(
            Hello(
                *tx.stamp(t),
                seat=seat,
                sent=sent,
                received=received,
                engine=engine,
                elapsed_ns=t - sent_at,
                jail=jail,
            )
        )

    def accepted(
        self,
        p: int,
        rid: int,
        action: str,
        text: str,
        t: int,
        mclock: MatchClock,
        charge: Charge,
        cpu: tuple[int | None, int | None, int | None] = NO_CPU,
    ) -> None:
        tx = self.tx
        seq, t_ns = tx.stamp(t)
        line = Reply(seq, t_ns, p, rid, "accepted", action, None, charge.elapsed, *cpu)
        if not tx.compact:  # (what /2 derives, made only for /1)
            line.charge, line.banks_ns = _charge(charge), list(mclock.banks)
        tx.put(line, flush=False)
        # the raw line may carry extra fields: private until the round ends
        tx.private(PrivateItem(seq, "reply_raw", seat=p, raw=cut_raw(text)))

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
        cpu: tuple[int | None, int | None, int | None] = NO_CPU,
    ) -> None:
        tx = self.tx
        assert code in ("illegal", "bad_action")
        seq = tx.put(
            Reply(
                *tx.stamp(t),
                seat=p,
                id=rid,
                status="illegal" if code == "illegal" else "bad_action",
                rule=rule,
                elapsed_ns=charge.elapsed,
                cpu_ns=cpu[0],
                idle_cpu_ns=cpu[1],
                wait_ns=cpu[2],
                charge=_charge(charge),
                banks_ns=list(banks),
            )
        )
        if self.sessions[p].counts["rejected"] <= LINES_CAP:
            tx.private(PrivateItem(seq, "reply_raw", seat=p, raw=cut_raw(raw)))
            tx.private(PrivateItem(seq, "error_raw", seat=p, message=cut_raw(message)))

    def retry(
        self, p: int, rid: int, start: int, deadline: int, delay_left: int, bank: int
    ) -> None:
        tx = self.tx
        tx.put(
            Retry(
                *tx.stamp(start),
                seat=p,
                id=rid,
                deadline_ns=deadline - self.origin,
                delay_left_ns=delay_left,
                bank_ns=bank,
            )
        )

    def events(self, events: list[Event], t: int, match: Match | None) -> None:
        tx = self.tx
        keep = tx.keeps_events  # (v2 derives the events: no line to make)
        for ev in events:
            tp = type(ev)
            if tp is RoundStarted:
                assert isinstance(ev, RoundStarted)
                tx.start_round(
                    t,
                    ev.round,
                    ev.deal.to_dict(),
                    opening=ev.opening,
                    jockey=ev.jockey,
                    balances=list(match.balances) if match else None,
                )
                continue
            if keep and isinstance(ev, Drew):
                seq = tx.put(EventLine(*tx.stamp(t), event=ev.public_form().to_dict()), False)
                tile = ev.tile.as_list() if ev.tile else None
                tx.private(PrivateItem(seq, "drew", seat=ev.player, tile=tile))
            elif keep:
                tx.put(EventLine(*tx.stamp(t), event=ev.to_dict()), flush=False)
            if tp is RoundEnded:
                tx.reveal_round(t)

    def exits(self, t: int, t_end: int, exits: list[dict[str, object]]) -> None:
        tx = self.tx
        tx.reveal_round(t)
        for e in exits:
            tx.put(EngineExit(*tx.stamp(t_end), **e))  # type: ignore[arg-type]
        tx.reveal_seed(t_end)

    def result(self, t_end: int, outcome: MatchOutcome) -> None:
        tx = self.tx
        tx.put(
            Result(
                *tx.stamp(t_end),
                winner=outcome.winner,
                reason=outcome.reason,
                detail=outcome.end.to_dict(),
                balances=list(outcome.balances),
                rounds=outcome.rounds,
                rated=outcome.rated,
                engines=list(outcome.engines),
            )
        )
        tx.close()


def __getattr__(name: str) -> object:
    # The old name of TranscriptRecorder, for one release: bidref.tournament's
    # MatchRecord (a results line) is the one class of that name (issue 39).
    if name == "MatchRecord":
        warnings.warn(
            "bidref.match.record.MatchRecord is now TranscriptRecorder; the old name "
            "goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return TranscriptRecorder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
