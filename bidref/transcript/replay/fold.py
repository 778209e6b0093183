"""The fold over a transcript's lines: each line goes to the part that checks it.

- :mod:`.decisions` — a decision's request, replies, retries and timeout, which
  it checks with the next three;
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
from typing import Any, Final, NoReturn

from ...outcome.details import decode_detail
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
from .decisions import Decisions
from .game import GameState
from .header import check_header
from .public import PublicRound
from .report import Mismatch, Recorder, ReplayedResult, ReplayReport, Reveal, name
from .results import check_result, check_seed
from .seats import SeatProof

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
        self.public: PublicRound | None = None
        self.acct = Accounting(self.out)
        # what each line type goes to (bound methods): only the header, until it is read
        self.handlers: dict[type[Any], Callable[[Line, Any], None]] = {Header: self.on_header}

    def feed(self, ln: Line) -> None:
        d = ln.item
        n = ln.number
        tp = type(d)
        handler = self.handlers.get(tp)
        if handler is None or d.seq != n - 1:
            self._refuse(ln)
        if tp is not Header:
            self.clock.order(n, tp is Request, d.t_ns)
        handler(ln, d)

    def _refuse(self, ln: Line) -> NoReturn:
        """Why a line has no place here (the checks in the order they are reported)."""
        d = ln.item
        n = ln.number
        if self.done:
            raise Mismatch(n, f"a {ln.type!r} line after the result line")
        if d.seq != n - 1:
            raise Mismatch(n, f"seq is {d.seq!r}, but this is line {n} (seq {n - 1})")
        if self.header is None:
            raise Mismatch(n, f"the first line is {ln.type!r}; a transcript starts with its header")
        tp = type(d)
        self.clock.order(n, tp is Request, d.t_ns)
        if self.public is not None and tp in _NOT_AFTER_PUBLIC:
            raise Mismatch(
                n,
                f"round {self.game.round}'s deal is never revealed, but the transcript goes on "
                f"with a {ln.type!r} line",
            )
        raise Mismatch(n, f"unknown or repeated line type {ln.type!r}")

    # -- lines ------------------------------------------------------------------------

    def on_header(self, ln: Line, h: Header) -> None:
        control, controls = check_header(ln.number, h)
        self.header = self.report.header = h
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
        dec = self.decisions = Decisions(
            self.out, self.game, self.clock, self.seats, retries=h.illegal == "reject"
        )
        self.handlers = {
            Hello: self.on_hello,
            RoundStart: self.on_round_start,
            Request: dec.request,
            Reply: dec.reply,
            Retry: dec.retry,
            Timeout: dec.timeout,
            Stale: self.on_stale,
            RulesAsked: self.on_rules,
            LogLine: self.on_log,
            Resign: self.on_resign,
            EngineExit: self.on_engine_exit,
            Connection: self.on_connection,
            EventLine: self.on_event,
            RoundReveal: self.on_round_reveal,
            SeedReveal: self.on_seed_reveal,
            Result: self.on_result,
        }
        self.out.emit(ln)

    def on_hello(self, ln: Line, h: Hello) -> None:
        self.acct.hello(ln.number, h.seat)
        self.seats.hello(ln, h)
        self.out.emit(ln)

    def on_round_start(self, ln: Line, rs: RoundStart) -> None:
        rev = self.game.round_start(ln, rs)
        if rev is None:
            self.public = self.decisions.public = PublicRound(self.out, self.game.match)
            for tp in _NOT_AFTER_PUBLIC:  # the transcript must stop inside this round
                self.handlers.pop(tp, None)
            self.public.events_written = self.game.events_written
            self.out.public_only = True
            self.report.truncated = (
                f"round {rs.round} (from line {ln.number}) is never revealed: the transcript "
                "stops before the round's end, so only its public facts (layout, counts, "
                "transfers, clock) are verified"
            )
            self.out.emit(ln)
            return
        if self.out.record:
            self.out.emit(ln, deal=rev.deal_dict())
        else:
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
        detail = decode_detail(r.reason, r.detail)
        text = check_result(
            ln.number,
            r,
            self.header,
            g,
            self.clock,
            self.acct,
            seed_revealed=self.seed_revealed,
            last_reply=self.decisions.last_reply,
            rejection=self.seats.rejection,
            detail=detail,
        )
        self.done = True
        self.handlers = {}
        self.report.result = ReplayedResult.of(r, detail)
        if g.match.layout.placed and g.round not in self.report.final_layouts:
            self.report.final_layouts[g.round] = g.match.layout.copy()
        self.out.step(ln.number, "result", text)
        self.out.emit(ln)


_NOT_AFTER_PUBLIC: Final = (RoundStart, Result, RoundReveal, SeedReveal)
"""Lines that cannot follow a round that is never revealed."""
