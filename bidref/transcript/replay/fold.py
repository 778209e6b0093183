"""The fold over a transcript's lines: each line goes to the part that checks it.

- :mod:`.game` — the rules state (round starts, positions, actions, events);
- :mod:`.clock` — time order, deadlines, charges, timeouts;
- :mod:`.seats` — what each seat was sent and what it answered;
- :mod:`.accounting` — hellos, logs, rules questions, stale replies, exits;
- :mod:`.results` — the seed and the result;
- :mod:`.public` — a round whose deal is never revealed.

One pre-pass collects the round reveals (the format appends them at each
round's end). The fold never raises on bad input: every problem comes back in
:class:`~.report.ReplayReport`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ...rules import RulesError
from ..lines import (
    FORMAT_V1,
    Connection,
    EngineExit,
    EventLine,
    Header,
    Hello,
    LogLine,
    Reply,
    Request,
    Resign,
    Result,
    Retry,
    RoundReveal,
    RoundStart,
    RulesAsked,
    SeedReveal,
    Stale,
    Timeout,
)
from ..reader import Line
from .accounting import Accounting
from .clock import ClockCheck
from .expansion import reply_fields, request_fields, retry_fields
from .game import GameState
from .header import check_header
from .public import PublicRound
from .report import Mismatch, Recorder, ReplayReport, Reveal, name, overrun, seat_of
from .results import check_result, check_seed
from .seats import SeatProof, reply_raw

log = logging.getLogger(__name__)


class Fold:
    def __init__(
        self,
        report: ReplayReport,
        reveals: dict[int, Reveal],
        *,
        steps: bool = True,
        expand: bool = False,
    ) -> None:
        self.report = report
        self.reveals = reveals
        self.out = Recorder(report, steps=steps, expand=expand)
        self.header: Header | None = None
        self.done = False
        self.seed_revealed = False
        self.last_reply: Reply | None = None
        self.rejected_at = 0
        self.public: PublicRound | None = None
        self.acct = Accounting(self.out)

    def feed(self, ln: Line) -> None:
        d = ln.item
        n = ln.number
        if self.done:
            raise Mismatch(n, f"a {ln.type!r} line after the result line")
        if d.seq != n - 1:
            raise Mismatch(n, f"seq is {d.seq!r}, but this is line {n} (seq {n - 1})")
        tp = type(d)
        if self.header is None:
            if tp is not Header:
                raise Mismatch(
                    n, f"the first line is {ln.type!r}; a transcript starts with its header"
                )
            assert isinstance(d, Header)
            self.on_header(ln, d)
            return
        self.clock.order(n, tp is Request, d.t_ns)
        handler = _HANDLERS.get(tp)
        if handler is None:
            raise Mismatch(n, f"unknown or repeated line type {ln.type!r}")
        if self.public is not None and tp in (RoundStart, Result, RoundReveal, SeedReveal):
            raise Mismatch(
                n,
                f"round {self.game.round}'s deal is never revealed, but the transcript goes on "
                f"with a {ln.type!r} line",
            )
        handler(self, ln, d)

    # -- lines ------------------------------------------------------------------------

    def on_header(self, ln: Line, h: Header) -> None:
        control, controls = check_header(ln.number, h)
        self.header = h
        self.report.format = h.format
        record = self.report.game
        record.explicit_deals, record.max_rounds = h.explicit_deals, h.max_rounds
        record.engines = [str(e.get("name")) for e in h.engines]
        for engine in h.engines:
            if engine.get("seat") in (0, 1):
                log_path = engine.get("stderr_log")
                self.report.stderr_logs[engine["seat"]] = (
                    log_path if isinstance(log_path, str) else None
                )
        record.deals = {r: rev.deal for r, rev in self.reveals.items()}
        self.clock = ClockCheck(control, controls)
        self.seats = SeatProof(h)
        try:
            self.game = GameState(
                self.out,
                self.reveals,
                h.max_rounds,
                seeded=h.seeded,
                explicit_deals=h.explicit_deals,
                events_written=h.format == FORMAT_V1,
            )
        except RulesError as e:
            raise Mismatch(ln.number, str(e)) from None
        self.out.emit(ln)

    def on_hello(self, ln: Line, h: Hello) -> None:
        self.acct.hello(ln.number, h.seat)
        self.seats.hello(ln, h)
        self.out.emit(ln)

    def on_round_start(self, ln: Line, rs: RoundStart) -> None:
        rev = self.game.round_start(ln, rs)
        if rev is None:
            self.public = PublicRound(self.out, self.game.match)
            self.public.events_written = self.game.events_written
            self.out.public_only = True
            self.report.truncated = (
                f"round {rs.round} (from line {ln.number}) is never revealed: the transcript "
                "stops before the round's end, so only its public facts (layout, counts, "
                "transfers, clock) are verified"
            )
            self.out.emit(ln)
            return
        self.out.emit(ln, deal=rev.deal.to_dict())

    def on_request(self, ln: Line, r: Request) -> None:
        n = ln.number
        seat = seat_of(n, r.seat)
        if self.public is not None:
            turn = self.public.request(n, r)
            self.clock.request(n, r, seat, turn)
            self.out.emit(ln)
            return
        g = self.game
        g.request(n, r)
        m = g.match
        c = self.clock.request(n, r, seat, m.turn)
        raw = self.seats.request(ln, m, c, r.id, g.reveal)
        if not self.out.expand:
            self.out.emit(ln)
            return
        self.out.emit(ln, _v1=request_fields(m, c, seat, r.t_ns), _raw=raw)

    def on_reply(self, ln: Line, r: Reply) -> None:
        n = ln.number
        p, charge = self.clock.reply(n, r)
        seat = p.seat
        note = self.clock.note(charge, seat) if self.out.steps else ""
        v1 = reply_fields(r, charge, self.clock.clock) if self.out.expand else {}
        if r.status == "accepted" and r.rule is not None:
            raise Mismatch(n, f"an accepted reply names a broken rule {r.rule!r}")
        self.last_reply = r
        if charge.timed_out:
            self.out.step(
                n,
                "note",
                f"{name(seat)} replied {overrun(charge.overrun)} after the deadline: time is out",
                seat,
            )
            self._emit(ln, v1, None)
            return
        if r.status == "accepted":
            self.clock.pending = None
            self.report.decisions += 1
            raw = None
            if self.public is not None:
                self.public.accepted(n, seat, str(r.action), note)
            else:
                action = self.game.accept(ln, seat, r.action, note, r.seq)
                raw = self.seats.accepted(ln, r, action, self.game.reveal)
                if raw is not None and v1:
                    raw = reply_raw(raw, r)
            self._emit(ln, v1, raw)
            return
        if r.action is not None:
            raise Mismatch(
                n,
                f"a rejected reply shows an action {r.action!r}: its text is private until "
                "the round's reveal",
            )
        self.rejected_at = r.t_ns
        if self.public is None:
            self.seats.rejected_reply(ln, r, self.game.match, self.game.reveal)
        else:
            self.seats.rejected[seat] += 1
        self.out.step(
            n,
            "illegal",
            f"{name(seat)} {r.status.replace('_', ' ')} rejected ({r.rule or 'no rule'}); {note}",
            seat,
        )
        self._emit(ln, v1, None)

    def _emit(self, ln: Line, v1: dict[str, Any], raw: str | None) -> None:
        if v1:
            self.out.emit(ln, _v1=v1, _raw=raw)
        else:
            self.out.emit(ln)

    def on_retry(self, ln: Line, r: Retry) -> None:
        n = ln.number
        last = self.last_reply
        if self.clock.pending is None or last is None or last.status == "accepted":
            raise Mismatch(n, "a retry, but no rejected reply is pending")
        if self.header is not None and self.header.illegal != "reject":
            raise Mismatch(
                n,
                f"a retry after an illegal action, but the header's policy is "
                f"{self.header.illegal!r}: the first illegal action loses the match",
            )
        self.clock.retry(n, r, self.rejected_at)
        if self.out.expand:
            c, p = self.clock.clock, self.clock.pending
            assert p is not None
            self.out.emit(ln, _v1=retry_fields(p, c))
            return
        self.out.emit(ln)

    def on_timeout(self, ln: Line, t: Timeout) -> None:
        p = self.clock.timeout(ln.number, t)
        self.out.step(
            ln.number,
            "note",
            f"{name(p.seat)} is out of time ({overrun(t.overrun_ns)} past the deadline)",
            p.seat,
        )
        self.out.emit(ln)

    def on_stale(self, ln: Line, s: Stale) -> None:
        self.acct.stale(ln.number, s, self.clock.pending)
        self.out.emit(ln)

    def on_rules(self, ln: Line, r: RulesAsked) -> None:
        self.acct.rules(ln.number, r)
        self.out.emit(ln)

    def on_log(self, ln: Line, g: LogLine) -> None:
        rev = self.reveals.get(max(self.game.round, 1))
        self.acct.log(ln, g, rev)
        self.out.emit(ln)

    def on_resign(self, ln: Line, r: Resign) -> None:
        self.acct.resign(ln.number, r)
        self.out.emit(ln)

    def on_connection(self, ln: Line, c: Connection) -> None:
        """A network seat's connect/disconnect/resume (docs/network.md): a note, in time
        order like every line."""
        if c.seat not in (0, 1):
            raise Mismatch(ln.number, f"seat {c.seat!r}: a connection line names seat 0 or 1")
        self.out.step(ln.number, "note", f"{name(c.seat)}: {c.event}", c.seat)
        self.out.emit(ln)

    def on_engine_exit(self, ln: Line, e: EngineExit) -> None:
        self.acct.engine_exit(ln.number, e, self.seats.rejected)
        self.report.stderr_logs[e.seat] = e.stderr_log
        self.out.emit(ln)

    def on_event(self, ln: Line, e: EventLine) -> None:
        if self.public is not None:
            self.public.event(ln, e)
            return
        self.game.event_line(ln, e)

    def on_round_reveal(self, ln: Line, r: RoundReveal) -> None:
        self.game.round_reveal(ln.number, r.round)
        rev = self.reveals[r.round]
        self.seats.round_end(rev)
        self.out.emit(ln)

    def on_seed_reveal(self, ln: Line, s: SeedReveal) -> None:
        assert self.header is not None
        check_seed(ln.number, s, self.header, self.game)
        self.seed_revealed = True
        self.report.game.seed = s.seed
        self.out.emit(ln)

    def on_result(self, ln: Line, r: Result) -> None:
        assert self.header is not None
        g = self.game
        text = check_result(
            ln.number,
            r,
            self.header,
            g,
            self.clock,
            self.acct,
            seed_revealed=self.seed_revealed,
            last_reply=self.last_reply,
            rejection=self.seats.rejection,
        )
        self.done = True
        self.report.result = {
            "winner": r.winner,
            "reason": r.reason,
            "detail": r.detail,
            "balances": r.balances,
            "rounds": r.rounds,
            "rated": r.rated,
        }
        if g.match.layout.placed and g.round not in self.report.final_layouts:
            self.report.final_layouts[g.round] = g.match.layout.copy()
        self.out.step(ln.number, "result", text)
        self.out.emit(ln)


_HANDLERS: dict[type[Any], Callable[[Fold, Line, Any], None]] = {
    Hello: Fold.on_hello,
    RoundStart: Fold.on_round_start,
    Request: Fold.on_request,
    Reply: Fold.on_reply,
    Retry: Fold.on_retry,
    Timeout: Fold.on_timeout,
    Stale: Fold.on_stale,
    RulesAsked: Fold.on_rules,
    LogLine: Fold.on_log,
    Resign: Fold.on_resign,
    EngineExit: Fold.on_engine_exit,
    Connection: Fold.on_connection,
    EventLine: Fold.on_event,
    RoundReveal: Fold.on_round_reveal,
    SeedReveal: Fold.on_seed_reveal,
    Result: Fold.on_result,
}
