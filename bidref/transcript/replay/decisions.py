"""A decision's lines — its request, the replies, retries and a timeout — each checked
by the parts it concerns: the rules state (:mod:`.game`), the clock (:mod:`.clock`)
and what the seat was sent and answered (:mod:`.seats`).

This is the replay's hot path (two lines per decision): the verify-only case
(no steps to show, nothing to expand) does no work for what it will not show.
"""

from __future__ import annotations

from typing import Any

from ..lines import Reply, Request, Retry, Timeout
from ..reader import Line
from .clock import ClockCheck
from .expansion import reply_fields, request_fields, retry_fields
from .game import GameState
from .public import PublicRound
from .report import Mismatch, Recorder, name, overrun, seat_of
from .seats import SeatProof, reply_raw


class Decisions:
    def __init__(
        self,
        out: Recorder,
        game: GameState,
        clock: ClockCheck,
        seats: SeatProof,
        *,
        retries: bool,
    ) -> None:
        self.out = out
        self.game = game
        self.clock = clock
        self.seats = seats
        self.retries = retries  # the header's policy: a rejected reply may be retried
        self.public: PublicRound | None = None  # a round never revealed
        self.last_reply: Reply | None = None
        self.rejected_at = 0

    def request(self, ln: Line, r: Request) -> None:
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
        out = self.out
        if not out.expand:
            out.emit(ln)
            return
        out.emit(ln, _v1=request_fields(m, c, seat, r.t_ns), _raw=raw)

    def reply(self, ln: Line, r: Reply) -> None:
        n = ln.number
        clock = self.clock
        out = self.out
        p, charge = clock.reply(n, r)
        seat = p.seat
        note = clock.note(charge, seat, r.cpu_ns, r.wait_ns) if out.steps else ""
        v1 = reply_fields(r, charge, clock.clock) if out.expand else None
        accepted = r.status == "accepted"
        if accepted and r.rule is not None:
            raise Mismatch(n, f"an accepted reply names a broken rule {r.rule!r}")
        self.last_reply = r
        if charge.timed_out:
            out.step(
                n,
                "note",
                f"{name(seat)} replied {overrun(charge.overrun)} after the deadline: time is out",
                seat,
            )
            self._emit(ln, v1, None)
            return
        if accepted:
            clock.pending = None
            out.report.decisions += 1
            if self.public is not None:
                self.public.accepted(n, seat, str(r.action), note)
                self._emit(ln, v1, None)
                return
            g = self.game
            action = g.accept(ln, seat, r.action, note, r.seq)
            raw = self.seats.accepted(ln, r, action, g.reveal)
            if v1 is None:
                out.emit(ln)
                return
            self._emit(ln, v1, None if raw is None else reply_raw(raw, r))
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
        out.step(
            n,
            "illegal",
            f"{name(seat)} {r.status.replace('_', ' ')} rejected ({r.rule or 'no rule'}); {note}",
            seat,
        )
        self._emit(ln, v1, None)

    def _emit(self, ln: Line, v1: dict[str, Any] | None, raw: str | None) -> None:
        if v1 is not None:
            self.out.emit(ln, _v1=v1, _raw=raw)
        else:
            self.out.emit(ln)

    def retry(self, ln: Line, r: Retry) -> None:
        n = ln.number
        last = self.last_reply
        if self.clock.pending is None or last is None or last.status == "accepted":
            raise Mismatch(n, "a retry, but no rejected reply is pending")
        if not self.retries:
            raise Mismatch(
                n,
                "a retry after an illegal action, but the header's policy is 'forfeit': "
                "the first illegal action loses the match",
            )
        self.clock.retry(n, r, self.rejected_at)
        if self.out.expand:
            c, p = self.clock.clock, self.clock.pending
            assert p is not None
            self.out.emit(ln, _v1=retry_fields(p, c))
            return
        self.out.emit(ln)

    def timeout(self, ln: Line, t: Timeout) -> None:
        p = self.clock.timeout(ln.number, t)
        self.out.step(
            ln.number,
            "note",
            f"{name(p.seat)} is out of time ({overrun(t.overrun_ns)} past the deadline)",
            p.seat,
        )
        self.out.emit(ln)
