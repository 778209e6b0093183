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
from collections.abc import Callable, Sequence
from typing import Any

from ...protocol.messages import PROTOCOL_VERSION
from ...rules import RULES_VERSION, Deal, RulesError, TimeControl
from ..files import decompress
from ..lines import (
    FORMAT_V1,
    FORMATS,
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
from ..reader import Line, ReadResult, read_transcript
from .accounting import Accounting
from .clock import ClockCheck
from .game import GameState, Recorder, Reveal
from .public import PublicRound
from .report import Mismatch, ReplayReport, name, overrun, seat_of
from .results import check_result, check_seed
from .seats import SeatProof

log = logging.getLogger(__name__)


def collect_reveals(lines: Sequence[Line]) -> dict[int, Reveal]:
    """The round reveals, by round."""
    reveals: dict[int, Reveal] = {}
    for ln in lines:
        d = ln.item
        if type(d) is not RoundReveal:
            continue
        if d.round in reveals:
            raise Mismatch(ln.number, f"round {d.round} is revealed twice")
        try:
            hands = d.deal["hands"]
            deal = Deal.from_lists(hands[0], hands[1], d.deal["boneyard"])
        except (KeyError, IndexError, TypeError, ValueError, RulesError) as e:
            raise Mismatch(ln.number, f"the revealed deal is not a deal: {e}") from None
        if deal.to_dict() != d.deal:
            raise Mismatch(
                ln.number,
                "the revealed deal is not in canonical form (hands sorted, tiles as [low, high])",
            )
        private: dict[int, list] = {}  # type: ignore[type-arg]
        for item in d.private:
            private.setdefault(item.seq, []).append(item)
        forms = d.reply_forms
        if forms is not None and len(forms) != 2:
            raise Mismatch(ln.number, f"reply_forms {forms!r}: one per seat")
        reveals[d.round] = Reveal(ln.number, deal, d.salt, private, d.requests, forms)
    return reveals


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
        n = ln.number
        if h.format not in FORMATS:
            raise Mismatch(n, f"format {h.format!r}: this replay reads {' and '.join(FORMATS)}")
        for key, said, mine in (
            ("rules", h.rules, RULES_VERSION),
            ("protocol", h.protocol, PROTOCOL_VERSION),
        ):
            if said != mine:
                raise Mismatch(n, f"{key} {said!r}: this replay checks {mine!r}")
        if h.t_ns != 0:
            raise Mismatch(n, f"the header's t_ns is {h.t_ns!r}: time starts at 0 there")
        try:
            control = TimeControl(h.time_control.bank_ns, h.time_control.delay_ns)
        except ValueError as e:
            raise Mismatch(n, str(e)) from None
        if h.max_rounds is not None and h.max_rounds < 1:
            raise Mismatch(n, f"max_rounds {h.max_rounds!r} is not a round limit")
        if h.illegal not in ("reject", "forfeit"):
            raise Mismatch(
                n, f"illegal-action policy {h.illegal!r}: expected 'reject' or 'forfeit'"
            )
        if h.explicit_deals < 0:
            raise Mismatch(n, f"explicit_deals {h.explicit_deals!r} is not a number of rounds")
        if h.seeded != (h.seed_commitment is not None):
            raise Mismatch(n, "'seeded' and 'seed_commitment' disagree")
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
        self.clock = ClockCheck(control)
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
            raise Mismatch(n, str(e)) from None
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
        v1 = {
            "round": m.round_number,
            "turn": m.turn,
            "phase": m.phase.value,
            "clock": {
                "delay_left_ns": c.delay_left,
                "bank_ns": c.banks[seat],
                "opponent_bank_ns": c.banks[1 - seat],
            },
            "deadline_ns": c.deadline(r.t_ns),
        }
        self.out.emit(ln, _v1=v1, _raw=raw)

    def on_reply(self, ln: Line, r: Reply) -> None:
        n = ln.number
        p, charge = self.clock.reply(n, r)
        seat = p.seat
        note = self.clock.note(charge, seat) if self.out.steps else ""
        v1: dict[str, Any] = {}
        if self.out.expand:
            v1 = {
                "status": r.status,
                "action": r.action,
                "rule": r.rule,
                "elapsed_ns": charge.elapsed,
                "charge": {
                    "delay_used_ns": charge.delay_used,
                    "bank_used_ns": charge.bank_used,
                    "timed_out": charge.timed_out,
                    "overrun_ns": charge.overrun,
                },
                "banks_ns": list(self.clock.clock.banks),
            }
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
            v1 = {
                "deadline_ns": p.deadline,
                "delay_left_ns": c.delay_left,
                "bank_ns": c.banks[p.seat],
            }
            self.out.emit(ln, _v1=v1)
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
    EventLine: Fold.on_event,
    RoundReveal: Fold.on_round_reveal,
    SeedReveal: Fold.on_seed_reveal,
    Result: Fold.on_result,
}


def replay_lines(read: ReadResult, *, steps: bool = True, expand: bool = False) -> ReplayReport:
    """Fold over the lines read from a transcript; never raises on bad input.
    ``steps=False`` verifies only: no steps to show (the result, the final layouts
    and the verified stream are there all the same)."""
    report = ReplayReport(lines=len(read.lines))
    try:
        fold = Fold(report, collect_reveals(read.lines), steps=steps, expand=expand)
        for ln in read.lines:
            try:
                fold.feed(ln)
            except Mismatch:
                raise
            except (
                KeyError,
                TypeError,
                ValueError,
                AttributeError,
                IndexError,
                OverflowError,
            ) as e:
                raise Mismatch(
                    ln.number, f"a malformed {ln.type!r} line: {type(e).__name__}: {e}"
                ) from None
        if read.problem is not None:
            raise Mismatch(read.problem.number, read.problem.message)
        if not fold.done:
            last = read.lines[-1].number if read.lines else 0
            where = (
                f"an unfinished line {read.truncated_at}" if read.truncated_at else "no result line"
            )
            note = (
                f"the transcript stops after line {last} ({where}): the referee may have been "
                "killed; everything up to there is replayed"
            )
            report.truncated = f"{report.truncated}; {note}" if report.truncated else note
            if fold.header is not None:
                m = fold.game.match
                if m.layout.placed:
                    report.final_layouts.setdefault(fold.game.round, m.layout.copy())
                if fold.public is not None and fold.public.layout.placed:
                    report.final_layouts[fold.game.round] = fold.public.layout.copy()
    except Mismatch as e:
        log.debug("replay stopped at line %d: %s", e.line, e.message)
        report.ok = False
        report.problem = e
    return report


def replay(data: bytes, *, steps: bool = True, expand: bool = False) -> ReplayReport:
    """Read and replay a transcript's bytes (plain or compressed: gzip and Zstandard
    are recognised by their magic numbers)."""
    return replay_lines(read_transcript(decompress(data, "")), steps=steps, expand=expand)
